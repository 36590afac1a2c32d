// CUB device-wide selection and histograms as users call them: cub::DeviceSelect::If (ints
// divisible by 3, a user functor), DeviceSelect::Unique (runs of equal ints),
// DeviceHistogram::HistogramEven (float samples, 64 even bins over [-4, 4)) and
// DeviceRunLengthEncode::Encode. Selection is a single-pass scan with decoupled look-back over
// the selection flags; main() runs CUB's host dispatch against launch_recorder.cpp.
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>

#include "cub_common.cuh"

constexpr int kN = 9000;
constexpr int kBins = 64;

struct DivisibleBy3 {
  __host__ __device__ bool operator()(int x) const { return x % 3 == 0; }
};

int main() {
  {
    int* in = alloc<int>("in", kN);
    int* out = alloc<int>("out", kN);
    int* count = alloc<int>("count", 1);
    with_temp("select_if", [&](void* t, size_t& b) { cub::DeviceSelect::If(t, b, in, out, count, kN, DivisibleBy3{}); });
    cudaFree(in);
    cudaFree(out);
    cudaFree(count);
  }
  {
    int* in = alloc<int>("in", kN);
    int* out = alloc<int>("out", kN);
    int* count = alloc<int>("count", 1);
    with_temp("unique", [&](void* t, size_t& b) { cub::DeviceSelect::Unique(t, b, in, out, count, kN); });
    cudaFree(in);
    cudaFree(out);
    cudaFree(count);
  }
  {
    float* in = alloc<float>("samples", kN);
    int* hist = alloc<int>("histogram", kBins);
    with_temp("histogram_even", [&](void* t, size_t& b) {
      cub::DeviceHistogram::HistogramEven(t, b, in, hist, kBins + 1, -4.0f, 4.0f, kN);
    });
    cudaFree(in);
    cudaFree(hist);
  }
  {
    int* in = alloc<int>("in", kN);
    int* unique = alloc<int>("unique", kN);
    int* counts = alloc<int>("counts", kN);
    int* runs = alloc<int>("runs", 1);
    with_temp("run_length_encode",
              [&](void* t, size_t& b) { cub::DeviceRunLengthEncode::Encode(t, b, in, unique, counts, runs, kN); });
    cudaFree(in);
    cudaFree(unique);
    cudaFree(counts);
    cudaFree(runs);
  }
  return 0;
}
