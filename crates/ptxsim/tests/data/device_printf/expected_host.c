/* The host-side twin of printf_assert.cu's print_values launch (grid 1, block 4, count 3,
 * x[t] = 1.25 t, n[t] = 7 t, big = 10^12): the same printf calls with the same values, in the
 * order the kernel makes them (one warp: lanes 0..2 print the first line, then lane 0 the
 * second). Its output, from the C library's printf, is what ptxsim must print. */
#include <stdio.h>
int main(void) {
    for (int t = 0; t < 3; t++) {
        float x = 1.25f * t;
        int n = 7 * t;
        printf("t=%d x=%.3f n=%u hex=%#x big=%lld s=%s c=%c\n", t, x, (unsigned)n, n,
               1000000000000LL + t, "ok", 'A' + t);
    }
    printf("%5.1e|%-6d|%g\n", 12345.678, -42, 0.5f);
    return 0;
}
