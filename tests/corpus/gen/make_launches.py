"""Launch files (docs/launch-format.md) with inputs and numpy reference outputs for every corpus
kernel: tests/corpus/run/<generator>.<ptx stem>.<kernel>.toml and tests/corpus/run/data/.

Every expected output is computed here by numpy from the kernel's documented semantics (the
comment above each spec says what the kernel does and which PTX rule the result follows); nothing
comes from ptxsim. Seeds are fixed per kernel (crc32 of its name), so the data never changes
unless the spec here changes.

Exactness: integer kernels and IEEE-exact float kernels get max_ulp = 0. Float inputs are chosen
so that every IEEE operation is exact or correctly rounded in numpy the same way (small integers,
quarters, products that fit in 24 bits), which makes the result independent of summation order,
FMA contraction and reduction trees. Only kernels using .approx instructions (Triton softmax and
layer norm: ex2.approx.f32, div.full.f32, sqrt.approx.f32) get a bound, derived in their comments.

Usage: python make_launches.py [CORPUS_DIR]   (needs numpy; run by generate.sh after the PTX)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.dirname(HERE)
RUN = os.path.join(CORPUS, "run")
sys.path.insert(0, os.path.join(HERE, "triton"))
import configs as triton_configs  # noqa: E402


# ----------------------------------------------------------------------------------------------
# Launch description

class In:
    """An input buffer (also used for outputs that must start with known contents)."""

    def __init__(self, name, arr):
        self.name, self.arr = name, np.ascontiguousarray(arr)


class Zeros:
    def __init__(self, name, dtype, count):
        self.name, self.dtype, self.count = name, np.dtype(dtype), count


class Null:
    name = "null"


class Scalar:
    def __init__(self, name, ty, value):
        self.name, self.ty, self.value = name, ty, value


class Scratch:
    """Triton's global scratch buffer (`global_scratch`): zeros, global_scratch_size bytes per
    program as Triton's launcher allocates it, from each target's compiled metadata; null when the
    target needs none."""
    name = "global_scratch"


class TensorMapArg:
    """A tensor map (`tensormap[...]:BUFFER`, docs/launch-format.md) describing `arr` (or a zero
    buffer of `dtype[count]`) viewed as `shape` (outermost first). The box, swizzle and element
    type are given, or (`meta_index`) taken from the target's compiled `tensordesc_meta` as
    Triton's launcher builds the CUtensorMap of a host-side TensorDescriptor."""

    def __init__(self, name, shape, arr=None, dtype=None, box=None, swizzle="none", elem=None, meta_index=None,
                 extra=""):
        self.name, self.shape, self.box, self.swizzle, self.elem = name, list(shape), box, swizzle, elem
        self.meta_index, self.extra = meta_index, extra
        if arr is not None:
            self.arr = np.ascontiguousarray(arr)
            self.dtype, self.count = self.arr.dtype, self.arr.size
        else:
            self.arr, self.dtype, self.count = None, np.dtype(dtype), int(np.prod(shape))

    def spec(self, buffer, meta):
        box, swizzle, elem = self.box, self.swizzle, self.elem
        if self.meta_index is not None:
            md = meta["tensordesc_meta"][self.meta_index]
            box = list(md["block_size"])
            swizzle = ["none", "32B", "64B", "128B"][md["swizzle"]]
            # tensordesc_meta holds the device-side (.elemtype) encoding.
            elem = {0: "u8", 1: "u16", 2: "u32", 3: "s32", 4: "u64", 5: "s64", 6: "f16", 7: "f32", 9: "f64",
                    10: "bf16"}[md["elem_type"]]
        dims = "x".join(str(d) for d in self.shape[::-1])
        boxes = "x".join(str(b) for b in box[::-1])
        keys = f"dims={dims},box={boxes},swizzle={swizzle}" + (f",type={elem}" if elem else "") + self.extra
        return f"tensormap[{keys}]:{buffer}"


class Expect:
    def __init__(self, arg, arr, max_ulp=0, why=None):
        self.arg, self.arr, self.max_ulp, self.why = arg, np.ascontiguousarray(arr), max_ulp, why


NPY_TO_SPEC = {np.dtype(k): v for k, v in {
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "int8": "s8", "int16": "s16",
    "int32": "s32", "int64": "s64", "float16": "f16", "float32": "f32", "float64": "f64"}.items()}
SPEC_BYTES = {"u8": 1, "s8": 1, "u16": 2, "s16": 2, "f16": 2, "bf16": 2, "u32": 4, "s32": 4, "f32": 4,
              "u64": 8, "s64": 8, "f64": 8}
PTX_BYTES = {".u8": 1, ".s8": 1, ".b8": 1, ".u16": 2, ".s16": 2, ".b16": 2, ".f16": 2, ".u32": 4, ".s32": 4,
             ".b32": 4, ".f32": 4, ".u64": 8, ".s64": 8, ".b64": 8, ".f64": 8}


def rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def fmt_scalar(ty, v):
    if ty in ("f32", "f16", "bf16"):
        return f"{ty}:{float(np.float32(v))!r}"
    if ty == "f64":
        return f"{ty}:{float(v)!r}"
    return f"{ty}:{int(v)}"


SPECS = []  # (generator source key, kernel entry, label, builder)


def spec(source, kernel, label=None):
    def deco(fn):
        SPECS.append((source, kernel, label or kernel, fn))
        return fn
    return deco


U32 = np.uint32

STEP_SPECS = []  # (generator source key, recorded sequence name, builder)


def steps_spec(source, sequence):
    """A multi-step launch: the kernel sequence `sequence` that library host code launched in
    `source`'s main(), recorded per target by record_launches.py. The builder returns
    dict(buffers={name: input array | output dtype}, expect=[Expect(buffer name, array)], comment);
    allocations it does not name (temporary storage) start as zero bytes."""
    def deco(fn):
        STEP_SPECS.append((source, sequence, fn))
        return fn
    return deco


# ----------------------------------------------------------------------------------------------
# cache_intrinsics.cu: __ldg/__ldca/__ldcg/__ldcs/__ldlu/__ldcv and __stwb/__stcg/__stcs/__stwt

@spec("cache_intrinsics", "saxpy_ldg_stcs")
def _(r):
    n = 1000
    x = r.integers(-8, 9, n).astype(np.float32)
    y = (r.integers(-40, 41, n) / 4).astype(np.float32)
    a = 2.5
    out = (a * x.astype(np.float64) + y).astype(np.float32)  # exact: multiples of 1/4, < 2^10
    return dict(grid=[4], block=[128], args=[In("x", x), In("y", y), Zeros("out", np.float32, n),
                                             Scalar("a", "f32", a), Scalar("n", "s32", n)],
                expect=[Expect(2, out)],
                comment="out = a*x + y over a grid-stride loop (512 threads, 1000 elements); "
                        "x via ld.global.nc, y via ld.global.cs, out via st.global.cs.")


@spec("cache_intrinsics", "stencil3_ldca_stwb")
def _(r):
    n = 300
    x = r.integers(-50, 51, n).astype(np.float64)
    left = x[np.maximum(np.arange(n) - 1, 0)]
    right = x[np.minimum(np.arange(n) + 1, n - 1)]
    out = (0.25 * left + 0.5 * x + 0.25 * right).astype(np.float32)
    return dict(grid=[3], block=[128], args=[In("in", x.astype(np.float32)), Zeros("out", np.float32, n),
                                             Scalar("n", "s32", n)],
                expect=[Expect(1, out)],
                comment="3-point stencil with clamped borders through ld.global.ca, stored with st.global.wb; "
                        "threads 300..383 only test the bound.")


@spec("cache_intrinsics", "mix_ldcg_ldcv_stcg")
def _(r):
    n = 200
    # |3a - b| < 2^31: no signed overflow (undefined in C++), so the compiler's choice cannot matter.
    a = r.integers(-(2 ** 28), 2 ** 28, n).astype(np.int32)
    b = r.integers(-(2 ** 28), 2 ** 28, n).astype(np.int32)
    out = (3 * a.astype(np.int64) - b.astype(np.int64)).astype(np.int32)
    return dict(grid=[2], block=[128], args=[In("a", a), In("b", b), Zeros("out", np.int32, n), Scalar("n", "s32", n)],
                expect=[Expect(2, out)],
                comment="out = 3*a - b; a via ld.global.cg, b via ld.global.cv, "
                        "out via st.global.cg.")


@spec("cache_intrinsics", "scale_ldlu_stwt")
def _(r):
    n = 100
    x = r.standard_normal(n) * 1e3
    s = 1.0 / 3.0
    out = x * s  # one IEEE multiply, correctly rounded in numpy as in mul.f64
    return dict(grid=[1], block=[128], args=[In("in", x), Zeros("out", np.float64, n), Scalar("s", "f64", s),
                                             Scalar("n", "s32", n)],
                expect=[Expect(1, out)],
                comment="out = in * s in f64 (a single correctly rounded mul.f64); ld.global.lu / st.global.wt.")


@spec("cache_intrinsics", "vector_cache_ops")
def _(r):
    n = 64
    f4 = r.standard_normal((n, 4)).astype(np.float32)
    i2 = r.integers(-(2 ** 29), 2 ** 29, (n, 2)).astype(np.int32)  # no signed overflow in x + y, x - y
    d2 = r.standard_normal((n, 2))
    f4_out = f4[:, ::-1]
    i64 = i2.astype(np.int64)
    i2_out = np.stack([i64[:, 0] + i64[:, 1], i64[:, 0] - i64[:, 1]], axis=1).astype(np.int32)
    d2_out = d2[:, ::-1]
    return dict(grid=[2], block=[32],
                args=[In("f4", f4.ravel()), Zeros("f4_out", np.float32, 4 * n), In("i2", i2.ravel()),
                      Zeros("i2_out", np.int32, 2 * n), In("d2", d2.ravel()), Zeros("d2_out", np.float64, 2 * n),
                      Scalar("n", "s32", n)],
                expect=[Expect(1, f4_out.ravel()), Expect(3, i2_out.ravel()), Expect(5, d2_out.ravel())],
                comment="float4 via ld.global.nc.v4.f32 (components reversed), int2 via ld.global.cs.v2 -> "
                        "(x+y, x-y) via st.global.cg.v2, double2 via ld.global.cg.v2.f64 -> swapped via st.global.cs.")


@spec("cache_intrinsics", "narrow_ldg")
def _(r):
    n = 64
    s8 = np.concatenate([[-128, -127, -2, -1, 0, 1, 126, 127], r.integers(-128, 128, n - 8)]).astype(np.int8)
    u8 = np.concatenate([[0, 1, 127, 128, 129, 254, 255, 200], r.integers(0, 256, n - 8)]).astype(np.uint8)
    s16 = np.concatenate([[-32768, -32767, -1, 0, 1, 32767, -129, 128], r.integers(-32768, 32768, n - 8)]).astype(np.int16)
    u16 = np.concatenate([[0, 1, 32767, 32768, 65535, 65534, 255, 256], r.integers(0, 65536, n - 8)]).astype(np.uint16)
    out = np.stack([s8.astype(np.int32), u8.astype(np.int32), s16.astype(np.int32), u16.astype(np.int32)], axis=1)
    return dict(grid=[1], block=[64],
                args=[In("s8", s8), In("u8", u8), In("s16", s16), In("u16", u16), Zeros("out", np.int32, 4 * n),
                      Scalar("n", "s32", n)],
                expect=[Expect(4, out.ravel())],
                comment="8/16-bit loads through __ldg/__ldca/__ldcs: signed types sign-extend, unsigned zero-extend "
                        "(nvcc loads .s8/.u8/.s16/.u16 and converts).")


# ----------------------------------------------------------------------------------------------
# reduce.cu

