"""Tensor descriptors through ptxsim.triton: device-side descriptors (tensor maps built by the
kernel in Triton's global scratch buffer, which `run` allocates) and host-side descriptors
(`tensor_descriptor`, passed as a tensor map on sm_90 and decomposed on sm_80), against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import triton
import triton.language as tl

import ptxsim
import ptxsim.triton


@triton.jit
def desc_copy(in_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x_desc = tl.make_tensor_descriptor(in_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    x = x_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    y_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], x * 2.0 + 1.0)


@triton.jit
def host_desc_scale(a_desc, c_desc, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = a_desc.load([pid_m * BLOCK_M, pid_n * BLOCK_N])
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], x * 3.0 - 2.0)


@triton.jit
def desc_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        acc = tl.dot(a_desc.load([pid_m * BLOCK_M, k * BLOCK_K]), b_desc.load([k * BLOCK_K, pid_n * BLOCK_N]), acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_device_descriptors_get_their_global_scratch(target):
    m, n = 70, 48  # not multiples of the block: the last boxes run out of bounds
    x = (np.arange(m * n, dtype=np.float32).reshape(m, n) - 1000) / 4
    out = np.zeros_like(x)
    compiled = ptxsim.triton.compile(desc_copy, x, out, m, n, BLOCK_M=32, BLOCK_N=32, target=target)
    if target == "sm_90":
        assert "tensormap.replace" in compiled.ptx and "cp.async.bulk.tensor" in compiled.ptx
        assert compiled.global_scratch_size > 0
    ptxsim.triton.run(desc_copy, (3, 2), x, out, m, n, BLOCK_M=32, BLOCK_N=32, target=target)
    np.testing.assert_array_equal(out, 2 * x + 1)


def test_device_descriptor_matmul_with_wgmma():
    m, n, k = 80, 64, 72  # K is not a multiple of BLOCK_K: the last K box is zero-filled
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, (m, k)).astype(np.float16)
    b = rng.integers(-3, 4, (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float16)
    r = ptxsim.triton.run(desc_matmul, (2, 1), a, b, c, m, n, k, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32,
                          target="sm_90", num_stages=2)
    np.testing.assert_array_equal(c, (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16))
    assert r.gpu == "h100"


@pytest.mark.parametrize("target", ["sm_80", "sm_90"])
def test_host_descriptors(target):
    m, n = 64, 120
    rng = np.random.default_rng(4)
    a = rng.integers(-500, 500, (m, n)).astype(np.float16)
    c = np.zeros_like(a)
    a_desc = ptxsim.triton.tensor_descriptor(a, [32, 64])
    c_desc = ptxsim.triton.tensor_descriptor(c, [32, 64])
    compiled = ptxsim.triton.compile(host_desc_scale, a_desc, c_desc, BLOCK_M=32, BLOCK_N=64, target=target)
    if target == "sm_90":
        assert [m["block_size"] for m in compiled.tensordesc_meta] == [[32, 64], [32, 64]]
        assert ".b8 host_desc_scale_param_0[128]" in compiled.ptx
    ptxsim.triton.run(host_desc_scale, (2, 2), a_desc, c_desc, BLOCK_M=32, BLOCK_N=64, target=target)
    np.testing.assert_array_equal(c, (3 * a.astype(np.float64) - 2).astype(np.float16))


def test_tensor_map_keys_and_errors():
    x = np.zeros((16, 40), np.uint32)
    t = ptxsim.TensorMap(x, [8, 32], swizzle=128)
    assert "dims=40x16" in repr(t) and "box=32x8" in repr(t) and "strides=160" in repr(t)
    with pytest.raises(ptxsim.LaunchError, match="give elem="):
        ptxsim.TensorMap(np.zeros(4, np.complex64), [4])
    with pytest.raises(ptxsim.LaunchError, match="innermost stride"):
        ptxsim.TensorMap(x, [8, 8], strides=[1, 40])
