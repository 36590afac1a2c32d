// createpolicy in all its forms (sm_80+): fractional with and without a fraction, with and without a
// secondary priority, immediate and register fractions; range-based with and without .global, with
// immediate and register sizes; and cvt. The policies are then used as L2 cache hints.
#include "ptx_helpers.cuh"

#define N_POLICIES 18
// Bits 37-50 of a range policy hold block_start/block_count, which depend on the buffer address;
// forms applied to a real buffer store the policy with those bits cleared.
#define RANGE_ADDRESS_BITS 0x0007ffe000000000ull

// Thread 0 writes N_POLICIES 64-bit policy values. `frac` is a register fraction, `range_base` a
// synthetic global address (createpolicy only encodes it; nothing is accessed), `buf` a real buffer.
extern "C" __global__ void createpolicy_values(unsigned long long* __restrict__ out, float frac,
                                               unsigned long long range_base, const float* buf)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    unsigned long long p[N_POLICIES];
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0;" : "=l"(p[0]));
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p[1]));
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 0.5;" : "=l"(p[2]));
    asm volatile("createpolicy.fractional.L2::evict_unchanged.b64 %0, 0.25;" : "=l"(p[3]));
    asm volatile("createpolicy.fractional.L2::evict_normal.b64 %0, 0f3F400000;" : "=l"(p[4]));  // 0.75
    asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %0, 0.5;" : "=l"(p[5]));
    asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_first.b64 %0, 0.0625;" : "=l"(p[6]));
    asm volatile("createpolicy.fractional.L2::evict_first.L2::evict_first.b64 %0;" : "=l"(p[7]));
    asm volatile("createpolicy.fractional.L2::evict_normal.L2::evict_first.b64 %0, %1;" : "=l"(p[8]) : "f"(frac));
    asm volatile("createpolicy.fractional.L2::evict_unchanged.L2::evict_first.b64 %0, 0.3;" : "=l"(p[9]));
    asm volatile("createpolicy.range.global.L2::evict_last.b64 %0, [%1], 0x100000, 0x200000;"
                 : "=l"(p[10]) : "l"(range_base));
    asm volatile("createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %0, [%1], %2, %3;"
                 : "=l"(p[11]) : "l"(range_base), "r"(3000u), "r"(1u << 20));
    asm volatile("createpolicy.range.global.L2::evict_normal.L2::evict_unchanged.b64 %0, [%1+4096], 65536, 65536;"
                 : "=l"(p[12]) : "l"(range_base));
    asm volatile("createpolicy.range.global.L2::evict_first.b64 %0, [%1], %2, %3;"
                 : "=l"(p[13]) : "l"(range_base), "r"(4096u), "r"(4096u));
    asm volatile("createpolicy.range.global.L2::evict_unchanged.L2::evict_first.b64 %0, [%1], %2, %3;"
                 : "=l"(p[14]) : "l"(range_base + 0x123400), "r"(1u << 24), "r"(1u << 26));
    // Real buffer, generic and global addressing: address-dependent bits cleared before storing.
    unsigned long long q;
    asm volatile("createpolicy.range.L2::evict_last.b64 %0, [%1], 256, 1024;" : "=l"(q) : "l"(buf));
    p[15] = q & ~RANGE_ADDRESS_BITS;
    asm volatile("createpolicy.range.global.L2::evict_first.L2::evict_first.b64 %0, [%1], 512, 0x40000;"
                 : "=l"(q) : "l"(gaddr(buf)));
    p[16] = q & ~RANGE_ADDRESS_BITS;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, %1;" : "=l"(p[17]) : "f"(frac * 0.5f));
    for (int k = 0; k < N_POLICIES; ++k) out[k] = p[k];
}

// A realistic consumer: input streamed with an evict_first fractional policy, a lookup table kept
// with a range policy over its own extent, a policy converted from a CUDA access property (`prop`,
// a kernel argument) used for the output. out[i] = in[i] * lut[i % 16]. Hints never change results.
extern "C" __global__ void policy_hinted_scale(const float* __restrict__ in, const float* __restrict__ lut,
                                               float* __restrict__ out, unsigned long long prop, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long stream, keep, conv;
    asm volatile("createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %0, 1.0;" : "=l"(stream));
    asm volatile("createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %0, [%1], %2, %3;"
                 : "=l"(keep) : "l"(gaddr(lut)), "r"(64u), "r"(256u));
    asm volatile("createpolicy.cvt.L2.b64 %0, %1;" : "=l"(conv) : "l"(prop));
    float x, w;
    asm volatile("ld.global.L1::no_allocate.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(x) : "l"(gaddr(in + i)), "l"(stream));
    asm volatile("ld.global.nc.L1::evict_last.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(w) : "l"(gaddr(lut + (i & 15))), "l"(keep));
    asm volatile("st.global.L2::cache_hint.f32 [%0], %1, %2;" :: "l"(gaddr(out + i)), "f"(x * w), "l"(conv) : "memory");
}
