#!/usr/bin/env python3
"""Fence probe: which PTX instructions make ptxas emit an L1 invalidation (CCTL.IVALL).

Writes one PTX kernel per candidate instruction (probe.sm{75,80,90}.ptx), assembles each
with ptxas for sm_75, sm_80 and sm_90 (sm_90a where the instruction needs it), dumps the SASS
with cuobjdump -sass into sass/, and writes the table docs/fences.md quotes (table.md).
Every kernel is `ld.global.ca a; <candidate>; ld.global.ca b` so the SASS shows what ptxas
puts between the two loads.

Usage (needs the CUDA tools): source ../shared/tools/cuda-tools.sh; python3 tests/fences/gen_probe.py
"""
import os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (name, PTX text, minimum sm); %rd1 = address of a flag word, %r9 scratch.
CANDIDATES = [
    ("none", "", 75),
    ("fence.acq_rel.cta", "fence.acq_rel.cta;", 75),
    ("fence.acq_rel.cluster", "fence.acq_rel.cluster;", 90),
    ("fence.acq_rel.gpu", "fence.acq_rel.gpu;", 75),
    ("fence.acq_rel.sys", "fence.acq_rel.sys;", 75),
    ("fence.sc.cta", "fence.sc.cta;", 75),
    ("fence.sc.cluster", "fence.sc.cluster;", 90),
    ("fence.sc.gpu", "fence.sc.gpu;", 75),
    ("fence.sc.sys", "fence.sc.sys;", 75),
    ("fence.acquire.gpu (sm_90)", "fence.acquire.gpu;", 90),
    ("fence.release.gpu (sm_90)", "fence.release.gpu;", 90),
    ("membar.cta", "membar.cta;", 75),
    ("membar.gl", "membar.gl;", 75),
    ("membar.sys", "membar.sys;", 75),
    ("ld.acquire.cta", "ld.acquire.cta.global.u32 %r9, [%rd1];", 75),
    ("ld.acquire.cluster", "ld.acquire.cluster.global.u32 %r9, [%rd1];", 90),
    ("ld.acquire.gpu", "ld.acquire.gpu.global.u32 %r9, [%rd1];", 75),
    ("ld.acquire.sys", "ld.acquire.sys.global.u32 %r9, [%rd1];", 75),
    ("ld.relaxed.gpu", "ld.relaxed.gpu.global.u32 %r9, [%rd1];", 75),
    ("ld.volatile", "ld.volatile.global.u32 %r9, [%rd1];", 75),
    ("atom.acquire.gpu.add", "atom.acquire.gpu.global.add.u32 %r9, [%rd1], 1;", 75),
    ("atom.acq_rel.gpu.add", "atom.acq_rel.gpu.global.add.u32 %r9, [%rd1], 1;", 75),
    ("atom.relaxed.gpu.add", "atom.relaxed.gpu.global.add.u32 %r9, [%rd1], 1;", 75),
    ("atom.acquire.cta.add", "atom.acquire.cta.global.add.u32 %r9, [%rd1], 1;", 75),
    ("atom.add (no sem)", "atom.global.add.u32 %r9, [%rd1], 1;", 75),
    ("red.release.gpu.add", "red.release.gpu.global.add.u32 [%rd1], 1;", 75),
    ("red.add (no sem)", "red.global.add.u32 [%rd1], 1;", 75),
    ("st.release.gpu", "st.release.gpu.global.u32 [%rd1], 1;", 75),
    ("bar.sync 0", "bar.sync 0;", 75),
    ("barrier.sync.aligned 0", "barrier.sync.aligned 0;", 75),
    ("bar.red.or.pred", "setp.ne.u32 %p1, %r9, 0; bar.red.or.pred %p2, 0, %p1;", 75),
    ("barrier.cluster.arrive+wait", "barrier.cluster.arrive; barrier.cluster.wait;", 90),
    ("barrier.cluster.arrive.relaxed+wait", "barrier.cluster.arrive.relaxed; barrier.cluster.wait;", 90),
    ("barrier.cluster.wait.acquire", "barrier.cluster.arrive.release; barrier.cluster.wait.acquire;", 90),
    ("mbarrier.try_wait.acquire.cta", "MBAR", 90),
    ("mbarrier.try_wait.acquire.cluster", "MBARCL", 90),
    ("fence.proxy.async", "fence.proxy.async;", 90),
    ("fence.proxy.async.global", "fence.proxy.async.global;", 90),
    ("fence.proxy.alias", "fence.proxy.alias;", 75),
    ("fence.mbarrier_init.release.cluster", "fence.mbarrier_init.release.cluster;", 90),
    ("cp.async.wait_all", "cp.async.wait_all;", 80),
    ("griddepcontrol.wait", "griddepcontrol.wait;", 90),
]

