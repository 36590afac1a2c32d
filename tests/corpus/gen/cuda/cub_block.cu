// CUB block-level primitives as users instantiate them: BlockReduce (sum and max), BlockScan
// (exclusive sum, inclusive max) and BlockRadixSort (keys, and key-value pairs), 128 threads.
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

constexpr int kThreads = 128;

// sums[b] = sum of block b's ints, maxes[b] = max of its floats (BlockReduce, warp reductions).
extern "C" __global__ void cub_block_reduce(const int* __restrict__ xi, const float* __restrict__ xf,
                                            int* __restrict__ sums, float* __restrict__ maxes, int n) {
  using ReduceI = cub::BlockReduce<int, kThreads>;
  using ReduceF = cub::BlockReduce<float, kThreads, cub::BLOCK_REDUCE_RAKING>;
  __shared__ typename ReduceI::TempStorage ti;
  __shared__ typename ReduceF::TempStorage tf;
  int i = blockIdx.x * kThreads + threadIdx.x;
  int vi = i < n ? xi[i] : 0;
  float vf = i < n ? xf[i] : -INFINITY;
  int s = ReduceI(ti).Sum(vi);
  float m = ReduceF(tf).Reduce(vf, cuda::maximum<>{});
  if (threadIdx.x == 0) {
    sums[blockIdx.x] = s;
    maxes[blockIdx.x] = m;
  }
}

// Per block of 4 items per thread: exclusive prefix sum (ints) and inclusive running max.
extern "C" __global__ void cub_block_scan(const int* __restrict__ x, int* __restrict__ excl,
                                          int* __restrict__ incl_max, int* __restrict__ totals) {
  using Scan = cub::BlockScan<int, kThreads>;
  using ScanW = cub::BlockScan<int, kThreads, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ typename Scan::TempStorage t1;
  __shared__ typename ScanW::TempStorage t2;
  int base = blockIdx.x * kThreads * 4 + threadIdx.x * 4;
  int items[4], out[4];
  for (int k = 0; k < 4; ++k) items[k] = x[base + k];
  int total;
  Scan(t1).ExclusiveSum(items, out, total);
  for (int k = 0; k < 4; ++k) excl[base + k] = out[k];
  ScanW(t2).InclusiveScan(items, out, cuda::maximum<>{});
  for (int k = 0; k < 4; ++k) incl_max[base + k] = out[k];
  if (threadIdx.x == 0) totals[blockIdx.x] = total;
}

// Sorts 512 keys per block (4 per thread, blocked arrangement), and 512 (float key, int value)
// pairs in descending order.
extern "C" __global__ void cub_block_radix_sort(const unsigned* __restrict__ keys, unsigned* __restrict__ sorted,
                                                const float* __restrict__ fkeys, const int* __restrict__ vals,
                                                float* __restrict__ fsorted, int* __restrict__ vsorted) {
  using SortU = cub::BlockRadixSort<unsigned, kThreads, 4>;
  using SortF = cub::BlockRadixSort<float, kThreads, 4, int>;
  __shared__ union {
    typename SortU::TempStorage u;
    typename SortF::TempStorage f;
  } temp;
  int base = blockIdx.x * kThreads * 4 + threadIdx.x * 4;
  unsigned k[4];
  for (int j = 0; j < 4; ++j) k[j] = keys[base + j];
  SortU(temp.u).Sort(k);
  for (int j = 0; j < 4; ++j) sorted[base + j] = k[j];
  __syncthreads();
  float fk[4];
  int v[4];
  for (int j = 0; j < 4; ++j) {
    fk[j] = fkeys[base + j];
    v[j] = vals[base + j];
  }
  SortF(temp.f).SortDescending(fk, v);
  for (int j = 0; j < 4; ++j) {
    fsorted[base + j] = fk[j];
    vsorted[base + j] = v[j];
  }
}
