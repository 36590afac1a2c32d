#!/usr/bin/env python3
"""An independent, adversarial ptxas-parity set for the cache-control instructions.

Written without reference to gen_cases.py / gen_mutations.py / gen_gates.py / gen_multi.py:
every case is a small, complete module (header + one kernel of 1-4 interesting instructions)
built from randomly composed instructions (a fixed seed), then perturbed the way odd compiler
output or a boundary-probing tester would: qualifier order permutations, duplicated or dropped
qualifiers, wrong/missing types, wrong operand kinds and widths, immediates and symbols where
registers go, `[reg+imm]`/`[symbol+imm]`/`[imm]` addresses, vector braces of the wrong length,
`_` sinks, predicate guards, cache hints on the wrong state spaces, targets from sm_50 to
sm_121f (with `a`/`f` suffixes and a few that do not exist), `.version` 4.x … 9.x (a few that
do not exist) and `.address_size 32`.

Every module is assembled with `ptxas -arch=<arch> case.ptx -o /dev/null` (`<arch>` = the
`.target`, sm_75 when ptxas has no such GPU); exit code and complete output go to
adversarial.jsonl.gz (crates/ptx-check/tests/adversarial.rs compares ptxsim with it). Cases on
which ptxas crashed (signal, internal error) or gave different answers on repeated runs have
no verdict: they are left out of the data set and counted in adversarial.meta.json. Running
ptxas and checking the data are golden_driver.py's, shared with gen_gaps.py and gen_survey.py.

Usage:
  source ../../../shared/tools/cuda-tools.sh
  gen_adversarial.py --list              print the cases (id, family, module) as JSON lines
  gen_adversarial.py --run [--jobs 2]    run real ptxas on every case (twice; a third time if
                                         the two runs differ) and write adversarial.jsonl.gz
                                         and adversarial.meta.json next to this script
  gen_adversarial.py --verify            check adversarial.jsonl.gz matches this generator
"""

from __future__ import annotations

import random
import re
import sys

from golden_driver import golden_main

SEED = 20261125
GENERATOR_VERSION = 3

# ---------------------------------------------------------------------------------------------
# Module headers

# (target, -arch used to assemble). Targets below sm_75 assemble for sm_75 (ptxas 13.5 has no
# lower GPU; feature checks use .target).
MODERN_TARGETS = ["sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a",
                  "sm_100f", "sm_103", "sm_103a", "sm_110f", "sm_120", "sm_120a", "sm_121f"]
OLD_TARGETS = ["sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72", "sm_75"]
ODD_TARGETS = ["sm_91", "sm_75a", "sm_101", "sm_30", "sm_35", "sm_20", "sm_90f", "compute_90"]
VERSIONS_MODERN = ["8.0", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0", "9.1", "9.2", "9.3",
                   "9.4", "9.5"]
VERSIONS_OLD = ["4.0", "4.3", "5.0", "6.0", "6.1", "6.2", "6.3", "6.4", "6.5", "7.0", "7.1",
                "7.2", "7.3", "7.4", "7.5", "7.6", "7.7", "7.8"]
VERSIONS_ODD = ["6.6", "7.9", "8.9", "9.6", "10.0", "3.2", "9.50", "08.0"]


KNOWN_ARCHS = {"sm_75", "sm_80", "sm_86", "sm_87", "sm_88", "sm_89", "sm_90", "sm_90a",
               "sm_100", "sm_100a", "sm_100f", "sm_103", "sm_103a", "sm_103f", "sm_107",
               "sm_107a", "sm_107f", "sm_110", "sm_110a", "sm_110f", "sm_120", "sm_120a",
               "sm_120f", "sm_121", "sm_121a", "sm_121f"}


def arch_for(target: str) -> str:
    """-arch for a .target: itself when ptxas knows it as a GPU (`compute_XX` as the virtual
    architecture of a known sm_XX), else sm_75 (the lowest)."""
    if target.startswith("compute_") and "sm_" + target[8:] in KNOWN_ARCHS:
        return target
    return target if target in KNOWN_ARCHS else "sm_75"


MIN_VERSION = {"sm_50": "4.0", "sm_52": "5.0", "sm_53": "5.0", "sm_60": "5.0", "sm_61": "5.0",
               "sm_62": "5.0", "sm_70": "6.0", "sm_72": "6.1", "sm_75": "6.3", "sm_80": "7.0",
               "sm_86": "7.1", "sm_87": "7.4", "sm_89": "7.8", "sm_90": "7.8", "sm_90a": "8.0",
               "sm_100": "8.6", "sm_100a": "8.6", "sm_100f": "8.8", "sm_103": "8.8",
               "sm_103a": "8.8", "sm_110f": "9.0", "sm_120": "8.7", "sm_120a": "8.7",
               "sm_121f": "8.8"}


def vkey(v: str) -> tuple[int, int]:
    a, b = v.split(".")
    return int(a), int(b)


