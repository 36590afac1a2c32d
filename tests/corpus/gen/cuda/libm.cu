// The CUDA math library as kernels call it: sinf, cosf, expf, logf, powf, tanhf, erff (each on
// its own input range, including sinf/cosf arguments large enough for the Payne-Hanek path),
// and double-precision sqrt, exp, log, sin. libm_fast.cu compiles the single-precision kernel
// again with -use_fast_math (sin.approx, ex2.approx, lg2.approx, tanh.approx, ftz).

// in holds 7 blocks of n arguments (one per function); y the powf exponents.
extern "C" __global__ void libm_f32(const float* __restrict__ in, const float* __restrict__ y,
                                    float* __restrict__ o_sin, float* __restrict__ o_cos,
                                    float* __restrict__ o_exp, float* __restrict__ o_log,
                                    float* __restrict__ o_pow, float* __restrict__ o_tanh,
                                    float* __restrict__ o_erf, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  o_sin[i] = sinf(in[0 * n + i]);
  o_cos[i] = cosf(in[1 * n + i]);
  o_exp[i] = expf(in[2 * n + i]);
  o_log[i] = logf(in[3 * n + i]);
  o_pow[i] = powf(in[4 * n + i], y[i]);
  o_tanh[i] = tanhf(in[5 * n + i]);
  o_erf[i] = erff(in[6 * n + i]);
}

#ifndef LIBM_FAST
// in holds 4 blocks of n arguments: sqrt, exp, log, sin.
extern "C" __global__ void libm_f64(const double* __restrict__ in, double* __restrict__ o_sqrt,
                                    double* __restrict__ o_exp, double* __restrict__ o_log,
                                    double* __restrict__ o_sin, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  o_sqrt[i] = sqrt(in[0 * n + i]);
  o_exp[i] = exp(in[1 * n + i]);
  o_log[i] = log(in[2 * n + i]);
  o_sin[i] = sin(in[3 * n + i]);
}
#endif
