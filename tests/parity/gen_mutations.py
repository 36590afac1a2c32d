#!/usr/bin/env python3
"""Mutation cases for the ptxas parity corpus: real modules, changed.

gen_cases.py puts one instruction into one fixed template. The cases here start from the real
nvcc and Triton modules of tests/corpus/ instead and change them the way people and compilers
do, so that forms and contexts the template never produces are checked too:

* `qual`     — one cache-control instruction of a real file gets a qualifier removed, added,
               replaced, duplicated, reordered or re-cased (cache operators, eviction
               priorities, prefetch sizes, `.nc`, semantics and scopes, `.mmio`,
               `.L2::cache_hint`, vector widths, types incl. `.b128`/`.v8`, state spaces);
* `operand`  — an operand of such an instruction changes kind: immediate for register, a
               register of another width or type, undeclared names, missing or extra operands,
               the cache-policy operand, every address form (`[reg]`, `[reg+imm]`, `[var]`,
               `[var+imm]`, `var[imm]`, `[imm]`, constant expressions, no brackets);
* `guard`    — predicate guards added, removed or wrong; labels in front of the instruction;
* `insert`   — an instruction of another family (from the golden corpus's instruction texts,
               with this file's registers and variables) inserted into a real function;
* `retarget` — the module's `.target`/`.version` changed (every target ptxas knows; versions at,
               below and above the minimum of each feature the file uses), with or without a
               mutated instruction;
* `multi`    — two to four of the above in one module;
* `syntax`   — whitespace, comments and line breaks between tokens, upper case, `{ }` blocks,
               the instruction moved into a new device function;
* `directive`— `.version`/`.target`/`.address_size` missing, duplicated, reordered or odd
               (`texmode_independent`, `debug`, unknown and family targets, `.address_size 32`).

A case is a base file of tests/corpus/ plus edits, `[line index (0-based), lines removed, new
lines]`, applied from the bottom up (so the committed data stays small), or — for the few
synthetic modules — the full text. Large files with several kernels are often reduced to the
kernel that holds the mutated instruction (the other `.entry` bodies are removed; that is an
edit too). `materialize()` builds the module text; crates/ptx-check/tests/mutations.rs does the
same in Rust.

Usage:
    gen_mutations.py [--out cases.jsonl] [--stats]    (deterministic: fixed seed)
run_mutations.py runs ptxas on every case and writes mutations.jsonl.gz.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "corpus"
sys.path.insert(0, str(HERE))
import gen_cases  # noqa: E402

SEED = 0x5EED_2
GENERATOR_VERSION = 2

TARGETS = gen_cases.TARGETS
TARGET_MIN_VERSION = gen_cases.TARGET_MIN_VERSION
VERSIONS = gen_cases.VERSIONS
vkey = gen_cases.vkey
sm_number = gen_cases.sm_number

# ---------------------------------------------------------------------------------------------
# Reading real modules
# ---------------------------------------------------------------------------------------------

CACHE_OPS = re.compile(r"^(ld|st|cp|createpolicy|prefetch|prefetchu)$")
INSN_RE = re.compile(
    r"^(?P<indent>\s*)(?P<label>(?:[$\w]+:\s*)?)(?P<guard>@!?%\w+\s+)?"
    r"(?P<head>(?P<op>[A-Za-z_]\w*)(?:\.[\w:]+)*)(?P<sep>\s+|(?=[;\[{]))"
    r"(?P<ops>[^;]*?)\s*;(?P<tail>.*)$")
REG_DECL = re.compile(r"^\s*\.reg\s+\.(\w+)\s+(%[A-Za-z_]\w*?)<(\d+)>\s*;")
REG_DECL_ONE = re.compile(r"^\s*\.reg\s+\.(\w+)\s+((?:%\w+\s*,\s*)*%\w+)\s*;")
VAR_DECL = re.compile(
    r"^\s*(?:\.(?:visible|extern|weak)\s+)*\.(global|shared|const|local)\s+(?:\.align\s+\d+\s+)?"
    r"(?:\.\w+\s+)*?\.(\w+)\s+([A-Za-z_$][\w$]*)\s*(\[[^\]]*\])?")
FUNC_RE = re.compile(r"^\s*(?:\.(?:visible|weak|extern)\s+)*\.(entry|func)\b")
PARAM_RE = re.compile(r"\.param\s+(?:\.align\s+\d+\s+)?\.(\w+)\s+(?:\.ptr\s+[^,)]*?)?([A-Za-z_$][\w$]*)")


def strip_comment(line: str) -> str:
    i = line.find("//")
    return line if i < 0 else line[:i]


class Function:
    def __init__(self, kind: str, start: int):
        self.kind = kind          # entry | func
        self.start = start        # line of the .entry/.func header
        self.open = -1            # line of the body's `{`
        self.end = -1             # line of the closing `}`
        self.regs: dict[str, list[str]] = {}   # type -> names (declared)
        self.undeclared: list[str] = []        # register-like names that are not declared
        self.vars: dict[str, list[str]] = {}   # state space -> variable names
        self.params: list[tuple[str, str]] = []
        self.insns: list[int] = []             # lines of cache-control instructions
        self.all_insns: list[int] = []         # lines of every instruction statement


class PtxFile:
    def __init__(self, rel: str):
        self.rel = rel
        self.text = (CORPUS / rel).read_text()
        self.lines = self.text.split("\n")
        self.version_line = self.target_line = self.addr_line = -1
        self.vars: dict[str, list[str]] = {}
        self.functions: list[Function] = []
        self.has_sections = ".section" in self.text
        self._scan()

    def _scan(self) -> None:
        depth = 0
        cur: Function | None = None
        in_block_comment = False
        for i, raw in enumerate(self.lines):
            line = raw
            if in_block_comment:
                j = line.find("*/")
                if j < 0:
                    continue
                line = line[j + 2:]
                in_block_comment = False
            while "/*" in line:
                a = line.find("/*")
                b = line.find("*/", a + 2)
                if b < 0:
                    line = line[:a]
                    in_block_comment = True
                    break
                line = line[:a] + " " + line[b + 2:]
            code = strip_comment(line)
            s = code.strip()
            if depth == 0:
                if s.startswith(".version"):
                    self.version_line = i
                elif s.startswith(".target"):
                    self.target_line = i
                elif s.startswith(".address_size"):
                    self.addr_line = i
                m = FUNC_RE.match(code)
                if m and cur is None:
                    cur = Function(m.group(1), i)
                    self.functions.append(cur)
                elif cur is None:
                    v = VAR_DECL.match(code)
                    if v:
                        self.vars.setdefault(v.group(1), []).append(v.group(3))
                if cur is not None and cur.open < 0:
                    for p in PARAM_RE.finditer(code):
                        cur.params.append((p.group(1), p.group(2)))
                    if s.endswith(";") and "{" not in s and cur.open < 0 and ")" in s:
                        # a prototype without body
                        self.functions.pop()
                        cur = None
            opens = code.count("{")
            closes = code.count("}")
            if cur is not None and cur.open < 0 and opens:
                cur.open = i
            if cur is not None and depth >= 1:
                r = REG_DECL.match(code)
                if r:
                    ty, prefix, n = r.group(1), r.group(2), int(r.group(3))
                    cur.regs.setdefault(ty, []).extend(f"{prefix}{k}" for k in range(min(n, 12)))
                    cur.undeclared.append(f"{prefix}{n}")
                else:
                    r = REG_DECL_ONE.match(code)
                    if r:
                        for name in re.split(r"\s*,\s*", r.group(2)):
                            cur.regs.setdefault(r.group(1), []).append(name)
                v = VAR_DECL.match(code)
                if v:
                    cur.vars.setdefault(v.group(1), []).append(v.group(3))
                m = INSN_RE.match(code)
                if m and not s.startswith(".") and m.group("op") not in ("ret", "exit"):
                    cur.all_insns.append(i)
                    if CACHE_OPS.match(m.group("op")):
                        if m.group("op") != "cp" or m.group("head").startswith("cp.async"):
                            cur.insns.append(i)
                elif m and m.group("op") in ("ret", "exit"):
                    cur.all_insns.append(i)
            depth += opens - closes
            if cur is not None and cur.open >= 0 and depth == 0:
                cur.end = i
                cur = None

    def function_of(self, line: int) -> Function | None:
        for f in self.functions:
            if f.start <= line <= f.end:
                return f
        return None

    def reduce_edits(self, keep: Function) -> list[list]:
        """Edits that delete every other `.entry` (device functions stay: they may be called)."""
        if self.has_sections:
            return []
        edits = []
        for f in self.functions:
            if f is keep or f.kind != "entry" or f.end < 0:
                continue
            # also drop the `// .globl name` comment line right above it
            start = f.start
            if start > 0 and self.lines[start - 1].strip().startswith("// .globl"):
                start -= 1
            edits.append([start, f.end - start + 1, []])
        return edits


def apply_edits(lines: list[str], edits: list[list]) -> str:
    out = list(lines)
    for start, count, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        out[start:start + count] = new
    return "\n".join(out)


_FILES: dict[str, PtxFile] = {}


def load(rel: str) -> PtxFile:
    if rel not in _FILES:
        _FILES[rel] = PtxFile(rel)
    return _FILES[rel]


def materialize(case: dict) -> str:
    if case.get("ptx") is not None:
        return case["ptx"]
    return apply_edits(load(case["base"]).lines, case["edits"])


# ---------------------------------------------------------------------------------------------
# One instruction, taken apart and put back together
# ---------------------------------------------------------------------------------------------

def split_operands(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


class Insn:
    def __init__(self, line: str):
        m = INSN_RE.match(line)
        assert m, line
        self.indent = m.group("indent")
        self.label = m.group("label")
        self.guard = (m.group("guard") or "").strip()
        head = m.group("head")
        parts = head.split(".")
        self.op = parts[0]
        self.mods = ["." + p for p in parts[1:]]
        self.sep = m.group("sep") or " "
        self.ops = split_operands(m.group("ops"))
        self.tail = m.group("tail")

    def render(self) -> str:
        g = self.guard + " " if self.guard else ""
        sep = self.sep if self.sep.strip() == "" and self.sep else " "
        return f"{self.indent}{self.label}{g}{self.op}{''.join(self.mods)}{sep}{', '.join(self.ops)};{self.tail}"

    @property
    def family(self) -> str:
        if self.op == "cp":
            if self.mods[1:2] == [".mbarrier"]:
                return "cp.async.mbarrier"
            if self.mods[1:2] and self.mods[1] in (".commit_group", ".wait_group", ".wait_all"):
                return "cp.async.group"
            return "cp.async"
        if self.op == "ld" and ".nc" in self.mods:
            return "ld.global.nc"
        return self.op


POOLS = {
    "cop": [".ca", ".cg", ".cs", ".lu", ".cv", ".wb", ".wt"],
    "sem": [".weak", ".volatile", ".relaxed", ".acquire", ".release"],
    "mmio": [".mmio"],
    "scope": [".cta", ".cluster", ".gpu", ".sys"],
    "space": [".global", ".shared", ".shared::cta", ".shared::cluster", ".local", ".const",
              ".param", ".param::entry", ".param::func", ".tex"],
    "l1": [".L1::evict_normal", ".L1::evict_unchanged", ".L1::evict_first", ".L1::evict_last",
           ".L1::no_allocate"],
    "l2": [".L2::evict_normal", ".L2::evict_first", ".L2::evict_last", ".L2::evict_unchanged",
           ".L2::no_allocate"],
    "bare": [".evict_last", ".evict_first", ".no_allocate"],
    "hint": [".L2::cache_hint"],
    "pf": [".L2::64B", ".L2::128B", ".L2::256B"],
    "nc": [".nc"],
    "vec": [".v2", ".v4", ".v8"],
    "type": [".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8",
             ".s16", ".s32", ".s64", ".f32", ".f64", ".f16", ".bf16", ".f16x2", ".pred"],
    "level": [".L1", ".L2", ".tensormap"],
    "odd": [".sync", ".noinc", ".unified", ".L2::32B", ".L3::evict_last", ".foo", ".v3",
            ".shared::gpu", ".async", ".aligned", ".relaxed.gpu", ".acquire.sys"],
}
CLASS_OF = {m: k for k, v in POOLS.items() for m in v}
ALL_MODS = [m for v in POOLS.values() for m in v]
TYPE_BITS = {".b8": 8, ".u8": 8, ".s8": 8, ".b16": 16, ".u16": 16, ".s16": 16, ".f16": 16,
             ".bf16": 16, ".b32": 32, ".u32": 32, ".s32": 32, ".f32": 32, ".f16x2": 32,
             ".b64": 64, ".u64": 64, ".s64": 64, ".f64": 64, ".b128": 128}
# Register types whose declarations a real file may hold, by width class.
REG_TYPES = ["pred", "b16", "u16", "s16", "f16", "b32", "u32", "s32", "f32", "b64", "u64", "s64",
             "f64", "b8", "u8", "s8", "b128"]


def class_weights(fam: str) -> list[str]:
    if fam in ("ld", "st", "ld.global.nc"):
        return ["cop"] * 4 + ["sem"] * 3 + ["scope"] * 3 + ["space"] * 4 + ["l1"] * 3 + \
            ["l2"] * 2 + ["hint"] * 3 + ["pf"] * 3 + ["nc"] * 2 + ["vec"] * 3 + ["type"] * 4 + \
            ["mmio", "bare", "odd", "level"]
    if fam == "cp.async":
        return ["cop"] * 4 + ["space"] * 3 + ["hint"] * 3 + ["pf"] * 3 + ["type"] * 2 + \
            ["vec", "l1", "l2", "sem", "scope", "odd", "odd"]
    if fam == "createpolicy":
        return ["l1"] * 2 + ["l2"] * 5 + ["type"] * 2 + ["level"] * 2 + \
            ["space", "hint", "pf", "cop", "vec", "bare", "odd"]
    if fam in ("prefetch", "prefetchu"):
        return ["level"] * 5 + ["space"] * 3 + ["l2"] * 3 + ["l1", "hint", "pf", "type", "vec",
                                                            "cop", "odd"]
    return ["space", "type", "odd", "sem", "scope", "cop", "vec", "hint", "pf", "l2", "nc", "mmio",
            "level"]


def regs_of(f: Function, *types: str) -> list[str]:
    out = []
    for t in types:
        out += f.regs.get(t, [])
    return out


def any_reg(f: Function, rng: random.Random, types: tuple[str, ...]) -> str | None:
    pool = regs_of(f, *types)
    return rng.choice(pool) if pool else None


def vars_of(pf: PtxFile, f: Function, space: str) -> list[str]:
    return pf.vars.get(space, []) + f.vars.get(space, [])


# ---------------------------------------------------------------------------------------------
# Mutation operators: each returns the new instruction line(s) or None if not applicable
# ---------------------------------------------------------------------------------------------

def kind_prefix(ins: Insn) -> int:
    """How many leading modifiers are part of the instruction name (kept in place)."""
    if ins.op == "cp":
        return 2 if ins.mods[1:2] and ins.mods[1] in (".mbarrier",) else 1
    if ins.op == "createpolicy":
        return 1
    return 0


def mut_qual(ins: Insn, pf: PtxFile, f: Function, rng: random.Random) -> str | None:
    k = kind_prefix(ins)
    body = ins.mods[k:]
    r = rng.random()
    fam = ins.family
    if r < 0.18 and body:
        # remove one
        body.pop(rng.randrange(len(body)))
        how = "drop"
    elif r < 0.45:
        cls = rng.choice(class_weights(fam))
        m = rng.choice(POOLS[cls])
        # usually before the type (last), sometimes anywhere
        pos = len(body) - 1 if body and rng.random() < 0.6 else rng.randint(0, len(body))
        body.insert(max(pos, 0), m)
        how = "add"
    elif r < 0.72 and body:
        i = rng.randrange(len(body))
        cls = CLASS_OF.get(body[i])
        if cls and rng.random() < 0.8:
            choices = [m for m in POOLS[cls] if m != body[i]] or POOLS[cls]
            body[i] = rng.choice(choices)
        else:
            body[i] = rng.choice(ALL_MODS)
        how = "swap"
    elif r < 0.80 and body:
        i = rng.randrange(len(body))
        body.insert(rng.randint(0, len(body)), body[i])
        how = "dup"
    elif r < 0.90 and len(body) > 1:
        rng.shuffle(body)
        how = "reorder"
    elif body:
        # two changes
        cls = rng.choice(class_weights(fam))
        body.insert(rng.randint(0, len(body)), rng.choice(POOLS[cls]))
        cls = rng.choice(class_weights(fam))
        i = rng.randrange(len(body))
        body[i] = rng.choice(POOLS[cls])
        how = "two"
    else:
        return None
    ins.mods = ins.mods[:k] + body
    fix_operands_for_quals(ins, f, rng, how)
    return ins.render()


def vec_count(mods: list[str]) -> int:
    for m in mods:
        if m in (".v2", ".v4", ".v8"):
            return int(m[2:])
    return 1


def fix_operands_for_quals(ins: Insn, f: Function, rng: random.Random, how: str) -> None:
    """After a qualifier change, often make the operands fit (vector count, cache-policy
    operand), so the later checks of the instruction are reached."""
    if rng.random() < 0.25:
        return
    fam = ins.family
    if fam in ("ld", "st", "ld.global.nc") and len(ins.ops) >= 2:
        di = 0 if ins.op == "ld" else 1
        n = vec_count(ins.mods)
        data = ins.ops[di]
        elems = split_operands(data[1:-1]) if data.startswith("{") else [data]
        if elems and len(elems) != n and not (n == 1 and data.startswith("{")):
            if n > len(elems):
                pool = [e for e in elems if e.startswith("%")]
                extra = []
                base = elems[-1]
                mm = re.match(r"(%[A-Za-z_]+)(\d+)$", base)
                for j in range(n - len(elems)):
                    extra.append(f"{mm.group(1)}{int(mm.group(2)) + j + 1}" if mm else
                                 rng.choice(pool or ["_"]))
                elems = elems + extra
            else:
                elems = elems[:n]
            ins.ops[di] = "{" + ", ".join(elems) + "}" if n > 1 else elems[0]
        # the vector-type table: widen/narrow data registers to the type sometimes
        t = next((m for m in ins.mods if m in TYPE_BITS), None)
        if t and rng.random() < 0.5:
            want = {8: ("b16", "u16", "s16"), 16: ("b16", "u16", "s16"), 32: ("b32", "u32", "f32"),
                    64: ("b64", "u64", "f64"), 128: ("b128",)}[TYPE_BITS[t]]
            if t.startswith(".f"):
                want = ({32: ("f32",), 64: ("f64",)}.get(TYPE_BITS[t]) or want)
            pool = regs_of(f, *want)
            if pool:
                cnt = max(1, vec_count(ins.mods))
                start = rng.randrange(max(1, len(pool) - cnt + 1))
                regs = (pool[start:start + cnt] + pool * cnt)[:cnt]
                ins.ops[di] = "{" + ", ".join(regs) + "}" if cnt > 1 else regs[0]
        hint = ".L2::cache_hint" in ins.mods
        has_pol = len(ins.ops) >= 3
        if hint and not has_pol:
            pol = any_reg(f, rng, ("b64", "u64"))
            if pol:
                ins.ops.append(pol)
        elif not hint and has_pol and rng.random() < 0.7:
            ins.ops = ins.ops[:2]
    elif fam == "cp.async":
        hint = ".L2::cache_hint" in ins.mods
        regs64 = regs_of(f, "b64", "u64")
        last_is_pol = len(ins.ops) >= 4 and ins.ops[-1] in regs64
        if hint and not last_is_pol and regs64:
            ins.ops.append(rng.choice(regs64))
        elif not hint and last_is_pol and rng.random() < 0.7:
            ins.ops.pop()
    elif fam == "createpolicy":
        pass


def mut_operand(ins: Insn, pf: PtxFile, f: Function, rng: random.Random) -> str | None:
    if not ins.ops:
        # an operand where none belongs
        ins.ops = [rng.choice(["0", "%r1", "[%rd1]"])]
        return ins.render()
    i = rng.randrange(len(ins.ops))
    o = ins.ops[i]
    r = rng.random()
    if o.startswith("[") or re.match(r"^[A-Za-z_$][\w$]*\[", o):
        ins.ops[i] = new_address(o, pf, f, rng)
    elif r < 0.15:
        ins.ops.pop(i)
    elif r < 0.25:
        ins.ops.insert(rng.randint(0, len(ins.ops)), rng.choice(
            ["%r1", "%rd1", "0", "16", "[%rd1]", "%p1", "1.0"]))
    elif o.startswith("{"):
        elems = split_operands(o[1:-1])
        j = rng.randrange(len(elems))
        rr = rng.random()
        if rr < 0.2:
            elems[j] = "_"
        elif rr < 0.35:
            elems.pop(j)
        elif rr < 0.45:
            elems.append(elems[j])
        elif rr < 0.6:
            elems[j] = rng.choice(["0", "1", "0f3F800000", "1.0", "-1"])
        else:
            t = rng.choice(REG_TYPES)
            elems[j] = any_reg(f, rng, (t,)) or rng.choice(f.undeclared or ["%x1"])
        ins.ops[i] = "{ " + ", ".join(elems) + " }" if rng.random() < 0.5 else "{" + ", ".join(elems) + "}"
    else:
        rr = rng.random()
        if rr < 0.25:
            ins.ops[i] = rng.choice(["0", "1", "16", "0x10", "-1", "4", "8", "1.0", "0f3F000000",
                                     "0d3FF0000000000000", "4294967296", "0.5"])
        elif rr < 0.65:
            t = rng.choice(REG_TYPES)
            ins.ops[i] = any_reg(f, rng, (t,)) or rng.choice(f.undeclared or ["%x1"])
        elif rr < 0.75:
            ins.ops[i] = rng.choice(f.undeclared or ["%nosuch"])
        elif rr < 0.85:
            ins.ops[i] = "{" + o + "}"
        elif rr < 0.92:
            ins.ops[i] = "[" + o + "]"
        else:
            ins.ops[i] = rng.choice(["_", "!" + o, o + ".unified", "-" + o])
    return ins.render()


def new_address(o: str, pf: PtxFile, f: Function, rng: random.Random) -> str:
    regs64 = regs_of(f, "b64", "u64", "s64")
    regs32 = regs_of(f, "b32", "u32", "s32")
    regs16 = regs_of(f, "b16", "u16")
    spaces = ["global", "shared", "const", "local"]
    allvars = [v for s in spaces for v in vars_of(pf, f, s)]
    params = [p for _, p in f.params]
    m = re.match(r"^\[\s*([^\]+\s]+)\s*(?:\+\s*(-?\w+))?\s*\]", o)
    base = m.group(1) if m else None
    r = rng.random()
    if r < 0.12 and base:
        return f"[{base}+{rng.choice(['4', '16', '-8', '0x20', '1024', '4096', '-4'])}]"
    if r < 0.2 and base:
        return f"[{base}{rng.choice(['+4+4', '+(4*2)', '+1<<2', '-4', '+ -16', '+1.5', '+%r1', '*2', '+(1?8:16)', '+(16>>2)', '+0x10*2', '+ ( 3 - 1 )', '+~0', '+2*1.5', '+1.5*2', '+(1==1)', '+8/2', '+8%3', '+(4 < 8)', '+4294967296', '+-0x8', '+1/0', '+(2)'])}]"
    if r < 0.32 and allvars:
        v = rng.choice(allvars)
        return rng.choice([f"[{v}]", f"[{v}+16]", f"{v}[8]", f"[{v}+-4]", f"[{v}].unified"])
    if r < 0.4 and params:
        return f"[{rng.choice(params)}]"
    if r < 0.48:
        return rng.choice(["[0]", "[64]", "[0x100]", "[-8]"])
    if r < 0.6 and regs32:
        return f"[{rng.choice(regs32)}]"
    if r < 0.65 and regs16:
        return f"[{rng.choice(regs16)}]"
    if r < 0.75:
        t = rng.choice(["f32", "f64", "pred", "b128", "b16", "u64", "s64"])
        reg = any_reg(f, rng, (t,))
        if reg:
            return f"[{reg}]"
    if r < 0.82 and regs64:
        return rng.choice(regs64)
    if r < 0.88:
        return f"[{rng.choice(f.undeclared or ['%nosuch'])}]"
    if r < 0.92 and base:
        return f"[{base}].unified"
    if regs64:
        return f"[{rng.choice(regs64)}+{rng.choice([0, 4, 8, 16, 128])}]"
    return o


def mut_guard(ins: Insn, pf: PtxFile, f: Function, rng: random.Random) -> str | None:
    r = rng.random()
    preds = regs_of(f, "pred")
    if r < 0.25 and ins.guard:
        ins.guard = ""
    elif r < 0.5 and preds:
        ins.guard = rng.choice(["@", "@!"]) + rng.choice(preds)
    elif r < 0.6:
        ins.guard = "@" + (any_reg(f, rng, ("b32", "b64", "u32", "f32")) or "%r1")
    elif r < 0.7:
        ins.guard = "@%p" + str(len(preds) + 7)
    elif r < 0.8:
        ins.guard = rng.choice(["@!", "@"]) + "%nosuchp"
    elif r < 0.9:
        ins.label = rng.choice(["$L__mut0: ", "MUT_LABEL:\n" + ins.indent, "$L__mut1:\t"])
    else:
        ins.label = "$L__mut2: "
        if preds:
            ins.guard = "@!" + rng.choice(preds)
    return ins.render()


# ---------------------------------------------------------------------------------------------
# Instructions to insert: the golden corpus's instruction texts with this file's names
# ---------------------------------------------------------------------------------------------

_GOLDEN_INSNS: list[tuple[str, str]] | None = None


def golden_insns() -> list[tuple[str, str]]:
    global _GOLDEN_INSNS
    if _GOLDEN_INSNS is None:
        seen = set()
        out = []
        with open(HERE / "golden.jsonl") as fh:
            for line in fh:
                c = json.loads(line)
                if c["crash"] or c["insn"] in seen:
                    continue
                seen.add(c["insn"])
                out.append((c["family"], c["insn"]))
        out.sort()
        _GOLDEN_INSNS = out
    return _GOLDEN_INSNS


def adapt(insn: str, pf: PtxFile, f: Function, rng: random.Random) -> str:
    """Rename the template's registers and variables to ones of this function/file."""
    def reg_sub(prefix: str, types: tuple[str, ...]):
        pool = regs_of(f, *types)

        def rep(m):
            if not pool:
                return m.group(0)
            k = int(m.group(1))
            return pool[min(k + 1, len(pool) - 1)]
        return rep
    table = [("rd", ("b64",)), ("rs", ("b16",)), ("rq", ("b128",)), ("fd", ("f64",)),
             ("r", ("b32",)), ("f", ("f32",)), ("p", ("pred",)), ("ul", ("u64",)),
             ("us", ("u16",)), ("u", ("u32",)), ("sl", ("s64",)), ("ss", ("s16",)),
             ("s", ("s32",)), ("h", ("f16",)), ("b", ("b8",))]
    out = insn
    for prefix, types in table:
        if regs_of(f, *types):
            out = re.sub(rf"%{prefix}(\d+)\b", reg_sub(prefix, types), out)
    subs = {"gbuf": vars_of(pf, f, "global"), "sbuf": vars_of(pf, f, "shared"),
            "cbuf": vars_of(pf, f, "const"), "lbuf": vars_of(pf, f, "local"),
            "kp": [p for _, p in f.params] if f.kind == "entry" else []}
    for name, pool in subs.items():
        if pool:
            out = re.sub(rf"\b{name}\b", pool[0], out)
    return out