def pick_header(rng: random.Random, need_modern: bool = False) -> tuple[str, str, str]:
    r = rng.random()
    if need_modern or r < 0.55:
        t = rng.choice(MODERN_TARGETS)
        v = rng.choice(VERSIONS_MODERN)
    elif r < 0.93:
        t = rng.choice(OLD_TARGETS + MODERN_TARGETS)
        v = rng.choice(VERSIONS_OLD + VERSIONS_MODERN)
    elif r < 0.97:
        t = rng.choice(ODD_TARGETS)
        v = rng.choice(VERSIONS_MODERN)
    else:
        t = rng.choice(MODERN_TARGETS)
        v = rng.choice(VERSIONS_ODD)
    lo = MIN_VERSION.get(t)
    if lo and v in VERSIONS_OLD + VERSIONS_MODERN and vkey(v) < vkey(lo) and rng.random() < 0.8:
        v = rng.choice([x for x in VERSIONS_OLD + VERSIONS_MODERN if vkey(x) >= vkey(lo)])
    m = re.fullmatch(r"sm_(\d+)[af]?", t)
    low = m is not None and int(m.group(1)) < 90
    a = "32" if rng.random() < (0.12 if low else 0.015) else "64"
    return v, t, a


# ---------------------------------------------------------------------------------------------
# Operands


class Env:
    """Names the kernel declares, for one address size. `clean` cases draw only from the forms
    the ISA text allows (feature gates and spaces may still be wrong for the header); the others
    also draw odd forms."""

    def __init__(self, asz: str, clean: bool):
        self.asz = asz
        self.clean = clean
        w = "rd" if asz == "64" else "r"
        self.ptr = f"%{w}1"        # a global pointer (from the kernel parameter)
        self.ptr2 = f"%{w}2"
        self.sptr = f"%{w}3"       # a shared-window address

    def odd(self, rng: random.Random, p: float) -> bool:
        return (not self.clean) and rng.random() < p

    def pick(self, rng: random.Random, normal: list, odd: list, p: float):
        return rng.choice(odd) if odd and self.odd(rng, p) else rng.choice(normal)

    def rand_addr(self, rng: random.Random, space: str) -> str:
        """An address operand for `space` ('global', 'shared', 'local', 'generic', …)."""
        if space in ("shared", "shared::cta", "shared::cluster"):
            base = self.pick(rng, [self.sptr, "sbuf"], ["%r3", "%rd3", "gbuf"], 0.2)
        elif space == "local":
            base = self.pick(rng, ["lbuf", "%rd4"], [self.ptr], 0.3)
        elif space == "const":
            base = self.pick(rng, ["cbuf"], [self.ptr], 0.3)
        elif space.startswith("param"):
            base = self.pick(rng, ["p0"], ["%rd1"], 0.3)
        else:
            base = rng.choice([self.ptr, self.ptr, self.ptr2, "gbuf"])
        r = rng.random()
        if r < 0.65:
            return f"[{base}]"
        if r < 0.85:
            off = rng.choice(["4", "8", "16", "-4", "0x10", "1024", "-16", "0", "7"])
            return f"[{base}+{off}]" if not off.startswith("-") else f"[{base}{off}]"
        if r < 0.92:
            return rng.choice([f"[ {base} ]", f"[{base} + 8]", f"[{base}+ -8]", "[0]", "[64]",
                               "[0x100]"])
        if self.odd(rng, 0.8):
            return rng.choice([f"[{base}+%r5]", f"[{base}+{base}]", "[%f1]", "[%p1]", "[%rs1]",
                               f"[{base}]+4", f"{base}", f"[{base}", "[]", f"[[{base}]]",
                               f"[{base}+gbuf]", "[-8]", f"[{base}*2]", f"[{base}-gbuf]"])
        return f"[{base}]"


REG_BY_BITS = {8: "%rs", 16: "%rs", 32: "%r", 64: "%rd", 128: "%rq"}
FLOAT_REG = {32: "%f", 64: "%fd", 16: "%rs"}

LDST_TYPES = ["b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
              "f32", "f64"]
ODD_TYPES = ["b128", "f16", "f16x2", "bf16", "bf16x2", "pred", "tf32", "e4m3", "u128", "s128",
             "b256", "v2", "f8"]


def type_bits(t: str) -> int:
    m = re.search(r"(\d+)", t)
    if t in ("f16x2", "bf16x2"):
        return 32
    if t == "pred":
        return 1
    return int(m.group(1)) if m else 32


def reg_for(t: str, idx: int) -> str:
    bits = type_bits(t)
    if t.startswith("f") and bits in (32, 64):
        return f"{FLOAT_REG[bits]}{idx}"
    if t == "pred":
        return f"%p{idx}"
    return f"{REG_BY_BITS.get(bits, '%r')}{idx}"


def wrong_reg(rng: random.Random, idx: int) -> str:
    return rng.choice([f"%r{idx}", f"%rd{idx}", f"%rs{idx}", f"%f{idx}", f"%fd{idx}", f"%p{idx}",
                       f"%rq{idx}", "%tid.x", "%laneid", f"%nosuch{idx}", "gbuf", "%r99"])