MBAR = """{
    .shared .align 8 .b64 mb;
    .reg .b64 tok; .reg .pred w; .reg .b32 sa;
    mov.u32 sa, mb;
    mbarrier.init.shared.b64 [mb], 1;
    mbarrier.arrive.shared.b64 tok, [mb];
LOOP_%d:
    mbarrier.try_wait.%s.shared::cta.b64 w, [mb], tok;
    @!w bra LOOP_%d;
}"""


def kernel(i, name, body):
    if body == "MBAR":
        body = MBAR % (i, "acquire.cta", i)
    elif body == "MBARCL":
        body = MBAR % (i, "acquire.cluster", i)
    return f"""
// {name}
.visible .entry probe_{i}(.param .u64 pa, .param .u64 pb, .param .u64 pf, .param .u64 out)
{{
    .reg .b64 %rd<8>; .reg .b32 %r<12>; .reg .pred %p<4>;
    ld.param.u64 %rd2, [pa]; ld.param.u64 %rd3, [pb]; ld.param.u64 %rd1, [pf]; ld.param.u64 %rd4, [out];
    mov.u32 %r9, 0;
    ld.global.ca.u32 %r1, [%rd2];
    {body}
    ld.global.ca.u32 %r2, [%rd3];
    add.u32 %r3, %r1, %r2; add.u32 %r3, %r3, %r9;
    st.global.u32 [%rd4], %r3;
    ret;
}}
"""


def invalidations(sass):
    """The L1 invalidation / coherence SASS ops of one function."""
    ops = []
    for ln in sass.splitlines():
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]+)", ln)
        if m and re.match(r"(CCTL|MEMBAR|FENCE|ERRBAR|CGAERRBAR|CCTLL|CCTLT|SYNCS)", m.group(1)):
            ops.append(m.group(1))
    return ops


def main():
    archs = [("sm_75", 75), ("sm_80", 80), ("sm_90", 90)]
    os.makedirs(os.path.join(HERE, "sass"), exist_ok=True)
    result = {}
    for arch, sm in archs:
        cands = [(i, n, b) for i, (n, b, lo) in enumerate(CANDIDATES) if lo <= sm]
        ver = "8.7" if sm >= 90 else "7.8"
        ptx = f".version {ver}\n.target {arch}\n.address_size 64\n" + "".join(kernel(i, n, b) for i, n, b in cands)
        path = os.path.join(HERE, f"probe.{arch}.ptx")
        open(path, "w").write(ptx)
        with tempfile.TemporaryDirectory() as d:
            cubin = os.path.join(d, "p.cubin")
            subprocess.run(["ptxas", f"-arch={arch}", "-O3", path, "-o", cubin], check=True)
            sass = subprocess.run(["cuobjdump", "-sass", cubin], check=True, capture_output=True, text=True).stdout
        open(os.path.join(HERE, "sass", f"probe.{arch}.sass"), "w").write(sass)
        funcs = re.split(r"\n\s*Function : ", sass)
        for f in funcs[1:]:
            fname = f.split("\n", 1)[0].strip()
            i = int(fname.rsplit("_", 1)[1])
            result.setdefault(CANDIDATES[i][0], {})[arch] = invalidations(f)
    lines = ["| PTX between the two loads | sm_75 | sm_80 | sm_90 |", "|---|---|---|---|"]
    for n, _, lo in CANDIDATES:
        row = result.get(n, {})
        cells = []
        for arch, sm in archs:
            if sm < lo:
                cells.append("n/a")
            else:
                ops = row.get(arch, [])
                cells.append(" ".join(ops) if ops else "—")
        lines.append(f"| `{n}` | " + " | ".join(cells) + " |")
    open(os.path.join(HERE, "table.md"), "w").write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