def mut_insert(pf: PtxFile, f: Function, rng: random.Random) -> tuple[int, str] | None:
    if not f.all_insns:
        return None
    fam_pick = rng.choice(["ld", "ld", "st", "st", "ld.global.nc", "cp.async", "cp.async",
                           "cp.async.group", "cp.async.mbarrier", "createpolicy", "createpolicy",
                           "prefetch"])
    pool = [x for fam, x in golden_insns() if fam == fam_pick]
    insn = adapt(rng.choice(pool), pf, f, rng)
    at = rng.choice(f.all_insns)
    indent = re.match(r"^\s*", pf.lines[at]).group(0) or "\t"
    return at, indent + insn


# ---------------------------------------------------------------------------------------------
# Targets and versions
# ---------------------------------------------------------------------------------------------

FEATURE_RES = [
    (r"cp\.async\.bulk", 90, "8.0"), (r"cp\.async", 80, "7.0"), (r"L2::cache_hint", 80, "7.4"),
    (r"createpolicy", 80, "7.4"), (r"L1::(evict|no_alloc)", 70, "7.4"), (r"L2::(64|128)B", 75, "7.4"),
    (r"L2::256B", 80, "7.4"), (r"\.shared::cta", 50, "7.8"), (r"\.shared::cluster", 90, "7.8"),
    (r"\.mmio", 70, "8.2"), (r"\.b128", 70, "8.3"), (r"\.v8\.", 100, "8.8"),
    (r"\.(relaxed|acquire|release)\.", 70, "6.0"), (r"\.cluster\b", 90, "7.8"),
    (r"prefetch\.global\.L2::evict", 80, "7.4"), (r"ignore|, %p\d+;", 80, "7.5"),
    (r"mma\.sync|ldmatrix", 75, "6.5"), (r"\.bf16", 80, "7.0"), (r"\.tf32", 80, "7.0"),
    (r"wgmma|setmaxnreg|elect\.sync|mbarrier\.try_wait", 90, "8.0"),
]