def data_operand(rng: random.Random, env: Env, t: str, vec: int, is_store: bool) -> str:
    def one(i: int) -> str:
        if env.odd(rng, 0.12):
            return wrong_reg(rng, i + 1)
        if is_store and rng.random() < 0.07:
            if t.startswith("f"):
                return rng.choice(["0f3F800000", "1.0", "0d3FF0000000000000", "0"])
            return rng.choice(["0", "1", "-1", "0x7f", "255"])
        if (not is_store) and vec > 1 and rng.random() < 0.06:
            return "_"
        return reg_for(t, i + 1)

    if vec == 1:
        x = one(0)
        if env.odd(rng, 0.04):
            x = rng.choice(["{" + x + "}", "_"])
        return x
    n = vec
    if env.odd(rng, 0.08):
        n = rng.choice([vec - 1, vec + 1, 1, 2, 4, 8])
    elems = [one(i) for i in range(max(n, 1))]
    if env.odd(rng, 0.04):
        return ", ".join(elems)  # no braces
    if rng.random() < 0.02 and not is_store:
        return "{" + ", ".join(["_"] * n) + "}"
    return "{" + ", ".join(elems) + "}"


def policy_operand(rng: random.Random, env: Env) -> str:
    return env.pick(rng, ["%rd9"], ["%r9", "%rs9", "%f1", "%fd1", "0", "0x100000000", "%p1",
                                    "gbuf", "_", "%rq1", "[%rd9]", "-1", "%rd99"], 0.25)


# ---------------------------------------------------------------------------------------------
# Instruction builders. Each returns {family, op, quals, types, ops}


def ld_like(rng: random.Random, env: Env, store: bool, nc: bool) -> dict:
    op = "st" if store else "ld"
    quals: list[str] = []
    order = ".release" if store else ".acquire"
    sems = ["", "", "", ".weak", ".volatile", ".relaxed", order, ".mmio.relaxed", ".relaxed"]
    if nc:
        sems = ["", "", "", "", "", ".weak"]
    sem = env.pick(rng, sems, [".acquire", ".release", ".mmio.acquire", ".mmio.release",
                               ".volatile.relaxed", ".relaxed.weak", ".mmio", ".relaxed",
                               ".volatile"], 0.12)
    if sem:
        quals += sem.split(".")[1:]
    scope = None
    if any(x in sem for x in ("relaxed", "acquire", "release")):
        scope = rng.choice(["cta", "gpu", "sys", "cluster", "sys", "gpu"])
        if "mmio" in sem and rng.random() < 0.7:
            scope = "sys"
        if env.odd(rng, 0.1):
            scope = rng.choice([None, "gpu.sys", "warp", "cluster"])
    elif env.odd(rng, 0.05):
        scope = rng.choice(["cta", "gpu", "sys", "cluster"])
    if scope:
        quals += scope.split(".")
    # state space
    if nc:
        space = env.pick(rng, ["global"], ["shared", "", "local", "const", "param"], 0.12)
    else:
        normal = ["global"] * 6 + ["", "", "shared", "shared::cta", "shared::cluster", "local",
                                   "param::func", "param::entry", "param"]
        if not store:
            normal.append("const")
        space = env.pick(rng, normal, ["const", "param::kernel", "shared::gpu", "tex",
                                       "global::cta", "shared::cta::cta"], 0.06)
    if space:
        quals.append(space)
    if nc:
        quals.append("nc")
    # cache operator
    cops = ["ca", "cg", "cs", "lu", "cv"] if not store else ["wb", "cg", "cs", "wt"]
    if rng.random() < 0.33:
        quals.append(env.pick(rng, cops, ["ca", "lu", "cv", "wb", "wt", "nc", "L1", "L2"], 0.2))
    # eviction priorities
    if rng.random() < 0.33:
        quals.append(env.pick(rng, ["L1::evict_normal", "L1::evict_unchanged", "L1::evict_first",
                                    "L1::evict_last", "L1::no_allocate"],
                              ["evict_last", "L1::evict_any", "L1::evict_last::L2",
                               "L1::no_allocate", "L3::evict_last"], 0.15))
    l2e = False
    if rng.random() < 0.14:
        quals.append(env.pick(rng, ["L2::evict_normal", "L2::evict_first", "L2::evict_last"],
                              ["L2::evict_unchanged", "L2::no_allocate"], 0.2))
        l2e = True
    hint = rng.random() < 0.33
    if hint:
        quals.append("L2::cache_hint")
    if rng.random() < 0.22:
        quals.append(env.pick(rng, ["L2::64B", "L2::128B", "L2::256B"],
                              ["L2::32B", "L2::512B", "L1::128B", "L2::64b"], 0.15))
    # vector + type
    vec = 1
    if rng.random() < 0.3:
        vec = env.pick(rng, [2, 4, 8, 2, 4], [3, 16, 1], 0.1)
        quals.append(f"v{vec}")
    if l2e or vec == 8 or rng.random() < 0.1:
        # the 256-bit forms
        t = rng.choice(["b32", "u32", "f32", "s32", "b64", "u64", "f64", "s64", "b16", "b8"])
    elif env.odd(rng, 0.1):
        t = rng.choice(ODD_TYPES)
    elif rng.random() < 0.04:
        t = "b128"
    else:
        t = rng.choice(LDST_TYPES)
    types = [t]
    nv = vec if vec in (1, 2, 4, 8) else 4
    data = data_operand(rng, env, t, nv, store)
    addr = env.rand_addr(rng, space or "generic")
    if env.odd(rng, 0.04) or (not store and rng.random() < 0.02):
        addr += ".unified"
    ops = [addr, data] if store else [data, addr]
    if hint and not env.odd(rng, 0.1):
        ops.append(policy_operand(rng, env))
    elif env.odd(rng, 0.03):
        ops.append(policy_operand(rng, env))
    fam = "st" if store else ("ld.global.nc" if nc else "ld")
    return {"family": fam, "op": op, "quals": quals, "types": types, "ops": ops}


