// A gather whose load carries a 256-byte L2 prefetch size (`ld.global.L2::256B`, written with
// inline PTX as a kernel author would to ask L2 for the neighbouring line too). With
// stride 1 the warps read every line the prefetch brings in; with a stride of 256 floats
// (1 KiB) no load ever reads the neighbouring line: the prefetch only costs DRAM traffic.
// PTX: gen_prefetch_size.sh (nvcc -arch=sm_90 -lineinfo -ptx).
extern "C" __global__ void gather_256b(const float* src, float* dst, int stride) {
  int i = threadIdx.x + blockIdx.x * blockDim.x;
  const float* p = src + (long long)i * stride;
  float v;
  asm volatile("ld.global.L2::256B.f32 %0, [%1];" : "=f"(v) : "l"(p));
  dst[i] = v * 2.0f;
}
