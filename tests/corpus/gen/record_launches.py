"""Records the kernel launches a library's host code makes (CUB Device* dispatch, CUTLASS device
GEMMs, Thrust), for the multi-step corpus launches.

For a corpus source built with `record=True` in build_corpus.py, the same .cu is built a second
time as a host program (`nvcc -cudart none`) linked with gen/cuda/launch_recorder.cpp, a stand-in
for the CUDA runtime that writes down every cudaMalloc, memset and kernel launch instead of
running anything (see its header). The program runs here on the CPU with the device attributes of
the target's GPU, so the library's own host code chooses the kernels, grids, blocks, dynamic
shared memory, temporary storage layout and argument bytes. The record is canonicalized here:
argument bytes the kernel never reads (struct padding, empty functors: uninitialized stack bytes
on the host) are zeroed, so regenerating gives the same bytes.

Output: nvcc/<stem>.sm<NN>.launches.json beside the PTX; make_launches.py turns each recorded
sequence into a multi-step launch file with numpy references.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ptx_stats  # noqa: E402

_VEC = {"v2": 2, "v4": 4, "v8": 8}


def _entry_bodies(text):
    """{kernel name: body text} of every .entry."""
    body = ptx_stats.strip_comments(text)
    out = {}
    for m in re.finditer(r"\.entry\s+([\w$]+)\s*\(.*?\)", body, re.S):
        i = body.index("{", m.end())
        depth, j = 0, i
        while True:
            c = body[j]
            depth += c == "{"
            depth -= c == "}"
            j += 1
            if depth == 0:
                break
        out[m.group(1)] = body[i:j]
    return out


def read_param_bytes(text):
    """{kernel: [set of byte offsets the kernel reads, or None for all] per parameter}."""
    out = {}
    bodies = _entry_bodies(text)
    for name, params in ptx_stats.entries(text):
        body = bodies[name]
        uses = {}
        for r in re.findall(r"%[\w$]+", body):
            uses[r] = uses.get(r, 0) + 1
        reads = []
        for pname, ty, _ in params:
            base = re.sub(r"\[\d+\]$", "", pname)
            size = ptx_stats.param_size(pname, ty)
            used = set()
            everything = False
            word = re.compile(r"(?<![\w$])" + re.escape(base) + r"(?![\w$])(\s*\+\s*(\d+))?")
            for stmt in body.split(";"):
                m = word.search(stmt)
                if not m:
                    continue
                stmt = re.sub(r"^(\s|[{}]|[\w$]+:)*(@!?%?[\w$]+\s+)?", "", stmt)  # labels, guard
                toks = stmt.split()
                op = toks[0] if toks else ""
                if not op.startswith("ld.param") or len(list(word.finditer(stmt))) != 1:
                    everything = True  # address taken (mov, cvta.param): every byte may be read
                    break
                parts = op.split(".")
                width = ptx_stats._PARAM_BYTES["." + parts[-1]]
                vec = next((_VEC[p] for p in parts if p in _VEC), 1)
                off = int(m.group(2) or 0)
                dests = re.match(r"\s*\{([^}]*)\}", toks and stmt.split(None, 1)[1] if vec > 1 else "")
                regs = [d.strip() for d in dests.group(1).split(",")] if dests else [None] * vec
                for k, reg in enumerate(regs):
                    # A vector element loaded into a register nothing else reads (nvcc loads a
                    # bool with its padding as .v4.u8) is not read.
                    if reg is None or uses.get(reg, 0) > 1:
                        used.update(range(off + k * width, off + (k + 1) * width))
            reads.append(None if everything else {b for b in used if b < size})
        out[name] = reads
    return out


def kernel_table(ptx_path, arch):
    """Lines "name regs static-smem : param sizes" for launch_recorder (registers and shared
    memory from `ptxas -v`, for the occupancy the host code asks for)."""
    r = subprocess.run(["ptxas", f"-arch={arch}", "-v", ptx_path, "-o", os.devnull], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"ptxas -v {ptx_path}: {r.stderr}")
    usage, cur = {}, None
    for ln in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", ln)
        if m:
            cur = m.group(1)
        m = re.search(r"Used (\d+) registers", ln)
        if m and cur:
            s = re.search(r"(\d+) bytes smem", ln)
            usage[cur] = (int(m.group(1)), int(s.group(1)) if s else 0)
    lines = []
    for name, params in ptx_stats.entries(open(ptx_path).read()):
        regs, smem = usage.get(name, (32, 0))
        sizes = " ".join(str(ptx_stats.param_size(p, t)) for p, t, _ in params)
        lines.append(f"{name} {regs} {smem} : {sizes}\n")
    return "".join(lines)


def canonicalize(record, ptx_text):
    """Zeroes the argument bytes no kernel instruction reads (and drops pointers found there), and
    the bytes of device pointers, which the launch file writes as references to buffers."""
    reads = read_param_bytes(ptx_text)
    params_of = dict(ptx_stats.entries(ptx_text))
    for seq in record["sequences"]:
        for st in seq["steps"]:
            if st["op"] != "launch":
                continue
            kreads = reads[st["kernel"]]
            for p, used, (pname, ty, _) in zip(st["params"], kreads, params_of[st["kernel"]]):
                p["type"] = ty
                raw = bytearray.fromhex(p["hex"])
                if used is not None:
                    for i in range(len(raw)):
                        if i not in used:
                            raw[i] = 0
                    p["pointers"] = [q for q in p["pointers"] if q["at"] in used]
                for q in p["pointers"]:
                    if used is not None and not all(b in used for b in range(q["at"], q["at"] + 8)):
                        raise SystemExit(f"{st['kernel']}: pointer at {q['at']} of {pname} partly read")
                    raw[q["at"]:q["at"] + 8] = bytes(8)  # host addresses: written as references
                p["hex"] = raw.hex()
    return record


def record(stage_cuda, src, flags, arch_num, ptx_path, out_path, ptxas_arch, shown_flags=None):
    """Builds `src` as a host program with the recorder, runs it, writes the canonical record."""
    tmp = os.path.join(stage_cuda, f"record-{os.path.splitext(src)[0]}-sm{arch_num}")
    os.makedirs(tmp, exist_ok=True)
    exe = os.path.join(tmp, "host")
    cmd = ["nvcc", f"-arch=sm_{arch_num}", *flags, "-cudart", "none", src, "launch_recorder.cpp", "-o", exe]
    r = subprocess.run(cmd, cwd=stage_cuda, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit(f"failed: {' '.join(cmd)}")
    table = os.path.join(tmp, "kernels.txt")
    with open(table, "w") as f:
        f.write(kernel_table(ptx_path, ptxas_arch))
    raw = os.path.join(tmp, "record.json")
    env = dict(os.environ, PTXSIM_KERNELS=table, PTXSIM_ARCH=str(arch_num).rstrip("a"), PTXSIM_RECORD=raw)
    r = subprocess.run([exe], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{src} (sm_{arch_num}) host program failed: {r.stdout}{r.stderr}")
    rec = canonicalize(json.load(open(raw)), open(ptx_path).read())
    rec["arch"] = str(arch_num)
    rec["source"] = src
    rec["command"] = " ".join(["nvcc", f"-arch=sm_{arch_num}", *(shown_flags or flags), "-cudart", "none", src,
                               "launch_recorder.cpp"])
    with open(out_path, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