def version_choices(text: str, target: str) -> list[str]:
    vs = {TARGET_MIN_VERSION[target]}
    for rx, _, v in FEATURE_RES:
        if re.search(rx, text):
            vs.add(v)
            i = VERSIONS.index(v) if v in VERSIONS else 0
            if i > 0:
                vs.add(VERSIONS[i - 1])
            if i + 1 < len(VERSIONS):
                vs.add(VERSIONS[i + 1])
    vs.add("9.5")
    return sorted((v for v in vs if v in VERSIONS or v in ("4.0", "5.0")), key=vkey)


def target_choices(text: str) -> list[str]:
    out = set()
    for rx, sm, _ in FEATURE_RES:
        if re.search(rx, text):
            below = [t for t in TARGETS if sm_number(t) < sm]
            at = [t for t in TARGETS if sm_number(t) >= sm]
            if below:
                out.add(max(below, key=sm_number))
            if at:
                out.add(min(at, key=sm_number))
    return sorted(out)


def retarget_edits(pf: PtxFile, text: str, rng: random.Random) -> tuple[list[list], str, str]:
    r = rng.random()
    if r < 0.5:
        t = rng.choice(TARGETS)
    else:
        t = rng.choice(target_choices(text) or TARGETS)
    vs = version_choices(text, t)
    if rng.random() < 0.8:
        v = rng.choice(vs)
    else:
        v = rng.choice(VERSIONS)
    edits = []
    if pf.target_line >= 0:
        edits.append([pf.target_line, 1, [f".target {t}"]])
    if pf.version_line >= 0:
        edits.append([pf.version_line, 1, [f".version {v}"]])
    return edits, t, v


