"""ptxsim.triton: Triton kernels compiled by Triton for sm_80 (CPU only) and run in ptxsim,
against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import triton
import triton.language as tl

import ptxsim
import ptxsim.triton


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    # The fused softmax of Triton's tutorial: one row per program.
    row_idx = tl.program_id(0)
    row_start_ptr = input_ptr + row_idx * input_row_stride
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    row = tl.load(row_start_ptr + col_offsets, mask=mask, other=-float("inf"))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = tl.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    tl.store(output_ptr + row_idx * output_row_stride + col_offsets, numerator / denominator, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                  GROUP_SIZE_M: tl.constexpr):
    # The blocked matmul of Triton's tutorial (grouped program order, masked K tail).
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(c_ptr.dtype.element_ty)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


@triton.jit
def add_table_kernel(x_ptr, table_ptr, out_ptr, n, table_size, BLOCK: tl.constexpr, TABLE_POLICY: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    t = tl.load(table_ptr + offs % table_size, mask=mask, eviction_policy=TABLE_POLICY)
    tl.store(out_ptr + offs, x + t, mask=mask)


def test_vector_add():
    n = 5000  # not a multiple of the block: the tail is masked
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    r = ptxsim.triton.run(add_kernel, lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),), x, y, out, n, BLOCK_SIZE=1024)
    np.testing.assert_array_equal(out, x + y)
    assert (r.kernel, r.grid, r.block, r.shared, r.gpu) == ("add_kernel", (5, 1, 1), (128, 1, 1), 0, "a100")
    # x and y, each read in whole 64-byte L2 fetch granules (the H100's): 20,000 B -> 20,032 B.
    assert r.stats["total"]["dram"]["bytes_read"] == 2 * ((n * 4 + 63) // 64 * 64)


def test_vector_add_num_warps_and_sm90():
    n = 3000
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    r = ptxsim.triton.run(add_kernel, (3,), x, x, out, n, BLOCK_SIZE=1024, num_warps=8, target="sm_90")
    np.testing.assert_array_equal(out, 2 * x)
    assert (r.block, r.gpu) == ((256, 1, 1), "h100")
    compiled = ptxsim.triton.compile(add_kernel, x, x, out, n, BLOCK_SIZE=1024, target="sm_90")
    assert ".target sm_90a" in compiled.ptx and compiled.name == "add_kernel"
    assert compiled.runtime_params == ("x_ptr", "y_ptr", "out_ptr", "n_elements")


def test_softmax():
    rows, cols = 37, 781
    x = np.random.default_rng(2).standard_normal((rows, cols), dtype=np.float32) * 4
    out = np.zeros_like(x)
    block = triton.next_power_of_2(cols)
    r = ptxsim.triton.run(softmax_kernel, (rows,), out, x, x.strides[0] // 4, out.strides[0] // 4, cols,
                          BLOCK_SIZE=block, num_warps=4)
    x64 = x.astype(np.float64)
    want = np.exp(x64 - x64.max(axis=1, keepdims=True))
    want /= want.sum(axis=1, keepdims=True)
    # Triton's exp is ex2.approx and its division div.full (both within 2 ulp): compare within
    # a relative 1e-5 of the exact result.
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=0)
    assert r.grid == (37, 1, 1) and r.block == (128, 1, 1)


def test_matmul_sm80_tensor_cores():
    M, N, K = 96, 80, 72  # not multiples of the blocks: masked rows, columns and K tail
    rng = np.random.default_rng(3)
    # Small integers: fp16 products and fp32 sums are exact in any order, so the result is exact.
    a = rng.integers(-3, 4, (M, K)).astype(np.float16)
    b = rng.integers(-3, 4, (K, N)).astype(np.float16)
    c = np.zeros((M, N), dtype=np.float16)
    meta = dict(BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32, GROUP_SIZE_M=8)
    args = (a, b, c, M, N, K, *(s // 2 for s in a.strides), *(s // 2 for s in b.strides), *(s // 2 for s in c.strides))

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_SIZE_M"]) * triton.cdiv(N, meta["BLOCK_SIZE_N"]),)

    r = ptxsim.triton.run(matmul_kernel, grid, *args, num_warps=4, target="sm_80", **meta)
    want = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(c, want)
    compiled = ptxsim.triton.compile(matmul_kernel, *args, num_warps=4, target="sm_80", **meta)
    # sm_80 code: tensor cores fed by cp.async through dynamic shared memory.
    assert "mma.sync.aligned.m16n8k16" in compiled.ptx and "cp.async" in compiled.ptx
    assert compiled.shared > 0 and r.shared == compiled.shared
    assert r.cp_async_bytes > 0


@triton.jit
def reread_table_kernel(x_ptr, table_ptr, out_ptr, table_blocks, K: tl.constexpr, BLOCK: tl.constexpr,
                        TABLE_POLICY: tl.constexpr):
    # Each program reads a table block, streams K blocks of x, then reads the table block again.
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    t_offs = (pid % table_blocks) * BLOCK + offs
    first = tl.load(table_ptr + t_offs, eviction_policy=TABLE_POLICY)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for k in range(K):
        acc += tl.load(x_ptr + (pid * K + k) * BLOCK + offs)
    # The same block, by an index the compiler cannot prove equal (so the load is not merged).
    again_offs = ((pid + table_blocks) % table_blocks) * BLOCK + offs
    again = tl.load(table_ptr + again_offs, eviction_policy=TABLE_POLICY)
    tl.store(out_ptr + pid * BLOCK + offs, acc + first + again)


def test_evict_last_keeps_the_reused_table_cached(tmp_path):
    # A 64 KiB L2 (a set-aside of 3/4 of it for persisting lines) so the hint shows at a size the
    # CPU runs quickly. Between its two reads of a 4 KiB table block, every program itself
    # streams 128 KiB of x (twice the L2), so without the hint the block is gone whatever the
    # interleaving of the programs; the 32 KiB table fits in the set-aside, so with evict_last it
    # stays.
    gpu = tmp_path / "small-l2.toml"
    gpu.write_text('preset = "a100"\nname = "a100-l2-64k"\npersisting_l2_max_bytes = 49152\n[l2]\nsize_bytes = 65536\n')
    programs, k_blocks, block, table_blocks = 16, 32, 1024, 8
    rng = np.random.default_rng(4)
    x = rng.random(programs * k_blocks * block, dtype=np.float32)
    table = rng.random(table_blocks * block, dtype=np.float32)
    acc = np.zeros((programs, block), dtype=np.float32)
    for k in range(k_blocks):  # the kernel's order of float32 additions
        acc = acc + x.reshape(programs, k_blocks, block)[:, k, :]
    t = table.reshape(table_blocks, block)[np.arange(programs) % table_blocks]
    want = ((acc + t) + t).reshape(-1)
    results = {}
    for policy in ("", "evict_last"):
        out = np.zeros(programs * block, dtype=np.float32)
        results[policy] = ptxsim.triton.run(reread_table_kernel, (programs,), x, table, out, table_blocks,
                                            K=k_blocks, BLOCK=block, TABLE_POLICY=policy, gpu=gpu,
                                            persisting_l2="48KiB")
        np.testing.assert_array_equal(out, want)  # hints never change results
    plain, hinted = results[""], results["evict_last"]
    assert plain.persisting_l2 == hinted.persisting_l2 == 49152
    assert plain.stats["l2_occupancy"]["evict_last"] == 0
    assert hinted.stats["l2_occupancy"]["evict_last"] > 0
    # Triton's evict_last is `ld.global.L1::evict_last.L2::cache_hint` with an evict_last policy:
    # the table's second reads are served by the caches (the SM's L1 keeps the evict_last lines
    # through the stream) and read nothing from DRAM; without the hint they go to DRAM again.
    def table_loads(r):  # run once per thread; x's load runs K times per thread
        lines = [line for line in r.lines
                 if line["instruction"].startswith("ld.global") and line["executions"] == programs * 128]
        return sorted(lines, key=lambda line: line["line"])
    plain_table, hinted_table = table_loads(plain), table_loads(hinted)
    assert len(plain_table) == len(hinted_table) == 4  # two v4 loads per read
    assert all("L1::evict_last" in line["instruction"] for line in hinted_table)
    for line in hinted_table[2:]:
        assert line["dram"]["bytes_read"] == 0
        assert line["l1"]["read_hits"] + line["l2"]["read_hits"] == line["l1"]["read_sectors"] > 0
    for line in plain_table[2:]:
        assert line["dram"]["bytes_read"] > 0
    assert hinted.stats["total"]["dram"]["bytes_read"] < plain.stats["total"]["dram"]["bytes_read"]


def test_errors():
    with pytest.raises(TypeError, match="expected a @triton.jit function"):
        ptxsim.triton.run(lambda: None, (1,))
    with pytest.raises(ValueError, match="expected sm_XX"):
        ptxsim.triton.run(add_kernel, (1,), np.zeros(4, np.float32), np.zeros(4, np.float32),
                          np.zeros(4, np.float32), 4, BLOCK_SIZE=4, target="ampere")
    # A kernel fault in a Triton kernel names its Python source line.
    x = np.zeros(2048, dtype=np.float32)
    with pytest.raises(ptxsim.KernelFault, match=r"out-of-bounds global access .* \(source .*test_triton.py:\d+\)"):
        ptxsim.triton.run(add_kernel, (2,), x, x, x[:100], 2048, BLOCK_SIZE=1024)
