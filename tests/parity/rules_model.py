#!/usr/bin/env python3
"""An executable reading of docs/ptxas-rules.md, used to check that document against the
golden ptxas verdicts (it is not the validator, and nothing depends on it).

For every golden case it recomputes, from the rules as written in the document, the messages
ptxas should print for the instruction line, and reports how often the verdict
(accept/reject) and the exact message list agree with ptxas. Disagreements point at rules the
document misses or states wrongly.

Usage:  rules_model.py [--family ld] [--show N] [--golden golden.jsonl]
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import struct
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent

# ------------------------------------------------------------------------------------------
# Module environment (the corpus template, gen_cases.TEMPLATES)
# ------------------------------------------------------------------------------------------
REG_PREFIX = {"p": "pred", "rs": "b16", "r": "b32", "rd": "b64", "f": "f32", "fd": "f64",
              "us": "u16", "ss": "s16", "u": "u32", "s": "s32", "ul": "u64", "sl": "s64",
              "h": "f16", "b": "b8", "rq": "b128"}
REG_COUNT = {"p": 4, "rs": 10, "r": 10, "rd": 10, "f": 10, "fd": 10, "us": 4, "ss": 4, "u": 4,
             "s": 4, "ul": 4, "sl": 4, "h": 4, "b": 4, "rq": 4}


def reg_type(name: str, env: dict) -> str | None:
    m = re.fullmatch(r"%([a-z]+)(\d+)", name)
    if not m or m.group(1) not in REG_PREFIX:
        return None
    p, i = m.group(1), int(m.group(2))
    if i >= REG_COUNT[p]:
        return None
    if p == "rq" and not env["b128"]:
        return None
    return REG_PREFIX[p]


PARAM_SIZES = {"kp": (".u64", 8), "pa": (".b32", 4), "pb": (".b64", 8), "pr": (".b32", 4),
               "fa": (".b32", 4), "fb": (".b64", 8), "fr": (".b32", 4)}


def variables(context: str) -> dict:
    v = {"gbuf": "global", "cbuf": "const", "sbuf": "shared", "fn": "func", "k": "func"}
    if context in ("entry", "after_call"):
        v.update({"lbuf": "local", "kp": "param_kernel", "pa": "param_arg", "pb": "param_arg",
                  "pr": "param_ret"})
    else:
        v.update({"lbuf": "local", "fa": "param_in", "fb": "param_in", "fr": "param_out"})
    return v


def bits_of(t: str) -> int:
    m = re.search(r"(\d+)$", t)
    return int(m.group(1)) if m else 0


def vkey(v: str) -> tuple[int, int]:
    a, b = v.split(".")
    return int(a), int(b)


def sm(t: str) -> int:
    return int(re.match(r"sm_(\d+)", t).group(1))



# ------------------------------------------------------------------------------------------
# Message classes and the check order of docs/ptxas-rules.md §12
# ------------------------------------------------------------------------------------------
SEM={"weak","volatile","relaxed","acquire","release","mmio"}
COP={"ca","cg","cs","lu","cv","wb","wt"}
SCOPE={"cta","cluster","gpu","sys"}
L1={"evict_normal","evict_unchanged","evict_first","evict_last","no_allocate"}
def cat(mod):
    m=mod.lstrip(".")
    if m in SEM: return "SEM:"+m if m in ("mmio","volatile","weak") else "ORDER"
    if m in COP: return "COP"
    if m in SCOPE: return "SCOPE"
    if m in L1: return "EVICT"
    if m.startswith("L2::evict") or m=="L2::no_allocate": return "L2EVICT"
    if m in ("L2::64B","L2::128B","L2::256B"): return "PF"
    if m=="L2::cache_hint": return "HINT"
    if m=="nc": return "NC"
    if re.match(r"v\d+$",m): return "VEC"
    if m.startswith("::") : return "SUBSPACE"
    return "MOD("+m+")"
RULES=[
 (r"^Unknown modifier '(.*)'$", lambda g: "Unknown modifier"),
 (r"^Feature '(.*)' requires \.target (sm_\w+) or higher$", lambda g: f"FeatTgt[{g[0]}]"),
 (r"^Feature '(.*)' requires PTX ISA \.version (\S+) or later$", lambda g: f"FeatVer[{g[0]}]"),
 (r"^Modifier '(.*)' on '(.*)' requires \.target (sm_\w+) or higher$", lambda g: f"ModOnTgt[{cat(g[0])}]"),
 (r"^Modifier '(.*)' on '(.*)' requires PTX ISA \.version (\S+) or later$", lambda g: f"ModOnVer[{cat(g[0])}]"),
 (r"^Modifier '(.*)' requires \.target (sm_\w+) or higher$", lambda g: f"ModTgt[{g[0]}]"),
 (r"^Modifier '(.*)' requires PTX ISA \.version (\S+) or later$", lambda g: f"ModVer[{g[0]}]"),
 (r"^Modifier '(.*)' cannot be combined with modifier '(.*)'$", lambda g: f"Combine[{cat(g[0])}+{cat(g[1])}]"),
 (r"^Modifier '(.*)' cannot be applied to '(.*)' space for instruction '(.*)'$", lambda g: f"SpaceFor[{cat(g[0])}]"),
 (r"^Modifier '(.*)' cannot be applied to '(.*)' space$", lambda g: f"Space[{cat(g[0])}]"),
 (r"^Modifier '(.*)' requires scope with '(.*)' instruction$", lambda g: f"NeedScope[{g[0]}]"),
 (r"^Modifier '(.*)' requires memory order with '(.*)' instruction$", lambda g: "NeedOrder"),
 (r"^Modifier '(.*)' requires modifier '(.*)' for instruction '(.*)'$", lambda g: "MmioNeedsOrder"),
 (r"^Illegal modifier '(.*)' for instruction '(.*)'$", lambda g: f"Illegal[{cat(g[0])}]"),
 (r"^Duplicate \.(\w+) modifier$", lambda g: "DupSem"),
 (r"^Instruction '(.*)' requires '(.*)' type with '(.*)' modifier\.$", lambda g: "L2EvictNeedsVec"),
 (r"^Argument (\d+) of instruction '(.*)': unexpected value '(.*)', expected to be (.*)$", lambda g: f"ArgValue[{g[0]}]"),
 (r"^Argument (\d+) of instruction '(.*)': value '(.*)' out of range, expected to be in range (.*)$", lambda g: f"ArgRange[{g[0]}]"),
]
def classify(text):
    for pat,f in RULES:
        m=re.match(pat,text)
        if m: return f(m.groups())
    t=re.sub(r"'[^']*'","'X'",text)
    t=re.sub(r"\b\d+\b","N",t)
    return t


ORDERS = {'ld': ['Predicate expression expected', "Unexpected number of 'X' modifiers specified", "Illegal expression 'X'", 'Unable to infer type of vector elements (assuming .b8)', 'Incompatible elements of vector expression', 'Illegal vector size: N', "Not a name of any known instruction: 'X'", 'FeatTgt[.bf16]', 'FeatVer[.bf16]', 'FeatVer[256 bit wide load/store]', 'FeatTgt[256 bit wide load/store]', 'Illegal operand type for address/array-index', 'Array indexing on non-array', "State space incorrect for instruction 'X'", "Unexpected instruction types specified for 'X'", "global state space expected for feature 'X'", "Unexpected number of state spaces specified in instruction 'X'", 'FeatVer[::cluster]', 'FeatTgt[::cluster]', 'FeatVer[::cta]', 'FeatVer[::entry]', 'FeatVer[::func]', 'Illegal[SUBSPACE]', 'FeatTgt[cache prefetching]', 'FeatVer[cache prefetching]', "Illegal state space for address operand 'X' with instruction 'X'", 'ModTgt[.L2::256B]', 'FeatVer[256B cache prefetching]', 'Combine[PF+SEM:mmio]', "Potential out of bound access while accessing symbol 'X' of type 'X' with instruction type 'X'.", "State space incorrect for feature 'X'", "Duplicate 'X' modifier specified for instruction 'X'", 'ModOnVer[EVICT]', 'ModOnTgt[EVICT]', 'SpaceFor[EVICT]', 'Combine[EVICT+COP]', 'Combine[EVICT+SEM:mmio]', 'Combine[EVICT+SEM:volatile]', "'X' syntax expected for instruction 'X'", "Incorrect 'X' modifier specified for instruction 'X'", 'L2EvictNeedsVec', 'Illegal[L2EVICT]', "Illegal to use symbol 'X' of type .f32 as address operand. Use integer or bit only.", "Illegal to use symbol 'X' of type .f64 as address operand. Use integer or bit only.", "Illegal to use symbol 'X' of type .pred as address operand. Use integer or bit only.", "Illegal to use symbol 'X' of type unexpected as address operand. Use integer or bit only.", "Illegal operand type to instruction 'X'", 'Immediate addresses allowed only for .local state space', "Result discard mode is not allowed for instruction 'X'", "Illegal to write to function input parameter 'X'", "Illegal to read function return parameter 'X'", "State space mismatch between instruction and address in instruction 'X'", "Illegal use of attribute 'X' for instruction 'X'", "Result register required for instruction 'X'", 'Result vector expected', 'Combine[SEM:weak+NC]', 'Combine[SEM:volatile+COP]', 'Combine[SEM:volatile+NC]', 'FeatVer[ld/st with .local.volatile]', 'Space[SEM:volatile]', 'Vector type too large, exceeds N bit limit', "Sink 'X' not allowed as a source operand", 'Combine[ORDER+COP]', 'Combine[ORDER+NC]', 'FeatTgt[.weak]#2', 'FeatTgt[.acquire]', 'FeatTgt[.relaxed]', 'FeatTgt[.release]', 'Combine[SEM:mmio+VEC]', 'FeatVer[Instruction type .b128 for instruction ld]', 'FeatVer[Instruction type .b128 for instruction st]', 'Space[ORDER]', 'Illegal[ORDER]', 'FeatTgt[Instruction type .b128 for instruction ld]', 'FeatTgt[Instruction type .b128 for instruction st]', 'FeatVer[.b128 with .sys]', 'NeedScope[.acquire]', 'NeedScope[.relaxed]', 'NeedScope[.release]', 'Space[SEM:mmio]', 'FeatVer[.acquire]', 'FeatVer[.release]', 'FeatTgt[.cluster scope]', 'FeatVer[.cluster scope]', 'MmioNeedsOrder', 'Combine[SEM:mmio+SCOPE]', 'Combine[SEM:volatile+SCOPE]', 'Combine[SEM:weak+SCOPE]', 'NeedOrder', 'NeedScope[.mmio]', "Modifier 'X' requires .global space", "Illegal cache operation for instruction 'X'", 'ModTgt[.L2::cache_hint]', 'ModVer[.L2::cache_hint]', 'Combine[HINT+SEM:volatile]', ".L2::cache_hint modifier required for instruction 'X' with N arguments", "Arguments mismatch for instruction 'X'", 'Illegal[NC]', 'Illegal[PF]', "Illegal to predicate instruction 'X' with operand 'X'", 'Illegal[COP]', "Argument N of instruction 'X': must be register", 'Combine[HINT+SEM:mmio]', 'SpaceFor[HINT]', "Unknown symbol 'X'"],
    'st': ['Predicate expression expected', "Unexpected number of 'X' modifiers specified", "Illegal expression 'X'", 'Unable to infer type of vector elements (assuming .b8)', 'Incompatible elements of vector expression', 'Illegal vector size: N', "Not a name of any known instruction: 'X'", 'FeatTgt[.bf16]', 'FeatVer[.bf16]', 'FeatVer[256 bit wide load/store]', 'FeatTgt[256 bit wide load/store]', 'Illegal operand type for address/array-index', 'Array indexing on non-array', "Unexpected instruction types specified for 'X'", "global state space expected for feature 'X'", "Unexpected number of state spaces specified in instruction 'X'", "State space incorrect for instruction 'X'", 'FeatVer[::cluster]', 'FeatTgt[::cluster]', 'FeatVer[::cta]', 'FeatVer[::entry]', 'FeatVer[::func]', 'Illegal[SUBSPACE]', 'FeatTgt[cache prefetching]', 'FeatVer[cache prefetching]', "Illegal state space for address operand 'X' with instruction 'X'", 'ModTgt[.L2::256B]', 'FeatVer[256B cache prefetching]', 'Combine[PF+SEM:mmio]', "State space incorrect for feature 'X'", "Duplicate 'X' modifier specified for instruction 'X'", 'ModOnVer[EVICT]', 'ModOnTgt[EVICT]', 'SpaceFor[EVICT]', 'Combine[EVICT+COP]', 'Combine[EVICT+SEM:mmio]', 'Combine[EVICT+SEM:volatile]', "Potential out of bound access while accessing symbol 'X' of type 'X' with instruction type 'X'.", "'X' syntax expected for instruction 'X'", "Incorrect 'X' modifier specified for instruction 'X'", 'L2EvictNeedsVec', 'Illegal[L2EVICT]', "Illegal to use symbol 'X' of type .f32 as address operand. Use integer or bit only.", "Illegal to use symbol 'X' of type .f64 as address operand. Use integer or bit only.", "Illegal to use symbol 'X' of type .pred as address operand. Use integer or bit only.", "Illegal to use symbol 'X' of type unexpected as address operand. Use integer or bit only.", "Illegal operand type to instruction 'X'", 'Immediate addresses allowed only for .local state space', "Result discard mode is not allowed for instruction 'X'", "Illegal to write to function input parameter 'X'", "Illegal to read function return parameter 'X'", "State space mismatch between instruction and address in instruction 'X'", "Illegal use of attribute 'X' for instruction 'X'", "Result register required for instruction 'X'", 'Result vector expected', "Sink 'X' not allowed as a source operand", 'Combine[SEM:weak+NC]', 'Combine[SEM:volatile+COP]', 'Combine[SEM:volatile+NC]', 'FeatVer[ld/st with .local.volatile]', 'Space[SEM:volatile]', 'Vector type too large, exceeds N bit limit', 'Combine[ORDER+COP]', 'Combine[ORDER+NC]', 'FeatTgt[.weak]#2', 'FeatTgt[.acquire]', 'FeatTgt[.relaxed]', 'FeatTgt[.release]', 'FeatVer[Instruction type .b128 for instruction ld]', 'FeatVer[Instruction type .b128 for instruction st]', 'Space[ORDER]', 'Illegal[ORDER]', 'FeatTgt[Instruction type .b128 for instruction ld]', 'FeatTgt[Instruction type .b128 for instruction st]', 'FeatVer[.b128 with .sys]', 'NeedScope[.acquire]', 'NeedScope[.relaxed]', 'NeedScope[.release]', 'Space[SEM:mmio]', 'Combine[SEM:mmio+VEC]', 'FeatVer[.acquire]', 'FeatVer[.release]', 'FeatTgt[.cluster scope]', 'FeatVer[.cluster scope]', 'MmioNeedsOrder', 'Combine[SEM:mmio+SCOPE]', 'Combine[SEM:volatile+SCOPE]', 'Combine[SEM:weak+SCOPE]', 'NeedOrder', 'NeedScope[.mmio]', "Modifier 'X' requires .global space", "Illegal cache operation for instruction 'X'", 'Illegal[NC]', ".L2::cache_hint modifier required for instruction 'X' with N arguments", "Arguments mismatch for instruction 'X'", 'Illegal[PF]', "Illegal to predicate instruction 'X' with operand 'X'", 'Illegal[COP]', 'ModTgt[.L2::cache_hint]', 'ModVer[.L2::cache_hint]', "Argument N of instruction 'X': must be register", 'Combine[HINT+SEM:volatile]', 'Combine[HINT+SEM:mmio]', 'SpaceFor[HINT]', "Unknown symbol 'X'"],
    'cp.async': ['FeatVer[cp.async]', 'FeatTgt[cp.async]', ".L2::cache_hint modifier required for instruction 'X' with N arguments", 'ArgValue[2]', 'ArgRange[3]', "Arguments mismatch for instruction 'X'", 'FeatVer[igonre-src on cp.async]', "Illegal to use symbol 'X' of type .f64 as address operand. Use integer or bit only.", 'Illegal[MOD(level::eviction_priority)]', 'Illegal[MOD(sync)]', 'Illegal[SUBSPACE]', "Not a name of any known instruction: 'X'", "State space incorrect for instruction 'X'", "Unexpected instruction types specified for 'X'", "Unexpected number of state spaces specified in instruction 'X'", 'FeatTgt[cache prefetching]', 'FeatVer[cache prefetching]', 'ModTgt[.L2::256B]', 'FeatVer[256B cache prefetching]', 'Illegal[EVICT]', "Vector qualifier is not allowed for instruction 'X'", "Illegal to use symbol 'X' of type .f32 as address operand. Use integer or bit only.", 'Immediate addresses allowed only for .local state space', "State space mismatch between instruction and address in instruction 'X'", "'X' modifier required for instruction 'X'", 'Illegal[COP]', 'ModTgt[.L2::cache_hint]', 'ModVer[.L2::cache_hint]', 'SpaceFor[HINT]'],
    'createpolicy': ['FeatTgt[createpolicy.cvt]', 'FeatTgt[createpolicy.range]', "Argument N of instruction 'X': value 'X' must be less than or equal to the value 'X' of argument N", 'FeatVer[createpolicy.cvt]', 'FeatVer[createpolicy.range]', 'Illegal[MOD(L1)]', 'Illegal[MOD(level::eviction_priority)]', 'Illegal[EVICT]', "Not a name of any known instruction: 'X'", 'Predicate expression expected', "State space incorrect for instruction 'X'", "State space mismatch between instruction and address in instruction 'X'", "Unexpected number of 'X' modifiers specified", "Arguments mismatch for instruction 'X'", 'FeatTgt[createpolicy.fractional]', 'FeatVer[createpolicy.fractional]', 'Illegal[HINT]', "Unexpected instruction types specified for 'X'", "Unexpected number of state spaces specified in instruction 'X'", "cache eviction priority modifier required for instruction 'X'", ".L2 modifier required for instruction 'X'", 'ArgRange[2]', "No state space qualifier expected for instruction 'X'", "Unsupported modifier 'X' as primary_priority for instruction 'X'", "Unsupported modifier 'X' as secondary_priority for instruction 'X'", "Modifier 'X' requires cache level L2 with 'X' instruction", 'ModOnVer[L2EVICT]', 'ModOnTgt[L2EVICT]', "'X' syntax expected for instruction 'X'", 'Immediate addresses allowed only for .local state space', "Vector qualifier is not allowed for instruction 'X'", "Result register required for instruction 'X'"],
    'prefetch': ["Arguments mismatch for instruction 'X'", "Illegal use of attribute 'X' for instruction 'X'", 'Illegal[HINT]', 'Illegal[MOD(level::eviction_priority)]', 'SpaceFor[MOD(tensormap)]', 'ModTgt[.tensormap]', 'ModVer[.tensormap]', "Unexpected instruction types specified for 'X'", "Unexpected number of 'X' modifiers specified", "Unexpected number of state spaces specified in instruction 'X'", "State space incorrect for instruction 'X'", 'Illegal[PF]', 'ModOnVer[MOD(cache eviction priority)]', 'ModOnTgt[MOD(cache eviction priority)]', 'Illegal[EVICT]', 'Illegal[MOD(L1)]', 'Illegal[MOD(L2)]', 'Illegal[MOD(tensormap)]', "Modifier 'X' requires cache level L2 with 'X' instruction", "State space incorrect for feature 'X'", "Vector qualifier is not allowed for instruction 'X'", "Illegal to use symbol 'X' of type .f32 as address operand. Use integer or bit only.", 'Immediate addresses allowed only for .local state space', "State space mismatch between instruction and address in instruction 'X'", 'Illegal[COP]', 'Non-generic address is not supported as operand for prefetchu instruction', "Cache level modifier required for instruction 'X'"],
    'cp.async.mbarrier': ["Arguments mismatch for instruction 'X'", 'FeatVer[cp.async.mbarrier.arrive]', 'FeatTgt[cp.async.mbarrier.arrive]', 'FeatVer[::cta]', "Illegal reduction operation for instruction 'X'", 'Illegal[SCOPE]', 'Illegal[ORDER]', 'Illegal[SUBSPACE]', 'FeatTgt[::cluster]', 'ModTgt[.wait]', 'ModVer[.wait]', "State space incorrect for instruction 'X'", "State space mismatch between instruction and address in instruction 'X'", "Unexpected instruction types specified for 'X'"],
    'cp.async.group': ['FeatTgt[cp.async.bulk.commit_group]', 'FeatTgt[cp.async.commit_group]', 'FeatTgt[cp.async.wait_all]', 'FeatVer[cp.async.bulk.commit_group]', 'FeatVer[cp.async.wait_group]', 'FeatTgt[cp.async.wait_group]', 'ModTgt[.read]', 'ModTgt[.wait]', 'ModVer[.read]', 'FeatTgt[cp.async.bulk.wait_group]', 'FeatVer[cp.async.bulk.wait_group]', 'ModVer[.wait]', "Arguments mismatch for instruction 'X'", "Unexpected instruction types specified for 'X'", "Unknown symbol 'X'"]}


class Msgs:
    """Collects messages with an ordering key: scan-stage messages keep text order, the
    others are sorted by the rank of their check in the family's order list (§12)."""

    def __init__(self, order: list[str]):
        self.rank = {k: i for i, k in enumerate(order)}
        self.items: list[tuple[int, int, int, str]] = []
        self.seq = 0

    def scan(self, text: str, pos: int):
        self.items.append((-1, pos, self.seq, text))
        self.seq += 1

    def add(self, key: str, text: str):
        k = key[1:] if key.startswith("#") else classify(text)
        if k not in self.rank:
            raise KeyError(f"{k!r} (from {text!r}) has no place in the order list")
        self.items.append((self.rank[k], 0, self.seq, text))
        self.seq += 1

    def first(self, text: str):
        self.items.append((-2, 0, self.seq, text))
        self.seq += 1

    def result(self) -> list[str]:
        return [t for _, _, _, t in sorted(self.items)]