def current_target(text: str) -> str:
    m = re.search(r"^\s*\.target\s+([\w]+)", text, re.M)
    return m.group(1) if m else "sm_75"


def ptxas_arch(text: str) -> str:
    """The -arch for a module: the last architecture its `.target` directives name (the one
    ptxas uses), sm_75 for older ones and when there is none ptxas knows."""
    names = []
    for line in re.findall(r"^\s*\.target\s+([^\n]*)", text, re.M):
        line = line.split("//")[0]
        names += [x for x in re.split(r"[,\s]+", line) if re.match(r"sm_\d+[af]?$", x)]
    if names and names[-1] in TARGET_MIN_VERSION:
        t = names[-1]
        return t if sm_number(t) >= 75 else "sm_75"
    return "sm_75"


# ---------------------------------------------------------------------------------------------
# Syntax variations
# ---------------------------------------------------------------------------------------------

def syntax_variant(line: str, rng: random.Random, f: Function, pf: PtxFile) -> list[str]:
    ins = Insn(strip_comment(line).rstrip() if "//" in line else line)
    ops = ", ".join(ins.ops)
    head = ins.op + "".join(ins.mods)
    g = ins.guard + " " if ins.guard else ""
    ind = ins.indent
    r = rng.randrange(16)
    if r == 0:
        return [f"{ind}{g}{head}   {'  ,  '.join(ins.ops)}  ;  "]
    if r == 1:
        return [f"{ind}{g}{head} /* c */ {' /* x */, '.join(ins.ops)} /* y */;"]
    if r == 2:
        # split over lines
        return [f"{ind}{g}{head}"] + [f"{ind}\t{o}," for o in ins.ops[:-1]] + [f"{ind}\t{ins.ops[-1]};"] if ins.ops else [f"{ind}{g}{head};"]
    if r == 3:
        return [f"{ind}{g}{head}\t{ops}; // trailing comment"]
    if r == 4:
        # upper case somewhere
        choice = rng.randrange(4)
        if choice == 0:
            head2 = head.upper()
        elif choice == 1:
            mods = list(ins.mods)
            if mods:
                k = rng.randrange(len(mods))
                mods[k] = mods[k].upper()
            head2 = ins.op + "".join(mods)
        elif choice == 2:
            head2 = ins.op.upper() + "".join(ins.mods)
        else:
            return [f"{ind}{g}{head}\t{ops.upper()};"]
        return [f"{ind}{g}{head2}\t{ops};"]
    if r == 5:
        return [f"{ind}{{ {g}{head}\t{ops}; }}"]
    if r == 6:
        return [f"{ind}{{", f"{ind}{g}{head}\t{ops};", f"{ind}}}"]
    if r == 7:
        # comment between modifiers / spaces between modifiers
        mods = list(ins.mods)
        if mods:
            k = rng.randrange(len(mods))
            mods[k] = rng.choice(["/*c*/", " ", "\t", " /* c */ "]) + mods[k]
        return [f"{ind}{g}{ins.op}{''.join(mods)}\t{ops};"]
    if r == 8:
        mods = list(ins.mods)
        if mods:
            k = rng.randrange(len(mods))
            mods[k] = "." + rng.choice([" ", "/*c*/", "\t"]) + mods[k][1:]
        return [f"{ind}{g}{ins.op}{''.join(mods)}\t{ops};"]
    if r == 9:
        # guard spacing
        if ins.guard:
            return [f"{ind}{ins.guard.replace('@', '@ ')} {head}\t{ops};"]
        return [f"{ind}{g}{head}\t{ops.replace(', ', ',')};"]
    if r == 10:
        # two statements on one line with the previous
        return [f"{ind}{g}{head}\t{ops}; {g}{head}\t{ops};"]
    if r == 11:
        # missing semicolon
        return [f"{ind}{g}{head}\t{ops}"]
    if r == 12:
        # a block comment across the line break
        return [f"{ind}{g}{head} /* start", f"{ind} end */ {ops};"]
    if r == 13:
        # line continuation style / backslash
        return [f"{ind}{g}{head}\t\\", f"{ind}\t{ops};"]
    if r == 14:
        # CRLF line ending
        return [f"{ind}{g}{head}\t{ops};\r"]
    # address spacing variants
    ops2 = [re.sub(r"\[\s*(\S+?)\s*\+\s*(\S+?)\s*\]", lambda m: f"[{m.group(1)} + {m.group(2)}]", o)
            .replace("[", "[ ").replace("]", " ]") for o in ins.ops]
    return [f"{ind}{g}{head}\t{', '.join(ops2)};"]


