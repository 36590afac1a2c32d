// Neural-network building blocks as users write them in CUDA C++: RMS norm, rotary embedding
// (sincosf on host-computed inverse frequencies), GELU in its erf and tanh forms, row argmax /
// argmin with index tie-breaking, split-K SGEMM combined with atomicAdd.

// Warp sum through __shfl_xor_sync (every lane ends with the total).
__device__ __forceinline__ float warp_allreduce_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

// y[row, :] = x[row, :] / sqrt(mean(x[row, :]^2) + eps) * w. One block (128 threads) per row.
extern "C" __global__ void rmsnorm_f32(const float* __restrict__ x, const float* __restrict__ w,
                                       float* __restrict__ y, float* __restrict__ rstd_out, int cols,
                                       float eps) {
  __shared__ float partial[32];
  __shared__ float s_rstd;
  const float* xr = x + (size_t)blockIdx.x * cols;
  float* yr = y + (size_t)blockIdx.x * cols;
  float ss = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) ss += xr[c] * xr[c];
  ss = warp_allreduce_sum(ss);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) partial[warp] = ss;
  __syncthreads();
  if (warp == 0) {
    float v = lane < (int)(blockDim.x >> 5) ? partial[lane] : 0.0f;
    v = warp_allreduce_sum(v);
    if (lane == 0) {
      float ms = v / (float)cols;
      s_rstd = 1.0f / sqrtf(ms + eps);
      rstd_out[blockIdx.x] = s_rstd;
    }
  }
  __syncthreads();
  float r = s_rstd;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = xr[c] * r * w[c];
}

// Rotary position embedding (GPT-NeoX layout: pairs (i, i + dim/2)) on x[seq][heads][dim],
// angles = pos[s] * inv_freq[i] (inv_freq computed on the host, as frameworks do), and the
// cos/sin cache written out.
extern "C" __global__ void rotary_f32(const float* __restrict__ x, const int* __restrict__ pos,
                                      const float* __restrict__ inv_freq, float* __restrict__ out,
                                      float* __restrict__ cos_cache, float* __restrict__ sin_cache,
                                      int seq, int heads, int dim) {
  int half = dim / 2;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;  // over seq * heads * half
  if (idx >= seq * heads * half) return;
  int i = idx % half;
  int h = (idx / half) % heads;
  int s = idx / (half * heads);
  float ang = (float)pos[s] * inv_freq[i];
  float sn, cs;
  sincosf(ang, &sn, &cs);
  const float* xp = x + ((size_t)s * heads + h) * dim;
  float* op = out + ((size_t)s * heads + h) * dim;
  float x0 = xp[i], x1 = xp[i + half];
  op[i] = x0 * cs - x1 * sn;
  op[i + half] = x1 * cs + x0 * sn;
  if (h == 0) {
    cos_cache[s * half + i] = cs;
    sin_cache[s * half + i] = sn;
  }
}

// GELU, exact (erf) and tanh-approximation forms, as in PyTorch.
extern "C" __global__ void gelu_f32(const float* __restrict__ x, float* __restrict__ y_erf,
                                    float* __restrict__ y_tanh, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  y_erf[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
  float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
  y_tanh[i] = 0.5f * v * (1.0f + tanhf(inner));
}

// Row argmax / argmin (first index on ties, as torch.argmax and numpy do): one warp per row,
// strided loads, then a shuffle reduction on (value, index) pairs.
extern "C" __global__ void argmax_argmin_rows(const float* __restrict__ x, int* __restrict__ amax,
                                              int* __restrict__ amin, float* __restrict__ vmax,
                                              int rows, int cols) {
  int warps_per_block = blockDim.x >> 5;
  int row = blockIdx.x * warps_per_block + (threadIdx.x >> 5);
  int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float best = -INFINITY, worst = INFINITY;
  int bi = 0x7fffffff, wi = 0x7fffffff;
  for (int c = lane; c < cols; c += 32) {
    float v = xr[c];
    if (v > best) { best = v; bi = c; }
    if (v < worst) { worst = v; wi = c; }
  }
  for (int o = 16; o > 0; o >>= 1) {
    float ob = __shfl_xor_sync(0xffffffffu, best, o);
    int obi = __shfl_xor_sync(0xffffffffu, bi, o);
    float ow = __shfl_xor_sync(0xffffffffu, worst, o);
    int owi = __shfl_xor_sync(0xffffffffu, wi, o);
    if (ob > best || (ob == best && obi < bi)) { best = ob; bi = obi; }
    if (ow < worst || (ow == worst && owi < wi)) { worst = ow; wi = owi; }
  }
  if (lane == 0) {
    amax[row] = bi;
    amin[row] = wi;
    vmax[row] = best;
  }
}

// Split-K SGEMM: C[M][N] += A[M][K-slice] @ B[K-slice][N], one K-slice per blockIdx.z, 16x16
// shared tiles, partial sums combined with atomicAdd (C starts zeroed).
extern "C" __global__ void splitk_sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                        float* __restrict__ C, int M, int N, int K, int k_per_split) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int row = blockIdx.y * 16 + threadIdx.y;
  int col = blockIdx.x * 16 + threadIdx.x;
  int k0 = blockIdx.z * k_per_split;
  int k1 = min(K, k0 + k_per_split);
  float acc = 0.0f;
  for (int kt = k0; kt < k1; kt += 16) {
    int ka = kt + threadIdx.x, kb = kt + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ka < k1) ? A[(size_t)row * K + ka] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (kb < k1 && col < N) ? B[(size_t)kb * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) atomicAdd(&C[(size_t)row * N + col], acc);
}
