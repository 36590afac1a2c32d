// More intrinsics users reach for: dp4a/dp2a, match, mul24, 128-bit integers (carry chains),
// rounding conversions, fast math, half2/bfloat162 atomics, shuffles with width.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void int_intrinsics(const int* __restrict__ a, const int* __restrict__ b,
                                          const unsigned long long* __restrict__ w, int* __restrict__ out,
                                          unsigned long long* __restrict__ wout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  unsigned lane = threadIdx.x & 31;
  int* o = out + 12 * i;
  o[0] = __dp4a(x, y, i);
  o[1] = (int)__dp4a((unsigned)x, (unsigned)y, (unsigned)i);
  o[2] = __dp2a_lo(x, y, 7);
  o[3] = __dp2a_hi((unsigned)x, (unsigned)y, 7u);
  o[4] = __mul24(x, y);
  o[5] = (int)__umul24((unsigned)x, (unsigned)y);
  o[6] = (int)__match_any_sync(0xffffffffu, x & 3);
  int pred;
  o[7] = (int)__match_all_sync(0xffffffffu, y & 1, &pred) + pred * 2;
  o[8] = __shfl_sync(0xffffffffu, x, lane + 1, 8);
  o[9] = __shfl_xor_sync(0xffffffffu, x, 1, 4);
  o[10] = __rhadd(x, y) ^ __hadd(x, y);
  o[11] = (int)(__usad((unsigned)x, (unsigned)y, 1u) + __reduce_add_sync(0xffffffffu, (unsigned)(x & 255)));
  unsigned __int128 p = (unsigned __int128)w[2 * i] * w[2 * i + 1];
  unsigned __int128 q = p + ((unsigned __int128)w[2 * i] << 64) + w[2 * i + 1];
  wout[4 * i] = (unsigned long long)p;
  wout[4 * i + 1] = (unsigned long long)(p >> 64);
  wout[4 * i + 2] = (unsigned long long)q;
  wout[4 * i + 3] = (unsigned long long)(q >> 64);
}

extern "C" __global__ void float_conversions(const float* __restrict__ f, const double* __restrict__ d,
                                             int* __restrict__ iout, float* __restrict__ fout,
                                             double* __restrict__ dout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = f[i];
  double y = d[i];
  int* o = iout + 8 * i;
  o[0] = __float2int_rn(x);
  o[1] = __float2int_rz(x);
  o[2] = __float2int_rd(x);
  o[3] = __float2int_ru(x);
  o[4] = (int)__float2uint_rn(fabsf(x));
  o[5] = __double2int_rn(y);
  o[6] = (int)__double2ll_rz(y * 1e6);
  o[7] = (int)__float2ll_rn(x * 3.0f);
  float* fo = fout + 8 * i;
  fo[0] = __fsqrt_rn(fabsf(x));
  fo[1] = __fdiv_rn(x, 3.0f);
  fo[2] = rintf(x);
  fo[3] = truncf(x) + floorf(x) + ceilf(x);
  fo[4] = __saturatef(x);
  fo[5] = __ll2float_rn((long long)i * 123456789LL);
  fo[6] = __double2float_rn(y);
  fo[7] = fmaxf(x, -1.0f) * copysignf(1.0f, y);
  double* dd = dout + 4 * i;
  dd[0] = sqrt(fabs(y));
  dd[1] = __drcp_rn(y);
  dd[2] = __uint2double_rn((unsigned)i * 4000000000u);
  dd[3] = fma(y, y, -1.0);
}

extern "C" __global__ void half_atomics(const __half2* __restrict__ h, const __nv_bfloat162* __restrict__ b,
                                        __half2* __restrict__ hsum, __nv_bfloat162* __restrict__ bsum,
                                        __half* __restrict__ hs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(hsum + (i & 3), h[i]);
  atomicAdd(bsum + (i & 3), b[i]);
  atomicAdd(hs + (i & 1), __low2half(h[i]));
}