def createpolicy(rng: random.Random, env: Env) -> dict:
    kind = rng.choice(["fractional", "fractional", "range", "range", "cvt"])
    quals = [kind]
    prios = ["L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged"]
    secs = ["L2::evict_first", "L2::evict_unchanged"]
    if kind == "cvt":
        quals.append(env.pick(rng, ["L2"], ["L1", "L2::evict_last", "global", "L2::cache_hint"],
                              0.25))
        ops = ["%rd9", env.pick(rng, ["%rd8"], ["%r8", "0", "0x10", "%fd1", "gbuf", "[%rd8]"],
                                0.3)]
    else:
        if kind == "range" and rng.random() < 0.55:
            quals.append(env.pick(rng, ["global"], ["shared", "local", "global::cta", "const"],
                                  0.3))
        quals.append(env.pick(rng, prios, ["L1::evict_last", "evict_last", "L2::no_allocate",
                                           "L2::cache_hint", "L2::128B", "L1::no_allocate"], 0.12))
        if rng.random() < 0.45:
            quals.append(env.pick(rng, secs, prios, 0.3))
        if kind == "fractional":
            ops = ["%rd9"]
            r = rng.random()
            if r < 0.85:
                ops.append(env.pick(rng, ["1.0", "0.5", "0.25", "0f3F000000", "0f3F800000",
                                          "%f1", "0.75", "0d3FE0000000000000", "1", "0.0", "0"],
                                    ["2.0", "-0.5", "1.5", "%fd1", "%r1", "0f40000000", "1e0",
                                     ".5", "0F3F000000", "0.999999", "0f00000000", "5e-1",
                                     "0fBF800000", "%rd1", "gbuf", "0x1"], 0.35))
            elif env.odd(rng, 0.5):
                ops += ["%f1", "%f2"]
        else:
            ops = ["%rd9", env.rand_addr(rng, "global")]
            sizes = ["%r4", "64", "128", "0x1000", "%r5", "4294967295", "0"]
            odd_sizes = ["4294967296", "%rd4", "-1", "1.0", "%rs4", "%f1"]
            ops.append(env.pick(rng, sizes, odd_sizes, 0.25))
            ops.append(env.pick(rng, sizes, odd_sizes, 0.25))
            if env.odd(rng, 0.05):
                ops.pop()
    if env.odd(rng, 0.06):
        ops[0] = rng.choice(["%r9", "_", "%f1", "%rs9", "0", "%p1", "%fd9"])
    t = env.pick(rng, ["b64"], ["b32", "u64", "s64", "b128", "", "f64"], 0.12)
    return {"family": "createpolicy", "op": "createpolicy", "quals": quals,
            "types": [t] if t else [], "ops": ops}


def prefetch(rng: random.Random, env: Env) -> dict:
    op = "prefetch" if rng.random() < 0.82 else "prefetchu"
    quals = []
    if op == "prefetch":
        sp = env.pick(rng, ["global", "global", "", "local", "global"],
                      ["shared", "const", "param", "shared::cta"], 0.2)
        lvl = rng.choice(["L1", "L2", "L2::evict_last", "L2::evict_normal", "L2", "L1"])
        if rng.random() < 0.12:
            lvl = "tensormap"
            sp = rng.choice(["", "const", "param", "global"])
        lvl = env.pick(rng, [lvl], ["L2::evict_first", "L2::evict_unchanged", "L1::evict_last",
                                    "L2::128B", "L3"], 0.15)
        if sp:
            quals.append(sp)
        quals.append(lvl)
        if env.odd(rng, 0.05):
            quals.append(rng.choice(["L1", "L2", "L2::evict_last"]))
    else:
        quals.append(env.pick(rng, ["L1"], ["L2", "global"], 0.2))
        if env.odd(rng, 0.1):
            quals.insert(0, "global")
        sp = ""
    ops = [env.rand_addr(rng, sp or "generic")]
    if env.odd(rng, 0.04):
        ops.append(rng.choice(["%rd9", "128"]))
    types = [rng.choice(["b32", "u64"])] if env.odd(rng, 0.05) else []
    return {"family": "prefetch", "op": op, "quals": quals, "types": types, "ops": ops}


