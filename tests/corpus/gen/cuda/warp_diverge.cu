// Warp-synchronous instructions reached by divergent lanes at different times. vote.sync,
// redux.sync, match.sync and shfl.sync make each executing thread wait until every non-exited
// thread of the membermask has executed them, so the result must not depend on which lanes
// happened to arrive first. Here the lanes of a condition take an out-of-line block (placed
// after the join by the compiler for an unlikely branch, or explicitly in inline PTX) and come
// back to the warp-synchronous instruction later.

__device__ __noinline__ unsigned slow_path(unsigned v) {
  for (int k = 0; k < 3; ++k) v = v * 2654435761u + 12345u;
  return v;
}

// Per warp iteration: lanes whose value is a multiple of 7 do extra work out of line, then every
// lane takes part in the ballot, the redux and the shuffle.
extern "C" __global__ void vote_after_divergence(const unsigned* __restrict__ x, unsigned* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned lane = threadIdx.x & 31;
  unsigned v = x[i];
  for (int it = 0; it < 2; ++it) {
    if (__builtin_expect(v % 7 == 0, 0)) v = slow_path(v) | 1u;
    unsigned b = __ballot_sync(0xffffffffu, v & 1u);
    unsigned s = __reduce_add_sync(0xffffffffu, v & 0xffu);
    unsigned nb = __shfl_sync(0xffffffffu, v, (lane + 1) & 31);
    out[(it * n + i) * 3 + 0] = b;
    out[(it * n + i) * 3 + 1] = s;
    out[(it * n + i) * 3 + 2] = nb;
    v += nb;
  }
}

// The same with the out-of-line block written in PTX: lanes with p branch forward past the
// warp-synchronous instructions and jump back to them.
extern "C" __global__ void vote_out_of_line(const unsigned* __restrict__ x, unsigned* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = x[i], b, s, m, sh;
  asm volatile(
      "{\n\t"
      ".reg .pred p, q;\n\t"
      ".reg .b32 t;\n\t"
      "setp.eq.u32 p, %5, 0;\n\t"
      "@p bra SLOW%=;\n"
      "JOIN%=:\n\t"
      "and.b32 t, %4, 1;\n\t"
      "setp.ne.u32 q, t, 0;\n\t"
      "vote.sync.ballot.b32 %0, q, 0xffffffff;\n\t"
      "redux.sync.max.u32 %1, %4, 0xffffffff;\n\t"
      "match.any.sync.b32 %2, t, 0xffffffff;\n\t"
      "shfl.sync.bfly.b32 %3, %4, 1, 31, 0xffffffff;\n\t"
      "bra.uni DONE%=;\n"
      "SLOW%=:\n\t"
      "mad.lo.u32 %4, %4, 3, 1;\n\t"
      "bra.uni JOIN%=;\n"
      "DONE%=:\n\t"
      "}"
      : "=r"(b), "=r"(s), "=r"(m), "=r"(sh), "+r"(v)
      : "r"(v & 3u));
  out[4 * i + 0] = b;
  out[4 * i + 1] = s;
  out[4 * i + 2] = m;
  out[4 * i + 3] = sh;
}
