// Bulk asynchronous copies and the Tensor Memory Accelerator (sm_90a), through CCCL's cuda::ptx
// wrappers (the instructions CUTLASS and libcu++ emit):
//  - cp.async.bulk global -> shared::cta with mbarrier complete-tx (expect_tx, try_wait.parity over
//    two phases), shared::cta -> global bulk_group stores, commit_group / wait_group.read / wait_group;
//  - cp.reduce.async.bulk shared::cta -> global: add (u32, f32, f16 .noftz), min (s32, bf16),
//    max (u64), and/or/xor (b32/b64), inc/dec (u32);
//  - cp.async.bulk.tensor 2-D loads and stores and cp.reduce.async.bulk.tensor through
//    __grid_constant__ CUtensorMap parameters (described by the launch), with the 32/64/128-byte
//    swizzle modes (raw shared memory dumped to check placement);
//  - tensor maps built on the device with tensormap.replace in global memory (fence.proxy.tensormap
//    release/acquire) and in shared memory (tensormap.cp_fenceproxy to global), OOB-NaN fill,
//    element strides, cp.async.bulk.prefetch(.tensor).
#include <cuda.h>
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cstdint>

namespace ptx = cuda::ptx;

__device__ __forceinline__ void wait_parity(uint64_t* bar, uint32_t parity)
{
    while (!ptx::mbarrier_try_wait_parity(bar, parity)) {
    }
}

// Each CTA streams CHUNKS chunks of 1024 floats through two shared buffers: thread 0 loads chunk c
// into buffer c % 2 with one bulk copy completed on mbarrier c % 2 (phase c / 2), every thread
// computes 3x + 1 into an output buffer, and thread 0 writes it back with a bulk store.
#define CHUNK 1024
#define CHUNKS 4
extern "C" __global__ void __launch_bounds__(128) bulk_copy_pipeline(const float* in, float* out)
{
    __shared__ alignas(128) float buf[2][CHUNK];
    __shared__ alignas(128) float obuf[CHUNK];
    __shared__ uint64_t bar[2];
    const int t = threadIdx.x;
    const float* src = in + (size_t)blockIdx.x * CHUNKS * CHUNK;
    float* dst = out + (size_t)blockIdx.x * CHUNKS * CHUNK;
    if (t == 0) {
        ptx::mbarrier_init(&bar[0], 1);
        ptx::mbarrier_init(&bar[1], 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    if (t == 0) {
        for (int c = 0; c < 2; ++c) {
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar[c],
                                           CHUNK * 4);
            ptx::cp_async_bulk(ptx::space_shared, ptx::space_global, buf[c], src + c * CHUNK, CHUNK * 4, &bar[c]);
        }
    }
    for (int c = 0; c < CHUNKS; ++c) {
        const int s = c % 2;
        wait_parity(&bar[s], (c / 2) % 2);
        if (t == 0) {
            // The previous bulk store must have read obuf before it is overwritten.
            ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
        }
        __syncthreads();
        for (int i = t; i < CHUNK; i += 128) obuf[i] = 3.0f * buf[s][i] + 1.0f;
        ptx::fence_proxy_async(ptx::space_shared);
        __syncthreads();
        if (t == 0) {
            ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, dst + c * CHUNK, obuf, CHUNK * 4);
            ptx::cp_async_bulk_commit_group();
            if (c + 2 < CHUNKS) {
                ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar[s],
                                               CHUNK * 4);
                ptx::cp_async_bulk(ptx::space_shared, ptx::space_global, buf[s], src + (c + 2) * CHUNK, CHUNK * 4,
                                   &bar[s]);
            }
        }
    }
    if (t == 0) ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());
}

