// 2-D five-point stencil over a tile in shared memory with a one-cell halo.
// Loads go through the read-only path (__ldg), results are streamed out (__stcs).
// out = 0.5*c + 0.125*(n + s + e + w), borders clamped; integer inputs keep it exact.
#define TILE 16

extern "C" __global__ void stencil2d_5pt(const float* __restrict__ in, float* __restrict__ out, int width, int height)
{
    __shared__ float tile[TILE + 2][TILE + 2];
    int tx = threadIdx.x, ty = threadIdx.y;
    int x = blockIdx.x * TILE + tx;
    int y = blockIdx.y * TILE + ty;
    auto at = [&](int xx, int yy) {
        xx = min(max(xx, 0), width - 1);
        yy = min(max(yy, 0), height - 1);
        return __ldg(in + yy * width + xx);
    };
    tile[ty + 1][tx + 1] = at(x, y);
    if (tx == 0) tile[ty + 1][0] = at(x - 1, y);
    if (tx == TILE - 1) tile[ty + 1][TILE + 1] = at(x + 1, y);
    if (ty == 0) tile[0][tx + 1] = at(x, y - 1);
    if (ty == TILE - 1) tile[TILE + 1][tx + 1] = at(x, y + 1);
    __syncthreads();
    if (x < width && y < height) {
        float c = tile[ty + 1][tx + 1];
        float s = tile[ty][tx + 1] + tile[ty + 2][tx + 1] + tile[ty + 1][tx] + tile[ty + 1][tx + 2];
        __stcs(out + y * width + x, 0.5f * c + 0.125f * s);
    }
}

// Jacobi-style 1-D heat step run for several iterations inside one block, double-buffered in shared memory.
extern "C" __global__ void heat1d_shared(const float* __restrict__ in, float* __restrict__ out, int n, int steps)
{
    extern __shared__ float buf[];  // 2*n floats of dynamic shared memory
    float* cur = buf;
    float* nxt = buf + n;
    for (int i = threadIdx.x; i < n; i += blockDim.x) cur[i] = __ldg(in + i);
    __syncthreads();
    for (int s = 0; s < steps; ++s) {
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            float l = cur[i == 0 ? 0 : i - 1];
            float r = cur[i == n - 1 ? n - 1 : i + 1];
            nxt[i] = 0.25f * l + 0.5f * cur[i] + 0.25f * r;
        }
        __syncthreads();
        float* t = cur; cur = nxt; nxt = t;
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x) __stwt(out + i, cur[i]);
}
