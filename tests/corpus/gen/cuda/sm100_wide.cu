// 256-bit loads and stores of sm_100: .v8.b32/.v4.b64 with .L2::evict_* priorities (alone and with
// .L1:: priorities and .L2::cache_hint), and `_` sink operands: a sink in a load reads nothing and
// writes no register; a sink in a store leaves that memory word untouched.
#include "ptx_helpers.cuh"

// Thread i moves 32 bytes: out32[8*i..] <- in32[8*i..] reversed word order, through
// ld.global.L2::evict_last.v8.b32 / st.global.L2::evict_first.v8.f32; and out64[4*i..] <-
// in64[4*i..] through ld.global.nc.L1::evict_first.L2::evict_normal.v4.b64 /
// st.global.L1::no_allocate.L2::evict_last.v4.u64 (word order rotated by one).
extern "C" __global__ void wide_v8_v4_evict(const unsigned* __restrict__ in32, unsigned* __restrict__ out32,
                                            const unsigned long long* __restrict__ in64,
                                            unsigned long long* __restrict__ out64, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned r[8];
    asm volatile("ld.global.L2::evict_last.v8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                 : "l"(gaddr(in32 + 8 * i)));
    asm volatile("st.global.L2::evict_first.v8.f32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
                 :: "l"(gaddr(out32 + 8 * i)), "r"(r[7]), "r"(r[6]), "r"(r[5]), "r"(r[4]), "r"(r[3]), "r"(r[2]),
                    "r"(r[1]), "r"(r[0]) : "memory");
    unsigned long long q[4];
    asm volatile("ld.global.nc.L1::evict_first.L2::evict_normal.v4.b64 {%0, %1, %2, %3}, [%4];"
                 : "=l"(q[0]), "=l"(q[1]), "=l"(q[2]), "=l"(q[3]) : "l"(gaddr(in64 + 4 * i)));
    asm volatile("st.global.L1::no_allocate.L2::evict_last.v4.u64 [%0], {%1, %2, %3, %4};"
                 :: "l"(gaddr(out64 + 4 * i)), "l"(q[1]), "l"(q[2]), "l"(q[3]), "l"(q[0]) : "memory");
}

// The 256-bit forms with an L2 cache hint, relaxed/weak semantics and plain .v8/.v4 without a
// priority: out32[8*i + k] = in32[8*i + k] + k (the loads and stores use different forms).
extern "C" __global__ void wide_v8_hint_forms(const unsigned* __restrict__ in32, unsigned* __restrict__ out32, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long pol = policy_evict_last();
    unsigned r[8];
    if (i & 1)
        asm volatile("ld.global.L2::evict_last.L2::cache_hint.v8.u32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8], %9;"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                     : "l"(gaddr(in32 + 8 * i)), "l"(pol));
    else
        asm volatile("ld.global.nc.v8.s32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                     : "l"(gaddr(in32 + 8 * i)));
    for (int k = 0; k < 8; ++k) r[k] += k;
    if (i & 2)
        asm volatile("st.global.L2::evict_normal.L2::cache_hint.v8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8}, %9;"
                     :: "l"(gaddr(out32 + 8 * i)), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]),
                        "r"(r[6]), "r"(r[7]), "l"(pol) : "memory");
    else
        asm volatile("st.relaxed.gpu.global.L2::evict_first.v8.u32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};"
                     :: "l"(gaddr(out32 + 8 * i)), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]),
                        "r"(r[6]), "r"(r[7]) : "memory");
}

// Sinks. 32 threads. Registers start as 0x5EED0000 + k; the load
//   ld.global.L2::evict_first.v8.b32 {r0, _, r2, _, r4, r5, _, r7}
// writes r0 r2 r4 r5 r7 only, and all eight registers go to out_regs[8*t..]. Then
//   st.global.L2::evict_last.v8.b32 [out_mem + 32*t], {w0, _, w2, w3, _, w5, _, w7}
// writes words 0 2 3 5 7 of a buffer that starts as the launch's pre-filled pattern; words 1 4 6
// keep it. The .v4.b64 forms do the same: ld {q0, _, q2, _} and st {_, q1, _, q3}.
extern "C" __global__ void sink_v8_v4(const unsigned* __restrict__ in32, unsigned* __restrict__ out_regs,
                                      unsigned* __restrict__ out_mem,
                                      const unsigned long long* __restrict__ in64,
                                      unsigned long long* __restrict__ out64_regs,
                                      unsigned long long* __restrict__ out64_mem)
{
    const int t = threadIdx.x;
    unsigned r[8];
    for (int k = 0; k < 8; ++k) r[k] = 0x5EED0000u + k;
    asm volatile("ld.global.L2::evict_first.v8.b32 {%0, _, %1, _, %2, %3, _, %4}, [%5];"
                 : "+r"(r[0]), "+r"(r[2]), "+r"(r[4]), "+r"(r[5]), "+r"(r[7]) : "l"(gaddr(in32 + 8 * t)) : "memory");
    for (int k = 0; k < 8; ++k) out_regs[8 * t + k] = r[k];
    asm volatile("st.global.L2::evict_last.v8.b32 [%0], {%1, _, %2, %3, _, %4, _, %5};"
                 :: "l"(gaddr(out_mem + 8 * t)), "r"(~r[0]), "r"(~r[2]), "r"(~r[3]), "r"(~r[5]), "r"(~r[7]) : "memory");
    unsigned long long q[4];
    for (int k = 0; k < 4; ++k) q[k] = 0x5EED5EED00000000ull + k;
    asm volatile("ld.global.nc.L2::evict_last.v4.u64 {%0, _, %1, _}, [%2];"
                 : "+l"(q[0]), "+l"(q[2]) : "l"(gaddr(in64 + 4 * t)) : "memory");
    for (int k = 0; k < 4; ++k) out64_regs[4 * t + k] = q[k];
    asm volatile("st.global.L2::evict_first.v4.b64 [%0], {_, %1, _, %2};"
                 :: "l"(gaddr(out64_mem + 4 * t)), "l"(q[1] ^ q[0]), "l"(q[3] ^ q[2]) : "memory");
}