// Every CTA reduces 64-element shared arrays into the same global arrays with each reduction form.
#define RN 64
extern "C" __global__ void __launch_bounds__(64) bulk_reduce_forms(
    uint32_t* add_u32, float* add_f32, int32_t* min_s32, uint64_t* max_u64, uint32_t* and_b32,
    uint64_t* or_b64, uint32_t* xor_b32, uint32_t* inc_u32, uint32_t* dec_u32, __half* add_f16,
    __nv_bfloat16* min_bf16)
{
    __shared__ alignas(16) uint32_t s_add_u32[RN];
    __shared__ alignas(16) float s_add_f32[RN];
    __shared__ alignas(16) int32_t s_min_s32[RN];
    __shared__ alignas(16) uint64_t s_max_u64[RN];
    __shared__ alignas(16) uint32_t s_and_b32[RN];
    __shared__ alignas(16) uint64_t s_or_b64[RN];
    __shared__ alignas(16) uint32_t s_xor_b32[RN];
    __shared__ alignas(16) uint32_t s_inc[RN];
    __shared__ alignas(16) __half s_add_f16[RN];
    __shared__ alignas(16) __nv_bfloat16 s_min_bf16[RN];
    const int t = threadIdx.x, b = blockIdx.x;
    s_add_u32[t] = 1000u * (b + 1) + t;
    s_add_f32[t] = (float)((t - 32) * (b + 1)) * 0.25f;
    s_min_s32[t] = (t * 7 + b * 13) % 50 - 25;
    s_max_u64[t] = ((uint64_t)(t * 31 + b) << 33) | (unsigned)(t ^ b);
    s_and_b32[t] = ~(1u << ((t + b) % 32));
    s_or_b64[t] = 1ull << ((t * 3 + b * 5) % 64);
    s_xor_b32[t] = 0x9E3779B9u * (t + 1) + b;
    s_inc[t] = (unsigned)(t % 5);
    s_add_f16[t] = __float2half((float)(t - 20 + b));
    s_min_bf16[t] = __float2bfloat16((float)(((t * 5 + b * 3) % 40) - 20) * 0.5f);
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (t == 0) {
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, add_u32, s_add_u32, RN * 4);
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, add_f32, s_add_f32, RN * 4);
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_min, min_s32, s_min_s32, RN * 4);
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_max, max_u64, s_max_u64, RN * 8);
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_and_op, and_b32, s_and_b32, RN * 4);
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_or_op, or_b64, s_or_b64, RN * 8);
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_xor_op, xor_b32, s_xor_b32, RN * 4);
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_inc, inc_u32, s_inc, RN * 4);
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_dec, dec_u32, s_inc, RN * 4);
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, add_f16, s_add_f16, RN * 2);
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_min, min_bf16, s_min_bf16, RN * 2);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());
    }
}

// A 32x32 f32 tile per CTA through __grid_constant__ tensor maps: loaded with the map's swizzle
// (128-byte rows), its raw shared image dumped to `raw`, then every element doubled into an
// unswizzled tile that is stored with a tensor store and added once more with a tensor reduction.
extern "C" __global__ void __launch_bounds__(128) tensor_tile_param(
    const __grid_constant__ CUtensorMap in_map, const __grid_constant__ CUtensorMap out_map, float* raw)
{
    __shared__ alignas(1024) float tile[32 * 32];
    __shared__ alignas(128) float res[32 * 32];
    __shared__ uint64_t bar;
    const int t = threadIdx.x;
    const int32_t x = blockIdx.x * 32, y = blockIdx.y * 32;
    if (t == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    if (t == 0) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, sizeof(tile));
        const int32_t coords[2] = {x, y};
        ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, tile, &in_map, coords, &bar);
    }
    wait_parity(&bar, 0);
    const int cta = blockIdx.y * gridDim.x + blockIdx.x;
    for (int i = t; i < 32 * 32; i += 128) raw[cta * 1024 + i] = tile[i];
    // Element (r, c) is at byte r*128 + c*4 before the 128-byte swizzle: 16-byte chunk c/4 XOR r%8.
    for (int i = t; i < 32 * 32; i += 128) {
        const int r = i / 32, c = i % 32;
        const int chunk = (c / 4) ^ (r % 8);
        res[i] = 2.0f * tile[r * 32 + chunk * 4 + c % 4];
    }
    ptx::fence_proxy_async(ptx::space_shared);
    __syncthreads();
    if (t == 0) {
        const int32_t coords[2] = {x, y};
        ptx::cp_async_bulk_tensor(ptx::space_global, ptx::space_shared, &out_map, coords, res);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());
        ptx::cp_reduce_async_bulk_tensor(ptx::space_global, ptx::space_shared, ptx::op_add, &out_map, coords, res);
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());
    }
}

// The swizzle modes' placement: one 8-row box per map (32-, 64- and 128-byte rows of f32 with the
// 32B, 64B and 128B swizzle), each image dumped raw.
extern "C" __global__ void __launch_bounds__(32) swizzle_modes(
    const __grid_constant__ CUtensorMap m32, const __grid_constant__ CUtensorMap m64,
    const __grid_constant__ CUtensorMap m128, uint32_t* raw)
{
    __shared__ alignas(1024) uint32_t box[3][256];
    __shared__ uint64_t bar;
    const int t = threadIdx.x;
    if (t == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    __syncthreads();
    if (t == 0) {
        // 8 rows of 32, 64 and 128 bytes.
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 256 + 512 + 1024);
        const int32_t coords[2] = {4, 2};
        ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, box[0], &m32, coords, &bar);
        ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, box[1], &m64, coords, &bar);
        ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, box[2], &m128, coords, &bar);
    }
    wait_parity(&bar, 0);
    // The three images (64, 128 and 256 words), back to back.
    for (int i = t; i < 64; i += 32) raw[i] = box[0][i];
    for (int i = t; i < 128; i += 32) raw[64 + i] = box[1][i];
    for (int i = t; i < 256; i += 32) raw[192 + i] = box[2][i];
}

