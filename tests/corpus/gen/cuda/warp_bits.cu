// Warp-level intrinsics as users write them: shuffle reductions, ballot/popc, bit tricks,
// cooperative-groups tiled reductions.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ int warp_max_xor(int v) {
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// out[blockIdx.x] = sum of the block's floats (warp shuffles + shared partials); maxes[blockIdx.x] = max.
extern "C" __global__ void warp_shuffle_reduce(const float* __restrict__ x, const int* __restrict__ xi,
                                               float* __restrict__ sums, int* __restrict__ maxes, int n) {
  __shared__ float partial[32];
  __shared__ int partial_max[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  int m = i < n ? xi[i] : INT_MIN;
  v = warp_sum(v);
  m = warp_max_xor(m);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) { partial[warp] = v; partial_max[warp] = m; }
  __syncthreads();
  if (warp == 0) {
    int nw = blockDim.x >> 5;
    v = lane < nw ? partial[lane] : 0.0f;
    m = lane < nw ? partial_max[lane] : INT_MIN;
    v = warp_sum(v);
    m = warp_max_xor(m);
    if (lane == 0) { sums[blockIdx.x] = v; maxes[blockIdx.x] = m; }
  }
}

// Per element: ballot of (x & 1) over the warp, its popc, lane's rank among set lanes, brev, clz,
// ffs, funnel shifts, byte_perm, shfl_up scan.
extern "C" __global__ void bit_tricks(const unsigned* __restrict__ x, unsigned* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = i < n ? x[i] : 0u;
  unsigned lane = threadIdx.x & 31;
  unsigned ballot = __ballot_sync(0xffffffffu, v & 1u);
  unsigned rank = __popc(ballot & ((1u << lane) - 1u));
  unsigned y = __shfl_sync(0xffffffffu, v, (lane + 3) & 31);
  unsigned fl = __funnelshift_l(v, y, lane);
  unsigned fr = __funnelshift_rc(v, y, lane + 20);
  unsigned scan = v & 0xffu;
  for (int o = 1; o < 32; o <<= 1) {
    unsigned t = __shfl_up_sync(0xffffffffu, scan, o);
    if (lane >= (unsigned)o) scan += t;
  }
  bool all_small = __all_sync(0xffffffffu, v < 0x80000000u);
  bool any_zero = __any_sync(0xffffffffu, v == 0u);
  if (i < n) {
    unsigned* o = out + 12 * i;
    o[0] = ballot;
    o[1] = __popc(ballot);
    o[2] = rank;
    o[3] = __brev(v);
    o[4] = __clz(v);
    o[5] = __ffs(v);
    o[6] = fl;
    o[7] = fr;
    o[8] = __byte_perm(v, y, 0x5140u + lane);
    o[9] = scan;
    o[10] = (all_small ? 1u : 0u) | (any_zero ? 2u : 0u);
    o[11] = __popcll(((unsigned long long)v << 32) | y) + __clzll((unsigned long long)y) * 100u;
  }
}

// Cooperative groups: per tile of 16 threads, cg::reduce with plus and greater; block sum by atomicAdd.
extern "C" __global__ void cg_tiled_reduce(const int* __restrict__ x, int* __restrict__ tile_sums,
                                           int* __restrict__ tile_max, int* __restrict__ total, int n) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? x[i] : 0;
  int s = cg::reduce(tile, v, cg::plus<int>());
  int m = cg::reduce(tile, v, cg::greater<int>());
  int t = i / 16;
  if (tile.thread_rank() == 0) {
    tile_sums[t] = s;
    tile_max[t] = m;
    atomicAdd(total, s);
  }
  block.sync();
}
