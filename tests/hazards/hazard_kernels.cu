// Kernels with the cache-semantics bugs `ptxsim run --hazards` reports, each beside its fix.
// Regenerate hazard_kernels.sm80.ptx with ./gen.sh (nvcc from ../../../shared/tools/cuda-tools.sh).
#include <cuda_pipeline.h>

// ---- stale-l1: CTA 0 caches `data` in its SM's L1 with ld.ca, CTA 1 (another SM) changes it,
// and CTA 0 reads it again with ld.ca: the documented stale read. The flags are volatile, and
// ld.volatile does not invalidate L1, so nothing refreshes CTA 0's copy.
extern "C" __global__ void stale_l1_bug(int* data, volatile int* flags, int* out)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        int before = __ldca(data);
        flags[0] = 1;
        while (flags[1] == 0) { }
        int after = __ldca(data);   // stale: this SM's L1 still holds the old value
        out[0] = before;
        out[1] = after;
    } else {
        while (flags[0] == 0) { }
        data[0] = 42;
        __threadfence();
        flags[1] = 1;
    }
}

// Fix: read the shared datum at the coherence point (.cg) after the handshake.
extern "C" __global__ void stale_l1_fixed(int* data, volatile int* flags, int* out)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        int before = __ldca(data);
        flags[0] = 1;
        while (flags[1] == 0) { }
        int after = __ldcg(data);
        out[0] = before;
        out[1] = after;
    } else {
        while (flags[0] == 0) { }
        data[0] = 42;
        __threadfence();
        flags[1] = 1;
    }
}

// ---- nc-after-write: the kernel writes buf, then reads it through the read-only path.
extern "C" __global__ void nc_after_write_bug(float* buf, float* out, int n)
{
    int i = threadIdx.x;
    if (i < n) buf[i] = 2.0f * i;
    __syncthreads();
    if (i < n) out[i] = __ldg(&buf[(i + 1) % n]);
}

// Fix: an ordinary (coherent) load.
extern "C" __global__ void nc_after_write_fixed(float* buf, float* out, int n)
{
    int i = threadIdx.x;
    if (i < n) buf[i] = 2.0f * i;
    __syncthreads();
    if (i < n) out[i] = buf[(i + 1) % n];
}

// ---- cp-async-incomplete: three ways to use a copy before it completes.
// (a) no wait at all before the barrier and the read.
extern "C" __global__ void cp_async_no_wait_bug(const int* in, int* out)
{
    __shared__ alignas(16) int sh[128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&sh[t], &in[t], 4);
    __pipeline_commit();
    __syncthreads();
    out[t] = sh[t];
}

// (b) each thread waits for its own copy but reads its neighbour's without a barrier.
extern "C" __global__ void cp_async_no_barrier_bug(const int* in, int* out)
{
    __shared__ alignas(16) int sh[128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&sh[t], &in[t], 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    out[t] = sh[(t + 1) % blockDim.x];
}

// (c) the source is overwritten while the copy may still be reading it.
extern "C" __global__ void cp_async_source_overwrite_bug(int* in, int* out)
{
    __shared__ alignas(16) int sh[128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&sh[t], &in[t], 4);
    __pipeline_commit();
    in[t] = -1;
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t] = sh[(t + 1) % blockDim.x];
}

// Fix: wait for the copies, then a barrier before reading other threads' data; write the
// source only after the wait.
extern "C" __global__ void cp_async_fixed(int* in, int* out)
{
    __shared__ alignas(16) int sh[128];
    int t = threadIdx.x;
    __pipeline_memcpy_async(&sh[t], &in[t], 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    in[t] = -1;
    out[t] = sh[(t + 1) % blockDim.x];
}

// ---- weak-spin: CTA 0 polls a flag with a weak (L1-cacheable) load that CTA 1 sets.
extern "C" __global__ void weak_spin_bug(int* flag, int* out)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 1) {
        atomicExch(flag, 1);
    } else {
        unsigned v;
        do {
            asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
        } while (v == 0);
        out[0] = v;
    }
}

// Fix: poll with an acquire load at GPU scope.
extern "C" __global__ void weak_spin_fixed(int* flag, int* out)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 1) {
        atomicExch(flag, 1);
    } else {
        unsigned v;
        do {
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
        } while (v == 0);
        out[0] = v;
    }
}

// ---- stale-l1 fixed by a fence on the reader: __threadfence() is fence.sc.gpu, which ptxas
// follows with CCTL.IVALL (docs/fences.md), so the SM's L1 is invalidated and the second
// ld.ca reads the new value from L2 (the H100 does so in 256 of 256 trials, hw README §6).
extern "C" __global__ void stale_l1_fence_fixed(int* data, volatile int* flags, int* out)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        int before = __ldca(data);
        flags[0] = 1;
        while (flags[1] == 0) { }
        __threadfence();
        int after = __ldca(data);
        out[0] = before;
        out[1] = after;
    } else {
        while (flags[0] == 0) { }
        data[0] = 42;
        __threadfence();
        flags[1] = 1;
    }
}
