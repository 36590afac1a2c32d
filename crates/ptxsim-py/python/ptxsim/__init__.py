"""ptxsim: run PTX and Triton kernels on numpy arrays on a CPU, over a model of the GPU memory
hierarchy, and see what each cache hint did.

    >>> import numpy as np, ptxsim
    >>> r = ptxsim.launch("kernel.ptx", "add", grid=4, block=128, args=[x, y, out, np.int32(n)])
    >>> print(r.summary())

`sweep` runs a launch over every combination of hint variants, GPU models, persisting set-aside
sizes and seeds, on local threads or Ray (``ptxsim.triton.sweep`` for Triton kernels, with
problem sizes and constexprs as axes too). `launch` runs a kernel of a PTX module (nvcc, Triton or hand-written); `check` validates PTX as
ptxas does; `ptxsim.triton.run` compiles a ``@triton.jit`` function with Triton's own compiler
for a chosen target (no GPU needed) and launches it. Everything runs in the Rust extension
``ptxsim._native``; this module only marshals arguments.
"""

from __future__ import annotations

import operator
import os
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import _native
from ._native import (
    Diagnostic,
    KernelFault,
    LaunchError,
    PtxsimError,
    PtxSyntaxError,
    PtxValidationError,
    Report,
    ResourceError,
    Result,
    UnsupportedError,
)

__version__ = _native.__version__

__all__ = [
    "launch",
    "compare",
    "advise",
    "Report",
    "check",
    "sweep",
    "SweepError",
    "TensorMap",
    "Result",
    "Diagnostic",
    "PtxsimError",
    "PtxSyntaxError",
    "PtxValidationError",
    "UnsupportedError",
    "LaunchError",
    "ResourceError",
    "KernelFault",
    "GPU_PRESETS",
]

#: GPU models ``gpu=`` names (a path to a TOML file overriding one of them works too).
GPU_PRESETS = tuple(_native.gpu_presets())

PtxSource = Union[str, bytes, "os.PathLike[str]"]
Dims = Union[int, Sequence[int]]


def _source(ptx: PtxSource) -> tuple[str, bytes]:
    """(name for messages, bytes) of PTX given as a path, PTX text or bytes.

    A ``str`` with a line break is PTX text; a one-line ``str`` is a file name.
    """
    if isinstance(ptx, os.PathLike) or (isinstance(ptx, str) and "\n" not in ptx):
        path = Path(ptx)
        try:
            return str(path), path.read_bytes()
        except OSError as e:
            raise PtxsimError(f"cannot read {path}: {e.strerror or e}") from None
    if isinstance(ptx, str):
        return "<ptx>", ptx.encode()
    if isinstance(ptx, (bytes, bytearray, memoryview)):
        return "<ptx>", bytes(ptx)
    raise TypeError(f"ptx: expected a path, PTX text or bytes, got {type(ptx).__name__}")


def _dims(value: Dims, what: str) -> list[int]:
    items = [value] if isinstance(value, (int, np.integer)) else list(value)
    out = []
    for v in items:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{what}: expected an int or 1 to 3 ints, got {value!r}")
        if not 0 <= int(v) < 2**32:
            raise LaunchError(f"{what} {tuple(items)}: dimensions must be between 1 and 2^32-1")
        out.append(int(v))
    return out


#: numpy dtypes and the tensor-map element type they default to.
_TMAP_ELEM = {
    "uint8": "u8", "int8": "u8", "uint16": "u16", "int16": "u16", "uint32": "u32", "int32": "s32",
    "uint64": "u64", "int64": "s64", "float16": "f16", "float32": "f32", "float64": "f64",
}


