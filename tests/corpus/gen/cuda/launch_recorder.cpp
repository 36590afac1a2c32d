// A stand-in for the CUDA runtime that records what a library's host code asks the GPU to do.
//
// Linked (`nvcc -cudart none ... launch_recorder.cpp`) into the host program of a corpus source
// whose kernels are launched by library host code (CUB Device* algorithms, CUTLASS device GEMMs,
// Thrust). Nothing runs on a GPU: cudaMalloc hands out host memory that is never touched by the
// kernels, launches are written down with the exact parameter bytes the launch passes, and the
// device reports the attributes of the GPU the target names (A100 for sm_80, H100 SXM for sm_90,
// T4 for sm_75), so the library picks the tuning policy, grid sizes and temporary storage it would
// pick on that GPU. make_launches.py turns the record into launch files (docs/launch-format.md,
// multi-step launches), with numpy references; nothing here computes a result.
//
// Environment:
//   PTXSIM_RECORD       where to write the record (JSON)
//   PTXSIM_KERNELS      a file of "mangled-name regs static-shared-bytes : param-size ..." lines
//                       (from the PTX and `ptxas -v`), for the size of each launch argument and
//                       for cudaFuncGetAttributes / occupancy
//   PTXSIM_ARCH         75, 80 or 90
//
// Device pointers inside by-value arguments (structs holding pointers, iterators) are found by
// value: every 8-byte aligned word that points into a live allocation is written as a reference
// to it. Allocations are never reused, so an address names one allocation.
#include "launch_recorder.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Allocation {
  uintptr_t base;
  size_t size;
  std::string name;
  bool live;
};

struct KernelInfo {
  int regs = 32;
  int static_shared = 0;
  std::vector<size_t> param_sizes;
};

struct Recorder {
  std::vector<Allocation> allocs;
  std::map<const void*, std::string> names;  // host stub -> mangled name
  std::map<std::string, KernelInfo> kernels;
  std::vector<std::pair<std::string, std::vector<std::string>>> sequences;  // name, steps (JSON)
  int arch = 80;
  bool loaded = false;
  struct {
    dim3 grid, block;
    size_t shared;
  } pending[8];
  int depth = 0;

