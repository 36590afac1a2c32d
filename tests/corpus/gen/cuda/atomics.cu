// Atomics as users write them: float/double atomicAdd, CAS loops, shared-memory histograms.
extern "C" __global__ void atomic_add_fp(const float* __restrict__ x, const double* __restrict__ xd,
                                         float* __restrict__ sum_f, double* __restrict__ sum_d,
                                         unsigned* __restrict__ counter, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(sum_f + (i & 7), x[i]);
    atomicAdd(sum_d + (i & 3), xd[i]);
    atomicInc(counter, 1000000u);
    atomicAdd(counter + 1, 2u);
    atomicSub(counter + 2, 1u);
    atomicOr(counter + 3, 1u << (i & 31));
    atomicXor(counter + 4, (unsigned)i);
    atomicAnd(counter + 5, ~(1u << (i & 15)));
  }
}

// atomicMax for floats with a CAS loop (the common idiom), and a CAS-based 64-bit add.
__device__ float atomic_max_float(float* addr, float val) {
  int* ai = (int*)addr;
  int old = *ai, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= val) break;
    old = atomicCAS(ai, assumed, __float_as_int(val));
  } while (assumed != old);
  return __int_as_float(old);
}

__device__ unsigned long long cas_add64(unsigned long long* addr, unsigned long long v) {
  unsigned long long old = *addr, assumed;
  do {
    assumed = old;
    old = atomicCAS(addr, assumed, assumed + v);
  } while (assumed != old);
  return old;
}

extern "C" __global__ void atomic_cas_loops(const float* __restrict__ x, float* __restrict__ maxv,
                                            unsigned long long* __restrict__ sum64, int* __restrict__ exch,
                                            int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomic_max_float(maxv + (i & 1), x[i]);
    cas_add64(sum64, (unsigned long long)(i + 1) << 33);
    atomicMax(exch, i * 7 % 1000);
    atomicMin(exch + 1, 1000 - i);
    atomicExch(exch + 2, 42);
  }
}

// Histogram of bytes into 64 bins: shared-memory atomics per block, then global atomics.
extern "C" __global__ void histogram_shared(const unsigned char* __restrict__ data, unsigned* __restrict__ hist,
                                            int n) {
  __shared__ unsigned local[64];
  for (int b = threadIdx.x; b < 64; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i] & 63], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x)
    if (local[b]) atomicAdd(&hist[b], local[b]);
}
