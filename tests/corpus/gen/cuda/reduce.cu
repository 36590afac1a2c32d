// Block reductions: __ldg grid-stride loads, warp shuffles, shared memory and atomics.
// Integer inputs (or integer-valued floats) make every sum exact in any order.

template <int BLOCK>
__global__ void block_reduce_sum(const int* __restrict__ in, int* __restrict__ partial, int n)
{
    __shared__ int warp_sums[BLOCK / 32];
    int sum = 0;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) sum += __ldg(in + i);
    for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sum;
    __syncthreads();
    if (threadIdx.x < 32) {
        sum = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : 0;
        for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
        if (threadIdx.x == 0) __stcg(partial + blockIdx.x, sum);
    }
}
template __global__ void block_reduce_sum<256>(const int*, int*, int);
template __global__ void block_reduce_sum<128>(const int*, int*, int);

// Float sum with one atomicAdd per block (red.global.add.f32), streamed loads.
extern "C" __global__ void reduce_sum_atomic_f32(const float* __restrict__ in, float* out, int n)
{
    __shared__ float s[256];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += __ldcs(in + i);
    s[threadIdx.x] = v;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, s[0]);
}

// Max and min of unsigned values with warp votes and atomics; also counts elements above a threshold.
extern "C" __global__ void reduce_max_count(const unsigned* __restrict__ in, unsigned* out, unsigned threshold, int n)
{
    unsigned mx = 0, mn = 0xffffffffu, cnt = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned v = __ldg(in + i);
        mx = max(mx, v);
        mn = min(mn, v);
        cnt += __popc(__ballot_sync(__activemask(), v > threshold)) * ((threadIdx.x & 31) == (__ffs(__activemask()) - 1));
    }
    for (int o = 16; o > 0; o >>= 1) {
        mx = max(mx, __shfl_xor_sync(0xffffffffu, mx, o));
        mn = min(mn, __shfl_xor_sync(0xffffffffu, mn, o));
    }
    if ((threadIdx.x & 31) == 0) {
        atomicMax(out + 0, mx);
        atomicMin(out + 1, mn);
    }
    if (cnt) atomicAdd(out + 2, cnt);
}