  void load() {
    if (loaded) return;
    loaded = true;
    if (const char* a = getenv("PTXSIM_ARCH")) arch = atoi(a);
    const char* path = getenv("PTXSIM_KERNELS");
    if (!path) die("PTXSIM_KERNELS is not set");
    std::ifstream in(path);
    if (!in) die(std::string("cannot read ") + path);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ss(line);
      std::string name, colon;
      KernelInfo k;
      ss >> name >> k.regs >> k.static_shared >> colon;
      size_t s;
      while (ss >> s) k.param_sizes.push_back(s);
      if (!name.empty()) kernels[name] = k;
    }
  }

  [[noreturn]] static void die(const std::string& msg) {
    fprintf(stderr, "launch_recorder: %s\n", msg.c_str());
    exit(3);
  }

  std::vector<std::string>& steps() {
    if (sequences.empty()) die("a launch or memset before ptxsim_begin");
    return sequences.back().second;
  }

  // (allocation index, offset) of an address inside a live allocation (end included).
  bool find(uintptr_t v, size_t& idx, size_t& off) const {
    for (size_t i = 0; i < allocs.size(); ++i) {
      const Allocation& a = allocs[i];
      if (a.live && v >= a.base && v <= a.base + a.size) {
        idx = i;
        off = v - a.base;
        return true;
      }
    }
    return false;
  }

  std::string ref(size_t idx, size_t off) const {
    std::ostringstream o;
    o << "{\"alloc\": " << idx << ", \"offset\": " << off << "}";
    return o.str();
  }

  std::string param(const void* p, size_t size) const {
    static const char* hex = "0123456789abcdef";
    const unsigned char* b = static_cast<const unsigned char*>(p);
    std::string h;
    std::ostringstream ptrs;
    for (size_t i = 0; i < size; ++i) {
      h += hex[b[i] >> 4];
      h += hex[b[i] & 15];
    }
    bool first = true;
    for (size_t i = 0; i + 8 <= size; i += 8) {
      uint64_t v;
      memcpy(&v, b + i, 8);
      size_t idx, off;
      if (v != 0 && find(v, idx, off)) {
        ptrs << (first ? "" : ", ") << "{\"at\": " << i << ", \"alloc\": " << idx << ", \"offset\": " << off << "}";
        first = false;
      }
    }
    return "{\"hex\": \"" + h + "\", \"pointers\": [" + ptrs.str() + "]}";
  }

  void launch(const void* fn, dim3 g, dim3 b, void** args, size_t shared, const char* how) {
    load();
    auto n = names.find(fn);
    if (n == names.end()) die("launch of an unregistered kernel");
    auto k = kernels.find(n->second);
    if (k == kernels.end()) die("kernel " + n->second + " is not in PTXSIM_KERNELS (not in the PTX?)");
    std::ostringstream o;
    o << "{\"op\": \"launch\", \"how\": \"" << how << "\", \"kernel\": \"" << n->second << "\", \"grid\": [" << g.x
      << ", " << g.y << ", " << g.z << "], \"block\": [" << b.x << ", " << b.y << ", " << b.z
      << "], \"shared\": " << shared << ", \"params\": [";
    for (size_t i = 0; i < k->second.param_sizes.size(); ++i)
      o << (i ? ", " : "") << param(args[i], k->second.param_sizes[i]);
    o << "]}";
    steps().push_back(o.str());
  }

  void memset(void* p, int value, size_t count) {
    size_t idx, off;
    if (!find(reinterpret_cast<uintptr_t>(p), idx, off)) die("cudaMemset of memory that was not allocated");
    if (off + count > allocs[idx].size) die("cudaMemset past the end of an allocation");
    std::ostringstream o;
    o << "{\"op\": \"memset\", \"alloc\": " << idx << ", \"offset\": " << off << ", \"value\": " << (value & 255)
      << ", \"bytes\": " << count << "}";
    steps().push_back(o.str());
  }

  void copy(void* dst, const void* src, size_t count) {
    size_t di, doff, si, soff;
    if (!find(reinterpret_cast<uintptr_t>(dst), di, doff) || !find(reinterpret_cast<uintptr_t>(src), si, soff))
      die("cudaMemcpy other than device to device");
    if (doff + count > allocs[di].size || soff + count > allocs[si].size) die("cudaMemcpy past an allocation's end");
    std::ostringstream o;
    o << "{\"op\": \"copy\", \"alloc\": " << di << ", \"offset\": " << doff << ", \"src_alloc\": " << si
      << ", \"src_offset\": " << soff << ", \"bytes\": " << count << "}";
    steps().push_back(o.str());
  }

  ~Recorder() {
    const char* path = getenv("PTXSIM_RECORD");
    if (!path) return;
    FILE* f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "{\"arch\": %d, \"allocations\": [", arch);
    for (size_t i = 0; i < allocs.size(); ++i)
      fprintf(f, "%s\n  {\"name\": \"%s\", \"bytes\": %zu}", i ? "," : "", allocs[i].name.c_str(), allocs[i].size);
    fprintf(f, "],\n\"sequences\": [");
    for (size_t s = 0; s < sequences.size(); ++s) {
      fprintf(f, "%s\n {\"name\": \"%s\", \"steps\": [", s ? "," : "", sequences[s].first.c_str());
      for (size_t i = 0; i < sequences[s].second.size(); ++i)
        fprintf(f, "%s\n  %s", i ? "," : "", sequences[s].second[i].c_str());
      fprintf(f, "]}");
    }
    fprintf(f, "]}\n");
    fclose(f);
  }
};

Recorder& rec() {
  static Recorder r;
  return r;
}

// The GPU a target names, as cudaDeviceGetAttribute reports it.
struct Gpu {
  int sms, smem_per_sm, smem_per_block, smem_optin, threads_per_sm, blocks_per_sm, regs_per_sm, l2;
};

