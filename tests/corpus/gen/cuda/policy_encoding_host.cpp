// Reference values for createpolicy.cu's createpolicy_values, from CCCL's own encoder
// (cuda/__annotated_ptr/access_property_encoding.h: the constexpr fraction encoder and the host-side
// range encoder, which CCCL documents as matching device `createpolicy` output).
// Built by make_launches.py with the host C++ compiler against the CCCL headers of the CUDA toolkit;
// prints one 64-bit value per line, in the order of the kernel's p[0..17].
#include <cuda/annotated_ptr>
#include <cstdio>

using cuda::__l2_evict_t;
constexpr auto U = __l2_evict_t::_L2_Evict_Unchanged;   // .L2::evict_unchanged
constexpr auto F = __l2_evict_t::_L2_Evict_First;       // .L2::evict_first
constexpr auto L = __l2_evict_t::_L2_Evict_Last;        // .L2::evict_last
constexpr auto N = __l2_evict_t::_L2_Evict_Normal_Demote;  // .L2::evict_normal

// Fractional policies are evaluated in a constant expression: outside one, CCCL's host path
// returns 0 (it only encodes on sm_80+ devices or at compile time).
#define FRAC(p, s, f)                                            \
    do {                                                         \
        constexpr unsigned long long v = cuda::__l2_interleave(p, s, f); \
        std::printf("%016llx\n", v);                             \
    } while (0)
#define RANGE(p, s, a, prim, total, mask) \
    std::printf("%016llx\n", (unsigned long long)cuda::__block_encoding_host(p, s, (const void*)(a), prim, total) & (mask))

int main()
{
    const unsigned long long all = ~0ull, no_addr = ~0x0007ffe000000000ull;  // bits 37-50 cleared
    const unsigned long long base = 0x40000;  // createpolicy_values' range_base
    const float frac = 0.8f;                  // createpolicy_values' frac
    FRAC(L, U, 1.0f);               // p[0]  no fraction operand: 1.0
    FRAC(L, U, 1.0f);               // p[1]
    FRAC(F, U, 0.5f);               // p[2]
    FRAC(U, U, 0.25f);              // p[3]
    FRAC(N, U, 0.75f);              // p[4]
    FRAC(L, U, 0.5f);               // p[5]
    FRAC(L, F, 0.0625f);            // p[6]
    FRAC(F, F, 1.0f);               // p[7]
    FRAC(N, F, 0.8f);               // p[8]  register fraction = frac
    FRAC(U, F, 0.3f);               // p[9]
    RANGE(L, U, base, 0x100000u, 0x200000u, all);                  // p[10]
    RANGE(L, F, base, 3000u, 1u << 20, all);                       // p[11]
    RANGE(N, U, base + 4096, 65536u, 65536u, all);                 // p[12]
    RANGE(F, U, base, 4096u, 4096u, all);                          // p[13]
    RANGE(U, F, base + 0x123400, 1u << 24, 1u << 26, all);         // p[14]
    RANGE(L, U, 0x10000, 256u, 1024u, no_addr);                    // p[15] real buffer: address bits cleared
    RANGE(F, F, 0x10000, 512u, 0x40000u, no_addr);                 // p[16]
    FRAC(F, U, 0.8f * 0.5f);        // p[17] register fraction = frac * 0.5f
    (void)frac;
    return 0;
}
