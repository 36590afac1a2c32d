// SIMD-within-a-word intrinsics (__vabsdiffu4, __vsadu4/2, __vadd4, __vmaxs2, ... as image and
// signal-processing kernels use them: nvcc emits vabsdiff4/vabsdiff2 video instructions, and
// packed .s16x2/.u16x2 min/max on sm_90), __fns, and cooperative-groups coalesced groups in a
// divergent branch (activemask, fns to find the group's leader for shfl, thread_rank by popc).
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void simd_intrinsics(const unsigned* __restrict__ x, const unsigned* __restrict__ y,
                                           unsigned* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = x[i], b = y[i];
  unsigned* o = out + 16 * i;
  o[0] = __vabsdiffu4(a, b);
  o[1] = __vsadu4(a, b);
  o[2] = __vsadu2(a, b);
  o[3] = __vadd4(a, b);
  o[4] = __vaddss4(a, b);
  o[5] = __vsub2(a, b);
  o[6] = __vmaxs2(a, b);
  o[7] = __vmaxu4(a, b);
  o[8] = __vminu2(a, b);
  o[9] = __vavgu4(a, b);
  o[10] = __vhaddu4(a, b);
  o[11] = __vcmpgtu4(a, b);
  o[12] = __vseteq2(a, b);
  o[13] = __vabsss4(a);
  o[14] = __vneg2(a);
  o[15] = __fns(a, b & 31, (int)(b >> 28) - 8);
}

// Lanes with an odd value form a coalesced group: each writes the group's size, its rank in the
// group, and the value of the group's first lane (g.shfl(v, 0)); the others write zeros.
extern "C" __global__ void coalesced_groups(const unsigned* __restrict__ x, unsigned* __restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = x[i];
  unsigned size = 0, rank = 0, first = 0;
  if (v & 1u) {
    cg::coalesced_group g = cg::coalesced_threads();
    size = g.size();
    rank = g.thread_rank();
    first = g.shfl(v, 0);
  }
  out[3 * i + 0] = size;
  out[3 * i + 1] = rank;
  out[3 * i + 2] = first;
}