Gpu gpu() {
  switch (rec().arch) {
    case 75: return {40, 65536, 49152, 65536, 1024, 16, 65536, 4 << 20};            // T4
    case 90: return {132, 233472, 49152, 232448, 2048, 32, 65536, 50 << 20};       // H100 SXM
    default: return {108, 167936, 49152, 166912, 2048, 32, 65536, 40 << 20};       // A100
  }
}

int occupancy(const KernelInfo& k, int block, size_t dyn) {
  Gpu g = gpu();
  int warps = (block + 31) / 32;
  int by_threads = g.threads_per_sm / (warps * 32);
  int regs_per_warp = ((k.regs < 1 ? 1 : k.regs) * 32 + 255) / 256 * 256;
  int by_regs = g.regs_per_sm / (regs_per_warp * warps);
  size_t smem = k.static_shared + dyn;
  int by_smem = smem ? static_cast<int>(g.smem_per_sm / ((smem + 127) / 128 * 128 + 1024)) : g.blocks_per_sm;
  int n = g.blocks_per_sm;
  if (by_threads < n) n = by_threads;
  if (by_regs < n) n = by_regs;
  if (by_smem < n) n = by_smem;
  return n;
}

const KernelInfo& info(const void* fn) {
  Recorder& r = rec();
  r.load();
  auto n = r.names.find(fn);
  if (n == r.names.end()) Recorder::die("attributes of an unregistered kernel");
  auto k = r.kernels.find(n->second);
  if (k == r.kernels.end()) Recorder::die("kernel " + n->second + " is not in PTXSIM_KERNELS");
  return k->second;
}

}  // namespace

void ptxsim_name(const void* ptr, const char* name) {
  size_t idx, off;
  if (!rec().find(reinterpret_cast<uintptr_t>(ptr), idx, off) || off != 0)
    Recorder::die(std::string("ptxsim_name: not an allocation: ") + name);
  rec().allocs[idx].name = name;
}

void ptxsim_begin(const char* name) {
  rec().load();
  rec().sequences.push_back({name, {}});
}

