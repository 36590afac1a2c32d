// Host side of the multi-kernel corpus launches (tests/corpus/gen/cuda/launch_recorder.cpp).
//
// A library's host code (CUB's Device* dispatch, CUTLASS's device-level GEMM, Thrust) decides
// which kernels run, with which grid, block, dynamic shared memory, arguments and temporary
// storage. The corpus sources call that host code from a plain `main`, linked against
// launch_recorder.cpp instead of the CUDA runtime (`nvcc -cudart none`): no GPU is touched, and
// every cudaMalloc, cudaMemset*, cudaMemcpy* and kernel launch is written down in order, so
// make_launches.py can turn the sequence into a launch file with [[step]]s.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

// Names an allocation (for the launch file; an allocation keeps the name of its last call).
void ptxsim_name(const void* ptr, const char* name);

// Starts a new recorded sequence called `name` (one launch file per sequence); allocations made
// before it stay visible to it.
void ptxsim_begin(const char* name);
