"""Run ``@triton.jit`` kernels on numpy arrays without a GPU.

    >>> import ptxsim.triton
    >>> r = ptxsim.triton.run(add_kernel, (4,), x, y, out, n, BLOCK_SIZE=256)

`compile` specializes the kernel for the arguments with Triton's own binder (the same
signature, ``tt.divisibility`` attributes and ``== 1`` integer specialization a launch on a GPU
would get; ptxsim's buffers are 256-byte aligned, like cudaMalloc's) and compiles it with
Triton's own compiler for the chosen target; Triton compiles on a CPU machine when given an
explicit ``GPUTarget``. `run` then launches the PTX in ptxsim with ``32 * num_warps`` threads per
block, the kernel's dynamic shared memory and Triton's two trailing scratch pointers (a zeroed
global scratch buffer of ``global_scratch_size`` bytes per program when the kernel needs one, as
for the tensor maps of ``tl.make_tensor_descriptor`` on sm_90).

Host-side tensor descriptors (``triton.tools.tensor_descriptor.TensorDescriptor`` arguments) are
made with `tensor_descriptor` over a numpy array; `run` passes them as Triton's launcher does: on
sm_90 a tensor map (``ptxsim.TensorMap``, box and swizzle from the compiled ``tensordesc_meta``)
followed by the shape and strides; on sm_80 the decomposed pointer, shape and strides.

Triton is an optional dependency (``pip install triton``); it is imported when first used.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any, Callable, Optional, Sequence, Union

import numpy as np

from . import LaunchError, Result, TensorMap, _launch, _native

__all__ = ["run", "compile", "sweep", "Compiled", "tensor_descriptor"]

Grid = Union[int, Sequence[int], Callable[[dict], Sequence[int]]]


@dataclasses.dataclass(frozen=True)
class Compiled:
    """A Triton kernel compiled for one specialization and target."""

    #: The PTX Triton emitted.
    ptx: str
    #: The PTX entry's name.
    name: str
    #: ``sm_XX`` it was compiled for.
    target: str
    num_warps: int
    num_ctas: int
    #: Dynamic shared memory the kernel needs, in bytes.
    shared: int
    global_scratch_size: int
    global_scratch_align: int
    profile_scratch_size: int
    profile_scratch_align: int
    #: Per host-side tensor descriptor argument (in order): the tensor map Triton's launcher
    #: builds (swizzle, elem_size, elem_type, block_size, ...); empty when none are lowered to TMA.
    tensordesc_meta: tuple
    #: Every argument by parameter name, as the caller gave it (constexprs included).
    bound_args: dict
    #: Names of the parameters that are kernel parameters in the PTX (not constexprs), in order.
    runtime_params: tuple
    #: Registers per thread of the compiled kernel (Triton's ``n_regs``, what ptxas allocated),
    #: when Triton has it: it reads it when it loads the binary, which needs a GPU driver.
    #: ``None``: ptxsim estimates it from the PTX.
    n_regs: Optional[int] = None

    @property
    def block(self) -> int:
        return 32 * self.num_warps


class _DeviceArray:
    """What Triton's binder sees of a numpy array: its dtype and a device address. ptxsim
    allocates every buffer 256-byte aligned, so the address is one with that alignment."""

    __slots__ = ("array", "dtype")

    def __init__(self, array: np.ndarray):
        self.array = array
        self.dtype = array.dtype

    @staticmethod
    def data_ptr() -> int:
        return 256


def _is_descriptor(v: Any) -> bool:
    return type(v).__name__ == "TensorDescriptor" and hasattr(v, "block_shape")


def tensor_descriptor(array: np.ndarray, block_shape: Sequence[int], *, padding: str = "zero",
                      round_f32_to_tf32: bool = False):
    """A Triton host-side ``TensorDescriptor`` over a C-contiguous numpy array (the array is the
    tensor: its shape, its strides in elements), for kernels taking ``tensordesc`` arguments.

    ``padding`` (``"zero"`` or ``"nan"``) is the out-of-bounds fill of loads. The array is written
    back in place after `run`.
    """
    from triton.tools.tensor_descriptor import TensorDescriptor

    if not isinstance(array, np.ndarray) or not array.flags.c_contiguous:
        raise TypeError("tensor_descriptor: expected a C-contiguous numpy array")
    if padding not in ("zero", "nan"):
        raise ValueError(f"tensor_descriptor: padding is 'zero' or 'nan', got {padding!r}")
    strides = [s // array.dtype.itemsize for s in array.strides]
    d = TensorDescriptor(_DeviceArray(array), list(array.shape), strides, list(block_shape), "zero",
                         round_f32_to_tf32)
    # Set after construction: TensorDescriptor checks a torch dtype's `is_floating_point` for NaN.
    if padding == "nan":
        if array.dtype.kind != "f":
            raise ValueError("tensor_descriptor: padding='nan' needs a floating-point array")
        d.padding = "nan"
    return d


#: tensordesc_meta's element types (the PTX `.elemtype` encoding) as TensorMap element names.
_META_ELEM = {0: "u8", 1: "u16", 2: "u32", 3: "s32", 4: "u64", 5: "s64", 6: "f16", 7: "f32", 8: "f32.ftz",
              9: "f64", 10: "bf16", 11: "tf32", 12: "tf32.ftz"}


def _descriptor_args(i: int, d, meta: Optional[dict]) -> list:
    """A host descriptor as Triton's launcher expands it (make_tensordesc_arg)."""
    array = d.base.array
    shape, strides = [int(x) for x in d.shape], [int(x) for x in d.strides]
    if meta is None:
        # Not lowered to TMA (sm_80): the decomposed descriptor.
        return [array, *shape, *strides, d.padding == "nan", bool(d.round_f32_to_tf32), *shape, *strides]
    if meta.get("fp4_padded") or meta.get("is_im2col"):
        raise LaunchError(f"argument {i}: packed fp4 and im2col tensor descriptors are not supported by ptxsim")
    elem = 11 if d.round_f32_to_tf32 else meta["elem_type"]
    if elem not in _META_ELEM:
        raise LaunchError(f"argument {i}: tensor-map element type {elem} is not supported by ptxsim")
    tmap = TensorMap(array, box=list(meta["block_size"]), shape=shape, strides=strides, elem=_META_ELEM[elem],
                     swizzle=[0, 32, 64, 128][meta["swizzle"]], fill="nan" if d.padding == "nan" else "zero")
    return [tmap, *shape, *strides]


