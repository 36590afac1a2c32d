#!/usr/bin/env python3
"""Inputs and the numpy reference for the README demo (examples/matmul_fp16.sm80.toml).

Triton's fp16 matmul (examples/matmul_fp16.sm80.ptx, copied from tests/corpus/triton, compiled
by tests/corpus/gen/triton for sm_80 with BLOCK 64x64x32, num_warps=4, num_stages=3) at
M = N = K = 256. Entries are integers in [-2, 2], so every product and partial sum is exact in
fp32 and |c| <= 1024 is exact in fp16: the reference is exact in any summation order.

Run: python3 examples/gen_matmul_data.py   (needs numpy; CI does not run it, the .npy files are
committed)
"""
import os

import numpy as np

M = N = K = 256
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "matmul")
os.makedirs(here, exist_ok=True)
rng = np.random.default_rng(20240611)
a = rng.integers(-2, 3, (M, K)).astype(np.float16)
b = rng.integers(-2, 3, (K, N)).astype(np.float16)
c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)
assert np.abs(a.astype(np.float64) @ b.astype(np.float64)).max() <= 1024
np.save(os.path.join(here, "a.npy"), a.ravel())
np.save(os.path.join(here, "b.npy"), b.ravel())
np.save(os.path.join(here, "expected_c.npy"), c.ravel())
print(f"wrote {here}: a, b ({M}x{K}, {K}x{N} fp16), expected_c")