def feat(m: Msgs, key: str, name: str, tgt, ver, env, order="tv", kind="Feature",
         on: str | None = None):
    """A feature gate: target and/or version messages in the given order (§3)."""
    who = f"{kind} '{name}'" + (f" on '{on}'" if on else "")
    out = []
    if tgt is not None and sm(env["target"]) < tgt:
        out.append(("T", f"{who} requires .target sm_{tgt} or higher"))
    if ver is not None and vkey(env["version"]) < vkey(ver):
        out.append(("V", f"{who} requires PTX ISA .version {ver} or later"))
    if order == "vt":
        out.sort(key=lambda x: 0 if x[0] == "V" else 1)
    for tv, text in out:
        m.add(key + ("T" if tv == "T" else "V"), text)


# ------------------------------------------------------------------------------------------
# Instruction text
# ------------------------------------------------------------------------------------------
def split_operands(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_insn(insn: str):
    s = insn.strip()
    guard = None
    m = re.match(r"@(!?)(\S+)\s+", s)
    if m:
        guard = m.group(2)
        s = s[m.end():]
    s = s.rstrip()
    if s.endswith(";"):
        s = s[:-1]
    parts = s.split(None, 1)
    head = parts[0]
    ops = split_operands(parts[1]) if len(parts) > 1 else []
    toks = head.split(".")
    return guard, toks[0], toks[1:], ops


# ------------------------------------------------------------------------------------------
# ld / st (docs/ptxas-rules.md §4-§7)
# ------------------------------------------------------------------------------------------
SEMS = {"weak", "volatile", "relaxed", "acquire", "release"}
SCOPES = {"cta", "cluster", "gpu", "sys"}
SPACES = {"global", "shared", "shared::cta", "shared::cluster", "local", "const", "param",
          "param::entry", "param::func", "tex"}
COPS = {"ca", "cg", "cs", "lu", "cv", "wb", "wt"}
L1S = {"L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last",
       "L1::no_allocate"}
L2S = {"L2::evict_normal", "L2::evict_first", "L2::evict_last", "L2::evict_unchanged",
       "L2::no_allocate"}
BARE = {"evict_normal", "evict_unchanged", "evict_first", "evict_last", "no_allocate"}
PFS = {"L2::64B", "L2::128B", "L2::256B"}
VECS = {"v2": 2, "v4": 4, "v8": 8}
LDST_TYPES = {"b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32",
              "s64", "f32", "f64"}
ALT_TYPES = {"bf16", "bf16x2", "tf32"}
OTHER_TYPES = {"f16", "bf16", "f16x2", "bf16x2", "pred", "tf32", "e4m3", "e5m2"}


def reg_ok_for_type(t: str, r: str) -> bool:
    """§7.1"""
    if r == "pred":
        return False
    tk, rk, tb, rb = t[0], r[0], bits_of(t), bits_of(r)
    if tk == "b":
        return rb >= tb
    if tk in "us":
        return rk in "bus" and rb >= tb
    return (rk == "f" and rb == tb) or (rk == "b" and rb >= tb)


def imm_kind(x: str):
    if re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)[uU]?", x):
        return "int"
    if re.fullmatch(r"0[fF][0-9a-fA-F]{8}", x):
        return "f32"
    if re.fullmatch(r"0[dD][0-9a-fA-F]{16}", x):
        return "f64"
    if re.fullmatch(r"-?\d+\.\d*([eE][-+]?\d+)?|-?\d+[eE][-+]?\d+", x):
        return "f64"
    return None