def _block_partials(x, grid, block):
    idx = np.arange(len(x))
    return np.array([x[(idx // block) % grid == b].sum() for b in range(grid)])


@spec("reduce", "_Z16block_reduce_sumILi256EEvPKiPii", "block_reduce_sum_256")
def _(r):
    n, grid, block = 3000, 4, 256
    x = r.integers(-1000, 1001, n).astype(np.int32)
    part = _block_partials(x.astype(np.int64), grid, block).astype(np.int32)
    return dict(grid=[grid], block=[block], args=[In("in", x), Zeros("partial", np.int32, grid), Scalar("n", "s32", n)],
                expect=[Expect(1, part)],
                comment="block_reduce_sum<256>: grid-stride __ldg sums, shfl.down reduction, one __stcg per block; "
                        "partial[b] = sum of the elements whose (i // 256) % 4 == b.")


@spec("reduce", "_Z16block_reduce_sumILi128EEvPKiPii", "block_reduce_sum_128")
def _(r):
    n, grid, block = 1000, 3, 128
    x = r.integers(-(2 ** 20), 2 ** 20, n).astype(np.int32)
    part = _block_partials(x.astype(np.int64), grid, block).astype(np.int32)
    return dict(grid=[grid], block=[block], args=[In("in", x), Zeros("partial", np.int32, grid), Scalar("n", "s32", n)],
                expect=[Expect(1, part)],
                comment="block_reduce_sum<128> (4 warps): partial[b] = sum of elements with (i // 128) % 3 == b.")


@spec("reduce", "reduce_sum_atomic_f32")
def _(r):
    n = 2000
    x = r.integers(-100, 101, n).astype(np.float32)
    total = np.array([x.astype(np.float64).sum()], dtype=np.float32)
    return dict(grid=[4], block=[256], args=[In("in", x), Zeros("out", np.float32, 1), Scalar("n", "s32", n)],
                expect=[Expect(1, total)],
                comment="Tree reduction in shared memory, one atomicAdd (red/atom .add.f32) per block. Integer-valued "
                        "floats with |partial sums| < 2^24 make the result exact in any order, so max_ulp = 0.")


@spec("reduce", "reduce_max_count")
def _(r):
    n = 1000
    x = r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(U32)
    thr = U32(3_000_000_000)
    init = np.array([0, 0xFFFFFFFF, 0], dtype=U32)
    exp = np.array([x.max(), x.min(), (x > thr).sum()], dtype=U32)
    return dict(grid=[2], block=[128], args=[In("in", x), In("out", init), Scalar("threshold", "u32", thr),
                                             Scalar("n", "s32", n)],
                expect=[Expect(1, exp)],
                comment="out starts as [0, 0xFFFFFFFF, 0]; atomicMax/atomicMin of unsigned values and a ballot/popc "
                        "count of elements > threshold: out = [max, min, count].")


# ----------------------------------------------------------------------------------------------
# stencil2d.cu

@spec("stencil2d", "stencil2d_5pt")
def _(r):
    w, h = 40, 24
    x = r.integers(-20, 21, (h, w)).astype(np.float64)
    yy, xx = np.mgrid[0:h, 0:w]

    def at(dy, dx):
        return x[np.clip(yy + dy, 0, h - 1), np.clip(xx + dx, 0, w - 1)]
    out = (0.5 * x + 0.125 * (at(-1, 0) + at(1, 0) + at(0, -1) + at(0, 1))).astype(np.float32)
    return dict(grid=[3, 2], block=[16, 16], args=[In("in", x.astype(np.float32).ravel()),
                                                   Zeros("out", np.float32, w * h), Scalar("width", "s32", w),
                                                   Scalar("height", "s32", h)],
                expect=[Expect(1, out.ravel())],
                comment="5-point stencil over 16x16 shared tiles with halo, clamped borders; the 40x24 grid leaves "
                        "partial tiles. Integer inputs: every sum of eighths is exact.")


@spec("stencil2d", "heat1d_shared")
def _(r):
    n, steps = 200, 5
    x = r.integers(-100, 101, n).astype(np.float64)
    cur = x
    for _ in range(steps):
        left = cur[np.maximum(np.arange(n) - 1, 0)]
        right = cur[np.minimum(np.arange(n) + 1, n - 1)]
        cur = 0.25 * left + 0.5 * cur + 0.25 * right
    return dict(grid=[1], block=[64], shared=2 * n * 4,
                args=[In("in", x.astype(np.float32)), Zeros("out", np.float32, n), Scalar("n", "s32", n),
                      Scalar("steps", "s32", steps)],
                expect=[Expect(1, cur.astype(np.float32))],
                comment="5 Jacobi steps of 0.25/0.5/0.25 smoothing in dynamic shared memory (2*n floats = 1600 "
                        "bytes, passed as `shared`), written with st.global.wt. Values stay multiples of 4^-5 of "
                        "integers below 2^14: exact.")


# ----------------------------------------------------------------------------------------------
# pipeline_primitives.cu

@spec("pipeline_primitives", "pipeline_double_buffer")
def _(r):
    tile, blocks, tiles = 512, 2, 2
    x = r.integers(-1000, 1001, blocks * tiles * tile).astype(np.float32)
    t = x.reshape(blocks * tiles, tile)[:, ::-1]
    out = (2.0 * t.astype(np.float64) + 1.0).astype(np.float32).ravel()
    return dict(grid=[blocks], block=[128], args=[In("in", x), Zeros("out", np.float32, x.size),
                                                  Scalar("tiles_per_block", "s32", tiles)],
                expect=[Expect(1, out)],
                comment="Double-buffered __pipeline_memcpy_async (cp.async.cg 16 B) with __pipeline_wait_prior(1): "
                        "each 512-float tile is written reversed as 2*v + 1. On sm_75 the same source is a "
                        "synchronous copy; the result is the same.")


@spec("pipeline_primitives", "pipeline_sizes_zfill")
def _(r):
    x = r.integers(-(2 ** 31), 2 ** 31, 448, dtype=np.int64).astype(np.int32)
    out = np.zeros(448, dtype=np.int32)
    t = np.arange(64)
    out[t] = x[63 - t]
    out[64 + 2 * t] = x[64 + 2 * t]
    out[64 + 2 * t + 1] = np.where(t & 1, 0, x[64 + 2 * t + 1])
    for j in range(4):
        keep = j < 4 - (t % 4)
        out[192 + 4 * t + j] = np.where(keep, x[192 + 4 * t + j], 0)
    return dict(grid=[1], block=[64], args=[In("in", x), Zeros("out", np.int32, 448)],
                expect=[Expect(1, out)],
                comment="__pipeline_memcpy_async of 4, 8 and 16 bytes with zfill: cp.async src-size = cp-size - "
                        "zfill, and the remaining bytes of the 8-byte copies of odd threads and of the 16-byte copy "
                        "of thread t (zfill (t % 4) * 4 bytes) become zero.")


@spec("pipeline_primitives", "pipeline_mbarrier")
def _(r):
    x = r.integers(-(2 ** 30), 2 ** 30, 512).astype(np.int32)
    out = (x.reshape(128, 4)[::-1].ravel().astype(np.int64) + 1).astype(np.int32)
    return dict(grid=[1], block=[128], args=[In("in", x), Zeros("out", np.int32, 512)],
                expect=[Expect(1, out)],
                comment="Completion through an mbarrier: __pipeline_arrive_on (cp.async.mbarrier.arrive.shared.b64), "
                        "__mbarrier_arrive and a __mbarrier_test_wait loop; out[4t+j] = in[4(127-t)+j] + 1. sm_75 "
                        "builds a plain shared-memory copy with the same result.")


# ----------------------------------------------------------------------------------------------
# ld_forms.cu / st_forms.cu

def _rotating_forms(r, n, forms):
    x = r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(U32)
    i = np.arange(n)
    out = np.concatenate([x[(i + k) % n] for k in range(forms)])
    return x, out


@spec("ld_forms", "ld_global_forms")
def _(r):
    n = 64
    x, out = _rotating_forms(r, n, 30)
    return dict(grid=[2], block=[32], args=[In("in", x), Zeros("out", U32, 30 * n), Scalar("n", "s32", n)],
                expect=[Expect(1, out)],
                comment="30 ld forms (cache operators, L1 eviction priorities, L2 prefetch sizes, L2 cache hints, "
                        ".weak/.relaxed/.acquire/.volatile/.mmio with every scope): out[k*n + i] = in[(i + k) % n]. "
                        "Every hint is a hint: values are plain loads.")


@spec("ld_forms", "ld_global_nc_forms")
def _(r):
    n = 64
    x, out = _rotating_forms(r, n, 16)
    return dict(grid=[2], block=[32], args=[In("in", x), Zeros("out", U32, 16 * n), Scalar("n", "s32", n)],
                expect=[Expect(1, out)],
                comment="16 ld.global.nc forms (.ca/.cg/.cs, L1 priorities, prefetch sizes, cache hints): "
                        "out[k*n + i] = in[(i + k) % n].")


@spec("ld_forms", "ld_vector_forms")
def _(r):
    n = 32
    x = r.integers(0, 2 ** 32, 4 * n, dtype=np.uint64).astype(U32).reshape(n, 4)
    j = (np.arange(n) + 1) % n
    out = np.concatenate([x, x, x, x, x[j], x[j]], axis=1)
    return dict(grid=[1], block=[32], args=[In("in", x.ravel()), Zeros("out", U32, 24 * n), Scalar("n", "s32", n)],
                expect=[Expect(1, out.ravel())],
                comment="Thread i: 16 bytes via ld.global.nc.v4.u32, ld.global.L1::evict_first.v2.u64, "
                        "ld.global.nc.b128, ld.global.cs.b128 (+ mov.b128 unpack, low 64 bits first), then "
                        "st.shared.b128 and the neighbour's chunk via ld.shared.b128 and ld.volatile.shared.v4.u32.")


@spec("ld_forms", "prefetch_forms")
def _(r):
    n = 100
    x = r.standard_normal(n).astype(np.float32)
    return dict(grid=[1], block=[128], args=[In("in", x), Zeros("out", np.float32, n), Scalar("n", "s32", n)],
                expect=[Expect(1, x)],
                comment="prefetch.{global.,}{L1,L2}, prefetchu.L1, prefetch.global.L2::evict_last/evict_normal "
                        "(sm_80+) are hints; out = in.")


@spec("st_forms", "st_global_forms")
def _(r):
    n = 64
    i = np.arange(n)
    out = np.concatenate([(i * 1000 + k + 1) for k in range(26)]).astype(U32)
    return dict(grid=[2], block=[32], args=[Zeros("out", U32, 26 * n), Scalar("n", "s32", n)],
                expect=[Expect(0, out)],
                comment="26 st forms (cache operators, L1 priorities, cache hints, .weak/.relaxed/.release/"
                        ".volatile/.mmio with every scope, generic): out[k*n + i] = i*1000 + k + 1.")


@spec("st_forms", "st_shared_local_forms")
def _(r):
    n = 32
    i = np.arange(n)
    j = (i + 1) % n
    out = np.zeros((n, 12), dtype=U32)
    for k in range(8):
        out[:, k] = j * 100 + k + 1
    out[:, 8] = j * 100 + 11
    out[:, 9] = i * 100 + 9
    out[:, 10] = i * 100 + 10
    return dict(grid=[1], block=[32], args=[Zeros("out", U32, 12 * n), Scalar("n", "s32", n)],
                expect=[Expect(0, out.ravel())],
                comment="Shared-memory stores (st.shared, ::cta, .volatile, .relaxed.cta, .release.cta/.gpu, .weak, "
                        "generic, and st.shared::cluster to the CTA's own shared memory on sm_90+) read back by the "
                        "next thread after bar.sync; st.local / st.volatile.local read back with ld.local / "
                        "ld.volatile.local; out[12i + 11] stays 0.")


@spec("st_forms", "st_vector_forms")
def _(r):
    n = 32
    x = r.integers(0, 2 ** 32, (n, 4), dtype=np.uint64).astype(U32)
    a, b, c, d = (x[:, k].astype(np.uint64) for k in range(4))
    m = np.uint64(0xFFFFFFFF)
    out = np.zeros(16 * n, dtype=U32)
    o = out[: 8 * n].reshape(n, 8)
    o[:, 0], o[:, 1] = a ^ b, c ^ d
    o[:, 2], o[:, 3] = (a + b) & m, (c + d) & m
    o[:, 4], o[:, 5], o[:, 6], o[:, 7] = d, c, b, a
    out[8 * n: 12 * n] = x.ravel()  # b128 of {lo = b:a, hi = d:c}: words a b c d
    out[12 * n:] = x[:, [2, 3, 0, 1]].ravel()  # b128 of {hi, lo}: words c d a b
    return dict(grid=[1], block=[32], args=[In("in", x.ravel()), Zeros("out", U32, 16 * n), Scalar("n", "s32", n)],
                expect=[Expect(1, out)],
                comment="st.global.v2/.cs.v2/.L1::no_allocate.v4 and 128-bit st.global(.L2::cache_hint).b128 and "
                        "st.relaxed.sys.global.b128 of mov.b128 {lo, hi} (lo is the low 64 bits, little-endian).")


# ----------------------------------------------------------------------------------------------
# seed_extend.cu: sign/zero extension and narrow stores

@spec("seed_extend", "sign_extend_loads")
def _(r):
    n = 32
    b8 = np.concatenate([[-128, -127, -2, -1, 0, 1, 2, 127], r.integers(-128, 128, n - 8)]).astype(np.int8)
    b16 = np.concatenate([[-32768, -32767, -129, -128, -1, 0, 255, 32767], r.integers(-32768, 32768, n - 8)]).astype(np.int16)
    b32 = np.concatenate([[-(2 ** 31), -1, 0, 1, 2 ** 31 - 1, -123456789, 0x7F00FF00, -0x10000],
                          r.integers(-(2 ** 31), 2 ** 31, n - 8)]).astype(np.int32)
    u8, u16, u32 = b8.view(np.uint8), b16.view(np.uint16), b32.view(np.uint32)
    out32 = np.stack([b8.astype(np.int32), u8.astype(np.int32), u8.astype(np.int32), b16.astype(np.int32),
                      u16.astype(np.int32), u16.astype(np.int32), b8.astype(np.int32), b16[::-1].astype(np.int32)],
                     axis=1)
    out64 = np.stack([b8.astype(np.int64), u8.astype(np.int64), b16.astype(np.int64), b32.astype(np.int64),
                      u32.astype(np.int64), b16.astype(np.int64)], axis=1)
    return dict(grid=[1], block=[32],
                args=[In("b8", b8), In("b16", b16), In("b32", b32), Zeros("out32", np.int32, 8 * n),
                      Zeros("out64", np.int64, 6 * n), Scalar("n", "s32", n)],
                expect=[Expect(3, out32.ravel(), why="ld.s8/.s16 sign-extend into a 32-bit register; ld.u8/.b8/.u16/"
                                                      ".b16 zero-extend"),
                        Expect(4, out64.ravel(), why="ld.s8/.s16/.s32 sign-extend into a 64-bit register; ld.u8/.u32 "
                                                     "zero-extend")],
                comment="SEED SEMANTIC: destination registers wider than the load type. Per element: out32 = "
                        "[s8, u8, b8, s16, u16, b16, nc.s8, shared.s16 of element n-1-i], out64 = [s8, u8, s16, s32, "
                        "u32, nc.s16]. PTX: 'sign-extended to the destination register width for signed integers, "
                        "zero-extended for unsigned and bit-size types'.")


@spec("seed_extend", "narrow_stores")
def _(r):
    n = 32
    w32 = r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(U32)
    w64 = r.integers(0, 2 ** 63, n, dtype=np.uint64) * np.uint64(2) + r.integers(0, 2, n, dtype=np.uint64)
    o8 = np.concatenate([w32 & 0xFF, w64 & np.uint64(0xFF)]).astype(np.uint8)
    o16 = np.concatenate([w32 & 0xFFFF, w32[::-1] & 0xFFFF]).astype(np.uint16)
    o32 = (w64 & np.uint64(0xFFFFFFFF)).astype(U32)
    return dict(grid=[1], block=[32],
                args=[In("w32", w32), In("w64", w64), Zeros("o8", np.uint8, 2 * n), Zeros("o16", np.uint16, 2 * n),
                      Zeros("o32", U32, n), Scalar("n", "s32", n)],
                expect=[Expect(2, o8), Expect(3, o16), Expect(4, o32)],
                comment="SEED SEMANTIC: a source register wider than the store type stores only its low bits: "
                        "st.u8/st.b8 from 32- and 64-bit registers, st.u16 and st.shared.b16 from 32-bit registers, "
                        "st.u32 from a 64-bit register.")


# ----------------------------------------------------------------------------------------------
# cp_async_gemm.cu

@spec("cp_async_gemm", "sgemm_cp_async")
def _(r):
    m, n, k = 32, 64, 32
    a = r.integers(-4, 5, (m, k)).astype(np.float32)
    b = r.integers(-4, 5, (k, n)).astype(np.float32)
    c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return dict(grid=[n // 32, m // 32], block=[16, 16],
                args=[In("A", a.ravel()), In("B", b.ravel()), Zeros("C", np.float32, m * n), Scalar("M", "s32", m),
                      Scalar("N", "s32", n), Scalar("K", "s32", k)],
                expect=[Expect(2, c.ravel())],
                comment="Tiled SGEMM with a double-buffered cp.async.cg (16 B, .L2::128B) pipeline and wait_group 1 "
                        "(2 K-steps). Integer entries in [-4, 4]: every product and partial sum is exact.")


@spec("cp_async_gemm", "transpose_cp_async")
def _(r):
    rows, cols = 32, 64
    x = r.standard_normal((rows, cols)).astype(np.float32)
    return dict(grid=[cols // 32, rows // 32], block=[32, 8],
                args=[In("in", x.ravel()), Zeros("out", np.float32, rows * cols), Scalar("rows", "s32", rows),
                      Scalar("cols", "s32", cols)],
                expect=[Expect(1, x.T.ravel())],
                comment="Transpose through a padded 32x33 shared tile filled by 4-byte cp.async.ca + wait_all.")


# ----------------------------------------------------------------------------------------------
# createpolicy.cu: the 64-bit policy encoding (CCCL cuda/__annotated_ptr/access_property_encoding.h)

EVICT = {"evict_unchanged": 0, "evict_first": 1, "evict_last": 2, "evict_normal": 3}
RANGE_ADDRESS_BITS = 0x0007FFE000000000


def fraction_policy(primary, secondary="evict_unchanged", fraction=1.0):
    eps = np.finfo(np.float32).eps
    num = int(np.float32(np.float32(fraction) - eps) * np.float32(16.0))  # CCCL: (fraction - FLT_EPSILON) * 16
    return (num << 52) | (EVICT[secondary] << 56) | (EVICT[primary] << 57) | (2 << 59)


def range_policy(primary, secondary, ptr, primary_size, total_size):
    log2_total = (total_size - 1).bit_length()  # ceil(log2(total_size))
    size_code = max(0, log2_total - 19)
    log2_block = 12 + size_code
    start = ptr >> log2_block
    end = (ptr + primary_size + (1 << log2_block) - 1) >> log2_block
    count = min(max(end - start, 1), 127)
    assert start < 128, "block_start must fit its 7-bit field (see createpolicy.cu)"
    return (count << 37) | (start << 44) | (size_code << 52) | (EVICT[secondary] << 56) | (EVICT[primary] << 57) | (3 << 59)


def cccl_policy_values():
    """The expected policies from CCCL's encoder: build and run gen/cuda/policy_encoding_host.cpp."""
    nvcc = shutil.which("nvcc")
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if not nvcc or not cxx:
        raise SystemExit("make_launches.py: needs nvcc (for the CCCL headers) and a host C++ compiler (g++ or $CXX)")
    include = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(nvcc))), "include")
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "policy_encoding_host")
        subprocess.run([cxx, "-std=c++17", "-I" + os.path.join(include, "cccl"), "-I" + include,
                        os.path.join(HERE, "cuda", "policy_encoding_host.cpp"), "-o", exe], check=True)
        out = subprocess.run([exe], check=True, capture_output=True, text=True).stdout
    return [int(line, 16) for line in out.split()]


@spec("createpolicy", "createpolicy_values")
def _(r):
    frac, base = 0.8, 0x40000
    p = [
        fraction_policy("evict_last"),
        fraction_policy("evict_last", fraction=1.0),
        fraction_policy("evict_first", fraction=0.5),
        fraction_policy("evict_unchanged", fraction=0.25),
        fraction_policy("evict_normal", fraction=0.75),
        fraction_policy("evict_last", "evict_unchanged", 0.5),
        fraction_policy("evict_last", "evict_first", 0.0625),
        fraction_policy("evict_first", "evict_first"),
        fraction_policy("evict_normal", "evict_first", frac),
        fraction_policy("evict_unchanged", "evict_first", 0.3),
        range_policy("evict_last", "evict_unchanged", base, 0x100000, 0x200000),
        range_policy("evict_last", "evict_first", base, 3000, 1 << 20),
        range_policy("evict_normal", "evict_unchanged", base + 4096, 65536, 65536),
        range_policy("evict_first", "evict_unchanged", base, 4096, 4096),
        range_policy("evict_unchanged", "evict_first", base + 0x123400, 1 << 24, 1 << 26),
        range_policy("evict_last", "evict_unchanged", 0, 256, 1024) & ~RANGE_ADDRESS_BITS,
        range_policy("evict_first", "evict_first", 0, 512, 0x40000) & ~RANGE_ADDRESS_BITS,
        fraction_policy("evict_first", fraction=np.float32(frac) * np.float32(0.5)),
    ]
    cccl = cccl_policy_values()
    if cccl != p:
        raise SystemExit(f"createpolicy: numpy encoder disagrees with CCCL's: {[hex(v) for v in p]} vs "
                         f"{[hex(v) for v in cccl]}")
    return dict(grid=[1], block=[32],
                args=[Zeros("out", np.uint64, len(p)), Scalar("frac", "f32", frac), Scalar("range_base", "u64", base),
                      In("buf", np.arange(64, dtype=np.float32))],
                expect=[Expect(0, np.array(p, dtype=np.uint64),
                               why="createpolicy returns the hardware encoding (../shared/REFERENCE.md): fraction code "
                                   "floor((f - FLT_EPSILON) * 16) at bits 52-55, secondary at 56, primary at 57-58, "
                                   "mode at 59-60 (2 fraction, 3 range); range: block_count 37-43, block_start 44-50, "
                                   "block-size code 52-55")],
                comment="18 policies: fractional with and without a fraction, immediate/hex-float/register fractions, "
                        "with and without a secondary priority; range-based over the synthetic global address "
                        "range_base = 0x40000 (only encoded, never accessed; block_start stays within its 7 bits). "
                        "Entries 15-16 are range policies over the real buffer `buf`, stored with bits 37-50 (which "
                        "depend on the buffer address) cleared. Reference: CCCL's own encoder "
                        "(gen/cuda/policy_encoding_host.cpp, compiled against the toolkit's CCCL headers), checked "
                        "against an independent numpy implementation.")


@spec("createpolicy", "policy_hinted_scale")
def _(r):
    n = 100
    x = r.standard_normal(n).astype(np.float32)
    lut = r.standard_normal(16).astype(np.float32)
    out = x * lut[np.arange(n) & 15]  # one correctly rounded f32 multiply
    prop = 0x14F0000000000000  # CUDA's "persisting" access property (fraction 100 %, evict_last)
    return dict(grid=[1], block=[128],
                args=[In("in", x), In("lut", lut), Zeros("out", np.float32, n), Scalar("prop", "u64", prop),
                      Scalar("n", "s32", n)],
                expect=[Expect(2, out)],
                comment="Policies used as hints: fractional evict_first for the input, a range policy over the LUT, "
                        "createpolicy.cvt.L2.b64 of the access property 0x14F0000000000000 for the output store. "
                        "out[i] = in[i] * lut[i % 16] (mul.f32, correctly rounded in numpy too).")


# ----------------------------------------------------------------------------------------------
# annotated_ptr.cu (CCCL library code)

@spec("annotated_ptr", "annotated_axpy")
def _(r):
    n = 200
    x = r.integers(-16, 17, n).astype(np.float32)
    y = r.integers(-16, 17, n).astype(np.float32)
    a = 1.5
    return dict(grid=[2], block=[128], args=[In("x", x), In("y", y), Zeros("out", np.float32, n), Scalar("a", "f32", a),
                                             Scalar("n", "s32", n)],
                expect=[Expect(2, (a * x.astype(np.float64) + y).astype(np.float32))],
                comment="cuda::annotated_ptr loads with streaming/persisting properties and a range access_property "
                        "on the output (createpolicy + .L2::cache_hint); out = a*x + y, exact for these inputs.")


@spec("annotated_ptr", "annotated_fraction")
def _(r):
    n = 200
    x = r.integers(-(2 ** 29), 2 ** 29, n).astype(np.int32)
    return dict(grid=[2], block=[128], args=[In("x", x), Zeros("out", np.int32, n), Scalar("n", "s32", n)],
                expect=[Expect(1, (2 * x.astype(np.int64)).astype(np.int32))],
                comment="50 % persisting fractional access_property on x, normal property on out; out = 2*x.")


@spec("annotated_ptr", "apply_property_sum")
def _(r):
    n = 300
    x = r.integers(-1000, 1001, n).astype(np.int32)
    return dict(grid=[3], block=[128], args=[In("x", x), Zeros("out", np.int32, 1), Scalar("n", "s32", n)],
                expect=[Expect(1, np.array([x.sum()], dtype=np.int32))],
                comment="cuda::apply_access_property (prefetch.global.L2::evict_last / evict_normal loops) around an "
                        "atomicAdd sum; out[0] = sum(x).")


# ----------------------------------------------------------------------------------------------
# cp_async_forms.cu

@spec("cp_async_forms", "cp_async_all_forms")
def _(r):
    slice_ = 144
    x = r.integers(0, 256, 64 * slice_).astype(np.uint8)
    covered = np.zeros(slice_, dtype=bool)
    for lo, hi in [(0, 4), (8, 16), (16, 32), (32, 48), (48, 52), (64, 80), (80, 88), (96, 112), (112, 116),
                   (128, 144)]:
        covered[lo:hi] = True
    sh = np.where(covered, x.reshape(64, slice_), 0).astype(np.uint8)
    out = sh[::-1].ravel()
    return dict(grid=[1], block=[64], args=[In("in", x), Zeros("out", np.uint8, x.size)],
                expect=[Expect(1, out)],
                comment="Ten cp.async forms (.ca 4/8/16, .cg 16, .shared::cta, .L2::64B/128B/256B, .L2::cache_hint) "
                        "in three groups, wait_group 2/1/0 and wait_all; thread t writes out the slice of thread "
                        "63 - t. Bytes no copy covers stay 0 (cleared before the copies).")


@spec("cp_async_forms", "cp_async_src_size_forms")
def _(r):
    x = r.integers(0, 256, 32 * 64).astype(np.uint8).reshape(32, 64)
    out = np.full((32, 64), 0xAB, dtype=np.uint8)
    for t in range(32):
        for off, size, src in [(0, 4, t % 5), (8, 8, t % 9), (16, 16, t % 17), (32, 16, (3 * t) % 17),
                               (48, 16, 7)]:
            out[t, off:off + size] = 0
            out[t, off:off + src] = x[t, off:off + src]
    return dict(grid=[1], block=[32], args=[In("in", x.ravel()), Zeros("out", np.uint8, x.size)],
                expect=[Expect(1, out.ravel(), why="cp.async copies src-size bytes and zero-fills up to cp-size")],
                comment="SEED SEMANTIC (zero fill): src-size as an immediate and a register, with .cg, a cache hint "
                        "and .L2::128B. Shared memory starts as 0xAB; bytes [4,8) of each slot are never copied and "
                        "keep 0xAB.")


@spec("cp_async_forms", "cp_async_ignore_src_forms")
def _(r):
    x = r.integers(0, 256, 32 * 32).astype(np.uint8).reshape(32, 32)
    out = np.full((32, 32), 0xCD, dtype=np.uint8)
    for t in range(32):
        for off, size, ignore in [(0, 4, t % 2 == 1), (8, 8, t % 3 == 0), (16, 16, t % 4 == 1)]:
            out[t, off:off + size] = 0 if ignore else x[t, off:off + size]
    return dict(grid=[1], block=[32], args=[In("in", x.ravel()), Zeros("out", np.uint8, x.size)],
                expect=[Expect(1, out.ravel(), why="a true ignore-src predicate writes cp-size zeros")],
                comment="SEED SEMANTIC (ignore-src): predicate operand on .ca 4, .ca 8 + .L2::64B and .cg 16 + cache "
                        "hint. Shared memory starts as 0xCD; bytes [4,8) are never copied.")


@spec("cp_async_forms", "cp_async_mbarrier_forms")
def _(r):
    x = r.integers(0, 2 ** 32, 1024, dtype=np.uint64).astype(U32)
    out = np.concatenate([x[:512].reshape(128, 4)[::-1].ravel(), x[512:].reshape(128, 4)[::-1].ravel()])
    return dict(grid=[1], block=[128], args=[In("in", x), Zeros("out", U32, 1024)],
                expect=[Expect(1, out)],
                comment="mbarrier completion: phase 0 cp.async.mbarrier.arrive + mbarrier.arrive + test_wait "
                        "(try_wait on sm_90+), phase 1 cp.async.mbarrier.arrive.noinc + test_wait.parity "
                        "(try_wait.parity on sm_90+); each phase reads the chunk of thread 127 - t.")


# ----------------------------------------------------------------------------------------------
# seed_coherence.cu: the expected values are what an H100 returned (tests/hw/h100/README.md,
# from ../shared/hw/h100/README.md section 6), not a model's.

H100_MP = ("H100 (hw README section 6): a reader SM that cached the line with ld.ca, saw the writer's flag "
           "through volatile loads and ")


def _message_passing(r, fence):
    old, new = (int(v) for v in r.integers(1, 2 ** 20, 2))
    data = np.array([old, new], dtype=np.int32)
    out = np.array([old, new if fence else old], dtype=np.int32)
    why = ("executed fence.acq_rel.gpu (CCTL.IVALL) read the new data, 256 of 256 trials" if fence else
           "had no fence read the stale line, 256 of 256 trials")
    return dict(grid=[2], block=[32],
                args=[In("data", data), Zeros("flags", np.int32, 2), Zeros("out", np.int32, 2)],
                expect=[Expect(2, out, why=H100_MP + why)],
                comment="Message passing across SMs: CTA 0 reads data[0] with ld.global.ca, raises flags[0], waits "
                        "for flags[1]; CTA 1 waits for flags[0], stores data[1] into data[0], fences, raises "
                        "flags[1]; CTA 0 reads data[0] again with ld.global.ca"
                        + (" after __threadfence()." if fence else " with no fence (stale-l1)."))


@spec("seed_coherence", "mp_fence_reader")
def _(r):
    return _message_passing(r, True)


@spec("seed_coherence", "mp_no_fence_reader")
def _(r):
    return _message_passing(r, False)


@spec("seed_coherence", "same_sm_nc")
def _(r):
    x = r.integers(1, 2 ** 20, 64).astype(np.int32)
    a, c = int(x[0]), int(x[32])
    out = np.array([a, a + 1, c, c], dtype=np.int32)
    return dict(grid=[1], block=[1], args=[In("x", x), Zeros("out", np.int32, 4)],
                expect=[Expect(1, out, why="H100 (fetch_probe.cu same_sm, hw README section 6): ld.ca after the "
                                           "same SM's store reads the new value, ld.global.nc the OLD one")],
                comment="The read-only path within one SM (one thread): a = ld.ca x, st x = a + 1, b = ld.ca x; "
                        "c = ld.global.nc y, st y = c + 1, d = ld.global.nc y (nc-after-write).")


# ----------------------------------------------------------------------------------------------
# seed_cp_async.cu

FORGOTTEN = ("ptxsim models cp.async completion only at cp.async.wait_group/wait_all (or an mbarrier phase), "
             "deterministically; on hardware this read races with the copy.")


@spec("seed_cp_async", "cp_async_zero_fill")
def _(r):
    x = r.integers(1, 256, 17 * 16).astype(np.uint8).reshape(17, 16)
    out = np.where(np.arange(16)[None, :] < np.arange(17)[:, None], x, 0).astype(np.uint8)
    return dict(grid=[1], block=[17], args=[In("in", x.ravel()), Zeros("out", np.uint8, x.size)],
                expect=[Expect(1, out.ravel(), why="src-size t < 16: bytes [t, 16) of slot t are zero")],
                comment="SEED SEMANTIC (zero fill): thread t copies 16 bytes with src-size t (0..16) over 0xEE; "
                        "out[16t + k] = in[16t + k] for k < t, else 0.")


@spec("seed_cp_async", "cp_async_ignore_src")
def _(r):
    x = r.integers(1, 2 ** 32, 128, dtype=np.uint64).astype(U32).reshape(32, 4)
    out = np.where((np.arange(32) % 2 == 1)[:, None], 0, x).astype(U32)
    return dict(grid=[1], block=[32], args=[In("in", x.ravel()), Zeros("out", U32, 128)],
                expect=[Expect(1, out.ravel(), why="ignore-src true: 16 zero bytes replace 0xDEADBEEF")],
                comment="SEED SEMANTIC (ignore-src): odd threads set the predicate; their slots become zeros.")


@spec("seed_cp_async", "cp_async_forgotten_wait")
def _(r):
    x = r.integers(0, 2 ** 31, 64).astype(U32)
    t = np.arange(64)
    out = (0xDEAD0000 + (t ^ 1)).astype(U32)
    return dict(grid=[1], block=[64], args=[In("in", x), Zeros("out", U32, 64)],
                expect=[Expect(1, out, why="the OLD shared contents 0xDEAD0000 + (t ^ 1): no wait before the read")],
                comment="SEED SEMANTIC (forgotten wait): cp.async + commit_group, then bar.sync WITHOUT "
                        "cp.async.wait_group/wait_all, then a read of the neighbour's slot. " + FORGOTTEN)


@spec("seed_cp_async", "cp_async_with_wait")
def _(r):
    x = r.integers(0, 2 ** 31, 64).astype(U32)
    t = np.arange(64)
    return dict(grid=[1], block=[64], args=[In("in", x), Zeros("out", U32, 64)],
                expect=[Expect(1, x[t ^ 1])],
                comment="The correct version of cp_async_forgotten_wait: wait_all before bar.sync, out[t] = in[t ^ 1].")


@spec("seed_cp_async", "cp_async_wait_group_pending")
def _(r):
    x = r.integers(0, 2 ** 31, 128).astype(U32)
    t = np.arange(64)
    out = np.concatenate([x[t ^ 1], 0xB0000000 + (t ^ 1)]).astype(U32)
    return dict(grid=[1], block=[64], args=[In("in", x), Zeros("out", U32, 128)],
                expect=[Expect(1, out, why="group A complete after wait_group 1; group B still pending (old values)")],
                comment="SEED SEMANTIC (partial wait): two commit groups, cp.async.wait_group 1, bar.sync, read both. "
                        "out[t] = in[t ^ 1] (older group landed), out[64 + t] = 0xB0000000 + (t ^ 1) (newest group "
                        "not waited for). " + FORGOTTEN)


@spec("seed_cp_async", "pipeline_forgotten_wait")
def _(r):
    x = r.integers(0, 2 ** 31, 64).astype(U32)
    t = np.arange(64)
    return dict(grid=[1], block=[64], args=[In("in", x), Zeros("out", U32, 64)],
                expect=[Expect(1, (0xDEAD0000 + (t ^ 1)).astype(U32), why="old shared contents: no wait")],
                comment="SEED SEMANTIC (forgotten wait) written with __pipeline_memcpy_async/__pipeline_commit and no "
                        "__pipeline_wait_prior. " + FORGOTTEN)


# ----------------------------------------------------------------------------------------------
# sm100_wide.cu: 256-bit forms and sinks

@spec("sm100_wide", "wide_v8_v4_evict")
def _(r):
    n = 32
    a = r.integers(0, 2 ** 32, (n, 8), dtype=np.uint64).astype(U32)
    q = r.integers(0, 2 ** 64, (n, 4), dtype=np.uint64)
    return dict(grid=[1], block=[32],
                args=[In("in32", a.ravel()), Zeros("out32", U32, 8 * n), In("in64", q.ravel()),
                      Zeros("out64", np.uint64, 4 * n), Scalar("n", "s32", n)],
                expect=[Expect(1, a[:, ::-1].ravel()), Expect(3, q[:, [1, 2, 3, 0]].ravel())],
                comment="ld.global.L2::evict_last.v8.b32 -> st.global.L2::evict_first.v8.f32 (word order reversed); "
                        "ld.global.nc.L1::evict_first.L2::evict_normal.v4.b64 -> "
                        "st.global.L1::no_allocate.L2::evict_last.v4.u64 (rotated by one). Buffers must be 32-byte "
                        "aligned.")


@spec("sm100_wide", "wide_v8_hint_forms")
def _(r):
    n = 32
    a = r.integers(0, 2 ** 32, (n, 8), dtype=np.uint64).astype(U32)
    out = ((a.astype(np.uint64) + np.arange(8, dtype=np.uint64)) & np.uint64(0xFFFFFFFF)).astype(U32)
    return dict(grid=[1], block=[32], args=[In("in32", a.ravel()), Zeros("out32", U32, 8 * n), Scalar("n", "s32", n)],
                expect=[Expect(1, out.ravel())],
                comment="v8 loads (.L2::evict_last.L2::cache_hint / plain ld.global.nc.v8.s32) and stores "
                        "(.L2::evict_normal.L2::cache_hint / st.relaxed.gpu...L2::evict_first.v8.u32): "
                        "out[8i + k] = in[8i + k] + k.")


@spec("sm100_wide", "sink_v8_v4")
def _(r):
    n = 32
    a = r.integers(0, 2 ** 32, (n, 8), dtype=np.uint64).astype(U32)
    q = r.integers(0, 2 ** 64, (n, 4), dtype=np.uint64)
    mem = rng("sink_v8_v4/mem").integers(0, 2 ** 32, (n, 8), dtype=np.uint64).astype(U32)
    mem64 = rng("sink_v8_v4/mem64").integers(0, 2 ** 64, (n, 4), dtype=np.uint64)
    regs = np.tile((0x5EED0000 + np.arange(8)).astype(U32), (n, 1))
    for k in (0, 2, 4, 5, 7):
        regs[:, k] = a[:, k]
    mem_out = mem.copy()
    for k in (0, 2, 3, 5, 7):
        mem_out[:, k] = ~regs[:, k]
    regs64 = np.tile(np.uint64(0x5EED5EED00000000) + np.arange(4, dtype=np.uint64), (n, 1))
    regs64[:, 0], regs64[:, 2] = q[:, 0], q[:, 2]
    mem64_out = mem64.copy()
    mem64_out[:, 1] = regs64[:, 1] ^ regs64[:, 0]
    mem64_out[:, 3] = regs64[:, 3] ^ regs64[:, 2]
    return dict(grid=[1], block=[32],
                args=[In("in32", a.ravel()), Zeros("out_regs", U32, 8 * n), In("out_mem", mem.ravel()),
                      In("in64", q.ravel()), Zeros("out64_regs", np.uint64, 4 * n), In("out64_mem", mem64.ravel())],
                expect=[Expect(1, regs.ravel(), why="load sinks write no register: slots 1 3 6 keep 0x5EED0000 + k"),
                        Expect(2, mem_out.ravel(), why="store sinks leave memory words 1 4 6 untouched"),
                        Expect(4, regs64.ravel(), why="v4.b64 load {q0, _, q2, _}: q1, q3 keep 0x5EED5EED0000000k"),
                        Expect(5, mem64_out.ravel(), why="v4.b64 store {_, x, _, y}: words 0 and 2 untouched")],
                comment="SEED SEMANTIC (sinks): `_` in ld/st .v8.b32 and .v4.b64 vector operands. out_mem and "
                        "out64_mem start as random patterns (input files), so untouched words are visible.")


# ----------------------------------------------------------------------------------------------
# Kernels as users write them (warp_bits, atomics, int_divmod, half_math, transpose, intrinsics)

def _s32(v):
    return ((int(v) + 2 ** 31) % 2 ** 32) - 2 ** 31


def _s64(v):
    return ((int(v) + 2 ** 63) % 2 ** 64) - 2 ** 63


def _tdiv(x, y):
    """C's truncating division of Python ints."""
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


@spec("warp_bits", "warp_shuffle_reduce")
def _(r):
    n, grid, block = 1000, 4, 256
    x = r.integers(-100, 101, n).astype(np.float32)
    xi = r.integers(-10 ** 9, 10 ** 9, n).astype(np.int32)
    sums = np.array([x[b * block:(b + 1) * block].sum() for b in range(grid)], np.float32)  # integers: exact
    maxes = np.array([xi[b * block:(b + 1) * block].max() for b in range(grid)], np.int32)
    return dict(grid=[grid], block=[block],
                args=[In("x", x), In("xi", xi), Zeros("sums", np.float32, grid), Zeros("maxes", np.int32, grid),
                      Scalar("n", "s32", n)],
                expect=[Expect(2, sums), Expect(3, maxes)],
                comment="Block sum (shfl.sync.down) and max (shfl.sync.bfly) through warp shuffles and shared "
                        "partials; integer-valued floats make the sum exact in any order.")


@spec("warp_bits", "bit_tricks")
def _(r):
    n = 64
    v = r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    v[[5, 9, 10, 40]] = [0, 1, 0x80000000, 0xffffffff]
    want = np.zeros((n, 12), np.uint64)
    for w in range(n // 32):
        vv = [int(t) for t in v[32 * w:32 * w + 32]]
        ballot = sum((b & 1) << l for l, b in enumerate(vv))
        scan = np.cumsum([b & 0xff for b in vv])
        flags = int(all(b < 0x80000000 for b in vv)) | 2 * int(any(b == 0 for b in vv))
        for l in range(32):
            a, y = vv[l], vv[(l + 3) & 31]
            pair = (y << 32) | a
            sel = 0x5140 + l
            bs = [(a >> (8 * k)) & 0xff for k in range(4)] + [(y >> (8 * k)) & 0xff for k in range(4)]
            want[32 * w + l] = [
                ballot, bin(ballot).count("1"), bin(ballot & ((1 << l) - 1)).count("1"),
                int(f"{a:032b}"[::-1], 2), 32 - a.bit_length(), (a & -a).bit_length(),
                ((pair << l) >> 32) & 0xffffffff,  # __funnelshift_l: shift amount & 31
                (pair >> min(l + 20, 32)) & 0xffffffff,  # __funnelshift_rc: clamped to 32
                sum(bs[(sel >> (4 * k)) & 7] << (8 * k) for k in range(4)),  # __byte_perm (prmt)
                int(scan[l]), flags,
                (bin(pair).count("1") + (64 - y.bit_length()) * 100) & 0xffffffff]
    return dict(grid=[1], block=[n], args=[In("x", v), Zeros("out", np.uint32, 12 * n), Scalar("n", "s32", n)],
                expect=[Expect(1, want.astype(np.uint32).ravel())],
                comment="Per lane: __ballot_sync, __popc, rank among set lanes, __brev, __clz, __ffs, "
                        "__funnelshift_l/rc, __byte_perm, an inclusive __shfl_up_sync scan, __all_sync/__any_sync, "
                        "__popcll + __clzll (two warps).")


@spec("warp_bits", "cg_tiled_reduce")
def _(r):
    n, grid, block = 200, 2, 128
    x = r.integers(-1000, 1001, n).astype(np.int32)
    xp = np.concatenate([x, np.zeros(grid * block - n, np.int32)]).reshape(-1, 16)
    return dict(grid=[grid], block=[block],
                args=[In("x", x), Zeros("tile_sums", np.int32, 16), Zeros("tile_max", np.int32, 16),
                      Zeros("total", np.int32, 1), Scalar("n", "s32", n)],
                expect=[Expect(1, xp.sum(1).astype(np.int32)), Expect(2, xp.max(1).astype(np.int32)),
                        Expect(3, np.array([x.sum()], np.int32))],
                comment="cooperative_groups::reduce over thread_block_tile<16> (plus, greater): redux.sync with "
                        "a per-tile membermask (0xffff << 16*(lane/16)), so each warp holds two independent "
                        "groups; threads past n contribute 0.")


@spec("atomics", "atomic_add_fp")
def _(r):
    n = 1000
    x = r.integers(-50, 51, n).astype(np.float32)
    xd = r.integers(-50, 51, n) * 0.25
    idx = np.arange(n)
    xor = 0
    orr = 0
    for i in range(n):
        xor ^= i
        orr |= 1 << (i & 31)
    counters0 = np.array([0, 0, 5000, 0, 0, 0xffffffff], np.uint32)
    counters = np.array([n, 2 * n, 5000 - n, orr, xor, 0xffff0000], np.uint64).astype(np.uint32)
    return dict(grid=[4], block=[256],
                args=[In("x", x), In("xd", xd), Zeros("sum_f", np.float32, 8), Zeros("sum_d", np.float64, 4),
                      In("counter", counters0), Scalar("n", "s32", n)],
                expect=[Expect(2, np.array([x[idx % 8 == k].sum() for k in range(8)], np.float32)),
                        Expect(3, np.array([xd[idx % 4 == k].sum() for k in range(4)])),
                        Expect(4, counters)],
                comment="atomicAdd on float and double (integer and quarter values: exact in any order), "
                        "atomicInc (limit not reached), atomicAdd/Sub/Or/Xor/And on unsigned counters.")


@spec("atomics", "atomic_cas_loops")
def _(r):
    n = 1000
    x = (r.integers(-1000, 1001, n) / 8).astype(np.float32)
    return dict(grid=[4], block=[256],
                args=[In("x", x), In("maxv", np.array([-1e30, -1e30], np.float32)), Zeros("sum64", np.uint64, 1),
                      In("exch", np.array([-5, 10 ** 6, 0], np.int32)), Scalar("n", "s32", n)],
                expect=[Expect(1, np.array([x[0::2].max(), x[1::2].max()], np.float32)),
                        Expect(2, np.array([sum((i + 1) << 33 for i in range(n)) % 2 ** 64], np.uint64)),
                        Expect(3, np.array([max(i * 7 % 1000 for i in range(n)), min(1000 - i for i in range(n)), 42],
                                           np.int32))],
                comment="atomicCAS loops: a float atomicMax on the int bits, a 64-bit add; atomicMax/Min/Exch.")


@spec("atomics", "histogram_shared")
def _(r):
    n = 3000
    data = r.integers(0, 256, n).astype(np.uint8)
    return dict(grid=[4], block=[128],
                args=[In("data", data), Zeros("hist", np.uint32, 64), Scalar("n", "s32", n)],
                expect=[Expect(1, np.bincount(data & 63, minlength=64).astype(np.uint32))],
                comment="64-bin histogram of bytes: shared-memory atomicAdd per block (grid-stride loop), then "
                        "global atomicAdd of the non-zero bins.")


@spec("int_divmod", "divmod64")
def _(r):
    n = 256
    a = r.integers(-2 ** 63, 2 ** 63 - 1, n, dtype=np.int64)
    b = r.integers(-2 ** 40, 2 ** 40, n, dtype=np.int64)
    b[:64] = r.integers(-300, 300, 64)
    b[b == 0] = 3
    a[:8] = [-2 ** 63, 2 ** 63 - 1, -1, 0, 1, -7, 7, -1000003]
    b[0] = 5
    ua = r.integers(0, 2 ** 64, n, dtype=np.uint64)
    ub = r.integers(1, 2 ** 64, n, dtype=np.uint64)
    ub[:64] = r.integers(1, 1000, 64).astype(np.uint64)
    ub[64:128] >>= np.uint64(30)
    rows = []
    for i in range(n):
        x, y, ux, uy = int(a[i]), int(b[i]), int(ua[i]), int(ub[i])
        rows.append([_s64(_tdiv(x, y)), x - _tdiv(x, y) * y, _s64(ux // uy), _s64(ux % uy), _tdiv(x, 7),
                     x - _tdiv(x, 1000003) * 1000003, _s64(ux // 10), ux % 3, (x * y) >> 64, _s64((ux * uy) >> 64),
                     _s64(abs(x) + min(x, y)), _s64((ux >> (y & 63)) ^ ((x >> (uy & 63)) % 2 ** 64))])
    return dict(grid=[2], block=[128],
                args=[In("a", a), In("b", b), In("ua", ua), In("ub", ub), Zeros("out", np.int64, 12 * n),
                      Scalar("n", "s32", n)],
                expect=[Expect(4, np.array(rows, dtype=np.int64).ravel())],
                comment="Signed and unsigned 64-bit / and % by variables and constants (C truncation), "
                        "__mul64hi/__umul64hi, llabs + llmin (wrapping for INT64_MIN), 64-bit shifts by "
                        "variables. No division by zero or INT64_MIN / -1.")


@spec("int_divmod", "divmod32")
def _(r):
    n = 256
    a = r.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    b = r.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    b[:64] = r.integers(-100, 100, 64)
    b[b == 0] = 1
    a[:4] = [-2 ** 31, 2 ** 31 - 1, -1, 0]
    b[0] = 3
    ua = r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    ub = r.integers(1, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    ub[:64] = r.integers(1, 100, 64).astype(np.uint32)
    rows = []
    for i in range(n):
        x, y, ux, uy = int(a[i]), int(b[i]), int(ua[i]), int(ub[i])
        ax = _s32(abs(x))  # abs(INT_MIN) wraps to INT_MIN
        rows.append([_s32(_tdiv(x, y)), x - _tdiv(x, y) * y, _s32(ux // uy), _s32(ux % uy), _tdiv(x, -9),
                     x - _tdiv(x, 13) * 13, ux // 641, (x * y) >> 32, _s32((ux * uy) >> 32),
                     _s32(abs(x - y) + 5 + ax - _tdiv(ax, 17) * 17)])
    return dict(grid=[2], block=[128],
                args=[In("a", a), In("b", b), In("ua", ua), In("ub", ub), Zeros("out", np.int32, 10 * n),
                      Scalar("n", "s32", n)],
                expect=[Expect(4, np.array(rows, dtype=np.int64).astype(np.int32).ravel())],
                comment="32-bit signed/unsigned / and % (variables, constants -9, 13, 641), __mulhi/__umulhi, "
                        "__sad (sad.s32) + abs % 17.")


def _bf16(v, mode="rn"):
    """float64 values -> bf16 bits, rounded once (8 significant bits; normal range only)."""
    m, e = np.frexp(np.asarray(v, np.float64))
    s = np.ldexp(m, 8)
    s = np.rint(s) if mode == "rn" else np.trunc(s)
    return (np.ldexp(s, e - 8).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


def _bf16_f64(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def _fmax16(a, b):
    """max.f16: one NaN gives the other operand; -0 < +0."""
    both0 = (a == 0) & (b == 0)
    return np.where(both0, np.where(np.signbit(a) & np.signbit(b), a, np.abs(a)), np.fmax(a, b)).astype(np.float16)


def _fmin16(a, b):
    both0 = (a == 0) & (b == 0)
    return np.where(both0, np.where(np.signbit(a) | np.signbit(b), -np.abs(a), a), np.fmin(a, b)).astype(np.float16)


@spec("half_math", "half_ops")
def _(r):
    n = 256
    a = (r.standard_normal(n) * 4).astype(np.float16)
    b = (r.standard_normal(n) * 4).astype(np.float16)
    c = (r.standard_normal(n) * 4).astype(np.float16)
    a[:5] = [65504, -0.0, 1e-7, 3, 0.0]
    b[:5] = [65504, 0.0, 1e-7, np.nan, -0.0]
    c[4] = 0.0
    A, B, C = a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)
    with np.errstate(all="ignore"):
        cols = [(A + B).astype(np.float16), (A - B).astype(np.float16), (A * B).astype(np.float16),
                (A * B + C).astype(np.float16),  # fma: exact in f64 for these magnitudes, then one rounding
                _fmax16(a, b), -_fmin16(a, c),
                (A * 3 + np.float64(np.float32(0.1))).astype(np.float32).astype(np.float16),  # fma.rn.f32, cvt.rn
                np.where(a < b, a, np.abs(c)).astype(np.float16)]
    return dict(grid=[2], block=[128],
                args=[In("a", a), In("b", b), In("c", c), Zeros("out", np.float16, 8 * n), Scalar("n", "s32", n)],
                expect=[Expect(3, np.stack(cols, 1).ravel())],
                comment="__hadd/__hsub/__hmul/__hfma (one rounding each), __hmax/__hmin (-0 < +0, NaN -> other "
                        "operand), __float2half_rn of an f32 fma, __hlt + __habs; overflow to inf, subnormals, NaN.")


@spec("half_math", "half2_ops")
def _(r):
    n = 256
    a = (r.standard_normal(2 * n) * 8).astype(np.float16)
    b = (r.standard_normal(2 * n) * 8).astype(np.float16)
    A, B = a.astype(np.float64).reshape(n, 2), b.astype(np.float64).reshape(n, 2)
    out = np.stack([A + B, A * B, A * B + A[:, ::-1]], 1).astype(np.float16)
    return dict(grid=[2], block=[128],
                args=[In("a", a), In("b", b), Zeros("out", np.float16, 6 * n), Scalar("n", "s32", n)],
                expect=[Expect(2, out.ravel())],
                comment="__hadd2/__hmul2/__hfma2 with __lowhigh2highlow (add/mul/fma.rn.f16x2, one rounding per half).")


@spec("half_math", "bf16_ops")
def _(r):
    n = 256
    a = _bf16(r.standard_normal(n) * 100)
    b = _bf16(r.standard_normal(n) * 100)
    f = (r.standard_normal(n) * 1000).astype(np.float32)
    A, B = _bf16_f64(a), _bf16_f64(b)
    out = np.stack([_bf16(A + B), _bf16(A * B), _bf16(A * B + A), _bf16(f), _bf16(f, "rz"), _bf16(np.maximum(A, B))], 1)
    fout = np.stack([(A + B).astype(np.float32), f.astype(np.float16).astype(np.float32)], 1)
    return dict(grid=[2], block=[128],
                args=[In("a", a), In("b", b), In("f", f), Zeros("out", np.uint16, 6 * n), Zeros("fout", np.float32, 2 * n),
                      Scalar("n", "s32", n)],
                expect=[Expect(3, out.ravel()), Expect(4, fout.ravel())],
                comment="bf16 (as raw u16 bits) __hadd/__hmul/__hfma/__hmax, __float2bfloat16_rn/_rz, and "
                        "bf16 -> f32 adds, f32 -> f16 -> f32 round trip; each result rounded once from the exact value.")


@spec("transpose", "transpose_padded")
def _(r):
    w, h = 70, 45
    m = r.standard_normal((h, w)).astype(np.float32)
    return dict(grid=[3, 2], block=[32, 8],
                args=[In("in", m), Zeros("out", np.float32, w * h), Scalar("width", "s32", w), Scalar("height", "s32", h)],
                expect=[Expect(1, m.T.ravel())],
                comment="70 x 45 transpose through a 32 x 33 shared tile (bank-conflict padding), 2-D grid and "
                        "block, partial edge tiles.")


@spec("transpose", "transpose_u64")
def _(r):
    w, h = 70, 45
    m = r.integers(0, 2 ** 64, (h, w), dtype=np.uint64)
    return dict(grid=[3, 2], block=[32, 8],
                args=[In("in", m), Zeros("out", np.uint64, w * h), Scalar("width", "s32", w), Scalar("height", "s32", h)],
                expect=[Expect(1, m.T.ravel())],
                comment="The same transpose of 64-bit words (32 x 33 tile of u64).")


def _bytes(v, signed):
    v = int(v) & 0xffffffff
    bs = [(v >> (8 * k)) & 0xff for k in range(4)]
    return [x - 256 if signed and x >= 128 else x for x in bs]


def _halves(v, signed):
    v = int(v) & 0xffffffff
    hs = [(v >> (16 * k)) & 0xffff for k in range(2)]
    return [x - 65536 if signed and x >= 32768 else x for x in hs]


def _sx24(v):
    v = int(v) & 0xffffff
    return v - 2 ** 24 if v >= 2 ** 23 else v


@spec("intrinsics", "int_intrinsics")
def _(r):
    n = 64
    a = r.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    b = r.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    a[:8] = np.arange(8)
    b[10:20] = 5
    w = r.integers(0, 2 ** 64, 2 * n, dtype=np.uint64)
    out = np.zeros((n, 12), np.int64)
    for wp in range(n // 32):
        idx = range(32 * wp, 32 * wp + 32)
        red = sum(int(a[j]) & 255 for j in idx)
        same = len({int(b[j]) & 1 for j in idx}) == 1
        for l, i in enumerate(idx):
            x, y = int(a[i]), int(b[i])
            hx, by = _halves(x, True), _bytes(y, True)
            ux, uby = _halves(x, False), _bytes(y, False)
            out[i] = [
                _s32(sum(p * q for p, q in zip(_bytes(x, True), by)) + i),  # dp4a.s32.s32
                _s32(sum(p * q for p, q in zip(_bytes(x, False), uby)) + i),  # dp4a.u32.u32
                _s32(hx[0] * by[0] + hx[1] * by[1] + 7),  # dp2a.lo.s32.s32
                _s32(ux[0] * uby[2] + ux[1] * uby[3] + 7),  # dp2a.hi.u32.u32
                _s32(_sx24(x) * _sx24(y)), _s32((x & 0xffffff) * (y & 0xffffff)),  # __mul24, __umul24
                _s32(sum(1 << m for m, j in enumerate(idx) if (int(a[j]) & 3) == (x & 3))),  # __match_any_sync
                _s32((0xffffffff + 2) if same else 0),  # __match_all_sync mask + 2 * pred
                int(a[32 * wp + (l & ~7) + ((l + 1) & 7)]),  # __shfl_sync width 8
                int(a[32 * wp + (l & ~3) + ((l ^ 1) & 3)]),  # __shfl_xor_sync width 4
                _s32(((x + y + 1) >> 1) ^ ((x + y) >> 1)),  # __rhadd ^ __hadd
                _s32(abs((x & 0xffffffff) - (y & 0xffffffff)) + 1 + red)]  # __usad + __reduce_add_sync
    wide = []
    for i in range(n):
        p = int(w[2 * i]) * int(w[2 * i + 1])
        q = (p + (int(w[2 * i]) << 64) + int(w[2 * i + 1])) % 2 ** 128
        wide += [p % 2 ** 64, p >> 64, q % 2 ** 64, q >> 64]
    return dict(grid=[2], block=[32],
                args=[In("a", a), In("b", b), In("w", w), Zeros("out", np.int32, 12 * n),
                      Zeros("wout", np.uint64, 4 * n), Scalar("n", "s32", n)],
                expect=[Expect(3, out.astype(np.int32).ravel()), Expect(4, np.array(wide, np.uint64))],
                comment="__dp4a/__dp2a_lo/__dp2a_hi, __mul24/__umul24, __match_any_sync/__match_all_sync, "
                        "shuffles with width, __rhadd/__hadd, __usad + __reduce_add_sync (redux.sync); unsigned "
                        "__int128 multiply and add (mul.hi.u64, add.cc/addc carry chains).")


@spec("intrinsics", "float_conversions")
def _(r):
    import fractions
    n = 64
    x = (r.standard_normal(n) * 10).astype(np.float32)
    x[:8] = [0.5, 1.5, 2.5, -0.5, -1.5, 0.49999997, 1e-40, -2.5]
    d = r.standard_normal(n) * 100
    d[:4] = [0.5, 1.5, -2.5, 2.5]
    X = x.astype(np.float64)
    with np.errstate(all="ignore"):
        ints = np.stack([np.rint(X), np.trunc(X), np.floor(X), np.ceil(X), np.rint(np.abs(X)), np.rint(d),
                         np.trunc(d * 1e6), np.rint((x * np.float32(3)).astype(np.float64))], 1)
    ints = np.array([[_s32(v) for v in row] for row in ints], np.int64).astype(np.int32)
    floats = np.stack([np.sqrt(np.abs(X)).astype(np.float32),  # f64 sqrt rounded to f32: correctly rounded
                       (X / 3).astype(np.float32), np.rint(x), (np.trunc(x) + np.floor(x)) + np.ceil(x),
                       np.clip(x, 0, 1), np.array([np.float32(i * 123456789) for i in range(n)]),
                       d.astype(np.float32),
                       np.maximum(x, np.float32(-1)) * np.copysign(np.float32(1), d).astype(np.float32)], 1)
    fma = [float(fractions.Fraction(v) * fractions.Fraction(v) - 1) for v in d]  # one rounding
    doubles = np.stack([np.sqrt(np.abs(d)), 1 / d, np.array([float((i * 4000000000) % 2 ** 32) for i in range(n)]),
                        np.array(fma)], 1)
    return dict(grid=[2], block=[32],
                args=[In("f", x), In("d", d), Zeros("iout", np.int32, 8 * n), Zeros("fout", np.float32, 8 * n),
                      Zeros("dout", np.float64, 4 * n), Scalar("n", "s32", n)],
                expect=[Expect(2, ints.ravel()), Expect(3, floats.astype(np.float32).ravel()),
                        Expect(4, doubles.ravel())],
                comment="Rounding conversions (__float2int_rn/rz/rd/ru, cvt.rni/rzi/rmi/rpi incl. ties to even), "
                        "f64 -> int/ll, ll -> f32, u32 -> f64, __fsqrt_rn, __fdiv_rn, rintf/truncf/floorf/ceilf, "
                        "__saturatef, f64 sqrt, __drcp_rn and fma: every result correctly rounded (max_ulp 0).")


@spec("intrinsics", "half_atomics")
def _(r):
    n = 64
    h = (r.integers(-8, 9, 2 * n) / 4).astype(np.float16)
    b = _bf16(r.integers(-8, 9, 2 * n) / 4)
    H = h.astype(np.float64).reshape(n, 2)
    B = _bf16_f64(b).reshape(n, 2)
    idx = np.arange(n)
    return dict(grid=[2], block=[32],
                args=[In("h", h), In("b", b), Zeros("hsum", np.float16, 8), Zeros("bsum", np.uint16, 8),
                      Zeros("hs", np.float16, 2), Scalar("n", "s32", n)],
                expect=[Expect(2, np.array([H[idx % 4 == k].sum(0) for k in range(4)]).astype(np.float16).ravel()),
                        Expect(3, _bf16(np.array([B[idx % 4 == k].sum(0) for k in range(4)]).ravel())),
                        Expect(4, np.array([H[idx % 2 == k, 0].sum() for k in range(2)]).astype(np.float16))],
                comment="atomicAdd on __half2, __nv_bfloat162 and __half (atom.add.noftz.f16x2/.bf16x2/.f16); "
                        "quarter values keep every partial sum exact in any order.")


# ----------------------------------------------------------------------------------------------
# Second sweep of user kernels (nn_ops, libm, libm_fast, cub_block, wmma_gemm, warp_reduce,
# int_bits, atomics64, warp_diverge)

def _key(a):
    """Float bits mapped to integers that order like the values (for counting ulp steps)."""
    a = np.asarray(a)
    ut = np.uint32 if a.dtype == np.float32 else np.uint64
    sign = 1 << (8 * a.dtype.itemsize - 1)
    return [-(int(b) - sign) if int(b) >= sign else int(b) for b in a.view(ut).ravel()]


def _ulp_steps(want, err, dtype=np.float32):
    """The most representable steps (the comparator's ulp distance) between `want` (the correctly
    rounded reference) and any value within `err` (absolute, per element, in float64) of it,
    plus one for rounding at the interval's ends."""
    w = np.asarray(want, dtype).ravel()
    e = np.broadcast_to(np.asarray(err, np.float64), np.shape(want)).ravel()
    hi = (w.astype(np.float64) + e).astype(dtype)
    lo = (w.astype(np.float64) - e).astype(dtype)
    return max(max(h - c, c - lw) for h, c, lw in zip(_key(hi), _key(w), _key(lo))) + 1


def _ulp32(v):
    return np.spacing(np.abs(np.float32(v)) if np.isscalar(v) else np.abs(np.asarray(v, np.float32))).astype(np.float64)


F32 = np.float32


@spec("nn_ops", "rmsnorm_f32")
def _(r):
    rows, cols, eps = 6, 200, F32(1e-6)
    x = r.integers(-8, 9, (rows, cols)).astype(F32)
    x[3] = 0  # an all-zero row: rstd = 1/sqrt(eps)
    w = (r.integers(1, 9, cols) / 4).astype(F32)
    ss = (x.astype(np.float64) ** 2).sum(1).astype(F32)  # integers < 2^24: exact in any order
    ms = ss / F32(cols)                     # div.rn.f32
    rstd = F32(1) / np.sqrt(ms + eps)       # add.f32, sqrt.rn.f32, div.rn.f32 (numpy rounds each once)
    y = (x * rstd[:, None]) * w             # two mul.f32 in source order
    return dict(grid=[rows], block=[128],
                args=[In("x", x.ravel()), In("w", w), Zeros("y", F32, rows * cols), Zeros("rstd", F32, rows),
                      Scalar("cols", "s32", cols), Scalar("eps", "f32", eps)],
                expect=[Expect(2, y.astype(F32).ravel()), Expect(3, rstd.astype(F32))],
                comment="RMS norm, 6 rows x 200 (128 threads, two strided passes): sum of squares through "
                        "__shfl_xor_sync and shared partials, mean by division, 1/sqrtf (IEEE div.rn/sqrt.rn), "
                        "y = x * rstd * w. Integer inputs: the sum is exact and every later step is one IEEE "
                        "rounding numpy repeats.")


def _rotary_data(r, seq, heads, dim, pos):
    """x drawn so that neither rotated component cancels; the reference and its ulp bound for
    cos/sin within 2 ulp (CUDA cosf/sinf, libdevice __nv_cosf/__nv_sinf)."""
    half = dim // 2
    inv_freq = (1.0 / 10000.0 ** (np.arange(half) * 2.0 / dim)).astype(F32)
    ang = pos.astype(F32)[:, None] * inv_freq[None, :]
    c, s = np.cos(ang.astype(np.float64)), np.sin(ang.astype(np.float64))
    x = np.zeros((seq, heads, dim), F32)
    for si in range(seq):
        for h in range(heads):
            for i in range(half):
                while True:
                    x0, x1 = r.standard_normal(2).astype(F32).astype(np.float64)
                    mag = abs(x0 * c[si, i]) + abs(x1 * s[si, i])
                    o0, o1 = x0 * c[si, i] - x1 * s[si, i], x1 * c[si, i] + x0 * s[si, i]
                    if min(abs(o0), abs(o1)) >= mag / 4 and mag > 0.1:
                        break
                x[si, h, i], x[si, h, i + half] = x0, x1
    X = x.astype(np.float64)
    cb, sb = c[:, None, :], s[:, None, :]
    x0, x1 = X[..., :half], X[..., half:]
    out = np.concatenate([x0 * cb - x1 * sb, x1 * cb + x0 * sb], -1)
    uc = _ulp32(np.broadcast_to(c.astype(F32)[:, None, :], x0.shape))
    us = _ulp32(np.broadcast_to(s.astype(F32)[:, None, :], x0.shape))
    e0 = np.abs(x0) * 2 * uc + np.abs(x1) * 2 * us + 0.5 * (_ulp32(np.abs(x0 * cb)) + _ulp32(np.abs(x1 * sb)))
    e1 = np.abs(x1) * 2 * uc + np.abs(x0) * 2 * us + 0.5 * (_ulp32(np.abs(x1 * cb)) + _ulp32(np.abs(x0 * sb)))
    err = np.concatenate([e0, e1], -1) + 0.5 * _ulp32(out)
    return x, inv_freq, out.astype(F32), _ulp_steps(out.astype(F32).ravel(), err.ravel())


@spec("nn_ops", "rotary_f32")
def _(r):
    seq, heads, dim = 8, 2, 32
    half = dim // 2
    pos = (np.arange(seq) * 37 + 5).astype(np.int32)
    x, inv_freq, out, bound = _rotary_data(r, seq, heads, dim, pos)
    ang = pos.astype(F32)[:, None] * inv_freq[None, :]  # mul.f32 (cvt.rn.f32.s32 exact): reproduced exactly
    c32, s32 = np.cos(ang.astype(np.float64)).astype(F32), np.sin(ang.astype(np.float64)).astype(F32)
    return dict(grid=[seq * heads * half // 128], block=[128],
                args=[In("x", x.ravel()), In("pos", pos), In("inv_freq", inv_freq),
                      Zeros("out", F32, seq * heads * dim), Zeros("cos_cache", F32, seq * half),
                      Zeros("sin_cache", F32, seq * half),
                      Scalar("seq", "s32", seq), Scalar("heads", "s32", heads), Scalar("dim", "s32", dim)],
                expect=[Expect(3, out.astype(F32).ravel(), max_ulp=bound,
                               why=f"max_ulp = {bound}: derived per element from sincosf's 2-ulp bound (CUDA "
                                   "Programming Guide) on each of cos and sin, half an ulp per product and for the "
                                   "sum; inputs were drawn so neither component cancels (|out| >= 1/4 of the "
                                   "terms' magnitudes)"),
                        Expect(4, c32.ravel(), max_ulp=2, why="cosf/sincosf: 2 ulp (CUDA Programming Guide)"),
                        Expect(5, s32.ravel(), max_ulp=2, why="sinf/sincosf: 2 ulp (CUDA Programming Guide)")],
                comment="Rotary embedding (GPT-NeoX halves) on 8 positions x 2 heads x 32: angle = pos * inv_freq "
                        "(one f32 multiply, reproduced exactly), sincosf in full precision (fast path: |angle| < "
                        "105615), rotation of each (i, i + 16) pair; cos/sin cache written by head 0.")


@spec("nn_ops", "gelu_f32")
def _(r):
    n = 512
    x = r.uniform(-1, 3, n).astype(F32)
    x[:6] = [0, 1, -1, 2.5, 1e-3, -0.5]
    X = x.astype(np.float64)
    import math
    t = (x * F32(0.70710678118654752)).astype(np.float64)  # mul.f32, reproduced exactly
    e = np.array([math.erf(v) for v in t])
    y_erf = 0.5 * X * (1 + e)
    e_err = np.abs(0.5 * X) * (2 * _ulp32(e) + 0.5 * _ulp32(1 + e)) + 0.5 * _ulp32(y_erf)
    b_erf = _ulp_steps(y_erf.astype(F32), e_err)
    k0, k1 = np.float64(F32(0.7978845608028654)), np.float64(F32(0.044715))
    inner = k0 * (X + k1 * X * X * X)
    th = np.tanh(inner)
    y_tanh = 0.5 * X * (1 + th)
    # inner: four f32 roundings (three products, one add, or an fma), relative <= 4 * 2^-24 of
    # the terms; tanh' <= 1; tanhf 2 ulp (CUDA Programming Guide).
    in_err = 4 * 2.0 ** -24 * (np.abs(k0 * X) + np.abs(k0 * k1 * X ** 3))
    t_err = np.abs(0.5 * X) * (in_err + 2 * _ulp32(th) + 0.5 * _ulp32(1 + th)) + 0.5 * _ulp32(y_tanh)
    b_tanh = _ulp_steps(y_tanh.astype(F32), t_err)
    return dict(grid=[n // 128], block=[128],
                args=[In("x", x), Zeros("y_erf", F32, n), Zeros("y_tanh", F32, n), Scalar("n", "s32", n)],
                expect=[Expect(1, y_erf.astype(F32), max_ulp=b_erf,
                               why=f"max_ulp = {b_erf}: per element from erff's 2-ulp bound (CUDA Programming "
                                   "Guide), half an ulp for 1 + erf and for the product; x >= -1 keeps 1 + erf "
                                   ">= 0.31 (no cancellation)"),
                        Expect(2, y_tanh.astype(F32), max_ulp=b_tanh,
                               why=f"max_ulp = {b_tanh}: per element from four f32 roundings in the tanh argument, "
                                   "tanhf's 2-ulp bound, half an ulp for 1 + tanh and for the product")],
                comment="GELU on 512 values in [-1, 3]: exact form 0.5 x (1 + erff(x / sqrt 2)) and the tanh "
                        "approximation 0.5 x (1 + tanhf(sqrt(2/pi) (x + 0.044715 x^3))), full-precision libm.")


@spec("nn_ops", "argmax_argmin_rows")
def _(r):
    rows, cols = 10, 100
    x = r.integers(-5, 6, (rows, cols)).astype(F32)
    x[2] = 1.0  # all ties: index 0 for both
    x[5, 97] = 9  # the maximum in the last (partial) chunk
    x[7, [3, 40, 99]] = -9  # tied minimum
    return dict(grid=[3], block=[128],
                args=[In("x", x.ravel()), Zeros("amax", np.int32, rows), Zeros("amin", np.int32, rows),
                      Zeros("vmax", F32, rows), Scalar("rows", "s32", rows), Scalar("cols", "s32", cols)],
                expect=[Expect(1, x.argmax(1).astype(np.int32)), Expect(2, x.argmin(1).astype(np.int32)),
                        Expect(3, x.max(1))],
                comment="Row argmax/argmin, one warp per row (4 per block, the last block's two extra warps "
                        "return): strided scan, then __shfl_xor_sync on (value, index) keeping the lower index "
                        "on ties, as numpy and torch do. Values in [-5, 5]: many ties.")


@spec("nn_ops", "splitk_sgemm")
def _(r):
    m, n, k, splits = 40, 48, 96, 3
    a = r.integers(-3, 4, (m, k)).astype(F32)
    b = r.integers(-3, 4, (k, n)).astype(F32)
    return dict(grid=[n // 16, (m + 15) // 16, splits], block=[16, 16],
                args=[In("A", a.ravel()), In("B", b.ravel()), Zeros("C", F32, m * n), Scalar("M", "s32", m),
                      Scalar("N", "s32", n), Scalar("K", "s32", k), Scalar("k_per_split", "s32", k // splits)],
                expect=[Expect(2, (a.astype(np.float64) @ b).astype(F32).ravel())],
                comment="Split-K SGEMM 40x96 @ 96x48 in 3 K-slices (blockIdx.z), 16x16 shared tiles with a "
                        "partial row tile, slices combined with atomicAdd (atom.global.add.f32). Integer inputs: "
                        "every partial sum is exact, so the atomic order cannot matter.")


def _libm_f64ref(name, x):
    import math
    f = {"sin": math.sin, "cos": math.cos, "exp": math.exp, "log": math.log, "tanh": math.tanh,
         "erf": math.erf}[name]
    return np.array([f(float(v)) for v in x])


LIBM_DOC = "CUDA C++ Programming Guide, mathematical functions appendix (maximum ulp error vs the correctly rounded result)"


@spec("libm", "libm_f32")
def _(r):
    n = 256
    sin_x = r.uniform(-10, 10, n)
    sin_x[:12] = [0, -0.0, 1e-20, 3.14159265, 105614.0, 105616.0, 123456.789, 1e7, 3.3e8, 1e20, -7.5e25, 1e30]
    cos_x = r.uniform(-10, 10, n)
    cos_x[:8] = [0, 1.5707964, 200000.0, -9.87e6, 4e9, 1e15, 2.5e38, -1e33]
    exp_x = r.uniform(-80, 80, n)
    exp_x[:6] = [0, 1, -1, 1e-8, 88.5, -87.0]
    log_x = 10.0 ** r.uniform(-30, 30, n)
    log_x[:6] = [1, 1 + 2 ** -20, 1 - 2 ** -22, 2, 1e-40, 3.4e38]
    pow_x = r.uniform(0.1, 10, n)
    pow_y = r.uniform(-8, 8, n)
    pow_x[:4], pow_y[:4] = [2, -2.5, 4, 10], [0.5, 3, -1.5, 7]
    tanh_x = r.uniform(-6, 6, n)
    tanh_x[:4] = [0, 1e-5, -0.3, 9.5]
    erf_x = r.uniform(-4, 4, n)
    erf_x[:4] = [0, 1e-6, -0.5, 3.9]
    xs = [np.asarray(v, F32) for v in (sin_x, cos_x, exp_x, log_x, pow_x, tanh_x, erf_x)]
    y = np.asarray(pow_y, F32)
    refs = [_libm_f64ref(f, xs[k]) for k, f in enumerate(["sin", "cos", "exp", "log"])]
    refs.append(np.power(xs[4].astype(np.float64), y.astype(np.float64)))
    refs += [_libm_f64ref("tanh", xs[5]), _libm_f64ref("erf", xs[6])]
    ulps = [2, 2, 2, 1, 4, 2, 2]
    names = ["sinf", "cosf", "expf", "logf", "powf", "tanhf", "erff"]
    args = [In("in", np.concatenate(xs)), In("y", y)] + [Zeros(f"o_{nm[:-1]}", F32, n) for nm in names] + \
        [Scalar("n", "s32", n)]
    expect = [Expect(2 + k, refs[k].astype(F32), max_ulp=ulps[k],
                     why=f"{names[k]}: {ulps[k]} ulp ({LIBM_DOC}); the reference is the float64 value rounded once")
              for k in range(7)]
    return dict(grid=[n // 128], block=[128], args=args, expect=expect,
                comment="sinf/cosf (fast path and Payne-Hanek reduction up to 2.5e38), expf, logf (subnormal input "
                        "included), powf, tanhf, erff in full precision, 256 arguments each; references in float64 "
                        "(Python math) rounded once to float32.")


@spec("libm", "libm_f64")
def _(r):
    n = 256
    sq = 10.0 ** r.uniform(-300, 300, n)
    sq[:4] = [0, 2, 1e-310, 1.7e308]
    ex = r.uniform(-700, 700, n)
    ex[:4] = [0, 1, -1, 1e-12]
    lg = 10.0 ** r.uniform(-300, 300, n)
    lg[:4] = [1, 1 + 2 ** -40, 2, 1e-310]
    sn = r.uniform(-100, 100, n)
    sn[:6] = [0, 1e-200, 3.141592653589793, 1e10, 1e100, -7.7e300]
    import math
    refs = [np.sqrt(sq), np.array([math.exp(v) for v in ex]), np.array([math.log(v) for v in lg]),
            np.array([math.sin(v) for v in sn])]
    doc = [0, 1, 1, 2]
    why = ["sqrt: correctly rounded (IEEE sqrt.rn.f64), as numpy",
           "exp: 1 ulp (" + LIBM_DOC + ") + 1 for the host libm reference",
           "log: 1 ulp (" + LIBM_DOC + ") + 1 for the host libm reference",
           "sin: 2 ulp (" + LIBM_DOC + ") + 1 for the host libm reference (glibc: < 1 ulp, exact reduction)"]
    return dict(grid=[n // 128], block=[128],
                args=[In("in", np.concatenate([sq, ex, lg, sn])), Zeros("o_sqrt", np.float64, n),
                      Zeros("o_exp", np.float64, n), Zeros("o_log", np.float64, n), Zeros("o_sin", np.float64, n),
                      Scalar("n", "s32", n)],
                expect=[Expect(1 + k, refs[k], max_ulp=doc[k] + (k > 0), why=why[k]) for k in range(4)],
                comment="Double-precision sqrt, exp (down to subnormal results), log (subnormal input), sin (huge "
                        "arguments: Payne-Hanek), 256 arguments each; references from the host's libm.")


@spec("libm_fast", "libm_f32")
def _(r):
    n = 256
    import math
    # Inputs inside the ranges where the intrinsics' bounds are stated.
    # |sin x|, |cos x| >= 1/4 and |log x| >= 0.28 keep the absolute bounds within a few ulp.
    cand = r.uniform(-math.pi, math.pi, 8 * n)
    sin_x = cand[np.abs(np.sin(cand)) >= 0.25][:n]
    cos_x = cand[np.abs(np.cos(cand)) >= 0.25][-n:]
    exp_x = r.uniform(-10, 10, n)
    log_x = np.concatenate([r.uniform(0.5, 0.75, 64), r.uniform(1.33, 2, 64), 10.0 ** r.uniform(-20, 20, n - 128)])
    pow_x = r.uniform(0.1, 10, n)
    pow_y = r.uniform(-4, 4, n)
    tanh_x = r.uniform(-5, 5, n)
    erf_x = r.uniform(0.5, 3, n) * np.where(r.integers(0, 2, n) == 1, 1, -1)
    xs = [np.asarray(v, F32) for v in (sin_x, cos_x, exp_x, log_x, pow_x, tanh_x, erf_x)]
    y = np.asarray(pow_y, F32)
    X = [v.astype(np.float64) for v in xs]
    refs = [_libm_f64ref("sin", xs[0]), _libm_f64ref("cos", xs[1]), _libm_f64ref("exp", xs[2]),
            _libm_f64ref("log", xs[3]), np.power(X[4], y.astype(np.float64)), _libm_f64ref("tanh", xs[5]),
            _libm_f64ref("erf", xs[6])]
    half = [0.5 * _ulp32(v) for v in refs]
    errs = [2.0 ** -21.41 + half[0],                       # __sinf: abs 2^-21.41 on [-pi, pi]
            2.0 ** -21.19 + half[1],                       # __cosf: abs 2^-21.19 on [-pi, pi]
            (2 + np.floor(np.abs(1.173 * X[2]))) * _ulp32(refs[2]) + half[2],   # __expf: 2 + floor(|1.173 x|) ulp
            np.where((X[3] >= 0.5) & (X[3] <= 2), 2.0 ** -21.41, 3 * _ulp32(refs[3])) + half[3],  # __logf
            None,
            2.0 ** -10.987 * np.abs(refs[5]) + half[5],    # tanh.approx.f32: relative 2^-10.987 (PTX ISA)
            None]
    # __powf(x, y) = exp2f(y * __log2f(x)): __log2f abs 2^-22 on [0.5, 2], else 2 ulp; the product
    # rounds once; ex2.approx.ftz.f32 relative 2^-22 (PTX ISA); an error e in the exponent scales
    # the result by 2^e (relative ln2 * e).
    l2 = np.log2(X[4])
    l2_err = np.where((X[4] >= 0.5) & (X[4] <= 2), 2.0 ** -22, 2 * _ulp32(l2))
    t = y.astype(np.float64) * l2
    t_err = np.abs(y) * l2_err + 0.5 * _ulp32(t)
    errs[4] = np.abs(refs[4]) * (math.log(2) * t_err * 1.01 + 2.0 ** -22) + half[4]
    # erff with -use_fast_math: erff's 2 ulp, and the exp(-x^2) term through ex2.approx.ftz
    # (relative 2^-22) scaled by 1 - |erf(x)| (inputs 0.5 <= |x| <= 3).
    errs[6] = 2 * _ulp32(refs[6]) + (1 - np.abs(refs[6])) * 2.0 ** -22 + half[6]
    bounds = [_ulp_steps(refs[k].astype(F32), np.broadcast_to(errs[k], refs[k].shape)) for k in range(7)]
    names = ["__sinf", "__cosf", "__expf", "__logf", "__powf", "tanhf (tanh.approx.f32)", "erff"]
    args = [In("in", np.concatenate(xs)), In("y", y)] + \
        [Zeros(f"o_{nm}", F32, n) for nm in ("sin", "cos", "exp", "log", "pow", "tanh", "erf")] + [Scalar("n", "s32", n)]
    expect = [Expect(2 + k, refs[k].astype(F32), max_ulp=bounds[k],
                     why=f"{names[k]} with -use_fast_math: max_ulp = {bounds[k]}, the largest ulp distance the "
                         "documented error bound allows over these inputs (CUDA Programming Guide intrinsic-function "
                         "bounds, PTX ISA .approx bounds), plus the reference's half ulp")
              for k in range(7)]
    return dict(grid=[n // 128], block=[128], args=args, expect=expect,
                comment="libm.cu's libm_f32 compiled with -use_fast_math: sin.approx/cos.approx/ex2.approx/"
                        "lg2.approx/tanh.approx with .ftz. Inputs lie where the intrinsics' error bounds are stated "
                        "(|x| <= pi for __sinf/__cosf, with |sin x|, |cos x| >= 1/4; __logf on [0.5, 0.75], [1.33, 2] and "
                        "beyond, away from 1; "
                        "erff on 0.5 <= |x| <= 3).")


@spec("cub_block", "cub_block_reduce")
def _(r):
    n, grid = 1000, 8
    xi = r.integers(-10 ** 6, 10 ** 6, n).astype(np.int32)
    xf = r.standard_normal(n).astype(F32)
    sums = np.array([xi[b * 128:(b + 1) * 128].sum() for b in range(grid)], np.int32)
    maxes = np.array([xf[b * 128:(b + 1) * 128].max() for b in range(grid)], F32)
    return dict(grid=[grid], block=[128],
                args=[In("xi", xi), In("xf", xf), Zeros("sums", np.int32, grid), Zeros("maxes", F32, grid),
                      Scalar("n", "s32", n)],
                expect=[Expect(2, sums), Expect(3, maxes)],
                comment="cub::BlockReduce<int, 128>::Sum (warp reductions) and BlockReduce<float, 128, "
                        "BLOCK_REDUCE_RAKING>::Reduce with cuda::maximum, 1000 values over 8 blocks (last partial).")


@spec("cub_block", "cub_block_scan")
def _(r):
    grid = 2
    x = r.integers(-1000, 1001, grid * 512).astype(np.int32)
    xb = x.reshape(grid, 512)
    excl = np.concatenate([np.zeros((grid, 1), np.int64), np.cumsum(xb, 1)[:, :-1]], 1).astype(np.int32)
    incl = np.maximum.accumulate(xb, 1).astype(np.int32)
    return dict(grid=[grid], block=[128],
                args=[In("x", x), Zeros("excl", np.int32, x.size), Zeros("incl_max", np.int32, x.size),
                      Zeros("totals", np.int32, grid)],
                expect=[Expect(1, excl.ravel()), Expect(2, incl.ravel()), Expect(3, xb.sum(1).astype(np.int32))],
                comment="cub::BlockScan<int, 128> ExclusiveSum of 4 items per thread (with the block aggregate) "
                        "and BlockScan<..., BLOCK_SCAN_WARP_SCANS> InclusiveScan with cuda::maximum.")


@spec("cub_block", "cub_block_radix_sort")
def _(r):
    grid = 2
    keys = r.integers(0, 2 ** 32, grid * 512, dtype=np.uint64).astype(np.uint32)
    keys[:16] = keys[16:32]  # duplicates
    fk = (r.integers(-400, 400, grid * 512) / 8).astype(F32)  # many ties
    fk[fk == 0] = 0.125  # no zeros (radix order puts -0 below +0)
    vals = np.arange(grid * 512, dtype=np.int32)
    s = np.sort(keys.reshape(grid, 512), 1)
    fs, vs = [], []
    for b in range(grid):
        k = fk[b * 512:(b + 1) * 512]
        order = np.argsort(-k.astype(np.float64), kind="stable")  # CUB's radix sort is stable
        fs.append(k[order])
        vs.append(vals[b * 512:(b + 1) * 512][order])
    return dict(grid=[grid], block=[128],
                args=[In("keys", keys), Zeros("sorted", np.uint32, keys.size), In("fkeys", fk), In("vals", vals),
                      Zeros("fsorted", F32, fk.size), Zeros("vsorted", np.int32, fk.size)],
                expect=[Expect(1, s.ravel()), Expect(4, np.concatenate(fs)), Expect(5, np.concatenate(vs))],
                comment="cub::BlockRadixSort<unsigned, 128, 4>::Sort and BlockRadixSort<float, 128, 4, int>::"
                        "SortDescending of key-value pairs (stable: tied keys keep their input order), 512 per block.")


@spec("wmma_gemm", "wmma_gemm_f16")
def _(r):
    m, n, k = 32, 48, 64
    a = r.integers(-3, 4, (m, k)).astype(np.float16)
    b = r.integers(-3, 4, (k, n)).astype(np.float16)
    c = r.integers(-50, 51, (m, n)).astype(F32)
    alpha, beta = 2.0, -1.0
    out = (alpha * (a.astype(np.float64) @ b.astype(np.float64)) + beta * c).astype(F32)
    return dict(grid=[2], block=[128],
                args=[In("A", a.ravel()), In("B", b.ravel()), In("C", c.ravel()), Scalar("M", "s32", m),
                      Scalar("N", "s32", n), Scalar("K", "s32", k), Scalar("alpha", "f32", alpha),
                      Scalar("beta", "f32", beta)],
                expect=[Expect(2, out.ravel())],
                comment="nvcuda::wmma 16x16x16 GEMM, 32x64 @ 64x48 (half, row-major A and B), float accumulation, "
                        "C = 2 A B - C through load_matrix_sync of the accumulator and per-element fragment "
                        "arithmetic; 6 warps work, 2 return. Small integers: exact.")


@spec("wmma_gemm", "wmma_gemm_bf16_colmajor")
def _(r):
    m, n, k = 32, 32, 48
    a = r.integers(-4, 5, (m, k))
    bt = r.integers(-4, 5, (n, k))
    out = (a @ bt.T).T.astype(F32)  # column-major C: Ct[n][m]
    return dict(grid=[1], block=[128],
                args=[In("A", _bf16(a.ravel())), In("Bt", _bf16(bt.ravel())), Zeros("Ct", F32, m * n),
                      Scalar("M", "s32", m), Scalar("N", "s32", n), Scalar("K", "s32", k)],
                expect=[Expect(2, out.ravel())],
                comment="wmma with __nv_bfloat16 inputs (raw u16 bits), B column-major, the accumulator stored "
                        "column-major to shared memory (wmma.store.d...col...shared.f32) and copied out. Exact.")


@spec("warp_reduce", "warp_xor_reduce")
def _(r):
    rows, cols = 6, 96
    x = r.integers(-1000, 1001, (rows, cols)).astype(np.int32)
    x[4, 7] = -2 ** 31 + 5
    xd = (r.integers(-400, 401, (rows, cols)) / 4).astype(np.float64)
    out = np.zeros((rows, 6), np.int64)
    out[:, 0] = x.sum(1)
    out[:, 1] = x.max(1)
    out[:, 2] = x.view(np.uint32).min(1).astype(np.int64)
    out[:, 3] = x[:, 0]
    out[:, 4] = x[:, 0:16].sum(1)
    out[:, 5] = x[:, 16:32].sum(1)
    wrap = ((out + 2 ** 31) % 2 ** 32 - 2 ** 31).astype(np.int32)
    return dict(grid=[3], block=[64],
                args=[In("x", x.ravel()), In("xd", xd.ravel()), Zeros("out_i", np.int32, rows * 6),
                      Zeros("out_d", np.float64, rows), Scalar("rows", "s32", rows), Scalar("cols", "s32", cols)],
                expect=[Expect(2, wrap.ravel()), Expect(3, xd.sum(1))],
                comment="Butterfly warp reductions with __shfl_xor_sync: int sum, max, unsigned min, double sum "
                        "(quarter values: exact), __shfl_sync broadcast of lane 0, and a 16-lane segmented sum "
                        "(width 16); one warp per row.")


def _brev(v, bits):
    return int(format(int(v), f"0{bits}b")[::-1], 2)


def _bfe(a, pos, ln, bits, signed):
    pos, ln = pos & 0xff, ln & 0xff
    msb = bits - 1
    sbit = 0 if not signed or ln == 0 else (a >> min(pos + ln - 1, msb)) & 1
    d = 0
    for i in range(bits):
        bit = (a >> (pos + i)) & 1 if i < ln and pos + i <= msb else sbit
        d |= bit << i
    return d


def _bfi(a, b, pos, ln, bits):
    pos, ln = pos & 0xff, ln & 0xff
    d = b
    for i in range(ln):
        if pos + i <= bits - 1:
            d = (d & ~(1 << (pos + i))) | (((a >> i) & 1) << (pos + i))
    return d


def _bfind_signed(v, bits):
    v = v - (1 << bits) if v >> (bits - 1) else v
    if v < 0:
        v = ~v
    return 0xffffffff if v == 0 else v.bit_length() - 1


@spec("int_bits", "int_bits")
def _(r):
    n = 64
    x = r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    y = r.integers(0, 2 ** 64, n, dtype=np.uint64)
    x[:6] = [0, 1, 0xffffffff, 0x80000000, 0x000003e0, 0x7fffffff]
    y[:6] = [0, 2 ** 64 - 1, 2 ** 63, 1, 0xffffffff00000000, 0x00000000ffffffff]
    o = np.zeros((n, 16), np.uint64)
    o64 = np.zeros((n, 4), np.uint64)
    M32 = 0xffffffff
    for i in range(n):
        v, w = int(x[i]), int(y[i])
        pos, ln = v & 31, (v >> 5) & 31
        wl, wh = w & M32, w >> 32
        ffs = lambda t: (t & -t).bit_length()
        sv = (v << 3) & M32
        sv = sv - 2 ** 32 if sv >> 31 else sv
        d = ((v & wl) | wh) & M32
        e = (v ^ wl ^ wh) & M32
        q = (v & 3) == 1
        bp = [(((wl << 32) | v) >> (8 * sel)) & 0xff for sel in (1, 3, 5, 7)]
        o[i] = [bin(v).count("1"), bin(w).count("1"), 32 - v.bit_length(), 64 - w.bit_length(), ffs(v), ffs(w),
                (v >> 7) & 0x3ff, (sv >> 20) & M32, _bfe(v, pos, ln, 32, False), _bfe(v, pos, ln, 32, True),
                _bfi(v, wl, pos, ln, 32), (v.bit_length() - 1) & M32, _bfind_signed(w, 64),
                (v & ~0xff00) | ((w & 0xff) << 8),
                (d + 2 * int(d != 0 and q)) & M32, (e + 2 * int(e != 0 or q)) & M32]
        o64[i] = [_brev(w, 64), _bfe(w, pos + 16, ln + 8, 64, True), (w >> 13) & 0xfffffffff,
                  _brev(v, 32) | (sum(b << (8 * k) for k, b in enumerate(bp)) << 32)]
    return dict(grid=[1], block=[64],
                args=[In("x", x), In("y", y), Zeros("out", np.uint32, 16 * n), Zeros("out64", np.uint64, 4 * n),
                      Scalar("n", "s32", n)],
                expect=[Expect(2, o.astype(np.uint32).ravel()), Expect(3, o64.ravel())],
                comment="__popc/__popcll/__clz/__clzll/__ffs/__ffsll/__brevll/__brev/__byte_perm, constant-position "
                        "fields, inline-asm bfe.u32/bfe.s32/bfe.s64/bfi.b32 with register position and length (the "
                        "ISA's clamping when pos + len passes the msb), bfind.u32/bfind.s64, and lop3.and/lop3.or "
                        "with a predicate result (p = (d != 0) BoolOp q).")


@spec("atomics64", "atomics64")
def _(r):
    n = 512
    x = r.integers(-2 ** 40, 2 ** 40, n)
    x[[100, 300]] = 2 ** 40 + 12345  # tied maximum (also in the packed argmax's high word)
    x[[7, 8]] = [-2 ** 41, 17]
    xd = r.standard_normal(n)
    xd[200] = 1e300
    acc0 = np.array([0, 0, 0, 2 ** 64 - 1, 0, 0xdeadbeefcafef00d, 2 ** 63, 2 ** 63 - 1,
                     int(np.array(-np.inf).view(np.uint64)), 0, 0], np.uint64)
    M = 2 ** 64 - 1
    xs = [int(v) for v in x]
    acc = [0] * 11
    acc[0] = sum(v & M for v in xs) & M
    for v in xs:
        acc[1] ^= ((v & M) * 0x9E3779B97F4A7C15) & M
    acc[2] = M
    acc[3] = M & ~(2 ** 61 - 1)  # i % 61 covers bits 0..60 (n > 61)
    packed = [((((v >> 20) + 2 ** 31) & 0xffffffff) << 32) | (0xffffffff - i) for i, v in enumerate(xs)]
    acc[4] = max(packed)
    acc[5] = 0x123456789 ^ (xs[7] & M)
    acc[6] = max(xs) & M
    acc[7] = min(xs) & M
    acc[8] = int(np.array(max(xd.max(), -np.inf)).view(np.uint64))
    acc[9] = max(v & M for v in xs)
    acc[10] = 0xdeadbeefcafef00d
    return dict(grid=[n // 128], block=[128],
                args=[In("x", x.astype(np.int64)), In("xd", xd), In("acc", acc0), Scalar("n", "s32", n)],
                expect=[Expect(2, np.array(acc, np.uint64))],
                comment="64-bit atomics: atomicAdd/Xor/Or/And on unsigned long long, atomicMax on a packed "
                        "(value << 32 | ~index) word (argmax, lowest index on ties), atomicMax/atomicMin on long "
                        "long, a double max through an atomicCAS loop on unsigned long long, atomicMax on "
                        "unsigned long long, one atomicExch whose old value is kept.")


def _slow(v):
    for _ in range(3):
        v = (v * 2654435761 + 12345) & 0xffffffff
    return v


@spec("warp_diverge", "vote_after_divergence")
def _(r):
    n = 64
    x = r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    x[[3, 9, 33, 60]] = [7, 14, 700, 0]
    out = np.zeros((2, n, 3), np.uint32)
    for w in range(n // 32):
        v = [int(t) for t in x[32 * w:32 * w + 32]]
        for it in range(2):
            v = [(_slow(t) | 1) if t % 7 == 0 else t for t in v]
            b = sum((t & 1) << l for l, t in enumerate(v))
            s = sum(t & 0xff for t in v)
            nb = [v[(l + 1) & 31] for l in range(32)]
            for l in range(32):
                out[it, 32 * w + l] = [b, s, nb[l]]
            v = [(t + nb[l]) & 0xffffffff for l, t in enumerate(v)]
    return dict(grid=[1], block=[n],
                args=[In("x", x), Zeros("out", np.uint32, 2 * n * 3), Scalar("n", "s32", n)],
                expect=[Expect(1, out.ravel())],
                comment="Lanes whose value is a multiple of 7 run an unlikely branch that nvcc places after the "
                        "join (out of line, bra.uni back); then __ballot_sync, __reduce_add_sync and __shfl_sync "
                        "over the full warp. Every lane must take part: vote.sync and friends wait for all "
                        "non-exited lanes of the membermask.")


@spec("warp_diverge", "vote_out_of_line")
def _(r):
    n = 64
    x = r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    out = np.zeros((n, 4), np.uint32)
    for w in range(n // 32):
        v = [int(t) for t in x[32 * w:32 * w + 32]]
        v = [(t * 3 + 1) & 0xffffffff if t & 3 == 0 else t for t in v]
        b = sum((t & 1) << l for l, t in enumerate(v))
        for l in range(32):
            t = v[l] & 1
            out[32 * w + l] = [b, max(v), sum(1 << j for j in range(32) if v[j] & 1 == t), v[l ^ 1]]
    return dict(grid=[1], block=[n],
                args=[In("x", x), Zeros("out", np.uint32, 4 * n)],
                expect=[Expect(1, out.ravel())],
                comment="The same in inline PTX: lanes with x % 4 == 0 branch past vote.sync.ballot, "
                        "redux.sync.max.u32, match.any.sync.b32 and shfl.sync.bfly to an out-of-line block and "
                        "jump back; the results cover the whole warp.")


def _lanes(v, w):
    return [(int(v) >> (w * k)) & ((1 << w) - 1) for k in range(32 // w)]


def _pack(vals, w):
    return sum((int(t) & ((1 << w) - 1)) << (w * k) for k, t in enumerate(vals))


def _sgn(t, w):
    return t - (1 << w) if t >> (w - 1) else t


def _fns_ref(mask, base, offset):
    if offset == 0:
        return base if mask >> base & 1 else 0xffffffff
    count, pos, inc = abs(offset) - 1, base, 1 if offset > 0 else -1
    while 0 <= pos < 32:
        if mask >> pos & 1:
            if count == 0:
                return pos
            count -= 1
        pos += inc
    return 0xffffffff


@spec("simd_video", "simd_intrinsics")
def _(r):
    n = 128
    x = r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    y = r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    x[:4] = [0x80808080, 0x7f7f0000, 0xffffffff, 0x00010203]
    y[:4] = [0x7f7f7f7f, 0x7f7f0000, 0x00000001, 0x03020100]
    y[4:8] = [0x8000000a, 0x0000001f, 0xf0000000, 0x70000005]  # __fns offsets 0, -8, 7, -1
    out = np.zeros((n, 16), np.uint64)
    for i in range(n):
        a, b = int(x[i]), int(y[i])
        A4, B4, A2, B2 = _lanes(a, 8), _lanes(b, 8), _lanes(a, 16), _lanes(b, 16)
        out[i] = [_pack([abs(p - q) for p, q in zip(A4, B4)], 8),
                  sum(abs(p - q) for p, q in zip(A4, B4)),
                  sum(abs(p - q) for p, q in zip(A2, B2)),
                  _pack([p + q for p, q in zip(A4, B4)], 8),
                  _pack([max(-128, min(127, _sgn(p, 8) + _sgn(q, 8))) for p, q in zip(A4, B4)], 8),
                  _pack([p - q for p, q in zip(A2, B2)], 16),
                  _pack([max(_sgn(p, 16), _sgn(q, 16)) for p, q in zip(A2, B2)], 16),
                  _pack([max(p, q) for p, q in zip(A4, B4)], 8),
                  _pack([min(p, q) for p, q in zip(A2, B2)], 16),
                  _pack([(p + q + 1) >> 1 for p, q in zip(A4, B4)], 8),
                  _pack([(p + q) >> 1 for p, q in zip(A4, B4)], 8),
                  _pack([0xff if p > q else 0 for p, q in zip(A4, B4)], 8),
                  _pack([1 if p == q else 0 for p, q in zip(A2, B2)], 16),
                  _pack([min(127, abs(_sgn(p, 8))) for p in A4], 8),
                  _pack([-p for p in A2], 16),
                  _fns_ref(a, b & 31, (b >> 28) - 8)]
    return dict(grid=[1], block=[n],
                args=[In("x", x), In("y", y), Zeros("out", np.uint32, 16 * n), Scalar("n", "s32", n)],
                expect=[Expect(2, out.astype(np.uint32).ravel())],
                comment="SIMD-within-a-word intrinsics per the CUDA Math API: __vabsdiffu4, __vsadu4, __vsadu2 "
                        "(vabsdiff4/vabsdiff2 video instructions, .add accumulating), __vadd4, __vaddss4 (signed "
                        "saturation), __vsub2, __vmaxs2/__vminu2 (max.s16x2/min.u16x2 on sm_90), __vmaxu4, "
                        "__vavgu4 (rounded), __vhaddu4 (truncated), __vcmpgtu4, __vseteq2, __vabsss4, __vneg2, "
                        "and __fns with offsets from -8 to 7.")


@spec("simd_video", "coalesced_groups")
def _(r):
    n = 64
    x = r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32)
    x[32:40] |= 1  # a run of odd values
    out = np.zeros((n, 3), np.uint32)
    for w in range(n // 32):
        v = [int(t) for t in x[32 * w:32 * w + 32]]
        mask = sum(1 << l for l in range(32) if v[l] & 1)
        first = v[(mask & -mask).bit_length() - 1] if mask else 0
        for l in range(32):
            if v[l] & 1:
                out[32 * w + l] = [bin(mask).count("1"), bin(mask & ((1 << l) - 1)).count("1"), first]
    return dict(grid=[1], block=[n],
                args=[In("x", x), Zeros("out", np.uint32, 3 * n)],
                expect=[Expect(1, out.ravel())],
                comment="cooperative_groups::coalesced_threads() inside `if (v & 1)`: the group is the warp's "
                        "lanes with odd values (activemask after the branch), size = popc, thread_rank = popc of "
                        "the lanes below, g.shfl(v, 0) reads the lowest such lane. Assumes the lanes that take the "
                        "branch together are converged there, as the interpreter schedules them.")


# ----------------------------------------------------------------------------------------------
# Triton kernels (configs.py)

def triton_spec(name):
    def deco(fn):
        SPECS.append(("triton:" + name, None, name, fn))
        return fn
    return deco


def _cfg(name):
    (c,) = [c for c in triton_configs.KERNELS if c["name"] == name]
    return c


def _vadd(name, dtype, two_outputs=False):
    c = _cfg(name)
    n = dict((a[0], a[2]) for a in c["args"] if len(a) == 3)["n_elements"]
    r = rng(name)
    if dtype == np.float16:
        x = (r.standard_normal(n) * 8).astype(np.float16)
        y = (r.standard_normal(n) * 8).astype(np.float16)
    else:
        x = r.standard_normal(n).astype(dtype)
        y = r.standard_normal(n).astype(dtype)
    args = [In("x", x), In("y", y), Zeros("out", dtype, n)]
    expect = [Expect(2, x + y)]  # one IEEE add (numpy f16 add rounds once: f32 has >= 2*11+2 bits)
    if two_outputs:
        args.append(Zeros("out2", dtype, n))
        expect.append(Expect(3, x - y))
    args += [Scalar("n_elements", "s32", n), Null(), Null()]
    return args, expect


@triton_spec("vadd_evict_last")
def _(r):
    args, expect = _vadd("vadd_evict_last", np.float32)
    return dict(args=args, expect=expect,
                comment="out = x + y; loads with eviction_policy='evict_last' (createpolicy.fractional + "
                        ".L1::evict_last.L2::cache_hint); n = 1536 is a multiple of 16, so Triton emits v4 accesses.")


@triton_spec("vadd_evict_first")
def _(r):
    args, expect = _vadd("vadd_evict_first", np.float32)
    return dict(args=args, expect=expect,
                comment="out = x + y with evict_first/evict_last loads and an evict_first store; n = 1500 keeps "
                        "per-element masks (scalar predicated accesses).")


@triton_spec("vadd_cg_cs")
def _(r):
    args, expect = _vadd("vadd_cg_cs", np.float32)
    return dict(args=args, expect=expect, comment="out = x + y; ld.global.cg / ld.global.cs / st.global.cs (v4).")


@triton_spec("vadd_ca_wt")
def _(r):
    args, expect = _vadd("vadd_ca_wt", np.float32)
    return dict(args=args, expect=expect, comment="out = x + y; ld.global.ca / st.global.wt, masked tail.")


@triton_spec("vadd_cv_wb_cg")
def _(r):
    args, expect = _vadd("vadd_cv_wb_cg", np.float32, two_outputs=True)
    return dict(args=args, expect=expect,
                comment="out = x + y via st.global.wb, out2 = x - y via st.global.cg; x via ld.global.cv.")


@triton_spec("vadd_f16_evict")
def _(r):
    args, expect = _vadd("vadd_f16_evict", np.float16)
    return dict(args=args, expect=expect,
                comment="fp16 out = x + y with evict_first/evict_last loads and st.global.cs; one correctly rounded "
                        "f16 add per element.")


SOFTMAX_LOG2E = np.float32(np.uint32(0x3FB8AA3B).view(np.float32))


@triton_spec("softmax")
def _(r):
    c = _cfg("softmax")
    vals = dict((a[0], a[2]) for a in c["args"] if len(a) == 3)
    rows, cols = c["grid"][0], vals["n_cols"]
    x = (r.integers(-32, 33, (rows, cols)) / 8).astype(np.float32)  # multiples of 1/8 in [-4, 4]
    d = x - x.max(axis=1, keepdims=True)  # exact in f32
    t = d * SOFTMAX_LOG2E  # mul.f32 by 0f3FB8AA3B, as in the PTX: emulated in f32
    e = np.exp2(t.astype(np.float64))
    out = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    why = ("max_ulp = 24: the reference rounds the IEEE steps exactly as the PTX does (sub.f32, mul.f32 by "
           "0f3FB8AA3B) and evaluates exp2, the sum and the division exactly. The PTX ISA allows: ex2.approx.f32 "
           "<= 2 ulp per term (relative 4 * 2^-24), so the sum too, plus <= 8 * 2^-24 from f32 additions along "
           "Triton's reduction tree (depth <= 8; all terms positive); the quotient inherits 4 + 4 + 8 = 16 * 2^-24 "
           "(<= 16 ulp) and div.full.f32 adds <= 2 ulp: < 19 ulp with rounding; 24 leaves margin.")
    return dict(args=[Zeros("output", np.float32, rows * cols), In("input", x.ravel()),
                      Scalar("input_row_stride", "s32", cols), Scalar("output_row_stride", "s32", cols),
                      Scalar("n_cols", "s32", cols), Null(), Null()],
                expect=[Expect(0, out.ravel(), max_ulp=24, why=why)], requires_ptx_text=["0f3FB8AA3B", "ex2.approx.f32"],
                comment="Fused row softmax, 8 rows x 100 columns (BLOCK_SIZE 128, masked with -inf).")


@triton_spec("layer_norm")
def _(r):
    c = _cfg("layer_norm")
    vals = dict((a[0], a[2]) for a in c["args"] if len(a) == 3)
    rows, n, eps = c["grid"][0], vals["N"], np.float32(vals["eps"])
    half = r.integers(-8, 9, (rows, n // 2))
    x = np.concatenate([half, -half], axis=1)
    x = np.stack([row[rng(f"layer_norm/perm{i}").permutation(n)] for i, row in enumerate(x)]).astype(np.float32)
    w = (r.integers(1, 9, n) / 4).astype(np.float32)
    b = np.where(np.arange(n) % 2 == 0, 0.0, 64.0).astype(np.float32)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1)  # exactly 0: each row is a multiset and its negation
    assert np.all(mean == 0)
    var = (x64 * x64).mean(axis=1)  # integer sum / 256: exact
    var_eps = (var.astype(np.float32) + eps).astype(np.float64)  # add.f32 in the PTX, IEEE
    rstd = 1.0 / np.sqrt(var_eps)
    y = (x64 * rstd[:, None]) * w + b
    return dict(args=[In("X", x.ravel()), Zeros("Y", np.float32, rows * n), In("W", w), In("B", b),
                      Zeros("Mean", np.float32, rows), Zeros("Rstd", np.float32, rows), Scalar("stride", "s32", n),
                      Scalar("N", "s32", n), Scalar("eps", "f32", eps), Null(), Null()],
                expect=[Expect(4, mean.astype(np.float32), max_ulp=2,
                               why="mean = div.full.f32(sum, 256) with an exact integer sum of 0: div.full <= 2 ulp"),
                        Expect(5, rstd.astype(np.float32), max_ulp=10,
                               why="rstd = div.full(1, sqrt.approx.ftz(var + eps)): var from div.full (<= 2 ulp, "
                                   "halved by the square root), sqrt.approx relative error <= 2^-23, div.full <= 2 "
                                   "ulp: < 9 ulp with rounding; 10 allowed"),
                        Expect(1, y.astype(np.float32).ravel(), max_ulp=12,
                               why="y = fma((x - mean) * rstd, w, b): rstd's error (<= 10 ulp) plus one mul and one "
                                   "fma rounding; b = 64 on odd columns where |x_hat * w| <= 8 keeps it < 2 ulp")],
                requires_ptx_text=["div.full.f32", "sqrt.approx.ftz.f32", "fma.rn.f32"],
                comment="Layer norm forward, 4 rows x 256 (BLOCK_SIZE 128, two loop iterations). Rows are "
                        "integers in [-8, 8] whose mean is exactly 0, so mean, the centred values and the variance "
                        "sum are exact and only the .approx steps (div.full.f32, sqrt.approx.ftz.f32) need bounds.")


def _matmul(name, dtype):
    c = _cfg(name)
    vals = dict((a[0], a[2]) for a in c["args"] if len(a) == 3)
    m, n, k = vals["M"], vals["N"], vals["K"]
    r = rng(name)
    a = r.integers(-3, 4, (m, k)).astype(dtype)
    b = r.integers(-3, 4, (k, n)).astype(dtype)
    out = (a.astype(np.float64) @ b.astype(np.float64)).astype(dtype)  # |c| <= 576: exact in fp16/tf32/fp32
    args = [In("a", a.ravel()), In("b", b.ravel()), Zeros("c", dtype, m * n)]
    for s in ("M", "N", "K", "stride_am", "stride_bk", "stride_cm"):
        args.append(Scalar(s, "s32", vals[s]))
    return args + [Null(), Null()], [Expect(2, out.ravel())], (m, n, k)


@triton_spec("matmul_fp16")
def _(r):
    args, expect, (m, n, k) = _matmul("matmul_fp16", np.float16)
    return dict(args=args, expect=expect,
                comment=f"fp16 matmul {m}x{k} @ {k}x{n}, fp32 accumulation, fp16 output (tensor cores: mma.sync on "
                        "sm_80, wgmma on sm_90). Integer entries in [-3, 3]: products, sums (|c| <= 576) and the "
                        "fp16 result are exact in any order.")


@triton_spec("matmul_fp32_tf32")
def _(r):
    args, expect, (m, n, k) = _matmul("matmul_fp32_tf32", np.float32)
    return dict(args=args, expect=expect,
                comment=f"fp32 matmul {m}x{k} @ {k}x{n} with tf32 tensor cores. Small integers are exact in tf32 "
                        "(10-bit mantissa), so the result is exact.")


@triton_spec("matmul_fp32_ieee")
def _(r):
    args, expect, (m, n, k) = _matmul("matmul_fp32_ieee", np.float32)
    return dict(args=args, expect=expect,
                comment=f"fp32 matmul {m}x{k} @ {k}x{n} with input_precision='ieee' (fma.rn.f32 loops); exact.")


def _philox(seed, offsets):
    """Triton's tl.randint: Philox-4x32-10 on (offset, 0, 0, 0) with key (seed lo, seed hi)."""
    M = np.uint64(0xffffffff)
    c0 = offsets.astype(np.uint64)
    c1, c2, c3 = np.zeros_like(c0), np.zeros_like(c0), np.zeros_like(c0)
    k0, k1 = np.uint64(seed & 0xffffffff), np.uint64(seed >> 32)
    ra, rb = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
    for _ in range(10):
        _c0, _c2 = c0, c2
        c0 = (((rb * _c2) >> np.uint64(32)) ^ c1 ^ k0) & M
        c2 = (((ra * _c0) >> np.uint64(32)) ^ c3 ^ k1) & M
        c1, c3 = (rb * _c2) & M, (ra * _c0) & M
        k0, k1 = (k0 + np.uint64(0x9E3779B9)) & M, (k1 + np.uint64(0xBB67AE85)) & M
    return c0.astype(np.uint32)


def _uniform(bits):
    """tl.rand: x = int32 bits, ~x if negative, times 4.6566127342e-10 (cvt.rn.f32.s32, mul.f32)."""
    x = bits.view(np.int32)
    x = np.where(x < 0, ~x, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def _vals(name):
    return dict((a[0], a[2]) for a in _cfg(name)["args"] if len(a) == 3)


@triton_spec("rand")
def _(r):
    v = _vals("rand")
    n, seed = v["n_elements"], v["seed"]
    bits = _philox(seed, np.arange(n))
    return dict(args=[Zeros("out", np.float32, n), Zeros("iout", np.int32, n), Scalar("n_elements", "s32", n),
                      Scalar("seed", "s32", seed), Null(), Null()],
                expect=[Expect(0, _uniform(bits)), Expect(1, bits.view(np.int32))],
                comment="tl.rand and tl.randint (Philox-4x32, 10 rounds: mul.hi.u32/mul.lo/xor) for offsets "
                        "0..999; the reference is a numpy Philox following triton/language/random.py.")


@triton_spec("dropout")
def _(r):
    v = _vals("dropout")
    n, p, seed = v["n_elements"], np.float32(v["p"]), v["seed"]
    x = r.standard_normal(n).astype(np.float32)
    keep = _uniform(_philox(seed, np.arange(n))) > p
    assert 0.7 < keep.mean() < 0.8
    out = np.where(keep, x / (np.float32(1) - p), np.float32(0)).astype(np.float32)
    return dict(args=[In("x", x), Zeros("out", np.float32, n), Scalar("n_elements", "s32", n), Scalar("p", "f32", p),
                      Scalar("seed", "s32", seed), Null(), Null()],
                expect=[Expect(1, out, max_ulp=2,
                               why="kept values are x / (1 - p) through div.full.f32 (<= 2 ulp); the mask is exact")],
                requires_ptx_text=["div.full.f32"],
                comment="Dropout with p = 0.25: keep where tl.rand(seed, offset) > p (numpy Philox reference, "
                        "so the mask is checked exactly), scale kept values by 1/(1-p).")


@triton_spec("layer_norm_bwd")
def _(r):
    v = _vals("layer_norm_bwd")
    rows, n = _cfg("layer_norm_bwd")["grid"][0], v["N"]
    # Columns come in pairs (j, j + n/2) with equal x and w and opposite dy, so sum(x_hat * w * dy)
    # and sum(w * dy) are exactly 0 (small integers and quarters: exact in any order): c1 = c2 = 0.
    half = n // 2
    xh = r.integers(-8, 9, (rows, half))
    dyh = r.integers(-4, 5, (rows, half)) / 4
    wh = r.integers(1, 5, half) / 2
    x = np.concatenate([xh, xh], 1).astype(np.float32)
    dy = np.concatenate([dyh, -dyh], 1).astype(np.float32)
    w = np.concatenate([wh, wh]).astype(np.float32)
    mean = np.zeros(rows, np.float32)
    rstd = np.full(rows, 0.5, np.float32)
    dx = (w.astype(np.float64) * dy * 0.5).astype(np.float32)
    return dict(args=[Zeros("DX", np.float32, rows * n), In("DY", dy.ravel()), In("X", x.ravel()), In("W", w),
                      In("Mean", mean), In("Rstd", rstd), Scalar("stride", "s32", n), Scalar("N", "s32", n),
                      Null(), Null()],
                expect=[Expect(0, dx.ravel(), max_ulp=0,
                               why="c1 = c2 = div.full.f32(0, N) = 0 exactly, so dx = w * dy * rstd: exact products")],
                comment="Layer norm backward (dx), 4 rows x 200 columns in a 256-wide block (masked tail). Data "
                        "chosen so both row sums are exactly 0; the reductions still run over every column.")


@triton_spec("sum_atomic")
def _(r):
    n = _vals("sum_atomic")["n_elements"]
    x = r.integers(-100, 101, n).astype(np.float32)
    return dict(args=[In("x", x), In("out", np.array([0, -1e30], np.float32)), Scalar("n_elements", "s32", n),
                      Null(), Null()],
                expect=[Expect(1, np.array([x.sum(), x.max()], np.float32))],
                comment="Per-block tl.sum / tl.max, combined with tl.atomic_add (atom.add.f32) and tl.atomic_max "
                        "(Triton's float max through atom.max.s32 / atom.min.u32); integer values: exact.")


@triton_spec("cumsum_where")
def _(r):
    x = r.integers(-1000, 1001, (3, 128)).astype(np.int32)
    return dict(args=[In("x", x.ravel()), Zeros("out", np.int32, x.size), Zeros("out2", np.int32, x.size), Null(), Null()],
                expect=[Expect(1, np.cumsum(x, 1).astype(np.int32).ravel()),
                        Expect(2, np.where(x > 0, x * 2, -x).astype(np.int32).ravel())],
                comment="tl.cumsum over 128-element rows (shfl.sync.up scan + shared memory) and tl.where.")


@triton_spec("sort")
def _(r):
    x = r.standard_normal((3, 64)).astype(np.float32)
    return dict(args=[In("x", x.ravel()), Zeros("out", np.float32, x.size), Null(), Null()],
                expect=[Expect(1, np.sort(x, 1).ravel())],
                comment="tl.sort of 64-element rows (bitonic network with shfl.sync.bfly and shared memory).")


@triton_spec("histogram")
def _(r):
    x = r.integers(0, 16, 256).astype(np.int32)
    return dict(args=[In("x", x), Zeros("out", np.int32, 16), Null(), Null()],
                expect=[Expect(1, np.bincount(x, minlength=16).astype(np.int32))],
                comment="tl.histogram of 256 values into 16 bins (atom.shared.add).")


def _flash_attn(r, name, dim):
    v = _vals(name)
    heads, n_ctx, sm = 2, v["N_CTX"], v["sm_scale"]
    q = (r.integers(-2, 3, (heads, n_ctx, dim)) / 4).astype(np.float16)
    k = (r.integers(-2, 3, (heads, n_ctx, dim)) / 4).astype(np.float16)
    vv = (r.integers(1, 9, (heads, n_ctx, dim)) / 4).astype(np.float16)  # positive: no cancellation
    s = np.einsum("hmd,hnd->hmn", q.astype(np.float64), k.astype(np.float64)) * sm
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = np.einsum("hmn,hnd->hmd", p, vv.astype(np.float64)).astype(np.float16)
    why = ("O = sum_j p_j v_j / sum_j p_j with p = ex2.approx(...) (relative error ~2^-22) rounded to fp16 for the "
           "P @ V tensor-core product (relative error <= 2^-11 per term, all terms positive since v > 0, so the "
           "numerator is within 2^-11 relative), the f32 row sum and div.full.f32 (<= 2 ulp f32), and the final fp16 "
           "rounding (0.5 ulp): about 1.5 fp16 ulp; 4 allowed")
    return dict(args=[In("q", q.ravel()), In("k", k.ravel()), In("v", vv.ravel()), Zeros("o", np.float16, q.size),
                      Scalar("sm_scale", "f32", sm), Scalar("N_CTX", "s32", n_ctx), Null(), Null()],
                expect=[Expect(3, o.ravel(), max_ulp=4, why=why)], requires_ptx_text=["ex2.approx"])


@triton_spec("flash_attn")
def _(r):
    d = _flash_attn(r, "flash_attn", 32)
    d["comment"] = ("Flash-attention forward (online softmax, exp2), 2 heads x 64 positions x head dim 32, "
                    "BLOCK_M = BLOCK_N = 32: Q K^T and P V through mma.sync m16n8k16 (both targets at these tiles), "
                    "reference = exact softmax attention in float64.")
    return d


@triton_spec("flash_attn_64")
def _(r):
    d = _flash_attn(r, "flash_attn_64", 64)
    d["comment"] = ("The flash-attention forward with 64-row blocks, 2 heads x 128 positions x head dim 64: on sm_90 "
                    "Q K^T is wgmma m64n64k16 with both operands in shared memory and P V a wgmma whose A operand "
                    "(P, fp16) comes from registers; mma.sync on sm_80. Reference = exact softmax attention.")
    return d


def _persistent(name, dtype, out_dtype):
    v = _vals(name)
    m, n, k = v["M"], v["N"], v["K"]
    r = rng(name)
    a = r.integers(-3, 4, (m, k))
    b = r.integers(-3, 4, (k, n))
    if dtype == "bf16":
        A, B = _bf16(a.ravel()), _bf16(b.ravel())  # small integers: exact in bf16
    else:
        A, B = a.astype(dtype).ravel(), b.astype(dtype).ravel()
    out = (a @ b).astype(out_dtype)  # |c| <= 576: exact
    return [In("a", A), In("b", B), Zeros("c", out_dtype, m * n), Scalar("M", "s32", m), Scalar("N", "s32", n),
            Scalar("K", "s32", k), Null(), Null()], [Expect(2, out.ravel())], (m, n, k)


@triton_spec("persistent_matmul_fp16")
def _(r):
    args, expect, (m, n, k) = _persistent("persistent_matmul_fp16", np.float16, np.float16)
    return dict(args=args, expect=expect,
                comment=f"Persistent grouped matmul {m}x{k} @ {k}x{n} (fp16 in and out): 4 programs loop over the "
                        "6 output tiles in GROUP_M order; sm_90 stores the tile through stmatrix. Exact.")


@triton_spec("persistent_matmul_bf16")
def _(r):
    args, expect, (m, n, k) = _persistent("persistent_matmul_bf16", "bf16", np.float32)
    return dict(args=args, expect=expect,
                comment=f"The persistent matmul {m}x{k} @ {k}x{n} with bf16 inputs (raw u16 bits) and fp32 "
                        "output (mma.sync m16n8k16 .bf16 on both targets at these 32-row tiles); 2 programs. Exact.")


@triton_spec("int8_matmul")
def _(r):
    v = _vals("int8_matmul")
    m, n, k = v["M"], v["N"], v["K"]
    a = r.integers(-128, 128, (m, k)).astype(np.int8)
    b = r.integers(-128, 128, (k, n)).astype(np.int8)
    c = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)
    return dict(args=[In("a", a.ravel()), In("b", b.ravel()), Zeros("c", np.int32, m * n), Scalar("M", "s32", m),
                      Scalar("N", "s32", n), Scalar("K", "s32", k), Null(), Null()],
                expect=[Expect(2, c.ravel())],
                comment=f"int8 matmul {m}x{k} @ {k}x{n} with int32 accumulation "
                        "(mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32; no overflow at K = 64).")


def _e4m3(v):
    """float -> OCP e4m3 (E4M3FN) value: round to nearest even, subnormals below 2^-6, .satfinite
    clamps to +-448 (cvt.rn.satfinite.e4m3x2.f32)."""
    v = float(v)
    a = abs(v)
    if a == 0:
        return v
    e = max(int(np.floor(np.log2(a))), -6)
    q = 2.0 ** (e - 3)
    return float(np.copysign(min(round(a / q) * q, 448.0), v))  # round(): ties to even


@triton_spec("fp8_roundtrip")
def _(r):
    n = _vals("fp8_roundtrip")["n"]
    x = (r.standard_normal(n) * 50).astype(np.float32)
    x[:10] = [0.0, -0.0, 1e-3, 500.0, -1000.0, 2.0 ** -10, 1.5 * 2.0 ** -9, 460.0, 17.0, -19.0]
    out = np.array([_e4m3(v) for v in x], np.float32)
    bits = []
    for v in out:
        s = 0x80 if np.signbit(v) else 0
        a = abs(float(v))
        if a < 2.0 ** -6:
            bits.append(s | int(a / 2.0 ** -9))
        else:
            e = int(np.floor(np.log2(a)))
            bits.append(s | ((e + 7) << 3) | int(a / 2.0 ** e * 8 - 8))
    return dict(args=[In("x", x), Zeros("out", np.float32, n), Zeros("q", np.int8, n), Scalar("n", "s32", n),
                      Null(), Null()],
                expect=[Expect(1, out), Expect(2, np.array(bits, np.uint8).view(np.int8))],
                comment="x.to(tl.float8e4nv) (cvt.rn.satfinite.e4m3x2.f32: nearest even, subnormals, saturation to "
                        "448), its bytes, and back to f32 (cvt.rn.f16x2.e4m3x2, cvt.f32.f16): exact.")


@triton_spec("clamp")
def _(r):
    n = _vals("clamp")["n"]
    x = (r.integers(-40, 41, n) / 16).astype(np.float32)
    x[:4] = [0.0, -0.0, 1.0, -1.0]
    out = np.concatenate([np.clip(x, -1, 1), np.clip(x, -0.5, 2)]).astype(np.float32)
    out[0], out[1] = 0.0, -0.0  # |x| min 1 with x's sign: -0 stays -0
    out[n + 1] = -0.0  # max(-0, -0.5) = -0, min(-0, 2) = -0
    return dict(args=[In("x", x), Zeros("out", np.float32, 2 * n), Scalar("n", "s32", n), Null(), Null()],
                expect=[Expect(1, out)],
                comment="tl.clamp(x, -1, 1) (min.xorsign.abs.f32 on sm_90, min/max on sm_80) and tl.clamp(x, -0.5, 2).")


# Second sweep of Triton kernels ------------------------------------------------------------------

@triton_spec("rms_norm")
def _(r):
    v = _vals("rms_norm")
    rows, n, eps = _cfg("rms_norm")["grid"][0], v["N"], F32(v["eps"])
    x = r.integers(-8, 9, (rows, n)).astype(F32)
    x[2] = 0
    w = (r.integers(1, 9, n) / 4).astype(F32)
    ss = (x.astype(np.float64) ** 2).sum(1)
    rstd = 1 / np.sqrt((ss / n).astype(F32).astype(np.float64) + np.float64(eps))
    y = x * rstd[:, None] * w
    return dict(args=[In("X", x.ravel()), Zeros("Y", F32, rows * n), In("W", w), Zeros("Rstd", F32, rows),
                      Scalar("stride", "s32", n), Scalar("N", "s32", n), Scalar("eps", "f32", eps), Null(), Null()],
                expect=[Expect(3, rstd.astype(F32), max_ulp=10,
                               why="rstd = div.full.f32(1, sqrt.approx.ftz.f32(div.full.f32(sum, N) + eps)): the "
                                   "mean within 2 ulp (div.full; the integer sum is exact), halved by the square "
                                   "root, sqrt.approx relative error <= 2^-23, div.full <= 2 ulp: < 9 ulp; 10 allowed"),
                        Expect(1, y.astype(F32).ravel(), max_ulp=12,
                               why="y = x * rstd * w: rstd's 10 ulp plus two mul.f32 roundings")],
                requires_ptx_text=["div.full.f32", "sqrt.approx.ftz.f32"],
                comment="RMS norm, 6 rows x 200 in a 256-wide block (masked tail), tl.sum over x*x, "
                        "1 / tl.sqrt (approximate) as users write it; integer inputs, one all-zero row.")


@triton_spec("rotary")
def _(r):
    seq, heads = _cfg("rotary")["grid"]
    dim = 2 * _cfg("rotary")["constexprs"]["HALF"]
    pos = (np.arange(seq) * 37 + 5).astype(np.int32)
    x, inv_freq, out, bound = _rotary_data(r, seq, heads, dim, pos)
    return dict(args=[In("X", x.ravel()), Zeros("Out", F32, x.size), In("Pos", pos), In("InvFreq", inv_freq),
                      Scalar("heads", "s32", heads), Null(), Null()],
                expect=[Expect(1, out.ravel(), max_ulp=bound,
                               why=f"max_ulp = {bound}: per element from tl.cos/tl.sin (libdevice __nv_cosf/"
                                   "__nv_sinf, 2 ulp as CUDA's cosf/sinf) on each factor, half an ulp per product "
                                   "and for the sum; inputs drawn so neither component cancels")],
                comment="Rotary embedding, one program per (position, head), 64-wide heads: angle = pos * "
                        "inv_freq, tl.cos / tl.sin (libdevice, full precision with Payne-Hanek fallback), rotation "
                        "of the two halves.")


@triton_spec("activations")
def _(r):
    import math
    n = _vals("activations")["n"]
    x = r.uniform(-1, 3, n).astype(F32)
    x[:5] = [0, 1, -1, 1e-3, 2.75]
    X = x.astype(np.float64)
    t = (x * F32(0.7071067811865476)).astype(np.float64)
    e = np.array([math.erf(v) for v in t])
    gelu = 0.5 * X * (1 + e)
    g_err = np.abs(0.5 * X) * (2 * _ulp32(e) + 0.5 * _ulp32(1 + e)) + 0.5 * _ulp32(gelu)
    k0, k1 = np.float64(F32(0.7978845608028654)), np.float64(F32(0.044715))
    inner = k0 * (X + k1 * X ** 3)
    th = np.tanh(inner)
    gt = 0.5 * X * (1 + th)
    in_err = 4 * 2.0 ** -24 * (np.abs(k0 * X) + np.abs(k0 * k1 * X ** 3))
    gt_err = np.abs(0.5 * X) * (in_err + 2 * _ulp32(th) + 0.5 * _ulp32(1 + th)) + 0.5 * _ulp32(gt)
    # tl.exp(v) = ex2.approx.f32(v * log2(e)): the product's rounding (relative 2^-24 of |v log2 e|,
    # i.e. |v| 2^-24 relative in the result) and ex2.approx's relative 2^-22 (PTX ISA).
    sig = 1 / (1 + np.exp(-X))
    silu = X * sig
    exp_rel = np.abs(X) * 2.0 ** -24 + 2.0 ** -22
    sig_rel = (1 - sig) * exp_rel + 2.0 ** -24 + 2 * 2.0 ** -23  # 1 + e rounding; the division (<= 2 ulp)
    silu_err = np.abs(silu) * (sig_rel + 2.0 ** -24) + 0.5 * _ulp32(silu)
    sp = np.log1p(np.exp(X))
    sp_err = sig * exp_rel + 1 * _ulp32(sp) + 0.5 * _ulp32(sp)  # d log1p(y) = y/(1+y) dy/y; log1pf 1 ulp
    b = [_ulp_steps(gelu.astype(F32), g_err), _ulp_steps(gt.astype(F32), gt_err),
         _ulp_steps(silu.astype(F32), silu_err), _ulp_steps(sp.astype(F32), sp_err)]
    return dict(args=[In("X", x), Zeros("Gelu", F32, n), Zeros("GeluTanh", F32, n), Zeros("Silu", F32, n),
                      Zeros("Softplus", F32, n), Scalar("n", "s32", n), Null(), Null()],
                expect=[Expect(1, gelu.astype(F32), max_ulp=b[0],
                               why=f"max_ulp = {b[0]}: tl.math.erf (libdevice erff, 2 ulp) and half an ulp for "
                                   "1 + erf and for the product, per element"),
                        Expect(2, gt.astype(F32), max_ulp=b[1],
                               why=f"max_ulp = {b[1]}: four f32 roundings in the tanh argument, libdevice tanhf "
                                   "2 ulp, half an ulp for 1 + tanh and the product"),
                        Expect(3, silu.astype(F32), max_ulp=b[2],
                               why=f"max_ulp = {b[2]}: x * tl.sigmoid(x) = x / (1 + ex2.approx(-x log2 e)): the "
                                   "product's rounding in the exponent, ex2.approx relative 2^-22, the add, a "
                                   "division within 2 ulp, the final product"),
                        Expect(4, sp.astype(F32), max_ulp=b[3],
                               why=f"max_ulp = {b[3]}: libdevice log1p (1 ulp) of tl.exp (ex2.approx, relative "
                                   "2^-22 plus the exponent's rounding), whose relative error enters scaled by "
                                   "e^x / (1 + e^x)")],
                requires_ptx_text=["ex2.approx.f32"],
                comment="Activations on 500 values in [-1, 3]: GELU with tl.math.erf, GELU-tanh with "
                        "libdevice.tanh, SiLU with tl.sigmoid, softplus as libdevice.log1p(tl.exp(x)).")


@triton_spec("argmax")
def _(r):
    v = _vals("argmax")
    rows, cols = _cfg("argmax")["grid"][0], v["n_cols"]
    x = r.integers(-5, 6, (rows, cols)).astype(F32)
    x[1] = 2.0
    x[4, 99] = 8
    x[6, [0, 50, 99]] = -7
    return dict(args=[In("X", x.ravel()), Zeros("Amax", np.int32, rows), Zeros("Amin", np.int32, rows),
                      Zeros("Vmax", F32, rows), Scalar("n_cols", "s32", cols), Scalar("stride", "s32", cols),
                      Null(), Null()],
                expect=[Expect(1, x.argmax(1).astype(np.int32)), Expect(2, x.argmin(1).astype(np.int32)),
                        Expect(3, x.max(1))],
                comment="tl.argmax / tl.argmin over 100 columns in a 128-wide block (masked with -inf / +inf): "
                        "ties go to the lowest index, as numpy; values in [-5, 5].")


@triton_spec("splitk_matmul")
def _(r):
    v = _vals("splitk_matmul")
    m, n, k = v["M"], v["N"], v["K"]
    a = r.integers(-3, 4, (m, k)).astype(F32)
    b = r.integers(-3, 4, (k, n)).astype(F32)
    return dict(args=[In("a", a.ravel()), In("b", b.ravel()), Zeros("c", F32, m * n), Scalar("M", "s32", m),
                      Scalar("N", "s32", n), Scalar("K", "s32", k), Null(), Null()],
                expect=[Expect(2, (a.astype(np.float64) @ b).astype(F32).ravel())],
                comment="Split-K matmul 40x96 @ 96x48, SPLIT_K = 3 programs along K per 32x32 tile, tf32 tensor "
                        "cores (exact for small integers), partial tiles combined with tl.atomic_add (masked, "
                        "atom.global.gpu.acq_rel.add.f32).")


@triton_spec("ragged_where")
def _(r):
    v = _vals("ragged_where")
    m, n, stride = v["M"], v["N"], v["stride"]
    x = (r.integers(-40, 41, (m, stride)) / 4).astype(F32)
    y = np.where(x > 0, x * 2, x * 0.5) + np.arange(m)[:, None]
    y = np.where(np.arange(stride)[None, :] % 3 == 0, -y, y)
    y[:, n:] = 0  # outside the mask: untouched
    return dict(args=[In("X", x.ravel()), Zeros("Y", F32, m * stride), Scalar("M", "s32", m), Scalar("N", "s32", n),
                      Scalar("stride", "s32", stride), Null(), Null()],
                expect=[Expect(1, y.astype(F32).ravel())],
                comment="2-D tiles (16 x 32) over a ragged 37 x 50 matrix with row stride 52: masked loads with "
                        "other=, tl.where on values and on column index, masked stores (columns 50-51 untouched). "
                        "Quarter values: exact.")


def _f16_rtz(v):
    rn = v.astype(np.float16)
    over = np.abs(rn.astype(np.float64)) > np.abs(v.astype(np.float64))
    return np.where(over, np.nextafter(rn, np.float16(0)), rn).astype(np.float16)


@triton_spec("cast")
def _(r):
    n = _vals("cast")["n"]
    x = (r.standard_normal(n) * 100).astype(F32)
    x[:12] = [0.0, -0.0, 1.00390625, 1.01171875, -2.0078125, 65504.0, 65520.0, 70000.0, -1e5, 0.5, -0.5,
              1.0009765625]  # bf16 and f16 ties, f16 overflow (rn -> inf, rtz -> 65504)
    x[12:16] = [499.9, -511.99, 3.7, -3.7]
    x[20:24] = [1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8]  # exact f16/bf16 ties
    x = np.clip(x, -1e5, 1e5).astype(F32)
    bf = _bf16(x.astype(np.float64))
    h = x.astype(np.float16)
    # Triton converts to int8 with cvt.rzi.s16.f32 (truncate, saturate to s16) and stores the low byte.
    i16 = np.clip(np.trunc(x.astype(np.float64) * 0.25), -32768, 32767).astype(np.int64)
    i8 = (i16 & 0xff).astype(np.uint8).view(np.int8)
    back = (_bf16_f64(bf).astype(F32) + h.astype(F32)).astype(F32)
    return dict(args=[In("X", x), Zeros("Bf16", np.int16, n), Zeros("F16", np.float16, n), Zeros("F16Rtz", np.float16, n),
                      Zeros("I8", np.int8, n), Zeros("I32", np.int32, n), Zeros("Back", F32, n), Scalar("n", "s32", n),
                      Null(), Null()],
                expect=[Expect(1, bf.view(np.int16)), Expect(2, h), Expect(3, _f16_rtz(x)), Expect(4, i8),
                        Expect(5, np.trunc(x).astype(np.int32)), Expect(6, back)],
                requires_ptx_text=["cvt.rzi.s16.f32"],
                comment="x.to(bf16) (cvt.rn.bf16.f32, bits through a bitcast to int16), x.to(f16) round-to-nearest-"
                        "even (overflow to inf) and with fp_downcast_rounding='rtz' (cvt.rz: 65504 on overflow), "
                        "(x/4).to(int8) (cvt.rzi.s16.f32: truncate and saturate to s16, low byte stored) and "
                        "x.to(int32), and bf16 + f16 back in f32. Ties included.")


@triton_spec("cumprod")
def _(r):
    rows, blk = _cfg("cumprod")["grid"][0], _cfg("cumprod")["constexprs"]["BLOCK"]
    x = r.choice(np.array([0.5, 1, 2, -1, -2], F32), (rows, blk))
    return dict(args=[In("X", x.ravel()), Zeros("Out", F32, x.size), Null(), Null()],
                expect=[Expect(1, np.cumprod(x.astype(np.float64), 1).astype(F32).ravel())],
                comment="tl.cumprod over 64-element rows (shfl.sync.up scan); factors +-0.5, 1, +-2: every "
                        "partial product is a power of two, exact in any association.")


@triton_spec("custom_reduce")
def _(r):
    rows, blk = _cfg("custom_reduce")["grid"][0], _cfg("custom_reduce")["constexprs"]["BLOCK"]
    xi = r.integers(-2 ** 31, 2 ** 31, (rows, blk)).astype(np.int32)
    x = r.standard_normal((rows, blk)).astype(F32)
    x[1, [5, 90]] = [-7.5, 7.5]  # tie in |x|: the lower index wins
    ax = np.abs(x)
    idx = ax.argmax(1)
    xor = np.bitwise_xor.reduce(xi, axis=1)
    return dict(args=[In("X", x.ravel()), In("Xi", xi.ravel()), Zeros("Xor", np.int32, rows), Zeros("AbsMax", F32, rows),
                      Zeros("AbsIdx", np.int32, rows), Null(), Null()],
                expect=[Expect(2, xor.astype(np.int32)), Expect(3, x[np.arange(rows), idx]),
                        Expect(4, idx.astype(np.int32))],
                comment="tl.reduce with user combine functions: XOR of int32 rows, and a tuple reduction "
                        "(value, index) keeping the largest |value|, lowest index on ties.")


def _attn_bwd_data(r):
    """Exactly computable flash-attention backward data: qk_scale = 1 (the base-2 domain), scores
    q.k in [-2, 2] (two nonzero +-1 entries per query), M = the row maximum (an integer, standing
    in for the log-sum-exp: the kernels only need some per-row offset), so P = 2^(qk - M) is a power
    of two >= 2^-4; Delta in quarters; dO, V, K in {-1, 0, 1}. Every product and sum below is
    exact in f32 and every fp16 operand exact, so the float64 reference is the exact result."""
    h, n, d = 2, 64, 16
    q = np.zeros((h, n, d))
    for hi in range(h):
        for i in range(n):
            cols = r.choice(d, 2, replace=False)
            q[hi, i, cols] = r.choice([-1, 1], 2)
    k = r.integers(-1, 2, (h, n, d)).astype(np.float64)
    v = r.integers(-1, 2, (h, n, d)).astype(np.float64)
    do = r.integers(-1, 2, (h, n, d)).astype(np.float64)
    s = np.einsum("hid,hjd->hij", q, k)
    m = s.max(-1)
    p = 2.0 ** (s - m[..., None])
    delta = r.integers(-8, 9, (h, n)) / 4
    dp = np.einsum("hid,hjd->hij", do, v)
    ds = p * (dp - delta[..., None])
    sm = 0.5
    dv = np.einsum("hij,hid->hjd", p, do)
    dk = sm * np.einsum("hij,hid->hjd", ds, q)
    dq = sm * np.einsum("hij,hjd->hid", ds, k)
    f16 = lambda a: a.astype(np.float16).ravel()
    ins = [In("Q", f16(q)), In("K", f16(k)), In("V", f16(v)), In("DO", f16(do)), In("M", m.astype(F32).ravel()),
           In("D", delta.astype(F32).ravel())]
    return ins, f16(dk), f16(dv), f16(dq), sm


ATTN_WHY = ("the reference is exact (see the comment); tl.math.exp2 is ex2.approx.ftz.f32 (relative error <= 2^-22 "
            "in the PTX ISA), which on the integer arguments here may be off by that much, enough to move a value "
            "lying on an fp16 rounding boundary by one ulp")


@triton_spec("attn_bwd_dkdv")
def _(r):
    ins, dk, dv, _, sm = _attn_bwd_data(rng("attn_bwd"))
    n = dk.size
    return dict(args=ins + [Zeros("DK", np.float16, n), Zeros("DV", np.float16, n), Scalar("sm_scale", "f32", sm),
                            Scalar("qk_scale", "f32", 1.0), Scalar("N_CTX", "s32", 64), Null(), Null()],
                expect=[Expect(6, dk, max_ulp=1, why=ATTN_WHY), Expect(7, dv, max_ulp=1, why=ATTN_WHY)],
                requires_ptx_text=["ex2.approx"],
                comment="Fused-attention backward, dK/dV kernel (one program per 32 keys and head; 2 heads x 64 x "
                        "16): P^T = exp2(K Q^T - M) recomputed per 16-query block, dV += P^T dO, dS^T = P^T (V dO^T "
                        "- Delta), dK += dS^T Q (mma.sync m16n8k16 with ldmatrix(.trans), stmatrix.trans on sm_90). "
                        "Data chosen so every step is exact: powers of two for P, small integers elsewhere.")


@triton_spec("attn_bwd_dq")
def _(r):
    ins, _, _, dq, sm = _attn_bwd_data(rng("attn_bwd"))
    return dict(args=ins + [Zeros("DQ", np.float16, dq.size), Scalar("sm_scale", "f32", sm),
                            Scalar("qk_scale", "f32", 1.0), Scalar("N_CTX", "s32", 64), Null(), Null()],
                expect=[Expect(6, dq, max_ulp=1, why=ATTN_WHY)],
                requires_ptx_text=["ex2.approx"],
                comment="Fused-attention backward, dQ kernel (one program per 32 queries and head): P = exp2(Q K^T "
                        "- M), dS = P (dO V^T - Delta), dQ += dS K over 16-key blocks; the same exact data as the "
                        "dK/dV launch.")


def _fp8_bits(v, fmt):
    """Exact float -> fp8 bits (e4m3: bias 7, 3 mantissa bits; e5m2: bias 15, 2); v must be
    representable (normal or zero)."""
    ebits, mbits, bias = (4, 3, 7) if fmt == "e4m3" else (5, 2, 15)
    out = []
    for x in np.asarray(v, np.float64).ravel():
        s = 0x80 if x < 0 else 0
        a = abs(float(x))
        if a == 0:
            out.append(s)
            continue
        e = int(np.floor(np.log2(a)))
        m = a / 2.0 ** e - 1
        mi = m * (1 << mbits)
        assert mi == int(mi) and 1 <= e + bias < (1 << ebits), (x, fmt)
        out.append(s | ((e + bias) << mbits) | int(mi))
    return np.array(out, np.uint8)


def _int8_mm(name):
    v = _vals(name)
    m, n, k = v["M"], v["N"], v["K"]
    r = rng(name)
    a = r.integers(-128, 128, (m, k)).astype(np.int8)
    b = r.integers(-128, 128, (k, n)).astype(np.int8)
    c = (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)
    return m, n, k, a, b, c


@triton_spec("int8_matmul_64")
def _(r):
    m, n, k, a, b, c = _int8_mm("int8_matmul_64")
    return dict(args=[In("a", a.ravel()), In("b", b.ravel()), Zeros("c", np.int32, m * n), Scalar("M", "s32", m),
                      Scalar("N", "s32", n), Scalar("K", "s32", k), Null(), Null()],
                expect=[Expect(2, c.ravel())],
                comment=f"int8 matmul {m}x{k} @ {k}x{n}, 64x64x64 tiles: wgmma.mma_async m64n64k32.s32.s8.s8 on "
                        "sm_90 (shared-memory descriptors, 8-bit K-major operands), mma.sync m16n8k32 on sm_80. "
                        "Exact int32 accumulation.")


def _fp8_mm(name, bfmt):
    v = _vals(name)
    m, n, k = v["M"], v["N"], v["K"]
    r = rng(name)
    vals = np.array([-3, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3])
    a = r.choice(vals, (m, k))
    b = r.choice(vals, (k, n))
    c = (a @ b).astype(F32)  # halves and small integers: every product and sum exact
    return dict(args=[In("a", _fp8_bits(a, "e4m3")), In("b", _fp8_bits(b, bfmt)), Zeros("c", F32, m * n),
                      Scalar("M", "s32", m), Scalar("N", "s32", n), Scalar("K", "s32", k), Null(), Null()],
                expect=[Expect(2, c.ravel())],
                comment=f"fp8 matmul {m}x{k} (e4m3) @ {k}x{n} ({bfmt}), f32 accumulation through wgmma.mma_async "
                        f"m64n64k32.f32.e4m3.{bfmt} (sm_90 only: Triton has no fp8 dot for sm_80); inputs as raw "
                        "fp8 bytes, values in {0, +-0.5, +-1, +-1.5, +-2, +-3}: exact.")


@triton_spec("fp8_matmul_e4m3_e5m2")
def _(r):
    return _fp8_mm("fp8_matmul_e4m3_e5m2", "e5m2")


@triton_spec("fp8_matmul_e4m3")
def _(r):
    return _fp8_mm("fp8_matmul_e4m3", "e4m3")


@triton_spec("matmul_f16acc")
def _(r):
    v = _vals("matmul_f16acc")
    m, n, k = v["M"], v["N"], v["K"]
    a = r.integers(-2, 3, (m, k)).astype(np.float16)
    b = r.integers(-2, 3, (k, n)).astype(np.float16)
    c = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float16)  # |partial sums| <= 256: exact in fp16
    return dict(args=[In("a", a.ravel()), In("b", b.ravel()), Zeros("c", np.float16, m * n), Scalar("M", "s32", m),
                      Scalar("N", "s32", n), Scalar("K", "s32", k), Null(), Null()],
                expect=[Expect(2, c.ravel())],
                comment=f"fp16 matmul {m}x{k} @ {k}x{n} with tl.dot(..., out_dtype=float16): fp16 accumulators "
                        "(mma.sync .f16.f16.f16.f16 on sm_80, wgmma m64n64k16.f16.f16.f16 on sm_90, rounding the "
                        "accumulator to fp16 after every instruction). Entries in [-2, 2]: every partial sum "
                        "(|s| <= 256) is exact in fp16.")


# ----------------------------------------------------------------------------------------------
# Library device-wide algorithms (multi-step launches recorded from the library's host code):
# CUB Device* algorithms

CUB_N = 9000  # kScanN etc. in the .cu sources: several tiles, so CTAs > 0 use the look-back


@steps_spec("cub_scan", "inclusive_sum")
def _(r):
    x = r.integers(-1000, 1001, CUB_N).astype(np.int32)
    return dict(buffers={"in": x, "out": np.int32}, expect=[Expect("out", np.cumsum(x).astype(np.int32))],
                comment="cub::DeviceScan::InclusiveSum over 9000 ints: DeviceScanInitKernel (tile status "
                        "words) then DeviceScanKernel, whose CTAs publish partial and inclusive prefixes and "
                        "wait on their predecessors' (decoupled look-back). Exact integer sums.")


@steps_spec("cub_scan", "exclusive_sum_i64")
def _(r):
    x = r.integers(-(2 ** 40), 2 ** 40, CUB_N).astype(np.int64)
    excl = np.concatenate([[0], np.cumsum(x)[:-1]]).astype(np.int64)
    return dict(buffers={"in": x, "out": np.int64}, expect=[Expect("out", excl)],
                comment="cub::DeviceScan::ExclusiveSum over 9000 long longs (values up to 2^40, so the "
                        "prefixes use all 64 bits of the tile-status value words). Exact.")


@steps_spec("cub_scan", "inclusive_max_f32")
def _(r):
    x = r.standard_normal(CUB_N).astype(F32)
    return dict(buffers={"in": x, "out": F32}, expect=[Expect("out", np.maximum.accumulate(x))],
                comment="cub::DeviceScan::InclusiveScan with cuda::maximum<> over 9000 floats: a running "
                        "maximum (exact: max returns one of its operands).")


CUB_REDUCE_N, CUB_SEGMENTS = 20000, 40  # kN, kSegments in cub_reduce.cu


@steps_spec("cub_reduce", "sum_i32")
def _(r):
    x = r.integers(-1000, 1001, CUB_REDUCE_N).astype(np.int32)
    return dict(buffers={"in": x, "out": np.int32}, expect=[Expect("out", np.array([x.sum()], np.int32))],
                comment="cub::DeviceReduce::Sum over 20000 ints: DeviceReduceKernel over an even share of "
                        "tiles per CTA, then DeviceReduceSingleTileKernel over the per-CTA partials in the "
                        "temporary storage. Exact.")


@steps_spec("cub_reduce", "max_f32")
def _(r):
    x = r.standard_normal(CUB_REDUCE_N).astype(F32)
    return dict(buffers={"in": x, "out": F32}, expect=[Expect("out", np.array([x.max()], F32))],
                comment="cub::DeviceReduce::Max over 20000 floats (exact: max returns an operand).")


@steps_spec("cub_reduce", "argmax_f32")
def _(r):
    x = r.standard_normal(CUB_REDUCE_N).astype(F32)
    i = int(np.argmax(x))
    x[CUB_REDUCE_N - 7] = x[i]  # a tie after the first maximum: the first index wins
    x[3] = x[i] - 1
    return dict(buffers={"in": x, "max": F32, "index": np.int64},
                expect=[Expect("max", np.array([x[i]], F32)), Expect("index", np.array([i], np.int64))],
                comment="cub::DeviceReduce::ArgMax over 20000 floats with separate value and index outputs "
                        "(int64 index): the first position of the maximum (a tied copy sits near the end).")


@steps_spec("cub_reduce", "segmented_sum_i32")
def _(r):
    x = r.integers(-1000, 1001, CUB_REDUCE_N).astype(np.int32)
    cuts = np.sort(r.choice(np.arange(1, CUB_REDUCE_N), CUB_SEGMENTS - 4, replace=False))
    cuts = np.concatenate([[0, 0], cuts[:10], [cuts[10]], cuts[10:], [CUB_REDUCE_N, CUB_REDUCE_N]])
    assert len(cuts) == CUB_SEGMENTS + 1
    offsets = cuts.astype(np.int32)  # segments 0, 11 and 39 are empty
    sums = np.array([x[a:b].sum() for a, b in zip(offsets[:-1], offsets[1:])], np.int32)
    return dict(buffers={"in": x, "offsets": offsets, "out": np.int32}, expect=[Expect("out", sums)],
                comment="cub::DeviceSegmentedReduce::Sum of 40 segments of 20000 ints given by begin/end "
                        "offsets (offsets and offsets + 1), one CTA per segment; empty segments sum to 0.")


CUB_SORT_N = 12000  # kN in cub_radix_sort.cu


@steps_spec("cub_radix_sort", "sort_keys_u32")
def _(r):
    k = r.integers(0, 2 ** 32, CUB_SORT_N, dtype=np.uint64).astype(np.uint32)
    k[100:200] = k[0]  # duplicates
    return dict(buffers={"keys_in": k, "keys_out": np.uint32}, expect=[Expect("keys_out", np.sort(k))],
                comment="cub::DeviceRadixSort::SortKeys of 12000 unsigned keys: DeviceRadixSortHistogramKernel "
                        "(all four 8-bit digits), DeviceRadixSortExclusiveSumKernel over the bins, then per "
                        "digit a memset of the look-back words and DeviceRadixSortOnesweepKernel (tile ids from "
                        "an atomic counter, digit counts chained between CTAs by decoupled look-back).")


@steps_spec("cub_radix_sort", "sort_pairs_f32")
def _(r):
    k = (r.integers(-2000, 2000, CUB_SORT_N) / 16).astype(F32)  # many ties
    k[k == 0] = 0.5  # no zeros: radix order puts -0 below +0
    v = np.arange(CUB_SORT_N, dtype=np.int32)
    order = np.argsort(k, kind="stable")  # CUB's radix sort is stable
    return dict(buffers={"keys_in": k, "keys_out": F32, "values_in": v, "values_out": np.int32},
                expect=[Expect("keys_out", k[order]), Expect("values_out", v[order])],
                comment="cub::DeviceRadixSort::SortPairs of 12000 (float key, int value) pairs, keys in "
                        "sixteenths with many ties: stable, so tied keys keep their input order (values are "
                        "the input positions).")


@steps_spec("cub_radix_sort", "sort_pairs_desc_i64")
def _(r):
    k = r.integers(-(2 ** 62), 2 ** 62, CUB_SORT_N).astype(np.int64)
    k[::7] = k[5]  # ties
    v = r.integers(0, 2 ** 32, CUB_SORT_N, dtype=np.uint64).astype(np.uint32)
    order = np.argsort(-k, kind="stable")  # descending, stable (no overflow: |k| < 2^62)
    return dict(buffers={"keys_in": k, "keys_out": np.int64, "values_in": v, "values_out": np.uint32},
                expect=[Expect("keys_out", k[order]), Expect("values_out", v[order])],
                comment="cub::DeviceRadixSort::SortPairsDescending of 12000 (long long key, unsigned value) "
                        "pairs: eight onesweep passes, signed keys (sign bit flipped), stable for ties.")


CUB_SELECT_N, CUB_BINS = 9000, 64  # kN, kBins in cub_select.cu


def _runs(r, n):
    """Sorted-looking data with runs of equal values (lengths 1..12)."""
    vals, out = 0, []
    while len(out) < n:
        vals += int(r.integers(1, 5)) * (1 if r.random() < 0.8 else -1)
        out += [vals] * int(r.integers(1, 13))
    return np.array(out[:n], np.int32)


@steps_spec("cub_select", "select_if")
def _(r):
    x = r.integers(-10 ** 6, 10 ** 6, CUB_SELECT_N).astype(np.int32)
    sel = x[x % 3 == 0]
    out = np.zeros(CUB_SELECT_N, np.int32)
    out[:sel.size] = sel
    return dict(buffers={"in": x, "out": np.int32, "count": np.int32},
                expect=[Expect("out", out), Expect("count", np.array([sel.size], np.int32))],
                comment="cub::DeviceSelect::If with a functor (x % 3 == 0) over 9000 ints: the selected "
                        "values in input order, the rest of the output untouched (zeros), and their count. "
                        "Output offsets come from a single-pass scan with decoupled look-back.")


@steps_spec("cub_select", "unique")
def _(r):
    x = _runs(r, CUB_SELECT_N)
    first = np.concatenate([[True], x[1:] != x[:-1]])
    u = x[first]
    out = np.zeros(CUB_SELECT_N, np.int32)
    out[:u.size] = u
    return dict(buffers={"in": x, "out": np.int32, "count": np.int32},
                expect=[Expect("out", out), Expect("count", np.array([u.size], np.int32))],
                comment="cub::DeviceSelect::Unique over 9000 ints in runs: the first of each run of equal "
                        "values, and how many.")


@steps_spec("cub_select", "histogram_even")
def _(r):
    lo, hi = -4.0, 4.0
    width = (hi - lo) / CUB_BINS
    b = r.integers(-6, CUB_BINS + 6, CUB_SELECT_N)
    # Samples well inside their bin (a quarter bin from either edge), so the bin does not depend
    # on how the kernel rounds (sample - lo) * scale; bins outside [0, 64) are dropped.
    x = (lo + (b + 0.25 + 0.5 * r.random(CUB_SELECT_N)) * width).astype(F32)
    inside = (b >= 0) & (b < CUB_BINS)
    hist = np.bincount(b[inside], minlength=CUB_BINS).astype(np.int32)
    return dict(buffers={"samples": x, "histogram": np.int32}, expect=[Expect("histogram", hist)],
                comment="cub::DeviceHistogram::HistogramEven: 64 even bins over [-4, 4) of 9000 float "
                        "samples (some outside the range, which are not counted); DeviceHistogramInitKernel "
                        "then DeviceHistogramSweepKernel (shared-memory privatized counts, global atomics).")


@steps_spec("cub_select", "run_length_encode")
def _(r):
    x = _runs(r, CUB_SELECT_N)
    first = np.flatnonzero(np.concatenate([[True], x[1:] != x[:-1]]))
    lengths = np.diff(np.concatenate([first, [CUB_SELECT_N]]))
    uniq = np.zeros(CUB_SELECT_N, np.int32)
    counts = np.zeros(CUB_SELECT_N, np.int32)
    uniq[:first.size] = x[first]
    counts[:first.size] = lengths
    return dict(buffers={"in": x, "unique": np.int32, "counts": np.int32, "runs": np.int32},
                expect=[Expect("unique", uniq), Expect("counts", counts),
                        Expect("runs", np.array([first.size], np.int32))],
                comment="cub::DeviceRunLengthEncode::Encode over 9000 ints in runs: each run's value and "
                        "length, and the number of runs (DeviceReduceByKeyKernel with a look-back over "
                        "(key, count) pairs).")



# CUTLASS and cute GEMMs. Inputs are small integers, so every product and partial sum is exact
# in fp16/tf32/fp32 whatever the order of the k-loop and the mma instruction shapes.

CUTLASS_M, CUTLASS_N, CUTLASS_K = 256, 128, 128  # kM, kN, kK in cutlass_gemm.cu and cutlass3_gemm.cu


def _cutlass_gemm(r, dtype):
    m, n, k = CUTLASS_M, CUTLASS_N, CUTLASS_K
    a = r.integers(-2, 3, (m, k))
    b = r.integers(-2, 3, (k, n))
    c = r.integers(-8, 9, (m, n))
    d = (2.0 * (a @ b) - c).astype(F32)  # |d| <= 2 * 512 + 8: exact
    return dict(buffers={"A": a.astype(dtype).ravel(), "B": np.ascontiguousarray(b.T).astype(dtype).ravel(),
                         "C": c.astype(F32).ravel(), "D": F32},
                expect=[Expect("D", d.ravel())])


@steps_spec("cutlass_gemm", "gemm_f16_f32")
def _(r):
    d = _cutlass_gemm(r, np.float16)
    d["comment"] = ("cutlass::gemm::device::Gemm<half_t, RowMajor, half_t, ColumnMajor, float, RowMajor, float, "
                    "OpClassTensorOp, Sm80, 128x128x32, 64x64x32, 16x8x16, LinearCombination, 3 stages>: D = 2 A B - C, "
                    "256x128x128 (2 CTAs). The Params struct CUTLASS passes by value (368 bytes, with the operand "
                    "pointers inside) is recorded from CUTLASS's own host code.")
    return d


@steps_spec("cutlass_gemm", "gemm_tf32")
def _(r):
    d = _cutlass_gemm(r, F32)
    d["comment"] = ("cutlass::gemm::device::Gemm with float operands on tensor cores (tf32 mma.sync m16n8k8, "
                    "16x8x8 instructions), otherwise as gemm_f16_f32; the small integer inputs are exact in tf32.")
    return d


@steps_spec("cutlass3_gemm", "gemm_f16_f32_cpasync_ws")
def _(r):
    d = _cutlass_gemm(r, np.float16)
    d["comment"] = ("CUTLASS 3.x GemmUniversal built with the SM90 collective builders: the cp.async warp-specialized "
                    "mainloop (KernelCpAsyncWarpSpecialized, no TMA: producer warps cp.async tiles into a multi-stage "
                    "shared-memory pipeline of mbarriers, consumer warpgroups run wgmma m64n128k16) and the "
                    "NoSmemWarpSpecialized epilogue; D = 2 A B - C, 256x128x128, tiles 128x128x64.")
    return d


@steps_spec("cute_gemm", "hgemm_tn")
def _(r):
    m, n, k = 256, 128, 192  # kM, kN, kK in cute_gemm.cu
    a = r.integers(-1, 2, (m, k))
    b = r.integers(-1, 2, (n, k))
    c = r.integers(-8, 9, (m, n))
    out = (a @ b.T - c).astype(np.float16)  # |partial sums| <= 192 + 8: exact in fp16
    return dict(buffers={"A": a.astype(np.float16).ravel(), "B": b.astype(np.float16).ravel(),
                         "C": np.asfortranarray(c).astype(np.float16).ravel(order="F")},
                expect=[Expect("C", out.ravel(order="F"))],
                comment="cute tutorial HGEMM (sgemm_sm80.cu gemm_tn): C = A B^T - C with A (256x192) and B "
                        "(128x192) K-major and C column-major, fp16 accumulators (mma.sync m16n8k16 .f16), "
                        "cp.async 3-stage pipeline, ldmatrix.x4 from swizzled shared memory. Entries in {-1, 0, 1}: "
                        "every partial sum is an integer of magnitude <= 200, exact in fp16.")



# Thrust algorithms on raw device pointers (thrust::device policy)

THRUST_N = 5000  # kN in thrust_algos.cu


@steps_spec("thrust_algos", "transform_saxpy")
def _(r):
    x = r.integers(-8, 9, THRUST_N).astype(F32)
    y = (r.integers(-400, 401, THRUST_N) / 4).astype(F32)
    return dict(buffers={"x": x, "y": y, "out": F32}, expect=[Expect("out", (2.5 * x + y).astype(F32))],
                comment="thrust::transform(thrust::device, x, x + n, y, out, Saxpy{2.5f}): CUB's transform "
                        "kernel over 5000 floats (exact: multiples of 1/4 below 2^10, with or without FMA).")


@steps_spec("thrust_algos", "reduce_by_key")
def _(r):
    keys = _runs(r, THRUST_N)
    vals = r.integers(-1000, 1001, THRUST_N).astype(np.int32)
    first = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    ko = np.zeros(THRUST_N, np.int32)
    so = np.zeros(THRUST_N, np.int32)
    ko[:first.size] = keys[first]
    so[:first.size] = np.add.reduceat(vals, first)
    return dict(buffers={"keys": keys, "values": vals, "keys_out": np.int32, "sums": np.int32},
                expect=[Expect("keys_out", ko), Expect("sums", so)],
                comment="thrust::reduce_by_key over 5000 (key, value) ints with runs of equal keys: the key "
                        "and value sum of each run (Thrust's ReduceByKeyAgent: a decoupled look-back over "
                        "(count, sum) pairs, 3 CTAs).")


@steps_spec("thrust_algos", "sort_custom_comparator")
def _(r):
    x = r.integers(-3000, 3001, THRUST_N).astype(np.int32)
    order = sorted(range(THRUST_N), key=lambda i: (abs(int(x[i])), int(x[i])))
    return dict(buffers={"data": x}, expect=[Expect("data", x[order])],
                comment="thrust::sort with a user comparator (by |x|, then x): CUB's merge sort (block sort, "
                        "partition, merge kernels) in place over 5000 ints; only equal values compare "
                        "equivalent, so the order is unique.")


@steps_spec("thrust_algos", "stable_sort_by_key")
def _(r):
    k = (r.integers(-300, 300, THRUST_N) / 4).astype(F32)
    k[k == 0] = 0.25  # no zeros: radix order puts -0 below +0
    v = np.arange(THRUST_N, dtype=np.int32)
    order = np.argsort(k, kind="stable")
    return dict(buffers={"keys": k, "values": v}, expect=[Expect("keys", k[order]), Expect("values", v[order])],
                comment="thrust::stable_sort_by_key of 5000 (float, int) pairs in place (CUB's onesweep radix "
                        "sort into Thrust's temporary buffers and back); tied keys keep their input order.")


# ----------------------------------------------------------------------------------------------
# Writing

# ----------------------------------------------------------------------------------------------
# tma_bulk.cu: bulk copies, bulk reductions, tensor copies (sm_90a)

def _swizzle(mode_bits, off):
    """The ISA's swizzle of a shared-memory byte offset (from a 1024-byte aligned base): bits [4, 4+B)
    XOR bits [7, 7+B), B = 1, 2, 3 for the 32-, 64- and 128-byte modes (16-byte chunks permuted
    within each 32/64/128-byte row)."""
    return off ^ (((off >> 7) & ((1 << mode_bits) - 1)) << 4)


# OOB-NaN fill of an f32 tensor map: the pattern an H100 wrote for every out-of-bounds element
# (../shared/hw/h100/README.md section 1, this launch), not the canonical NaN 0x7fffffff.
NAN32 = np.array([0x7FF77FF7], np.uint32).view(np.float32)[0]


@spec("tma_bulk", "bulk_copy_pipeline")
def _(r):
    ctas, chunks, chunk = 2, 4, 1024
    x = (r.integers(-2000, 2000, ctas * chunks * chunk) / 4).astype(np.float32)
    out = (3 * x.astype(np.float64) + 1).astype(np.float32)  # exact: quarters below 2^13
    return dict(grid=[ctas], block=[128], args=[In("in", x), Zeros("out", np.float32, x.size)],
                expect=[Expect(1, out)],
                comment="Each CTA streams 4 chunks of 1024 floats through two shared buffers: thread 0 loads a "
                        "chunk with cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes after "
                        "mbarrier.arrive.expect_tx (4096 bytes), all threads wait with mbarrier.try_wait.parity "
                        "(phases 0 and 1 of two mbarriers), compute 3x + 1 into an output buffer that thread 0 "
                        "writes back with cp.async.bulk.global.shared::cta.bulk_group (commit_group, "
                        "wait_group.read 0 before the buffer is reused, wait_group 0 at the end).")


def _bf16_bits(f):
    """bf16 bits of values exactly representable in bf16."""
    return (np.asarray(f, np.float32).view(np.uint32) >> 16).astype(np.uint16)


@spec("tma_bulk", "bulk_reduce_forms")
def _(r):
    n, ctas = 64, 2
    t = np.arange(n)
    init = dict(
        add_u32=r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32),
        add_f32=(r.integers(-400, 400, n) / 4).astype(np.float32),
        min_s32=r.integers(-30, 30, n).astype(np.int32),
        max_u64=r.integers(0, 2 ** 63, n, dtype=np.uint64),
        and_b32=r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32),
        or_b64=r.integers(0, 2 ** 63, n, dtype=np.uint64) & np.uint64(0xF0F0F0F0F0F0F0F0),
        xor_b32=r.integers(0, 2 ** 32, n, dtype=np.uint64).astype(np.uint32),
        inc_u32=r.integers(0, 7, n).astype(np.uint32),
        dec_u32=r.integers(0, 7, n).astype(np.uint32),
        add_f16=r.integers(-50, 50, n).astype(np.float16),
        min_bf16=_bf16_bits(r.integers(-40, 40, n) * 0.5),
    )
    e = {k: v.copy() for k, v in init.items()}
    for b in range(ctas):  # each CTA reduces its shared arrays (the kernel's formulas) into the same arrays
        e["add_u32"] = (e["add_u32"].astype(np.uint64) + (1000 * (b + 1) + t)).astype(np.uint32)
        e["add_f32"] = e["add_f32"] + ((t - 32) * (b + 1) * 0.25).astype(np.float32)  # quarters: exact
        e["min_s32"] = np.minimum(e["min_s32"], ((t * 7 + b * 13) % 50 - 25).astype(np.int32))
        e["max_u64"] = np.maximum(e["max_u64"], ((t * 31 + b).astype(np.uint64) << np.uint64(33))
                                  | (t ^ b).astype(np.uint64))
        e["and_b32"] &= ~(np.uint32(1) << ((t + b) % 32).astype(np.uint32))
        e["or_b64"] |= np.uint64(1) << ((t * 3 + b * 5) % 64).astype(np.uint64)
        e["xor_b32"] ^= (np.uint32(0x9E3779B9) * (t + 1).astype(np.uint32) + np.uint32(b)).astype(np.uint32)
        src = (t % 5).astype(np.uint32)
        # .inc: old >= src ? 0 : old + 1; .dec: (old == 0 || old > src) ? src : old - 1 (the same
        # operand in both CTAs, so the order of the two reductions does not matter).
        o = e["inc_u32"]
        e["inc_u32"] = np.where(o >= src, 0, o + 1).astype(np.uint32)
        o = e["dec_u32"]
        e["dec_u32"] = np.where((o == 0) | (o > src), src, o - 1).astype(np.uint32)
        e["add_f16"] = (e["add_f16"] + (t - 20 + b)).astype(np.float16)  # small integers: exact
        cur = (e["min_bf16"].astype(np.uint32) << 16).view(np.float32)
        new = (_bf16_bits(((t * 5 + b * 3) % 40 - 20) * 0.5).astype(np.uint32) << 16).view(np.float32)
        e["min_bf16"] = _bf16_bits(np.minimum(cur, new))
    keys = list(init)
    return dict(grid=[ctas], block=[64], args=[In(k, init[k]) for k in keys],
                expect=[Expect(i, e[k]) for i, k in enumerate(keys)],
                comment="Two CTAs each reduce 64-element shared arrays into the same global arrays with "
                        "cp.reduce.async.bulk.global.shared::cta.bulk_group: add.u32, add.f32, min.s32, max.u64, "
                        "and.b32, or.b64, xor.b32, inc.u32, dec.u32, add.noftz.f16, min.bf16 (values exact in "
                        "every type, so the order of the CTAs does not matter).")


@spec("tma_bulk", "tensor_tile_param")
def _(r):
    rows, cols = 64, 96
    x = r.integers(-1000, 1000, (rows, cols)).astype(np.float32)
    raw = np.zeros((2, 3, 1024), np.float32)
    for by in range(2):
        for bx in range(3):
            tile = x[by * 32:by * 32 + 32, bx * 32:bx * 32 + 32]
            for i in range(32):
                for j in range(32):
                    raw[by, bx, _swizzle(3, i * 128 + j * 4) // 4] = tile[i, j]
    return dict(grid=[3, 2], block=[128],
                args=[TensorMapArg("in", [rows, cols], arr=x.ravel(), box=[32, 32], swizzle="128B"),
                      TensorMapArg("out", [rows, cols], dtype=np.float32, box=[32, 32]),
                      Zeros("raw", np.float32, 6 * 1024)],
                expect=[Expect(1, (4 * x).ravel()), Expect(2, raw.ravel())],
                comment="__grid_constant__ CUtensorMap parameters (described by the launch): each CTA loads a 32x32 "
                        "f32 box with cp.async.bulk.tensor.2d and the 128-byte swizzle and dumps the raw shared "
                        "image (16-byte chunk c of row i at chunk c XOR i%8), doubles every element into an "
                        "unswizzled tile that it stores with cp.async.bulk.tensor.2d.global.shared::cta.bulk_group "
                        "and adds once more with cp.reduce.async.bulk.tensor.2d.add: out = 4x.")


@spec("tma_bulk", "swizzle_modes")
def _(r):
    rows, cols = 16, 40
    x = r.integers(0, 2 ** 31, (rows, cols)).astype(np.uint32)
    images = []
    for row_bytes, bits, sw in ((32, 1, "32B"), (64, 2, "64B"), (128, 3, "128B")):
        img = np.zeros(8 * row_bytes // 4, np.uint32)
        tile = x[2:10, 4:4 + row_bytes // 4]
        for i in range(8):
            for j in range(row_bytes // 4):
                img[_swizzle(bits, i * row_bytes + j * 4) // 4] = tile[i, j]
        images.append(img)
    maps = [TensorMapArg(f"x{w}", [rows, cols], arr=x.ravel(), box=[8, w // 4], swizzle=sw, elem="u32")
            for w, sw in ((32, "32B"), (64, "64B"), (128, "128B"))]
    return dict(grid=[1], block=[32], args=maps + [Zeros("raw", np.uint32, 448)],
                expect=[Expect(3, np.concatenate(images))],
                comment="The three swizzle modes' placement: an 8-row box at (4, 2) of a 16x40 u32 tensor with "
                        "32-, 64- and 128-byte rows and the 32B, 64B and 128B swizzle, each image dumped raw; the "
                        "reference applies the ISA's XOR of address bits [4, 4+B) with bits [7, 7+B).")


@spec("tma_bulk", "tensor_map_device")
def _(r):
    rows, cols = 20, 24
    x = (r.integers(-500, 500, (rows, cols)) / 2).astype(np.float32)
    fill = np.full((8, 16), NAN32, np.float32)
    for i in range(8):
        for j in range(16):
            gi, gj = rows - 4 + i, -4 + j
            if 0 <= gi < rows and 0 <= gj < cols:
                fill[i, j] = x[gi, gj]
    strided = np.stack([x[1 + 2 * k, 8:24] for k in range(4)])
    return dict(grid=[1], block=[32],
                args=[In("in", x.ravel()), Zeros("fill_out", np.float32, 128), Zeros("stride_out", np.float32, 64),
                      Zeros("maps", np.uint8, 256), Scalar("rows", "s32", rows), Scalar("cols", "s32", cols)],
                expect=[Expect(1, fill.ravel()), Expect(2, strided.ravel())],
                comment="Tensor maps built on the device: map 0 edited in global memory with "
                        "tensormap.replace.tile.*.global (fence.proxy.tensormap::generic release/acquire), a 16x8 "
                        "box with OOB-NaN fill loaded at (-4, rows-4): elements outside the 20x24 tensor are the "
                        "H100's f32 NaN fill 0x7ff77ff7; map 1 built in shared memory and copied out with "
                        "tensormap.cp_fenceproxy, element stride 2 along rows: a box of 8 rows loads rows 1, 3, 5, 7. "
                        "Also cp.async.bulk.prefetch(.tensor).L2.")


# ----------------------------------------------------------------------------------------------
# Triton tensor descriptors (TMA on sm_90)

@triton_spec("tma_copy2d")
def _(r):
    v = _vals("tma_copy2d")
    m, n = v["M"], v["N"]
    x = (r.integers(-400, 400, (m, n)) / 4).astype(np.float32)
    out = (2 * x.astype(np.float64) + 1).astype(np.float32)  # exact
    return dict(args=[In("x", x.ravel()), Zeros("out", np.float32, m * n), Scalar("M", "s32", m), Scalar("N", "s32", n),
                      Scratch(), Null()],
                expect=[Expect(1, out.ravel())],
                comment=f"tl.make_tensor_descriptor load and store of 32x64 f32 tiles of a {m}x{n} tensor, out = 2x + 1. "
                        "On sm_90 the descriptors are tensor maps built in shared memory with tensormap.replace and "
                        "copied to the global scratch (tensormap.cp_fenceproxy); each tile arrives as two 32x32 boxes "
                        "with the 128-byte swizzle (cp.async.bulk.tensor, mbarrier complete-tx) and leaves through a "
                        "bulk-group tensor store; the last tiles run out of bounds (zero fill, clipped stores).")


@triton_spec("tma_matmul")
def _(r):
    v = _vals("tma_matmul")
    m, n, k = v["M"], v["N"], v["K"]
    a = r.integers(-3, 4, (m, k))
    b = r.integers(-3, 4, (k, n))
    c = (a @ b).astype(np.float16)  # |c| <= 648: exact
    return dict(args=[In("a", a.astype(np.float16).ravel()), In("b", b.astype(np.float16).ravel()),
                      Zeros("c", np.float16, m * n), Scalar("M", "s32", m), Scalar("N", "s32", n),
                      Scalar("K", "s32", k), Scratch(), Null()],
                expect=[Expect(2, c.ravel())],
                comment=f"fp16 matmul {m}x{k} @ {k}x{n} with A, B and C through device-side tensor descriptors (sm_90: "
                        "TMA into swizzled shared memory read by wgmma; sm_80: plain loads and mma.sync). K = 72 is "
                        "not a multiple of BLOCK_K = 32: the last K box is zero-filled past the tensor, so a wrong fill "
                        "would change the sums. Integer entries: exact.")


@triton_spec("tma_atomic_add")
def _(r):
    v = _vals("tma_atomic_add")
    m, n = v["M"], v["N"]
    x = r.integers(-100, 100, (m, n)).astype(np.float32)
    out = x.reshape(m // 16, 16, n).sum(0).astype(np.float32)  # integer sums: exact in any order
    return dict(args=[In("x", x.ravel()), Zeros("out", np.float32, 16 * n), Scalar("M", "s32", m),
                      Scalar("N", "s32", n), Scratch(), Null()],
                expect=[Expect(1, out.ravel())],
                comment="Descriptor atomic_add: 4 programs add their 16x32 blocks of x into one 16x32 block "
                        "(cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.bulk_group on sm_90, "
                        "atom.global.add on sm_80). Integers: exact in any order.")


@triton_spec("tma_3d")
def _(r):
    v = _vals("tma_3d")
    a_, b_, c_ = v["A"], v["B"], v["C"]
    x = r.integers(-500, 500, (a_, b_, c_)).astype(np.float16)
    return dict(args=[In("x", x.ravel()), Zeros("out", np.float16, x.size), Scalar("A", "s32", a_),
                      Scalar("B", "s32", b_), Scalar("C", "s32", c_), Scratch(), Null()],
                expect=[Expect(1, (x + np.float16(1)).ravel())],
                comment=f"A 3-D descriptor over a {a_}x{b_}x{c_} fp16 tensor, 2x8x32 blocks (64-byte rows: the 64-byte "
                        "swizzle on sm_90), out = x + 1; A and C are not multiples of the block.")


@triton_spec("tma_descriptor_persistent_matmul")
def _(r):
    v = _vals("tma_descriptor_persistent_matmul")
    m, n, k = v["M"], v["N"], v["K"]
    a = r.integers(-3, 4, (m, k))
    b = r.integers(-3, 4, (n, k))
    c = (a @ b.T).astype(np.float16)
    return dict(args=[In("a", a.astype(np.float16).ravel()), In("b", b.astype(np.float16).ravel()),
                      Zeros("c", np.float16, m * n), Scalar("M", "s32", m), Scalar("N", "s32", n),
                      Scalar("K", "s32", k), Scratch(), Null()],
                expect=[Expect(2, c.ravel())],
                comment=f"The persistent matmul tutorial's device-descriptor variant: C = A B^T ({m}x{k} by {n}x{k}), 3 "
                        "programs loop over 6 tiles; M = 160 leaves the last tile row half out of bounds. Exact.")


@triton_spec("tma_flash_attn")
def _(r):
    d = _flash_attn(r, "tma_flash_attn", 64)
    d["args"][-2:] = [Scratch(), Null()]
    d["comment"] = ("Flash-attention forward with Q, K, V and O through device-side tensor descriptors over "
                    "[heads * N_CTX, HEAD_DIM] (2 heads x 128 positions x head dim 64, 64-row blocks): on sm_90 every "
                    "tile arrives by TMA with the 128-byte swizzle and feeds wgmma. Reference = exact softmax "
                    "attention.")
    return d


@triton_spec("tma_host_desc")
def _(r):
    m, n = 96, 120
    a = r.integers(-500, 500, (m, n)).astype(np.float16)
    c = (3 * a.astype(np.float64) - 2).astype(np.float16)  # |3a - 2| < 2048: exact
    return dict(args=[TensorMapArg("a", [m, n], arr=a.ravel(), meta_index=0), Scalar("a_M", "s32", m),
                      Scalar("a_N", "s32", n), Scalar("a_stride0", "s64", n), Scalar("a_stride1", "s64", 1),
                      TensorMapArg("c", [m, n], dtype=np.float16, meta_index=1), Scalar("c_M", "s32", m),
                      Scalar("c_N", "s32", n), Scalar("c_stride0", "s64", n), Scalar("c_stride1", "s64", 1),
                      Scratch(), Null()],
                expect=[Expect(5, c.ravel())],
                comment=f"Host-side TensorDescriptor arguments over {m}x{n} fp16 tensors: each is a __grid_constant__ "
                        "CUtensorMap parameter (described by the launch from the compiled tensordesc_meta: box "
                        "32x64, 128-byte swizzle), then the descriptor's shape and strides, as Triton's launcher "
                        "passes them; the kernel reads the maps through cvta.param. c = 3a - 2; the last column "
                        "block runs out of bounds.")


@triton_spec("tma_persistent_matmul")
def _(r):
    v = _vals("tma_persistent_matmul")
    m, n, k = v["M"], v["N"], v["K"]
    a = r.integers(-3, 4, (m, k))
    b = r.integers(-3, 4, (n, k))
    c = (a @ b.T).astype(np.float16)
    args = []
    for idx, (name, shape, arr, dt) in enumerate((("a", (m, k), a, None), ("b", (n, k), b, None),
                                                  ("c", (m, n), None, np.float16))):
        args.append(TensorMapArg(name, shape, arr=None if arr is None else arr.astype(np.float16).ravel(),
                                 dtype=dt, meta_index=idx))
        args += [Scalar(f"{name}_shape0", "s32", shape[0]), Scalar(f"{name}_shape1", "s32", shape[1]),
                 Scalar(f"{name}_stride0", "s64", shape[1]), Scalar(f"{name}_stride1", "s64", 1)]
    args += [Scalar("M", "s32", m), Scalar("N", "s32", n), Scalar("K", "s32", k), Scratch(), Null()]
    return dict(args=args, expect=[Expect(10, c.ravel())],
                comment=f"The persistent matmul tutorial's TMA variant (matmul_kernel_tma_persistent, no warp "
                        f"specialization): host descriptors for A ({m}x{k}), B ({n}x{k}) and C, 64x32 boxes with the "
                        "64-byte swizzle, C = A B^T stored as two 64x32 sub-tiles (EPILOGUE_SUBTILE); 3 programs "
                        "over 6 tiles. Exact.")


def toml_str(s):
    return json.dumps(s)  # a JSON string is a valid TOML basic string


def comment_block(text, width=98):
    words, lines, cur = text.split(), [], "#"
    for wd in words:
        if len(cur) + 1 + len(wd) > width:
            lines.append(cur)
            cur = "#"
        cur += " " + wd
    lines.append(cur)
    return lines


def save(rel, arr):
    path = os.path.join(RUN, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.save(path, arr, allow_pickle=False)


def check_params(ptx_rel, kernel, params, args):
    if len(params) != len(args):
        raise SystemExit(f"{ptx_rel} {kernel}: {len(args)} args for {len(params)} params")
    for p, a in zip(params, args):
        if isinstance(a, TensorMapArg):
            if not p["name"].endswith("[128]"):
                raise SystemExit(f"{ptx_rel} {kernel}: tensor map {a.name} does not fit param {p}")
            continue
        size = PTX_BYTES[p["type"]]
        if isinstance(a, Scalar):
            ok = SPEC_BYTES[a.ty] == size
        else:
            ok = size == 8
        if not ok:
            raise SystemExit(f"{ptx_rel} {kernel}: arg {a.name} does not fit param {p}")


SCALAR_SPEC = {".u8": "u8", ".u16": "u16", ".u32": "u32", ".u64": "u64", ".s8": "s8", ".s16": "s16",
               ".s32": "s32", ".s64": "s64", ".b16": "u16", ".b32": "u32", ".b64": "u64"}


def step_arg(p, names):
    """The launch-file spec of one recorded argument (see record_launches.py)."""
    raw = bytes.fromhex(p["hex"])
    ptrs = {q["at"]: f"{names[q['alloc']]}" + (f"+{q['offset']}" if q["offset"] else "") for q in p["pointers"]}
    if len(raw) == 8 and ptrs.get(0):
        return f"buf:{ptrs[0]}"
    if p["type"] in SCALAR_SPEC and not ptrs and len(raw) in (1, 2, 4, 8) and not p["type"].startswith(".b8"):
        ty = SCALAR_SPEC[p["type"]]
        v = int.from_bytes(raw, "little", signed=ty.startswith("s"))
        return f"{ty}:{v}"
    out, i = "bytes:", 0
    while i < len(raw):
        if i in ptrs:
            out += "{" + ptrs[i] + "}"
            i += 8
        else:
            out += raw[i:i + 1].hex()
            i += 1
    return out


def write_steps_launches(files):
    """Multi-step launch files for every STEP_SPECS sequence and every target recorded."""
    written, data_bytes = [], 0
    for source, seq_name, builder in STEP_SPECS:
        targets = [f for f in files if f["generator"]["tool"] == "nvcc"
                   and f["generator"]["source"].endswith(f"/{source}.cu") and f["generator"].get("launch_record")]
        if not targets:
            raise SystemExit(f"no recorded corpus file for {source}")
        group = f"nvcc/{source}/{seq_name}"
        d = builder(rng(group))
        for f in targets:
            rec = json.load(open(os.path.join(CORPUS, f["generator"]["launch_record"])))
            seqs = [q for q in rec["sequences"] if q["name"] == seq_name]
            if len(seqs) != 1:
                raise SystemExit(f"{f['file']}: {len(seqs)} recorded sequences named {seq_name}")
            steps = seqs[0]["steps"]
            # Device-to-host reads (Thrust reads back a count it returns): the recorder hands the
            # host zeros, so a record is only sound if no launch or copy comes after one.
            host_reads = [st for st in steps if st["op"] == "host_read"]
            steps = [st for st in steps if st["op"] != "host_read"]
            if host_reads and seqs[0]["steps"][-len(host_reads):] != host_reads:
                raise SystemExit(f"{f['file']} {seq_name}: the host code read device memory back before "
                                 "a later step, which may depend on the value it read")
            used = sorted({q["alloc"] for st in steps if st["op"] == "launch" for p in st["params"]
                           for q in p["pointers"]} | {st["alloc"] for st in steps if st["op"] != "launch"}
                          | {st["src_alloc"] for st in steps if st["op"] == "copy"})
            names = {i: rec["allocations"][i]["name"] for i in used}
            if len(set(names.values())) != len(names):
                raise SystemExit(f"{f['file']} {seq_name}: two buffers share a name: {names}")
            unknown = set(d["buffers"]) - set(names.values())
            if unknown:
                raise SystemExit(f"{f['file']} {seq_name}: the spec names buffers the launches never use: {unknown}")
            stem = f["file"][: -len(".ptx")].replace("/", ".")
            name = f"{stem}.{seq_name}"
            lines = [f"# {name}: the kernel sequence `{seq_name}` of {f['file']} ({f['target']}), as the library's "
                     "host code launched it.",
                     *comment_block(d["comment"]),
                     *comment_block(f"Steps recorded by running the host code of {f['generator']['source']} against "
                                    "gen/cuda/launch_recorder.cpp (record: tests/corpus/"
                                    f"{f['generator']['launch_record']}); inputs and expected outputs: "
                                    "tests/corpus/gen/make_launches.py (numpy, fixed seeds)."),
                     *(comment_block("After the kernels the host code read back "
                                     + ", ".join(f"{h['bytes']} bytes of `{rec['allocations'][h['alloc']]['name']}`"
                                                 + (f" at offset {h['offset']}" if h["offset"] else "")
                                                 for h in host_reads)
                                     + " (a count it returns); no step comes after the read.")
                       if host_reads else []),
                     "", f"ptx = {toml_str('../' + f['file'])}"]
            for i in used:
                a = rec["allocations"][i]
                bname, nbytes = a["name"], a["bytes"]
                v = d["buffers"].get(bname)
                if isinstance(v, np.ndarray):
                    if v.nbytes != nbytes:
                        raise SystemExit(f"{name}: buffer {bname} has {nbytes} bytes, the input {v.nbytes}")
                    rel = f"data/{group}/{bname}.npy"
                    if not os.path.exists(os.path.join(RUN, rel)):
                        save(rel, v)
                        data_bytes += v.nbytes
                    init = rel
                else:
                    dt = np.dtype(v if v is not None else np.uint8)
                    if nbytes % dt.itemsize:
                        raise SystemExit(f"{name}: buffer {bname} ({nbytes} bytes) is not a whole number of {dt}")
                    init = f"zeros:{NPY_TO_SPEC[dt]}:{nbytes // dt.itemsize}"
                lines += ["", "[[buffer]]", f"name = {toml_str(bname)}", f"init = {toml_str(init)}"]
            params_of = {k["name"]: k["params"] for k in f["kernels"]}
            kernels = []
            for st in steps:
                lines += ["", "[[step]]"]
                if st["op"] == "memset":
                    lines += [f"memset = {toml_str(names[st['alloc']])}", f"offset = {st['offset']}",
                              f"bytes = {st['bytes']}", f"value = {st['value']}"]
                    continue
                if st["op"] == "copy":
                    at = lambda a, o: names[a] + (f"+{o}" if o else "")
                    lines += [f"copy = {toml_str(at(st['alloc'], st['offset']))}",
                              f"from = {toml_str(at(st['src_alloc'], st['src_offset']))}", f"bytes = {st['bytes']}"]
                    continue
                kernels.append(st["kernel"])
                lines += [f"kernel = {toml_str(st['kernel'])}", f"grid = {json.dumps(st['grid'])}",
                          f"block = {json.dumps(st['block'])}", f"shared = {st['shared']}", "args = ["]
                for p, kp in zip(st["params"], params_of[st["kernel"]]):
                    lines.append(f"    {toml_str(step_arg(p, names))},  # {kp['name'].split('_param_')[-1]} "
                                 f"({kp['type']}{'[' + kp['name'].rsplit('[', 1)[1] if '[' in kp['name'] else ''})")
                lines.append("]")
            expects = []
            for e in d["expect"]:
                v = d["buffers"].get(e.arg)
                dt = v.dtype if isinstance(v, np.ndarray) else np.dtype(v)
                (nbytes,) = [rec["allocations"][i]["bytes"] for i in used if names[i] == e.arg]
                if e.arr.dtype != dt or e.arr.nbytes != nbytes:
                    raise SystemExit(f"{name}: expected {e.arg} is {e.arr.dtype}[{e.arr.size}], the buffer "
                                     f"{dt} with {nbytes} bytes")
                rel = f"data/{group}/expected_{e.arg}.npy"
                if not os.path.exists(os.path.join(RUN, rel)):
                    save(rel, e.arr)
                    data_bytes += e.arr.nbytes
                lines += [""]
                if e.why:
                    lines += comment_block(e.why)
                lines += ["[[expect]]", f"buffer = {toml_str(e.arg)}", f"npy = {toml_str(rel)}",
                          f"max_ulp = {e.max_ulp}"]
                expects.append(dict(buffer=e.arg, max_ulp=e.max_ulp))
            text = "\n".join(lines) + "\n"
            path = os.path.join(RUN, name + ".toml")
            with open(path, "w") as fh:
                fh.write(text)
            tomllib.loads(text)
            written.append(dict(launch=f"run/{name}.toml", ptx=f["file"], kernel=seq_name, steps=kernels,
                                expect=expects))
    return written, data_bytes


def main():
    manifest = json.load(open(os.path.join(CORPUS, "manifest.json")))
    files = [f for f in manifest["files"] if f["ptxas"]["verdict"] == "accepted"]
    os.makedirs(RUN, exist_ok=True)
    written, data_bytes = [], 0
    for source, kernel, label, builder in SPECS:
        if source.startswith("triton:"):
            cfg_name = source.split(":", 1)[1]
            targets = [f for f in files if f["generator"]["tool"] == "triton"
                       and f["generator"]["config"].endswith(":" + cfg_name)]
            group = f"triton/{cfg_name}"
        else:
            targets = [f for f in files if f["generator"]["tool"] == "nvcc"
                       and f["generator"]["source"].endswith(f"/{source}.cu")
                       and any(k["name"] == kernel for k in f["kernels"])]
            group = f"nvcc/{source}/{label}"
        if not targets:
            raise SystemExit(f"no corpus file for {source} {kernel}")
        d = builder(rng(group))
        # Inputs and expected outputs, shared by every target of this kernel.
        # Per argument: its spec, or a function of the target's metadata (scratch, tensor maps).
        arg_specs = []
        for a in d["args"]:
            if isinstance(a, In):
                rel = f"data/{group}/{a.name}.npy"
                save(rel, a.arr)
                data_bytes += a.arr.nbytes
                arg_specs.append(rel)
            elif isinstance(a, Zeros):
                arg_specs.append(f"zeros:{NPY_TO_SPEC[a.dtype]}:{a.count}")
            elif isinstance(a, Null):
                arg_specs.append("null")
            elif isinstance(a, Scratch):
                arg_specs.append(lambda meta, grid: (f"zeros:u8:{meta['global_scratch_size'] * int(np.prod(grid))}"
                                                     if meta and meta["global_scratch_size"] else "null"))
            elif isinstance(a, TensorMapArg):
                if a.arr is not None:
                    rel = f"data/{group}/{a.name}.npy"
                    save(rel, a.arr)
                    data_bytes += a.arr.nbytes
                    buf = rel
                else:
                    buf = f"zeros:{NPY_TO_SPEC[a.dtype]}:{a.count}"
                arg_specs.append(lambda meta, grid, a=a, buf=buf: a.spec(buf, meta))
            else:
                arg_specs.append(fmt_scalar(a.ty, a.value))
        expects = []
        for e in d["expect"]:
            a = d["args"][e.arg]
            want_dtype, want_count = (a.arr.dtype, a.arr.size) if isinstance(a, In) else (a.dtype, a.count)
            if e.arr.dtype != want_dtype or e.arr.size != want_count:
                raise SystemExit(f"{group}: expected output {e.arg} is {e.arr.dtype}[{e.arr.size}], buffer is "
                                 f"{want_dtype}[{want_count}]")
            rel = f"data/{group}/expected_{a.name}.npy"
            save(rel, e.arr)
            data_bytes += e.arr.nbytes
            expects.append((e, rel))
        for f in targets:
            meta = None
            if source.startswith("triton:"):
                meta = json.load(open(os.path.join(CORPUS, f["file"][: -len(".ptx")] + ".json")))
                kname, grid, block, shared = meta["entry"], meta["grid"], meta["block"], meta["shared"]
            else:
                kname, grid, block, shared = kernel, d["grid"], d["block"], d.get("shared", 0)
            (k,) = [k for k in f["kernels"] if k["name"] == kname]
            check_params(f["file"], kname, k["params"], d["args"])
            stem = f["file"][: -len(".ptx")].replace("/", ".")
            name = stem if source.startswith("triton:") else f"{stem}.{label}"
            lines = [f"# {name}: launch of `{kname}` from {f['file']} ({f['target']}).",
                     *comment_block(d["comment"]),
                     f"# Source: {f['generator']['source']}"
                     + (f" ({f['generator']['config']})" if meta else "") + ".",
                     "# Inputs and expected outputs: tests/corpus/gen/make_launches.py (numpy, fixed seeds)."]
            specs = [s(meta, grid) if callable(s) else s for s in arg_specs]
            if meta:
                scratch = ("the two trailing pointer params are Triton's scratch buffers, passed as null."
                           if specs[-2] == "null" else
                           f"the trailing global_scratch param is a zero buffer of global_scratch_size "
                           f"({meta['global_scratch_size']}, alignment {meta['global_scratch_align']}) bytes per "
                           "program, as Triton's launcher allocates it (the tensor maps are built there); "
                           "profile_scratch is null.")
                lines += comment_block(f"Triton metadata ({f['file'][:-4]}.json): num_warps={meta['num_warps']}, "
                                       f"shared={meta['shared']} bytes (dynamic shared memory); block = 32*num_warps; "
                                       + scratch)
            for needle in d.get("requires_ptx_text", []):
                if needle not in open(os.path.join(CORPUS, f["file"])).read():
                    raise SystemExit(f"{f['file']}: the reference assumes `{needle}` in the PTX")
            lines += ["", f"ptx = {toml_str('../' + f['file'])}", f"kernel = {toml_str(kname)}",
                      f"grid = {json.dumps(grid)}", f"block = {json.dumps(block)}", f"shared = {shared}",
                      "args = ["]
            for p, s in zip(k["params"], specs):
                lines.append(f"    {toml_str(s)},  # {p['name']} ({p['type']})")
            lines.append("]")
            for e, rel in expects:
                lines += [""]
                if e.why:
                    lines += comment_block(e.why)
                lines += ["[[expect]]", f"arg = {e.arg}", f"npy = {toml_str(rel)}", f"max_ulp = {e.max_ulp}"]
            text = "\n".join(lines) + "\n"
            path = os.path.join(RUN, name + ".toml")
            with open(path, "w") as fh:
                fh.write(text)
            tomllib.loads(text)  # must be valid TOML
            written.append(dict(launch=f"run/{name}.toml", ptx=f["file"], kernel=kname,
                                expect=[dict(arg=e.arg, max_ulp=e.max_ulp) for e, _ in expects]))
    steps_written, steps_bytes = write_steps_launches(files)
    written += steps_written
    data_bytes += steps_bytes
    with open(os.path.join(RUN, "index.json"), "w") as fh:
        json.dump(dict(launches=written), fh, indent=1)
        fh.write("\n")
    print(f"launches: {len(written)} files, {data_bytes} bytes of .npy payload")


if __name__ == "__main__":
    main()
