// Integer bit manipulation as users write it: popc/clz/brev/ffs on 32 and 64 bits, bitfield
// extract and insert (compiled patterns and the inline-asm bfe/bfi CUTLASS-style code uses,
// with register positions), bfind, and the predicate-producing lop3 form.

__device__ __forceinline__ unsigned bfe_u32(unsigned x, unsigned pos, unsigned len) {
  unsigned r;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len));
  return r;
}
__device__ __forceinline__ int bfe_s32(int x, unsigned pos, unsigned len) {
  int r;
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(pos), "r"(len));
  return r;
}
__device__ __forceinline__ long long bfe_s64(long long x, unsigned pos, unsigned len) {
  long long r;
  asm("bfe.s64 %0, %1, %2, %3;" : "=l"(r) : "l"(x), "r"(pos), "r"(len));
  return r;
}
__device__ __forceinline__ unsigned bfi_b32(unsigned f, unsigned b, unsigned pos, unsigned len) {
  unsigned r;
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(f), "r"(b), "r"(pos), "r"(len));
  return r;
}
__device__ __forceinline__ unsigned bfind_u32(unsigned x) {
  unsigned r;
  asm("bfind.u32 %0, %1;" : "=r"(r) : "r"(x));
  return r;
}
__device__ __forceinline__ unsigned bfind_s64(long long x) {
  unsigned r;
  asm("bfind.s64 %0, %1;" : "=r"(r) : "l"(x));
  return r;
}
// d = (a & b) | c with the predicate p = (d != 0) & q (PTX ISA 8.2+ `lop3.and`), and
// d = a ^ b ^ c with p = (d != 0) | q (`lop3.or`); returns d + 2*p.
__device__ __forceinline__ unsigned lop3_pred(unsigned a, unsigned b, unsigned c, unsigned q, unsigned* d2) {
  unsigned d, e, pa, po;
  asm("{\n\t.reg .pred q, p;\n\t"
      "setp.ne.u32 q, %4, 0;\n\t"
      "lop3.and.b32 %0|p, %5, %6, %7, 0xEA, q;\n\t"
      "selp.u32 %1, 1, 0, p;\n\t"
      "lop3.or.b32 %2|p, %5, %6, %7, 0x96, q;\n\t"
      "selp.u32 %3, 1, 0, p;\n\t}"
      : "=r"(d), "=r"(pa), "=r"(e), "=r"(po)
      : "r"(q), "r"(a), "r"(b), "r"(c));
  *d2 = e + 2 * po;
  return d + 2 * pa;
}

extern "C" __global__ void int_bits(const unsigned* __restrict__ x, const unsigned long long* __restrict__ y,
                                    unsigned* __restrict__ out, unsigned long long* __restrict__ out64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = x[i];
  unsigned long long w = y[i];
  unsigned pos = v & 31, len = (v >> 5) & 31;
  unsigned* o = out + 16 * i;
  o[0] = __popc(v);
  o[1] = __popcll(w);
  o[2] = __clz(v);
  o[3] = __clzll(w);
  o[4] = __ffs(v);
  o[5] = __ffsll(w);
  o[6] = (v >> 7) & 0x3ffu;             // constant-position bitfield (bfe.u32 or shr/and)
  o[7] = (unsigned)(((int)v << 3) >> 20);  // signed field
  o[8] = bfe_u32(v, pos, len);
  o[9] = (unsigned)bfe_s32((int)v, pos, len);
  o[10] = bfi_b32(v, (unsigned)w, pos, len);
  o[11] = bfind_u32(v);
  o[12] = bfind_s64((long long)w);
  o[13] = (v & ~(0xffu << 8)) | ((unsigned)(w & 0xff) << 8);  // insert a byte (bfi)
  unsigned d2;
  o[14] = lop3_pred(v, (unsigned)w, (unsigned)(w >> 32), (v & 3) == 1 ? 1u : 0u, &d2);
  o[15] = d2;
  unsigned long long* o64 = out64 + 4 * i;
  o64[0] = __brevll(w);
  o64[1] = (unsigned long long)bfe_s64((long long)w, pos + 16, len + 8);
  o64[2] = (w >> 13) & 0xfffffffffull;  // 36-bit field of a 64-bit word
  o64[3] = __brev(v) | ((unsigned long long)__byte_perm(v, (unsigned)w, 0x7531) << 32);
}