def imm_ok_for_type(t: str, k: str) -> bool:
    """§7.2 (st sources; for ld the same test decides 'Result register required')."""
    if k == "int":
        return t[0] in "bus"
    if t[0] == "f":
        return True
    return t[0] == "b" and bits_of(t) == (32 if k == "f32" else 64)


def _move(lst, item, before):
    lst.remove(item)
    lst.insert(lst.index(before), item)


# refinements found on the holdout set (§12.1)
_move(ORDERS["ld"], "Result discard mode is not allowed for instruction 'X'",
      "Illegal to use symbol 'X' of type .f32 as address operand. Use integer or bit only.")
_move(ORDERS["ld"], "FeatTgt[Instruction type .b128 for instruction ld]", "NeedScope[.mmio]")
_move(ORDERS["ld"], "global state space expected for feature 'X'", "State space incorrect for instruction 'X'")
# st parses the address (operand 0) before the source vector (operand 1)
_move(ORDERS["st"], "Illegal operand type for address/array-index", "Illegal expression 'X'")
_move(ORDERS["st"], "Array indexing on non-array", "Illegal expression 'X'")
for _f in ("ld", "st"):
    for _k in ("FeatVer[Instruction type .b128 for instruction ld]",
               "FeatVer[Instruction type .b128 for instruction st]",
               "FeatTgt[Instruction type .b128 for instruction ld]",
               "FeatTgt[Instruction type .b128 for instruction st]", "FeatVer[.b128 with .sys]"):
        _move(ORDERS[_f], _k, "Modifier 'X' requires .global space")
_move(ORDERS["ld"], "Potential out of bound access while accessing symbol 'X' of type 'X' with instruction type 'X'.",
      "Illegal to write to function input parameter 'X'")
_move(ORDERS["ld"], "Combine[SEM:mmio+VEC]", "FeatVer[.acquire]")
ORDERS["st"].remove("Argument N of instruction 'X': must be register")
ORDERS["st"].insert(ORDERS["st"].index("Unknown symbol 'X'"), "Argument N of instruction 'X': must be register")
_move(ORDERS["ld"], "Illegal operand type for address/array-index", "FeatVer[256 bit wide load/store]")
_move(ORDERS["ld"], "Array indexing on non-array", "FeatVer[256 bit wide load/store]")
for _k in ("FeatVer[Instruction type .b128 for instruction ld]",
           "FeatVer[Instruction type .b128 for instruction st]",
           "FeatTgt[Instruction type .b128 for instruction ld]",
           "FeatTgt[Instruction type .b128 for instruction st]", "FeatVer[.b128 with .sys]"):
    _move(ORDERS["st"], _k, "Illegal[PF]")
for _k in ("ModTgt[.L2::cache_hint]", "ModVer[.L2::cache_hint]", "Combine[HINT+SEM:volatile]"):
    _move(ORDERS["ld"], _k, "Argument N of instruction 'X': must be register")
ORDERS["ld"].insert(ORDERS["ld"].index("Illegal cache operation for instruction 'X'") + 1, "VecMismatchNoVN")
# measured with ptxas (`ld.nc.b128 {%rq0, %rq1}, …` at PTX 8.2): the .b128 gates of ld come after
# the .nc checks and the vector-count copy
for _k in ("FeatVer[Instruction type .b128 for instruction ld]",
           "FeatVer[Instruction type .b128 for instruction st]",
           "FeatTgt[Instruction type .b128 for instruction ld]",
           "FeatTgt[Instruction type .b128 for instruction st]", "FeatVer[.b128 with .sys]"):
    _move(ORDERS["ld"], _k, ".L2::cache_hint modifier required for instruction 'X' with N arguments")
LD_ORDER = ORDERS["ld"]
ST_ORDER = ORDERS["st"]