def _triton():
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource, make_backend
        from triton.runtime.jit import JITFunction, create_function_from_signature
    except ImportError as e:
        raise ImportError(
            "ptxsim.triton needs Triton (pip install triton); it compiles on a CPU, no GPU needed"
        ) from e
    return triton, GPUTarget, ASTSource, make_backend, JITFunction, create_function_from_signature


def _arch(target: Union[str, int]) -> int:
    if isinstance(target, int):
        return target
    m = re.fullmatch(r"sm_(\d+)[af]?", str(target))
    if not m:
        raise ValueError(f"target {target!r}: expected sm_XX, e.g. sm_80 or sm_90a")
    return int(m.group(1))


def _default_gpu(arch: int) -> str:
    """The GPU model of the target's generation."""
    if arch >= 100:
        return "b200"
    if arch >= 90:
        return "h100"
    return "a100"


def compile(fn, *args, num_warps: int = 4, target: Union[str, int] = "sm_80", **kwargs) -> Compiled:
    """Compile ``fn`` for these arguments (numpy arrays stand for device pointers) and target.

    Keyword arguments are the kernel's constexprs (and any other parameter by name) and
    Triton's compile options (``num_stages=``, ``enable_fp_fusion=``, ...).
    """
    triton, GPUTarget, ASTSource, make_backend, JITFunction, create_function_from_signature = _triton()
    if not isinstance(fn, JITFunction):
        raise TypeError(f"expected a @triton.jit function, got {type(fn).__name__}")
    for i, a in enumerate(args):
        if isinstance(a, (tuple, list)):
            raise TypeError(f"argument {i}: tuple arguments are not supported by ptxsim.triton")
    arch = _arch(target)
    gpu_target = GPUTarget("cuda", arch, 32)
    backend = make_backend(gpu_target)

    def shown(v):
        return _DeviceArray(v) if isinstance(v, np.ndarray) else v

    kw = {k: shown(v) for k, v in kwargs.items()}
    kw["num_warps"] = num_warps
    # As JITFunction.run: the function's debug flag, or Triton's TRITON_DEBUG knob.
    knobs = getattr(triton, "knobs", None)
    kw["debug"] = kw.get("debug", fn.debug) or bool(knobs and knobs.runtime.debug)
    # Triton's own binder: defaults, constexprs, and the specialization of each argument.
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    bound, specialization, options = binder(*[shown(a) for a in args], **kw)
    options, signature, constexprs, attrs = fn._pack_args(backend, kw, bound, specialization, options)
    kernel = triton.compile(
        ASTSource(fn, signature, constexprs, attrs), target=gpu_target, options=options.__dict__
    )
    md = kernel.metadata
    runtime = tuple(p.name for p in fn.params if signature[p.name] != "constexpr")
    return Compiled(
        ptx=kernel.asm["ptx"],
        name=md.name,
        target=f"sm_{arch}",
        num_warps=md.num_warps,
        num_ctas=getattr(md, "num_ctas", 1),
        shared=md.shared,
        global_scratch_size=getattr(md, "global_scratch_size", 0),
        global_scratch_align=getattr(md, "global_scratch_align", 1),
        profile_scratch_size=getattr(md, "profile_scratch_size", 0),
        profile_scratch_align=getattr(md, "profile_scratch_align", 1),
        tensordesc_meta=tuple(getattr(md, "tensordesc_meta", None) or ()),
        bound_args={k: (v.array if isinstance(v, _DeviceArray) else v) for k, v in bound.items()},
        runtime_params=runtime,
        n_regs=_n_regs(kernel, md),
    )


