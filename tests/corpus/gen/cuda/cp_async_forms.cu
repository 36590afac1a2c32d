// Every cp.async form (sm_80+) through inline asm: .ca with cp-size 4/8/16, .cg with 16,
// .shared and .shared::cta, prefetch sizes, cache hints, src-size (zero fill), the ignore-src
// predicate, commit/wait groups, wait_all, and mbarrier-based completion (cp.async.mbarrier.arrive
// with and without .noinc, mbarrier.init/arrive/test_wait/try_wait and their .parity forms).
#include "ptx_helpers.cuh"

#define CP(form, dst, src, size) \
    asm volatile(form " [%0], [%1], " #size ";" :: "r"(saddr(dst)), "l"(gaddr(src)) : "memory")

// 64 threads. Each thread copies its slice of `in` into shared memory with ten different forms in
// three commit groups, waits group by group, and the block writes shared memory back out reversed
// by thread, so every byte of out comes from another thread's copy.
// Layout per thread (bytes): [0,4) [4,12) [16,32) [32,48) [48,52) [64,80) [80,88) [96,112) [112,116) [128,144)
// Slice stride 144 bytes; only the listed ranges are written (the rest stays zero in shared memory
// because the block clears it first).
#define SLICE 144
extern "C" __global__ void cp_async_all_forms(const unsigned char* __restrict__ in, unsigned char* __restrict__ out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(16) unsigned char sh[64 * SLICE];
    const int t = threadIdx.x;
    for (int k = t; k < 64 * SLICE / 4; k += 64) reinterpret_cast<unsigned*>(sh)[k] = 0;
    __syncthreads();
    const unsigned char* g = in + t * SLICE;
    unsigned char* s = sh + t * SLICE;
    unsigned long long pol = policy_evict_last();
    CP("cp.async.ca.shared.global", s + 0, g + 0, 4);
    CP("cp.async.ca.shared.global", s + 8, g + 8, 8);  // 8-byte copies need 8-byte alignment
    CP("cp.async.ca.shared.global", s + 16, g + 16, 16);
    asm volatile("cp.async.commit_group;" ::: "memory");
    CP("cp.async.cg.shared.global", s + 32, g + 32, 16);
    CP("cp.async.ca.shared::cta.global", s + 48, g + 48, 4);
    CP("cp.async.cg.shared::cta.global.L2::128B", s + 64, g + 64, 16);
    asm volatile("cp.async.commit_group;" ::: "memory");
    CP("cp.async.ca.shared.global.L2::64B", s + 80, g + 80, 8);
    CP("cp.async.ca.shared.global.L2::256B", s + 96, g + 96, 16);
    asm volatile("cp.async.ca.shared.global.L2::cache_hint [%0], [%1], 4, %2;"
                 :: "r"(saddr(s + 112)), "l"(gaddr(g + 112)), "l"(pol) : "memory");
    asm volatile("cp.async.cg.shared.global.L2::cache_hint.L2::256B [%0], [%1], 16, %2;"
                 :: "r"(saddr(s + 128)), "l"(gaddr(g + 128)), "l"(pol) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 2;" ::: "memory");
    asm volatile("cp.async.wait_group 1;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    const unsigned char* src = sh + (63 - t) * SLICE;
    for (int k = 0; k < SLICE; ++k) out[t * SLICE + k] = src[k];
#endif
}

// src-size forms: immediate and register src-size, with cache hint and prefetch size. 32 threads,
// 64 bytes of shared memory per thread pre-filled with 0xAB so the zero fill is visible.
// Thread t: [0,4) ca 4 src-size t%5, [8,16) ca 8 src-size t%9, [16,32) cg 16 src-size t%17,
//           [32,48) cg 16 + cache hint, src-size (t*3)%17, [48,64) ca 16 + L2::128B, src-size 7.
extern "C" __global__ void cp_async_src_size_forms(const unsigned char* __restrict__ in, unsigned char* __restrict__ out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(16) unsigned char sh[32 * 64];
    const int t = threadIdx.x;
    for (int k = t; k < 32 * 64 / 4; k += 32) reinterpret_cast<unsigned*>(sh)[k] = 0xABABABABu;
    __syncthreads();
    const unsigned char* g = in + t * 64;
    unsigned char* s = sh + t * 64;
    unsigned long long pol = policy_evict_first();
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" :: "r"(saddr(s)), "l"(gaddr(g)), "r"(t % 5) : "memory");
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;" :: "r"(saddr(s + 8)), "l"(gaddr(g + 8)), "r"(t % 9) : "memory");
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(saddr(s + 16)), "l"(gaddr(g + 16)), "r"(t % 17) : "memory");
    asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;"
                 :: "r"(saddr(s + 32)), "l"(gaddr(g + 32)), "r"((t * 3) % 17), "l"(pol) : "memory");
    asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 16, 7;" :: "r"(saddr(s + 48)), "l"(gaddr(g + 48)) : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
    __syncthreads();
    for (int k = 0; k < 64; ++k) out[t * 64 + k] = s[k];
#endif
}

// ignore-src forms: a predicate per copy; when true the destination gets zeros. 32 threads, 32 bytes
// of shared memory per thread pre-filled with 0xCD.
// Thread t: [0,4) ca 4 ignore if t odd; [8,16) ca 8 + L2::64B ignore if t%3==0;
//           [16,32) cg 16 + cache hint ignore if t%4==1.
extern "C" __global__ void cp_async_ignore_src_forms(const unsigned char* __restrict__ in, unsigned char* __restrict__ out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(16) unsigned char sh[32 * 32];
    const int t = threadIdx.x;
    for (int k = t; k < 32 * 32 / 4; k += 32) reinterpret_cast<unsigned*>(sh)[k] = 0xCDCDCDCDu;
    __syncthreads();
    const unsigned char* g = in + t * 32;
    unsigned char* s = sh + t * 32;
    unsigned long long pol = policy_evict_last();
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %2, 0;\n\tcp.async.ca.shared.global [%0], [%1], 4, p;\n\t}"
                 :: "r"(saddr(s)), "l"(gaddr(g)), "r"(t & 1) : "memory");
    asm volatile("{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %2, 0;\n\tcp.async.ca.shared.global.L2::64B [%0], [%1], 8, p;\n\t}"
                 :: "r"(saddr(s + 8)), "l"(gaddr(g + 8)), "r"(t % 3) : "memory");
    asm volatile("{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %2, 1;\n\tcp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, p, %3;\n\t}"
                 :: "r"(saddr(s + 16)), "l"(gaddr(g + 16)), "r"(t % 4), "l"(pol) : "memory");
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    for (int k = 0; k < 32; ++k) out[t * 32 + k] = s[k];
#endif
}

