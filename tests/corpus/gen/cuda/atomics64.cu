// 64-bit atomics as users write them: atomicCAS on unsigned long long (a lock-free double max),
// atomicMax/atomicMin on long long, atomicAdd/Exch/And/Or/Xor on unsigned long long, and the
// packed (value << 32 | index) argmax through a 64-bit atomicMax.

__device__ double atomic_max_double(double* addr, double val) {
  unsigned long long* a = (unsigned long long*)addr;
  unsigned long long old = *a, assumed;
  do {
    assumed = old;
    if (__longlong_as_double(assumed) >= val) break;
    old = atomicCAS(a, assumed, (unsigned long long)__double_as_longlong(val));
  } while (assumed != old);
  return __longlong_as_double(old);
}

// acc: [0] sum (ull), [1] xor, [2] or, [3] and, [4] packed argmax, [5] exch by one thread (and
// [10] the value it replaced), [6] max (s64), [7] min (s64), [8] double max (bits), [9] max (u64).
extern "C" __global__ void atomics64(const long long* __restrict__ x, const double* __restrict__ xd,
                                     unsigned long long* __restrict__ acc, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  long long v = x[i];
  atomicAdd(&acc[0], (unsigned long long)v);
  atomicXor(&acc[1], (unsigned long long)v * 0x9E3779B97F4A7C15ull);
  atomicOr(&acc[2], 1ull << (i & 63));
  atomicAnd(&acc[3], ~(1ull << (i % 61)));
  // Value in the high word (biased to unsigned), index complemented so ties pick the lowest.
  unsigned hi = (unsigned)((v >> 20) + 0x80000000ll);
  atomicMax(&acc[4], ((unsigned long long)hi << 32) | (0xffffffffu - (unsigned)i));
  atomicMax((long long*)&acc[6], v);
  atomicMin((long long*)&acc[7], v);
  atomic_max_double((double*)&acc[8], xd[i]);
  atomicMax(&acc[9], (unsigned long long)v);
  if (i == 7) acc[10] = atomicExch(&acc[5], 0x123456789ull ^ (unsigned long long)v);
}