def _n_regs(kernel, md) -> Optional[int]:
    """Triton's ``n_regs`` of a compiled kernel, as its launcher reads it (from the loaded
    binary), when it is available: in the metadata or on the kernel once loaded. Loading needs
    a GPU driver; on a machine without one there is no figure (``None``)."""
    for source in (md, kernel):
        try:
            n = getattr(source, "n_regs", None)
        except Exception:  # Triton loads the binary on first access; no driver, no figure
            n = None
        if isinstance(n, (int, np.integer)) and 0 < int(n) <= 255:
            return int(n)
    return None


def _grid(grid: Grid, meta: dict) -> list[int]:
    if callable(grid):
        grid = grid(meta)
    if isinstance(grid, (int, np.integer)):
        return [int(grid)]
    return [int(g) for g in grid]


def _scratch(size: int, align: int, grid: list[int], num_ctas: int) -> Optional[np.ndarray]:
    """A scratch buffer as Triton's launcher allocates it: zeros, `size` bytes per CTA, or null
    when unused. ptxsim's buffers are 256-byte aligned, which covers Triton's alignments."""
    if size <= 0:
        return None
    if align > 256:
        raise LaunchError(f"the kernel's scratch needs {align}-byte alignment; ptxsim buffers are 256-byte aligned")
    return np.zeros(int(np.prod(grid)) * num_ctas * size, dtype=np.uint8)


def _kernel_args(compiled: Compiled, dims: list[int]) -> list:
    """The PTX kernel's arguments, as Triton's launcher passes them: descriptors expanded, and
    the two trailing scratch pointers."""
    if compiled.num_ctas != 1:
        raise LaunchError(
            f"`{compiled.name}` was compiled with num_ctas={compiled.num_ctas} (thread-block "
            "clusters); ptxsim.triton runs num_ctas=1 kernels"
        )
    kernel_args = []
    metas = list(compiled.tensordesc_meta)
    for i, name in enumerate(compiled.runtime_params):
        v = compiled.bound_args[name]
        if _is_descriptor(v):
            if not isinstance(v.base, _DeviceArray):
                raise TypeError(f"argument {name}: make host descriptors with ptxsim.triton.tensor_descriptor")
            kernel_args += _descriptor_args(i, v, metas.pop(0) if compiled.tensordesc_meta else None)
        else:
            kernel_args.append(v)
    kernel_args.append(_scratch(compiled.global_scratch_size, compiled.global_scratch_align, dims,
                                compiled.num_ctas))
    kernel_args.append(_scratch(compiled.profile_scratch_size, compiled.profile_scratch_align, dims,
                                compiled.num_ctas))
    return kernel_args