def move_to_func(pf: PtxFile, f: Function, line: int, rng: random.Random) -> list[list]:
    """Moves an instruction into a new device function (declared before the kernel) that has
    its own copies of the kernel's register declarations; the kernel calls it."""
    decls = []
    for i in range(f.open + 1, f.end):
        s = strip_comment(pf.lines[i]).strip()
        # the function's own registers (not those of inline-asm blocks, which use plain names)
        if s.startswith(".reg") and "%" in s:
            decls.append(pf.lines[i])
    name = "mut_fn"
    kind = rng.choice([".func", ".func", ".visible .func", ".entry", ".visible .entry"])
    params = rng.choice(["", "(.param .b64 mut_fn_p)", "(.param .u32 mut_fn_p, .param .u64 mut_fn_q)"])
    if kind.endswith(".func") and rng.random() < 0.3:
        header = f"{kind} (.param .b32 mut_fn_r) {name}{params}"
    else:
        header = f"{kind} {name}{params}"
    body = [header, "{"] + decls + [pf.lines[line], "\tret;", "}", ""]
    edits = [[f.start, 0, body]]
    if rng.random() < 0.5 and kind.endswith(".func") and not params and "mut_fn_r" not in header:
        # keep a call so the function is used
        edits.append([line, 1, ["\t{", "\tcall.uni " + name + ";", "\t}"]])
    else:
        edits.append([line, 1, []])
    return edits


