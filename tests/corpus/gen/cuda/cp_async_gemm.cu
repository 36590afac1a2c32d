// Realistic cp.async pipelines written with inline asm (sm_80+; sm_75 falls back to plain loads):
//  - a tiled SGEMM with a double-buffered cp.async.cg (16-byte) pipeline and wait_group 1;
//  - a tiled transpose staging 4-byte cp.async.ca copies into a padded shared tile.
// Integer-valued inputs keep every product and sum exact.
#include "ptx_helpers.cuh"

#define BM 32
#define BN 32
#define BK 16

__device__ __forceinline__ void copy16(float* dst_shared, const float* src_global)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;"
                 :: "r"(saddr(dst_shared)), "l"(gaddr(src_global)) : "memory");
#else
    *reinterpret_cast<float4*>(dst_shared) = __ldg(reinterpret_cast<const float4*>(src_global));
#endif
}
__device__ __forceinline__ void commit()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void wait_group()
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" :: "n"(N) : "memory");
#endif
}

// C[M,N] = A[M,K] * B[K,N], row-major, M % 32 == N % 32 == K % 16 == 0.
// 256 threads (16x16); each thread computes a 2x2 block of C. Per K-step a tile of A (32x16 floats
// = 128 16-byte chunks) and of B (16x32 = 128 chunks) is staged; the copy of step k+1 overlaps the
// math of step k.
extern "C" __global__ void __launch_bounds__(256) sgemm_cp_async(const float* __restrict__ A, const float* __restrict__ B,
                                                                 float* __restrict__ C, int M, int N, int K)
{
    __shared__ alignas(16) float As[2][BM][BK];
    __shared__ alignas(16) float Bs[2][BK][BN];
    const int tid = threadIdx.y * 16 + threadIdx.x;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    auto stage = [&](int buf, int k0) {
        if (tid < 128) {
            int r = tid / 4, c = (tid % 4) * 4;  // A tile: 32 rows x 4 chunks
            copy16(&As[buf][r][c], A + (size_t)(row0 + r) * K + k0 + c);
        } else {
            int t = tid - 128, r = t / 8, c = (t % 8) * 4;  // B tile: 16 rows x 8 chunks
            copy16(&Bs[buf][r][c], B + (size_t)(k0 + r) * N + col0 + c);
        }
        commit();
    };
    float acc[2][2] = {{0.f, 0.f}, {0.f, 0.f}};
    const int steps = K / BK;
    stage(0, 0);
    for (int s = 0; s < steps; ++s) {
        if (s + 1 < steps) {
            stage((s + 1) & 1, (s + 1) * BK);
            wait_group<1>();
        } else {
            wait_group<0>();
        }
        __syncthreads();
        const int buf = s & 1;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a0 = As[buf][threadIdx.y * 2][k], a1 = As[buf][threadIdx.y * 2 + 1][k];
            float b0 = Bs[buf][k][threadIdx.x * 2], b1 = Bs[buf][k][threadIdx.x * 2 + 1];
            acc[0][0] += a0 * b0;
            acc[0][1] += a0 * b1;
            acc[1][0] += a1 * b0;
            acc[1][1] += a1 * b1;
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            __stcs(C + (size_t)(row0 + threadIdx.y * 2 + i) * N + col0 + threadIdx.x * 2 + j, acc[i][j]);
}

// out[c][r] = in[r][c] for a rows x cols matrix (multiples of 32); 32x8 threads per 32x32 tile.
extern "C" __global__ void transpose_cp_async(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ alignas(16) float tile[32][33];  // +1 column against bank conflicts
    const int x = blockIdx.x * 32 + threadIdx.x;
    const int y0 = blockIdx.y * 32;
    for (int j = threadIdx.y; j < 32; j += 8) {
#if __CUDA_ARCH__ >= 800
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;"
                     :: "r"(saddr(&tile[j][threadIdx.x])), "l"(gaddr(in + (size_t)(y0 + j) * cols + x)) : "memory");
#else
        tile[j][threadIdx.x] = __ldg(in + (size_t)(y0 + j) * cols + x);
#endif
    }
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
    __syncthreads();
    const int ox = blockIdx.y * 32 + threadIdx.x;
    const int oy0 = blockIdx.x * 32;
    for (int j = threadIdx.y; j < 32; j += 8) __stcg(out + (size_t)(oy0 + j) * rows + ox, tile[threadIdx.x][j]);
}
