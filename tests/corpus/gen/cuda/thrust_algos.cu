// Thrust algorithms as users call them on device memory (thrust::device execution policy over
// raw device pointers): transform, reduce_by_key, sort with a user comparator
// (merge sort) and stable_sort_by_key. main() runs Thrust's host code against
// launch_recorder.cpp, which records every launch, its temporary allocations and copies.
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/functional.h>

#include "cub_common.cuh"

constexpr int kN = 5000;

struct Saxpy {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

// Orders by absolute value, then by value (a strict weak order with no equal pairs but x, x).
struct AbsLess {
  __host__ __device__ bool operator()(int x, int y) const {
    int ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
    return ax < ay || (ax == ay && x < y);
  }
};

int main() {
  {
    float* x = alloc<float>("x", kN);
    float* y = alloc<float>("y", kN);
    float* out = alloc<float>("out", kN);
    ptxsim_begin("transform_saxpy");
    thrust::transform(thrust::device, x, x + kN, y, out, Saxpy{2.5f});
  }
  {
    int* keys = alloc<int>("keys", kN);
    int* vals = alloc<int>("values", kN);
    int* keys_out = alloc<int>("keys_out", kN);
    int* sums = alloc<int>("sums", kN);
    ptxsim_begin("reduce_by_key");
    thrust::reduce_by_key(thrust::device, keys, keys + kN, vals, keys_out, sums);
  }
  {
    int* v = alloc<int>("data", kN);
    ptxsim_begin("sort_custom_comparator");
    thrust::sort(thrust::device, v, v + kN, AbsLess{});
  }
  {
    float* k = alloc<float>("keys", kN);
    int* v = alloc<int>("values", kN);
    ptxsim_begin("stable_sort_by_key");
    thrust::stable_sort_by_key(thrust::device, k, k + kN, v);
  }
  return 0;
}
