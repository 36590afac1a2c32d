#!/usr/bin/env python3
"""Instruction gates: the minimum `.target` and `.version` of every instruction form, measured
with real ptxas.

ptxsim's cache-control rules (gen_cases.py, gen_mutations.py) cover ld/st/cp.async/createpolicy/
prefetch. A real module retargeted to an older `.target` or `.version` is also rejected for its
*other* instructions (`redux.sync` needs sm_80, `mma…m16n8k16` needs sm_80 and PTX 7.0, `wgmma`
only exists on sm_90a, …). This script measures those gates:

* **forms** — every instruction statement of the real corpus (tests/corpus/**/*.ptx: opcode and
  every modifier as written, one instance each, with its operands as the compiler wrote them),
  plus the instructions of `EXTRA` (written from the PTX ISA's "PTX ISA Notes"/"Target ISA
  Notes": the forms nvcc and Triton emit that the corpus lacks, and variants that isolate one
  modifier: types `.f16/.bf16/.bf16x2/.e4m3x2`, shapes, `.satfinite`, `.relu`, `.abs`, `.NaN`,
  `.xorsign`, scopes, `.shared::cluster`, …);
* **probe** — one instance in a minimal valid module (the registers and variables it uses are
  declared, nothing else), assembled for a sweep of targets at `.version 9.5`, a sweep of
  versions at the lowest target that accepts it and at sm_50, and the combination of both;
* **retarget** — whole real modules of the corpus retargeted to the targets and versions just
  below and at each gate their instructions have (gates from the probe sweeps, read from ptxas's
  messages, never from ptxsim), plus a few random ones;
* **multi** — modules holding several gated instructions and cache-control errors together, for
  the order of messages within a module.

Every module is assembled with `ptxas -arch=<arch> case.ptx -o /dev/null`, `<arch>` the module's
`.target` (sm_75 for older targets), as run_mutations.py does; ptxas's exit code and complete
output are recorded in gates.jsonl.gz (crates/ptx-check/tests/gates.rs compares ptxsim with it).

Usage:
  source ../../../shared/tools/cuda-tools.sh
  gen_gates.py forms                 # list the forms (no ptxas)
  gen_gates.py run [--jobs 2]        # probe + retarget + multi: writes gates.jsonl.gz
  gen_gates.py verify                # no ptxas: gates.jsonl.gz matches this generator
  gen_gates.py table                 # no ptxas: rewrite crates/ptx-isa/src/insn_gates_table.rs
  gen_gates.py summary               # no ptxas: how well the table reproduces the probes
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "corpus"
OUT = HERE / "gates.jsonl.gz"
META = HERE / "gates.meta.json"
CACHE = Path(os.environ.get("GATES_CACHE", "/tmp/ptxsim-gates-cache.jsonl"))
sys.path.insert(0, str(HERE))

SEED = 0x6A7E5
GENERATOR_VERSION = 1

# Every target ptxas 13.5 accepts, with the lowest `.version` that supports it (ptx-isa's
# KNOWN_TARGETS).
TARGET_MIN_VERSION = {
    "sm_10": "1.0", "sm_11": "1.0", "sm_12": "1.2", "sm_13": "1.2", "sm_20": "2.0",
    "sm_21": "2.0", "sm_30": "3.0", "sm_32": "4.0", "sm_35": "3.1", "sm_37": "4.1",
    "sm_50": "4.0", "sm_52": "4.1", "sm_53": "4.2", "sm_60": "5.0", "sm_61": "5.0",
    "sm_62": "5.0", "sm_70": "5.1", "sm_72": "6.1", "sm_75": "6.3", "sm_80": "7.0",
    "sm_86": "7.1", "sm_87": "7.4", "sm_88": "9.0", "sm_89": "7.8", "sm_90": "7.8",
    "sm_90a": "8.0", "sm_100": "8.6", "sm_100a": "8.6", "sm_100f": "8.8", "sm_103": "8.8",
    "sm_103a": "8.8", "sm_103f": "8.8", "sm_107": "9.4", "sm_107a": "9.4", "sm_107f": "9.4",
    "sm_110": "9.0", "sm_110a": "9.0", "sm_110f": "9.0", "sm_120": "8.7", "sm_120a": "8.7",
    "sm_120f": "8.8", "sm_121": "8.8", "sm_121a": "8.8", "sm_121f": "8.8",
}
TARGETS = list(TARGET_MIN_VERSION)
VERSIONS = [f"{a}.{b}" for a, last in
            [(1, 5), (2, 3), (3, 2), (4, 3), (5, 1), (6, 5), (7, 8), (8, 8), (9, 5)]
            for b in range(last + 1)]


def vkey(v: str) -> tuple[int, int]:
    a, b = v.split(".")
    return int(a), int(b)


def sm_number(t: str) -> int:
    return int(re.match(r"sm_(\d+)", t).group(1))


def tkey(t: str) -> tuple[int, int]:
    return sm_number(t), {"": 0, "f": 1, "a": 2}[re.sub(r"sm_\d+", "", t)]


def arch_for(target: str) -> str:
    return target if sm_number(target) >= 75 else "sm_75"


# ---------------------------------------------------------------------------------------------
# Instruction statements of the real corpus
# ---------------------------------------------------------------------------------------------

REG_RANGE = re.compile(r"\.reg\s+(?:\.v\d\s+)?\.(\w+)\s+(%?[A-Za-z_$][\w$]*?)<(\d+)>")
REG_LIST = re.compile(r"\.reg\s+(?:\.v\d\s+)?\.(\w+)\s+((?:%?[A-Za-z_$][\w$]*\s*,\s*)*%?[A-Za-z_$][\w$]*)\s*;")
VAR_DECL = re.compile(
    r"^\s*((?:\.(?:visible|extern|weak)\s+)*\.(?:global|shared|const|local)\b[^;=]*?"
    r"([A-Za-z_$][\w$]*)\s*(?:\[[^\]]*\])*)\s*(?:=[^;]*)?;")
INSN_START = re.compile(r"^(?:[$\w]+:\s*)?(@!?%?[\w$]+\s+)?([a-z][a-z0-9_]*)((?:\.[\w:]+)*)(?=[\s;{\[]|$)")
NAME = re.compile(r"%?[A-Za-z_$][\w$]*")
# Opcodes that are not worth probing (control flow whose operands are labels or functions).
SKIP_OPS = {"bra", "call", "ret", "exit", "brx"}
SPECIAL_REGS = re.compile(r"%(tid|ntid|laneid|warpid|nwarpid|ctaid|nctaid|smid|nsmid|gridid|"
                          r"lanemask_\w+|clock|clock64|clock_hi|pm\d|envreg\d+|globaltimer\w*|"
                          r"total_smem_size|dynamic_smem_size|aggr_smem_size|reserved_smem_\w+|"
                          r"cluster\w*|is_explicit_cluster|current_graph_exec)\b")


def strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", lambda m: " " * len(m.group(0)) if "\n" not in m.group(0)
                  else "\n" * m.group(0).count("\n"), text, flags=re.S)
    return "\n".join(l.split("//")[0] for l in text.split("\n"))


class Statement:
    def __init__(self, src: str, line: int, text: str, regs: dict[str, str],
                 vars_: dict[str, str]):
        self.src = src            # corpus file
        self.line = line          # 0-based line
        self.text = text.strip()  # the statement without its `;`
        m = INSN_START.match(self.text)
        self.guard = (m.group(1) or "").strip()
        self.op = m.group(2)
        self.mods = re.findall(r"\.[\w:]+", m.group(3))
        self.head = m.group(2) + m.group(3)
        self.rest = self.text[m.end():]
        self.regs = regs          # register name -> declaration prefix/type of the function
        self.vars = vars_         # module variables

    @property
    def form(self) -> str:
        return self.head

    def names(self) -> list[str]:
        seen = []
        for n in NAME.findall(self.guard + " " + self.rest):
            if n not in seen:
                seen.append(n)
        return seen


def read_statements(rel: str) -> list[Statement]:
    raw = (CORPUS / rel).read_text()
    text = strip_comments(raw)
    lines = text.split("\n")
    out: list[Statement] = []
    module_vars: dict[str, str] = {}
    regs: dict[str, str] = {}
    depth = 0
    pending = None   # (start line, text) of a statement spanning lines
    for i, line in enumerate(lines):
        s = line.strip()
        if depth == 0:
            v = VAR_DECL.match(line)
            if v:
                module_vars[v.group(2)] = v.group(1).strip()
        if depth >= 1:
            for m in REG_RANGE.finditer(line):
                ty, prefix, n = m.groups()
                regs[prefix] = ("range", ty, int(n))
            if not REG_RANGE.search(line):
                m = REG_LIST.search(line)
                if m:
                    for name in re.split(r"\s*,\s*", m.group(2).strip()):
                        regs[name] = ("one", m.group(1))
            if pending is not None:
                pending = (pending[0], pending[1] + " " + s)
                if ";" in s:
                    stmt = pending[1].split(";")[0]
                    out.append(Statement(rel, pending[0], stmt, dict(regs), module_vars))
                    pending = None
            else:
                body = re.sub(r"^[{}\s]*", "", s)
                body = re.sub(r"^[$\w]+:\s*", "", body)
                m = INSN_START.match(body)
                if m and not body.startswith(".") and m.group(2) not in SKIP_OPS:
                    if ";" in body:
                        for part in body.split(";"):
                            part = part.strip().lstrip("{}").strip()
                            mm = INSN_START.match(part)
                            if mm and mm.group(2) not in SKIP_OPS and part:
                                out.append(Statement(rel, i, part, dict(regs), module_vars))
                    else:
                        pending = (i, body)
        depth += line.count("{") - line.count("}")
        if depth == 0:
            regs = {}
    return out


def corpus_files() -> list[str]:
    return sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.ptx"))


def reg_decl(name: str, regs: dict) -> str | None:
    """The declaration of register `name` (one register of a `%r<N>` range, or a named one)."""
    if name in regs and regs[name][0] == "one":
        return f".reg .{regs[name][1]} {name};"
    m = re.match(r"(%?[A-Za-z_$][\w$]*?)(\d+)$", name)
    if m and m.group(1) in regs and regs[m.group(1)][0] == "range":
        return f".reg .{regs[m.group(1)][1]} {name};"
    return None


TYPE_PREFIX = {"%r": "b32", "%rd": "b64", "%rs": "b16", "%f": "f32", "%fd": "f64", "%p": "pred",
               "%h": "b16", "%hh": "b32", "%rq": "b128"}


def probe_body(text: str, regs: dict | None = None, vars_: dict | None = None) -> tuple[list[str], list[str], str]:
    """Declarations (module level, function level) that make `text` a statement of a valid
    module: every register it names, every module variable, a label for branch targets."""
    regs = regs or {}
    vars_ = vars_ or {}
    mod, fn = [], []
    st = INSN_START.match(text)
    rest = text[st.end():] if st else text
    names = []
    for n in NAME.findall((st.group(1) or "") + " " + rest if st else text):
        if n not in names:
            names.append(n)
    for n in names:
        if SPECIAL_REGS.fullmatch(n) or SPECIAL_REGS.match(n):
            continue
        if n.startswith("%"):
            d = reg_decl(n, regs)
            if d is None:
                m = re.match(r"(%[a-z]+)(\d+)$", n)
                ty = TYPE_PREFIX.get(m.group(1)) if m else None
                if ty is None:
                    continue
                d = f".reg .{ty} {n};"
            if d not in fn:
                fn.append(d)
        elif n in vars_:
            d = vars_[n] + ";"
            if d not in mod:
                mod.append(d)
        else:
            d = reg_decl(n, regs)
            if d and d not in fn:
                fn.append(d)
    return mod, fn, text


def probe_module(insn: str, mod: list[str], fn: list[str], target: str, version: str) -> str:
    lines = [f".version {version}", f".target {target}"]
    lines.append(".address_size 64" if vkey(version) >= (2, 3) else "")
    lines += mod
    lines += [".visible .entry probe()", "{"]
    lines += ["\t" + d for d in fn]
    lines += ["\t" + insn + ";", "\tret;", "}", ""]
    return "\n".join(lines)


# The line of the instruction in probe_module's output.
def probe_line(mod: list[str], fn: list[str]) -> int:
    return 3 + len(mod) + 2 + len(fn) + 1


def corpus_forms() -> dict[str, Statement]:
    """One statement per form (opcode and modifiers as written), the first one met."""
    forms: dict[str, Statement] = {}
    for rel in corpus_files():
        for s in read_statements(rel):
            forms.setdefault(s.form, s)
    return forms


# ---------------------------------------------------------------------------------------------
# Running ptxas (with a cache keyed by module text and arch, so reruns are cheap)
# ---------------------------------------------------------------------------------------------

_cache: dict[str, tuple[int, str]] | None = None


def _key(text: str, arch: str) -> str:
    return hashlib.sha256((arch + "\0" + text).encode()).hexdigest()


def _load_cache() -> dict:
    global _cache
    if _cache is None:
        _cache = {}
        if CACHE.exists():
            for l in CACHE.open():
                try:
                    r = json.loads(l)
                except json.JSONDecodeError:
                    continue
                _cache[r["k"]] = (r["exit"], r["raw"])
    return _cache


def ptxas_once(text: str, arch: str) -> tuple[int, str]:
    d = tempfile.mkdtemp(prefix="ptxsim-gates-")
    try:
        (Path(d) / "case.ptx").write_bytes(text.encode())
        p = subprocess.run(["ptxas", f"-arch={arch}", "case.ptx", "-o", "/dev/null"],
                           capture_output=True, text=True, cwd=d, timeout=120)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return -9, "timeout"
    finally:
        shutil.rmtree(d, ignore_errors=True)


def ptxas(text: str, arch: str) -> tuple[int, str]:
    cache = _load_cache()
    k = _key(text, arch)
    if k in cache:
        return cache[k]
    r = ptxas_once(text, arch)
    cache[k] = r
    with CACHE.open("a") as fh:
        fh.write(json.dumps({"k": k, "exit": r[0], "raw": r[1]}) + "\n")
    return r


def run_all(jobs: list[tuple[str, str]], workers: int = 2) -> list[tuple[int, str]]:
    cache = _load_cache()
    todo = list(dict.fromkeys((t, a) for t, a in jobs if _key(t, a) not in cache))
    if todo:
        print(f"ptxas: {len(todo)} new runs ({len(jobs) - len(todo)} cached)", file=sys.stderr)
        with ThreadPoolExecutor(max_workers=workers) as ex, CACHE.open("a") as fh:
            for i, (ja, r) in enumerate(zip(todo, ex.map(lambda j: ptxas_once(*j), todo)), 1):
                k = _key(*ja)
                cache[k] = r
                fh.write(json.dumps({"k": k, "exit": r[0], "raw": r[1]}) + "\n")
                if i % 500 == 0:
                    fh.flush()
                    print(f"  {i}/{len(todo)}", file=sys.stderr, flush=True)
    return [cache[_key(t, a)] for t, a in jobs]


def messages(raw: str, line: int | None = None) -> list[str]:
    """ptxas's lines without file/line prefixes and the abort line (only those of source line
    `line` and those without a line, if given)."""
    out = []
    for l in raw.splitlines():
        m = re.match(r"^ptxas case\.ptx, line (\d+); ", l)
        if m and line is not None and int(m.group(1)) != line:
            continue
        l = re.sub(r"^ptxas case\.ptx, line \d+; ", "", l)
        if l.startswith("ptxas fatal   : Ptx assembly aborted"):
            continue
        out.append(l)
    return out


# ---------------------------------------------------------------------------------------------
# Forms the corpus lacks: written from the PTX ISA (each section's "PTX ISA Notes" and "Target
# ISA Notes"), one instance per modifier that can change the requirement. Register names follow
# TYPE_PREFIX (%r .b32, %rd .b64, %rs .b16, %f .f32, %fd .f64, %p .pred, %rq .b128).
# ---------------------------------------------------------------------------------------------

EXTRA_VARS = {
    "smem": ".shared .align 16 .b8 smem[1024]",
    "gvar": ".global .align 16 .b8 gvar[1024]",
    "cvar": ".const .align 16 .b8 cvar[64]",
}


def vec(prefix: str, a: int, n: int) -> str:
    return "{" + ", ".join(f"{prefix}{i}" for i in range(a, a + n)) + "}"


F8, F16, F32, F64 = vec("%f", 1, 8), vec("%f", 1, 16), vec("%f", 1, 32), vec("%f", 1, 64)
R2, R4, R8 = vec("%r", 10, 2), vec("%r", 20, 4), vec("%r", 30, 8)

EXTRA = [
    # integer arithmetic
    "add.sat.s32 %r1, %r2, %r3", "add.cc.u32 %r1, %r2, %r3", "addc.cc.u32 %r1, %r2, %r3",
    "addc.u32 %r1, %r2, %r3", "sub.cc.u32 %r1, %r2, %r3", "subc.u32 %r1, %r2, %r3",
    "add.cc.u64 %rd1, %rd2, %rd3", "addc.u64 %rd1, %rd2, %rd3", "sub.cc.s64 %rd1, %rd2, %rd3",
    "mad.lo.cc.u32 %r1, %r2, %r3, %r4", "madc.hi.u32 %r1, %r2, %r3, %r4",
    "madc.lo.cc.u64 %rd1, %rd2, %rd3, %rd4", "mad.hi.u32 %r1, %r2, %r3, %r4",
    "mad.hi.sat.s32 %r1, %r2, %r3, %r4", "mul24.lo.s32 %r1, %r2, %r3",
    "mul24.hi.u32 %r1, %r2, %r3", "mad24.lo.s32 %r1, %r2, %r3, %r4", "sad.u64 %rd1, %rd2, %rd3, %rd4",
    "min.s16x2 %r1, %r2, %r3", "max.u16x2 %r1, %r2, %r3", "min.relu.s32 %r1, %r2, %r3",
    "max.relu.s16x2 %r1, %r2, %r3", "add.s16x2 %r1, %r2, %r3", "sub.u16x2 %r1, %r2, %r3",
    "abs.s16 %rs1, %rs2", "neg.s64 %rd1, %rd2", "clz.b64 %r1, %rd2", "bfind.s64 %r1, %rd2",
    "fns.b32 %r1, %r2, %r3, 1", "brev.b64 %rd1, %rd2", "bfe.u64 %rd1, %rd2, %r3, %r4",
    "bfi.b32 %r1, %r2, %r3, %r4, %r5", "szext.wrap.u32 %r1, %r2, %r3", "szext.clamp.s32 %r1, %r2, %r3",
    "bmsk.clamp.b32 %r1, %r2, %r3", "bmsk.wrap.b32 %r1, %r2, %r3",
    "dp4a.s32.u32 %r1, %r2, %r3, %r4", "dp2a.lo.u32.s32 %r1, %r2, %r3, %r4",
    "lop3.b32 %r1, %r2, %r3, %r4, 0x96", "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2",
    "shf.l.clamp.b32 %r1, %r2, %r3, %r4", "shf.r.wrap.b32 %r1, %r2, %r3, %r4",
    "prmt.b32.f4e %r1, %r2, %r3, %r4", "prmt.b32.ecl %r1, %r2, %r3, %r4",
    "cnot.b32 %r1, %r2", "not.b16 %rs1, %rs2", "and.pred %p1, %p2, %p3",
    "rem.u64 %rd1, %rd2, %rd3", "div.s16 %rs1, %rs2, %rs3", "mul.wide.s16 %r1, %rs2, %rs3",
    "popc.b64 %r1, %rd2", "vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4",
    "vadd.s32.s32.s32.sat %r1, %r2, %r3, %r4", "vmax2.u32.u32.u32 %r1, %r2, %r3, %r4",
    # floating point
    "add.rn.f32 %f1, %f2, %f3", "add.rz.ftz.f32 %f1, %f2, %f3", "add.sat.f32 %f1, %f2, %f3",
    "add.f64 %fd1, %fd2, %fd3", "add.rn.f64 %fd1, %fd2, %fd3", "sub.rm.f64 %fd1, %fd2, %fd3",
    # `.rn` on the other types, so that a gate learned from `sub.rn.bf16x2` keeps its type
    # word (without these, `.rn` alone told the bf16x2 probes apart, and `sub.rn.f32` was gated)
    "sub.rn.f32 %f1, %f2, %f3", "sub.rn.f64 %fd1, %fd2, %fd3", "sub.rn.f16 %rs1, %rs2, %rs3",
    "sub.rn.f16x2 %r1, %r2, %r3", "sub.rz.ftz.f32 %f1, %f2, %f3", "mul.rn.f16x2 %r1, %r2, %r3",
    "fma.rn.f16x2 %r1, %r2, %r3, %r4",
    "mul.rn.ftz.f32 %f1, %f2, %f3", "mul.f64 %fd1, %fd2, %fd3", "fma.rn.ftz.sat.f32 %f1, %f2, %f3, %f4",
    "fma.rz.f64 %fd1, %fd2, %fd3, %fd4", "mad.f32 %f1, %f2, %f3, %f4", "mad.rn.f32 %f1, %f2, %f3, %f4",
    "mad.rn.f64 %fd1, %fd2, %fd3, %fd4", "div.approx.f32 %f1, %f2, %f3",
    "div.approx.ftz.f32 %f1, %f2, %f3", "div.full.ftz.f32 %f1, %f2, %f3", "div.rn.f64 %fd1, %fd2, %fd3",
    "div.rn.ftz.f32 %f1, %f2, %f3", "div.f32 %f1, %f2, %f3", "div.f64 %fd1, %fd2, %fd3",
    "rcp.approx.f32 %f1, %f2", "rcp.approx.ftz.f64 %fd1, %fd2", "rcp.rn.f32 %f1, %f2",
    "rcp.rn.ftz.f32 %f1, %f2", "rcp.f32 %f1, %f2", "sqrt.approx.f32 %f1, %f2", "sqrt.f32 %f1, %f2",
    "sqrt.rn.ftz.f32 %f1, %f2", "rsqrt.approx.f32 %f1, %f2", "rsqrt.approx.ftz.f32 %f1, %f2",
    "rsqrt.approx.f64 %fd1, %fd2", "rsqrt.approx.ftz.f64 %fd1, %fd2", "sin.approx.f32 %f1, %f2",
    "cos.approx.ftz.f32 %f1, %f2", "lg2.approx.f32 %f1, %f2", "lg2.approx.ftz.f32 %f1, %f2",
    "ex2.approx.ftz.f32 %f1, %f2", "tanh.approx.f32 %f1, %f2", "ex2.approx.f16 %rs1, %rs2",
    "ex2.approx.f16x2 %r1, %r2", "ex2.approx.ftz.bf16 %rs1, %rs2", "ex2.approx.ftz.bf16x2 %r1, %r2",
    "tanh.approx.f16 %rs1, %rs2", "tanh.approx.f16x2 %r1, %r2", "tanh.approx.bf16 %rs1, %rs2",
    "tanh.approx.bf16x2 %r1, %r2", "sin.approx.ftz.f32 %f1, %f2",
    "min.ftz.f32 %f1, %f2, %f3", "max.f64 %fd1, %fd2, %fd3", "min.NaN.f32 %f1, %f2, %f3",
    "max.NaN.f32 %f1, %f2, %f3", "max.ftz.NaN.f32 %f1, %f2, %f3",
    "max.xorsign.abs.f32 %f1, %f2, %f3", "min.f32 %f1, %f2, %f3, %f4",
    "max.NaN.f32 %f1, %f2, %f3, %f4", "abs.ftz.f32 %f1, %f2", "neg.ftz.f32 %f1, %f2",
    "neg.f64 %fd1, %fd2", "abs.f64 %fd1, %fd2", "copysign.f32 %f1, %f2, %f3",
    "copysign.f64 %fd1, %fd2, %fd3", "testp.finite.f32 %p1, %f2", "testp.nan.f64 %p1, %fd2",
    "testp.infinite.f32 %p1, %f2", "testp.normal.f32 %p1, %f2",
    "add.f32x2 %rd1, %rd2, %rd3", "add.rn.ftz.f32x2 %rd1, %rd2, %rd3", "mul.f32x2 %rd1, %rd2, %rd3",
    "sub.f32x2 %rd1, %rd2, %rd3", "fma.rn.f32x2 %rd1, %rd2, %rd3, %rd4",
    # half precision
    "add.f16 %rs1, %rs2, %rs3", "add.rn.f16 %rs1, %rs2, %rs3", "add.ftz.f16 %rs1, %rs2, %rs3",
    "add.sat.f16 %rs1, %rs2, %rs3", "add.rn.f16x2 %r1, %r2, %r3", "sub.f16 %rs1, %rs2, %rs3",
    "sub.f16x2 %r1, %r2, %r3", "mul.f16 %rs1, %rs2, %rs3", "mul.f16x2 %r1, %r2, %r3",
    "mul.rn.f16 %rs1, %rs2, %rs3", "fma.rn.f16x2 %r1, %r2, %r3, %r4",
    "fma.rn.relu.f16 %rs1, %rs2, %rs3, %rs4", "fma.rn.relu.f16x2 %r1, %r2, %r3, %r4",
    "fma.rn.sat.f16 %rs1, %rs2, %rs3, %rs4", "fma.rn.ftz.f16 %rs1, %rs2, %rs3, %rs4",
    "fma.rn.oob.f16 %rs1, %rs2, %rs3, %rs4", "fma.rn.oob.relu.f16x2 %r1, %r2, %r3, %r4",
    "neg.f16 %rs1, %rs2", "neg.f16x2 %r1, %r2", "neg.ftz.f16 %rs1, %rs2", "abs.f16 %rs1, %rs2",
    "abs.f16x2 %r1, %r2", "min.f16 %rs1, %rs2, %rs3", "max.f16 %rs1, %rs2, %rs3",
    "min.f16x2 %r1, %r2, %r3", "max.ftz.f16x2 %r1, %r2, %r3", "min.NaN.f16 %rs1, %rs2, %rs3",
    "max.NaN.f16x2 %r1, %r2, %r3", "max.xorsign.abs.f16 %rs1, %rs2, %rs3",
    "min.xorsign.abs.f16x2 %r1, %r2, %r3", "setp.lt.f16 %p1, %rs2, %rs3",
    "setp.eq.ftz.f16 %p1, %rs2, %rs3", "setp.lt.f16x2 %p1|%p2, %r2, %r3",
    "set.lt.f16.f16 %rs1, %rs2, %rs3", "set.lt.f16x2.f16x2 %r1, %r2, %r3",
    "set.lt.u32.f16 %r1, %rs2, %rs3", "set.lt.u32.f16x2 %r1, %r2, %r3",
    "add.bf16 %rs1, %rs2, %rs3", "add.rn.bf16 %rs1, %rs2, %rs3", "add.bf16x2 %r1, %r2, %r3",
    "sub.bf16 %rs1, %rs2, %rs3", "sub.rn.bf16x2 %r1, %r2, %r3", "mul.bf16 %rs1, %rs2, %rs3",
    "mul.bf16x2 %r1, %r2, %r3", "fma.rn.bf16x2 %r1, %r2, %r3, %r4",
    "fma.rn.relu.bf16 %rs1, %rs2, %rs3, %rs4", "fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4",
    "fma.rn.oob.bf16 %rs1, %rs2, %rs3, %rs4", "neg.bf16 %rs1, %rs2", "neg.bf16x2 %r1, %r2",
    "abs.bf16 %rs1, %rs2", "abs.bf16x2 %r1, %r2", "min.bf16 %rs1, %rs2, %rs3",
    "max.bf16x2 %r1, %r2, %r3", "min.NaN.bf16 %rs1, %rs2, %rs3", "max.NaN.bf16x2 %r1, %r2, %r3",
    "max.xorsign.abs.bf16 %rs1, %rs2, %rs3", "min.xorsign.abs.bf16x2 %r1, %r2, %r3",
    "setp.lt.bf16 %p1, %rs2, %rs3", "setp.lt.bf16x2 %p1|%p2, %r2, %r3",
    "set.lt.bf16.bf16 %rs1, %rs2, %rs3", "set.lt.u32.bf16 %r1, %rs2, %rs3",
    # compare and select
    "setp.gtu.f32 %p1, %f2, %f3", "setp.num.f32 %p1, %f2, %f3", "setp.nan.f64 %p1, %fd2, %fd3",
    "setp.ne.and.s32 %p1, %r2, %r3, %p2", "setp.lt.or.u32 %p1|%p3, %r2, %r3, !%p2",
    "setp.lt.ftz.f32 %p1, %f2, %f3", "setp.lt.s16 %p1, %rs2, %rs3", "setp.ls.u64 %p1, %rd2, %rd3",
    "selp.b64 %rd1, %rd2, %rd3, %p1", "selp.f64 %fd1, %fd2, %fd3, %p1", "set.lt.u32.s32 %r1, %r2, %r3",
    "set.eq.f32.f32 %f1, %f2, %f3", "slct.s32.s32 %r1, %r2, %r3, %r4", "slct.f32.f32 %f1, %f2, %f3, %f4",
    # conversions
    "cvt.rn.f16.f32 %rs1, %f2", "cvt.f32.f16 %f1, %rs2", "cvt.rn.f16x2.f32 %r1, %f2, %f3",
    "cvt.rn.relu.f16x2.f32 %r1, %f2, %f3", "cvt.rn.relu.f16.f32 %rs1, %f2",
    "cvt.rn.bf16.f32 %rs1, %f2", "cvt.rz.bf16.f32 %rs1, %f2", "cvt.rn.relu.bf16.f32 %rs1, %f2",
    "cvt.rn.bf16x2.f32 %r1, %f2, %f3", "cvt.rn.relu.satfinite.bf16x2.f32 %r1, %f2, %f3",
    "cvt.f32.bf16 %f1, %rs2", "cvt.rn.bf16.f16 %rs1, %rs2", "cvt.f16.bf16 %rs1, %rs2",
    "cvt.rn.f16.bf16 %rs1, %rs2", "cvt.rn.bf16.f64 %rs1, %fd2", "cvt.f64.bf16 %fd1, %rs2",
    "cvt.rn.bf16.s32 %rs1, %r2", "cvt.rzi.s32.bf16 %r1, %rs2", "cvt.rn.f16.s32 %rs1, %r2",
    "cvt.rna.tf32.f32 %r1, %f2", "cvt.rn.tf32.f32 %r1, %f2", "cvt.rn.satfinite.tf32.f32 %r1, %f2",
    "cvt.rna.satfinite.tf32.f32 %r1, %f2", "cvt.rz.satfinite.tf32.f32 %r1, %f2",
    "cvt.rn.satfinite.e4m3x2.f32 %rs1, %f2, %f3", "cvt.rn.satfinite.e5m2x2.f32 %rs1, %f2, %f3",
    "cvt.rn.satfinite.relu.e4m3x2.f32 %rs1, %f2, %f3", "cvt.rn.e4m3x2.f32 %rs1, %f2, %f3",
    "cvt.rn.satfinite.e4m3x2.f16x2 %rs1, %r2", "cvt.rn.satfinite.e5m2x2.bf16x2 %rs1, %r2",
    "cvt.rn.f16x2.e4m3x2 %r1, %rs2", "cvt.rn.f16x2.e5m2x2 %r1, %rs2",
    "cvt.rn.relu.f16x2.e5m2x2 %r1, %rs2", "cvt.rn.bf16x2.e4m3x2 %r1, %rs2",
    "cvt.rn.satfinite.e2m1x2.f32 %rs1, %f2, %f3", "cvt.rn.satfinite.e2m3x2.f32 %rs1, %f2, %f3",
    "cvt.rn.satfinite.e3m2x2.f32 %rs1, %f2, %f3", "cvt.rz.satfinite.ue8m0x2.f32 %rs1, %f2, %f3",
    "cvt.rn.f16x2.e2m1x2 %r1, %rs2", "cvt.rn.bf16x2.ue8m0x2 %r1, %rs2",
    "cvt.rs.satfinite.e4m3x4.f32 %r1, {%f1, %f2, %f3, %f4}, %r5",
    "cvt.rs.f16x2.f32 %r1, %f2, %f3, %r4", "cvt.rs.relu.satfinite.bf16x2.f32 %r1, %f2, %f3, %r4",
    "cvt.f16.f32 %rs1, %f2", "cvt.f32.f64 %f1, %fd2", "cvt.rn.ftz.f32.f64 %f1, %fd2",
    "cvt.f64.f32 %fd1, %f2", "cvt.rzi.ftz.s32.f32 %r1, %f2", "cvt.rni.sat.u8.f32 %rs1, %f2",
    "cvt.sat.u8.s32 %rs1, %r2", "cvt.u8.u32 %rs1, %r2", "cvt.s8.s32 %rs1, %r2", "cvt.rn.f64.s64 %fd1, %rd2",
    "cvt.rn.f32.u64 %f1, %rd2", "cvt.rn.f16.f64 %rs1, %fd2", "cvt.f64.f16 %fd1, %rs2",
    "cvt.rzi.s32.f16 %r1, %rs2", "cvt.rn.f16.u16 %rs1, %rs2", "cvt.s32.s64 %r1, %rd2",
    "cvt.pack.sat.s8.s32.b32 %r1, %r2, %r3, %r4", "cvt.pack.sat.u16.s32 %r1, %r2, %r3",
    "cvt.pack.sat.u4.s32.b32 %r1, %r2, %r3, %r4",
    "cvta.global.u64 %rd1, %rd2", "cvta.to.global.u32 %r1, %r2", "cvta.shared.u32 %r1, %r2",
    "cvta.const.u64 %rd1, %rd2", "cvta.to.local.u64 %rd1, %rd2", "cvta.param.u64 %rd1, %rd2",
    "cvta.to.param.u64 %rd1, %rd2", "cvta.shared::cta.u64 %rd1, %rd2",
    "cvta.to.shared::cluster.u64 %rd1, %rd2", "cvta.global.u64 %rd1, gvar",
    "mapa.shared::cluster.u32 %r1, %r2, %r3", "mapa.u64 %rd1, %rd2, %r3",
    "getctarank.shared::cluster.u32 %r1, %r2", "getctarank.u64 %r1, %rd2",
    "isspacep.global %p1, %rd2", "isspacep.shared %p1, %rd2", "isspacep.shared::cluster %p1, %rd2",
    "isspacep.param::entry %p1, %rd2", "isspacep.const %p1, %rd2",
    # moves and special registers
    "mov.u32 %r1, %laneid", "mov.u32 %r1, %warpid", "mov.u32 %r1, %nwarpid", "mov.u32 %r1, %smid",
    "mov.u32 %r1, %nsmid", "mov.u64 %rd1, %gridid", "mov.u32 %r1, %lanemask_lt",
    "mov.u32 %r1, %clock", "mov.u32 %r1, %clock_hi", "mov.u64 %rd1, %clock64",
    "mov.u64 %rd1, %globaltimer", "mov.u32 %r1, %globaltimer_lo", "mov.u32 %r1, %envreg0",
    "mov.u32 %r1, %pm0", "mov.u64 %rd1, %pm0_64", "mov.u32 %r1, %dynamic_smem_size",
    "mov.u32 %r1, %total_smem_size", "mov.u32 %r1, %aggr_smem_size",
    "mov.u32 %r1, %reserved_smem_offset_begin", "mov.u32 %r1, %cluster_ctarank",
    "mov.u32 %r1, %cluster_nctarank", "mov.u32 %r1, %clusterid.x", "mov.u32 %r1, %nclusterid.y",
    "mov.u32 %r1, %cluster_ctaid.x", "mov.u32 %r1, %cluster_nctaid.x",
    "mov.pred %p1, %is_explicit_cluster", "mov.u64 %rd1, %current_graph_exec",
    "mov.u32 %r1, %ntid.x", "mov.u32 %r1, %nctaid.z", "mov.u32 %r1, %ctaid.y",
    "mov.b64 {%r1, %r2}, %rd3", "mov.b64 %rd1, {%r2, %r3}", "mov.b32 {%rs1, %rs2}, %r3",
    "mov.b128 %rq1, {%rd2, %rd3}", "mov.b128 {%rd2, %rd3}, %rq1", "mov.u64 %rd1, smem",
    "mov.u64 %rd1, gvar", "mov.f32 %f1, 0f3F800000", "mov.f64 %fd1, 0d3FF0000000000000",
    "mov.b16 %rs1, 0x3c00", "mov.f16 %rs1, %rs2", "mov.bf16 %rs1, %rs2", "mov.f16x2 %r1, %r2",
    "mov.b32 %r1, %r2",
    # warp-level
    "shfl.sync.idx.b32 %r1, %r2, %r3, %r4, %r5", "shfl.sync.up.b32 %r1|%p1, %r2, 1, 0, -1",
    "shfl.idx.b32 %r1, %r2, %r3, %r4", "shfl.down.b32 %r1|%p1, %r2, 1, 31",
    "vote.sync.uni.pred %p1, %p2, -1", "vote.sync.ballot.b32 %r1, %p2, %r3",
    "vote.any.pred %p1, %p2", "vote.ballot.b32 %r1, %p2", "vote.all.pred %p1, !%p2",
    "vote.uni.pred %p1, %p2",
    "match.any.sync.b64 %r1, %rd2, -1", "match.all.sync.b32 %r1|%p1, %r2, %r3",
    "activemask.b32 %r1", "redux.sync.add.u32 %r1, %r2, -1", "redux.sync.min.u32 %r1, %r2, -1",
    "redux.sync.and.b32 %r1, %r2, -1", "redux.sync.or.b32 %r1, %r2, %r3",
    "redux.sync.max.f32 %f1, %f2, -1", "redux.sync.min.abs.f32 %f1, %f2, -1",
    "redux.sync.max.NaN.f32 %f1, %f2, -1", "redux.sync.min.abs.NaN.f32 %f1, %f2, -1",
    "elect.sync %r1|%p1, -1", "elect.sync _|%p1, %r2",
    # barriers and fences
    "bar.sync 0", "bar.sync 1, 128", "bar.sync %r1", "barrier.sync 0", "barrier.sync.aligned 0",
    "barrier.sync.aligned 1, 64", "bar.arrive 1, 64", "barrier.arrive 1, 64", "bar.cta.sync 0",
    "bar.cta.arrive 0, 64", "barrier.cta.sync.aligned 0",
    "bar.red.popc.u32 %r1, 0, %p1", "bar.red.and.pred %p1, 0, %p2", "bar.red.or.pred %p1, 0, 64, !%p2",
    "barrier.red.popc.u32 %r1, 0, %p1", "bar.warp.sync -1", "bar.warp.sync %r1",
    "barrier.cluster.arrive", "barrier.cluster.wait", "barrier.cluster.arrive.aligned",
    "barrier.cluster.arrive.release", "barrier.cluster.arrive.relaxed",
    "barrier.cluster.arrive.relaxed.aligned", "barrier.cluster.wait.acquire",
    "barrier.cluster.wait.aligned",
    "membar.gl", "membar.cta", "membar.sys", "membar.proxy.alias",
    "fence.sc.gpu", "fence.sc.cta", "fence.acq_rel.gpu", "fence.acq_rel.sys", "fence.acq_rel.cluster",
    "fence.sc.cluster", "fence.acquire.gpu", "fence.release.cta", "fence.proxy.alias",
    "fence.proxy.async", "fence.proxy.async.global", "fence.proxy.async.shared::cluster",
    "fence.mbarrier_init.release.cluster", "fence.proxy.tensormap::generic.release.gpu",
    "fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128",
    "fence.proxy.tensormap::generic.release.cta", "fence.op_restrict::release.cluster",
    "fence.sync_restrict::shared::cta.release.cluster", "fence.proxy.async::generic.acquire.sync_restrict::shared::cluster.cluster",
    "griddepcontrol.launch_dependents", "griddepcontrol.wait",
    "setmaxnreg.inc.sync.aligned.u32 240", "setmaxnreg.dec.sync.aligned.u32 40",
    "nanosleep.u32 %r1", "nanosleep.u32 100", "trap", "brkpt", "pmevent 1", "pmevent.mask 0x3",
    "exit",
    # atomics and reductions
    "atom.global.add.u64 %rd1, [%rd2], %rd3", "atom.global.add.s32 %r1, [%rd2], %r3",
    "atom.global.add.f64 %fd1, [%rd2], %fd3", "atom.shared.add.f64 %fd1, [%r2], %fd3",
    "atom.add.f64 %fd1, [%rd2], %fd3", "atom.shared.add.f32 %f1, [%r2], %f3",
    "atom.global.add.noftz.f16 %rs1, [%rd2], %rs3", "atom.global.add.noftz.f16x2 %r1, [%rd2], %r3",
    "atom.add.noftz.f16x2 %r1, [%rd2], %r3", "atom.shared.add.noftz.f16 %rs1, [%r2], %rs3",
    "atom.global.add.noftz.bf16 %rs1, [%rd2], %rs3", "atom.global.add.noftz.bf16x2 %r1, [%rd2], %r3",
    "atom.add.noftz.bf16 %rs1, [%rd2], %rs3", "atom.shared.add.noftz.bf16x2 %r1, [%r2], %r3",
    "atom.global.min.f32 %f1, [%rd2], %f3", "atom.global.max.f64 %fd1, [%rd2], %fd3",
    "atom.global.min.u64 %rd1, [%rd2], %rd3", "atom.global.max.s64 %rd1, [%rd2], %rd3",
    "atom.global.and.b64 %rd1, [%rd2], %rd3", "atom.global.exch.b64 %rd1, [%rd2], %rd3",
    "atom.global.cas.b16 %rs1, [%rd2], %rs3, %rs4", "atom.global.cas.b128 %rq1, [%rd2], %rq3, %rq4",
    "atom.global.exch.b128 %rq1, [%rd2], %rq3", "atom.shared.cas.b64 %rd1, [%r2], %rd3, %rd4",
    "atom.global.inc.u32 %r1, [%rd2], %r3", "atom.global.dec.u32 %r1, [%rd2], %r3",
    "atom.global.cta.add.u32 %r1, [%rd2], %r3", "atom.global.sys.add.u32 %r1, [%rd2], %r3",
    "atom.global.gpu.add.u32 %r1, [%rd2], %r3", "atom.global.cluster.add.u32 %r1, [%rd2], %r3",
    "atom.acquire.gpu.global.add.u32 %r1, [%rd2], %r3", "atom.release.sys.global.exch.b32 %r1, [%rd2], %r3",
    "atom.acq_rel.cta.shared.cas.b32 %r1, [%r2], %r3, %r4", "atom.relaxed.global.add.u32 %r1, [%rd2], %r3",
    "atom.shared::cta.add.u32 %r1, [%r2], %r3", "atom.shared::cluster.add.u32 %r1, [%r2], %r3",
    "atom.global.v2.f32.add %rd1, [%rd2], %rd3",
    "atom.global.v2.f32.add {%f1, %f2}, [%rd2], {%f3, %f4}",
    "atom.global.v4.f32.max {%f1, %f2, %f3, %f4}, [%rd2], {%f5, %f6, %f7, %f8}",
    "atom.global.v2.f16x2.add.noftz {%r1, %r2}, [%rd2], {%r3, %r4}",
    "atom.global.v8.bf16x2.max.noftz " + R8 + ", [%rd2], " + vec("%r", 40, 8),
    "atom.global.L2::cache_hint.add.u32 %r1, [%rd2], %r3, %rd4",
    "atom.global.add.u32 %r1, [gvar], %r3",
    "red.global.add.u32 [%rd1], %r2", "red.global.add.f32 [%rd1], %f2", "red.global.add.f64 [%rd1], %fd2",
    "red.shared.add.u64 [%r1], %rd2", "red.add.u32 [%rd1], %r2", "red.global.min.s32 [%rd1], %r2",
    "red.global.add.noftz.f16 [%rd1], %rs2", "red.global.add.noftz.f16x2 [%rd1], %r2",
    "red.global.add.noftz.bf16 [%rd1], %rs2", "red.global.add.noftz.bf16x2 [%rd1], %r2",
    "red.release.gpu.global.add.u32 [%rd1], %r2", "red.relaxed.sys.global.add.u32 [%rd1], %r2",
    "red.global.cta.add.u32 [%rd1], %r2", "red.shared::cluster.add.u32 [%r1], %r2",
    "red.global.v2.f16x2.add.noftz [%rd1], {%r2, %r3}", "red.global.v4.f32.add [%rd1], {%f1, %f2, %f3, %f4}",
    "red.global.L2::cache_hint.add.u32 [%rd1], %r2, %rd3",
    "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%r1], %r2, [%r3]",
    "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%r1], %r2, [%r3]",
    "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%r1], {%f2, %f3}, [%r3]",
    "st.bulk.weak.shared::cta [%r1], 64, 0",
    "multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd2]",
    "multimem.st.relaxed.sys.global.u32 [%rd1], %r2", "multimem.red.relaxed.sys.global.add.u32 [%rd1], %r2",
    # matrix
    "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1}, [%r2]",
    "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r1, %r2}, [%r3]",
    "ldmatrix.sync.aligned.m8n8.x4.shared::cta.b16 {%r1, %r2, %r3, %r4}, [%r5]",
    "ldmatrix.sync.aligned.m8n8.x4.b16 {%r1, %r2, %r3, %r4}, [%rd5]",
    "ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r1, %r2}, [%r3]",
    "ldmatrix.sync.aligned.m8n16.x1.shared.b8x16.b6x16_p32 {%r1}, [%r2]",
    "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r1], {%r2}",
    "stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%r1], {%r2, %r3}",
    "stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%r1], {%r2}",
    "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2",
    "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 " + F8 + ", {%r1, %r2}, {%r3, %r4}, " + F8,
    "mma.sync.aligned.m8n8k4.row.row.f16.f16.f16.f16 " + R4 + ", {%r1, %r2}, {%r3, %r4}, " + R4,
    "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r1, %r2}, {%r3, %r4}, {%r5}, {%r1, %r2}",
    "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r3, %r4}, {%r5}, {%f1, %f2, %f3, %f4}",
    "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%r1, %r2}, " + R4 + ", " + R2 + ", {%r1, %r2}",
    "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, " + R4 + ", " + R2 + ", {%f1, %f2, %f3, %f4}",
    "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%f1, %f2, %f3, %f4}, {%r3, %r4}, {%r5}, {%f1, %f2, %f3, %f4}",
    "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%f1, %f2, %f3, %f4}, {%r3, %r4}, {%r5}, {%f1, %f2, %f3, %f4}",
    "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2}",
    "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%fd1, %fd2, %fd3, %fd4}, {%fd5, %fd6, %fd7, %fd8, %fd9, %fd10, %fd11, %fd12}, {%fd13, %fd14, %fd15, %fd16}, {%fd1, %fd2, %fd3, %fd4}",
    "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}",
    "mma.sync.aligned.m8n8k16.row.col.satfinite.s32.u8.s8.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}",
    "mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 " + R4 + ", {%r1, %r2}, {%r3}, " + R4,
    "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 " + R4 + ", " + vec("%r", 1, 4) + ", {%r5, %r6}, " + R4,
    "mma.sync.aligned.m8n8k32.row.col.s32.s4.s4.s32 {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}",
    "mma.sync.aligned.m16n8k64.row.col.s32.u4.u4.s32 " + R4 + ", " + vec("%r", 1, 4) + ", {%r5, %r6}, " + R4,
    "mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}",
    "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc " + R4 + ", " + vec("%r", 1, 4) + ", {%r5, %r6}, " + R4,
    "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, %f4}, " + R4 + ", " + R2 + ", {%f1, %f2, %f3, %f4}",
    "mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32 {%f1, %f2, %f3, %f4}, " + R4 + ", " + R2 + ", {%f1, %f2, %f3, %f4}",
    "mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 {%f1, %f2, %f3, %f4}, {%r3, %r4}, {%r5}, {%f1, %f2, %f3, %f4}",
    "mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e4m3.f16 {%r1, %r2}, " + R4 + ", " + R2 + ", {%r1, %r2}",
    "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 " + R8 + ", [%rd1]",
    "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 " + R8 + ", [%r1], %r2",
    "wmma.load.b.sync.aligned.col.m16n16k16.f16 " + R8 + ", [%rd1], 16",
    "wmma.load.c.sync.aligned.row.m16n16k16.global.f32 " + F8 + ", [%rd1]",
    "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], " + F8,
    "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 " + F8 + ", " + R8 + ", " + vec("%r", 40, 8) + ", " + F8,
    "wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16 " + R4 + ", " + R8 + ", " + vec("%r", 40, 8) + ", " + R4,
    "wmma.load.a.sync.aligned.row.m16n16k16.global.bf16 " + R4 + ", [%rd1]",
    "wmma.mma.sync.aligned.row.col.m16n16k16.f32.bf16.bf16.f32 " + F8 + ", " + R4 + ", " + vec("%r", 40, 4) + ", " + F8,
    "wmma.load.a.sync.aligned.row.m16n16k8.global.tf32 " + R4 + ", [%rd1]",
    "wmma.mma.sync.aligned.row.col.m16n16k8.f32.tf32.tf32.f32 " + F8 + ", " + R4 + ", " + vec("%r", 40, 4) + ", " + F8,
    "wmma.load.a.sync.aligned.row.m16n16k16.global.s8 {%r1, %r2}, [%rd1]",
    "wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32 " + R8 + ", {%r1, %r2}, {%r3, %r4}, " + R8,
    "wmma.load.a.sync.aligned.row.m8n8k4.global.f64 {%fd1}, [%rd1]",
    "wmma.mma.sync.aligned.row.col.m8n8k4.f64 {%fd1, %fd2}, {%fd3}, {%fd4}, {%fd1, %fd2}",
    "wmma.load.a.sync.aligned.row.m8n8k32.global.s4 {%r1}, [%rd1]",
    "wmma.mma.sync.aligned.row.col.m8n8k128.s32.b1.b1.s32.xor.popc {%r1, %r2}, {%r3}, {%r4}, {%r1, %r2}",
    "wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned 0",
    "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 " + F8 + ", %rd1, %rd2, 1, 1, 1, 0, 0",
    "wgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 " + R4 + ", %rd1, %rd2, 1, 1, 1, 0, 0",
    "wgmma.mma_async.sync.aligned.m64n16k16.f32.bf16.bf16 " + F8 + ", %rd1, %rd2, 1, 1, 1, 0, 0",
    "wgmma.mma_async.sync.aligned.m64n16k8.f32.tf32.tf32 " + F8 + ", %rd1, %rd2, 1, 1, 1",
    "wgmma.mma_async.sync.aligned.m64n16k32.f32.e4m3.e4m3 " + F8 + ", %rd1, %rd2, 1, 1, 1",
    "wgmma.mma_async.sync.aligned.m64n16k32.f16.e5m2.e4m3 " + R4 + ", %rd1, %rd2, 1, 1, 1",
    "wgmma.mma_async.sync.aligned.m64n16k32.s32.s8.s8 " + R8 + ", %rd1, %rd2, 1",
    "wgmma.mma_async.sync.aligned.m64n16k32.s32.u8.s8.satfinite " + R8 + ", %rd1, %rd2, 1",
    "wgmma.mma_async.sync.aligned.m64n16k16.f32.f16.f16 " + F8 + ", " + R4 + ", %rd2, 1, 1, 1, 0",
    "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd1, %rd2, 1",
    # mbarrier
    "mbarrier.init.shared::cta.b64 [%r1], %r2", "mbarrier.init.b64 [%rd1], %r2",
    "mbarrier.arrive.shared::cta.b64 %rd1, [%r2]", "mbarrier.arrive.noComplete.shared.b64 %rd1, [%r2], %r3",
    "mbarrier.arrive.shared.b64 %rd1, [%r2], %r3", "mbarrier.arrive.release.cta.shared::cta.b64 %rd1, [%r2]",
    "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%r2]",
    "mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [%r2], %r3",
    "mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%r2], %r3",
    "mbarrier.arrive.relaxed.cta.shared::cta.b64 %rd1, [%r2]",
    "mbarrier.arrive_drop.shared.b64 %rd1, [%r2]", "mbarrier.arrive_drop.noComplete.shared.b64 %rd1, [%r2], %r3",
    "mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r1], %r2",
    "mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r1], %r2",
    "mbarrier.test_wait.shared::cta.b64 %p1, [%r2], %rd3", "mbarrier.test_wait.acquire.cta.shared::cta.b64 %p1, [%r2], %rd3",
    "mbarrier.test_wait.parity.shared::cta.b64 %p1, [%r2], %r3",
    "mbarrier.try_wait.shared::cta.b64 %p1, [%r2], %rd3", "mbarrier.try_wait.shared::cta.b64 %p1, [%r2], %rd3, %r4",
    "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 %p1, [%r2], %r3",
    "mbarrier.try_wait.parity.relaxed.cta.shared::cta.b64 %p1, [%r2], %r3",
    "mbarrier.try_wait.parity.b64 %p1, [%rd2], %r3",
    "mbarrier.pending_count.b64 %r1, %rd2", "mbarrier.inval.shared::cta.b64 [%r1]",
    # bulk copies and tensor maps
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3]",
    "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [%r1], [%rd1], %r2, [%r3]",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [%r1], [%rd1], %r2, [%r3], %rd4",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1], %r2, [%r3], %rs4",
    "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], %r2",
    "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [%r1], %r2, %rd3",
    "cp.async.bulk.global.shared::cta.bulk_group.cp_mask [%rd1], [%r1], %r2, %rs3",
    "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r1], [%r2], %r3, [%r4]",
    "cp.async.bulk.prefetch.L2.global [%rd1], %r2", "cp.async.bulk.prefetch.L2.global.L2::cache_hint [%rd1], %r2, %rd3",
    "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2}], [%r3]",
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4]",
    "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint [%r1], [%rd1, {%r2, %r3, %r5}], [%r4], %rd2",
    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster [%r1], [%rd1, {%r2, %r3}], [%r4], %rs5",
    "cp.async.bulk.tensor.2d.shared::cta.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3}], [%r4]",
    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 [%r1], [%rd1, {%r2, %r3}], [%r4]",
    "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, %r5}], [%r4], {%rs6}",
    "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%rd1, {%r2, %r3}], [%r1]",
    "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%rd1, {%r2, %r3}], [%r1]",
    "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r2, %r3}]",
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%r1], %r2",
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.noftz.bf16 [%rd1], [%r1], %r2",
    "cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes.add.u32 [%r1], [%r2], %r3, [%r4]",
    "cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group [%rd1, {%r2, %r3}], [%r1]",
    "cp.async.bulk.commit_group", "cp.async.bulk.wait_group 0", "cp.async.bulk.wait_group.read 0",
    "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2",
    "tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%r1], %rd2",
    "tensormap.replace.tile.global_dim.global.b1024.b32 [%rd1], 0, %r2",
    "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%rd1], [%r1], 128",
    "discard.global.L2 [%rd1], 128", "applypriority.global.L2::evict_normal [%rd1], 128",
    "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%r1], [%r2]",
    "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 %p1, %rq1",
    # tcgen05 (sm_100a family)
    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r1], 32",
    "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %r1, 32",
    "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned",
    "tcgen05.fence::before_thread_sync", "tcgen05.fence::after_thread_sync",
    "tcgen05.wait::ld.sync.aligned", "tcgen05.wait::st.sync.aligned",
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%r1]",
    "tcgen05.mma.cta_group::1.kind::f16 [%r1], %rd1, %rd2, %r2, %p1",
    "tcgen05.mma.cta_group::1.kind::tf32 [%r1], %rd1, %rd2, %r2, %p1",
    "tcgen05.mma.cta_group::1.kind::f8f6f4 [%r1], %rd1, %rd2, %r2, %p1",
    "tcgen05.ld.sync.aligned.32x32b.x4.b32 " + vec("%r", 10, 4) + ", [%r1]",
    "tcgen05.st.sync.aligned.32x32b.x4.b32 [%r1], " + vec("%r", 10, 4),
    "tcgen05.cp.cta_group::1.128x256b [%r1], %rd1",
    "tcgen05.shift.cta_group::1.down [%r1]",
    # misc
    "stacksave.u64 %rd1", "stackrestore.u64 %rd1", "alloca.u64 %rd1, %rd2",
    "istypep.texref %p1, %rd1", "prefetch.global.L2::evict_last [%rd1]",
    "bra.uni $L__end", "ret.uni",
]


class Form:
    """One instruction form to probe: the instruction text and what it needs declared."""

    def __init__(self, insn: str, mod: list[str], fn: list[str], origin: str):
        self.insn = insn
        self.mod = mod
        self.fn = fn
        self.origin = origin   # "corpus:<file>:<line>" or "isa"
        m = INSN_START.match(insn)
        self.form = (m.group(2) + m.group(3)) if m else insn.split()[0]

    def module(self, target: str, version: str) -> str:
        return probe_module(self.insn, self.mod, self.fn, target, version)


def all_forms() -> list[Form]:
    out: list[Form] = []
    seen = set()
    for f, s in corpus_forms().items():
        mod, fn, t = probe_body(s.text, s.regs, s.vars)
        out.append(Form(t, mod, fn, f"corpus:{s.src}:{s.line + 1}"))
        seen.add(f)
    for text in EXTRA:
        mod, fn, t = probe_body(text, {}, EXTRA_VARS)
        if "$L__end" in t:
            fn = fn + ["$L__end:"]
        fo = Form(t, mod, fn, "isa")
        out.append(fo)
    return out


# ---------------------------------------------------------------------------------------------
# Whole real modules, retargeted
# ---------------------------------------------------------------------------------------------

def form_probe_index() -> dict[str, "Probe"]:
    """The probes that ptxas accepts somewhere, by instruction text."""
    return {p.fo.insn: p for p in (Probe(f) for f in all_forms()) if p.ok is not None}


def retarget_combos(rel: str, probes: dict, rng: random.Random) -> list[tuple[str, str]]:
    """(target, version) pairs for one corpus file: the targets just below and at every target
    gate of its instructions (each at its lowest version), the versions just below and at every
    version gate (at the file's own target), and a few random pairs."""
    import gen_mutations as gm
    pf = gm.load(rel)
    own = gm.current_target("\n".join(pf.lines))
    tg, vg = set(), set()
    by_form = {p.fo.form: p for p in probes.values()}
    for st in read_statements(rel):
        p = by_form.get(st.form)
        if p is None:
            continue
        for kind, _, val, _ in p.checks:
            if kind in ("tgt", "tgtbare"):
                tg.add(int(val))
            elif kind == "ver" and vkey(val) >= (6, 1):
                vg.add(val)
        if any(k[0] == "arch" for k in p.checks):
            tg.update((90, 100))
    valid = [t for t in TARGETS if sm_number(t) >= 50]
    combos = set()
    for n in tg:
        below = [t for t in valid if sm_number(t) < n]
        at = [t for t in valid if sm_number(t) >= n]
        for t in (below[-1:] + at[:1]):
            combos.add((t, TARGET_MIN_VERSION[t] if vkey(TARGET_MIN_VERSION[t]) >= (6, 0) else "6.0"))
    if own in TARGET_MIN_VERSION:
        for v in vg:
            i = VERSIONS.index(v)
            for vv in (VERSIONS[i - 1], v):
                if vkey(vv) >= vkey(TARGET_MIN_VERSION[own]):
                    combos.add((own, vv))
    for _ in range(12):
        t = rng.choice(valid)
        lo = VERSIONS.index(TARGET_MIN_VERSION[t])
        combos.add((t, rng.choice(VERSIONS[max(lo - 1, 0):])))
    return sorted(combos, key=lambda c: (tkey(c[0]), vkey(c[1])))


def retarget_cases(probes: dict) -> list[dict]:
    import gen_mutations as gm
    rng = random.Random(SEED)
    out = []
    for rel in corpus_files():
        pf = gm.load(rel)
        if pf.target_line < 0 or pf.version_line < 0:
            continue
        for t, v in retarget_combos(rel, probes, rng):
            edits = [[pf.target_line, 1, [f".target {t}"]], [pf.version_line, 1, [f".version {v}"]]]
            out.append({"kind": "retarget", "base": rel, "edits": edits, "ptx": None,
                        "target": t, "version": v, "arch": arch_for(t)})
    return out


def probe_cases(probes: dict) -> list[dict]:
    """Every measured (target, version) of every probe form (targets from sm_50, versions
    from 4.0: the range ptxsim models)."""
    out = []
    for form, p in sorted(probes.items()):
        for (t, v) in sorted(p.obs, key=lambda tv: (tkey(tv[0]), vkey(tv[1]))):
            if sm_number(t) < 50 or vkey(v) < (4, 0):
                continue
            out.append({"kind": "probe", "insn": p.fo.insn, "mod": p.fo.mod, "fn": p.fo.fn,
                        "origin": p.fo.origin, "target": t, "version": v, "arch": arch_for(t)})
    return out


def materialize(case: dict) -> str:
    if case["kind"] == "probe":
        return probe_module(case["insn"], case["mod"], case["fn"], case["target"], case["version"])
    import gen_mutations as gm
    return gm.materialize(case)


# ---------------------------------------------------------------------------------------------
# Reading gates out of ptxas's messages
# ---------------------------------------------------------------------------------------------

GATE_RES = [
    ("tgt", re.compile(r"^error   : (.*) requires \.target sm_(\d+) or higher$")),
    ("tgtbare", re.compile(r"^error   : (.*) requires \.target (\d+) or higher$")),
    ("ver", re.compile(r"^error   : (.*) requires PTX ISA \.version (\d+\.\d+) or later$")),
    ("arch", re.compile(r"^error   : (.*) not supported on \.target '(sm_\w+)'$")),
    ("march", re.compile(r"^error   : (.*) cannot be compiled for architecture '(sm_\w+)'$")),
    ("mismatch", re.compile(r"^error   : PTX \.version (\S+) does not support \.target (\S+)$")),
]


def parse_message(m: str) -> tuple[str, str, str] | None:
    for kind, rx in GATE_RES:
        g = rx.match(m)
        if g:
            return kind, g.group(1), g.group(2)
    return None


def gate_sequence(raw: str, line: int | None = None) -> tuple[list[tuple[str, str, str]], list[str]]:
    """ptxas's gate messages in order as (kind, subject, value), and every other message."""
    gates, other = [], []
    for m in messages(raw, line):
        p = parse_message(m)
        if p is None:
            other.append(m)
        elif p[0] != "mismatch":
            gates.append(p)
    return gates, other


# ---------------------------------------------------------------------------------------------
# Deriving the gate table from the probes
# ---------------------------------------------------------------------------------------------

TYPE_WORDS = {".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16",
              ".s32", ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".tf32", ".pred",
              ".e4m3", ".e5m2", ".e4m3x2", ".e5m2x2", ".s4", ".u4", ".b1", ".f32x2", ".s16x2", ".u16x2"}


def form_tokens(fo: Form) -> set[str]:
    """What a gate condition may test: the modifiers, the special registers among the operands
    (`%cluster_ctarank`), and the operand count (`#4`)."""
    m = INSN_START.match(fo.insn)
    mods = re.findall(r"\.[\w:]+", m.group(3))
    toks = set(mods)
    # the type words in order (`cvt.f32.bf16` and `cvt.rn.bf16.f32` differ only there)
    for i, t in enumerate(w for w in mods if w in TYPE_WORDS):
        toks.add(f"t{i}{t}")
    rest = fo.insn[m.end():]
    declared = {d.split()[-1].rstrip(";") for d in fo.fn if d.startswith(".reg")}
    for n in re.findall(r"%[A-Za-z_]\w*", rest):
        if n not in declared:
            toks.add(n)
    depth, count, cur = 0, 0, ""
    for ch in rest:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            count += 1
    if rest.strip():
        count += 1
    toks.add(f"#{count}")
    return toks


_recorded: dict | None = None


def _load_recorded() -> dict:
    """The probe results of the committed gates.jsonl.gz, so that `table`, `summary` and
    `verify` work without ptxas (and without the run cache)."""
    global _recorded
    if _recorded is None:
        _recorded = {}
        if OUT.exists():
            with gzip.open(OUT, "rt") as fh:
                for line in fh:
                    r = json.loads(line)
                    if r["kind"] == "probe":
                        _recorded[(r["insn"], r["target"], r["version"])] = (r["exit"], r["raw"])
    return _recorded


def observations(fo: Form) -> dict[tuple[str, str], tuple[int, str]]:
    cache = _load_cache()
    rec = _load_recorded()
    out = {}
    for t in TARGETS:
        for v in VERSIONS:
            k = _key(fo.module(t, v), arch_for(t))
            if k in cache:
                out[(t, v)] = cache[k]
            elif (fo.insn, t, v) in rec:
                out[(t, v)] = rec[(fo.insn, t, v)]
    return out


def ok_target(obs: dict) -> str | None:
    return next((t for t in TARGETS if sm_number(t) >= 50 and obs.get((t, "9.5"), (1,))[0] == 0), None)


def check_keys(seq: list[tuple[str, str, str]]) -> list[tuple[str, str, str, int]]:
    """(kind, subject, value, occurrence): the n-th time the same message is printed is its own
    check (ptxas repeats some checks, e.g. `.bf16` once per operand type it tests)."""
    seen: Counter = Counter()
    out = []
    for kind, subj, val in seq:
        if kind in ("arch", "march"):
            val = ""
        seen[(kind, subj, val)] += 1
        out.append((kind, subj, val, seen[(kind, subj, val)]))
    return out


def gate_version(v: str) -> tuple[int, int]:
    """The version a gate compares: ptxas treats `.version 5.1` as 6.0 (measured: every
    "requires PTX ISA .version 6.0" gate passes at 5.1)."""
    return (6, 0) if v == "5.1" else vkey(v)


class Probe:
    def __init__(self, fo: Form):
        self.fo = fo
        self.obs = observations(fo)
        self.ok = ok_target(self.obs)
        self.tokens = form_tokens(fo)
        self.op = fo.form.split(".")[0]
        self.checks: list[tuple[str, str, str, int]] = []
        self.allowed: dict[str, set[str]] = {}
        self.march: dict[str, set[str]] = {}
        if self.ok is None:
            return
        L = self.line = fo.module("sm_50", "9.5").split("\n").index("\t" + fo.insn + ";") + 1
        low = self.obs.get(("sm_50", "4.0")) or self.obs.get((self.ok, "4.0"))
        seq, _ = gate_sequence(low[1], L)
        # version checks only seen at the accepting target (a target check failing at sm_50
        # may hide them), appended in their order there
        keys = check_keys(seq)
        at_ok = check_keys(gate_sequence(self.obs[(self.ok, "4.0")][1], L)[0])
        for k in at_ok:
            if k not in keys and k[0] == "ver":
                keys.append(k)
        # arch messages (and the -arch one) from the target sweep, after their neighbour
        for (t, v), (e, raw) in sorted(self.obs.items(), key=lambda x: tkey(x[0][0])):
            if v != "9.5" or sm_number(t) < 50:
                continue
            seq = check_keys(gate_sequence(raw, L)[0])
            for i, k in enumerate(seq):
                if k not in keys:
                    at = keys.index(seq[i - 1]) + 1 if i > 0 and seq[i - 1] in keys else len(keys)
                    keys.insert(at, k)
        self.checks = keys
        # a probe whose accepted form still prints other messages is not a clean gate probe
        self.clean = not gate_sequence(self.obs[(self.ok, "9.5")][1], L)[1] and all(
            not gate_sequence(raw, L)[1] for raw in (r for _, r in self.obs.values()))
        for (t, v), (e, raw) in self.obs.items():
            if v != "9.5" or sm_number(t) < 50:
                continue
            for kind, subj, val in gate_sequence(raw, L)[0]:
                if kind == "arch":
                    self.allowed.setdefault(subj, set()).add(t)
                if kind == "march":
                    self.march.setdefault(subj, set()).add(t)
        # `allowed` holds the targets that print the arch message: invert
        hi = [t for t in TARGETS if sm_number(t) >= 50]
        self.allowed = {s: set(hi) - ts for s, ts in self.allowed.items()}


def cache_control(fo_form: str) -> bool:
    """Instructions ptx-check's cache-control rules own (they have their own gates)."""
    parts = fo_form.split(".")
    op = parts[0]
    if op in ("createpolicy", "prefetch", "prefetchu"):
        return True
    if op in ("ld", "st"):
        return not ({"async", "bulk"} & set(parts[1:]))
    if op == "cp":
        if parts[1:2] != ["async"]:
            return False
        return parts[2:3] != ["bulk"] or parts[3:4] in (["commit_group"], ["wait_group"])
    return False


def sat(tokens: set[str], lit: str, sm: int = 0, version: str = "9.5") -> bool:
    if lit.startswith("@"):
        # a condition on the target or version (patched in by hand, see PATCHES)
        m = re.match(r"@(sm|v)(>=|<|=|!=)([\d.]+)$", lit)
        have = sm if m.group(1) == "sm" else gate_version(version)
        want = int(m.group(3)) if m.group(1) == "sm" else vkey(m.group(3))
        return {">=": have >= want, "<": have < want, "=": have == want, "!=": have != want}[m.group(2)]
    if lit.startswith("!"):
        return lit[1:] not in tokens
    return any(a in tokens for a in lit.split("|"))


def learn_conjunctions(pos: list[set[str]], neg: list[set[str]]) -> list[list[str]]:
    """The condition of one check, learned from the forms that print it (`pos`) and those of
    the same opcode that do not (`neg`): a disjunction of tokens only positives have
    (`.cta|.gpu|.sys`), else conjunctions of literals (`.x`, `!.x`) chosen greedily (most
    negatives excluded, positive literals first); several conjunctions when one cannot
    cover every positive."""
    if not neg:
        return [[]]
    # 1. tokens that only positives have
    disc = set().union(*pos) - set().union(*neg)
    if all(p & disc for p in pos):
        cover: list[str] = []
        left = list(pos)
        while left:
            t = max(sorted(disc), key=lambda t: (sum(t in p for p in left), t.startswith("."), -len(t)))
            cover.append(t)
            left = [p for p in left if t not in p]
        return [["|".join(sorted(cover))]]
    # 2. conjunctions
    rules: list[list[str]] = []
    remaining = list(pos)
    universe = sorted(set().union(*pos, *neg))
    while remaining:
        covered = list(remaining)
        negs = list(neg)
        rule: list[str] = []
        while negs:
            best = None
            for t in universe:
                for lit in (t, "!" + t):
                    keep = [p for p in covered if sat(p, lit)]
                    drop = sum(not sat(n, lit) for n in negs)
                    if not keep or not drop:
                        continue
                    score = (len(keep) == len(covered), drop if len(keep) == len(covered) else len(keep),
                             not lit.startswith("!"), t.startswith("."), -len(lit))
                    if best is None or score > best[0]:
                        best = (score, lit, keep)
            if best is None:
                break
            _, lit, keep = best
            rule.append(lit)
            covered = keep
            negs = [n for n in negs if sat(n, lit)]
        if negs:
            rules.append(rule + ["?"])
            break
        rules.append(rule)
        remaining = [p for p in remaining if p not in covered]
    return rules


def topo_order(seqs: list[list]) -> list:
    """One order of every key consistent with as many observed sequences as possible."""
    keys: list = []
    pos_sum: dict = defaultdict(float)
    n: dict = defaultdict(int)
    before: dict = defaultdict(int)
    for s in seqs:
        for i, k in enumerate(s):
            if k not in keys:
                keys.append(k)
            pos_sum[k] += i / max(len(s), 1)
            n[k] += 1
            for k2 in s[i + 1:]:
                before[(k, k2)] += 1
    out = []
    left = list(keys)
    while left:
        # a key nobody left must precede (by majority), earliest average position first
        free = [k for k in left if not any(before[(o, k)] > before[(k, o)] for o in left if o != k)]
        if not free:
            free = left
        k = min(free, key=lambda k: (pos_sum[k] / n[k], keys.index(k)))
        out.append(k)
        left.remove(k)
    return out


def patch(op: str, kind: str, subj: str, val: str, ps: list) -> list[str]:
    """Target/version conditions ptxas adds that token conditions cannot express. Measured on
    the fp8 conversions (`cvt…e4m3x2`, `…e5m2x2`): from PTX 8.1 on they need sm_89, before it
    sm_90; on sm_89 the version message names `… on sm_89` and PTX 8.1."""
    subjects = {k[1] for p in ps for k in p.checks if k[0] == "tgt" and k[2] == "89"}
    on89 = subj.endswith(" on sm_89'")
    base = subj[:-len(" on sm_89'")] + "'" if on89 else subj
    if base not in subjects or not any(k[1] == base and k[2] == "90" for p in ps for k in p.checks):
        return []
    if kind == "tgt":
        return ["@v>=8.1"] if val == "89" else ["@v<8.1"]
    if kind == "ver":
        return ["@sm=89"] if on89 else ["@sm!=89"]
    return []


def derive(probes: list[Probe]) -> list[dict]:
    by_op: dict[str, list[Probe]] = defaultdict(list)
    for p in probes:
        if p.ok is not None and not cache_control(p.fo.form):
            by_op[p.op].append(p)
    rows = []
    for op in sorted(by_op):
        ps = by_op[op]
        order = topo_order([p.checks for p in ps])
        for key in order:
            kind, subj, val, count = key
            pos = [p.tokens for p in ps if key in p.checks]
            neg = [p.tokens for p in ps if key not in p.checks]
            allowed = sorted(set.intersection(*[p.allowed.get(subj, set()) for p in ps if key in p.checks]),
                             key=tkey) if kind == "arch" else []
            march = sorted(set.union(*[p.march.get(subj, set()) for p in ps if key in p.checks]),
                           key=tkey) if kind == "march" else []
            for cond in learn_conjunctions(pos, neg):
                cond = cond + patch(op, kind, subj, val, by_op[op])
                rows.append({"op": op, "when": cond, "kind": kind, "subject": subj, "value": val,
                             "count": count, "allowed": allowed, "march": march,
                             "evidence": [p.fo.insn for p in ps if key in p.checks and
                                          all(sat(p.tokens, l) for l in cond)][:3]})
    return rows


def simulate(rows: list[dict], op: str, tokens: set[str], target: str, version: str) -> list[str]:
    sm = sm_number(target)
    out = []
    for r in rows:
        if r["op"] != op or not all(sat(tokens, l, sm, version) for l in r["when"]):
            continue
        k, s, v, c = r["kind"], r["subject"], r["value"], 1
        if k == "tgt" and sm < int(v):
            out += [f"error   : {s} requires .target sm_{v} or higher"] * c
        elif k == "tgtbare" and sm < int(v):
            out += [f"error   : {s} requires .target {v} or higher"] * c
        elif k == "ver" and gate_version(version) < vkey(v):
            out += [f"error   : {s} requires PTX ISA .version {v} or later"] * c
        elif k == "arch" and target not in r["allowed"]:
            out += [f"error   : {s} not supported on .target '{target}'"] * c
        elif k == "march" and target in r["march"]:
            out += [f"error   : {s} cannot be compiled for architecture '{arch_for(target)}'"] * c
    if vkey(version) < vkey(TARGET_MIN_VERSION[target]):
        out.append(f"error   : PTX .version {version} does not support .target {target}")
    return out


def verify_rows(rows: list[dict], probes: list[Probe], show: int = 30) -> tuple[int, int]:
    good = total = 0
    shown = 0
    for p in probes:
        if p.ok is None or not p.clean or cache_control(p.fo.form):
            continue
        for (t, v), (e, raw) in sorted(p.obs.items()):
            if sm_number(t) < 50 or vkey(v) < (4, 0):
                continue
            want = messages(raw, p.line)
            got = [m for m in simulate(rows, p.op, p.tokens, t, v) if "does not support .target" not in m]
            total += 1
            if want == got or (vkey(v) < (6, 0) and want[-1:] == got[-1:] == []):
                good += 1
            elif shown < show:
                shown += 1
                print(f"MISMATCH {p.fo.insn[:80]} @ {t} {v}\n   ptxas: {want}\n   model: {got}")
    return good, total


RUST_TABLE = HERE.parent.parent / "crates/ptx-isa/src/insn_gates_table.rs"


def rust_str(s: str) -> str:
    return json.dumps(s)


def emit_rust(rows: list[dict]) -> str:
    out = ["// @generated by tests/parity/gen_gates.py (`gen_gates.py table`) from ptxas 13.5 probes;",
           "// edit the generator, not this file. One row per message ptxas prints, in ptxas's order",
           "// within an opcode; see `crate::insn_gates` for what the condition words mean.",
           "",
           "use crate::insn_gates::{GateKind::*, InsnGate};",
           "use crate::target::PtxVersion;",
           "",
           "#[rustfmt::skip]",
           "pub const INSN_GATES: &[InsnGate] = &["]
    for r in rows:
        if "?" in r["when"]:
            continue
        k, v = r["kind"], r["value"]
        if k == "tgt":
            kind = f"Target({int(v)})"
        elif k == "tgtbare":
            kind = f"TargetBare({int(v)})"
        elif k == "ver":
            a, b = v.split(".")
            kind = f"Version(PtxVersion::new({a}, {b}))"
        elif k == "arch":
            kind = "Arch(&[" + ", ".join(rust_str(t) for t in r["allowed"]) + "])"
        else:
            kind = "Compile(&[" + ", ".join(rust_str(t) for t in r["march"]) + "])"
        when = "&[" + ", ".join(rust_str(w) for w in r["when"]) + "]"
        ev = r["evidence"][0] if r["evidence"] else ""
        out.append(f"    InsnGate {{ opcode: {rust_str(r['op'])}, when: {when}, kind: {kind}, "
                   f"subject: {rust_str(r['subject'])}, evidence: {rust_str(ev)} }},")
    out.append("];")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# Commands
# ---------------------------------------------------------------------------------------------

def generate() -> tuple[list[dict], dict]:
    """Every case of the committed set (without ptxas's results), and the probe index."""
    probes = form_probe_index()
    cases = probe_cases(probes) + retarget_cases(probes)
    for i, c in enumerate(cases):
        c["id"] = ("gate-%05d" if c["kind"] == "probe" else "rt-%05d") % i
    return cases, probes


def sweep_jobs() -> list[tuple[str, str]]:
    """The probe sweeps: every form at every target (PTX 9.5), then versions at the lowest
    accepting target and at sm_50 (4.0 for every gate at once; each version gate's threshold and
    the version below it)."""
    jobs = []
    forms = all_forms()
    for f in forms:
        for t in TARGETS:
            jobs.append((f.module(t, "9.5"), arch_for(t)))
    return jobs


def cmd_run(workers: int) -> int:
    if shutil.which("ptxas") is None:
        print("ptxas not on PATH: source shared/tools/cuda-tools.sh first", file=sys.stderr)
        return 2
    # 1. target sweeps, 2. version probes (they depend on 1), 3. the cases
    run_all(sweep_jobs(), workers)
    jobs = []
    for f in all_forms():
        obs = observations(f)
        ok = ok_target(obs)
        if ok is None:
            continue
        jobs.append((f.module(ok, "4.0"), arch_for(ok)))
        if ok != "sm_50":
            jobs += [(f.module("sm_50", "4.0"), "sm_75"), (f.module("sm_50", "6.0"), "sm_75")]
    run_all(jobs, workers)
    jobs = []
    for f in all_forms():
        obs = observations(f)
        ok = ok_target(obs)
        if ok is None:
            continue
        for kind, subj, val in gate_sequence(obs[(ok, "4.0")][1])[0]:
            if kind == "ver" and val in VERSIONS:
                i = VERSIONS.index(val)
                jobs += [(f.module(ok, val), arch_for(ok)), (f.module(ok, VERSIONS[i - 1]), arch_for(ok))]
    run_all(jobs, workers)
    cases, probes = generate()
    results = run_all([(materialize(c), c["arch"]) for c in cases], workers)
    RUST_TABLE.write_text(emit_rust(derive(list(probes.values()))))
    with gzip.open(OUT, "wt", compresslevel=9) as fh:
        for c, (e, raw) in zip(cases, results):
            rec = dict(c)
            rec["exit"], rec["raw"] = e, raw
            rec["crash"] = e < 0 or "Internal compiler error" in raw
            fh.write(json.dumps(rec, sort_keys=True) + "\n")
    from run_ptxas import ptxas_version
    exits = Counter(e for e, _ in results)
    meta = {
        "ptxas_version": ptxas_version(),
        "command": "ptxas -arch=<arch> case.ptx -o /dev/null (cwd = scratch dir)",
        "arch_rule": "arch = .target, or sm_75 when .target is below sm_75",
        "generator": "tests/parity/gen_gates.py",
        "generator_version": GENERATOR_VERSION,
        "cases": len(cases),
        "per_kind": dict(Counter(c["kind"] for c in cases)),
        "forms": len(probes),
        "accepted": exits.get(0, 0),
        "rejected": len(cases) - exits.get(0, 0),
    }
    META.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    print(json.dumps(meta, indent=1))
    return 0


def cmd_verify() -> int:
    cases, _ = generate()
    want = {c["id"]: materialize(c) for c in cases}
    bad = n = 0
    with gzip.open(OUT, "rt") as fh:
        for line in fh:
            r = json.loads(line)
            n += 1
            if want.get(r["id"]) != materialize(r):
                bad += 1
    ok = bad == 0 and n == len(cases)
    print(f"{n} recorded, {len(cases)} generated: " +
          ("gates.jsonl.gz matches gen_gates.py" if ok else f"stale ({bad} differ): rerun `gen_gates.py run`"))
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cmd", choices=["forms", "run", "verify", "table", "summary"])
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if args.cmd == "forms":
        for f in all_forms():
            print(f.origin, "|", f.insn)
        return 0
    if args.cmd == "run":
        return cmd_run(args.jobs)
    if args.cmd == "verify":
        return cmd_verify()
    probes = [Probe(f) for f in all_forms()]
    rows = derive(probes)
    if args.cmd == "table":
        RUST_TABLE.write_text(emit_rust(rows))
        print(f"{len(rows)} rows -> {RUST_TABLE}")
    good, total = verify_rows(rows, probes, show=20 if args.cmd == "summary" else 0)
    print(f"table reproduces ptxas on {good}/{total} probe runs (instruction line)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
