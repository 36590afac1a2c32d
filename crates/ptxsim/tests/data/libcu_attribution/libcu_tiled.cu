// A kernel a new CUDA user writes with libcu++: annotated loads (cuda::annotated_ptr) and a
// tiled matmul staged through shared memory with cuda::memcpy_async and cuda::pipeline. Built
// with -lineinfo, every load and cp.async is inlined from the library's headers: the report
// must name these lines (the outermost frame of each `.loc ... inlined_at` chain), not the
// headers'. Generator: gen.sh beside this file.
#include <cuda/annotated_ptr>
#include <cuda/pipeline>
#include <cooperative_groups.h>

constexpr int T = 16;

// out[i] = a*x[i] + y[i]: x streamed, y persisting.
extern "C" __global__ void annotated_axpy(const float* x, const float* y, float* out, float a, int n)
{
    cuda::annotated_ptr<const float, cuda::access_property::streaming> xs(x);
    cuda::annotated_ptr<const float, cuda::access_property::persisting> yp(y);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float xv = xs[i];
        float yv = yp[i];
        out[i] = a * xv + yv;
    }
}

// C = A * B for n x n row-major matrices (n a multiple of T), T x T tiles of A and B copied
// into shared memory with cuda::memcpy_async under a two-stage pipeline.
extern "C" __global__ void tiled_matmul(const float* A, const float* B, float* C, int n)
{
    __shared__ float As[2][T][T];
    __shared__ float Bs[2][T][T];
    auto block = cooperative_groups::this_thread_block();
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    const int tiles = n / T;
    float acc = 0.0f;
    pipe.producer_acquire();
    cuda::memcpy_async(&As[0][ty][tx], &A[row * n + tx], sizeof(float), pipe);
    cuda::memcpy_async(&Bs[0][ty][tx], &B[ty * n + col], sizeof(float), pipe);
    pipe.producer_commit();
    for (int t = 0; t < tiles; ++t) {
        const int s = t & 1;
        if (t + 1 < tiles) {
            pipe.producer_acquire();
            cuda::memcpy_async(&As[s ^ 1][ty][tx], &A[row * n + (t + 1) * T + tx], sizeof(float), pipe);
            cuda::memcpy_async(&Bs[s ^ 1][ty][tx], &B[((t + 1) * T + ty) * n + col], sizeof(float), pipe);
            pipe.producer_commit();
        }
        cuda::pipeline_consumer_wait_prior<1>(pipe);
        block.sync();
        for (int k = 0; k < T; ++k) acc += As[s][ty][k] * Bs[s][k][tx];
        block.sync();
        pipe.consumer_release();
    }
    C[row * n + col] = acc;
}

// A bug the hazard checker finds: the tile is read before the copy into it has completed
// (no pipeline wait), so the report names the read and the memcpy_async it conflicts with.
extern "C" __global__ void racy_tile(const float* in, float* out)
{
    __shared__ float tile[128];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const int t = threadIdx.x;
    pipe.producer_acquire();
    cuda::memcpy_async(&tile[t], &in[t], sizeof(float), pipe);
    pipe.producer_commit();
    out[t] = tile[t] * 2.0f;
    cuda::pipeline_consumer_wait_prior<0>(pipe);
}
