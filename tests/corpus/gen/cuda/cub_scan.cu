// CUB device-wide scans as users call them: cub::DeviceScan::InclusiveSum (int),
// ExclusiveSum (long long) and InclusiveScan with a max operator (float). Each is a sequence of
// kernels (tile-state init, then the single-pass scan with decoupled look-back between CTAs)
// over temporary storage: main() runs CUB's real host dispatch against launch_recorder.cpp,
// which records the launches for the corpus (make_launches.py turns them into launch files).
// Sizes span several tiles so every CTA but the first waits on its predecessors' flags.
#include <cub/device/device_scan.cuh>

#include "cub_common.cuh"

constexpr int kScanN = 9000;

int main() {
  {
    int* in = alloc<int>("in", kScanN);
    int* out = alloc<int>("out", kScanN);
    with_temp("inclusive_sum", [&](void* t, size_t& b) { cub::DeviceScan::InclusiveSum(t, b, in, out, kScanN); });
    cudaFree(in);
    cudaFree(out);
  }
  {
    long long* in = alloc<long long>("in", kScanN);
    long long* out = alloc<long long>("out", kScanN);
    with_temp("exclusive_sum_i64", [&](void* t, size_t& b) { cub::DeviceScan::ExclusiveSum(t, b, in, out, kScanN); });
    cudaFree(in);
    cudaFree(out);
  }
  {
    float* in = alloc<float>("in", kScanN);
    float* out = alloc<float>("out", kScanN);
    with_temp("inclusive_max_f32",
              [&](void* t, size_t& b) { cub::DeviceScan::InclusiveScan(t, b, in, out, cuda::maximum<>{}, kScanN); });
    cudaFree(in);
    cudaFree(out);
  }
  return 0;
}
