// Every `st` cache-control form through inline asm: cache operators, L1 eviction priorities,
// L2 cache hints, .weak/.relaxed/.release with every scope, .volatile, .mmio, shared::cta and
// local state spaces, vectors and .b128. Forms newer than the compile target fall back to a legal
// form with the same effect, so the result is the same on every target.
#include "ptx_helpers.cuh"

#define ST32(form, p, val) asm volatile(form " [%0], %1;" :: "l"(gaddr(p)), "r"(val) : "memory")
#define ST32H(form, p, val, pol) asm volatile(form " [%0], %1, %2;" :: "l"(gaddr(p)), "r"(val), "l"(pol) : "memory")

#define N_ST_GLOBAL_FORMS 26

// Form k of thread i stores the value i * 1000 + k + 1 to out[k * n + i].
extern "C" __global__ void st_global_forms(unsigned* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
#define A(k) (out + (k) * n + i)
#define V(k) (unsigned)(i * 1000 + (k) + 1)
    ST32("st.global.wb.u32", A(0), V(0));
    ST32("st.global.cg.u32", A(1), V(1));
    ST32("st.global.cs.u32", A(2), V(2));
    ST32("st.global.wt.u32", A(3), V(3));
    ST32("st.global.L1::evict_normal.u32", A(4), V(4));
    ST32("st.global.L1::evict_unchanged.u32", A(5), V(5));
    ST32("st.global.L1::evict_first.u32", A(6), V(6));
    ST32("st.global.L1::evict_last.b32", A(7), V(7));
    ST32("st.global.L1::no_allocate.s32", A(8), V(8));
#if __CUDA_ARCH__ >= 800
    unsigned long long last = policy_evict_last();
    unsigned long long first = policy_evict_first();
    ST32H("st.global.L2::cache_hint.b32", A(9), V(9), first);
    ST32H("st.global.L1::evict_last.L2::cache_hint.u32", A(10), V(10), last);
    ST32H("st.global.cs.L2::cache_hint.u32", A(11), V(11), first);
    ST32H("st.release.gpu.global.L2::cache_hint.u32", A(12), V(12), last);
#else
    ST32("st.global.b32", A(9), V(9));
    ST32("st.global.L1::evict_last.u32", A(10), V(10));
    ST32("st.global.cs.u32", A(11), V(11));
    ST32("st.release.gpu.global.u32", A(12), V(12));
#endif
    ST32("st.weak.global.u32", A(13), V(13));
    ST32("st.relaxed.cta.global.u32", A(14), V(14));
    ST32("st.relaxed.gpu.global.u32", A(15), V(15));
    ST32("st.global.relaxed.sys.u32", A(16), V(16));
    ST32("st.release.cta.global.u32", A(17), V(17));
    ST32("st.release.gpu.global.b32", A(18), V(18));
    ST32("st.release.sys.global.u32", A(19), V(19));
#if __CUDA_ARCH__ >= 900
    ST32("st.global.relaxed.cluster.u32", A(20), V(20));
    ST32("st.release.cluster.global.u32", A(21), V(21));
#else
    ST32("st.global.relaxed.gpu.u32", A(20), V(20));
    ST32("st.release.gpu.global.u32", A(21), V(21));
#endif
    ST32("st.volatile.global.u32", A(22), V(22));
    ST32("st.global.mmio.relaxed.sys.u32", A(23), V(23));
    ST32("st.relaxed.gpu.global.L1::no_allocate.u32", A(24), V(24));
    asm volatile("st.u32 [%0], %1;" :: "l"(A(25)), "r"(V(25)) : "memory");  // generic addressing
#undef A
#undef V
}

