"""Shared by the tests: where the repository's corpus is, corpus launch files as numpy
arguments, comparison by ULP distance (docs/launch-format.md), and the CLI to compare with."""

from __future__ import annotations

import os
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "tests" / "corpus"
RUN_DIR = CORPUS / "run"

# Element types of launch-file specs (bf16 travels as its 16-bit pattern).
NP_TYPES = {
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "f16": np.float16, "bf16": np.uint16, "f32": np.float32, "f64": np.float64,
}


@dataclass
class CorpusLaunch:
    """A launch file (docs/launch-format.md) with its arguments as numpy objects."""

    path: Path
    ptx: Path
    kernel: str
    grid: list
    block: list
    shared: int
    seed: int
    specs: list
    args: list
    expects: list  # (arg index, expected array, max_ulp)


def scalar(ty: str, text: str):
    """A `TYPE:VALUE` spec as a numpy scalar of that type."""
    t = NP_TYPES[ty]
    if np.issubdtype(t, np.floating):
        return t(float(text))
    if ty == "bf16":
        raise ValueError("bf16 scalars are not used by the corpus")
    return t(int(text, 0))


def buffer(spec: str, base: Path) -> np.ndarray:
    """A buffer spec (`zeros:TYPE:COUNT`, `PATH.npy`, `PATH.bin`) as a numpy array."""
    if spec.startswith("zeros:"):
        _, ty, count = spec.split(":")
        return np.zeros(int(count), dtype=NP_TYPES[ty])
    if spec.endswith(".npy"):
        return np.load(base / spec)
    return np.fromfile(base / spec, dtype=np.uint8)


def tensor_map(spec: str, base: Path):
    """A `tensormap[KEY=VALUE,...]:BUFFER` spec as a ptxsim.TensorMap (its keys list dimensions
    innermost first and strides in bytes; TensorMap takes them outermost first, in elements)."""
    import ptxsim

    keys, buf = spec[len("tensormap["):].split("]:", 1)
    kv = dict(k.split("=", 1) for k in keys.split(","))
    array = buffer(buf, base)
    shape = [int(x) for x in kv["dims"].split("x")][::-1]
    box = [int(x) for x in kv["box"].split("x")][::-1]
    strides = None
    if "strides" in kv:
        strides = [int(x) // array.dtype.itemsize for x in kv["strides"].split("x")][::-1] + [1]
    return ptxsim.TensorMap(array, box, shape=shape, strides=strides, elem=kv.get("type"),
                            swizzle=kv.get("swizzle", "none").replace("none", "0").rstrip("B"),
                            fill=kv.get("fill", "zero"))


def load_launch(path: Path) -> CorpusLaunch:
    doc = tomllib.loads(path.read_text())
    base = path.parent
    args = []
    for spec in doc["args"]:
        if spec.startswith("tensormap["):
            args.append(tensor_map(spec, base))
        elif spec == "null":
            args.append(None)
        elif spec.startswith("zeros:"):
            _, ty, count = spec.split(":")
            args.append(np.zeros(int(count), dtype=NP_TYPES[ty]))
        elif spec.endswith(".npy"):
            args.append(np.load(base / spec))
        elif spec.endswith(".bin"):
            args.append(np.fromfile(base / spec, dtype=np.uint8))
        else:
            ty, value = spec.split(":", 1)
            args.append(scalar(ty, value))
    expects = [(e["arg"], np.load(base / e["npy"]), e.get("max_ulp", 0)) for e in doc.get("expect", [])]
    return CorpusLaunch(
        path=path,
        ptx=base / doc["ptx"],
        kernel=doc["kernel"],
        grid=doc["grid"],
        block=doc["block"],
        shared=doc.get("shared", 0),
        seed=doc.get("seed", 0),
        specs=list(doc["args"]),
        args=args,
        expects=expects,
    )


def _ordered(a: np.ndarray) -> list[int]:
    """Float bit patterns mapped to integers in value order (sign-magnitude to a line)."""
    bits = 8 * a.itemsize
    sign = 1 << (bits - 1)
    raw = a.view(f"u{a.itemsize}").ravel().tolist()
    return [-(v & (sign - 1)) if v & sign else v for v in raw]


def mismatches(got: np.ndarray, want: np.ndarray, max_ulp: int) -> list[str]:
    """Elements of `got` farther than `max_ulp` from `want` (floats; NaN equals NaN), or
    different at all (integers)."""
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    if not np.issubdtype(want.dtype, np.floating):
        bad = np.flatnonzero(got.ravel() != want.ravel())
        return [f"[{i}] got {got.ravel()[i]!r}, expected {want.ravel()[i]!r}" for i in bad[:5]]
    g, w = got.ravel(), want.ravel()
    gn, wn = np.isnan(g), np.isnan(w)
    out = []
    for i, (a, b) in enumerate(zip(_ordered(g), _ordered(w))):
        if gn[i] and wn[i]:
            continue
        if gn[i] != wn[i] or abs(a - b) > max_ulp:
            out.append(f"[{i}] got {g[i]!r}, expected {w[i]!r} ({abs(a - b)} ulp)")
            if len(out) == 5:
                break
    return out


def cli() -> Path:
    """The `ptxsim` CLI binary whose messages the Python exceptions must repeat."""
    env = os.environ.get("PTXSIM_CLI")
    candidates = [Path(env)] if env else [REPO / "target" / "debug" / "ptxsim", REPO / "target" / "release" / "ptxsim"]
    for c in candidates:
        if c.is_file():
            return c
    pytest.fail("the ptxsim CLI is not built: run `cargo build -p ptxsim` or set PTXSIM_CLI")


def cli_error(*args: str) -> str:
    """The message the CLI prints after `error: ` for a failing command."""
    p = subprocess.run([str(cli()), *args], capture_output=True, text=True)
    assert p.returncode != 0, p.stdout
    lines = [line for line in p.stderr.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, p.stderr
    return lines[0].removeprefix("error: ")
