// Seed semantics of the non-coherent L1 (one small kernel each), with the H100's answers
// (../shared/hw/h100/README.md section 6, tests/hw/h100/README.md):
//  - message passing across SMs: CTA 0 caches `data` with ld.global.ca, CTA 1 (another SM)
//    writes it and raises a flag; CTA 0 sees the flag through volatile loads and reads `data`
//    again with ld.global.ca.
//    `mp_fence_reader`: __threadfence() (fence.sc.gpu, followed by CCTL.IVALL in the SASS) on
//    the reader before the second load: the H100 read the new value in 256 of 256 trials.
//    `mp_no_fence_reader`: no fence on the reader: the H100 read the stale line (256 of 256).
//  - the read-only path within one SM (`same_sm_nc`, one thread, as fetch_probe.cu's same_sm):
//    ld.global.ca x; st x; ld.global.ca x returns the stored value; ld.global.nc y; st y;
//    ld.global.nc y returns the OLD value (the store does not update the read-only copy).
#include "ptx_helpers.cuh"

__device__ __forceinline__ int ld_ca(const int* p)
{
    int v;
    asm volatile("ld.global.ca.s32 %0, [%1];" : "=r"(v) : "l"(gaddr(p)) : "memory");
    return v;
}

__device__ __forceinline__ int ld_nc(const int* p)
{
    int v;
    asm volatile("ld.global.nc.s32 %0, [%1];" : "=r"(v) : "l"(gaddr(p)) : "memory");
    return v;
}

__device__ __forceinline__ void st_wb(int* p, int v)
{
    asm volatile("st.global.s32 [%0], %1;" :: "l"(gaddr(p)), "r"(v) : "memory");
}

// 2 CTAs of 32 threads; thread 0 of each takes part. flags[0]: CTA 0 has cached data;
// flags[1]: CTA 1 has written data. out = {first read, second read}.
template <bool Fence>
__device__ void message_passing(int* data, volatile int* flags, int* out)
{
    if (threadIdx.x != 0) return;
    if (blockIdx.x == 0) {
        const int before = ld_ca(data);
        flags[0] = 1;
        while (flags[1] == 0) { }
        if (Fence) __threadfence();
        const int after = ld_ca(data);
        out[0] = before;
        out[1] = after;
    } else {
        while (flags[0] == 0) { }
        st_wb(data, data[1]);  // data[1] holds the new value
        __threadfence();
        flags[1] = 1;
    }
}

extern "C" __global__ void mp_fence_reader(int* data, volatile int* flags, int* out)
{
    message_passing<true>(data, flags, out);
}

extern "C" __global__ void mp_no_fence_reader(int* data, volatile int* flags, int* out)
{
    message_passing<false>(data, flags, out);
}

// 1 thread. x[0] and x[32] (another line) hold the inputs; out = {a, b, c, d} as in
// fetch_probe.cu: a = ld.ca x, st x = a + 1, b = ld.ca x; c = ld.nc y, st y = c + 1, d = ld.nc y.
extern "C" __global__ void same_sm_nc(int* x, int* out)
{
    int* y = x + 32;
    const int a = ld_ca(x);
    st_wb(x, a + 1);
    const int b = ld_ca(x);
    const int c = ld_nc(y);
    st_wb(y, c + 1);
    const int d = ld_nc(y);
    out[0] = a;
    out[1] = b;
    out[2] = c;
    out[3] = d;
}