def check_ldst(op: str, guard, mods: list[str], ops: list[str], env: dict) -> list[str]:
    order = LD_ORDER if op.lower() == "ld" else ST_ORDER
    m = Msgs(order)
    T, V = sm(env["target"]), vkey(env["version"])
    unknown_syms: list[str] = []
    fatal = None
    if guard is not None:
        g = guard.lstrip("!")
        if reg_type(g, env) != "pred":
            m.first("Predicate expression expected")
            if reg_type(g, env) is None:
                unknown_syms.append(g)
    # ---- scan (§4.1 step 2)
    sem = None; sems = []; mmio = False; scope = None; spaces = []; cop = None; cops = []
    nc = False; evs = []; hint = 0; pf = None; vec = None; types = []; unknown = []
    last_vec_idx = None
    n_ev = 0; n_lev = 0
    for i, t in enumerate(mods):
        pos = i
        if t == "":
            return [t for t in m.result()] + ["FATAL:Parsing error near '.': syntax error"]
        if t in SEMS:
            if sem is not None:
                m.scan(f"Duplicate .{t} modifier", pos)
            sem = t; sems.append(t)
            if t == "weak" and T < 70:
                m.scan("Feature '.weak' requires .target sm_70 or higher", pos - 0.1)
        elif t == "mmio":
            mmio = True
            if V < (8, 2):
                m.scan("Feature '.mmio' requires PTX ISA .version 8.2 or later", pos)
            if T < 70:
                m.scan("Feature '.mmio' requires .target sm_70 or higher", pos)
        elif t in SCOPES:
            if scope is not None:
                m.scan("Multiple scope modifiers specified", pos)
            scope = t
        elif t in SPACES:
            spaces.append(t)
        elif t in COPS:
            if cop is not None:
                m.scan("Multiple cache operation modifiers specified", pos)
            cop = t; cops.append(t)
        elif t == "nc":
            nc = True
        elif t in L1S or t in L2S or t in BARE:
            lvl = "L1" if t in L1S else ("L2" if t in L2S else None)
            evs.append((lvl, t))
            n_ev += 1
            if lvl:
                n_lev += 1
            if n_ev >= 3:
                if n_lev > 2:
                    m.scan("Unexpected number of '.level::eviction_priority' modifiers specified", pos)
                m.scan("Unexpected number of 'cache eviction priority' modifiers specified", pos)
        elif t == "L2::cache_hint":
            if hint:
                m.scan("Multiple .L2::cache_hint modifiers specified", pos)
            hint += 1
        elif t in PFS:
            if pf is not None:
                m.scan("Multiple cache prefetching modifiers specified", pos)
            pf = t
        elif t in VECS:
            if vec is not None:
                m.scan("Multiple vector modifiers specified", pos)
            vec = t
            if t != "v8":
                last_vec_idx = i
        elif t in LDST_TYPES or t in OTHER_TYPES:
            types.append(t)
            if t == "bf16":     # §3.1: checked when the modifier is read (scan stage)
                if T < 80:
                    m.scan("Feature '.bf16' requires .target sm_80 or higher", pos)
                if V < (7, 0):
                    m.scan("Feature '.bf16' requires PTX ISA .version 7.0 or later", pos)
        else:
            m.scan(f"Unknown modifier '.{t}'", pos)
            unknown.append(t)
    type_ok = len(types) == 1 and types[0] in LDST_TYPES
    # §5.1: .bf16/.bf16x2/.tf32 next to exactly one ld/st type: the operands are checked
    # against that type first; 'Unexpected instruction types' only if they fit
    prim = [t for t in types if t not in ALT_TYPES]
    alt_quirk = (len(prim) == 1 and prim[0] in LDST_TYPES and len(types) > 1
                 and all(t in ALT_TYPES for t in types if t is not prim[0]))
    vec_warn_last = False

    # §7.3: a vector modifier other than .v8 "arms" the check; the next modifier must be a type
    # (or another non-.v8 vector modifier, which re-arms it); anything else -> warning
    for i, t in enumerate(mods):
        if t in VECS and t != "v8":
            nxt = mods[i + 1] if i + 1 < len(mods) else None
            if nxt is None:
                vec_warn_last = True
            elif not (nxt in LDST_TYPES or nxt in OTHER_TYPES or (nxt in VECS and nxt != "v8")):
                m.scan("Vector Type not specified properly", i + 1.5)
    space = spaces[0] if spaces else None          # §5.11: the first written space is checked
    # ... but ld matches variables against the last written space (st: the first)
    var_space = (spaces[-1] if op.lower() == "ld" else spaces[0]) if spaces else None
    ty = types[0] if type_ok else (prim[0] if alt_quirk else None)

    # ---- operands
    want_data = 0 if op == "ld" else 1
    want_addr = 1 if op == "ld" else 0
    stop = False
    if ops and re.fullmatch(r"%\w+\s+\[.*\]", ops[0]):
        m.add("Array indexing on non-array", "Array indexing on non-array")   # missing comma
    if len(ops) < 2 or len(ops) > 3:
        m.add("Arguments mismatch for instruction 'X'", f"Arguments mismatch for instruction '{op}'")
        return finish(m, unknown_syms, env, fatal)
    data, addr = ops[want_data], ops[want_addr]
    policy = ops[2] if len(ops) == 3 else None
    if re.fullmatch(r"%\w+\.unified", addr):
        return finish(m, [], env, "Parsing error near '.unified': syntax error")
    inner_addr = re.fullmatch(r"\[(.*)\](\.unified)?", addr)
    if inner_addr:
        body = inner_addr.group(1).strip()
        pm = re.fullmatch(r"([%\w]+)\s*(.*)", body)
        rest = pm.group(2).strip() if pm else body
        if rest and not re.fullmatch(r"\+\s*-?(0[xX][0-9a-fA-F]+|\d+)", rest) and not re.fullmatch(r"\+\s*-?\d+\.\d+", rest):
            tok = re.match(r"\+?\s*(%\w+|[^\w\s]|\w+)", rest)
            return finish(m, [], env, f"Parsing error near '{tok.group(1) if tok else rest}': syntax error")
    if op == "st" and data == "_":
        return [t for t in m.result()] + ["FATAL:Parsing error near '_': syntax error"]
    for o in ops:
        if o.startswith("{") or o.startswith("["):
            continue
        if o.startswith("%") and reg_type(o, env) is None:
            unknown_syms.append(o)
    # vector expression
    elems = None
    if data.startswith("{"):
        inner = data[1:-1].strip()
        elems = [e.strip() for e in inner.split(",")] if inner else []
        widths = set(); regs_in = []
        for e in elems:
            if e == "_":
                continue
            rt = reg_type(e, env)
            if rt is None and imm_kind(e) is None:
                m.add("Illegal expression 'X'", f"Illegal expression '{e}'")
                unknown_syms.append(e)
                continue
            if rt is not None:
                regs_in.append(rt)
                if rt != "pred":
                    widths.add(bits_of(rt))
        if all(e == "_" for e in elems) or (not regs_in and not any(imm_kind(e) for e in elems)):
            m.add("Unable to infer type of vector elements (assuming .b8)",
                  "Unable to infer type of vector elements (assuming .b8)")
        if len(widths) > 1:
            m.add("Incompatible elements of vector expression", "Incompatible elements of vector expression")
        if len(elems) not in ((1, 2, 4, 8) if op in ("ld", "st") else (1, 2, 4)):
            m.add("Illegal vector size: N", f"Illegal vector size: {len(elems)}")
    if op not in ("ld", "st"):
        m.add("Not a name of any known instruction: 'X'", f"Not a name of any known instruction: '{op}'")
        return finish(m, unknown_syms, env, None,
                      tail=["Vector Type not specified properly"] if vec_warn_last else [])
    # 256-bit form
    v256 = vec is not None and ty is not None and (
        (vec == "v8" and bits_of(ty) == 32) or (vec == "v4" and bits_of(ty) == 64))
    # bf16 feature
    addr_core = addr
    unified = False
    if addr_core.endswith(".unified"):
        unified = True
        addr_core = addr_core[: -len(".unified")]
    am = re.fullmatch(r"\[\s*([^\]+]+?)\s*(\+\s*(-?\w+))?\s*\]", addr_core)
    arr = re.fullmatch(r"(\w+)\[(\d+)\]", addr_core)
    base = None
    if am:
        base = am.group(1)
    sym_early = (arr.group(1) if arr else (base if base and re.fullmatch(r"[A-Za-z_]\w*", base) else None))
    if base and base.startswith("%") and reg_type(base, env) == "b128":
        m.add("Illegal operand type for address/array-index", "Illegal operand type for address/array-index")
    if arr and arr.group(1).startswith("%"):
        m.add("Array indexing on non-array", "Array indexing on non-array")
    if op == "st" and pf:
        # §6: a prefetch size on st stops the instruction right after parsing
        m.add("Illegal[PF]", f"Illegal modifier '.{pf}' for instruction 'st'")
        if sym_early and sym_early not in env["vars"]:
            unknown_syms.append(sym_early)
        return finish(m, unknown_syms, env, None,
                      tail=["Vector Type not specified properly"] if vec_warn_last else [])
    if not type_ok and not alt_quirk:
        m.add("Unexpected instruction types specified for 'X'", f"Unexpected instruction types specified for '{op}'")
        if sym_early and sym_early not in env["vars"]:
            unknown_syms.append(sym_early)
        return finish(m, unknown_syms, env, fatal, addr_base=base,
                      tail=["Vector Type not specified properly"] if vec_warn_last else [])
    # operand signature (stage 4)
    mismatch = False
    result_reg = False
    must_be_reg = False
    n = VECS.get(vec, 1)
    def elem_ok(e):
        if e == "_":
            return True
        rt = reg_type(e, env)
        if rt is not None:
            # §7.3: a vector element of a float type may also be an integer register of the
            # same width
            if ty[0] == "f" and rt != "pred" and bits_of(rt) == bits_of(ty):
                return True
            return reg_ok_for_type(ty, rt)
        k = imm_kind(e)
        if k is None:
            return True  # undeclared: reported elsewhere
        return imm_ok_for_type(ty, k) if op == "st" else True
    if not (am or arr):
        mismatch = True
    if elems is not None and len(elems) not in (1, 2, 4, 8):
        # §7.3: an illegal count skips the element check -- except for 3 elements, where the
        # element width W (sinks/undeclared: .b8) is checked: integer types need 3*W >= N,
        # float types the scalar rule of §7.1
        if len(elems) == 3:
            rts = [reg_type(e, env) for e in elems if reg_type(e, env)]
            if not rts and not any(imm_kind(e) for e in elems):
                rts = ["b8"]                     # inferred element type
            if ty[0] == "f":
                bad = not all(reg_ok_for_type(ty, r) or (r[0] in "us" and bits_of(r) == bits_of(ty)) for r in rts)
            else:
                bad = bool(rts) and 3 * min(bits_of(r) for r in rts) < bits_of(ty)
            mismatch = mismatch or bad
        if not mismatch and op == "ld" and any(imm_kind(e) for e in elems):
            if all(imm_ok_for_type(ty, imm_kind(e)) for e in elems if imm_kind(e)):
                result_reg = True
            else:
                mismatch = True
    elif elems is not None:
        if all(e == "_" or (reg_type(e, env) is None and imm_kind(e) is None) for e in elems):
            # §7.3: the elements are taken as .b8
            mismatch = not reg_ok_for_type(ty, "b8")
        elif not all(elem_ok(e) for e in elems if imm_kind(e) is None or op == "st"):
            mismatch = True
        elif op == "ld" and any(imm_kind(e) for e in elems):
            if all(imm_ok_for_type(ty, imm_kind(e)) for e in elems if imm_kind(e)):
                result_reg = True
            else:
                mismatch = True
    else:
        if data == "_":
            if op == "ld":
                fatal = "Result discard mode is not allowed for instruction 'ld'"
            else:
                mismatch = True
        elif data.startswith("["):
            must_be_reg = True
        else:
            rt = reg_type(data, env)
            if rt is not None:
                if not reg_ok_for_type(ty, rt):
                    mismatch = True
            else:
                k = imm_kind(data)
                if k is not None:
                    if op == "st":
                        if not imm_ok_for_type(ty, k):
                            mismatch = True
                    else:
                        if imm_ok_for_type(ty, k):
                            result_reg = True
                        else:
                            mismatch = True
                elif re.fullmatch(r"[A-Za-z_]\w*", data):
                    if op == "st" and data in env["vars"]:
                        must_be_reg = True
                    else:
                        mismatch = True   # a symbol, not a register
                else:
                    unknown_syms.append(data)
                    mismatch = True
    if policy is not None:
        prt = reg_type(policy, env)
        if not ((prt is not None and prt in ("b64", "u64", "s64")) or imm_kind(policy) == "int"):
            mismatch = True
    if hint and policy is None:
        mismatch = True
    if mismatch:
        m.add("Arguments mismatch for instruction 'X'", f"Arguments mismatch for instruction '{op}'")
        if sym_early and sym_early not in env["vars"]:
            unknown_syms.append(sym_early)
        return finish(m, unknown_syms, env, None, addr_base=base,
                      tail=["Vector Type not specified properly"] if vec_warn_last else [])
    if alt_quirk:
        m.add("Unexpected instruction types specified for 'X'", f"Unexpected instruction types specified for '{op}'")
        return finish(m, unknown_syms, env, None, addr_base=base,
                      tail=["Vector Type not specified properly"] if vec_warn_last else [])
    if v256:
        feat(m, "256", "256 bit wide load/store", 100, "8.8", env, order="vt")
    if must_be_reg:
        m.add("#Argument N of instruction 'X': must be register",
              "Argument 0 of instruction 'ld': must be register" if op == "ld" else "Argument 1 of instruction 'st': must be register")
    if fatal:
        m.add("#Result discard mode is not allowed for instruction 'X'", "FATAL:" + fatal)
        fatal = None
    # ---- semantic checks (stage 5)
    if space == "tex" or (op == "st" and space == "const"):
        m.add("State space incorrect for instruction 'X'", f"State space incorrect for instruction '{op}'")
    if len(spaces) > 1:
        m.add("Unexpected number of state spaces specified in instruction 'X'",
              f"Unexpected number of state spaces specified in instruction '{op}'")
    eff_space = space  # None = generic or error
    if v256 and eff_space not in (None, "global"):
        m.add("global state space expected for feature 'X'", "global state space expected for feature '256 bit wide load/store'")
    if space == "shared::cluster":
        feat(m, "::cluster", "::cluster", 90, "7.8", env, order="vt")
    if space == "shared::cta":
        feat(m, "::cta", "::cta", None, "7.8", env)
    if space == "param::entry":
        if op == "ld":
            feat(m, "::entry", "::entry", None, "8.3", env)
        else:
            feat(m, "::entry", "::entry", None, "8.3", env)
            m.add("Illegal[SUBSPACE]", "Illegal modifier '::entry' for instruction 'st'")
    if space == "param::func":
        feat(m, "::func", "::func", None, "8.3", env)
    if pf:
        feat(m, "pf", "cache prefetching", 75, "7.4", env, order="tv")
    # address operand vs space
    vars_ = env["vars"]
    sym = base if base and not base.startswith("%") and not re.fullmatch(r"-?\d+|0x[0-9a-fA-F]+", base) else None
    if arr:
        sym = arr.group(1)
    if (space == "param::func" and env["context"] != "func" and base
            and not (base and imm_kind(base) == "int")
            and (sym is None or (sym in vars_ and sym not in ("pa", "pb", "pr")))):
        m.add("Illegal state space for address operand 'X' with instruction 'X'", f"Illegal state space for address operand '::func' with instruction '{op}'")
    if space == "param::entry" and sym in ("pa", "pb", "pr"):
        m.add("Illegal state space for address operand 'X' with instruction 'X'", f"Illegal state space for address operand '::entry' with instruction '{op}'")
    if pf == "L2::256B":
        if T < 80:
            m.add("ModTgt[.L2::256B]", "Modifier '.L2::256B' requires .target sm_80 or higher")
        if V < (7, 4):
            m.add("FeatVer[256B cache prefetching]", "Feature '256B cache prefetching' requires PTX ISA .version 7.4 or later")
    if pf and mmio:
        m.add("Combine[PF+SEM:mmio]", f"Modifier '.{pf}' cannot be combined with modifier '.mmio'")
    if pf and space not in (None, "global"):
        m.add("State space incorrect for feature 'X'", "State space incorrect for feature 'cache prefetching'")
    # eviction priorities (§5.5)
    lev = [e for e in evs if e[0]]
    bare = [e for e in evs if not e[0]]
    # §5.5: the first two eviction modifiers fill the L1/L2 slots; a bare one takes the level
    # of the levelled one next to it (L1 if there is none)
    slot = {}
    first2 = evs[:2]
    lvl_of_bare = next((lvl for lvl, _ in first2 if lvl), "L1")
    for lvl, t in [e for e in first2 if e[0]] + [e for e in first2 if not e[0]]:
        slot[lvl or lvl_of_bare] = t.split("::")[-1]
    l1_last = slot.get("L1")
    ev_msgs_pre = []
    if len(lev) >= 2:
        if lev[0][0] == lev[1][0]:
            m.add("Duplicate 'X' modifier specified for instruction 'X'", f"Duplicate '.{lev[0][0]}::eviction_priority' modifier specified for instruction '{op}'")
    if l1_last:
        feat(m, "L1", f".{l1_last}", 70, "7.4", env, order="vt", kind="Modifier", on=op)
        if space not in (None, "global"):
            m.add("SpaceFor[EVICT]", f"Modifier '.{l1_last}' cannot be applied to '.{space}' space for instruction '{op}'")
        if cop:
            m.add("Combine[EVICT+COP]", f"Modifier '.{l1_last}' cannot be combined with modifier '.{cop}'")
        if mmio:
            m.add("Combine[EVICT+SEM:mmio]", f"Modifier '.{l1_last}' cannot be combined with modifier '.mmio'")
        if sem == "volatile":
            m.add("Combine[EVICT+SEM:volatile]", f"Modifier '.{l1_last}' cannot be combined with modifier '.volatile'")
    syn = "'.level::eviction_priority' syntax expected for instruction '%s'" % op
    inc = "Incorrect '.level::eviction_priority' modifier specified for instruction '%s'" % op
    if len(lev) >= 2:
        if lev[0][0] == lev[1][0]:
            m.add("Incorrect 'X' modifier specified for instruction 'X'", inc)
    elif len(lev) == 1 and bare:
        m.add("'X' syntax expected for instruction 'X'", syn)
        m.add("'X' syntax expected for instruction 'X'", syn)
    elif len(lev) == 0 and bare:
        m.add("'X' syntax expected for instruction 'X'", syn)
        m.add("Incorrect 'X' modifier specified for instruction 'X'", inc)
        if len(bare) >= 2:
            m.items.append((m.rank["Incorrect 'X' modifier specified for instruction 'X'"], 1, m.seq, syn)); m.seq += 1
    l2 = ["L2::" + slot["L2"]] if "L2" in slot else []
    if l2:
        l2t = l2[-1]
        if not v256:
            m.add("L2EvictNeedsVec", f"Instruction '{op}' requires '.v8.b32/.v4.b64' type with '.{l2t}' modifier.")
        if l2t in ("L2::evict_unchanged", "L2::no_allocate"):
            m.add("Illegal[L2EVICT]", f"Illegal modifier '.{l2t}' for instruction '{op}'")
    # address operand
    if base is not None and base.startswith("%"):
        rt = reg_type(base, env)
        if rt is None:
            m.add("Illegal operand type to instruction 'X'", f"Illegal operand type to instruction '{op}'")
            unknown_syms.append(base)
        elif rt in ("f32", "f64", "pred"):
            m.add(f"Illegal to use symbol 'X' of type .{rt} as address operand. Use integer or bit only.",
                  f"Illegal to use symbol '{base}' of type .{rt} as address operand. Use integer or bit only.")
            if rt == "pred":
                m.add("Illegal operand type to instruction 'X'", f"Illegal operand type to instruction '{op}'")
        elif bits_of(rt) == 32 and space in (None, "global"):
            env["driver32"] = True
        elif bits_of(rt) == 16 and space in (None, "global"):
            env["driver16"] = True
    elif base is not None and imm_kind(base) == "int":
        if space != "local":
            m.add("Immediate addresses allowed only for .local state space", "Immediate addresses allowed only for .local state space")
    if fatal:
        return finish(m, unknown_syms, env, fatal)
    if (sym is not None and sym in PARAM_SIZES and ty is not None
            and not (elems is not None and len(elems) != n)):
        decl, size = PARAM_SIZES[sym]
        if bits_of(ty) // 8 > size:
            m.add("Potential out of bound access while accessing symbol 'X' of type 'X' with instruction type 'X'.",
                  f"Potential out of bound access while accessing symbol '{sym}' of type '{decl}' with instruction type '.{ty}'.")
    if sym is not None:
        vs = vars_.get(sym)
        if vs is None:
            m.add("Illegal operand type to instruction 'X'", f"Illegal operand type to instruction '{op}'")
            unknown_syms.append(sym)
        elif vs == "func":
            m.add("Illegal to use symbol 'X' of type unexpected as address operand. Use integer or bit only.",
                  f"Illegal to use symbol '{sym}' of type unexpected as address operand. Use integer or bit only.")
            m.add("Illegal operand type to instruction 'X'", f"Illegal operand type to instruction '{op}'")
            m.add("Illegal operand type to instruction 'X'", f"Illegal operand type to instruction '{op}'")
        else:
            param_space = var_space in ("param", "param::entry", "param::func")
            if vs.startswith("param"):
                if not param_space:
                    m.add("State space mismatch between instruction and address in instruction 'X'", f"State space mismatch between instruction and address in instruction '{op}'")
                elif op == "ld":
                    if guard is None and (vs == "param_arg" or (vs == "param_ret" and env["context"] == "entry")):
                        fatal = f"Function call sequence invalid: 'ld.param' of '{sym}' without corresponding call"
                    elif vs == "param_out":
                        m.add("Illegal to read function return parameter 'X'", f"Illegal to read function return parameter '{sym}'")
                elif vs in ("param_kernel", "param_in"):
                    m.add("Illegal to write to function input parameter 'X'", f"Illegal to write to function input parameter '{sym}'")
            else:
                ok = {None: ("global", "shared", "local"), "global": ("global",), "shared": ("shared",),
                      "shared::cta": ("shared",), "shared::cluster": ("shared",), "local": ("local",),
                      "const": ("const",), "tex": ()}.get(var_space, ())
                if vs not in ok:
                    m.add("State space mismatch between instruction and address in instruction 'X'", f"State space mismatch between instruction and address in instruction '{op}'")
            # §7.7: a predicated ld.param/st.param of a variable
            if guard is not None and param_space and fatal is None:
                exempt = ("param_kernel", "param_in") if op == "ld" else ("param_out",)
                if vs not in exempt:
                    m.add("Illegal to predicate instruction 'X' with operand 'X'", f"Illegal to predicate instruction '{op}.param' with operand '{sym}'")
    if unified and not arr:   # §5.10: `var[imm].unified` is accepted, the attribute ignored
        if op != "ld" or space not in (None, "global") or sym is not None:
            m.add("Illegal use of attribute 'X' for instruction 'X'", f"Illegal use of attribute '.unified' for instruction '{op}'")
    if result_reg:
        m.add("Result register required for instruction 'X'", f"Result register required for instruction '{op}'")
    vec_count_wrong = False
    if vec is not None:
        if elems is None:
            if op == "ld":
                m.add("Result vector expected", "Result vector expected")
            vec_count_wrong = True
        elif len(elems) != n:
            vec_count_wrong = True
    elif elems is not None and len(elems) >= 2:
        vec_count_wrong = True
    if vec_count_wrong:
        if op == "ld" and vec is not None:
            m.items.append((m.rank["Result vector expected"], 1, m.seq, f"Argument vector size mismatch for instruction '{op}'"))
            m.seq += 1
        # §12: with a written .vN the (last) copy comes late, just before 'must be register';
        # without one it comes earlier (ld: before the cache-operator message, st: before
        # the '.L2::cache_hint modifier required' message)
        late = ("Argument N of instruction 'X': must be register"
                if vec is not None and (elems is not None or op == "st") else
                "VecMismatchNoVN" if op == "ld" else
                ".L2::cache_hint modifier required for instruction 'X' with N arguments")
        m.items.append((m.rank[late], -1, m.seq, f"Argument vector size mismatch for instruction '{op}'"))
        m.seq += 1
    # memory semantics (§5.2-§5.4, §6)
    if nc and sem == "weak":
        m.add("Combine[SEM:weak+NC]", "Modifier '.weak' cannot be combined with modifier '.nc'")
    if sem == "volatile":
        if cop:
            m.add("Combine[SEM:volatile+COP]", f"Modifier '.volatile' cannot be combined with modifier '.{cop}'")
        if nc:
            m.add("Combine[SEM:volatile+NC]", "Modifier '.volatile' cannot be combined with modifier '.nc'")
        if space == "local" and V < (9, 1):
            m.add("FeatVer[ld/st with .local.volatile]", "Feature 'ld/st with .local.volatile' requires PTX ISA .version 9.1 or later")
        if space in ("const", "param", "param::entry", "param::func", "tex"):
            m.add("Space[SEM:volatile]", f"Modifier '.volatile' cannot be applied to '.{space}' space")
    total_bits = n * bits_of(ty)
    if total_bits > 128 and not v256:
        m.add("Vector type too large, exceeds N bit limit", "Vector type too large, exceeds 128 bit limit")
    if op == "st" and elems is not None and "_" in elems and not v256:
        m.add("Sink 'X' not allowed as a source operand", "Sink '_' not allowed as a source operand")
    order_sem = sem if sem in ("relaxed", "acquire", "release") else None
    if order_sem:
        if cop:
            m.add("Combine[ORDER+COP]", f"Modifier '.{order_sem}' cannot be combined with modifier '.{cop}'")
        if nc:
            m.add("Combine[ORDER+NC]", f"Modifier '.{order_sem}' cannot be combined with modifier '.nc'")
        if T < 70:
            m.add("FeatTgt[.%s]" % order_sem if order_sem != "relaxed" else "FeatTgt[.relaxed]", f"Feature '.{order_sem}' requires .target sm_70 or higher")
    if sem == "weak" and T < 70:
        m.add("#FeatTgt[.weak]#2", "Feature '.weak' requires .target sm_70 or higher")
    if mmio and vec:
        m.add("Combine[SEM:mmio+VEC]", f"Modifier '.mmio' cannot be combined with modifier '.{vec}'")
    if ty == "b128":
        if V < (8, 3):
            m.add("FeatVer[Instruction type .b128 for instruction %s]" % op, f"Feature 'Instruction type .b128 for instruction {op}' requires PTX ISA .version 8.3 or later")
    bad_space_sem = space in ("local", "const", "param", "param::entry", "param::func", "tex")
    if order_sem and bad_space_sem:
        m.add("Space[ORDER]", f"Modifier '.{order_sem}' cannot be applied to '.{space}' space")
    illegal_sem = (op == "ld" and sem == "release") or (op == "st" and sem == "acquire")
    if illegal_sem:
        m.add("Illegal[ORDER]", f"Illegal modifier '.{sem}' for instruction '{op}'")
    if ty == "b128":
        if T < 70:
            m.add("FeatTgt[Instruction type .b128 for instruction %s]" % op, f"Feature 'Instruction type .b128 for instruction {op}' requires .target sm_70 or higher")
        if scope == "sys" and V < (8, 4):
            m.add("FeatVer[.b128 with .sys]", "Feature '.b128 with .sys' requires PTX ISA .version 8.4 or later")
    if order_sem and scope is None and not mmio:
        m.add("NeedScope[.%s]" % order_sem, f"Modifier '.{order_sem}' requires scope with '{op}' instruction")
    if mmio and space not in (None, "global"):
        m.add("Space[SEM:mmio]", f"Modifier '.mmio' cannot be applied to '.{space}' space")
    if mmio and order_sem in ("acquire", "release") and not illegal_sem:
        if V < (9, 3):
            m.add("FeatVer[.acquire]" if op == "ld" else "FeatVer[.release]", f"Feature '.{order_sem}' requires PTX ISA .version 9.3 or later")
    if scope == "cluster":
        feat(m, "cluster", ".cluster scope", 90, "7.8", env)
    good_order = ("relaxed", "acquire") if op == "ld" else ("relaxed", "release")
    if mmio and sem not in good_order:
        m.add("MmioNeedsOrder", f"Modifier '.mmio' requires modifier '.relaxed or .{good_order[1]}' for instruction '{op}'")
    if scope is not None:
        if mmio and scope != "sys":
            m.add("Combine[SEM:mmio+SCOPE]", f"Modifier '.mmio' cannot be combined with modifier '.{scope}'")
        if sem == "volatile":
            m.add("Combine[SEM:volatile+SCOPE]", f"Modifier '.volatile' cannot be combined with modifier '.{scope}'")
        elif sem == "weak":
            m.add("Combine[SEM:weak+SCOPE]", f"Modifier '.weak' cannot be combined with modifier '.{scope}'")
        elif not mmio and sem is None:
            m.add("NeedOrder", f"Modifier '.{scope}' requires memory order with '{op}' instruction")
    if mmio and scope is None:
        m.add("NeedScope[.mmio]", f"Modifier '.mmio' requires scope with '{op}' instruction")
    if nc and op == "ld" and space != "global":
        m.add("Modifier 'X' requires .global space", "Modifier '.nc' requires .global space")
    if nc and op == "ld" and cop in ("lu", "cv", "wb", "wt"):
        m.add("Illegal cache operation for instruction 'X'", "Illegal cache operation for instruction 'ld.nc'")
    if hint:
        feat(m, "hint", ".L2::cache_hint", 80, "7.4", env, kind="Modifier")
        if sem == "volatile":
            m.add("Combine[HINT+SEM:volatile]", "Modifier '.L2::cache_hint' cannot be combined with modifier '.volatile'")
    if policy is not None and not hint:
        m.add(".L2::cache_hint modifier required for instruction 'X' with N arguments", f".L2::cache_hint modifier required for instruction '{op}' with 3 arguments")
        m.add("Arguments mismatch for instruction 'X'", f"Arguments mismatch for instruction '{op}'")
    if op == "st" and nc:
        m.add("Illegal[NC]", "Illegal modifier '.nc' for instruction 'st'")
    if op == "ld" and cop in ("wb", "wt"):
        m.add("Illegal[COP]", f"Illegal modifier '.{cop}' for instruction 'ld'")
    if op == "st" and cop in ("ca", "lu", "cv"):
        m.add("Illegal[COP]", f"Illegal modifier '.{cop}' for instruction 'st'")
    if hint and mmio:
        m.add("Combine[HINT+SEM:mmio]", "Modifier '.L2::cache_hint' cannot be combined with modifier '.mmio'")
    if hint and space not in (None, "global"):
        m.add("SpaceFor[HINT]", f"Modifier '.L2::cache_hint' cannot be applied to '.{space}' space for instruction '{op}'")
    return finish(m, unknown_syms, env, fatal,
                  tail=["Vector Type not specified properly"] if vec_warn_last else [])


