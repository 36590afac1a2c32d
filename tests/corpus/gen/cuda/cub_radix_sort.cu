// CUB device-wide radix sorts as users call them: cub::DeviceRadixSort::SortKeys (unsigned),
// SortPairs (float keys, int values) and SortPairsDescending (long long keys, unsigned values).
// Above one tile CUB runs the onesweep algorithm: a histogram kernel over all digits, an
// exclusive scan of the bins, then one onesweep kernel per 8-bit digit whose CTAs take tile ids
// from an atomic counter and chain their digit counts through a decoupled look-back. main()
// runs CUB's host dispatch against launch_recorder.cpp (memsets and launches recorded).
#include <cub/device/device_radix_sort.cuh>

#include "cub_common.cuh"

constexpr int kN = 12000;

int main() {
  {
    unsigned* in = alloc<unsigned>("keys_in", kN);
    unsigned* out = alloc<unsigned>("keys_out", kN);
    with_temp("sort_keys_u32", [&](void* t, size_t& b) { cub::DeviceRadixSort::SortKeys(t, b, in, out, kN); });
    cudaFree(in);
    cudaFree(out);
  }
  {
    float* kin = alloc<float>("keys_in", kN);
    float* kout = alloc<float>("keys_out", kN);
    int* vin = alloc<int>("values_in", kN);
    int* vout = alloc<int>("values_out", kN);
    with_temp("sort_pairs_f32",
              [&](void* t, size_t& b) { cub::DeviceRadixSort::SortPairs(t, b, kin, kout, vin, vout, kN); });
    cudaFree(kin);
    cudaFree(kout);
    cudaFree(vin);
    cudaFree(vout);
  }
  {
    long long* kin = alloc<long long>("keys_in", kN);
    long long* kout = alloc<long long>("keys_out", kN);
    unsigned* vin = alloc<unsigned>("values_in", kN);
    unsigned* vout = alloc<unsigned>("values_out", kN);
    with_temp("sort_pairs_desc_i64", [&](void* t, size_t& b) {
      cub::DeviceRadixSort::SortPairsDescending(t, b, kin, kout, vin, vout, kN);
    });
    cudaFree(kin);
    cudaFree(kout);
    cudaFree(vin);
    cudaFree(vout);
  }
  return 0;
}