# ---------------------------------------------------------------------------------------------
# Directive-level cases (synthetic or on real files)
# ---------------------------------------------------------------------------------------------

ODD_TARGETS = ["sm_30", "sm_35", "sm_37", "sm_20", "sm_10", "sm_11", "sm_12", "sm_13", "sm_21",
               "sm_32", "sm_40", "sm_51", "sm_71", "sm_91", "sm_75a", "sm_80a", "sm_90f", "sm_101",
               "sm_101a", "sm_122", "sm_130", "sm_1000", "sm_8", "compute_80", "SM_80", "sm80",
               "sm_80 ", "sm_86a", "sm_89a", "sm_100a", "sm_100f", "sm_103f", "sm_110f",
               "sm_120f", "sm_121a", "sm_90a", "sm_88", "sm_87", "sm_72", "sm_62"]
TARGET_SUFFIXES = [", texmode_independent", ", texmode_unified", ", debug", ", map_f64_to_f32",
                   ", sm_80", ", sm_100a", ", sm_75", ", sm_50", ", sm_120f", ", sm_30",
                   ", debug, texmode_independent", ",debug", ", sm_90", ", foo", " debug"]
ODD_VERSIONS = ["6.6", "7.9", "8.9", "9.6", "10.0", "1.0", "2.0", "3.0", "4.0", "5.0", "4.3",
                "8.10", "08.0", "8", "8.0.0", "9.05", "7.10", "6.00", "5.1", "5.2", "1.5", "1.50",
                "6.15", "7.04", "6.14", "7.010", "0.9", "9.10", "2.3", "3.2"]