# ------------------------------------------------------------------------------------------
# cp.async (docs/ptxas-rules.md §8)
# ------------------------------------------------------------------------------------------
CPA_SPACES = SPACES
INT_LIT = re.compile(r"-?(0[xX][0-9a-fA-F]+|\d+)")


def lit_value(x: str) -> int:
    neg = x.startswith("-")
    v = int(x.lstrip("-"), 0)
    return -v if neg else v


KNOWN_WORDS = (SPACES | COPS | L1S | L2S | BARE | PFS | set(VECS) | LDST_TYPES | OTHER_TYPES | SEMS
               | SCOPES | {"async", "mmio", "nc", "noinc", "sync", "L2::cache_hint", "L1", "L2",
                           "tensormap", "fractional", "range", "cvt"})


def known_modifier(t: str) -> bool:
    return t in KNOWN_WORDS


def addr_syntax_error(o: str):
    """§7.5: the token a malformed bracketed address is rejected at (a fatal parse error)."""
    mm = re.fullmatch(r"\[(.*)\](\.unified)?", o.strip())
    if not mm:
        return None
    body = mm.group(1).strip()
    pm = re.fullmatch(r"([%\w]+)\s*(.*)", body)
    rest = pm.group(2).strip() if pm else body
    if rest and not re.fullmatch(r"\+\s*-?(0[xX][0-9a-fA-F]+|\d+)", rest) and not re.fullmatch(r"\+\s*-?\d+\.\d+", rest):
        tok = re.match(r"\+?\s*(%\w+|[^\w\s]|\w+)", rest)
        return tok.group(1) if tok else rest
    return None


def addr_kind(o: str):
    """('reg', name) | ('var', name) | ('imm', text) | None for a bracketed address."""
    m = re.fullmatch(r"\[\s*([%\w]+)\s*(\+\s*-?\w+)?\s*\]", o)
    if not m:
        return None
    b = m.group(1)
    if b.startswith("%"):
        return ("reg", b)
    if INT_LIT.fullmatch(b):
        return ("imm", b)
    return ("var", b)