def applypriority_discard(rng: random.Random, env: Env) -> dict:
    op = rng.choice(["applypriority", "discard"])
    quals = []
    sp = env.pick(rng, ["global", "global", ""], ["shared", "local", "global::cta"], 0.2)
    if sp:
        quals.append(sp)
    if op == "applypriority":
        quals.append(env.pick(rng, ["L2::evict_normal"], ["L2::evict_last", "L2::evict_first",
                                                          "L2", "L1::evict_normal",
                                                          "L2::evict_unchanged"], 0.3))
    else:
        quals.append(env.pick(rng, ["L2"], ["L1", "L2::evict_normal", "L2::128B"], 0.2))
    ops = [env.rand_addr(rng, sp or "generic")]
    size = env.pick(rng, ["128", "0x80"], ["64", "256", "%r4", "127", "%rd4", "128.0"], 0.3)
    if not env.odd(rng, 0.06):
        ops.append(size)
    types = [rng.choice(["b64", "b32", "u64"])] if env.odd(rng, 0.06) else []
    return {"family": "applypriority/discard", "op": op, "quals": quals, "types": types,
            "ops": ops}


def cp_async(rng: random.Random, env: Env) -> dict:
    quals = [env.pick(rng, ["ca", "cg"], ["cs", "lu", "cv", "wb"], 0.1)]
    dsp = env.pick(rng, ["shared", "shared::cta"], ["shared::cluster", "global", "local", ""],
                   0.12)
    ssp = env.pick(rng, ["global"], ["shared", "", "const"], 0.1)
    if dsp:
        quals.append(dsp)
    if ssp:
        quals.append(ssp)
    if env.odd(rng, 0.12):
        quals.append(rng.choice(["L1::evict_last", "L2::evict_last", "L1::no_allocate",
                                 "L2::evict_first", "relaxed", "weak"]))
    hint = rng.random() < 0.3
    if hint:
        quals.append("L2::cache_hint")
    if rng.random() < 0.3:
        quals.append(env.pick(rng, ["L2::64B", "L2::128B", "L2::256B"], ["L2::32B"], 0.1))
    types = [rng.choice(["b32", "u64", "b128"])] if env.odd(rng, 0.05) else []
    dst = env.rand_addr(rng, "shared")
    src = env.rand_addr(rng, "global")
    size = env.pick(rng, ["4", "8", "16"], ["2", "32", "12", "%r4", "0x10", "16.0"], 0.15)
    ops = [dst, src, size]
    r = rng.random()
    if r < 0.2:
        ops.append(env.pick(rng, ["%r5", "0", "4", "8", "16"], ["%rd5", "%rs5", "-1", "17"],
                            0.2))
    elif r < 0.3:
        ops.append(env.pick(rng, ["%p1"], ["!%p1", "%r5"], 0.3))
    elif r < 0.35:
        ops += [rng.choice(["%r5", "0", "4"]), env.pick(rng, ["%p1"], ["%r6", "%rd9"], 0.3)]
    if hint:
        ops.append(policy_operand(rng, env))
    elif env.odd(rng, 0.03):
        ops.append("%rd9")
    return {"family": "cp.async", "op": "cp.async", "quals": quals, "types": types, "ops": ops}


def cp_async_group(rng: random.Random, env: Env) -> dict:
    r = rng.random()
    if r < 0.25:
        q, ops = ["commit_group"], []
        if env.odd(rng, 0.1):
            ops = [rng.choice(["0", "%r1"])]
    elif r < 0.5:
        q = ["wait_group"]
        ops = [env.pick(rng, ["0", "1", "7", "0x2"], ["%r1", "-1", "4294967295", "1.0", "N"],
                        0.3)]
        if env.odd(rng, 0.08):
            ops = []
    elif r < 0.62:
        q, ops = ["wait_all"], []
        if env.odd(rng, 0.1):
            ops = ["0"]
    else:
        q = ["mbarrier", "arrive"]
        if rng.random() < 0.45:
            q.append("noinc")
        sp = env.pick(rng, ["shared", "shared::cta", ""], ["shared::cluster", "global"], 0.15)
        if sp:
            q.append(sp)
        q.append(env.pick(rng, ["b64"], ["b32", "u64", ""], 0.2))
        if q[-1] == "":
            q.pop()
        ops = [env.rand_addr(rng, "shared")]
        if env.odd(rng, 0.05):
            ops.insert(0, "%rd9")
    if env.odd(rng, 0.05) and len(q) > 1:
        rng.shuffle(q)
    fam = "cp.async.mbarrier" if "mbarrier" in q else "cp.async.group"
    return {"family": fam, "op": "cp.async", "quals": q, "types": [], "ops": ops}


