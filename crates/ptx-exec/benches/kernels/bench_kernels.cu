// Kernels for the interpreter benchmark (crates/ptx-exec/benches/interp.rs).
// Regenerate the PTX with ./gen.sh (needs nvcc: source ../../../../../shared/tools/cuda-tools.sh).

// ALU-heavy: every thread runs a dependent chain of integer and float arithmetic
// (xorshift, multiply-add, float FMA, compare/select) and writes one word.
extern "C" __global__ void alu_heavy(unsigned* out, int iters)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x + 1;
    float f = (float)x;
    for (int i = 0; i < iters; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x = x * 1664525u + 1013904223u;
        f = fmaf(f, 0.999f, (float)(x & 255));
        f = f > 1000.0f ? f - 1000.0f : f;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x ^ __float_as_uint(f);
}

// Memory-heavy: a grid-stride triad over arrays larger than L2 (c = a + s*b).
extern "C" __global__ void triad(const float* __restrict__ a, const float* __restrict__ b, float* c, float s, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + s * b[i];
}
