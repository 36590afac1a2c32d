// Integer division and modulo of signed and unsigned 32- and 64-bit values, by variables and
// constants, plus mul.hi and saturating/abs idioms.
extern "C" __global__ void divmod64(const long long* __restrict__ a, const long long* __restrict__ b,
                                    const unsigned long long* __restrict__ ua,
                                    const unsigned long long* __restrict__ ub, long long* __restrict__ out,
                                    int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    long long x = a[i], y = b[i];
    unsigned long long ux = ua[i], uy = ub[i];
    long long* o = out + 12 * i;
    o[0] = x / y;
    o[1] = x % y;
    o[2] = (long long)(ux / uy);
    o[3] = (long long)(ux % uy);
    o[4] = x / 7;
    o[5] = x % 1000003;
    o[6] = (long long)(ux / 10);
    o[7] = (long long)(ux % 3);
    o[8] = __mul64hi(x, y);
    o[9] = (long long)__umul64hi(ux, uy);
    o[10] = llabs(x) + llmin(x, y);
    o[11] = (long long)(ux >> (y & 63)) ^ (x >> (uy & 63));
  }
}

extern "C" __global__ void divmod32(const int* __restrict__ a, const int* __restrict__ b,
                                    const unsigned* __restrict__ ua, const unsigned* __restrict__ ub,
                                    int* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i], y = b[i];
    unsigned ux = ua[i], uy = ub[i];
    int* o = out + 10 * i;
    o[0] = x / y;
    o[1] = x % y;
    o[2] = (int)(ux / uy);
    o[3] = (int)(ux % uy);
    o[4] = x / -9;
    o[5] = x % 13;
    o[6] = (int)(ux / 641u);
    o[7] = __mulhi(x, y);
    o[8] = (int)__umulhi(ux, uy);
    o[9] = __sad(x, y, 5u) + abs(x) % 17;
  }
}