BUILDERS = [
    (ld_like, dict(store=False, nc=False), 950),
    (ld_like, dict(store=True, nc=False), 650),
    (ld_like, dict(store=False, nc=True), 330),
    (createpolicy, {}, 400),
    (prefetch, {}, 230),
    (applypriority_discard, {}, 230),
    (cp_async, {}, 550),
    (cp_async_group, {}, 230),
]


# ---------------------------------------------------------------------------------------------
# Perturbations


def perturb(rng: random.Random, insn: dict) -> list[str]:
    """Apply 0-2 structural perturbations in place; return their names."""
    applied = []
    n = 0
    r = rng.random()
    if r < 0.6:
        n = 1
    elif r < 0.75:
        n = 2
    for _ in range(n):
        k = rng.choice(["swap", "swap", "dup", "drop_type", "retype", "drop_op", "extra_op",
                        "shuffle", "drop_qual", "case", "space", "twotypes", "move_type"])
        q = insn["quals"]
        if k == "swap" and len(q) >= 2:
            i = rng.randrange(len(q) - 1)
            q[i], q[i + 1] = q[i + 1], q[i]
        elif k == "shuffle" and len(q) >= 3:
            rng.shuffle(q)
        elif k == "dup" and q:
            i = rng.randrange(len(q))
            q.insert(rng.randrange(len(q) + 1), q[i])
        elif k == "drop_qual" and q:
            q.pop(rng.randrange(len(q)))
        elif k == "drop_type" and insn["types"]:
            insn["types"] = []
        elif k == "retype":
            insn["types"] = [rng.choice(LDST_TYPES + ODD_TYPES)]
        elif k == "twotypes":
            insn["types"] = insn["types"] + [rng.choice(LDST_TYPES)]
        elif k == "move_type" and insn["types"] and q:
            t = insn["types"].pop()
            q.insert(rng.randrange(len(q)), t)
        elif k == "drop_op" and insn["ops"]:
            insn["ops"].pop(rng.randrange(len(insn["ops"])))
        elif k == "extra_op":
            insn["ops"].append(rng.choice(["%rd9", "%r1", "0", "%p1"]))
        elif k == "case" and q:
            i = rng.randrange(len(q))
            q[i] = q[i].upper() if rng.random() < 0.5 else q[i].capitalize()
        elif k == "space":
            insn["space_before_quals"] = True
        else:
            continue
        applied.append(k)
    return applied


def render(insn: dict) -> str:
    name = insn["op"]
    dotted = "".join("." + x for x in insn["quals"]) + "".join("." + t for t in insn["types"])
    if insn.get("space_before_quals") and dotted:
        name += " "
    s = name + dotted
    if insn["ops"]:
        s += " " + ", ".join(insn["ops"])
    s += ";"
    g = insn.get("guard")
    if g:
        s = f"{g} {s}"
    return s


# ---------------------------------------------------------------------------------------------
# Modules


def module(version: str, target: str, asz: str, body: list[str], b128: bool,
           extra_decls: list[str]) -> str:
    w64 = asz == "64"
    pt = "u64" if w64 else "u32"
    a = "rd" if w64 else "r"
    lines = [
        f".version {version}",
        f".target {target}",
        f".address_size {asz}",
        "",
        ".global .align 16 .b8 gbuf[4096];",
        ".const .align 16 .b8 cbuf[256];",
        ".shared .align 16 .b8 sbuf[4096];",
        *extra_decls,
        "",
        f".visible .entry kern(.param .{pt} p0)",
        "{",
        "\t.reg .pred %p<8>;",
        "\t.reg .b16 %rs<16>;",
        "\t.reg .b32 %r<16>;",
        "\t.reg .b64 %rd<16>;",
        "\t.reg .f32 %f<16>;",
        "\t.reg .f64 %fd<16>;",
    ]
    if b128:
        lines.append("\t.reg .b128 %rq<4>;")
    lines += [
        "\t.local .align 16 .b8 lbuf[64];",
        "",
        f"\tld.param.{pt} %{a}1, [p0];",
        f"\tcvta.to.global.{pt} %{a}1, %{a}1;",
        f"\tadd.{'s64' if w64 else 's32'} %{a}2, %{a}1, 256;",
        f"\tmov.{pt} %{a}3, sbuf;",
        "\tmov.u32 %r4, 128;",
        "\tmov.u32 %r5, 8;",
        "\tsetp.ne.u32 %p1, %r5, 0;",
    ]
    if w64:
        lines.append("\tmov.u64 %rd4, lbuf;")
    lines += [f"\t{b}" for b in body]
    lines += ["\tret;", "}", ""]
    return "\n".join(lines)