class TensorMap:
    """A tensor map (``CUtensorMap``) over a numpy array, for TMA kernels (``cp.async.bulk.tensor``).

    Pass it where the kernel takes a map by value (a ``__grid_constant__ CUtensorMap`` or a
    Triton host descriptor: ``.param .align 64 .b8 p[128]``) or a pointer to one (the map is then
    copied to global memory). ptxsim builds the 128 bytes in its own layout, pointing at a device
    copy of ``array``, which is written back in place after the run (docs/launch-format.md).

    box: the box in elements, outermost first (like ``array.shape``).
    shape: the tensor's shape (default ``array.shape``); strides: its strides in elements,
        outermost first (default: C-contiguous for ``shape``; the last must be 1).
    elem: the element type (``u8 u16 u32 s32 u64 s64 f16 f32 f32.ftz f64 bf16 tf32 tf32.ftz``;
        default from the array's dtype; ``bf16`` arrays are passed as uint16).
    swizzle: 0, 32, 64 or 128 (bytes). fill: ``"zero"`` or ``"nan"`` (out-of-bounds elements of
        loads). element_strides: traversal strides, outermost first (default 1). interleave: 0,
        16 or 32.
    """

    def __init__(self, array: np.ndarray, box: Sequence[int], *, shape: Optional[Sequence[int]] = None,
                 strides: Optional[Sequence[int]] = None, elem: Optional[str] = None,
                 swizzle: Union[int, str] = 0, fill: str = "zero",
                 element_strides: Optional[Sequence[int]] = None, interleave: int = 0):
        if not isinstance(array, np.ndarray):
            raise TypeError(f"TensorMap: expected a numpy array, got {type(array).__name__}")
        self.array = array
        self.shape = [int(x) for x in (array.shape if shape is None else shape)]
        rank = len(self.shape)
        if not 1 <= rank <= 5:
            raise LaunchError(f"TensorMap: a tensor map has 1 to 5 dimensions, shape {self.shape} has {rank}")
        self.box = [int(x) for x in box]
        if strides is None:
            strides = [int(np.prod(self.shape[i + 1:])) for i in range(rank)]
        self.strides = [int(x) for x in strides]
        if len(self.box) != rank or len(self.strides) != rank:
            raise LaunchError(f"TensorMap: shape {self.shape}, box {self.box} and strides {self.strides} "
                              "need the same number of dimensions")
        if self.strides[-1] != 1:
            raise LaunchError(f"TensorMap: the innermost stride must be 1, got {self.strides}")
        self.elem = elem or _TMAP_ELEM.get(array.dtype.name)
        if self.elem is None:
            raise LaunchError(f"TensorMap: give elem= for a {array.dtype} array")
        self.swizzle = swizzle
        self.fill = fill
        self.element_strides = None if element_strides is None else [int(x) for x in element_strides]
        self.interleave = interleave

    def _keys(self) -> str:
        itemsize = self.array.dtype.itemsize
        dims = "x".join(str(d) for d in self.shape[::-1])
        box = "x".join(str(b) for b in self.box[::-1])
        keys = [f"dims={dims}", f"box={box}", f"type={self.elem}", f"swizzle={self.swizzle}",
                f"fill={self.fill}", f"interleave={self.interleave}"]
        if len(self.shape) > 1:
            keys.append("strides=" + "x".join(str(s * itemsize) for s in self.strides[-2::-1]))
        if self.element_strides is not None:
            keys.append("estrides=" + "x".join(str(e) for e in self.element_strides[::-1]))
        return ",".join(keys)

    def __repr__(self) -> str:
        return f"<ptxsim.TensorMap {self._keys()}>"


def _arg(i: int, a: Any) -> Any:
    """One kernel argument as the extension takes it: None, a Python scalar, a byte buffer, or a
    ``("tensormap", keys, buffer)`` tuple."""
    if a is None or isinstance(a, (bool, int, float)):
        return a
    if isinstance(a, TensorMap):
        return ("tensormap", a._keys(), _arg(i, a.array))
    if isinstance(a, np.generic):
        # numpy scalars: the value; its type comes from the kernel's .param declaration.
        return a.item()
    if isinstance(a, np.ndarray):
        if a.dtype.hasobject:
            raise TypeError(f"argument {i}: arrays of Python objects cannot be passed to a kernel")
        if not a.flags.c_contiguous:
            raise LaunchError(
                f"argument {i}: the array is not C-contiguous (a device buffer is one contiguous "
                "range); pass np.ascontiguousarray(a) and read the result from it"
            )
        # A view of the same memory, so the run's result lands in the caller's array.
        return a.reshape(-1).view(np.uint8)
    if isinstance(a, (bytearray, memoryview)):
        return a
    raise TypeError(
        f"argument {i}: expected a numpy array, None, or a bool/int/float scalar, "
        f"got {type(a).__name__}"
    )


