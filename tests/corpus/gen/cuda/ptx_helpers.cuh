// Shared helpers for the corpus kernels.
//
// Inline-asm operands of `.global` instructions get a real global-window address
// (`cvta.to.global`), and `.shared` operands a 32-bit shared-window address
// (`cvta.to.shared`), exactly as CCCL's cuda::ptx wrappers do, so the kernels are
// correct under any generic-address layout.
#pragma once
#include <cstdint>

__device__ __forceinline__ unsigned long long gaddr(const void* p)
{
    return static_cast<unsigned long long>(__cvta_generic_to_global(p));
}

__device__ __forceinline__ unsigned saddr(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// A 100 % evict_last L2 policy, the same instruction Triton emits for eviction_policy="evict_last".
__device__ __forceinline__ unsigned long long policy_evict_last()
{
    unsigned long long pol;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
    return pol;
}
__device__ __forceinline__ unsigned long long policy_evict_first()
{
    unsigned long long pol;
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0;" : "=l"(pol));
    return pol;
}
#endif
