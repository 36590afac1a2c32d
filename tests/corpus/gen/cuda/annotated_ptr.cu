// L2 cache policies the way library code emits them: CCCL's cuda::annotated_ptr and
// cuda::access_property (createpolicy.fractional/.range + ld/st .L2::cache_hint) and
// cuda::apply_access_property (prefetch.global.L2::evict_last/evict_normal loops).
// Built for sm_80+ only: for sm_75 CCCL leaves an unresolved call to
// __createpolicy_is_not_supported_before_SM_80, which ptxas rejects.
#include <cuda/annotated_ptr>

// out = a*x + y: x streamed, y persisting, out under a range policy over out[0..n) with a
// streaming secondary range.
extern "C" __global__ void annotated_axpy(const float* x, const float* y, float* out, float a, int n)
{
    cuda::annotated_ptr<const float, cuda::access_property::streaming> xs(x);
    cuda::annotated_ptr<const float, cuda::access_property::persisting> yp(y);
    cuda::access_property window(out, n * sizeof(float), 2 * n * sizeof(float), cuda::access_property::persisting{},
                                 cuda::access_property::streaming{});
    cuda::annotated_ptr<float, cuda::access_property> o(out, window);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) o[i] = a * xs[i] + yp[i];
}

// out = 2*x with a 50 % persisting fractional policy on x and the normal property on out.
extern "C" __global__ void annotated_fraction(const int* x, int* out, int n)
{
    cuda::access_property half(cuda::access_property::persisting{}, 0.5f);
    cuda::annotated_ptr<const int, cuda::access_property> xp(x, half);
    cuda::annotated_ptr<int, cuda::access_property::normal> op(out);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) op[i] = xp[i] * 2;
}

// Marks x persisting, sums it (one atomicAdd per thread into out[0]), then resets it to normal.
extern "C" __global__ void apply_property_sum(const int* x, int* out, int n)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) cuda::apply_access_property(x, n * sizeof(int), cuda::access_property::persisting{});
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
    __syncthreads();
    if (threadIdx.x == 0 && blockIdx.x == 0) cuda::apply_access_property(x, n * sizeof(int), cuda::access_property::normal{});
}