def launch(
    ptx: PtxSource,
    kernel: str,
    grid: Dims,
    block: Dims,
    args: Sequence[Any],
    *,
    shared: int = 0,
    gpu: Union[str, "os.PathLike[str]"] = "h100",
    hazards: bool = False,
    seed: int = 0,
    max_steps: Optional[int] = None,
    persisting_l2: Union[int, str] = 0,
    timeout: Optional[float] = None,
    threads: Optional[int] = None,
    registers_per_thread: Optional[int] = None,
    fmad: bool = True,
    access_policy_window: Optional[dict] = None,
    counters_only: bool = False,
) -> Result:
    """Run ``kernel`` of a PTX module on the CPU over the memory-hierarchy model.

    ptx: a path (``str`` without a line break, or ``os.PathLike``), PTX text, or bytes.
    grid, block: an int or 1 to 3 ints.
    args: in parameter order. A numpy array is passed as a device pointer to a copy of its bytes,
        and the array is written back in place after the run (it must be C-contiguous; a
        read-only array may be passed if the kernel does not write it). ``None`` is a null
        pointer. A ``TensorMap`` is a tensor map over an array (by value, or a pointer to it). A bool, int, float or numpy scalar is converted to the type of its ``.param``
        declaration (``.u32``, ``.s64``, ``.f32``, ``.f16``, ...), range-checked.
    shared: dynamic shared memory in bytes.
    gpu: ``"a100"``, ``"h100"``, ``"b200"``, or a TOML file overriding a preset (as ``ptxsim run
        --gpu``).
    hazards: also report cache-semantics hazards in ``Result.hazards``, as ``ptxsim run
        --hazards`` does: ``stale-l1`` (a load served from an SM's L1 with bytes that differ
        from the coherent value), ``nc-after-write`` (``ld.global.nc`` of bytes written in the
        kernel), ``cp-async-incomplete`` (reads of a ``cp.async`` destination, or writes of its
        source, before the copy is waited for) and ``weak-spin`` (a loop polling with weak
        loads), each with the conflicting access.
    seed: seed of the warp interleaving (0: the fixed default order).
    max_steps: fault after this many warp-instructions (default: 10^9).
    persisting_l2: the persisting-L2 set-aside in bytes, as
        ``cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, n)`` sets it: an int, or a string
        with a ``KiB``/``MiB``/``GiB`` suffix (``"4MiB"``). Default 0, as in a fresh CUDA
        context; more than the GPU's ``persisting_l2_max_bytes`` raises LaunchError.
    timeout: fault once the kernel has run this many seconds of wall-clock time (default: no
        limit); reported like the step limit, as KernelFault.
    threads: host threads that run the kernel (default: the available cores), as ``ptxsim run
        --threads``; 1 to 1024. Outputs, counters, hazards and faults are the same for every
        count. ``Result.threads`` says how many it used (one with ``hazards=True``; see
        ``Result.threads_note``).
    registers_per_thread: the kernel's registers per thread, as ``ptxas -v`` prints them (1 to
        255); with the block and shared memory they decide how many CTAs each SM holds at once
        (``Result.ctas_per_sm``, ``Result.limited_by``). Default: estimated from the PTX
        (``Result.registers_source`` says which).
    fmad: ptxas's ``--fmad`` the code stands for (default True: a ``mul`` and an ``add``/``sub``
        without rounding modifiers are contracted into one fused multiply-add where ptxas
        contracts them; False: rounded twice, as code assembled with ``--fmad=false``), as
        ``ptxsim run --fmad``. Debug modules (``.target ..., debug``) never contract.
    access_policy_window: the launch's access policy window, as
        ``cudaStreamAttrValue.accessPolicyWindow`` sets it on a stream: a dict with ``arg``
        (the buffer argument's index, or the numpy array itself), ``offset`` (bytes into it,
        default 0), ``bytes`` (``num_bytes``: an int or ``"1MiB"``), ``hit_ratio``,
        ``hit_prop`` and ``miss_prop`` (``"normal"``, ``"streaming"`` or ``"persisting"``), as
        ``ptxsim run --access-policy-window``. Checked as the CUDA runtime checks it: a window
        of 0 bytes or above the GPU's ``max_access_policy_window_bytes``, a hit ratio outside
        [0, 1], a ``persisting`` miss property or an argument that is no buffer raise
        LaunchError. Persistence needs a set-aside (``persisting_l2``).
    counters_only: compute only what the counters depend on (addresses, branches, predicates,
        barriers, memory operations), as ``ptxsim run --counters-only``: the statistics, the
        per-line table and the time estimate are those of a full run, the arrays passed in are
        left untouched (the output values are not computed). ``Result.counters_only`` says
        what the mode did: how many instructions it skipped, or why the launch ran again in
        full mode. ``hazards=True`` runs in full mode.

    Device ``printf`` output is in ``Result.printf`` (one string per call and thread, in
    execution order); a failed device ``assert`` raises KernelFault with the runtime's message.

    Raises PtxSyntaxError or PtxValidationError (``file:line:col: message``, with
    ``.diagnostics``), UnsupportedError, LaunchError, ResourceError (the launch needs more
    device memory than the GPU model has, more shared or local memory than a block may use,
    or more memory than the host can provide; names the argument and the sizes), or
    KernelFault (naming kernel, CTA,
    thread, PTX line and address, also as attributes; ``.printf`` holds what the kernel printed
    before it faulted). The GIL is released while the kernel
    runs.
    """
    name, source = _source(ptx)
    return _launch(
        name,
        source,
        kernel,
        grid,
        block,
        args,
        shared=shared,
        gpu=gpu,
        hazards=hazards,
        seed=seed,
        max_steps=max_steps,
        persisting_l2=persisting_l2,
        timeout=timeout,
        threads=threads,
        registers_per_thread=registers_per_thread,
        fmad=fmad,
        access_policy_window=_window_text(access_policy_window, args),
        counters_only=counters_only,
    )