def directive_edits(pf: PtxFile, rng: random.Random) -> tuple[list[list], str]:
    r = rng.randrange(14)
    vl, tl, al = pf.version_line, pf.target_line, pf.addr_line
    t = current_target(pf.text)
    if r == 0:
        return [[vl, 1, []]], "no_version"
    if r == 1:
        return [[tl, 1, []]], "no_target"
    if r == 2:
        return [[al, 1, []]], "no_address_size"
    if r == 3:
        return [[al, 1, [".address_size 32"]]], "address_size_32"
    if r == 4:
        return [[tl, 1, [f".target {t}{rng.choice(TARGET_SUFFIXES)}"]]], "target_suffix"
    if r == 5:
        nt = rng.choice(ODD_TARGETS)
        edits = [[tl, 1, [f".target {nt}"]]]
        if nt in TARGET_MIN_VERSION and rng.random() < 0.5:
            edits.append([vl, 1, [f".version {rng.choice(version_choices(pf.text, nt))}"]])
        return edits, "odd_target"
    if r == 6:
        return [[vl, 1, [f".version {rng.choice(ODD_VERSIONS)}"]]], "odd_version"
    if r == 7:
        # swap .version and .target
        return [[vl, 1, [pf.lines[tl]]], [tl, 1, [pf.lines[vl]]]], "swapped"
    if r == 8:
        return [[tl, 1, [pf.lines[tl], pf.lines[tl]]]], "dup_target"
    if r == 9:
        return [[vl, 1, [pf.lines[vl], ".version 7.0"]]], "dup_version"
    if r == 10:
        return [[al, 1, [rng.choice([".address_size 16", ".address_size 128", ".address_size 64 ",
                                     ".address_size 0x40", ".address_size"])]]], "odd_address_size"
    if r == 11:
        return [[tl, 1, [f".target {t}", f".target {rng.choice(TARGETS)}"]]], "two_targets"
    if r == 12:
        return [[vl, 1, [pf.lines[vl].replace(".version", ".version  ").replace(" ", "\t", 1)]],
                [tl, 1, [pf.lines[tl] + " // comment"]]], "spacing"
    return [[al, 1, [pf.lines[al], ".address_size 64"]]], "dup_address_size"


SYNTH_HEADER = "{pre}.version {version}\n.target {target}\n{addr}\n"
SYNTH_BODY = """
.global .align 16 .b8 gbuf[1024];
.shared .align 16 .b8 sbuf[1024];

.visible .entry k(
	.param .u64 kp
)
{{
	.reg .pred %p<4>;
	.reg .b16 %rs<4>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [kp];
	cvta.to.global.u64 %rd2, %rd1;
	{insn}
	ret;
}}
"""


def synthetic_cases(rng: random.Random) -> list[dict]:
    """Small modules for directive-level behaviour: a cache-control instruction under every
    combination of odd `.version`/`.target`/`.address_size` headers."""
    insns = [
        "ld.global.nc.L1::evict_last.L2::256B.u32 %r1, [%rd2];",
        "ld.global.L2::cache_hint.b32 %r1, [%rd2], %rd3;",
        "st.global.cs.v2.b32 [%rd2], {%r1, %r2};",
        "cp.async.cg.shared.global [sbuf], [%rd2], 16;",
        "cp.async.wait_all;",
        "createpolicy.fractional.L2::evict_last.b64 %rd3, 1.0;",
        "prefetch.global.L2::evict_last [%rd2];",
        "ld.global.u32 %r1, [%r2];",
        "ld.global.u32 %r1, [%rs1];",
        "st.shared.b32 [%r1], %r2;",
        "ld.relaxed.gpu.global.b32 %r1, [%rd2];",
        "ld.global.b32 %r1, [%rd2];",
    ]
    out = []
    pres = ["", "// comment\n", "\n\n", "/* block */\n", "//\n// Generated by NVIDIA NVVM Compiler\n//\n\n"]
    for i in range(420):
        insn = rng.choice(insns)
        r = rng.random()
        target = rng.choice(TARGETS)
        version = rng.choice(version_choices(insn, target) + [rng.choice(VERSIONS)])
        addr = ".address_size 64"
        how = "plain"
        if r < 0.15:
            target = rng.choice(ODD_TARGETS)
            how = "odd_target"
        elif r < 0.3:
            target = target + rng.choice(TARGET_SUFFIXES)
            how = "target_suffix"
        elif r < 0.42:
            addr = rng.choice([".address_size 32", "", ".address_size 16", ".address_size 64"])
            how = "address_size"
        elif r < 0.5:
            version = rng.choice(ODD_VERSIONS)
            how = "odd_version"
        text = SYNTH_HEADER.format(pre=rng.choice(pres), version=version, target=target,
                                   addr=addr) + SYNTH_BODY.format(insn=insn)
        if r > 0.92:
            # directives missing or reordered
            lines = text.split("\n")
            k = rng.randrange(3)
            vi = next(j for j, l in enumerate(lines) if l.startswith(".version"))
            ti = vi + 1
            if k == 0:
                del lines[vi]
                how = "no_version"
            elif k == 1:
                del lines[ti]
                how = "no_target"
            else:
                lines[vi], lines[ti] = lines[ti], lines[vi]
                how = "swapped"
            text = "\n".join(lines)
        out.append({"kind": "directive", "how": how, "base": None, "edits": None, "ptx": text})
    return out


