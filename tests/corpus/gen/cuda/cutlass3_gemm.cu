// CUTLASS 3.x GEMM for Hopper built with the collective builders, with the cp.async
// warp-specialized mainloop (KernelCpAsyncWarpSpecialized: no TMA) and the epilogue that writes
// straight from registers (NoSmemWarpSpecialized): producer warps load tiles with cp.async into
// a multi-stage shared-memory pipeline guarded by mbarriers, consumer warpgroups run wgmma.
#include <cute/tensor.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/util/packed_stride.hpp>

#include "launch_recorder.h"

using namespace cute;
using TileShape = Shape<_128, _128, _64>;
using ClusterShape = Shape<_1, _1, _1>;
using Mainloop = cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, cutlass::half_t, cutlass::layout::RowMajor, 8,
    cutlass::half_t, cutlass::layout::ColumnMajor, 8, float, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAuto, cutlass::gemm::KernelCpAsyncWarpSpecialized>::CollectiveOp;
using Epilogue = cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, float, float, float, cutlass::layout::RowMajor, 4, float,
    cutlass::layout::RowMajor, 4, cutlass::epilogue::NoSmemWarpSpecialized>::CollectiveOp;
using Kernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, Mainloop, Epilogue>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

constexpr int kM = 256, kN = 128, kK = 128;

int main() {
  cutlass::half_t *A, *B;
  float *C, *D;
  cudaMalloc(&A, kM * kK * sizeof(cutlass::half_t));
  ptxsim_name(A, "A");
  cudaMalloc(&B, kK * kN * sizeof(cutlass::half_t));
  ptxsim_name(B, "B");
  cudaMalloc(&C, kM * kN * sizeof(float));
  ptxsim_name(C, "C");
  cudaMalloc(&D, kM * kN * sizeof(float));
  ptxsim_name(D, "D");
  auto sA = cutlass::make_cute_packed_stride(typename Kernel::StrideA{}, make_shape(kM, kK, 1));
  auto sB = cutlass::make_cute_packed_stride(typename Kernel::StrideB{}, make_shape(kN, kK, 1));
  auto sC = cutlass::make_cute_packed_stride(typename Kernel::StrideC{}, make_shape(kM, kN, 1));
  auto sD = cutlass::make_cute_packed_stride(typename Kernel::StrideD{}, make_shape(kM, kN, 1));
  typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm,
                                {kM, kN, kK, 1},
                                {A, sA, B, sB},
                                {{2.0f, -1.0f}, C, sC, D, sD}};
  Gemm gemm;
  size_t ws = Gemm::get_workspace_size(args);
  void* workspace = nullptr;
  cudaMalloc(&workspace, ws > 0 ? ws : 1);
  ptxsim_name(workspace, "workspace");
  ptxsim_begin("gemm_f16_f32_cpasync_ws");
  if (gemm.initialize(args, workspace) != cutlass::Status::kSuccess) exit(1);
  if (gemm.run() != cutlass::Status::kSuccess) exit(2);
  return 0;
}