def opnd_class(o: str, env) -> str:
    """A address, I integer literal, P predicate (also !%p), R32/R64/R16 integer registers,
    F other register / float literal, X anything else."""
    if o.startswith("["):
        return "A" if addr_kind(o) else "X"
    if INT_LIT.fullmatch(o):
        return "I"
    rt = reg_type(o.lstrip("!"), env)
    if rt == "pred":
        return "P"
    if o.startswith("!"):
        return "X"
    if rt is None:
        return "F" if imm_kind(o) else "X"
    if rt[0] in "bus" and bits_of(rt) in (32, 64) and rt != "b128":
        return "R%d" % bits_of(rt)
    return "F"


def space_ok_for_var(space, vs):
    if vs is None or vs == "func":
        return False
    if space is None:
        return vs in ("global", "shared", "local")
    base = space.split("::")[0]
    if base == "param":
        return vs.startswith("param")
    return vs == base


def check_cpasync(guard, opcode, mods, ops, env) -> list[str]:
    if "" in mods:   # `op.` / `a..b`: a syntax error at the empty modifier (§4.1)
        k = mods.index("")
        pre = [f"Unknown modifier '.{t}'" for t in mods[:k] if t and not known_modifier(t)]
        g = ["Predicate expression expected"] if guard is not None and reg_type(guard.lstrip("!"), env) != "pred" else []
        return g + pre + ["FATAL:Parsing error near '.': syntax error"]
    op = "cp.async"
    m = Msgs(ORDERS["cp.async"])
    T, V = sm(env["target"]), vkey(env["version"])
    unknown_syms = []
    if guard is not None and reg_type(guard.lstrip("!"), env) != "pred":
        m.first("Predicate expression expected")
    is_async = bool(mods) and mods[0] == "async"
    rest = mods[1:] if is_async else mods
    spaces, cops, types, hint, pf, vec, evs, sync, others = [], [], [], False, None, None, [], False, []
    last_vec_idx = None
    for i, t in enumerate(rest):
        if t in SPACES:
            spaces.append(t)
        elif t in COPS:
            if cops:
                m.scan("Multiple cache operation modifiers specified", i)
            cops.append(t)
        elif t == "L2::cache_hint":
            if hint:
                m.scan("Multiple .L2::cache_hint modifiers specified", i)
            hint = True
        elif t in PFS:
            if pf:
                m.scan("Multiple cache prefetching modifiers specified", i)
            pf = t
        elif t in VECS:
            if vec:
                m.scan("Multiple vector modifiers specified", i)
            vec = t; last_vec_idx = i
        elif t in LDST_TYPES or t in OTHER_TYPES:
            types.append(t)
        elif t in L1S or t in L2S or t in BARE:
            evs.append(t)
        elif t == "sync":
            sync = True
        elif t in SEMS or t in SCOPES or t in ("mmio", "nc", "noinc"):
            others.append(t)
        else:
            m.scan(f"Unknown modifier '.{t}'", i)
    vec_tail = []
    if last_vec_idx is not None:
        nxt = rest[last_vec_idx + 1] if last_vec_idx + 1 < len(rest) else None
        if nxt is None:
            vec_tail = ["Vector Type not specified properly"]
        elif not (nxt in LDST_TYPES or nxt in OTHER_TYPES):
            m.scan("Vector Type not specified properly", last_vec_idx + 1.5)
    if not is_async:
        m.add("Not a name of any known instruction: 'X'", f"Not a name of any known instruction: '{opcode}'")
        return finish(m, unknown_syms, env, None)
    # stops (§8): .sync, then a type
    if sync:
        m.add("Illegal[MOD(sync)]", "Illegal modifier '.sync' for instruction 'cp.async'")
        return finish(m, unknown_syms, env, None, tail=vec_tail)
    if types:
        m.add("Unexpected instruction types specified for 'X'", "Unexpected instruction types specified for 'cp.async'")
        return finish(m, unknown_syms, env, None, tail=vec_tail)
    cop = cops[-1] if cops else None
    cacg = cop in ("ca", "cg")
    # operand signature (§8)
    cls = [opnd_class(o, env) for o in ops]
    head_ok = len(cls) >= 3 and cls[0] == "A" and cls[1] == "A" and cls[2] == "I"
    tail = cls[3:]
    SRC = ("R32", "I")
    POL = ("R64", "I")
    matched = False; late_mismatch = False; need_hint5 = False
    if head_ok:
        if hint:
            matched = (len(tail) == 1 and tail[0] in POL) or (
                len(tail) == 2 and (tail[0] in SRC or tail[0] == "P") and tail[1] in POL)
        else:
            if len(tail) == 0 or (len(tail) == 1 and (tail[0] in SRC or tail[0] == "P")):
                matched = True
            elif len(tail) == 1 and tail[0] == "R64":
                matched = True
                late_mismatch = cacg
            elif len(tail) == 2 and (tail[0] in SRC or tail[0] == "P") and tail[1] in POL:
                matched = True
                need_hint5 = True
    if not matched:
        m.add("Arguments mismatch for instruction 'X'", "Arguments mismatch for instruction 'cp.async'")
        return finish(m, unknown_syms, env, None, tail=vec_tail)
    feat(m, "cp.async", "cp.async", 80, "7.0", env, order="vt")
    if need_hint5:
        m.add(".L2::cache_hint modifier required for instruction 'X' with N arguments",
              ".L2::cache_hint modifier required for instruction 'cp.async' with 5 arguments")
        m.add("Arguments mismatch for instruction 'X'", "Arguments mismatch for instruction 'cp.async'")
    size = lit_value(ops[2])
    if cacg and not need_hint5:
        allowed = (4, 8, 16) if cop == "ca" else (16,)
        if size not in allowed:
            m.add("ArgValue[2]", "Argument 2 of instruction 'cp.async': unexpected value '%d', expected to be %s"
                  % (size, " or ".join(map(str, allowed))))
        if len(tail) >= 1 and tail[0] == "I" and not (hint and len(tail) == 1):
            sv = lit_value(ops[3])
            if not (0 <= sv <= size):
                m.add("ArgRange[3]", f"Argument 3 of instruction 'cp.async': value '{sv}' out of range, expected to be in range [0..{size}]")
    if late_mismatch:
        m.add("Arguments mismatch for instruction 'X'", "Arguments mismatch for instruction 'cp.async'")
    if cacg and not need_hint5 and len(tail) >= 1 and tail[0] == "P":
        feat(m, "ign", "igonre-src on cp.async", None, "7.5", env)
    if evs:
        m.add("Illegal[MOD(level::eviction_priority)]", "Illegal modifier '.level::eviction_priority' for instruction 'cp.async'")
        for e in evs[:1]:
            m.add("Illegal[EVICT]", f"Illegal modifier '.{e.split('::')[-1]}' for instruction 'cp.async'")
    # state spaces
    dst_space = spaces[0] if spaces else None
    src_space = spaces[1] if len(spaces) > 1 else (spaces[0] if spaces else None)
    if dst_space == "shared::cluster":
        m.add("Illegal[SUBSPACE]", "Illegal modifier '::cluster' for instruction 'cp.async'")
    if len(spaces) == 2:
        if dst_space not in ("shared", "shared::cta", "shared::cluster"):
            m.add("State space incorrect for instruction 'X'", "State space incorrect for instruction 'cp.async'")
        if src_space != "global":
            m.add("State space incorrect for instruction 'X'", "State space incorrect for instruction 'cp.async'")
    else:
        m.add("Unexpected number of state spaces specified in instruction 'X'",
              "Unexpected number of state spaces specified in instruction 'cp.async'")
    if pf:
        feat(m, "pf", "cache prefetching", 75, "7.4", env, order="tv")
        if pf == "L2::256B":
            if T < 80:
                m.add("ModTgt[.L2::256B]", "Modifier '.L2::256B' requires .target sm_80 or higher")
            if V < (7, 4):
                m.add("FeatVer[256B cache prefetching]", "Feature '256B cache prefetching' requires PTX ISA .version 7.4 or later")
    if vec:
        m.add("Vector qualifier is not allowed for instruction 'X'", "Vector qualifier is not allowed for instruction 'cp.async'")
    # addresses, operand by operand
    R = m.rank["Illegal to use symbol 'X' of type .f32 as address operand. Use integer or bit only."]
    for k, (o, sp) in enumerate(((ops[0], dst_space), (ops[1], src_space))):
        kind = addr_kind(o)
        if kind[0] == "reg":
            rt = reg_type(kind[1], env)
            if rt in ("f32", "f64"):
                m.items.append((R, k, m.seq, f"Illegal to use symbol '{kind[1]}' of type .{rt} as address operand. Use integer or bit only.")); m.seq += 1
            elif rt is None:
                unknown_syms.append(kind[1])
        elif kind[0] == "imm":
            if sp != "local":
                m.items.append((R, k, m.seq, "Immediate addresses allowed only for .local state space")); m.seq += 1
        else:
            vs = env["vars"].get(kind[1])
            if spaces and not space_ok_for_var(sp, vs):
                m.items.append((R, k, m.seq, "State space mismatch between instruction and address in instruction 'cp.async'")); m.seq += 1
    if not cops:
        m.add("'X' modifier required for instruction 'X'", "'.ca or .cg' modifier required for instruction 'cp.async'")
    elif not cacg:
        m.add("Illegal[COP]", f"Illegal modifier '.{cop}' for instruction 'cp.async'")
    if hint:
        feat(m, "hint", ".L2::cache_hint", 80, "7.4", env, kind="Modifier")
        if spaces and not (len(spaces) >= 2 and src_space == "global"
                           and dst_space in ("shared", "shared::cta", "shared::cluster")):
            m.add("SpaceFor[HINT]", f"Modifier '.L2::cache_hint' cannot be applied to '.{dst_space}' space for instruction 'cp.async'")
    return finish(m, unknown_syms, env, None, tail=vec_tail)


# ------------------------------------------------------------------------------------------
# createpolicy (docs/ptxas-rules.md §10)
# ------------------------------------------------------------------------------------------
POLICY_KINDS = ("fractional", "range", "cvt")
POLICY_ORDER = [
    "FeatTgt[kind]", "FeatVer[kind]", "ArgCompare", "SpaceErr", "LevelReq", "ArgRange[2]",
    "NoSpace", "Unsupported primary", "Unsupported secondary", "NeedL2", "ModPair", "Syntax", "CvtL1",
    "CvtEvict", "Addr", "Vector", "ResultReg",
]