def run(
    fn,
    grid: Grid,
    *args,
    num_warps: int = 4,
    target: Union[str, int] = "sm_80",
    gpu: Optional[str] = None,
    hazards: bool = False,
    seed: int = 0,
    max_steps: Optional[int] = None,
    persisting_l2: Union[int, str] = 0,
    timeout: Optional[float] = None,
    threads: Optional[int] = None,
    fmad: Optional[bool] = None,
    access_policy_window: Optional[dict] = None,
    **kwargs,
) -> Result:
    """Compile ``fn`` with Triton for ``target`` and run it in ptxsim on numpy arrays.

    grid: an int, 1 to 3 ints, or a callable taking the arguments by name (constexprs
        included) as Triton's ``grid`` lambdas do, e.g. ``lambda meta: (triton.cdiv(n,
        meta["BLOCK_SIZE"]),)``.
    args: the kernel's arguments in order; numpy arrays are device pointers and are written back
        in place after the run.
    kwargs: constexprs and other arguments by name, and Triton compile options.
    gpu: the GPU model (default: the target's generation: a100 for sm_8x, h100 for sm_90,
        b200 for sm_100 and later).
    hazards, seed, max_steps, persisting_l2, timeout, threads: as for ``ptxsim.launch`` (``persisting_l2``: the
        persisting-L2 set-aside in bytes, default 0 as in a fresh CUDA context).
    access_policy_window: as for ``ptxsim.launch`` (``arg``: the index among ``args``, or
        the numpy array itself).
    fmad: as for ``ptxsim.launch``; default: Triton's ``enable_fp_fusion`` (Triton passes
        ``--fmad=false`` to ptxas when it is False).

    Returns the ``ptxsim.Result``; ``ptxsim.triton.compile`` gives the PTX and metadata.
    """
    compiled = compile(fn, *args, num_warps=num_warps, target=target, **kwargs)
    dims = _grid(grid, compiled.bound_args)
    kernel_args = _kernel_args(compiled, dims)
    return _launch(
        f"<triton {compiled.name} {compiled.target}>",
        compiled.ptx.encode(),
        compiled.name,
        dims,
        compiled.block,
        kernel_args,
        shared=compiled.shared,
        gpu=gpu or _default_gpu(_arch(target)),
        hazards=hazards,
        seed=seed,
        max_steps=max_steps,
        persisting_l2=persisting_l2,
        timeout=timeout,
        threads=threads,
        **_registers(compiled),
        fmad=kwargs.get("enable_fp_fusion", True) if fmad is None else fmad,
        access_policy_window=_window_for(access_policy_window, args, kernel_args),
    )


def _window_for(window: Optional[dict], args: tuple, kernel_args: list) -> Optional[str]:
    """The window with ``arg`` found among the kernel's arguments: an index counts among
    ``args`` as given (constexprs included), an array is looked for as itself."""
    from . import _window_text

    if isinstance(window, dict) and isinstance(window.get("arg"), int) and not isinstance(window.get("arg"), bool):
        i = window["arg"]
        if not 0 <= i < len(args):
            raise LaunchError(f"access_policy_window: arg {i} is not an argument index (0 to {len(args) - 1})")
        if not isinstance(args[i], np.ndarray):
            raise LaunchError(f"access_policy_window: argument {i} is not a buffer (a scalar has no memory for a window)")
        window = dict(window, arg=args[i])
    return _window_text(window, kernel_args)


def _registers(compiled: Compiled) -> dict:
    """The launch's registers per thread: Triton's ``n_regs`` when known (else ptxsim
    estimates them from the PTX)."""
    if compiled.n_regs is None:
        return {}
    return {"registers_per_thread": compiled.n_regs, "registers_source": "triton"}


#: The axes every sweep point has; any other axis of `sweep` belongs to the Triton launch.
_SIM_AXES = ("variant", "gpu", "persisting_l2", "seed", "access_policy_window")


def _scalar_spec(i: int, value: Any, ty: str) -> str:
    """A launch file's ``TYPE:VALUE`` for a scalar argument of PTX type ``ty``."""
    if isinstance(value, np.generic):
        value = value.item()
    kind, bits = ty[0], int(ty[1:]) if ty[1:].isdigit() else 0
    if kind == "f":
        return f"{ty}:{float(value)!r}"
    if kind in "usb" and bits and isinstance(value, (bool, int)):
        v = int(value)
        if kind in "ub" and v < 0:
            v &= (1 << bits) - 1  # a negative value of a signed Triton int in a .u32 parameter
        return f"{'u' if kind == 'b' else kind}{bits}:{v}"
    raise LaunchError(f"argument {i}: cannot write {value!r} as a .{ty} parameter in a launch file")