def make_one(rng: random.Random, builder, kw) -> tuple[dict, list[str]]:
    v, t, a = pick_header(rng)
    clean = rng.random() < 0.6
    env = Env(a, clean)
    insn = builder(rng, env, **kw)
    fam = insn["family"]
    applied = [] if clean else perturb(rng, insn)
    r = rng.random()
    if r < 0.07:
        insn["guard"] = rng.choice(["@%p1", "@!%p1", "@%p2", "@%r1", "@!%p7", "@%p9", "@ %p1"])
        applied.append("guard")
    body = []
    # the policy register is written by a createpolicy first when the instruction takes one
    text = render(insn)
    policy_needed = "%rd9" in text and insn["op"] != "createpolicy"
    if policy_needed and rng.random() < 0.5:
        body.append("createpolicy.fractional.L2::evict_last.b64 %rd9, 1.0;")
        applied.append("policy_from_createpolicy")
    elif policy_needed:
        body.append("mov.b64 %rd9, 0;")
    if insn["op"] == "createpolicy" and "%rd8" in text:
        body.append("mov.b64 %rd8, 0;")
    body.append(text)
    if rng.random() < 0.06:
        body.insert(len(body) - 1, "LBL0:")
        applied.append("label")
    b128 = "%rq" in text or rng.random() < 0.05
    rec = {"family": fam, "clean": clean, "target": t, "version": v, "address_size": a,
           "insn": text, "perturbations": applied}
    return rec, [module(v, t, a, body, b128, [])]


def make_multi(rng: random.Random) -> tuple[dict, list[str]]:
    """Interplay: a few instructions of different families in one module."""
    v, t, a = pick_header(rng, need_modern=rng.random() < 0.7)
    env = Env(a, rng.random() < 0.7)
    body = []
    texts = []
    k = rng.randint(2, 4)
    for _ in range(k):
        builder, kw, _n = rng.choice(BUILDERS)
        insn = builder(rng, env, **kw)
        if not env.clean and rng.random() < 0.25:
            perturb(rng, insn)
        texts.append(render(insn))
    if any("%rd9" in x for x in texts):
        body.append("createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd9, 0.5;")
    body += texts
    if rng.random() < 0.3:
        body.append("cp.async.commit_group;")
        body.append("cp.async.wait_group 0;")
    b128 = any("%rq" in x for x in texts)
    rec = {"family": "multi", "clean": env.clean, "target": t, "version": v, "address_size": a,
           "insn": " | ".join(texts), "perturbations": []}
    return rec, [module(v, t, a, body, b128, [])]


SYNTAX_FORMS = [
    # (template, needs) — `{a}` is the global pointer register, `{s}` the shared one
    "ld.global.u32 %r1, [{a}], _;",
    "ld.global.u32 %r1, [[{a}]];",
    "ld.global.u32 %r1, [];",
    "ld.global.v2.u32 {{%r1, _}}, [{a}];",
    "ld.global.v2.u32 {{_, _}}, [{a}];",
    "ld.global.u32 _, [{a}];",
    "st.global.u32 [{a}], _;",
    "st.global.v2.u32 [{a}], {{%r1, _}};",
    "st.global.u32 [[{a}]], %r1;",
    "cp.async.ca.shared.global [{s}], [{a}], 4, _;",
    "cp.async.ca.shared.global [{s}], _, 4;",
    "cp.async.cg.shared.global [[{s}]], [{a}], 16;",
    "createpolicy.fractional.L2::evict_last.b64 %rd9, _;",
    "createpolicy.fractional.L2::evict_last.b64 _, 1.0;",
    "createpolicy.range.L2::evict_last.b64 %rd9, [[{a}]], 64, 64;",
    "prefetch.global.L2 _;",
    "prefetch.global.L2 [[{a}]];",
    "prefetch.global.L2 [];",
    "applypriority.global.L2::evict_normal _, 128;",
    "applypriority.global.L2::evict_normal [{a}], _;",
    "discard.global.L2 [[{a}]], 128;",
    "discard.global.L2 [], 128;",
    "add.u32 _, %r1, %r2;",
    "add.u32 %r1, _, %r2;",
    "mov.u32 _, %r1;",
    "mov.b64 _, {{%r1, %r2}};",
    "cvt.u32.u64 _, %rd1;",
    "cvta.to.global.u64 _, %rd1;",
    "mul.wide.u32 _, %r1, %r2;",
    "mad.lo.u32 _, %r1, %r2, %r1;",
    "setp.eq.u32 _, %r1, %r2;",
    "selp.u32 _, %r1, %r2, %p1;",
    "lop3.b32 _, %r1, %r2, %r3, 0x96;",
    "atom.global.add.u32 _, [{a}], 1;",
    "atom.global.cas.b32 _, [{a}], 1, 2;",
    "mbarrier.arrive.shared.b64 _, [{s}];",
    "mbarrier.test_wait.shared.b64 _, [{s}], %rd5;",
    "shfl.sync.idx.b32 _, %r1, 0, 31, -1;",
    "vote.sync.ballot.b32 _, %p1, -1;",
    "add.u32 %r1, [[{a}]], 1;",
    "ld.global.u32 %laneid, [{a}];",
    "st.global.u32 [{a}], %tid.x;",
    "ld.global.u32 %r1, [%laneid];",
    "ld.global.nc.u64 %clock64, [{a}];",
    "st.global.v2.u32 [{a}], {{%tid.x, %r1}};",
    "ld.global.v2.pred {{%r1, gbuf}};",
    "ld.global.pred %p1;",
    "st.global.L2::128B.u32 [{a}];",
    "ld.global.b32.b32 %r1, [{a}], %rd9, %rd1;",
    "ld.global.u32 %r1, [nosuch], %rd9, %rd1;",
]


