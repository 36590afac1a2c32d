"""Compile the Triton corpus kernels (configs.py) to PTX for each target, CPU only.

Usage (from generate.sh): python compile_triton.py STAGED_KERNELS_PY OUT_DIR REJECTED_DIR
Writes OUT_DIR/<name>.sm<arch>.ptx and OUT_DIR/<name>.sm<arch>.json (compiled metadata).
Kernels marked `ptxas_rejects` in configs.py are ones for which Triton itself emits PTX that
ptxas refuses; their PTX (captured just before Triton's own ptxas step) goes to REJECTED_DIR.
"""
import importlib.util
import json
import os
import sys

import triton
from triton.backends.compiler import GPUTarget
from triton.backends.nvidia.compiler import CUDABackend
from triton.compiler import ASTSource
from triton.runtime.errors import PTXASError

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import configs  # noqa: E402
import ptx_stats  # noqa: E402

DIVISIBLE = [["tt.divisibility", 16]]


def specialize(cfg):
    """Signature, constexprs and attrs as Triton's runtime would build them for these launch values."""
    signature, constexprs, attrs, runtime_args = {}, dict(cfg["constexprs"]), {}, []
    for idx, arg in enumerate(cfg["args"]):
        name, ty = arg[0], arg[1]
        if ty.startswith("tensordesc"):
            # A host-side TensorDescriptor: a __grid_constant__ CUtensorMap parameter followed by
            # the descriptor's shape and strides (Triton's launcher builds the map).
            signature[name] = ty
            runtime_args.append(dict(name=name, type=ty))
            continue
        if ty.startswith("*"):
            signature[name] = ty
            attrs[(idx,)] = DIVISIBLE  # launch buffers are at least 16-byte aligned
            runtime_args.append(dict(name=name, type=ty))
            continue
        value = arg[2]
        if ty.startswith("i") and value == 1:
            signature[name] = "constexpr"
            constexprs[name] = 1
            continue
        signature[name] = ty
        if ty.startswith("i") and value % 16 == 0:
            attrs[(idx,)] = DIVISIBLE
        runtime_args.append(dict(name=name, type=ty, value=value))
    for name in cfg["constexprs"]:
        signature[name] = "constexpr"
    return signature, constexprs, attrs, runtime_args


_captured = {}
_make_cubin = CUDABackend.make_cubin


def _capturing_make_cubin(self, src, metadata, opt, capability):
    _captured["ptx"] = src
    return _make_cubin(self, src, metadata, opt, capability)


CUDABackend.make_cubin = _capturing_make_cubin


def main(kernels_py, out_dir, rejected_dir):
    spec = importlib.util.spec_from_file_location("kernels", kernels_py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    os.makedirs(out_dir, exist_ok=True)
    for cfg in configs.KERNELS:
        fn = getattr(mod, cfg["fn"])
        signature, constexprs, attrs, runtime_args = specialize(cfg)
        for arch in cfg.get("archs", configs.ARCHS):
            src = ASTSource(fn, signature, constexprs, attrs)
            stem = f"{cfg['name']}.sm{arch}"
            _captured.clear()
            if cfg.get("ptxas_rejects"):
                try:
                    triton.compile(src, target=GPUTarget("cuda", arch, 32), options=dict(cfg["options"]))
                except PTXASError:
                    os.makedirs(rejected_dir, exist_ok=True)
                    with open(os.path.join(rejected_dir, stem + ".ptx"), "w") as f:
                        f.write(_captured["ptx"])
                    print(f"triton {stem}: rejected by Triton's ptxas step (kept in {rejected_dir})")
                    continue
                raise SystemExit(f"{stem}: expected ptxas to reject Triton's PTX, but it compiled")
            k = triton.compile(src, target=GPUTarget("cuda", arch, 32), options=dict(cfg["options"]))
            ptx = k.asm["ptx"]
            with open(os.path.join(out_dir, stem + ".ptx"), "w") as f:
                f.write(ptx)
            md = k.metadata
            (entry_name, params), = ptx_stats.entries(ptx)
            meta = dict(
                kernel=md.name,
                entry=entry_name,
                jit_function=cfg["fn"],
                triton_version=triton.__version__,
                compile_target=dict(backend="cuda", arch=arch, warp_size=32),
                ptx_target=ptx_stats.target(ptx),
                ptx_version=ptx_stats.version(ptx),
                num_warps=md.num_warps,
                num_stages=md.num_stages,
                num_ctas=md.num_ctas,
                shared=md.shared,
                global_scratch_size=md.global_scratch_size,
                global_scratch_align=md.global_scratch_align,
                tensordesc_meta=getattr(md, "tensordesc_meta", None) or [],
                profile_scratch_size=md.profile_scratch_size,
                block=[32 * md.num_warps],
                grid=cfg["grid"],
                signature=signature,
                constexprs={k2: v for k2, v in constexprs.items()},
                divisibility_16=[cfg["args"][i[0]][0] for i in sorted(attrs)],
                runtime_args=runtime_args + [dict(name="global_scratch", type="*i8", value=None),
                                             dict(name="profile_scratch", type="*i8", value=None)],
                ptx_params=[dict(name=n, type=t, attributes=a) for n, t, a in params],
            )
            with open(os.path.join(out_dir, stem + ".json"), "w") as f:
                json.dump(meta, f, indent=1, sort_keys=True)
                f.write("\n")
            print(f"triton {stem}: warps={md.num_warps} shared={md.shared} target={meta['ptx_target']}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
