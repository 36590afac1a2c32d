#include <cstdio>
#include <cassert>
// Device printf and assert, as kernel authors use them to debug.
extern "C" __global__ void print_values(const float* x, const int* n, long long big, int count) {
    int t = threadIdx.x + blockIdx.x * blockDim.x;
    if (t < count) {
        printf("t=%d x=%.3f n=%u hex=%#x big=%lld s=%s c=%c\n", t, x[t], (unsigned)n[t], n[t], big + t, "ok", 'A' + t);
    }
    if (t == 0) printf("%5.1e|%-6d|%g\n", 12345.678, -42, 0.5f);
}
extern "C" __global__ void check_positive(const int* v, int count) {
    int t = threadIdx.x;
    if (t < count) {
        printf("checking %d\n", v[t]);
        assert(v[t] > 0);
    }
}