// Shared and local state spaces. Each thread stores through nine forms into shared memory, the
// block synchronises, and thread i reads the slots of thread (i + 1) % n into out[12*i + 0..8]; a
// local array is written with st.local / st.volatile.local and read back with ld.local into
// out[12*i + 9..10]; out[12*i + 11] is not written.
extern "C" __global__ void st_shared_local_forms(unsigned* __restrict__ out, int n)
{
    __shared__ unsigned sh[9][64];
    const int i = threadIdx.x;  // one block, n <= 64
    if (i >= n) return;
    const unsigned base = (unsigned)i * 100;
    asm volatile("st.shared.u32 [%0], %1;" :: "r"(saddr(&sh[0][i])), "r"(base + 1) : "memory");
    asm volatile("st.shared::cta.u32 [%0], %1;" :: "r"(saddr(&sh[1][i])), "r"(base + 2) : "memory");
    asm volatile("st.volatile.shared.u32 [%0], %1;" :: "r"(saddr(&sh[2][i])), "r"(base + 3) : "memory");
    asm volatile("st.relaxed.cta.shared.u32 [%0], %1;" :: "r"(saddr(&sh[3][i])), "r"(base + 4) : "memory");
    asm volatile("st.release.cta.shared::cta.u32 [%0], %1;" :: "r"(saddr(&sh[4][i])), "r"(base + 5) : "memory");
    asm volatile("st.shared.release.gpu.u32 [%0], %1;" :: "r"(saddr(&sh[5][i])), "r"(base + 6) : "memory");
    asm volatile("st.weak.shared.b32 [%0], %1;" :: "r"(saddr(&sh[6][i])), "r"(base + 7) : "memory");
    asm volatile("st.u32 [%0], %1;" :: "l"(&sh[7][i]), "r"(base + 8) : "memory");  // generic -> shared
#if __CUDA_ARCH__ >= 900
    // A .shared::cta address is a valid .shared::cluster address of the executing CTA.
    asm volatile("st.shared::cluster.u32 [%0], %1;" :: "r"(saddr(&sh[8][i])), "r"(base + 11) : "memory");
#else
    asm volatile("st.shared.u32 [%0], %1;" :: "r"(saddr(&sh[8][i])), "r"(base + 11) : "memory");
#endif
    __syncthreads();
    const int j = (i + 1) % n;
    for (int k = 0; k < 9; ++k) {
        unsigned v;
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(saddr(&sh[k][j])) : "memory");
        out[i * 12 + k] = v;
    }
    unsigned a, b;
    asm volatile("{\n\t.local .align 4 .b8 scratch[8];\n\t"
                 "st.local.u32 [scratch], %2;\n\t"
                 "st.volatile.local.u32 [scratch+4], %3;\n\t"
                 "ld.local.u32 %0, [scratch];\n\t"
                 "ld.volatile.local.u32 %1, [scratch+4];\n\t}"
                 : "=r"(a), "=r"(b) : "r"(base + 9), "r"(base + 10) : "memory");
    out[i * 12 + 9] = a;
    out[i * 12 + 10] = b;
}

// Vector and 128-bit stores. Thread i writes 8 words at out[8*i..]: a .v2, a .v4 with eviction
// priority, and (through .b128) the same 16 bytes again at out[8*n + 4*i..].
extern "C" __global__ void st_vector_forms(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned a = in[4 * i], b = in[4 * i + 1], c = in[4 * i + 2], d = in[4 * i + 3];
    asm volatile("st.global.v2.u32 [%0], {%1, %2};" :: "l"(gaddr(out + 8 * i)), "r"(a ^ b), "r"(c ^ d) : "memory");
    asm volatile("st.global.cs.v2.u32 [%0], {%1, %2};" :: "l"(gaddr(out + 8 * i + 2)), "r"(a + b), "r"(c + d) : "memory");
    asm volatile("st.global.L1::no_allocate.v4.u32 [%0], {%1, %2, %3, %4};"
                 :: "l"(gaddr(out + 8 * i + 4)), "r"(d), "r"(c), "r"(b), "r"(a) : "memory");
    const unsigned long long lo = ((unsigned long long)b << 32) | a, hi = ((unsigned long long)d << 32) | c;
#if __CUDA_ARCH__ >= 800
    asm volatile("{\n\t.reg .b128 q;\n\tmov.b128 q, {%1, %2};\n\tst.global.L2::cache_hint.b128 [%0], q, %3;\n\t}"
                 :: "l"(gaddr(out + 8 * n + 4 * i)), "l"(lo), "l"(hi), "l"(policy_evict_first()) : "memory");
#else
    asm volatile("{\n\t.reg .b128 q;\n\tmov.b128 q, {%1, %2};\n\tst.global.b128 [%0], q;\n\t}"
                 :: "l"(gaddr(out + 8 * n + 4 * i)), "l"(lo), "l"(hi) : "memory");
#endif
    asm volatile("{\n\t.reg .b128 q;\n\tmov.b128 q, {%1, %2};\n\tst.relaxed.sys.global.b128 [%0], q;\n\t}"
                 :: "l"(gaddr(out + 12 * n + 4 * i)), "l"(hi), "l"(lo) : "memory");
}