_WINDOW_KEYS = ("arg", "offset", "bytes", "hit_ratio", "hit_prop", "miss_prop")


def _window_text(window: Optional[dict], args: Sequence[Any]) -> Optional[str]:
    """An ``access_policy_window`` dict as ``--access-policy-window`` writes it
    (``ARG[+OFFSET]:BYTES:HIT_RATIO:HIT_PROP:MISS_PROP``); ``arg`` may be the array itself."""
    if window is None:
        return None
    if not isinstance(window, dict):
        raise TypeError(f"access_policy_window must be a dict with keys {', '.join(_WINDOW_KEYS)}")
    unknown = sorted(set(window) - set(_WINDOW_KEYS))
    if unknown:
        raise LaunchError(f"access_policy_window: unknown key(s) {', '.join(unknown)} (keys: {', '.join(_WINDOW_KEYS)})")
    missing = [k for k in ("arg", "bytes", "hit_ratio", "hit_prop", "miss_prop") if k not in window]
    if missing:
        raise LaunchError(f"access_policy_window: missing key(s) {', '.join(missing)}")
    arg = window["arg"]
    if isinstance(arg, bool) or not isinstance(arg, int):
        found = [i for i, a in enumerate(args) if a is arg]
        if not found:
            raise LaunchError("access_policy_window: 'arg' is neither an argument index nor one of the launch's arguments")
        arg = found[0]
    offset = _byte_count(window.get("offset", 0), "access_policy_window offset")
    num_bytes = _byte_count(window["bytes"], "access_policy_window bytes")
    ratio = window["hit_ratio"]
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)):
        raise TypeError("access_policy_window: hit_ratio must be a number")
    props = []
    for key in ("hit_prop", "miss_prop"):
        p = window[key]
        if not isinstance(p, str):
            raise TypeError(f"access_policy_window: {key} must be 'normal', 'streaming' or 'persisting'")
        props.append(p)
    at = f"{arg}+{offset}" if offset else f"{arg}"
    return f"{at}:{num_bytes}:{float(ratio)!r}:{props[0]}:{props[1]}"


