// Every `ld` cache-control form of the PTX ISA through inline asm: cache operators, L1 eviction
// priorities, L2 prefetch sizes, L2 cache hints, memory-order semantics (.weak/.relaxed/.acquire/
// .volatile/.mmio) with every scope, and `ld.global.nc` with all of its qualifiers.
// Forms that need a newer target than the one compiled for fall back to a form that is legal there,
// so every kernel computes the same result on every target.
#include "ptx_helpers.cuh"

#define LD32(form, dst, p) asm volatile(form " %0, [%1];" : "=r"(dst) : "l"(gaddr(p)) : "memory")
#define LD32H(form, dst, p, pol) asm volatile(form " %0, [%1], %2;" : "=r"(dst) : "l"(gaddr(p)), "l"(pol) : "memory")

#define N_LD_GLOBAL_FORMS 30

// Form k of thread i loads in[(i + k) % n] and stores it to out[k * n + i].
extern "C" __global__ void ld_global_forms(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v[N_LD_GLOBAL_FORMS];
#define P(k) (in + (i + (k)) % n)
    LD32("ld.global.ca.u32", v[0], P(0));
    LD32("ld.global.cg.u32", v[1], P(1));
    LD32("ld.global.cs.u32", v[2], P(2));
    LD32("ld.global.lu.u32", v[3], P(3));
    LD32("ld.global.cv.u32", v[4], P(4));
    LD32("ld.global.L1::evict_normal.u32", v[5], P(5));
    LD32("ld.global.L1::evict_unchanged.u32", v[6], P(6));
    LD32("ld.global.L1::evict_first.u32", v[7], P(7));
    LD32("ld.global.L1::evict_last.u32", v[8], P(8));
    LD32("ld.global.L1::no_allocate.u32", v[9], P(9));
    LD32("ld.global.L2::64B.b32", v[10], P(10));
    LD32("ld.global.L2::128B.b32", v[11], P(11));
#if __CUDA_ARCH__ >= 800
    LD32("ld.global.L2::256B.b32", v[12], P(12));  // ptxas 13.5: .L2::256B needs sm_80 (the ISA says sm_75)
#else
    LD32("ld.global.L2::128B.b32", v[12], P(12));
#endif
    LD32("ld.global.ca.L2::128B.u32", v[13], P(13));
#if __CUDA_ARCH__ >= 800
    unsigned long long last = policy_evict_last();
    unsigned long long first = policy_evict_first();
    LD32H("ld.global.L2::cache_hint.b32", v[14], P(14), last);
    LD32H("ld.global.L1::evict_last.L2::cache_hint.b32", v[15], P(15), last);
    LD32H("ld.global.cg.L2::cache_hint.L2::64B.u32", v[16], P(16), first);
    LD32H("ld.global.L1::evict_first.L2::cache_hint.L2::256B.s32", v[17], P(17), first);
    LD32H("ld.relaxed.gpu.global.L1::evict_last.L2::cache_hint.b32", v[18], P(18), last);
#else
    LD32("ld.global.u32", v[14], P(14));
    LD32("ld.global.L1::evict_last.b32", v[15], P(15));
    LD32("ld.global.cg.L2::64B.u32", v[16], P(16));
    LD32("ld.global.L1::evict_first.L2::128B.s32", v[17], P(17));
    LD32("ld.relaxed.gpu.global.L1::evict_last.b32", v[18], P(18));
#endif
    LD32("ld.weak.global.u32", v[19], P(19));
    LD32("ld.relaxed.cta.global.u32", v[20], P(20));
    LD32("ld.relaxed.gpu.global.u32", v[21], P(21));
    LD32("ld.relaxed.sys.global.u32", v[22], P(22));
    LD32("ld.acquire.cta.global.u32", v[23], P(23));
    LD32("ld.acquire.gpu.global.b32", v[24], P(24));
    LD32("ld.global.acquire.sys.u32", v[25], P(25));
#if __CUDA_ARCH__ >= 900
    LD32("ld.relaxed.cluster.global.u32", v[26], P(26));
    LD32("ld.acquire.cluster.global.u32", v[27], P(27));
#else
    LD32("ld.relaxed.gpu.global.u32", v[26], P(26));
    LD32("ld.acquire.gpu.global.u32", v[27], P(27));
#endif
    LD32("ld.volatile.global.u32", v[28], P(28));
    LD32("ld.mmio.relaxed.sys.global.u32", v[29], P(29));
#undef P
    for (int k = 0; k < N_LD_GLOBAL_FORMS; ++k) out[k * n + i] = v[k];
}

#define N_LD_NC_FORMS 16