// mbarrier completion. 128 threads, 16 bytes each, two phases:
//  phase 0: cp.async + cp.async.mbarrier.arrive (pending count incremented, so each thread also
//           arrives itself), then mbarrier.arrive + test_wait (or try_wait on sm_90) on the token;
//  phase 1: cp.async + cp.async.mbarrier.arrive.noinc (counts as the thread's arrival; the
//           barrier is re-armed for blockDim.x such arrivals), then test_wait.parity/try_wait.parity.
// out[0..512) = phase-0 words of thread 127-t (from in[0..512)), out[512..1024) = phase-1 words of
// thread 127-t (from in[512..1024)).
extern "C" __global__ void cp_async_mbarrier_forms(const unsigned* __restrict__ in, unsigned* __restrict__ out)
{
#if __CUDA_ARCH__ >= 800
    __shared__ alignas(16) unsigned sh[2][128 * 4];
    __shared__ alignas(8) unsigned long long bar;
    const int t = threadIdx.x;
    const unsigned b = saddr(&bar);
    if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(b), "r"(blockDim.x) : "memory");
    __syncthreads();
    // Phase 0.
    CP("cp.async.cg.shared.global", &sh[0][4 * t], in + 4 * t, 16);
    asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];" :: "r"(b) : "memory");
    unsigned long long state;
    asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(b) : "memory");
    unsigned done = 0;
    while (!done) {
#if __CUDA_ARCH__ >= 900
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(b), "l"(state) : "memory");
#else
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(b), "l"(state) : "memory");
#endif
    }
    for (int j = 0; j < 4; ++j) out[4 * t + j] = sh[0][4 * (127 - t) + j];
    // Phase 1: the .noinc arrival is the thread's arrival.
    CP("cp.async.ca.shared::cta.global", &sh[1][4 * t], in + 512 + 4 * t, 16);
#if __CUDA_ARCH__ >= 900
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(b) : "memory");
#else
    asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" :: "r"(b) : "memory");
#endif
    done = 0;
    while (!done) {
#if __CUDA_ARCH__ >= 900
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(b), "r"(1u) : "memory");
#else
        asm volatile("{\n\t.reg .pred p;\n\tmbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(done) : "r"(b), "r"(1u) : "memory");
#endif
    }
    for (int j = 0; j < 4; ++j) out[512 + 4 * t + j] = sh[1][4 * (127 - t) + j];
    __syncthreads();
    if (t == 0) asm volatile("mbarrier.inval.shared.b64 [%0];" :: "r"(b) : "memory");
#endif
}