# ---------------------------------------------------------------------------------------------
# The generator
# ---------------------------------------------------------------------------------------------

def corpus_files() -> list[str]:
    files = []
    for sub in ("nvcc", "triton"):
        for p in sorted((CORPUS / sub).glob("*.ptx")):
            files.append(f"{sub}/{p.name}")
    return files


def pick_insn(pf: PtxFile, f: Function, rng: random.Random) -> int:
    """A cache-control instruction line of `f`; kernel-parameter loads (most of every file) are
    drawn less often than the rest."""
    weights = [1 if re.search(r"\bld\.param", pf.lines[i]) else 5 for i in f.insns]
    return rng.choices(f.insns, weights=weights)[0]


def mutate_one(pf: PtxFile, f: Function, line: int, rng: random.Random, kind: str) -> list[str] | None:
    src = pf.lines[line]
    code = strip_comment(src).rstrip()
    try:
        ins = Insn(code)
    except AssertionError:
        return None
    if kind == "qual":
        new = mut_qual(ins, pf, f, rng)
    elif kind == "operand":
        new = mut_operand(ins, pf, f, rng)
    elif kind == "guard":
        new = mut_guard(ins, pf, f, rng)
    else:
        raise ValueError(kind)
    if new is None or new.strip() == code.strip():
        return None
    return new.split("\n")


def generate(per_file: int = 110) -> list[dict]:
    rng = random.Random(SEED)
    cases: list[dict] = []
    for rel in corpus_files():
        pf = load(rel)
        funcs = [f for f in pf.functions if f.insns]
        if not funcs or pf.target_line < 0 or pf.version_line < 0:
            continue
        big = len(pf.lines) > 250
        for _ in range(per_file):
            f = rng.choice(funcs)
            kind = rng.choices(["qual", "operand", "guard", "insert", "retarget", "multi",
                                "syntax", "directive", "move"],
                               weights=[30, 16, 6, 10, 12, 8, 10, 3, 2])[0]
            edits: list[list] = []
            how = kind
            if kind in ("qual", "operand", "guard"):
                line = pick_insn(pf, f, rng)
                new = mutate_one(pf, f, line, rng, kind)
                if new is None:
                    continue
                edits.append([line, 1, new])
            elif kind == "insert":
                got = mut_insert(pf, f, rng)
                if got is None:
                    continue
                edits.append([got[0], 0, [got[1]]])
            elif kind == "multi":
                lines = rng.sample(f.insns, min(len(f.insns), rng.randint(2, 4)))
                for line in lines:
                    k = rng.choice(["qual", "qual", "operand", "guard"])
                    new = mutate_one(pf, f, line, rng, k)
                    if new is not None:
                        edits.append([line, 1, new])
                if len(edits) < 2:
                    continue
            elif kind == "retarget":
                if rng.random() < 0.5:
                    line = pick_insn(pf, f, rng)
                    new = mutate_one(pf, f, line, rng, rng.choice(["qual", "operand"]))
                    if new is not None:
                        edits.append([line, 1, new])
                text = apply_edits(pf.lines, edits)
                e, _, _ = retarget_edits(pf, text, rng)
                edits += e
            elif kind == "syntax":
                line = pick_insn(pf, f, rng)
                try:
                    new = syntax_variant(pf.lines[line], rng, f, pf)
                except AssertionError:
                    continue
                edits.append([line, 1, new])
            elif kind == "directive":
                e, how = directive_edits(pf, rng)
                if any(x[0] < 0 for x in e):
                    continue
                edits += e
                how = "directive:" + how
            elif kind == "move":
                line = pick_insn(pf, f, rng)
                edits += move_to_func(pf, f, line, rng)
                kind = "syntax"
                how = "move_to_func"
            if big and kind != "directive" and rng.random() < 0.85:
                touched = {e[0] for e in edits}
                red = [r for r in pf.reduce_edits(f)
                       if not any(r[0] <= t < r[0] + r[1] for t in touched)]
                edits += red
            cases.append({"kind": kind, "how": how, "base": rel, "edits": edits, "ptx": None})
    cases += synthetic_cases(rng)
    # dedupe by module text, then number
    seen = set()
    out = []
    for c in cases:
        text = materialize(c)
        if text in seen:
            continue
        seen.add(text)
        c["arch"] = ptxas_arch(text)
        out.append(c)
    for i, c in enumerate(out):
        c["id"] = "mut-%05d" % i
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out")
    ap.add_argument("--stats", action="store_true")
    ap.add_argument("--per-file", type=int, default=110)
    args = ap.parse_args()
    cases = generate(args.per_file)
    if args.stats:
        print(len(cases), "cases")
        print(Counter(c["kind"] for c in cases))
        sizes = [len(materialize(c)) for c in cases]
        print("total bytes", sum(sizes), "max", max(sizes))
    if args.out:
        with open(args.out, "w") as fh:
            for c in cases:
                fh.write(json.dumps(c, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
