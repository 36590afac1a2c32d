// Seed semantics of cp.async (sm_80+), one small kernel each:
//  - zero fill: src-size < cp-size copies src-size bytes and writes zeros to the rest;
//  - ignore-src: a true predicate writes cp-size zeros and reads nothing;
//  - completion: a copy is only guaranteed in shared memory after cp.async.wait_group/wait_all (or
//    an mbarrier wait). `cp_async_forgotten_wait` reads after bar.sync without any wait, and
//    `cp_async_wait_group_pending` reads the newest group after `wait_group 1`; both are races on
//    hardware. ptxsim lands a copy exactly when a wait completes its group, so both read the OLD
//    shared contents, deterministically. `cp_async_with_wait` is the correct version.
#include "ptx_helpers.cuh"
#include <cuda_pipeline.h>

// 17 threads; thread t copies 16 bytes with src-size t (0..16) over a 0xEE-filled slot.
extern "C" __global__ void cp_async_zero_fill(const unsigned char* __restrict__ in, unsigned char* __restrict__ out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(16) unsigned char sh[17 * 16];
    const int t = threadIdx.x;
    for (int k = 0; k < 16; ++k) sh[16 * t + k] = 0xEE;
    __syncthreads();
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
                 :: "r"(saddr(sh + 16 * t)), "l"(gaddr(in + 16 * t)), "r"(t) : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    for (int k = 0; k < 16; ++k) out[16 * t + k] = sh[16 * t + k];
#endif
}

// 32 threads; thread t copies 4 words; odd threads set ignore-src, so their slot becomes zeros
// (the slot was 0xDEADBEEF before).
extern "C" __global__ void cp_async_ignore_src(const unsigned* __restrict__ in, unsigned* __restrict__ out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(16) unsigned sh[32 * 4];
    const int t = threadIdx.x;
    for (int k = 0; k < 4; ++k) sh[4 * t + k] = 0xDEADBEEFu;
    __syncthreads();
    asm volatile("{\n\t.reg .pred ign;\n\tsetp.ne.u32 ign, %2, 0;\n\tcp.async.cg.shared.global [%0], [%1], 16, ign;\n\t}"
                 :: "r"(saddr(sh + 4 * t)), "l"(gaddr(in + 4 * t)), "r"(t & 1) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    for (int k = 0; k < 4; ++k) out[4 * t + k] = sh[4 * t + k];
#endif
}

// 64 threads. Shared memory holds OLD values 0xDEAD0000 + t; each thread issues cp.async of in[t]
// over them and commits, then the block passes bar.sync WITHOUT cp.async.wait_*: thread t reads
// the slot of thread t ^ 1. ptxsim: out[t] = 0xDEAD0000 + (t ^ 1) (the copy has not landed).
// The trailing wait_all only drains the copies before exit.
extern "C" __global__ void cp_async_forgotten_wait(const unsigned* __restrict__ in, unsigned* __restrict__ out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(16) unsigned sh[64];
    const int t = threadIdx.x;
    sh[t] = 0xDEAD0000u + t;
    __syncthreads();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(saddr(sh + t)), "l"(gaddr(in + t)) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    __syncthreads();  // BUG (deliberate): no cp.async.wait_group / wait_all before this barrier
    out[t] = sh[t ^ 1];
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// The correct version: wait_all before bar.sync, so out[t] = in[t ^ 1].
extern "C" __global__ void cp_async_with_wait(const unsigned* __restrict__ in, unsigned* __restrict__ out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(16) unsigned sh[64];
    const int t = threadIdx.x;
    sh[t] = 0xDEAD0000u + t;
    __syncthreads();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(saddr(sh + t)), "l"(gaddr(in + t)) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    out[t] = sh[t ^ 1];
#endif
}

// Two groups, then `cp.async.wait_group 1`: only the older group is guaranteed complete.
// 64 threads; group A copies in[t] into a[t], group B copies in[64 + t] into b[t]; both arrays
// start as OLD values (0xA0000000 + t, 0xB0000000 + t). ptxsim: out[t] = in[t ^ 1] (group A done),
// out[64 + t] = 0xB0000000 + (t ^ 1) (group B still pending at the read).
extern "C" __global__ void cp_async_wait_group_pending(const unsigned* __restrict__ in, unsigned* __restrict__ out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(16) unsigned a[64], b[64];
    const int t = threadIdx.x;
    a[t] = 0xA0000000u + t;
    b[t] = 0xB0000000u + t;
    __syncthreads();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(saddr(a + t)), "l"(gaddr(in + t)) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" :: "r"(saddr(b + t)), "l"(gaddr(in + 64 + t)) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    __syncthreads();
    out[t] = a[t ^ 1];
    out[64 + t] = b[t ^ 1];  // racy on hardware: group B may or may not have landed
    asm volatile("cp.async.wait_group 0;" ::: "memory");
#endif
}

// The same forgotten wait written with CUDA's pipeline primitives (no __pipeline_wait_prior).
// ptxsim: out[t] = 0xDEAD0000 + (t ^ 1).
extern "C" __global__ void pipeline_forgotten_wait(const unsigned* __restrict__ in, unsigned* __restrict__ out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(16) unsigned sh[64];
    const int t = threadIdx.x;
    sh[t] = 0xDEAD0000u + t;
    __syncthreads();
    __pipeline_memcpy_async(sh + t, in + t, 4);
    __pipeline_commit();
    __syncthreads();  // BUG (deliberate): __pipeline_wait_prior(0) missing
    out[t] = sh[t ^ 1];
    __pipeline_wait_prior(0);
#endif
}