def _write_launch(compiled: Compiled, dims: list[int], args: list, root: "os.PathLike[str]") -> str:
    """Writes the launch (PTX, inputs as .npy, launch.toml) under ``root``/HASH and returns the
    launch file's path. The directory is named by a hash of its contents: a sweep run again
    writes the same files, and its cached points stay valid."""
    import hashlib
    import io
    import os

    params = _native.kernel_params(f"<triton {compiled.name}>", compiled.ptx.encode(), compiled.name)
    if len(params) != len(args):
        raise LaunchError(f"`{compiled.name}` takes {len(params)} arguments, {len(args)} given")
    files: dict[str, bytes] = {"kernel.ptx": compiled.ptx.encode()}
    specs = []
    for i, (a, (_, ty)) in enumerate(zip(args, params)):
        if a is None:
            specs.append("null")
        elif isinstance(a, (np.ndarray, TensorMap)):
            array = a.array if isinstance(a, TensorMap) else a
            buf = io.BytesIO()
            np.save(buf, np.ascontiguousarray(array).reshape(-1), allow_pickle=False)
            files[f"arg{i}.npy"] = buf.getvalue()
            specs.append(f"tensormap[{a._keys()}]:arg{i}.npy" if isinstance(a, TensorMap) else f"arg{i}.npy")
        else:
            specs.append(_scalar_spec(i, a, ty))
    toml = "\n".join([
        f"# {compiled.name} compiled by Triton for {compiled.target} (ptxsim.triton.sweep)",
        'ptx = "kernel.ptx"',
        f'kernel = "{compiled.name}"',
        f"grid = {list(dims)}",
        f"block = [{compiled.block}]",
        f"shared = {compiled.shared}",
        "args = [" + ", ".join(f'"{s}"' for s in specs) + "]",
        "",
    ])
    files["launch.toml"] = toml.encode()
    digest = hashlib.sha256()
    for name in sorted(files):
        digest.update(name.encode() + b"\0" + len(files[name]).to_bytes(8, "little") + files[name])
    directory = os.path.join(os.fspath(root), digest.hexdigest()[:16])
    os.makedirs(directory, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(directory, name), "wb") as f:
            f.write(data)
    return os.path.join(directory, "launch.toml")


def sweep(
    fn,
    grid: Grid,
    make_args: Callable[[dict], Sequence[Any]],
    axes: dict,
    *,
    out,
    backend: str = "local",
    target: Union[str, int] = "sm_80",
    num_warps: int = 4,
    jobs: Optional[int] = None,
    ray_address: Optional[str] = None,
    progress: bool = True,
    **compile_options,
):
    """Sweep a ``@triton.jit`` kernel over problem sizes, constexprs, hint variants, GPUs,
    persisting set-asides and seeds (``ptxsim.sweep`` for Triton kernels).

    axes: name -> list of values. ``variant``, ``gpu``, ``persisting_l2`` and ``seed`` are as
        in ``ptxsim.sweep`` (variants are ``"original"`` or ``"NAME=REWRITE"``); a name that is a
        ``tl.constexpr`` parameter of ``fn`` is passed to the compiler; any other (a problem
        size) is only for ``make_args`` and ``grid``.
    make_args(point): the kernel's non-constexpr arguments in order (numpy arrays for pointers),
        for ``point``, a dict of this combination's values of the Triton axes.
    grid: an int, ints, or ``grid(point)`` returning them.

    Each combination of the Triton axes is compiled once (in this process, which needs Triton)
    and written as a launch under ``out``/triton/; the points then run as ``ptxsim.sweep`` runs
    them (``backend="ray"``: Ray tasks, which need ptxsim but not Triton). Returns the rows, the
    Triton axes first.
    """
    import itertools
    import os

    from ._sweep import sweep as run_sweep

    _triton()
    if not isinstance(axes, dict):
        raise TypeError("axes: expected a dict of name -> list of values")
    for name, values in axes.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
            raise TypeError(f"axes[{name!r}]: expected a list of values, got {values!r}")
    own = {k: list(v) for k, v in axes.items() if k not in _SIM_AXES}
    constexprs = {p.name for p in fn.params if p.is_constexpr}
    out = os.path.abspath(os.fspath(out))
    launches = []
    for combo in itertools.product(*own.values()):
        point = dict(zip(own, combo))
        kwargs = {k: v for k, v in point.items() if k in constexprs}
        args = list(make_args(dict(point)))
        compiled = compile(fn, *args, num_warps=num_warps, target=target, **kwargs, **compile_options)
        dims = _grid(grid, dict(point, **compiled.bound_args))
        path = _write_launch(compiled, dims, _kernel_args(compiled, dims), os.path.join(out, "triton"))
        launches.append({"launch": path, "axes": {k: (v.item() if isinstance(v, np.generic) else v)
                                                  for k, v in point.items()}})
    spec = {"launches": launches,
            "axes": {k: list(v) for k, v in axes.items() if k in _SIM_AXES}}
    if "gpu" not in spec["axes"]:
        spec["axes"]["gpu"] = [_default_gpu(_arch(target))]
    return run_sweep(spec, out, backend=backend, jobs=jobs, ray_address=ray_address, progress=progress)
