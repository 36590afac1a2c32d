"""Build the PTX corpus from the staged sources: nvcc and Triton output, ptxas verdicts, and
tests/corpus/manifest.json (file, generator, target, ptxas verdict, kernels, opcode histogram).

Run through generate.sh, which stages the sources at a fixed path first so that `.file`
directives and debug sections do not depend on where the repository is checked out.
Usage: python build_corpus.py STAGE_DIR CORPUS_DIR [--only STEM[,STEM...]]

--only rebuilds just the nvcc jobs (NVCC_JOBS and RECORD_JOBS) with those output stems, every
target of each, and replaces their entries in the existing manifest.json; the other files and
their entries stay as they are (no Triton run). The tools must be the versions the manifest names.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ptx_stats  # noqa: E402
import record_launches  # noqa: E402

ALL = [75, 80, 90, 100]
CP_ASYNC = [80, 90, 100]

# (source in gen/cuda, output stem, targets, extra nvcc flags)
NVCC_JOBS = [
    ("cache_intrinsics.cu", "cache_intrinsics", ALL, []),
    ("reduce.cu", "reduce", ALL, []),
    ("stencil2d.cu", "stencil2d", ALL, []),
    ("pipeline_primitives.cu", "pipeline_primitives", ALL, []),
    ("ld_forms.cu", "ld_forms", ALL, []),
    ("st_forms.cu", "st_forms", ALL, []),
    ("seed_extend.cu", "seed_extend", ALL, []),
    ("cp_async_gemm.cu", "cp_async_gemm", ALL, []),
    ("createpolicy.cu", "createpolicy", CP_ASYNC, []),
    ("annotated_ptr.cu", "annotated_ptr", CP_ASYNC, ["-std=c++17"]),
    ("cp_async_forms.cu", "cp_async_forms", CP_ASYNC, []),
    ("seed_cp_async.cu", "seed_cp_async", CP_ASYNC, []),
    # The non-coherent L1 against an H100: message passing with and without the reader's fence,
    # the read-only path within one SM (hw README section 6).
    ("seed_coherence.cu", "seed_coherence", [80, 90], []),
    ("sm100_wide.cu", "sm100_wide", [100], []),
    # Kernels as users write them (warp intrinsics, atomics, 64-bit division, fp16/bf16 math,
    # padded shared-memory transpose, dp4a/match/__int128/rounding conversions), with -lineinfo.
    ("warp_bits.cu", "warp_bits.lineinfo", [80, 90], ["-lineinfo"]),
    ("atomics.cu", "atomics.lineinfo", [80, 90], ["-lineinfo"]),
    ("int_divmod.cu", "int_divmod.lineinfo", [80, 90], ["-lineinfo"]),
    ("half_math.cu", "half_math.lineinfo", [80, 90], ["-lineinfo"]),
    ("transpose.cu", "transpose.lineinfo", [80, 90], ["-lineinfo"]),
    ("intrinsics.cu", "intrinsics.lineinfo", [80, 90], ["-lineinfo"]),
    # Kernels users write (second sweep): NN building blocks, the math library in full precision
    # and with -use_fast_math, CUB block primitives, WMMA, -G warp reductions, 64-bit atomics,
    # bit manipulation, warp-synchronous instructions after divergence.
    ("nn_ops.cu", "nn_ops.lineinfo", [80, 90, 100], ["-lineinfo"]),
    ("nn_ops.cu", "nn_ops.debug", [80], ["-G"]),
    ("libm.cu", "libm.lineinfo", [75, 80, 90, 100], ["-lineinfo"]),
    ("libm_fast.cu", "libm_fast", [80, 90, 100], ["-use_fast_math"]),
    ("cub_block.cu", "cub_block", [75, 80, 90, 100], ["-std=c++17"]),
    ("wmma_gemm.cu", "wmma_gemm", [80, 90], []),
    ("warp_reduce.cu", "warp_reduce.debug", [80, 90], ["-G"]),
    ("warp_reduce.cu", "warp_reduce.lineinfo", [90], ["-lineinfo"]),
    ("int_bits.cu", "int_bits.lineinfo", [80, 90, 100], ["-lineinfo"]),
    ("int_bits.cu", "int_bits.debug", [90], ["-G"]),
    ("atomics64.cu", "atomics64.lineinfo", [80, 90, 100], ["-lineinfo"]),
    ("atomics64.cu", "atomics64.debug", [80], ["-G"]),
    ("warp_diverge.cu", "warp_diverge.lineinfo", [80, 90], ["-lineinfo"]),
    ("warp_diverge.cu", "warp_diverge.debug", [90], ["-G"]),
    ("simd_video.cu", "simd_video.lineinfo", [80, 90], ["-lineinfo"]),
    # Bulk asynchronous copies and TMA (tensormap.replace needs the architecture-specific sm_90a).
    ("tma_bulk.cu", "tma_bulk", ["90a"], []),
    # Parser coverage: .loc/.file with inlining info (-lineinfo), full DWARF sections (-G).
    ("stencil2d.cu", "stencil2d.lineinfo", [80], ["-lineinfo"]),
    ("pipeline_primitives.cu", "pipeline_primitives.lineinfo", [90], ["-lineinfo"]),
    ("cp_async_forms.cu", "cp_async_forms.lineinfo", [100], ["-lineinfo"]),
    ("seed_extend.cu", "seed_extend.debug", [80], ["-G"]),
    ("reduce.cu", "reduce.debug", [90], ["-G"]),
]

# Library host code launches these sources' kernels (CUB Device* algorithms, CUTLASS, Thrust):
# besides the PTX, the host program is built with launch_recorder.cpp and run, recording the
# launch sequence to nvcc/<stem>.sm<NN>.launches.json (record_launches.py).
CUTLASS_FLAGS = ["-std=c++17", "--expt-relaxed-constexpr", "-I{CUTLASS}/include", "-I{CUTLASS}/tools/util/include"]
RECORD_JOBS = [
    ("cub_scan.cu", "cub_scan", [75, 80, 90], ["-std=c++17"]),
    ("cub_reduce.cu", "cub_reduce", [75, 80, 90], ["-std=c++17"]),
    ("cub_radix_sort.cu", "cub_radix_sort", [75, 80, 90], ["-std=c++17"]),
    ("cub_select.cu", "cub_select", [75, 80, 90], ["-std=c++17"]),
    ("thrust_algos.cu", "thrust_algos", [75, 80, 90], ["-std=c++17"]),
    # CUTLASS headers from the nvidia-cutlass wheel (generate.sh installs it): {CUTLASS} is its
    # cutlass_library/source directory.
    ("cutlass_gemm.cu", "cutlass_gemm", [80, 90], CUTLASS_FLAGS),
    ("cute_gemm.cu", "cute_gemm", [80, 90], CUTLASS_FLAGS),
    ("cutlass3_gemm.cu", "cutlass3_gemm", ["90a"], CUTLASS_FLAGS),
]


def run(cmd, cwd=None):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return r


def tool_version(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True).stdout.strip().splitlines()
    return out[-1] if out else ""


def ptxas_verdict(path, arch):
    r = subprocess.run(["ptxas", f"-arch={arch}", path, "-o", os.devnull], capture_output=True, text=True)
    msgs = [ln.replace(path, os.path.basename(path)) for ln in (r.stdout + r.stderr).splitlines() if ln.strip()]
    return dict(verdict="accepted" if r.returncode == 0 else "rejected", arch=arch, exit_code=r.returncode,
                command=f"ptxas -arch={arch} {os.path.basename(path)} -o /dev/null", messages=msgs)


def cutlass_source():
    """The CUTLASS source tree the nvidia-cutlass wheel installs (headers under include/)."""
    import importlib.util
    spec = importlib.util.find_spec("cutlass_library")
    if spec is None:
        raise SystemExit("nvidia-cutlass is not installed (generate.sh installs it)")
    return os.path.join(spec.submodule_search_locations[0], "source")


def build_nvcc(stage, corpus, only=None):
    out_dir = os.path.join(corpus, "nvcc")
    os.makedirs(out_dir, exist_ok=True)
    gens = {}
    jobs = [(j, False) for j in NVCC_JOBS] + [(j, True) for j in RECORD_JOBS]
    if only is not None:
        unknown = set(only) - {j[1] for j, _ in jobs}
        if unknown:
            raise SystemExit(f"--only: no nvcc job with output stem {sorted(unknown)}")
        jobs = [(j, rec) for j, rec in jobs if j[1] in only]
    for (src, stem, archs, shown_flags), recorded in jobs:
        flags = [f.replace("{CUTLASS}", cutlass_source()) if "{CUTLASS}" in f else f for f in shown_flags]
        for a in archs:
            name = f"{stem}.sm{a}.ptx"
            ptx = os.path.join(out_dir, name)
            cmd = ["nvcc", f"-arch=sm_{a}", "-ptx", *flags, src, "-o", ptx]
            run(cmd, cwd=os.path.join(stage, "cuda"))
            shown = ["nvcc", f"-arch=sm_{a}", "-ptx", *shown_flags, src, "-o", f"tests/corpus/nvcc/{name}"]
            gens[f"nvcc/{name}"] = dict(tool="nvcc", source=f"tests/corpus/gen/cuda/{src}",
                                        command=" ".join(shown), flags=shown_flags, cwd="gen/cuda (staged)")
            if recorded:
                rec = f"{stem}.sm{a}.launches.json"
                record_launches.record(os.path.join(stage, "cuda"), src, flags, a, ptx, os.path.join(out_dir, rec),
                                       ptx_stats.target(open(ptx).read()), shown_flags)
                gens[f"nvcc/{name}"]["launch_record"] = f"nvcc/{rec}"
            print(f"nvcc {name}" + (" (+ launch record)" if recorded else ""))
    return gens


def build_triton(stage, corpus):
    r = run([sys.executable, os.path.join(HERE, "triton", "compile_triton.py"),
             os.path.join(stage, "triton", "kernels.py"), os.path.join(corpus, "triton"),
             os.path.join(corpus, "rejected", "triton")])
    # Triton prints a long reproducer for the kernels it cannot assemble; keep only our summary.
    print("\n".join(ln for ln in r.stdout.splitlines() if ln.startswith("triton ")))
    gens = {}
    for sub in ("triton", "rejected/triton"):
        d = os.path.join(corpus, sub)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith(".ptx"):
                continue
            name = f[: -len(".ptx")]
            cfg, arch = name.rsplit(".sm", 1)
            gens[f"{sub}/{f}"] = dict(
                tool="triton", source="tests/corpus/gen/triton/kernels.py", config=f"tests/corpus/gen/triton/configs.py:{cfg}",
                command=(f"compile_triton.py: triton.compile(ASTSource(kernels.<fn>, signature, constexprs, attrs), "
                         f"target=GPUTarget('cuda', {arch}, 32), options=<config options>)"),
                metadata=f"{sub}/{name}.json" if sub == "triton" else None)
    return gens


def main(stage, corpus, only=None):
    tools = dict(nvcc=tool_version(["nvcc", "--version"]), ptxas=tool_version(["ptxas", "--version"]),
                 triton=__import__("triton").__version__)
    kept = []
    if only is not None:
        old = json.load(open(os.path.join(corpus, "manifest.json")))
        if old["tools"] != tools:
            raise SystemExit(f"--only: the manifest was made with {old['tools']}, these tools are {tools}; "
                             "regenerate everything")
    gens = {}
    gens.update(build_nvcc(stage, corpus, only))
    if only is None:
        gens.update(build_triton(stage, corpus))
    else:
        kept = [f for f in old["files"] if f["file"] not in gens]
    files = []
    for rel in sorted(gens):
        path = os.path.join(corpus, rel)
        text = open(path).read()
        tgt = ptx_stats.target(text)
        verdict = ptxas_verdict(path, tgt)
        expect_rejected = rel.startswith("rejected/")
        if (verdict["verdict"] == "rejected") != expect_rejected:
            raise SystemExit(f"{rel}: unexpected ptxas verdict {verdict}")
        files.append(dict(
            file=rel, generator=gens[rel], target=tgt, ptx_version=ptx_stats.version(text),
            target_line=re.search(r"^\s*\.target\s+([^\n/]*)", text, re.M).group(1).strip(),
            bytes=len(text.encode()), lines=text.count("\n"), ptxas=verdict,
            kernels=[dict(name=n, params=[dict(name=p, type=t, attributes=a) for p, t, a in ps])
                     for n, ps in ptx_stats.entries(text)],
            opcodes=ptx_stats.opcode_histogram(text)))
    files = sorted(files + kept, key=lambda f: f["file"])
    manifest = dict(
        description="PTX corpus made by real compilers; regenerate with tests/corpus/gen/generate.sh",
        tools=tools,
        counts=dict(accepted=sum(f["ptxas"]["verdict"] == "accepted" for f in files),
                    rejected=sum(f["ptxas"]["verdict"] == "rejected" for f in files)),
        files=files)
    with open(os.path.join(corpus, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=False)
        f.write("\n")
    print(f"manifest: {manifest['counts']}")


if __name__ == "__main__":
    args = sys.argv[1:]
    only = None
    if len(args) == 4 and args[2] == "--only":
        only = [s for s in args[3].split(",") if s]
        args = args[:2]
    if len(args) != 2:
        raise SystemExit("usage: build_corpus.py STAGE_DIR CORPUS_DIR [--only STEM[,STEM...]]")
    main(args[0], args[1], only)