// The same pattern for ld.global.nc: out[k * n + i] = in[(i + k) % n].
extern "C" __global__ void ld_global_nc_forms(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v[N_LD_NC_FORMS];
#define P(k) (in + (i + (k)) % n)
    LD32("ld.global.nc.u32", v[0], P(0));
    LD32("ld.global.ca.nc.u32", v[1], P(1));
    LD32("ld.global.cg.nc.b32", v[2], P(2));
    LD32("ld.global.cs.nc.s32", v[3], P(3));
    LD32("ld.global.nc.L1::evict_normal.u32", v[4], P(4));
    LD32("ld.global.nc.L1::evict_unchanged.u32", v[5], P(5));
    LD32("ld.global.nc.L1::evict_first.u32", v[6], P(6));
    LD32("ld.global.nc.L1::evict_last.u32", v[7], P(7));
    LD32("ld.global.nc.L1::no_allocate.u32", v[8], P(8));
    LD32("ld.global.nc.L2::64B.b32", v[9], P(9));
    LD32("ld.global.nc.L2::128B.b32", v[10], P(10));
#if __CUDA_ARCH__ >= 800
    LD32("ld.global.cg.nc.L2::256B.b32", v[11], P(11));
#else
    LD32("ld.global.cg.nc.L2::128B.b32", v[11], P(11));
#endif
#if __CUDA_ARCH__ >= 800
    unsigned long long last = policy_evict_last();
    unsigned long long half_first;
    asm volatile("createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %0, 0.5;" : "=l"(half_first));
    LD32H("ld.global.nc.L2::cache_hint.u32", v[12], P(12), last);
    LD32H("ld.global.nc.L1::evict_last.L2::cache_hint.L2::128B.b32", v[13], P(13), last);
    LD32H("ld.global.cs.nc.L2::cache_hint.u32", v[14], P(14), half_first);
    LD32H("ld.global.nc.L1::no_allocate.L2::cache_hint.L2::64B.f32", v[15], P(15), half_first);
#else
    LD32("ld.global.nc.u32", v[12], P(12));
    LD32("ld.global.nc.L1::evict_last.L2::128B.b32", v[13], P(13));
    LD32("ld.global.cs.nc.u32", v[14], P(14));
    LD32("ld.global.nc.L1::no_allocate.L2::64B.f32", v[15], P(15));
#endif
#undef P
    for (int k = 0; k < N_LD_NC_FORMS; ++k) out[k * n + i] = v[k];
}

// Vector and 128-bit loads from global and shared memory. Thread i handles 16 bytes at in[4*i..4*i+3]
// and writes the same 16 bytes, loaded six different ways, to out[(6*i + k) * 4 ..].
extern "C" __global__ void ld_vector_forms(const unsigned* __restrict__ in, unsigned* __restrict__ out, int n)
{
    __shared__ alignas(16) unsigned sh[4 * 64];
    const int i = threadIdx.x;  // one block of n <= 64 threads
    if (i >= n) return;
    const unsigned* p = in + 4 * i;
    unsigned* o = out + 24 * i;
    unsigned a, b, c, d;
    unsigned long long x, y;
    asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(gaddr(p)));
    o[0] = a; o[1] = b; o[2] = c; o[3] = d;
    asm volatile("ld.global.L1::evict_first.v2.u64 {%0, %1}, [%2];" : "=l"(x), "=l"(y) : "l"(gaddr(p)));
    o[4] = (unsigned)x; o[5] = (unsigned)(x >> 32); o[6] = (unsigned)y; o[7] = (unsigned)(y >> 32);
    asm volatile("{\n\t.reg .b128 q;\n\tld.global.nc.b128 q, [%2];\n\tmov.b128 {%0, %1}, q;\n\t}"
                 : "=l"(x), "=l"(y) : "l"(gaddr(p)));
    o[8] = (unsigned)x; o[9] = (unsigned)(x >> 32); o[10] = (unsigned)y; o[11] = (unsigned)(y >> 32);
    asm volatile("{\n\t.reg .b128 q;\n\tld.global.cs.b128 q, [%2];\n\tmov.b128 {%0, %1}, q;\n\t}"
                 : "=l"(x), "=l"(y) : "l"(gaddr(p)));
    o[12] = (unsigned)x; o[13] = (unsigned)(x >> 32); o[14] = (unsigned)y; o[15] = (unsigned)(y >> 32);
    // Through shared memory: 128-bit store and load of the neighbour's chunk.
    asm volatile("{\n\t.reg .b128 q;\n\tmov.b128 q, {%1, %2};\n\tst.shared.b128 [%0], q;\n\t}"
                 :: "r"(saddr(sh + 4 * i)), "l"(x), "l"(y) : "memory");
    __syncthreads();
    const int j = (i + 1) % n;
    asm volatile("{\n\t.reg .b128 q;\n\tld.shared.b128 q, [%2];\n\tmov.b128 {%0, %1}, q;\n\t}"
                 : "=l"(x), "=l"(y) : "r"(saddr(sh + 4 * j)) : "memory");
    o[16] = (unsigned)x; o[17] = (unsigned)(x >> 32); o[18] = (unsigned)y; o[19] = (unsigned)(y >> 32);
    asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(saddr(sh + 4 * j)) : "memory");
    o[20] = a; o[21] = b; o[22] = c; o[23] = d;
}

// prefetch and prefetchu: pure hints; the kernel copies in -> out after prefetching.
extern "C" __global__ void prefetch_forms(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* p = in + i;
    asm volatile("prefetch.global.L1 [%0];" :: "l"(gaddr(p)));
    asm volatile("prefetch.global.L2 [%0];" :: "l"(gaddr(p)));
    asm volatile("prefetch.L1 [%0];" :: "l"(p));
    asm volatile("prefetch.L2 [%0];" :: "l"(p));
    asm volatile("prefetchu.L1 [%0];" :: "l"(p));
#if __CUDA_ARCH__ >= 800
    asm volatile("prefetch.global.L2::evict_last [%0];" :: "l"(gaddr(p)));
    asm volatile("prefetch.global.L2::evict_normal [%0];" :: "l"(gaddr(p)));
#endif
    float v;
    asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(gaddr(p)));
    out[i] = v;
}