def f32_of_literal(x: str):
    if re.fullmatch(r"0[fF][0-9a-fA-F]{8}", x):
        return struct.unpack(">f", bytes.fromhex(x[2:]))[0]
    if re.fullmatch(r"0[dD][0-9a-fA-F]{16}", x):
        v = struct.unpack(">d", bytes.fromhex(x[2:]))[0]
    else:
        v = float(x)
    try:
        return struct.unpack("f", struct.pack("f", v))[0]
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def check_createpolicy(guard, opcode, mods, ops, env) -> list[str]:
    if "" in mods:   # `op.` / `a..b`: a syntax error at the empty modifier (§4.1)
        k = mods.index("")
        pre = [f"Unknown modifier '.{t}'" for t in mods[:k] if t and not known_modifier(t)]
        g = ["Predicate expression expected"] if guard is not None and reg_type(guard.lstrip("!"), env) != "pred" else []
        return g + pre + ["FATAL:Parsing error near '.': syntax error"]
    m = Msgs(POLICY_ORDER)
    T, V = sm(env["target"]), vkey(env["version"])
    if guard is not None and reg_type(guard.lstrip("!"), env) != "pred":
        m.first("Predicate expression expected")
    kind = mods[0] if mods and mods[0] in POLICY_KINDS else None
    rest = mods[1:] if kind else mods
    op = f"createpolicy.{kind}"
    types, spaces, levels, prios, lvl_words, hint, vec, others = [], [], [], [], [], False, None, []
    vec_tail = []
    n_cop = 0
    for i, t in enumerate(rest):
        if t in LDST_TYPES or t in OTHER_TYPES:
            types.append(t)
        elif t in SPACES:
            spaces.append(t)
        elif t in L1S or t in L2S or t in BARE:
            lv, _, p = t.rpartition("::")
            if lv:
                levels.append(lv)
                if len(levels) > 2:
                    m.scan("Unexpected number of '.level::eviction_priority' modifiers specified", i)
            prios.append(p)
            if len(prios) > 2:
                m.scan("Unexpected number of 'cache eviction priority' modifiers specified", i)
        elif t in ("L1", "L2"):
            if lvl_words:
                m.scan("Multiple cache operation modifiers specified", i)
            lvl_words.append(t)
        elif t == "L2::cache_hint":
            hint = True
        elif t in VECS:
            vec = t
        elif t in COPS or t in PFS:
            others.append(t)
        else:
            m.scan(f"Unknown modifier '.{t}'", i)
    for i, t in enumerate(rest):
        if t in VECS and t != "v8":
            nxt = rest[i + 1] if i + 1 < len(rest) else None
            if nxt is None:
                vec_tail = ["Vector Type not specified properly"]
            elif not (nxt in LDST_TYPES or nxt in OTHER_TYPES or (nxt in VECS and nxt != "v8")):
                m.scan("Vector Type not specified properly", i + 1.5)
    if kind is None:
        return finish(m, [], env, None) + [] if False else \
            [t for t in m.result()] + [f"Not a name of any known instruction: '{opcode}'"]
    # stops
    if hint:
        return m.result() + [f"Illegal modifier '.L2::cache_hint' for instruction '{op}'"] + vec_tail
    if others:
        return m.result() + [f"Illegal modifier '.{others[0]}' for instruction '{op}'"] + vec_tail
    if types != ["b64"]:
        return m.result() + [f"Unexpected instruction types specified for '{op}'"] + vec_tail
    # operands
    def r64(o):
        rt = reg_type(o, env)
        return rt in ("b64", "u64", "s64")
    def r32(o):
        rt = reg_type(o, env)
        return rt in ("b32", "u32", "s32")
    int_lit = lambda o: bool(INT_LIT.fullmatch(o))
    float_lit = lambda o: imm_kind(o) in ("f32", "f64")
    for o in ops:
        tok = addr_syntax_error(o)
        if tok:
            return m.result() + [f"FATAL:Parsing error near '{tok}': syntax error"]
    if ops and ops[0] == "_":
        return m.result() + [f"FATAL:Result discard mode is not allowed for instruction '{op}'"]
    d_ok = bool(ops) and (r64(ops[0]) or int_lit(ops[0]))
    a = ops[1:]
    if kind == "fractional":
        sig = len(a) == 0 or (len(a) == 1 and (float_lit(a[0]) or reg_type(a[0], env) in ("f32", "b32")))
    elif kind == "range":
        sig = (len(a) == 3 and addr_kind(a[0]) is not None
               and all(r32(x) or int_lit(x) for x in a[1:]))
    else:
        sig = len(a) == 1 and (r64(a[0]) or int_lit(a[0]))
    if not (d_ok and sig):
        return m.result() + [f"Arguments mismatch for instruction '{op}'"] + vec_tail
    tgt_first = True
    if T < 80:
        m.add("#FeatTgt[kind]", f"Feature '{op}' requires .target sm_80 or higher")
    if V < (7, 4):
        m.add("#FeatVer[kind]", f"Feature '{op}' requires PTX ISA .version 7.4 or later")
    if kind == "range" and int_lit(a[1]) and int_lit(a[2]):
        p, t_ = lit_value(a[1]) & 0xFFFFFFFF, lit_value(a[2]) & 0xFFFFFFFF
        if p > t_:
            sp = p - (1 << 32) if p >= 1 << 31 else p
            st_ = t_ - (1 << 32) if t_ >= 1 << 31 else t_
            m.add("#ArgCompare", f"Argument 3 of instruction '{op}': value '{sp}' must be less than or equal to the value '{st_}' of argument 4")
    if kind == "range":
        if len(spaces) > 1:
            m.add("#SpaceErr", f"Unexpected number of state spaces specified in instruction '{op}'")
        elif spaces and spaces[0] != "global":
            m.add("#SpaceErr", f"State space incorrect for instruction '{op}'")
    elif spaces:
        m.add("#NoSpace", f"No state space qualifier expected for instruction '{op}'")
    if kind == "cvt":
        if "L1" in lvl_words:
            m.add("#CvtL1", "Illegal modifier '.L1' for instruction 'createpolicy.cvt'")
        elif not lvl_words and not levels:
            m.add("#LevelReq", ".L2 modifier required for instruction 'createpolicy.cvt'")
        if prios:
            m.add("#CvtEvict", "Illegal modifier '.level::eviction_priority' for instruction 'createpolicy.cvt'")
            m.add("#CvtEvict", f"Illegal modifier '.{prios[0]}' for instruction 'createpolicy.cvt'")
    else:
        if not prios:
            m.add("#LevelReq", f"cache eviction priority modifier required for instruction '{op}'")
        if not levels:
            m.add("#LevelReq", f".L2 modifier required for instruction '{op}'")
        if kind == "fractional" and a and float_lit(a[0]):
            v = f32_of_literal(a[0])
            if not (0.0 < v <= 1.0):
                m.add("#ArgRange[2]", f"Argument 2 of instruction '{op}': value '{v:f}' out of range, expected to be in range (0.000000 .. 1.000000]")
        if prios and prios[0] == "no_allocate":
            m.add("#Unsupported primary", f"Unsupported modifier '.no_allocate' as primary_priority for instruction '{op}'")
        if len(prios) >= 2 and prios[1] not in ("evict_first", "evict_unchanged"):
            m.add("#Unsupported secondary", f"Unsupported modifier '.{prios[1]}' as secondary_priority for instruction '{op}'")
        if any(i >= len(levels) or levels[i] == "L1" for i in range(min(len(prios), 2))):
            m.add("#NeedL2", f"Modifier 'cache eviction priority' requires cache level L2 with '{op}' instruction")
        for p in prios[:2]:
            if V < (7, 4):
                m.add("#ModPair", f"Modifier '.L2::{p}' on '{op}' requires PTX ISA .version 7.4 or later")
            if T < 80:
                m.add("#ModPair", f"Modifier '.L2::{p}' on '{op}' requires .target sm_80 or higher")
        if min(len(levels), 2) != min(len(prios), 2):
            m.add("#Syntax", f"'.level::eviction_priority' syntax expected for instruction '{op}'")
    if kind == "range":
        k = addr_kind(a[0])
        if k[0] == "imm":
            m.add("#Addr", "Immediate addresses allowed only for .local state space")
        elif k[0] == "var":
            vs = env["vars"].get(k[1])
            sp = spaces[0] if spaces else None
            if not space_ok_for_var(sp, vs):
                m.add("#Addr", f"State space mismatch between instruction and address in instruction '{op}'")
    if vec:
        m.add("#Vector", f"Vector qualifier is not allowed for instruction '{op}'")
    if int_lit(ops[0]):
        m.add("#ResultReg", f"Result register required for instruction '{op}'")
    return finish(m, [], env, None, tail=vec_tail)


# ------------------------------------------------------------------------------------------
# prefetch, prefetchu (docs/ptxas-rules.md §11)
# ------------------------------------------------------------------------------------------
PF_ORDER = [
    "Unified", "TmSpace", "TmTgt", "TmVer", "SpaceCount", "SSI", "IllegalLevel", "PF", "PFSpace",
    "MultiEvict", "EvictVer", "EvictTgt", "EvictIllegal", "LevelWithEvict", "EvictL1",
    "EvictSpace", "Vector", "Addr", "COP", "LevelReq",
]


def check_prefetch(guard, opcode, mods, ops, env) -> list[str]:
    if "" in mods:   # `op.` / `a..b`: a syntax error at the empty modifier (§4.1)
        k = mods.index("")
        pre = [f"Unknown modifier '.{t}'" for t in mods[:k] if t and not known_modifier(t)]
        g = ["Predicate expression expected"] if guard is not None and reg_type(guard.lstrip("!"), env) != "pred" else []
        return g + pre + ["FATAL:Parsing error near '.': syntax error"]
    m = Msgs(PF_ORDER)
    op = opcode
    T, V = sm(env["target"]), vkey(env["version"])
    if guard is not None and reg_type(guard.lstrip("!"), env) != "pred":
        m.first("Predicate expression expected")
    spaces, levels, evs, types, cops, pfs, hint, vec = [], [], [], [], [], [], False, None
    vec_tail = []
    n_lev = 0
    for i, t in enumerate(mods):
        if t in SPACES:
            spaces.append(t)
        elif t in ("L1", "L2", "tensormap"):
            if levels:
                m.scan("Multiple cache operation modifiers specified", i)
            levels.append(t)
        elif t in L1S or t in L2S:
            evs.append(t)
            n_lev += 1
            if len(evs) >= 3:
                if n_lev > 2:
                    m.scan("Unexpected number of '.level::eviction_priority' modifiers specified", i)
                m.scan("Unexpected number of 'cache eviction priority' modifiers specified", i)
        elif t in LDST_TYPES or t in OTHER_TYPES:
            types.append(t)
        elif t in COPS:
            cops.append(t)
        elif t in PFS:
            pfs.append(t)
        elif t == "L2::cache_hint":
            hint = True
        elif t in VECS:
            vec = t
        else:
            m.scan(f"Unknown modifier '.{t}'", i)
    for i, t in enumerate(mods):
        if t in VECS and t != "v8":
            nxt = mods[i + 1] if i + 1 < len(mods) else None
            if nxt is None:
                vec_tail = ["Vector Type not specified properly"]
            elif not (nxt in LDST_TYPES or nxt in OTHER_TYPES or (nxt in VECS and nxt != "v8")):
                m.scan("Vector Type not specified properly", i + 1.5)
    # stops
    if hint:
        return m.result() + [f"Illegal modifier '.L2::cache_hint' for instruction '{op}'"] + vec_tail
    if types:
        return m.result() + [f"Unexpected instruction types specified for '{op}'"] + vec_tail
    for o in ops:
        tok = addr_syntax_error(o)
        if tok:
            return m.result() + [f"FATAL:Parsing error near '{tok}': syntax error"]
    addr = ops[0] if len(ops) == 1 else None
    unified = False
    if addr and addr.endswith(".unified"):
        unified = True
        addr = addr[: -len(".unified")]
    kind = addr_kind(addr) if addr else None
    if kind is None:
        return m.result() + [f"Arguments mismatch for instruction '{op}'"] + vec_tail
    space = spaces[0] if spaces else None
    level = levels[-1] if levels else None
    if unified:
        m.add("#Unified", f"Illegal use of attribute '.unified' for instruction '{op}'")
    if op == "prefetch" and level == "tensormap":
        if space not in (None, "const", "param"):
            m.add("#TmSpace", f"Modifier '.tensormap' cannot be applied to '.{space}' space for instruction 'prefetch'")
        if T < 90:
            m.add("#TmTgt", "Modifier '.tensormap' requires .target sm_90 or higher")
        if V < (8, 0):
            m.add("#TmVer", "Modifier '.tensormap' requires PTX ISA .version 8.0 or later")
    if len(spaces) > 1:
        m.add("#SpaceCount", f"Unexpected number of state spaces specified in instruction '{op}'")
    if spaces:
        if op == "prefetchu":
            m.add("#SSI", "State space incorrect for instruction 'prefetchu'")
        elif space not in ("global", "local") and not (level == "tensormap" and space in ("const", "param")):
            m.add("#SSI", "State space incorrect for instruction 'prefetch'")
    if op == "prefetchu":
        for lv in levels:
            if lv != "L1":
                m.add("#IllegalLevel", f"Illegal modifier '.{lv}' for instruction 'prefetchu'")
    for p in pfs[:1]:
        m.add("#PF", f"Illegal modifier '.{p}' for instruction '{op}'")
        if space not in (None, "global"):
            m.add("#PFSpace", f"State space incorrect for feature '.{p}'")
    if len(evs) >= 2:
        m.add("#MultiEvict", "Multiple cache eviction priority modifiers specified")
    elif evs:
        lv, _, p = evs[0].partition("::")
        if op == "prefetchu":
            m.add("#EvictIllegal", "Illegal modifier '.level::eviction_priority' for instruction 'prefetchu'")
            m.add("#EvictIllegal", f"Illegal modifier '.{p}' for instruction 'prefetchu'")
        else:
            if V < (7, 4):
                m.add("#EvictVer", "Modifier 'cache eviction priority' on 'prefetch' requires PTX ISA .version 7.4 or later")
            if T < 80:
                m.add("#EvictTgt", "Modifier 'cache eviction priority' on 'prefetch' requires .target sm_80 or higher")
            if p not in ("evict_last", "evict_normal"):
                m.add("#EvictIllegal", f"Illegal modifier '.{p}' for instruction 'prefetch'")
            if level:
                m.add("#LevelWithEvict", f"Illegal modifier '.{level}' for instruction 'prefetch' with '.level::eviction_priority'")
            if lv == "L1":
                m.add("#EvictL1", f"Modifier '.{p}' requires cache level L2 with 'prefetch' instruction")
            if space not in (None, "global"):
                m.add("#EvictSpace", "State space incorrect for feature 'cache eviction priority'")
    if vec:
        m.add("#Vector", f"Vector qualifier is not allowed for instruction '{op}'")
    if kind[0] == "reg":
        rt = reg_type(kind[1], env)
        if rt in ("f32", "f64"):
            m.add("#Addr", f"Illegal to use symbol '{kind[1]}' of type .{rt} as address operand. Use integer or bit only.")
        elif rt and bits_of(rt) == 32 and space in (None, "global"):
            env["driver32"] = True   # §7.6
    elif kind[0] == "imm":
        if space != "local":
            m.add("#Addr", "Immediate addresses allowed only for .local state space")
    else:
        vs = env["vars"].get(kind[1])
        if not space_ok_for_var(space, vs):
            m.add("#Addr", f"State space mismatch between instruction and address in instruction '{op}'")
        if op == "prefetchu" and vs != "global":
            m.add("#Addr", "Non-generic address is not supported as operand for prefetchu instruction")
    for c in cops[:1]:
        m.add("#COP", f"Illegal modifier '.{c}' for instruction '{op}'")
        m.add("#COP", f"Illegal modifier '.{c}' for instruction '{op}'")
    if not levels and not evs and not pfs:
        m.add("#LevelReq", f"Cache level modifier required for instruction '{op}'")
    return finish(m, [], env, None, tail=vec_tail)


