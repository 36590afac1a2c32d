// cp.async through CUDA's pipeline primitives (cuda_pipeline.h / cuda_awbarrier_primitives.h):
//   __pipeline_memcpy_async -> cp.async.ca/.cg.shared.global (with src-size for zero fill),
//   __pipeline_commit -> cp.async.commit_group, __pipeline_wait_prior(N) -> cp.async.wait_group N,
//   __pipeline_arrive_on -> cp.async.mbarrier.arrive.shared.b64.
// For sm_75 the same header falls back to synchronous copies (no cp.async in the PTX).
#include <cuda_pipeline.h>

#define TILE 512  // floats per tile: 128 threads x one 16-byte copy

// Double-buffered stream: stage tile t+1 while tile t is consumed. Each tile is written out
// reversed and transformed (2*v + 1) so the result depends on other threads' copies.
extern "C" __global__ void pipeline_double_buffer(const float* __restrict__ in, float* __restrict__ out,
                                                  int tiles_per_block)
{
    __shared__ alignas(16) float buf[2][TILE];
    const int tid = threadIdx.x;
    const size_t base = (size_t)blockIdx.x * tiles_per_block * TILE;
    __pipeline_memcpy_async(&buf[0][tid * 4], &in[base + tid * 4], 16);
    __pipeline_commit();
    for (int t = 0; t < tiles_per_block; ++t) {
        if (t + 1 < tiles_per_block)
            __pipeline_memcpy_async(&buf[(t + 1) & 1][tid * 4], &in[base + (t + 1) * TILE + tid * 4], 16);
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        for (int j = 0; j < 4; ++j) {
            int e = tid * 4 + j;
            out[base + t * TILE + e] = 2.0f * buf[t & 1][TILE - 1 - e] + 1.0f;
        }
        __syncthreads();
    }
}

// 4-, 8- and 16-byte copies with zero fill: copy k of thread t keeps only the first bytes of its
// chunk (src-size = cp-size - zfill) and zero-fills the rest.
extern "C" __global__ void pipeline_sizes_zfill(const int* __restrict__ in, int* __restrict__ out)
{
    __shared__ alignas(16) int s4[64];
    __shared__ alignas(16) int s8[128];
    __shared__ alignas(16) int s16[256];
    const int t = threadIdx.x;  // 64 threads
    __pipeline_memcpy_async(&s4[t], &in[t], 4);
    __pipeline_memcpy_async(&s8[2 * t], &in[64 + 2 * t], 8, (t & 1) ? 4 : 0);
    __pipeline_commit();
    __pipeline_memcpy_async(&s16[4 * t], &in[192 + 4 * t], 16, (t % 4) * 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t] = s4[63 - t];
    out[64 + 2 * t] = s8[2 * t];
    out[64 + 2 * t + 1] = s8[2 * t + 1];
    for (int j = 0; j < 4; ++j) out[192 + 4 * t + j] = s16[4 * t + j];
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#include <cuda_awbarrier_primitives.h>
#endif

// Completion through an mbarrier instead of a group wait: every thread's copy arrives on the
// barrier (__pipeline_arrive_on), then every thread arrives itself and waits for the phase.
extern "C" __global__ void pipeline_mbarrier(const int* __restrict__ in, int* __restrict__ out)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    __shared__ alignas(16) int s[4 * 128];
    __shared__ __mbarrier_t bar;
    const int t = threadIdx.x;  // 128 threads
    if (t == 0) __mbarrier_init(&bar, blockDim.x);
    __syncthreads();
    __pipeline_memcpy_async(&s[4 * t], &in[4 * t], 16);
    __pipeline_arrive_on(&bar);
    __mbarrier_token_t tok = __mbarrier_arrive(&bar);
    while (!__mbarrier_test_wait(&bar, tok)) {
    }
    for (int j = 0; j < 4; ++j) out[4 * t + j] = s[4 * (127 - t) + j] + 1;
#else
    // sm_75: no cp.async or mbarrier; a plain copy gives the same result.
    const int t = threadIdx.x;
    __shared__ int s[4 * 128];
    for (int j = 0; j < 4; ++j) s[4 * t + j] = in[4 * t + j];
    __syncthreads();
    for (int j = 0; j < 4; ++j) out[4 * t + j] = s[4 * (127 - t) + j] + 1;
#endif
}
