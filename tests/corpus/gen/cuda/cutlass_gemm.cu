// CUTLASS 2.x device-level GEMMs as users instantiate them (cutlass::gemm::device::Gemm) for
// SM80 tensor cores: fp16 inputs with fp32 accumulation (mma.sync m16n8k16), and fp32 inputs
// through tf32 (mma.sync m16n8k8), each with 128x128x32 threadblock tiles, 64x64x32 warp tiles,
// a 3-stage cp.async multistage mainloop (16-byte cp.async.cg into swizzled shared memory,
// ldmatrix to registers) and the LinearCombination epilogue D = alpha * A B + beta * C through
// shared memory. main() runs CUTLASS's host-side operator() against launch_recorder.cpp, which
// records the kernel launch (grid, shared memory size, the Params struct it passes).
#include <cutlass/gemm/device/gemm.h>

#include "launch_recorder.h"

using RowMajor = cutlass::layout::RowMajor;
using ColumnMajor = cutlass::layout::ColumnMajor;

template <class Element, int kInstK>
using Sm80Gemm = cutlass::gemm::device::Gemm<
    Element, RowMajor, Element, ColumnMajor, float, RowMajor, float, cutlass::arch::OpClassTensorOp,
    cutlass::arch::Sm80, cutlass::gemm::GemmShape<128, 128, 32>, cutlass::gemm::GemmShape<64, 64, 32>,
    cutlass::gemm::GemmShape<16, 8, kInstK>, cutlass::epilogue::thread::LinearCombination<float, 4, float, float>,
    cutlass::gemm::threadblock::GemmIdentityThreadblockSwizzle<>, 3>;

constexpr int kM = 256, kN = 128, kK = 128;

template <class Gemm, class Element>
static void run(const char* name) {
  Element *A, *B;
  float *C, *D;
  cudaMalloc(&A, kM * kK * sizeof(Element));
  ptxsim_name(A, "A");
  cudaMalloc(&B, kK * kN * sizeof(Element));
  ptxsim_name(B, "B");
  cudaMalloc(&C, kM * kN * sizeof(float));
  ptxsim_name(C, "C");
  cudaMalloc(&D, kM * kN * sizeof(float));
  ptxsim_name(D, "D");
  ptxsim_begin(name);
  Gemm gemm;
  // A row-major M x K, B column-major K x N, C and D row-major M x N.
  typename Gemm::Arguments args({kM, kN, kK}, {A, kK}, {B, kK}, {C, kN}, {D, kN}, {2.0f, -1.0f});
  if (gemm(args) != cutlass::Status::kSuccess) exit(1);
  cudaFree(A);
  cudaFree(B);
  cudaFree(C);
  cudaFree(D);
}

int main() {
  run<Sm80Gemm<cutlass::half_t, 16>, cutlass::half_t>("gemm_f16_f32");
  run<Sm80Gemm<float, 8>, float>("gemm_tf32");
  return 0;
}
