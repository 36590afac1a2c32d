// Kernels for ptxsim's L2 control surface (issue 31): discard.global.L2 and
// applypriority.global.L2::evict_normal from libcu++ (cuda::discard_memory,
// cuda::apply_access_property) and from inline PTX. Compiled to PTX by gen.sh (nvcc -ptx);
// the PTX is committed because CI has no CUDA tools.
#include <cuda/annotated_ptr>
#include <cuda/discard_memory>

// A block-private scratch buffer: each thread writes its element, the block reads its
// neighbour's, then (discard = 1) the block's scratch lines are discarded with
// cuda::discard_memory: the dirty scratch never needs writing back. Then every thread
// streams `stream_n` floats (a read-only pass that pushes the scratch out of L2).
extern "C" __global__ void scratch_then_stream(float* scratch, const float* in, const float* stream,
                                               int stream_n, float* out, int discard) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  scratch[i] = in[i] * 2.0f;
  __syncthreads();
  float acc = scratch[i ^ 1];
  __syncthreads();
  if (discard && threadIdx.x == 0) {
    cuda::discard_memory(scratch + blockIdx.x * blockDim.x, blockDim.x * sizeof(float));
  }
  for (int k = i; k < stream_n; k += gridDim.x * blockDim.x) acc += stream[k];
  out[i] = acc;
}

// Reads `data` with an evict-last hint through cuda::annotated_ptr (persisting), then gives
// the lines back to normal with cuda::apply_access_property(..., normal): the set-aside is
// free again for the next kernel.
extern "C" __global__ void persist_then_release(const float* data, int n, float* out) {
  cuda::annotated_ptr<const float, cuda::access_property::persisting> p(data);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? p[i] : 0.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::apply_access_property(data + blockIdx.x * blockDim.x, blockDim.x * sizeof(float),
                                cuda::access_property::normal{});
  }
  if (i < n) out[i] = v;
}

// Inline PTX: each thread discards (op = 0) or applies evict_normal to (op = 1) the line at
// `line_bytes * i + offset` bytes into `buf` (offset 0: aligned; 4: a kernel fault).
extern "C" __global__ void inline_l2_control(char* buf, int line_bytes, int offset, int op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  char* p = buf + (size_t)i * line_bytes + offset;
  if (op == 0) {
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(p) : "memory");
  } else {
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(p) : "memory");
  }
}

// Writes `buf`, discards its lines (discard = 1), then reads it back (reread = 1): a
// read-after-discard hazard. With reread = 0 it only writes (and discards): a later kernel
// step reads it, or a stream pushes it out of L2.
extern "C" __global__ void write_discard_read(float* buf, float* out, int reread, int discard) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[i] = (float)i;
  __syncthreads();
  if (discard && threadIdx.x % 32 == 0) {
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(buf + i) : "memory");
  }
  __syncthreads();
  if (reread) out[i] = buf[i];
}

// A read-only stream over `s` (n floats): each thread sums its strided elements; `sink` is
// written only if a sum is the impossible marker, so the only DRAM writes are other data's.
extern "C" __global__ void stream_read(const float* s, int n, float* sink) {
  float acc = 0.0f;
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) acc += s[k];
  if (acc == -12345.0f) sink[blockIdx.x] = acc;
}

// Reads `buf` into `out` (the second step of a multi-step launch).
extern "C" __global__ void copy_out(const float* buf, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = buf[i];
}