extern "C" {

void** __cudaRegisterFatBinary(void*) {
  static void* handle = nullptr;
  return &handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterVar(void**, char*, char*, const char*, int, size_t, int, int) {}
void __cudaRegisterFunction(void**, const char* hostFun, char*, const char* deviceName, int, uint3*, uint3*, dim3*,
                            dim3*, int*) {
  rec().names[hostFun] = deviceName;
}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, struct CUstream_st*) {
  Recorder& r = rec();
  if (r.depth == 8) Recorder::die("too many nested launch configurations");
  r.pending[r.depth++] = {grid, block, shared};
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
  Recorder& r = rec();
  if (r.depth == 0) Recorder::die("pop without a push");
  --r.depth;
  *grid = r.pending[r.depth].grid;
  *block = r.pending[r.depth].block;
  *shared = r.pending[r.depth].shared;
  *static_cast<cudaStream_t*>(stream) = nullptr;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* handle, const void* fn) {
  *handle = reinterpret_cast<cudaKernel_t>(const_cast<void*>(fn));
  return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t) {
  rec().launch(reinterpret_cast<const void*>(kernel), grid, block, args, shared, "chevron");
  return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void* fn, dim3 grid, dim3 block, void** args, size_t shared, cudaStream_t) {
  rec().launch(fn, grid, block, args, shared, "cudaLaunchKernel");
  return cudaSuccess;
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* fn, void** args) {
  // Programmatic dependent launch (an attribute CUB sets on sm_90) only lets the next grid start
  // early; the grids still run in order, which is what the launch file does.
  rec().launch(fn, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, "cudaLaunchKernelEx");
  return cudaSuccess;
}

cudaError_t cudaMalloc(void** p, size_t size) {
  Recorder& r = rec();
  size_t rounded = (size + 255) / 256 * 256 + 256;  // distinct, never adjacent: one-past-end is unambiguous
  void* mem = aligned_alloc(256, rounded);
  if (!mem) return cudaErrorMemoryAllocation;
  memset(mem, 0, rounded);
  r.allocs.push_back({reinterpret_cast<uintptr_t>(mem), size, "alloc" + std::to_string(r.allocs.size()), true});
  *p = mem;
  return cudaSuccess;
}

cudaError_t cudaFree(void* p) {
  if (!p) return cudaSuccess;
  size_t idx, off;
  if (!rec().find(reinterpret_cast<uintptr_t>(p), idx, off) || off != 0) Recorder::die("cudaFree of a bad pointer");
  rec().allocs[idx].live = false;  // never reused (the memory leaks on purpose)
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* p, int value, size_t count, cudaStream_t) {
  rec().memset(p, value, count);
  return cudaSuccess;
}

cudaError_t cudaMemset(void* p, int value, size_t count) {
  rec().memset(p, value, count);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t) {
  size_t idx, off;
  bool dst_dev = rec().find(reinterpret_cast<uintptr_t>(dst), idx, off);
  bool src_dev = rec().find(reinterpret_cast<uintptr_t>(src), idx, off);
  if (src_dev && !dst_dev && (kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDefault)) {
    // A result the host code reads back (Thrust's reduce_by_key reads the number of runs to
    // return its end iterators). Nothing ran, so the host sees zeros; the record notes the read,
    // and the device outputs the launch file checks do not depend on it.
    memset(dst, 0, count);
    rec().steps().push_back("{\"op\": \"host_read\", \"alloc\": " + std::to_string(idx) + ", \"offset\": " +
                            std::to_string(off) + ", \"bytes\": " + std::to_string(count) + "}");
    return cudaSuccess;
  }
  if (!dst_dev || !src_dev) Recorder::die("cudaMemcpy: only device-to-device copies and reads back are recorded");
  rec().copy(dst, src, count);
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  return cudaMemcpyAsync(dst, src, count, kind, nullptr);
}

cudaError_t cudaGetDevice(int* d) {
  *d = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int) { return cudaSuccess; }
cudaError_t cudaGetDeviceCount(int* n) {
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaGetLastError() { return cudaSuccess; }
cudaError_t cudaPeekAtLastError() { return cudaSuccess; }
cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
const char* cudaGetErrorString(cudaError_t) { return "launch_recorder"; }
const char* cudaGetErrorName(cudaError_t) { return "launch_recorder"; }
cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int) {
  rec().load();
  Gpu g = gpu();
  switch (attr) {
    case cudaDevAttrMultiProcessorCount: *value = g.sms; break;
    case cudaDevAttrComputeCapabilityMajor: *value = rec().arch / 10; break;
    case cudaDevAttrComputeCapabilityMinor: *value = rec().arch % 10; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = g.smem_per_block; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = g.smem_optin; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = g.smem_per_sm; break;
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = g.threads_per_sm; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = g.blocks_per_sm; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = 65536; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = g.regs_per_sm; break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrL2CacheSize: *value = g.l2; break;
    case cudaDevAttrMaxGridDimX: *value = 0x7fffffff; break;
    case cudaDevAttrMaxGridDimY:
    case cudaDevAttrMaxGridDimZ: *value = 65535; break;
    case cudaDevAttrMaxBlockDimX:
    case cudaDevAttrMaxBlockDimY: *value = 1024; break;
    case cudaDevAttrMaxBlockDimZ: *value = 64; break;
    default: Recorder::die("cudaDeviceGetAttribute: attribute " + std::to_string(static_cast<int>(attr)));
  }
  return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* fn) {
  rec().load();
  memset(attr, 0, sizeof(*attr));
  const Recorder& r = rec();
  auto n = r.names.find(fn);
  if (n != r.names.end()) {
    auto k = r.kernels.find(n->second);
    if (k != r.kernels.end()) {
      attr->numRegs = k->second.regs;
      attr->sharedSizeBytes = k->second.static_shared;
    }
  }
  attr->maxThreadsPerBlock = 1024;
  attr->ptxVersion = r.arch;
  attr->binaryVersion = r.arch;
  attr->maxDynamicSharedSizeBytes = gpu().smem_optin;
  return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) { return cudaSuccess; }

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* n, const void* fn, int block, size_t dyn,
                                                                  unsigned) {
  *n = occupancy(info(fn), block, dyn);
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* n, const void* fn, int block, size_t dyn) {
  *n = occupancy(info(fn), block, dyn);
  return cudaSuccess;
}

}  // extern "C"
