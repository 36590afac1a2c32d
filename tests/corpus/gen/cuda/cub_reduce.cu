// CUB device-wide reductions as users call them: cub::DeviceReduce::Sum (int), Max (float),
// ArgMax (float: value and index outputs), and cub::DeviceSegmentedReduce::Sum (int, 40 segments
// of uneven length, some empty). main() runs CUB's host dispatch against launch_recorder.cpp:
// the recorded sequences are the multi-CTA reduce kernel (even-share grid) followed by the
// single-tile kernel over the per-CTA partials, or one CTA per segment.
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_segmented_reduce.cuh>

#include "cub_common.cuh"

constexpr int kN = 20000;
constexpr int kSegments = 40;

int main() {
  {
    int* in = alloc<int>("in", kN);
    int* out = alloc<int>("out", 1);
    with_temp("sum_i32", [&](void* t, size_t& b) { cub::DeviceReduce::Sum(t, b, in, out, kN); });
    cudaFree(in);
    cudaFree(out);
  }
  {
    float* in = alloc<float>("in", kN);
    float* out = alloc<float>("out", 1);
    with_temp("max_f32", [&](void* t, size_t& b) { cub::DeviceReduce::Max(t, b, in, out, kN); });
    cudaFree(in);
    cudaFree(out);
  }
  {
    float* in = alloc<float>("in", kN);
    float* max_out = alloc<float>("max", 1);
    long long* index_out = alloc<long long>("index", 1);
    with_temp("argmax_f32",
              [&](void* t, size_t& b) { cub::DeviceReduce::ArgMax(t, b, in, max_out, index_out, kN); });
    cudaFree(in);
    cudaFree(max_out);
    cudaFree(index_out);
  }
  {
    int* in = alloc<int>("in", kN);
    int* offsets = alloc<int>("offsets", kSegments + 1);
    int* out = alloc<int>("out", kSegments);
    with_temp("segmented_sum_i32", [&](void* t, size_t& b) {
      cub::DeviceSegmentedReduce::Sum(t, b, in, out, kSegments, offsets, offsets + 1);
    });
    cudaFree(in);
    cudaFree(offsets);
    cudaFree(out);
  }
  return 0;
}
