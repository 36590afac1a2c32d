#!/usr/bin/env python3
"""Memory-instruction probe: what ptxas emits for the PTX forms whose counting memsys models
(prefetches, `ld.global.nc` with cache operators, atomics and reductions with and without a
read result, on one address per warp).

Writes one kernel per candidate (mem_probe.sm_{75,80,90}.ptx), assembles each with ptxas for
sm_75, sm_80 and sm_90, keeps the SASS (sass/mem_probe.sm_*.sass, `cuobjdump -sass`) and writes
table.md: per candidate, the memory and warp-aggregation SASS ops of its kernel. Every kernel
runs its candidate once per thread on a warp-uniform address (%rd1, a parameter) or, with
`%rd5`, a per-thread one; `%r1` is the thread index and `%r2` the result, which "used"
candidates store to out[tid].

Usage (needs the CUDA tools): source ../shared/tools/cuda-tools.sh; python3 tests/sass/gen_mem_probe.py
"""
import os, re, subprocess, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, PTX, minimum sm, stores %r2)
CANDIDATES = [
    ("prefetch.global.L1", "prefetch.global.L1 [%rd5];", 75, False),
    ("prefetch.global.L2", "prefetch.global.L2 [%rd5];", 75, False),
    ("prefetch.L1 (generic)", "prefetch.L1 [%rd6];", 75, False),
    ("prefetchu.L1", "prefetchu.L1 [%rd6];", 75, False),
    ("prefetch.global.L2::evict_last", "prefetch.global.L2::evict_last [%rd5];", 80, False),
    ("ld.global.nc", "ld.global.nc.u32 %r2, [%rd5];", 75, True),
    ("ld.global.ca.nc", "ld.global.ca.nc.u32 %r2, [%rd5];", 75, True),
    ("ld.global.cg.nc", "ld.global.cg.nc.u32 %r2, [%rd5];", 75, True),
    ("ld.global.cs.nc", "ld.global.cs.nc.u32 %r2, [%rd5];", 75, True),
    ("ld.global.cg", "ld.global.cg.u32 %r2, [%rd5];", 75, True),
    ("red.add.u32 (varying value)", "red.global.add.u32 [%rd1], %r1;", 75, False),
    ("red.xor.b32", "red.global.xor.b32 [%rd1], %r1;", 75, False),
    ("red.max.u32", "red.global.max.u32 [%rd1], %r1;", 75, False),
    ("red.min.s32", "red.global.min.s32 [%rd1], %r1;", 75, False),
    ("red.inc.u32", "red.global.inc.u32 [%rd1], 100;", 75, False),
    ("red.add.f32", "red.global.add.f32 [%rd1], 0f3F800000;", 75, False),
    ("red.add.u64 (varying value)", "cvt.u64.u32 %rd7, %r1; red.global.add.u64 [%rd1], %rd7;", 75, False),
    ("red.add.u32 (per-thread address)", "red.global.add.u32 [%rd5], %r1;", 75, False),
    ("atom.add.u32, result unused", "atom.global.add.u32 %r3, [%rd1], %r1;", 75, False),
    ("atom.or.b32, result unused", "atom.global.or.b32 %r3, [%rd1], %r1;", 75, False),
    ("atom.add.u32, result used", "atom.global.add.u32 %r2, [%rd1], %r1;", 75, True),
    ("atom.add.u32 1, result used", "atom.global.add.u32 %r2, [%rd1], 1;", 75, True),
    ("atom.or.b32, result used", "atom.global.or.b32 %r2, [%rd1], %r1;", 75, True),
    ("atom.max.s32, result used", "atom.global.max.s32 %r2, [%rd1], %r1;", 75, True),
    ("atom.exch.b32, result used", "atom.global.exch.b32 %r2, [%rd1], %r1;", 75, True),
    ("atom.inc.u32, result used", "atom.global.inc.u32 %r2, [%rd1], 100;", 75, True),
]

OPS = r"(LDG|STG|RED|ATOM|ATOMG|REDG|REDUX|CCTL|SHFL|VOTE|VOTEU|POPC|UPOPC|UFLO|FLO)"


def kernel(i, name, body, store):
    st = "st.global.u32 [%rd4], %r2;" if store else ""
    return f"""
// {name}
.visible .entry probe_{i}(.param .u64 p, .param .u64 out)
{{
    .reg .b64 %rd<8>; .reg .b32 %r<4>;
    ld.param.u64 %rd1, [p]; ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd1, %rd1; cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4; add.s64 %rd4, %rd2, %rd3; add.s64 %rd5, %rd1, %rd3;
    ld.param.u64 %rd6, [p];
    add.s64 %rd6, %rd6, %rd3;
    {body}
    {st}
    ret;
}}
"""


def ops_of(sass, fn):
    """The memory and warp-aggregation ops of function `fn` in a cuobjdump listing."""
    m = re.search(r"Function : " + re.escape(fn) + r"\n(.*?)(?=\n\s*(?:Function :|\.{5,})|\Z)", sass, re.S)
    out = []
    for ln in (m.group(1) if m else "").splitlines():
        o = re.search(r"/\*[0-9a-f]{4}\*/\s+((?:@!?U?P\w+\s+)?)([A-Z][A-Z0-9_.]+)", ln)
        if o and re.match(OPS, o.group(2)):
            out.append((o.group(1).strip() + " " + o.group(2)).strip())
    return out


def main():
    archs = [("sm_75", 75), ("sm_80", 80), ("sm_90", 90)]
    os.makedirs(os.path.join(HERE, "sass"), exist_ok=True)
    table = {}
    for arch, sm in archs:
        cands = [(i, n, b, s) for i, (n, b, lo, s) in enumerate(CANDIDATES) if lo <= sm]
        ptx = f".version 7.8\n.target {arch}\n.address_size 64\n" + "".join(kernel(*c) for c in cands)
        path = os.path.join(HERE, f"mem_probe.{arch}.ptx")
        open(path, "w").write(ptx)
        with tempfile.TemporaryDirectory() as d:
            cubin = os.path.join(d, "p.cubin")
            subprocess.run(["ptxas", f"-arch={arch}", "-O3", path, "-o", cubin], check=True)
            sass = subprocess.run(["cuobjdump", "-sass", cubin], check=True, capture_output=True, text=True).stdout
        open(os.path.join(HERE, "sass", f"mem_probe.{arch}.sass"), "w").write(sass)
        for i, n, _, _ in cands:
            table.setdefault(n, {})[arch] = ops_of(sass, f"probe_{i}")
    ver = subprocess.run(["ptxas", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    lines = [f"# SASS of memory instructions ({ver})", "",
             "Generated by `gen_mem_probe.py`; the memory and warp-aggregation SASS ops of each probe kernel.", "",
             "| PTX | sm_75 | sm_80 | sm_90 |", "|---|---|---|---|"]
    for n, _, _, _ in CANDIDATES:
        row = [", ".join(table[n].get(a, ["n/a"])) or "—" for a, _ in archs]
        lines.append(f"| `{n}` | " + " | ".join(row) + " |")
    open(os.path.join(HERE, "table.md"), "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
