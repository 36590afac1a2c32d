// fp16 and bf16 math through cuda_fp16.h / cuda_bf16.h: scalar and paired arithmetic, fma,
// conversions with rounding, comparisons.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void half_ops(const __half* __restrict__ a, const __half* __restrict__ b,
                                    const __half* __restrict__ c, __half* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half x = a[i], y = b[i], z = c[i];
    __half* o = out + 8 * i;
    o[0] = __hadd(x, y);
    o[1] = __hsub(x, y);
    o[2] = __hmul(x, y);
    o[3] = __hfma(x, y, z);
    o[4] = __hmax(x, y);
    o[5] = __hneg(__hmin(x, z));
    o[6] = __float2half_rn(__half2float(x) * 3.0f + 0.1f);
    o[7] = __hlt(x, y) ? x : __habs(z);
  }
}

extern "C" __global__ void half2_ops(const __half2* __restrict__ a, const __half2* __restrict__ b,
                                     __half2* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __half2 x = a[i], y = b[i];
    out[3 * i] = __hadd2(x, y);
    out[3 * i + 1] = __hmul2(x, y);
    out[3 * i + 2] = __hfma2(x, y, __lowhigh2highlow(x));
  }
}

extern "C" __global__ void bf16_ops(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
                                    const float* __restrict__ f, __nv_bfloat16* __restrict__ out,
                                    float* __restrict__ fout, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    __nv_bfloat16 x = a[i], y = b[i];
    __nv_bfloat16* o = out + 6 * i;
    o[0] = __hadd(x, y);
    o[1] = __hmul(x, y);
    o[2] = __hfma(x, y, x);
    o[3] = __float2bfloat16_rn(f[i]);
    o[4] = __float2bfloat16_rz(f[i]);
    o[5] = __hmax(x, y);
    fout[2 * i] = __bfloat162float(x) + __bfloat162float(y);
    fout[2 * i + 1] = __half2float(__float2half_rn(f[i]));
  }
}