# ------------------------------------------------------------------------------------------
# cp.async.commit_group / wait_group / wait_all / bulk.*, cp.async.mbarrier.arrive (§9)
# ------------------------------------------------------------------------------------------
def check_group(guard, opcode, mods, ops, env) -> list[str]:
    T, V = sm(env["target"]), vkey(env["version"])
    out = []
    if guard is not None and reg_type(guard.lstrip("!"), env) != "pred":
        out.append("Predicate expression expected")
    toks = mods[1:] if mods and mods[0] == "async" else mods
    bulk = bool(toks) and toks[0] == "bulk"
    if bulk:
        toks = toks[1:]
    word = toks[0] if toks else None
    rest = toks[1:]
    feats = []
    def fv(name, tgt, ver, order):
        t = [f"Feature '{name}' requires .target sm_{tgt} or higher"] if T < tgt else []
        v = [f"Feature '{name}' requires PTX ISA .version {ver} or later"] if V < vkey(ver) else []
        return (t + v) if order == "tv" else (v + t)
    unknown = []
    if word == "commit_groups":
        name, want = "cp.async.commit_group", None   # the trailing 's' is read as an operand
        unknown.append("s")
    elif word in ("commit_group", "wait_group", "wait_all"):
        name = ("cp.async.bulk." if bulk else "cp.async.") + word
        want = 1 if word == "wait_group" else 0
    elif word == "wait":
        name, want = "cp.async", None
        if T < 90:
            feats.append("Modifier '.wait' requires .target sm_90 or higher")
        if V < (7, 8):
            feats.append("Modifier '.wait' requires PTX ISA .version 7.8 or later")
    else:
        out.append(f"Unknown modifier '.{word}'")
        name, want = "cp.async", None
    types = [t for t in rest if t in LDST_TYPES or t in OTHER_TYPES]
    read = "read" in rest
    if name.startswith("cp.async.bulk"):
        if read:
            if T < 90:
                feats.append("Modifier '.read' requires .target sm_90 or higher")
            if V < (8, 0):
                feats.append("Modifier '.read' requires PTX ISA .version 8.0 or later")
        feats += fv(name, 90, "8.0", "tv")
    elif name != "cp.async":
        feats += fv(name, 80, "7.0", "vt")
    ok = want is not None and len(ops) == want and all(INT_LIT.fullmatch(o) for o in ops)
    if types:
        return out + [f"Unexpected instruction types specified for '{name}'"]
    if not ok:
        pre = feats if word == "wait" else []    # the .wait pair is a scan-stage message
        return out + pre + [f"Arguments mismatch for instruction '{name}'"] + [f"Unknown symbol '{u}'" for u in unknown]
    return out + feats + [f"Unknown symbol '{u}'" for u in unknown]


def check_mbarrier(guard, opcode, mods, ops, env) -> list[str]:
    T, V = sm(env["target"]), vkey(env["version"])
    op = "cp.async.mbarrier.arrive"
    m = Msgs(["Feat", "Cta", "Reduction", "IllegalSem", "SubSpace", "Cluster", "SSI", "Addr"])
    if guard is not None and reg_type(guard.lstrip("!"), env) != "pred":
        m.first("Predicate expression expected")
    toks = mods[2:] if mods[:2] == ["async", "mbarrier"] else mods
    if not toks or toks[0] != "arrive":
        out = m.result()
        if toks and toks[0] == "wait":
            if T < 90:
                out.append("Modifier '.wait' requires .target sm_90 or higher")
            if V < (7, 8):
                out.append("Modifier '.wait' requires PTX ISA .version 7.8 or later")
        return out + ["Unexpected instruction types specified for 'cp.async'"]
    rest = toks[1:]
    spaces, types, sems, scopes, noinc, inc = [], [], [], [], 0, False
    for i, t in enumerate(rest):
        if t == "noinc":
            if noinc:
                m.scan("Multiple .noinc modifiers specified", i)
            noinc += 1
        elif t == "inc":
            inc = True
        elif t in SPACES:
            spaces.append(t)
        elif t in LDST_TYPES or t in OTHER_TYPES:
            types.append(t)
        elif t in SEMS or t == "mmio":
            sems.append(t)
        elif t in SCOPES:
            scopes.append(t)
        else:
            m.scan(f"Unknown modifier '.{t}'", i)
    if types != ["b64"]:
        return m.result() + [f"Unexpected instruction types specified for '{op}'"]
    kind = addr_kind(ops[0]) if len(ops) == 1 else None
    if kind is None:
        return m.result() + [f"Arguments mismatch for instruction '{op}'"]
    if V < (7, 0):
        m.add("#Feat", f"Feature '{op}' requires PTX ISA .version 7.0 or later")
    if T < 80:
        m.add("#Feat", f"Feature '{op}' requires .target sm_80 or higher")
    space = spaces[0] if spaces else None
    if space == "shared::cta" and V < (7, 8):
        m.add("#Cta", "Feature '::cta' requires PTX ISA .version 7.8 or later")
    if inc:
        m.add("#Reduction", "Illegal reduction operation for instruction 'cp.async.mbarrier.arrive.b64'")
    for sc in scopes:
        m.add("#IllegalSem", f"Illegal modifier '.{sc}' for instruction '{op}'")
    for se in sems:
        m.add("#IllegalSem", f"Illegal modifier '.{se}' for instruction '{op}'")
    for sc in scopes:
        m.add("#IllegalSem", f"Illegal modifier '.{sc}' for instruction '{op}'")
    if space == "shared::cluster":
        m.add("#SubSpace", f"Illegal modifier '::cluster' for instruction '{op}'")
        if V < (7, 8):
            m.add("#Cluster", "Feature '::cluster' requires PTX ISA .version 7.8 or later")
        if T < 90:
            m.add("#Cluster", "Feature '::cluster' requires .target sm_90 or higher")
    if space not in (None, "shared", "shared::cta", "shared::cluster"):
        m.add("#SSI", f"State space incorrect for instruction '{op}'")
    if kind[0] == "var":
        if not space_ok_for_var(space, env["vars"].get(kind[1])):
            m.add("#Addr", f"State space mismatch between instruction and address in instruction '{op}'")
    elif kind[0] == "imm":
        m.add("#Addr", "Immediate addresses allowed only for .local state space")
    return finish(m, [], env, None)


def finish(m: Msgs, unknown_syms, env, fatal, addr_base=None, tail=()) -> list[str]:
    out = []
    for t in m.result():
        if not t:
            continue
        out.append(t)
        if t.startswith("FATAL:"):
            return out
    if fatal:
        out.append("FATAL:" + fatal)
        return out
    out += list(tail)
    for s in dict.fromkeys(unknown_syms):
        out.append(f"Unknown symbol '{s}'")
    return out


# ------------------------------------------------------------------------------------------
# Driver
# ------------------------------------------------------------------------------------------
def module_errors(case: dict) -> bool:
    """Errors outside the instruction line: .version/.target mismatch (§2.3), .b128 declaration
    (§2.4)."""
    import gen_cases
    t, v = case["target"], case["version"]
    bad = vkey(v) < vkey(gen_cases.TARGET_MIN_VERSION[t])
    if not case["insn"].rstrip().endswith(";"):
        bad = True    # §4.1: the parse error is reported on the next line
    if "%rq" in case["insn"] and not gen_cases.b128_registers_allowed(t, v) and not case.get("pair"):
        bad = True
    return bad


def model_case(case: dict):
    env = {"target": case["target"], "version": case["version"], "context": case["context"],
           "vars": variables(case["context"])}
    legal128 = sm(case["target"]) >= 70 and vkey(case["version"]) >= (8, 3)
    env["b128"] = legal128 or ("%rq" in case["insn"] and not case.get("pair"))
    guard, opcode, mods, ops = parse_insn(case["insn"])
    fam = case["family"]
    if fam in ("ld", "ld.global.nc", "st"):
        msgs = check_ldst(opcode, guard, mods, ops, env)
    elif fam == "cp.async":
        msgs = check_cpasync(guard, opcode, mods, ops, env)
    elif fam == "createpolicy":
        msgs = check_createpolicy(guard, opcode, mods, ops, env)
    elif fam == "prefetch":
        msgs = check_prefetch(guard, opcode, mods, ops, env)
    elif fam == "cp.async.group":
        msgs = check_group(guard, opcode, mods, ops, env)
    elif fam == "cp.async.mbarrier":
        msgs = check_mbarrier(guard, opcode, mods, ops, env)
    else:
        return None
    fatal = any(x.startswith("FATAL:") for x in msgs)
    line_msgs = [x for x in msgs if not x.startswith("FATAL:") or "Function call" not in x]
    line_msgs = [x[6:] if x.startswith("FATAL:") else x for x in line_msgs]
    errors = [x for x in msgs if x != "Vector Type not specified properly"
              and not x.startswith("Potential out of bound access")]   # warning / info
    reject = bool(errors) or (module_errors(case) and not fatal) or env.get("driver32", False)
    return reject, line_msgs


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--golden", default=str(HERE / "golden.jsonl"))
    ap.add_argument("--family", action="append")
    ap.add_argument("--show", type=int, default=0)
    ap.add_argument("--pairs", action="store_true",
                    help="also check the pairwise experiments in pairs/gp_*.json")
    args = ap.parse_args()
    verdict = Counter(); exact = Counter(); total = Counter(); shown = 0
    opener = gzip.open if args.golden.endswith(".gz") else open
    for line in opener(args.golden, "rt"):
        case = json.loads(line)
        if args.family and case["family"] not in args.family:
            continue
        if case["crash"]:
            continue
        r = model_case(case)
        if r is None:
            continue
        reject, msgs = r
        fam = case["family"]
        total[fam] += 1
        got = [m["text"] for m in case["messages"] if m["line"] == case["line"]]
        verdict[fam] += (case["exit"] != 0) == reject
        exact[fam] += got == msgs
        if (got != msgs or (case["exit"] != 0) != reject) and shown < args.show:
            shown += 1
            print(f"{case['id']} {case['target']} {case['version']} {case['context']} {case['insn']}")
            print(f"   ptxas exit={case['exit']}: {got}")
            print(f"   model reject={reject}: {msgs}")
    if args.pairs:
        fams = {"gp_ld": "ld", "gp_st": "st", "gp_cpa": "cp.async", "gp_policy": "createpolicy",
                "gp_prefetch": "prefetch"}
        for f in sorted((HERE / "pairs").glob("gp_*.json")):
            fam = fams[f.stem]
            if args.family and fam not in args.family:
                continue
            key = "pairs:" + fam
            for label, tgt, ver, insn, out in json.load(open(f)):
                if not insn:
                    continue
                case = {"target": tgt, "version": ver, "context": "entry", "insn": insn,
                        "family": fam if fam != "ld" or ".nc" not in insn else "ld.global.nc",
                        "id": label, "pair": True}
                if any("Internal compiler error" in x for x in out):
                    continue   # a crash (§14), not a front-end verdict
                r = model_case(case)
                if r is None:
                    continue
                reject, msgs = r
                got = [re.sub(r"^\w+\s*: ", "", x) for x in out]
                total[key] += 1
                verdict[key] += any(x.startswith("error") or x.startswith("fatal") for x in out) == reject
                exact[key] += got == msgs
                if got != msgs and shown < args.show:
                    shown += 1
                    print(f"{label} {tgt} {ver} {insn}")
                    print(f"   ptxas: {got}")
                    print(f"   model reject={reject}: {msgs}")
    for fam in total:
        print(f"{fam:18s} cases {total[fam]:5d}  verdict {verdict[fam] / total[fam]:7.2%}  "
              f"messages {exact[fam] / total[fam]:7.2%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
