// Helpers for the corpus sources whose main() runs a library's host code against
// launch_recorder.cpp (see launch_recorder.h).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

#include "launch_recorder.h"

// CUB's two-phase calling convention: a size query (launches nothing), then the call with
// temporary storage, recorded as the sequence `name`.
template <class F>
static void with_temp(const char* name, F call) {
  void* temp = nullptr;
  size_t bytes = 0;
  call(temp, bytes);
  cudaMalloc(&temp, bytes);
  ptxsim_name(temp, "temp");
  ptxsim_begin(name);
  call(temp, bytes);
  cudaFree(temp);
}

template <class T>
static T* alloc(const char* name, size_t count) {
  T* p = nullptr;
  cudaMalloc(&p, count * sizeof(T));
  ptxsim_name(p, name);
  return p;
}
