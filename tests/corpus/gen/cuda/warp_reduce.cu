// Warp-level reductions with __shfl_xor_sync (butterfly: every lane gets the result), as in
// reduction tutorials; built with -G (debug: every intrinsic is a .func call) and -lineinfo.

template <typename T>
__device__ T warp_xor_sum(T v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ int warp_xor_max(int v) {
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ unsigned warp_xor_min(unsigned v) {
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

// One row of 32*k values per warp: out[row] = {sum (int), max, min, sum (double) of x}, plus the
// lane-0 value broadcast with __shfl_sync and a 16-lane-segment sum (width 16).
extern "C" __global__ void warp_xor_reduce(const int* __restrict__ x, const double* __restrict__ xd,
                                           int* __restrict__ out_i, double* __restrict__ out_d,
                                           int rows, int cols) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int lane = threadIdx.x % 32;
  if (row >= rows) return;
  int s = 0, mx = -2147483647 - 1;
  unsigned mn = 0xffffffffu;
  double sd = 0.0;
  for (int c = lane; c < cols; c += 32) {
    int v = x[row * cols + c];
    s += v;
    mx = max(mx, v);
    mn = min(mn, (unsigned)v);
    sd += xd[row * cols + c];
  }
  s = warp_xor_sum(s);
  mx = warp_xor_max(mx);
  mn = warp_xor_min(mn);
  sd = warp_xor_sum(sd);
  int first = __shfl_sync(0xffffffffu, x[row * cols + lane], 0);
  int seg = x[row * cols + lane];
  for (int o = 8; o > 0; o >>= 1) seg += __shfl_xor_sync(0xffffffffu, seg, o, 16);
  if (lane == 0) {
    out_i[row * 6 + 0] = s;
    out_i[row * 6 + 1] = mx;
    out_i[row * 6 + 2] = (int)mn;
    out_i[row * 6 + 3] = first;
    out_d[row] = sd;
  }
  if (lane == 0 || lane == 16) out_i[row * 6 + 4 + lane / 16] = seg;
}