// Tensor maps built on the device. Map 0 (in global memory, edited in place with tensormap.replace)
// describes `in` (rows x cols f32) with a 16x8 box and OOB-NaN fill; a box at (-4, rows - 4) is
// loaded and dumped to `fill_out`. Map 1 is built in shared memory and copied to global memory with
// tensormap.cp_fenceproxy, as Triton does: the same tensor with element stride 2 along rows (every
// other row: 4 rows of a box of 8), loaded at (8, 1) and dumped to `stride_out`.
extern "C" __global__ void __launch_bounds__(32) tensor_map_device(
    const float* in, float* fill_out, float* stride_out, CUtensorMap* maps, int rows, int cols)
{
    __shared__ alignas(128) float box[16 * 8];
    __shared__ alignas(128) float sbox[16 * 4];
    __shared__ alignas(128) CUtensorMap smap;
    __shared__ uint64_t bar;
    const int t = threadIdx.x;
    CUtensorMap* g0 = &maps[0];
    CUtensorMap* g1 = &maps[1];
    if (t == 0) {
        ptx::tensormap_replace_global_address(ptx::space_global, g0, in);
        ptx::tensormap_replace_rank(ptx::space_global, g0, 1);
        ptx::tensormap_replace_box_dim(ptx::space_global, g0, ptx::n32_t<0>(), 16);
        ptx::tensormap_replace_box_dim(ptx::space_global, g0, ptx::n32_t<1>(), 8);
        ptx::tensormap_replace_global_dim(ptx::space_global, g0, ptx::n32_t<0>(), cols);
        ptx::tensormap_replace_global_dim(ptx::space_global, g0, ptx::n32_t<1>(), rows);
        ptx::tensormap_replace_global_stride(ptx::space_global, g0, ptx::n32_t<0>(), (int64_t)cols * 4);
        ptx::tensormap_replace_element_stride(ptx::space_global, g0, ptx::n32_t<0>(), 1);
        ptx::tensormap_replace_element_stride(ptx::space_global, g0, ptx::n32_t<1>(), 1);
        ptx::tensormap_replace_elemtype(ptx::space_global, g0, ptx::n32_t<7>());
        ptx::tensormap_replace_fill_mode(ptx::space_global, g0, ptx::n32_t<1>());
        ptx::fence_proxy_tensormap_generic(ptx::sem_release, ptx::scope_gpu);
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    // The shared map starts from zeros (32 threads clear 128 bytes), as Triton's kernels do.
    reinterpret_cast<uint32_t*>(&smap)[t] = 0;
    __syncwarp();
    if (t == 0) {
        ptx::tensormap_replace_global_address(ptx::space_shared, &smap, in);
        ptx::tensormap_replace_rank(ptx::space_shared, &smap, 1);
        ptx::tensormap_replace_box_dim(ptx::space_shared, &smap, ptx::n32_t<0>(), 16);
        ptx::tensormap_replace_box_dim(ptx::space_shared, &smap, ptx::n32_t<1>(), 8);
        ptx::tensormap_replace_global_dim(ptx::space_shared, &smap, ptx::n32_t<0>(), cols);
        ptx::tensormap_replace_global_dim(ptx::space_shared, &smap, ptx::n32_t<1>(), rows);
        ptx::tensormap_replace_global_stride(ptx::space_shared, &smap, ptx::n32_t<0>(), (int64_t)cols * 4);
        ptx::tensormap_replace_element_stride(ptx::space_shared, &smap, ptx::n32_t<0>(), 1);
        ptx::tensormap_replace_element_stride(ptx::space_shared, &smap, ptx::n32_t<1>(), 2);
        ptx::tensormap_replace_elemtype(ptx::space_shared, &smap, ptx::n32_t<7>());
    }
    __syncwarp();
    ptx::tensormap_cp_fenceproxy(ptx::sem_release, ptx::scope_gpu, g1, &smap);
    ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, g0);
    ptx::fence_proxy_tensormap_generic(ptx::sem_acquire, ptx::scope_gpu, g1);
    __syncthreads();
    if (t == 0) {
        const int32_t pc[2] = {0, 0};
        ptx::cp_async_bulk_prefetch_tensor(ptx::space_global, g0, pc);
        ptx::cp_async_bulk_prefetch(in, 256);
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar,
                                       sizeof(box) + sizeof(sbox));
        const int32_t c0[2] = {-4, rows - 4};
        ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, box, g0, c0, &bar);
        const int32_t c1[2] = {8, 1};
        ptx::cp_async_bulk_tensor(ptx::space_shared, ptx::space_global, sbox, g1, c1, &bar);
    }
    wait_parity(&bar, 0);
    for (int i = t; i < 16 * 8; i += 32) fill_out[i] = box[i];
    for (int i = t; i < 16 * 4; i += 32) stride_out[i] = sbox[i];
}
