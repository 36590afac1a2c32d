#!/usr/bin/env python3
"""Generates the table-under-stream kernel of the real-size checks (tests/realsize/README.md):
Triton's PTX for sm_90 of

    out[i] = x[i] + t[i % ts]      (f32; BLOCK elements per program, 4 warps)

with `tl.load(..., eviction_policy=...)` on x and on t and a plain store, one PTX file per
hint pair: table_stream.<x_policy>.<t_policy>.sm90.ptx (`none` for no hint).

Run from the repository root with the CUDA tools on PATH (`source ../shared/tools/cuda-tools.sh`):
    python3 tests/realsize/gen_table_stream.py
"""
import os

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

HERE = os.path.dirname(os.path.abspath(__file__))
BLOCK = 1024
POLICIES = [("none", "none"), ("evict_first", "none"), ("none", "evict_last"), ("evict_first", "evict_last")]


@triton.jit
def table_stream(x_ptr, t_ptr, out_ptr, n, ts, BLOCK: tl.constexpr, X_POLICY: tl.constexpr, T_POLICY: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, eviction_policy=X_POLICY)
    t = tl.load(t_ptr + offs % ts, mask=mask, eviction_policy=T_POLICY)
    tl.store(out_ptr + offs, x + t, mask=mask)


def main():
    target = GPUTarget("cuda", 90, 32)
    for xp, tp in POLICIES:
        signature = {"x_ptr": "*fp32", "t_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32", "ts": "i32",
                     "BLOCK": "constexpr", "X_POLICY": "constexpr", "T_POLICY": "constexpr"}
        constexprs = {"BLOCK": BLOCK, "X_POLICY": "" if xp == "none" else xp, "T_POLICY": "" if tp == "none" else tp}
        k = triton.compile(ASTSource(table_stream, signature, constexprs), target=target, options={"num_warps": 4})
        path = os.path.join(HERE, f"table_stream.{xp}.{tp}.sm90.ptx")
        with open(path, "w") as f:
            f.write(k.asm["ptx"])
        print(path, "shared", k.metadata.shared, "name", k.metadata.name)


if __name__ == "__main__":
    main()
