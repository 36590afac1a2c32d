// Tensor cores through nvcuda::wmma, as CUDA samples and users write it: 16x16x16 fragments,
// half (and bf16) inputs, float accumulation, one warp per 16x16 output tile.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// C[M][N] = alpha * A[M][K] @ B[K][N] + beta * C (A row-major, B row-major; float output).
extern "C" __global__ void wmma_gemm_f16(const half* __restrict__ A, const half* __restrict__ B,
                                         float* __restrict__ C, int M, int N, int K, float alpha, float beta) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int tiles_n = N / 16;
  int tm = warp / tiles_n, tn = warp % tiles_n;
  if (tm * 16 >= M) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc, c;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + (size_t)tm * 16 * K + k, K);
    wmma::load_matrix_sync(b, B + (size_t)k * N + tn * 16, N);
    wmma::mma_sync(acc, a, b, acc);
  }
  float* ct = C + (size_t)tm * 16 * N + tn * 16;
  wmma::load_matrix_sync(c, ct, N, wmma::mem_row_major);
  for (int i = 0; i < c.num_elements; ++i) c.x[i] = alpha * acc.x[i] + beta * c.x[i];
  wmma::store_matrix_sync(ct, c, N, wmma::mem_row_major);
}

// bf16 inputs with B column-major, result stored column-major through shared memory.
extern "C" __global__ void wmma_gemm_bf16_colmajor(const __nv_bfloat16* __restrict__ A,
                                                   const __nv_bfloat16* __restrict__ Bt,
                                                   float* __restrict__ Ct, int M, int N, int K) {
  __shared__ float tile[4][16 * 16];
  int wib = threadIdx.x / 32;
  int warp = blockIdx.x * (blockDim.x / 32) + wib;
  int tiles_n = N / 16;
  int tm = warp / tiles_n, tn = warp % tiles_n;
  if (tm * 16 >= M) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    wmma::load_matrix_sync(a, A + (size_t)tm * 16 * K + k, K);
    wmma::load_matrix_sync(b, Bt + (size_t)tn * 16 * K + k, K);
    wmma::mma_sync(acc, a, b, acc);
  }
  wmma::store_matrix_sync(tile[wib], acc, 16, wmma::mem_col_major);
  __syncwarp();
  int lane = threadIdx.x % 32;
  for (int e = lane; e < 256; e += 32) {
    int col = e / 16, row = e % 16;  // column-major tile
    Ct[(size_t)(tn * 16 + col) * M + tm * 16 + row] = tile[wib][e];
  }
}