_BYTE_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mib": 1 << 20,
               "g": 1 << 30, "gib": 1 << 30}


def _byte_count(value: Union[int, str], what: str) -> int:
    """An int, or a string like ``"4MiB"`` (powers of 1024), as ``--persisting-l2`` takes."""
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an int or a string such as '4MiB', not bool")
    if isinstance(value, str):
        text = value.strip()
        digits = len(text) - len(text.lstrip("0123456789"))
        number, unit = text[:digits], text[digits:].strip().lower()
        if not number or unit not in _BYTE_UNITS:
            raise LaunchError(f"{what}: '{value}' is not a byte count (an integer, optionally with KiB, MiB or GiB)")
        return int(number) * _BYTE_UNITS[unit]
    n = operator.index(value)
    if n < 0:
        raise LaunchError(f"{what}: {n} is negative")
    return n


def _launch(name, source, kernel, grid, block, args, *, shared, gpu, hazards, seed, max_steps,
            persisting_l2=0, timeout=None, threads=None, registers_per_thread=None,
            registers_source="flag", fmad=True, access_policy_window=None, counters_only=False):
    """`launch` of PTX already read: ``name`` is used in messages; ``access_policy_window`` as
    ``_window_text`` writes it."""
    return _native.launch(
        name,
        source,
        kernel,
        _dims(grid, "grid"),
        _dims(block, "block"),
        [_arg(i, a) for i, a in enumerate(args)],
        shared=int(shared),
        gpu=os.fspath(gpu),
        hazards=bool(hazards),
        seed=int(seed),
        max_steps=None if max_steps is None else int(max_steps),
        persisting_l2=_byte_count(persisting_l2, "persisting_l2"),
        timeout=None if timeout is None else float(timeout),
        threads=None if threads is None else _thread_count(threads),
        registers_per_thread=None if registers_per_thread is None else _register_count(registers_per_thread),
        registers_source=registers_source,
        fmad=_fmad(fmad),
        access_policy_window=access_policy_window,
        counters_only=bool(counters_only),
    )


def _register_count(n: Any) -> int:
    """``registers_per_thread=``: an int from 1 to 255."""
    if isinstance(n, bool):
        raise TypeError("registers_per_thread must be an int, not bool")
    n = operator.index(n)
    if not 1 <= n <= 255:
        raise LaunchError(f"registers_per_thread = {n}: give the registers per thread ptxas reports, 1 to 255")
    return n