def make_syntax(rng: random.Random) -> tuple[dict, list[str]]:
    """Operand syntax ptxas's grammar rejects or restricts (`_` outside the first operand,
    `[[…]]`, `[]`, `_` as the result), with scan-stage messages in front of some."""
    v, t, a = pick_header(rng, need_modern=rng.random() < 0.8)
    if a == "32":
        a = "64"
    form = rng.choice(SYNTAX_FORMS)
    text = form.format(a="%rd1", s="%rd3")
    cache_control = text.split(".")[0] in ("ld", "st", "cp", "createpolicy", "prefetch",
                                            "applypriority", "discard")
    if rng.random() < 0.3 and cache_control:
        # a modifier ptxas reports while scanning, before the syntax error (on the cache-control
        # instructions only: ptx-check checks only the gates of the others, §19)
        op, _, rest = text.partition(" ")
        text = op + rng.choice([".foo", ".L1", ".weak", ".global"]) + " " + rest
    body = []
    if rng.random() < 0.25:
        body.append("LBL1:")
    if rng.random() < 0.2:
        body.append("@%p1 bra LBL2;")
        body.append("LBL2:")
    body.append(text)
    if rng.random() < 0.3:
        body.append("ld.global.u32 %r2, [%rd1];")
    rec = {"family": "syntax", "clean": False, "target": t, "version": v, "address_size": a,
           "insn": text, "perturbations": []}
    return rec, [module(v, t, a, body, False, [])]


COMPUTE_TARGETS = ["compute_75", "compute_80", "compute_90", "compute_90a", "compute_100f",
                   "compute_120", "compute_121f", "compute_89", "compute_103a"]


def make_header(rng: random.Random) -> tuple[dict, list[str]]:
    """A clean instruction under `.target compute_XX` or a `.version` below 6.0."""
    builder, kw, _n = rng.choice(BUILDERS)
    if rng.random() < 0.6:
        t = rng.choice(COMPUTE_TARGETS)
        v = rng.choice(VERSIONS_MODERN + ["7.0", "7.4", "7.8"])
    else:
        t = rng.choice(["sm_50", "sm_52", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80"])
        v = rng.choice(["4.0", "4.3", "5.0", "5.1", "6.0"])
    env = Env("64", True)
    insn = builder(rng, env, **kw)
    text = render(insn)
    body = []
    if "%rd9" in text and insn["op"] != "createpolicy":
        body.append("mov.b64 %rd9, 0;")
    if insn["op"] == "createpolicy" and "%rd8" in text:
        body.append("mov.b64 %rd8, 0;")
    body.append(text)
    rec = {"family": "header", "clean": True, "target": t, "version": v, "address_size": "64",
           "insn": text, "perturbations": []}
    return rec, [module(v, t, "64", body, "%rq" in text, [])]


def generate() -> list[dict]:
    rng = random.Random(SEED)
    cases = []
    seen = set()
    i = 0
    for builder, kw, n in BUILDERS:
        made = 0
        tries = 0
        while made < n and tries < n * 4:
            tries += 1
            rec, (ptx,) = make_one(rng, builder, kw)
            if ptx in seen:
                continue
            seen.add(ptx)
            i += 1
            made += 1
            rec["id"] = f"adv-{i:05d}"
            rec["ptx"] = ptx
            rec["arch"] = arch_for(rec["target"])
            cases.append(rec)
    for _ in range(300):
        rec, (ptx,) = make_multi(rng)
        if ptx in seen:
            continue
        seen.add(ptx)
        i += 1
        rec["id"] = f"adv-{i:05d}"
        rec["ptx"] = ptx
        rec["arch"] = arch_for(rec["target"])
        cases.append(rec)
    for maker, n in ((make_syntax, 260), (make_header, 260)):
        for _ in range(n):
            rec, (ptx,) = maker(rng)
            if ptx in seen:
                continue
            seen.add(ptx)
            i += 1
            rec["id"] = f"adv-{i:05d}"
            rec["ptx"] = ptx
            rec["arch"] = arch_for(rec["target"])
            cases.append(rec)
    return cases


if __name__ == "__main__":
    sys.exit(golden_main(__doc__.splitlines()[0], "adversarial", generate,
                         arch_rule="arch = .target, or sm_75 when .target is below sm_75 or "
                                   "unknown",
                         generator_version=GENERATOR_VERSION, seed=SEED))