def compare(
    ptx: PtxSource,
    kernel: str,
    grid: Dims,
    block: Dims,
    args: Sequence[Any],
    variants: Union[str, Sequence[str]],
    *,
    shared: int = 0,
    gpu: Union[str, "os.PathLike[str]"] = "h100",
    seed: int = 0,
    persisting_l2: Union[int, str] = 0,
    registers_per_thread: Optional[int] = None,
    fmad: bool = True,
    counters_only: bool = False,
    threads: Optional[int] = None,
) -> "Report":
    """Run ``kernel`` as written and under cache-hint rewrites, as ``ptxsim compare`` does.

    Takes ``launch``'s arguments and ``variants``: ``NAME=REWRITE`` strings (docs/report.md,
    e.g. ``"ef=loads=evict_first"``, ``"ro=line:42=nc"``). Each variant runs in a fresh memory
    system on copies of the same inputs (the arrays are not written back). Returns a ``Report``:
    ``summary()`` is the comparison table, ``to_json()`` the JSON report, and in a notebook the
    report shows as the HTML report (``_repr_html_``). A variant whose outputs differ from the
    original's is marked in the report (``outputs``), not raised. ``fmad``, ``threads`` and
    ``counters_only`` are ``launch``'s; with ``counters_only=True`` every variant runs in
    counters-only mode (the same counters and time estimates, in a fraction of the time) and
    ``outputs`` says ``not computed``.
    """
    name, source = _source(ptx)
    if isinstance(variants, str):
        variants = [variants]
    return _native.compare(
        name,
        source,
        kernel,
        _dims(grid, "grid"),
        _dims(block, "block"),
        [_arg(i, a) for i, a in enumerate(args)],
        [str(v) for v in variants],
        shared=int(shared),
        gpu=os.fspath(gpu),
        seed=int(seed),
        persisting_l2=_byte_count(persisting_l2, "persisting_l2"),
        registers_per_thread=None if registers_per_thread is None else _register_count(registers_per_thread),
        fmad=_fmad(fmad),
        counters_only=bool(counters_only),
        threads=None if threads is None else int(threads),
    )


def advise(
    ptx: PtxSource,
    kernel: str,
    grid: Dims,
    block: Dims,
    args: Sequence[Any],
    *,
    shared: int = 0,
    gpu: Union[str, "os.PathLike[str]"] = "h100",
    seed: int = 0,
    persisting_l2: Union[int, str] = 0,
    registers_per_thread: Optional[int] = None,
    fmad: bool = True,
    threads: Optional[int] = None,
) -> "Report":
    """Run ``kernel`` and suggest what to change, as ``ptxsim advise`` does.

    Takes ``launch``'s arguments. Returns a ``Report`` whose ``suggestions`` are dicts (``rule``,
    ``ptx_line``, ``source``, ``evidence``, ``advice``, ``rewrite``, ``measured``): every
    suggestion that is a hint rewrite was run, and ``measured`` says what it changed.
    ``fmad`` and ``threads`` are ``launch``'s.
    """
    name, source = _source(ptx)
    return _native.advise(
        name,
        source,
        kernel,
        _dims(grid, "grid"),
        _dims(block, "block"),
        [_arg(i, a) for i, a in enumerate(args)],
        shared=int(shared),
        gpu=os.fspath(gpu),
        seed=int(seed),
        persisting_l2=_byte_count(persisting_l2, "persisting_l2"),
        registers_per_thread=None if registers_per_thread is None else _register_count(registers_per_thread),
        fmad=_fmad(fmad),
        threads=None if threads is None else int(threads),
    )


def _fmad(fmad: Any) -> bool:
    """``fmad=``: a bool (as ptxas's ``--fmad=true|false``)."""
    if not isinstance(fmad, (bool, np.bool_)):
        raise TypeError(f"fmad must be a bool, not {type(fmad).__name__}")
    return bool(fmad)


def _thread_count(threads: Any) -> int:
    """``threads=``: an int from 1 to 1024."""
    if isinstance(threads, bool):
        raise TypeError("threads must be an int, not bool")
    n = operator.index(threads)
    if not 1 <= n <= 1024:
        raise LaunchError(f"threads = {n}: give 1 to 1024 host threads")
    return n


def check(
    ptx: PtxSource, target: Optional[str] = None, *, ptx_version: Optional[str] = None
) -> list[Diagnostic]:
    """Parse and validate PTX as ptxas would (``ptxsim check``); returns every finding.

    target: validate for this target (e.g. ``"sm_80"``) instead of the module's ``.target``.
    ptx_version: validate as this PTX ISA version (e.g. ``"8.3"``) instead of ``.version``.
    An empty list means ptxas would accept the module. ``str(diagnostic)`` is the CLI's rich
    rendering with the source excerpt.
    """
    name, source = _source(ptx)
    return _native.check(name, source, target, ptx_version)


from ._sweep import SweepError, sweep  # noqa: E402  (needs the names above)
