#!/usr/bin/env python3
"""Deterministic generator of single-instruction PTX modules for the ptxas parity corpus.

Every case is one complete PTX module built from the same template: `.version`, `.target`,
`.address_size 64`, module-scope `.global`/`.const`/`.shared` buffers, a device function `fn`
(so a call block can exist), and one `.entry` that declares registers of every width
(`.pred`, `.b8`, `.b16`, `.b32`, `.b64`, `.f16`, `.f32`, `.f64`, typed `.u/.s` registers and,
where ptxas allows it, `.b128`), a `.local` buffer and a call block with `.param` variables.
The instruction under test always sits on line `INSN_LINE` inside that call block.

The cases cover `ld` (all state spaces and qualifiers), `ld.global.nc`, `st`, `cp.async` and its
group/mbarrier companions, `createpolicy` and `prefetch`/`prefetchu`, legal and illegal, over
targets sm_50 ... sm_121f and `.version` 6.0 ... 9.5. They are drawn by stratified sampling:
for every grammar axis every value is exercised on its own (single-axis sweeps), then random
multi-axis combinations, then hand-picked boundary cases; each case gets a (target, version)
pair that concentrates on the minimum target / minimum version of the features it uses. A fixed
seed makes the set stable: running this script twice gives byte-identical output.

Usage:
    gen_cases.py [--out cases.jsonl] [--stats]

`run_ptxas.py` imports `generate()` from here, runs real ptxas on each module and writes
`golden.jsonl`.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass, field

SEED = 0x9A7C5
GENERATOR_VERSION = 1

# --------------------------------------------------------------------------------------------
# Targets and PTX versions known to ptxas 13.5 (`ptxas --help`, option --gpu-name), with the
# lowest `.version` that ptxas accepts for each `.target` (measured: below it ptxas reports
# "PTX .version X does not support .target sm_NN").
# --------------------------------------------------------------------------------------------
TARGET_MIN_VERSION = {
    "sm_50": "4.0", "sm_52": "5.0", "sm_53": "5.0",
    "sm_60": "5.0", "sm_61": "5.0", "sm_62": "5.0",
    "sm_70": "6.0", "sm_72": "6.1", "sm_75": "6.3",
    "sm_80": "7.0", "sm_86": "7.1", "sm_87": "7.4", "sm_88": "9.0", "sm_89": "7.8",
    "sm_90": "7.8", "sm_90a": "8.0",
    "sm_100": "8.6", "sm_100a": "8.6", "sm_100f": "8.8",
    "sm_103": "8.8", "sm_103a": "8.8", "sm_103f": "8.8",
    "sm_107": "9.4", "sm_107a": "9.4", "sm_107f": "9.4",
    "sm_110": "9.0", "sm_110a": "9.0", "sm_110f": "9.0",
    "sm_120": "8.7", "sm_120a": "8.7", "sm_120f": "8.8",
    "sm_121": "8.8", "sm_121a": "8.8", "sm_121f": "8.8",
}
TARGETS = list(TARGET_MIN_VERSION)
# Targets drawn more often: the ones the issue names explicitly.
MAIN_TARGETS = ["sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70", "sm_72",
                "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a", "sm_100",
                "sm_100a", "sm_103", "sm_110", "sm_120", "sm_120a"]
VERSIONS = ["6.0", "6.1", "6.2", "6.3", "6.4", "6.5",
            "7.0", "7.1", "7.2", "7.3", "7.4", "7.5", "7.6", "7.7", "7.8",
            "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8",
            "9.0", "9.1", "9.2", "9.3", "9.4", "9.5"]


def vkey(v: str) -> tuple[int, int]:
    major, minor = v.split(".")
    return int(major), int(minor)


def sm_number(target: str) -> int:
    return int(re.match(r"sm_(\d+)", target).group(1))


def ptxas_arch(target: str) -> str:
    """The -arch= value to run ptxas with: ptxas 13.5 knows no GPU below sm_75, but a module
    whose `.target` is lower may be assembled for sm_75 (features are checked against `.target`)."""
    return target if sm_number(target) >= 75 else "sm_75"


def b128_registers_allowed(target: str, version: str) -> bool:
    """ptxas rejects `.reg .b128` below sm_70 or below PTX ISA 8.3."""
    return sm_number(target) >= 70 and vkey(version) >= (8, 3)


HEADER = """\
.version {version}
.target {target}
.address_size 64

// ptxsim parity case {id} ({family}, context {context})
.global .align 16 .b8 gbuf[1024];
.const .align 16 .b8 cbuf[1024];
.shared .align 16 .b8 sbuf[1024];
"""
REGISTERS = """\
	.reg .pred %p<4>;
	.reg .b16 %rs<10>;
	.reg .b32 %r<10>;
	.reg .b64 %rd<10>;
	.reg .f32 %f<10>;
	.reg .f64 %fd<10>;
	.reg .u16 %us<4>;
	.reg .s16 %ss<4>;
	.reg .u32 %u<4>;
	.reg .s32 %s<4>;
	.reg .u64 %ul<4>;
	.reg .s64 %sl<4>;
	.reg .f16 %h<4>;
	.reg .b8 %b<4>;
	{b128}
"""
# Context "entry": the instruction sits in the kernel, inside a call block, before the call.
# Context "after_call": the same, but after the call (where ld.param of the return value belongs).
# Context "func": the instruction sits in the device function `fn` (own params fa, fb, fr).
TEMPLATES = {
    "entry": HEADER + """
.func (.param .b32 fr) fn(.param .b32 fa, .param .b64 fb)
{{
	ret;
}}

.visible .entry k(
	.param .u64 kp
)
{{
	.local .align 16 .b8 lbuf[256];
""" + REGISTERS + """\
	{{
	.param .b32 pa;
	.param .b64 pb;
	.param .b32 pr;
	{insn}
	call.uni (pr), fn, (pa, pb);
	}}
	ret;
}}
""",
    "after_call": HEADER + """
.func (.param .b32 fr) fn(.param .b32 fa, .param .b64 fb)
{{
	ret;
}}

.visible .entry k(
	.param .u64 kp
)
{{
	.local .align 16 .b8 lbuf[256];
""" + REGISTERS + """\
	{{
	.param .b32 pa;
	.param .b64 pb;
	.param .b32 pr; call.uni (pr), fn, (pa, pb);
	{insn}
	// the call is on the line above
	}}
	ret;
}}
""",
    "func": HEADER + """
.func (.param .b32 fr) fn(
	.param .b32 fa,
	.param .b64 fb
)
{{
	.local .align 16 .b8 lbuf[256];
""" + REGISTERS + """\
	// The instruction under test sits in a device function:
	// no kernel parameters are visible here;
	// fa and fb are this function's parameters,
	// fr is its return value.
	//
	//
	//
	//
	{insn}
	ret;
}}

.visible .entry k(
	.param .u64 kp
)
{{
	.reg .b32 %x<2>;
	{{
	.param .b32 pa;
	.param .b64 pb;
	.param .b32 pr;
	call.uni (pr), fn, (pa, pb);
	}}
	ret;
}}
""",
}
INSN_LINE = 39
CONTEXTS = list(TEMPLATES)
B128_DECL = ".reg .b128 %rq<4>;"
B128_NONE = "// no .b128 registers: ptxas needs sm_70 and PTX ISA 8.3 for them"


def render_module(case_id: str, family: str, target: str, version: str, insn: str,
                  context: str = "entry") -> str:
    """The module text. `.b128` registers are declared where ptxas allows them, and also
    wherever the instruction names one (%rq), so that the instruction itself is checked even
    when the declaration is rejected."""
    uses_b128 = "%rq" in insn
    b128 = B128_DECL if (uses_b128 or b128_registers_allowed(target, version)) else B128_NONE
    text = TEMPLATES[context].format(version=version, target=target, id=case_id, family=family,
                                     context=context, b128=b128, insn=insn)
    assert text.splitlines()[INSN_LINE - 1].strip() == insn.strip(), "instruction line moved"
    return text


# --------------------------------------------------------------------------------------------
# Feature hints: (min sm, min PTX version) per feature, used only to aim (target, version)
# sampling at the boundaries. They come from the ISA text and first measurements; the golden
# file records what ptxas really does.
# --------------------------------------------------------------------------------------------
FEATURE_HINTS = {
    "scope": (70, "6.0"), "weak": (70, "6.0"), "relaxed": (70, "6.0"), "acquire": (70, "6.0"),
    "release": (70, "6.0"), "cluster_scope": (90, "7.8"), "mmio": (70, "8.2"),
    "shared_cta": (30, "7.8"), "shared_cluster": (90, "7.8"), "param_entry": (50, "8.3"),
    "param_func": (50, "8.3"), "L1_evict": (70, "7.4"), "L2_evict": (100, "8.8"),
    "cache_hint": (80, "7.4"), "prefetch_size": (75, "7.4"), "prefetch_256": (80, "7.4"),
    "b128": (70, "8.3"), "b128_sys": (70, "8.4"), "vec256": (100, "8.8"), "unified": (90, "8.0"),
    "local_volatile": (50, "9.1"), "nc": (50, "6.0"),
    "cp_async": (80, "7.0"), "cp_async_hint": (80, "7.4"), "ignore_src": (80, "7.5"),
    "cp_async_cta": (80, "7.8"), "cp_async_mbarrier": (80, "7.0"),
    "createpolicy": (80, "7.4"), "prefetch_evict": (80, "7.4"), "prefetch": (50, "6.0"),
}


# --------------------------------------------------------------------------------------------
# Operand vocabulary.
# --------------------------------------------------------------------------------------------
TYPES = ["b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64",
         "s8", "s16", "s32", "s64", "f32", "f64"]
BAD_TYPES = ["f16", "bf16", "f16x2", "pred", "b256", "u128", "s128", "f128", "e4m3"]


def type_bits(t: str) -> int:
    m = re.search(r"(\d+)$", t)
    return int(m.group(1)) if m else 32


# Register pools: name prefix -> declared type.
REGS = {"rs": "b16", "r": "b32", "rd": "b64", "f": "f32", "fd": "f64", "rq": "b128",
        "us": "u16", "ss": "s16", "u": "u32", "s": "s32", "ul": "u64", "sl": "s64",
        "h": "f16", "b": "b8", "p": "pred"}


def natural_reg_prefix(t: str) -> str:
    """The register a compiler would use for instruction type `t`."""
    if t == "f32":
        return "f"
    if t == "f64":
        return "fd"
    bits = type_bits(t)
    return {8: "rs", 16: "rs", 32: "r", 64: "rd", 128: "rq"}.get(bits, "r")


def reg(prefix: str, i: int) -> str:
    return f"%{prefix}{i}"


def vec_count(vec: str | None) -> int:
    return {None: 1, "v2": 2, "v4": 4, "v8": 8, "v3": 3, "v16": 16, "v1": 1}[vec]


def data_operand(vec: str | None, t: str, kind: str, rng: random.Random, first: int = 1) -> str:
    """The data operand (ld destination / st source) of vector width `vec` and type `t`."""
    n = vec_count(vec)
    nat = natural_reg_prefix(t)
    bits = type_bits(t)
    wider = {8: "r", 16: "r", 32: "rd", 64: "rq", 128: "rq"}.get(bits, "rd")
    narrower = {8: "b", 16: "b", 32: "rs", 64: "r", 128: "rd"}.get(bits, "rs")
    float_same = {16: "h", 32: "f", 64: "fd"}.get(bits, "f")
    int_same = {8: "us", 16: "us", 32: "u", 64: "ul", 128: "rq"}.get(bits, "u")
    signed_same = {8: "ss", 16: "ss", 32: "s", 64: "sl", 128: "rq"}.get(bits, "s")
    limit = 4 if nat == "rq" else 10

    def regs_of(prefix: str, count: int) -> list[str]:
        lim = 4 if prefix in ("rq", "us", "ss", "u", "s", "ul", "sl", "h", "b", "p") else 10
        return [reg(prefix, (first + i - 1) % lim) for i in range(count)]

    if kind == "natural":
        items = regs_of(nat, n)
    elif kind == "wider":
        items = regs_of(wider, n)
    elif kind == "narrower":
        items = regs_of(narrower, n)
    elif kind == "float_reg":
        items = regs_of(float_same, n)
    elif kind == "int_reg":
        items = regs_of(int_same, n)
    elif kind == "signed_reg":
        items = regs_of(signed_same, n)
    elif kind == "b8_reg":
        items = regs_of("b", n)
    elif kind == "f16_reg":
        items = regs_of("h", n)
    elif kind == "b128_reg":
        items = regs_of("rq", n)
    elif kind == "pred":
        items = regs_of("p", n)
    elif kind == "imm":
        items = ["7"] * n
    elif kind == "fimm":
        items = ["0f3F800000"] * n
    elif kind == "sink":
        items = ["_"] * n
    elif kind == "one_sink":
        items = regs_of(nat, n)
        items[rng.randrange(n)] = "_"
        if n == 1:
            return "_"
    elif kind == "mixed_width":
        items = regs_of(nat, n)
        if n > 1:
            items[-1] = reg(wider if wider != nat else narrower, 1)
        else:
            items = [reg(wider, 1)]
    elif kind == "fewer":
        items = regs_of(nat, max(1, n // 2)) if n > 1 else regs_of(nat, 2)
        return "{" + ", ".join(items) + "}"
    elif kind == "more":
        items = regs_of(nat, min(n * 2, 16)) if n > 1 else regs_of(nat, 2)
        return "{" + ", ".join(items) + "}"
    elif kind == "braced_scalar":
        return "{" + reg(nat, first) + "}"
    elif kind == "unbraced_vector":
        return ", ".join(regs_of(nat, n))
    elif kind == "undeclared":
        items = [f"%zz{first + i}" for i in range(n)]
    elif kind == "address":
        return "[%rd1]"
    elif kind == "symbol":
        return "gbuf"
    else:
        raise ValueError(kind)
    if n == 1 and kind not in ("mixed_width",):
        return items[0]
    if n == 1:
        return items[0]
    return "{" + ", ".join(items) + "}"


ADDRESSES = {
    "reg64": "[%rd1]", "reg64_off": "[%rd1+16]", "reg64_neg": "[%rd1+-8]",
    "gvar": "[gbuf]", "gvar_off": "[gbuf+32]", "svar": "[sbuf]", "svar_off": "[sbuf+16]",
    "cvar": "[cbuf]", "lvar": "[lbuf]", "kparam": "[kp]", "cparam": "[pa]", "cparam64": "[pb]",
    "retparam": "[pr]", "reg32": "[%r1]", "regf": "[%f1]", "regpred": "[%p1]", "imm": "[64]",
    "noBracket": "%rd1", "reg16": "[%rs1]", "array": "gbuf[8]", "undeclared": "[nosuch]",
    "u64reg": "[%ul1]", "s64reg": "[%sl1]", "b128reg": "[%rq1]",
}


def natural_address(space: str | None, rng: random.Random) -> str:
    pool = {
        None: ["reg64", "reg64", "reg64_off", "gvar"],
        "global": ["reg64", "reg64", "reg64_off", "gvar", "gvar_off"],
        "shared": ["reg64", "svar", "svar_off", "reg32"],
        "shared::cta": ["reg64", "svar", "reg32"],
        "shared::cluster": ["reg64", "svar", "reg32"],
        "local": ["reg64", "lvar"],
        "const": ["reg64", "cvar"],
        "param": ["kparam", "cparam"],
        "param::entry": ["kparam"],
        "param::func": ["cparam", "retparam"],
    }.get(space, ["reg64"])
    return rng.choice(pool)


# --------------------------------------------------------------------------------------------
# Case bookkeeping and (target, version) selection.
# --------------------------------------------------------------------------------------------
@dataclass
class Case:
    family: str
    insn: str
    target: str
    version: str
    axes: dict = field(default_factory=dict)
    context: str = "entry"


def valid_versions(target: str) -> list[str]:
    lo = vkey(TARGET_MIN_VERSION[target])
    return [v for v in VERSIONS if vkey(v) >= lo]


def targets_at_least(sm: int) -> list[str]:
    return [t for t in TARGETS if sm_number(t) >= sm]


def targets_below(sm: int) -> list[str]:
    return [t for t in TARGETS if sm_number(t) < sm]


def prev_version(v: str) -> str | None:
    i = VERSIONS.index(v)
    return VERSIONS[i - 1] if i > 0 else None


def pick_target_version(rng: random.Random, features: list[str],
                        mode: str | None = None) -> tuple[str, str, str]:
    """Choose (target, version, how) for a case using `features` (keys of FEATURE_HINTS).

    Modes: 'valid' (a target/version pair that satisfies every hint), 'tgt_below' (target just
    under the highest min-sm), 'ver_below' (version just under the highest min-version),
    'exact' (the lowest target and version that satisfy every hint), 'random' (anything ptxas
    accepts as a pair), 'mismatch' (a version too old for the target)."""
    need_sm = max([FEATURE_HINTS[f][0] for f in features] + [50])
    need_v = max([FEATURE_HINTS[f][1] for f in features] + ["6.0"], key=vkey)
    if mode is None:
        r = rng.random()
        mode = ("valid" if r < 0.52 else "tgt_below" if r < 0.64 else "ver_below" if r < 0.76
                else "exact" if r < 0.86 else "random" if r < 0.97 else "mismatch")
    if mode == "tgt_below":
        below = targets_below(need_sm)
        if below:
            # the highest target below the boundary, sometimes any below
            below_sorted = sorted(below, key=sm_number)
            top = [t for t in below_sorted if sm_number(t) == sm_number(below_sorted[-1])]
            t = rng.choice(top) if rng.random() < 0.7 else rng.choice(below)
            vs = [v for v in valid_versions(t) if vkey(v) >= vkey(need_v)] or valid_versions(t)
            return t, rng.choice(vs), mode
        mode = "ver_below"
    if mode == "ver_below":
        pv = prev_version(need_v)
        if pv is not None:
            cands = [t for t in targets_at_least(need_sm) if vkey(TARGET_MIN_VERSION[t]) <= vkey(pv)]
            if cands:
                t = rng.choice(cands)
                vs = [v for v in valid_versions(t) if vkey(v) < vkey(need_v)]
                v = pv if rng.random() < 0.7 else rng.choice(vs)
                return t, v, mode
        mode = "exact"
    if mode == "exact":
        cands = targets_at_least(need_sm)
        lowest = min(sm_number(t) for t in cands)
        t = rng.choice([t for t in cands if sm_number(t) == lowest])
        v = max(need_v, TARGET_MIN_VERSION[t], key=vkey)
        if v not in VERSIONS:
            v = "6.0"
        return t, v, mode
    if mode == "random":
        t = rng.choice(TARGETS)
        return t, rng.choice(valid_versions(t)), mode
    if mode == "mismatch":
        cands = [t for t in TARGETS if vkey(TARGET_MIN_VERSION[t]) > vkey("6.0")]
        t = rng.choice(cands)
        vs = [v for v in VERSIONS if vkey(v) < vkey(TARGET_MIN_VERSION[t])]
        return t, rng.choice(vs), mode
    # valid
    cands = targets_at_least(need_sm)
    main = [t for t in cands if t in MAIN_TARGETS]
    t = rng.choice(main if main and rng.random() < 0.75 else cands)
    vs = [v for v in valid_versions(t) if vkey(v) >= vkey(need_v)] or valid_versions(t)
    return t, rng.choice(vs), "valid"


def join_quals(head: str, quals: list[str]) -> str:
    return head + "".join("." + q for q in quals if q)


def shuffle_order(quals: list[str], order: str, rng: random.Random) -> list[str]:
    q = [x for x in quals if x]
    if order == "canonical" or len(q) < 2:
        return q
    if order == "reverse":
        return list(reversed(q))
    if order == "type_first":
        return q[-1:] + q[:-1]
    if order == "swap_adjacent":
        i = rng.randrange(len(q) - 1)
        q[i], q[i + 1] = q[i + 1], q[i]
        return q
    q2 = q[:]
    rng.shuffle(q2)
    return q2


GUARDS = {None: "", "p": "@%p1 ", "notp": "@!%p1 ", "r": "@%r1 ", "p_undeclared": "@%q9 "}


# --------------------------------------------------------------------------------------------
# ld / ld.global.nc / st
# --------------------------------------------------------------------------------------------
LD_AXES = {
    "sem": [None, "weak", "volatile", "relaxed", "acquire", "mmio", "release", "mmio_acquire",
            "mmio_only", "weak_volatile", "relaxed_acquire", "volatile_relaxed", "sem_twice"],
    "scope": [None, "cta", "cluster", "gpu", "sys", "bad_scope"],
    "space": [None, "global", "shared", "shared::cta", "shared::cluster", "local", "const",
              "param", "param::entry", "param::func", "bad_space", "two_spaces", "shared::gpu",
              "global::cta", "tex"],
    "cop": [None, "ca", "cg", "cs", "lu", "cv", "wb", "wt", "two_cops"],
    "l1": [None, "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last",
           "L1::no_allocate", "L1::bad", "two_l1", "evict_last_bare"],
    "l2": [None, "L2::evict_normal", "L2::evict_first", "L2::evict_last", "L2::evict_unchanged",
           "L2::no_allocate", "two_l2"],
    "hint": [None, "hint_policy", "hint_only", "policy_only", "hint_policy32", "hint_policy_imm",
             "hint_policy_f", "hint_twice"],
    "prefetch": [None, "L2::64B", "L2::128B", "L2::256B", "L2::32B", "L1::64B", "two_pf"],
    "vec": [None, "v2", "v4", "v8", "v3", "v16", "two_vec"],
    "type": TYPES + ["f16", "bf16", "pred", "b256", "none", "two_types"],
    "nc": [False, True],
    "unified": [False, True],
    "dst": ["natural", "wider", "narrower", "float_reg", "int_reg", "signed_reg", "b8_reg",
            "f16_reg", "b128_reg", "pred", "imm", "sink", "one_sink", "mixed_width", "fewer",
            "more", "braced_scalar", "undeclared", "address"],
    "addr": ["natural", "reg64", "reg64_off", "reg64_neg", "gvar", "gvar_off", "svar", "cvar",
             "lvar", "kparam", "cparam", "retparam", "reg32", "regf", "regpred", "imm",
             "noBracket", "reg16", "array", "undeclared", "u64reg", "s64reg", "b128reg"],
    "guard": [None, "p", "notp", "r", "p_undeclared"],
    "order": ["canonical", "reverse", "type_first", "swap_adjacent", "shuffle"],
    "extra": [None, "unknown_mod", "dup_space", "dup_type", "L3", "trailing_dot", "uppercase"],
}
LD_DEFAULT = {"sem": None, "scope": None, "space": "global", "cop": None, "l1": None, "l2": None,
              "hint": None, "prefetch": None, "vec": None, "type": "b32", "nc": False,
              "unified": False, "dst": "natural", "addr": "natural", "guard": None,
              "order": "canonical", "extra": None}
ST_AXES = dict(LD_AXES)
ST_AXES.update({
    "sem": [None, "weak", "volatile", "relaxed", "release", "mmio", "acquire", "mmio_release",
            "mmio_only", "weak_volatile", "relaxed_release", "sem_twice"],
    "cop": [None, "wb", "cg", "cs", "wt", "ca", "lu", "cv", "two_cops"],
    "prefetch": [None, "L2::64B", "L2::128B", "L2::256B"],
    "space": [None, "global", "shared", "shared::cta", "shared::cluster", "local", "const",
              "param", "param::func", "param::entry", "bad_space", "two_spaces", "shared::gpu"],
    "nc": [False, True],
})
ST_DEFAULT = dict(LD_DEFAULT)


def ld_st_features(op: str, c: dict) -> list[str]:
    f = []
    sem = c["sem"]
    if sem in ("weak",):
        f.append("weak")
    if sem in ("relaxed", "acquire", "release", "mmio", "mmio_acquire", "mmio_release"):
        f.append("relaxed")
    if sem in ("mmio", "mmio_acquire", "mmio_release", "mmio_only"):
        f.append("mmio")
    if c["scope"] == "cluster":
        f.append("cluster_scope")
    if c["space"] == "shared::cta":
        f.append("shared_cta")
    if c["space"] == "shared::cluster":
        f.append("shared_cluster")
    if c["space"] in ("param::entry", "param::func"):
        f.append("param_entry")
    if c["l1"]:
        f.append("L1_evict")
    if c["l2"]:
        f.append("L2_evict")
    if c["hint"]:
        f.append("cache_hint")
    if c["prefetch"] == "L2::256B":
        f.append("prefetch_256")
    elif c["prefetch"]:
        f.append("prefetch_size")
    if c["type"] == "b128":
        f.append("b128")
        if c["scope"] == "sys" or sem in ("mmio",):
            f.append("b128_sys")
    if (c["vec"] == "v8" and type_bits(c["type"]) == 32) or (c["vec"] == "v4" and type_bits(c["type"]) == 64):
        f.append("vec256")
    if c["unified"]:
        f.append("unified")
    if c["sem"] == "volatile" and c["space"] == "local":
        f.append("local_volatile")
    return f


def render_ld_st(op: str, c: dict, rng: random.Random) -> str:
    quals: list[str] = []
    sem, scope = c["sem"], c["scope"]
    sem_q = {
        None: [], "weak": ["weak"], "volatile": ["volatile"], "relaxed": ["relaxed"],
        "acquire": ["acquire"], "release": ["release"], "mmio": ["mmio", "relaxed"],
        "mmio_acquire": ["mmio", "acquire"], "mmio_release": ["mmio", "release"],
        "mmio_only": ["mmio"], "weak_volatile": ["weak", "volatile"],
        "relaxed_acquire": ["relaxed", "acquire"], "relaxed_release": ["relaxed", "release"],
        "volatile_relaxed": ["volatile", "relaxed"],
        "sem_twice": ["relaxed", "relaxed"] if op == "ld" else ["release", "release"],
    }[sem]
    quals += sem_q
    if scope == "bad_scope":
        quals.append("block")
    elif scope:
        quals.append(scope)
    space = c["space"]
    if space == "bad_space":
        quals.append("texture")
    elif space == "two_spaces":
        quals += ["global", "shared"]
    elif space:
        quals.append(space)
    cop = c["cop"]
    if cop == "two_cops":
        quals += (["ca", "cg"] if op == "ld" else ["wb", "cg"])
    elif cop:
        quals.append(cop)
    if c["nc"]:
        quals.append("nc")
    l1 = c["l1"]
    if l1 == "L1::bad":
        quals.append("L1::evict_sometimes")
    elif l1 == "two_l1":
        quals += ["L1::evict_last", "L1::evict_first"]
    elif l1 == "evict_last_bare":
        quals.append("evict_last")
    elif l1:
        quals.append(l1)
    l2 = c["l2"]
    if l2 == "two_l2":
        quals += ["L2::evict_last", "L2::evict_first"]
    elif l2:
        quals.append(l2)
    hint = c["hint"]
    if hint in ("hint_policy", "hint_only", "hint_policy32", "hint_policy_imm", "hint_policy_f"):
        quals.append("L2::cache_hint")
    elif hint == "hint_twice":
        quals += ["L2::cache_hint", "L2::cache_hint"]
    pf = c["prefetch"]
    if pf == "two_pf":
        quals += ["L2::64B", "L2::128B"]
    elif pf:
        quals.append(pf)
    vec = c["vec"]
    if vec == "two_vec":
        quals += ["v2", "v4"]
        vec_for_ops = "v2"
    else:
        if vec:
            quals.append(vec)
        vec_for_ops = vec
    t = c["type"]
    if t == "two_types":
        quals += ["b32", "u32"]
        t_ops = "b32"
    elif t == "none":
        t_ops = "b32"
    else:
        quals.append(t)
        t_ops = t if t in TYPES else ("b16" if t in ("f16", "bf16") else "b32")
    extra = c["extra"]
    if extra == "unknown_mod":
        quals.insert(rng.randrange(len(quals) + 1), "foo")
    elif extra == "dup_space":
        quals.append(space if space and space not in ("bad_space", "two_spaces") else "global")
    elif extra == "dup_type":
        quals.append(t if t in TYPES else "b32")
    elif extra == "L3":
        quals.insert(max(0, len(quals) - 1), "L3::evict_last")
    quals = shuffle_order(quals, c["order"], rng)
    head = join_quals(op, quals)
    if extra == "trailing_dot":
        head += "."
    elif extra == "uppercase":
        head = head.replace("global", "GLOBAL") if "global" in head else head.replace(op, op.upper(), 1)

    # operands
    addr_key = c["addr"]
    if addr_key == "natural":
        addr_key = natural_address(space if space in (None, "global", "shared", "shared::cta",
                                                        "shared::cluster", "local", "const", "param",
                                                        "param::entry", "param::func") else "global", rng)
    addr = ADDRESSES[addr_key]
    if c["unified"]:
        addr += ".unified"
    data = data_operand(vec_for_ops if vec_for_ops in (None, "v2", "v4", "v8", "v3", "v16") else None,
                        t_ops, c["dst"], rng)
    ops = [data, addr] if op == "ld" else [addr, data]
    if hint == "hint_policy" or hint == "policy_only" or hint == "hint_twice":
        ops.append("%rd2")
    elif hint == "hint_policy32":
        ops.append("%r2")
    elif hint == "hint_policy_imm":
        ops.append("0")
    elif hint == "hint_policy_f":
        ops.append("%fd2")
    return GUARDS[c["guard"]] + head + " " + ", ".join(ops) + ";"


def sweep_and_mix(family: str, op: str, axes: dict, default: dict, rng: random.Random,
                  per_value: int, n_mixed: int, mix_p: float, fixups, feature_fn) -> list[Case]:
    cases: list[Case] = []
    # single-axis sweeps
    for axis, values in axes.items():
        for value in values:
            if value == default[axis]:
                continue
            for _ in range(per_value):
                c = dict(default)
                c[axis] = value
                fixups(c, rng)
                t, v, how = pick_target_version(rng, feature_fn(op, c))
                cases.append(Case(family, render_ld_st(op, c, rng), t, v,
                                  {"gen": "sweep", "axis": axis, "tv": how, **c}))
    # random multi-axis combinations
    for _ in range(n_mixed):
        c = dict(default)
        for axis, values in axes.items():
            if rng.random() < mix_p:
                c[axis] = rng.choice(values)
        fixups(c, rng)
        t, v, how = pick_target_version(rng, feature_fn(op, c))
        cases.append(Case(family, render_ld_st(op, c, rng), t, v, {"gen": "mixed", "tv": how, **c}))
    return cases


def ld_fixups(c: dict, rng: random.Random) -> None:
    """Keep most sweeps meaningful: give relaxed/acquire a scope unless the sweep is about it,
    and use the 256-bit vector forms with an L2 eviction priority."""
    if c["sem"] in ("relaxed", "acquire", "release") and c["scope"] is None and rng.random() < 0.85:
        c["scope"] = rng.choice(["cta", "gpu", "sys", "cluster"])
    if c["sem"] in ("mmio", "mmio_acquire", "mmio_release") and c["scope"] is None:
        c["scope"] = "sys" if rng.random() < 0.85 else rng.choice(["gpu", "cta"])
    if c["l2"] in ("L2::evict_normal", "L2::evict_first", "L2::evict_last") and c["vec"] is None \
            and rng.random() < 0.7:
        c["vec"], c["type"] = rng.choice([("v8", "b32"), ("v8", "f32"), ("v8", "u32"), ("v8", "s32"),
                                          ("v4", "b64"), ("v4", "f64"), ("v4", "u64"), ("v4", "s64")])
    if c["vec"] == "v8" and c["type"] == "b32" and rng.random() < 0.4:
        c["type"] = rng.choice(["f32", "u32", "s32", "b16", "b8", "b64"])
    if c["vec"] == "v4" and c["type"] == "b32" and rng.random() < 0.4:
        c["type"] = rng.choice(["b64", "f64", "u64", "s64", "b16", "f32"])
    if c["unified"] and rng.random() < 0.5:
        c["space"] = rng.choice([None, "global", "shared", "local"])
    if c["nc"] and c["space"] != "global" and rng.random() < 0.8:
        c["space"] = "global"


def st_fixups(c: dict, rng: random.Random) -> None:
    ld_fixups(c, rng)
    if c["sem"] == "acquire" and rng.random() < 0.5:
        c["scope"] = c["scope"] or "gpu"


def nc_features(op: str, c: dict) -> list[str]:
    return ld_st_features(op, c) + ["nc"]


def gen_ld(rng: random.Random) -> list[Case]:
    return sweep_and_mix("ld", "ld", LD_AXES, LD_DEFAULT, rng, per_value=6, n_mixed=1200,
                         mix_p=0.22, fixups=ld_fixups, feature_fn=ld_st_features)


def gen_ld_nc(rng: random.Random) -> list[Case]:
    axes = {k: v for k, v in LD_AXES.items() if k not in ("nc",)}
    axes["space"] = ["global", None, "shared", "local", "const", "param"]
    axes["sem"] = [None, "weak", "volatile", "relaxed", "acquire", "mmio"]
    axes["cop"] = [None, "ca", "cg", "cs", "lu", "cv", "wb"]
    axes["addr"] = ["natural", "reg64", "gvar", "gvar_off", "svar", "cvar", "reg32", "imm", "kparam"]
    axes["dst"] = ["natural", "wider", "narrower", "float_reg", "int_reg", "signed_reg", "imm",
                   "sink", "one_sink", "fewer", "pred", "b128_reg"]
    default = dict(LD_DEFAULT)
    default["nc"] = True

    def fix(c, r):
        c["nc"] = True
        ld_fixups(c, r)

    cases = sweep_and_mix("ld.global.nc", "ld", axes, default, rng, per_value=3, n_mixed=330,
                          mix_p=0.22, fixups=fix, feature_fn=nc_features)
    return cases


def gen_st(rng: random.Random) -> list[Case]:
    axes = dict(ST_AXES)
    axes["dst"] = ["natural", "wider", "narrower", "float_reg", "int_reg", "signed_reg", "b8_reg",
                   "f16_reg", "b128_reg", "pred", "imm", "fimm", "sink", "one_sink", "mixed_width",
                   "fewer", "more", "braced_scalar", "undeclared", "address", "symbol"]
    axes["unified"] = [False, True]
    return sweep_and_mix("st", "st", axes, ST_DEFAULT, rng, per_value=5, n_mixed=900,
                         mix_p=0.22, fixups=st_fixups, feature_fn=ld_st_features)


def handpicked_ld_st() -> list[tuple[str, str, list[str]]]:
    """(family, instruction, features) cases written by hand: forms compilers emit and known
    ptxas corner cases."""
    v8 = "{%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}"
    v8s = "{%r1, _, %r3, %r4, _, %r6, %r7, _}"
    v4d = "{%rd1, %rd2, %rd3, %rd4}"
    v4f = "{%f1, %f2, %f3, %f4}"
    rows = [
        ("ld", "ld.global.L1::evict_last.L2::cache_hint.b32 %r1, [%rd1], %rd2;", ["L1_evict", "cache_hint"]),
        ("ld", "ld.global.L1::evict_last.L2::cache_hint.v4.f32 " + v4f + ", [%rd1+0], %rd2;", ["L1_evict", "cache_hint"]),
        ("ld", "ld.global.L1::evict_first.L2::cache_hint.v2.b32 {%r1, %r2}, [%rd1], %rd2;", ["L1_evict", "cache_hint"]),
        ("ld", "ld.global.L2::cache_hint.L1::evict_last.b32 %r1, [%rd1], %rd2;", ["L1_evict", "cache_hint"]),
        ("ld", "ld.global.L2::evict_last.v8.f32 {%f1, _, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];", ["vec256", "L2_evict"]),
        ("ld", "ld.global.L2::evict_last.L1::evict_last.v4.u64 " + v4d + ", [%rd1];", ["vec256", "L2_evict", "L1_evict"]),
        ("ld", "ld.global.L1::evict_last.L2::evict_last.v4.u64 " + v4d + ", [%rd1];", ["vec256", "L2_evict", "L1_evict"]),
        ("ld", "ld.global.L2::evict_first.v8.b32 " + v8s + ", [%rd1];", ["vec256", "L2_evict"]),
        ("ld", "ld.global.v8.b32 " + v8s + ", [%rd1];", ["vec256"]),
        ("ld", "ld.v8.b32 " + v8 + ", [%rd1];", ["vec256"]),
        ("ld", "ld.shared.v8.b32 " + v8 + ", [%rd1];", ["vec256"]),
        ("ld", "ld.global.v8.b16 {%rs1, %rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs8}, [%rd1];", []),
        ("ld", "ld.global.v8.b8 {%rs1, %rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs8}, [%rd1];", []),
        ("ld", "ld.global.v8.b64 {%rd1, %rd2, %rd3, %rd4, %rd5, %rd6, %rd7, %rd8}, [%rd1];", ["vec256"]),
        ("ld", "ld.global.v2.b128 {%rq1, %rq2}, [%rd1];", ["b128"]),
        ("ld", "ld.global.v4.b64 " + v4d + ", [%rd1];", ["vec256"]),
        ("ld", "ld.global.v4.b64 {%rd1, _, %rd3, _}, [%rd1];", ["vec256"]),
        ("ld", "ld.global.v4.b32 {%r1, _, %r3, %r4}, [%rd1];", []),
        ("ld", "ld.global.v2.b32 {_, _}, [%rd1];", []),
        ("ld", "ld.global.b32 _, [%rd1];", []),
        ("ld", "ld.global.L2::64B.b32 %r0, [gbuf];", ["prefetch_size"]),
        ("ld", "ld.L2::128B.f64 %fd1, [gbuf];", ["prefetch_size"]),
        ("ld", "ld.global.L2::256B.f64 %fd2, [gbuf];", ["prefetch_256"]),
        ("ld", "ld.global.nc.L2::256B.f64 %fd2, [gbuf];", ["prefetch_256"]),
        ("ld", "ld.global.L2::cache_hint.L2::256B.b32 %r1, [%rd1], %rd2;", ["prefetch_256", "cache_hint"]),
        ("ld", "ld.global.L1::evict_last.L2::cache_hint.L2::128B.b32 %r1, [%rd1], %rd2;", ["prefetch_size", "cache_hint"]),
        ("ld", "ld.global.relaxed.gpu.u32 %r0, [gbuf];", ["relaxed"]),
        ("ld", "ld.shared.acquire.gpu.u32 %r1, [sbuf];", ["relaxed"]),
        ("ld", "ld.global.relaxed.cluster.u32 %r2, [gbuf];", ["cluster_scope"]),
        ("ld", "ld.shared::cta.acquire.gpu.u32 %r2, [sbuf+4];", ["shared_cta", "relaxed"]),
        ("ld", "ld.shared::cluster.u32 %r3, [sbuf+8];", ["shared_cluster"]),
        ("ld", "ld.global.mmio.relaxed.sys.u32 %r3, [gbuf];", ["mmio"]),
        ("ld", "ld.local.volatile.u32 %r4, [lbuf];", ["local_volatile"]),
        ("ld", "ld.global.f32 %f1, [gbuf].unified;", ["unified"]),
        ("ld", "ld.b32 %r0, [%rd1].unified;", ["unified"]),
        ("ld", "ld.global.b128 %rq0, [gbuf];", ["b128"]),
        ("ld", "ld.relaxed.sys.global.b128 %rq0, [gbuf];", ["b128_sys"]),
        ("ld", "ld.acquire.sys.global.b128 %rq0, [gbuf];", ["b128_sys"]),
        ("ld", "ld.volatile.global.b128 %rq0, [gbuf];", ["b128"]),
        ("ld", "ld.relaxed.gpu.global.b128 %rq0, [gbuf];", ["b128"]),
        ("ld", "ld.param::entry.b32 %r1, [kp];", ["param_entry"]),
        ("ld", "ld.param::entry.u64 %rd1, [kp];", ["param_entry"]),
        ("ld", "ld.param.u64 %rd1, [kp];", []),
        ("ld", "@%p1 ld.param.u64 %rd1, [kp];", []),
        ("ld", "@%p1 ld.param.b32 %r1, [pr];", []),
        ("ld", "ld.param.b32 %r1, [pr];", []),
        ("ld", "ld.param::func.b32 %r1, [pr];", ["param_func"]),
        ("ld", "ld.param::func.b32 %r1, [pa];", ["param_func"]),
        ("ld", "ld.param.b64 %rd1, [pb];", []),
        ("ld", "ld.param::entry.b32 %r1, [pa];", ["param_entry"]),
        ("ld", "ld.const.s32 %r1, [cbuf+4];", []),
        ("ld", "ld.local.b32 %r1, [lbuf+-8];", []),
        ("ld", "ld.local.b64 %rd1, [240];", []),
        ("ld", "ld.global.b16 %r1, [gbuf];", []),
        ("ld", "ld.shared.v4.b32 {%r1, %r2, %r3, %r4}, [sbuf];", []),
        ("ld", "ld.shared.u16 %rs1, [sbuf];", []),
        ("ld", "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [gbuf];", []),
        ("ld", "ld.const.s32 %r1, cbuf[3];", []),
        ("ld", "ld.global.ca.b32 %r1, [%rd1];", []),
        ("ld", "ld.global.cg.b32 %r1, [%rd1];", []),
        ("ld", "ld.global.cs.b32 %r1, [%rd1];", []),
        ("ld", "ld.global.lu.b32 %r1, [%rd1];", []),
        ("ld", "ld.global.cv.b32 %r1, [%rd1];", []),
        ("ld", "ld.local.lu.b32 %r1, [lbuf];", []),
        ("ld", "ld.shared.cg.b32 %r1, [sbuf];", []),
        ("ld", "ld.const.ca.b32 %r1, [cbuf];", []),
        ("ld", "ld.param.ca.b32 %r1, [kp];", []),
        ("ld", "ld.global.nc.ca.b32 %r1, [%rd1];", ["nc"]),
        ("ld", "ld.global.cg.nc.b32 %r1, [%rd1];", ["nc"]),
        ("ld", "ld.global.nc.L1::no_allocate.b32 %r1, [%rd1];", ["nc", "L1_evict"]),
        ("ld", "ld.global.nc.L1::evict_last.L2::cache_hint.v4.f32 " + v4f + ", [%rd1], %rd2;", ["L1_evict", "cache_hint"]),
        ("ld", "ld.global.nc.L2::evict_last.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];", ["vec256", "L2_evict"]),
        ("ld", "ld.global.nc.L2::evict_first.v4.f64 {%fd1, %fd2, %fd3, %fd4}, [%rd1];", ["vec256", "L2_evict"]),
        ("ld", "ld.global.nc.b128 %rq1, [%rd1];", ["b128"]),
        ("ld", "ld.global.nc.v2.f64 {%fd1, %fd2}, [%rd1];", []),
        ("ld", "ld.global.nc.L2::cache_hint.f32 %f1, [%rd1], %rd2;", ["cache_hint"]),
        ("ld", "ld.global.nc.L2::64B.b32 %r1, [%rd1];", ["prefetch_size"]),
        ("ld", "ld.global.nc.b32 %r1, [%rd1], %rd2;", []),
        ("ld", "ld.global.L2::cache_hint.b32 %r1, [%rd1];", ["cache_hint"]),
        ("ld", "ld.global.b32 %r1, [%rd1], %rd2;", []),
        ("ld", "ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2, %rd3;", ["cache_hint"]),
        ("ld", "ld.global.b32 %r1;", []),
        ("ld", "ld.global.b32 [%rd1], %r1;", []),
        ("ld", "ld.global.b32 %r1, [%rd1], [%rd2];", []),
        ("ld", "ld.global.b32 %r1, %rd1;", []),
        ("ld", "ld.global.b32 %r1, 64;", []),
        ("ld", "ld.global.b32 %r1, [%rd1+0x10];", []),
        ("ld", "ld.global.b32 %r1, [%rd1-8];", []),
        ("ld", "ld.global.b32 %r1, [gbuf+%r1];", []),
        ("ld", "ld.global.b32 %r1, [%rd1+%rd2];", []),
        ("ld", "ld.global.b32 %r1, [0x100000000];", []),
        ("ld", "ld.shared.b32 %r1, [gbuf];", []),
        ("ld", "ld.global.b32 %r1, [sbuf];", []),
        ("ld", "ld.global.b32 %r1, [cbuf];", []),
        ("ld", "ld.const.b32 %r1, [gbuf];", []),
        ("ld", "ld.local.b32 %r1, [sbuf];", []),
        ("ld", "ld.global.b32 %r1, [lbuf];", []),
        ("ld", "ld.global.b32 %r1, [kp];", []),
        ("ld", "ld.b32 %r1, [kp];", []),
        ("ld", "ld.b32 %r1, [sbuf];", []),
        ("ld", "ld.b32 %r1, [lbuf];", []),
        ("ld", "ld.b32 %r1, [cbuf];", []),
        ("ld", "ld.global.b32 %r1, [fn];", []),
        ("ld", "ld.global.b32 %r1, [k];", []),
        ("ld", "ld %r1, [%rd1];", []),
        ("ld", "ld.global %r1, [%rd1];", []),
        ("ld", "ld.global.b32 %r1 [%rd1];", []),
        ("ld", "ld.global.b32 %r1, [%rd1]", []),
        ("st", "st.global.L1::no_allocate.f32 [%rd1], %f1;", ["L1_evict"]),
        ("st", "st.global.L1::evict_last.L2::cache_hint.b32 [%rd1], %r1, %rd2;", ["L1_evict", "cache_hint"]),
        ("st", "st.global.L2::cache_hint.b32 [%rd1], %r1, %rd2;", ["cache_hint"]),
        ("st", "st.global.L2::cache_hint.b32 [%rd1], %r1;", ["cache_hint"]),
        ("st", "st.global.b32 [%rd1], %r1, %rd2;", []),
        ("st", "st.global.L2::evict_last.v8.f32 [%rd1], {%f1, _, %f3, %f4, %f5, %f6, %f7, %f8};", ["vec256", "L2_evict"]),
        ("st", "st.global.L2::evict_normal.v4.b64 [%rd1], " + v4d + ";", ["vec256", "L2_evict"]),
        ("st", "st.global.v8.b32 [%rd1], " + v8s + ";", ["vec256"]),
        ("st", "st.global.v4.b32 [%rd1], {%r1, _, %r3, %r4};", []),
        ("st", "st.global.v8.b16 [%rd1], {%rs1, %rs2, %rs3, %rs4, %rs5, %rs6, %rs7, %rs8};", []),
        ("st", "st.global.v2.b128 [%rd1], {%rq1, %rq2};", ["b128"]),
        ("st", "st.global.b128 [%rd1], %rq1;", ["b128"]),
        ("st", "st.relaxed.sys.global.b128 [%rd1], %rq1;", ["b128_sys"]),
        ("st", "st.release.sys.global.b128 [%rd1], %rq1;", ["b128_sys"]),
        ("st", "st.global.relaxed.sys.u32 [gbuf], %r0;", ["relaxed"]),
        ("st", "st.shared.release.cta.u32 [sbuf], %r1;", ["relaxed"]),
        ("st", "st.global.relaxed.cluster.u32 [gbuf], %r2;", ["cluster_scope"]),
        ("st", "st.shared::cta.release.cta.u32 [sbuf+4], %r1;", ["shared_cta"]),
        ("st", "st.shared::cluster.u32 [sbuf+8], %r1;", ["shared_cluster"]),
        ("st", "st.global.mmio.relaxed.sys.u32 [gbuf], %r1;", ["mmio"]),
        ("st", "st.local.volatile.u32 [lbuf], %r2;", ["local_volatile"]),
        ("st", "st.param.b32 [pa], %r1;", []),
        ("st", "@%p1 st.param.b32 [pa], %r1;", []),
        ("st", "@!%p1 st.param.b32 [pa], %r1;", []),
        ("st", "@%p1 st.param::func.b32 [pa], %r1;", ["param_func"]),
        ("st", "st.param::func.b64 [pb], %rd1;", ["param_func"]),
        ("st", "st.param.b64 [pb], %rd1;", []),
        ("st", "st.param.b32 [pb], %r1;", []),
        ("st", "st.param.b32 [kp], %r1;", []),
        ("st", "st.param.u64 [kp], %rd1;", []),
        ("st", "@%p1 st.param.u64 [kp], %rd1;", []),
        ("st", "st.param::entry.b32 [pa], %r1;", ["param_entry"]),
        ("st", "st.param.b32 [pr], %r1;", []),
        ("st", "st.const.b32 [cbuf], %r1;", []),
        ("st", "st.const.b32 [%rd1], %r1;", []),
        ("st", "@%p1 st.const.b32 [cbuf], %r1;", []),
        ("st", "st.const.v2.b32 [cbuf], {%r1, %r2};", []),
        ("st", "st.local.b32 [lbuf+4], %r1;", []),
        ("st", "st.local.b32 [lbuf+-8], %r1;", []),
        ("st", "st.local.s32 [100], %s1;", []),
        ("st", "st.b16 [gbuf], %r1;", []),
        ("st", "st.global.v4.s32 [%rd1], {%s1, %s2, %s3, %s0};", []),
        ("st", "st.global.b32 [%rd1], 5;", []),
        ("st", "st.global.f32 [%rd1], 0f3F800000;", []),
        ("st", "st.global.v2.b32 [%rd1], {%r1, 5};", []),
        ("st", "st.global.b32 [%rd1], %r1, %r2, %r3;", []),
        ("st", "st.global.b32 5, %r1;", []),
        ("st", "st.global.b32 [%rd1];", []),
        ("st", "st.global.b32 %rd1, %r1;", []),
        ("st", "st.global.nc.b32 [%rd1], %r1;", []),
        ("st", "st.global.b32 [%rd1].unified, %r1;", ["unified"]),
        ("st", "st.global.L2::64B.b32 [%rd1], %r1;", ["prefetch_size"]),
        ("st", "st.global.wb.L1::evict_last.b32 [%rd1], %r1;", ["L1_evict"]),
        ("st", "st.global.cs.L2::cache_hint.b32 [%rd1], %r1, %rd2;", ["cache_hint"]),
        ("st", "st.global.wt.b32 [%rd1], %r1;", []),
        ("st", "st.local.wt.b32 [lbuf], %r1;", []),
        ("st", "st.shared.cg.b32 [sbuf], %r1;", []),
        ("st", "st.volatile.shared.b32 [sbuf], %r1;", []),
        ("st", "st.volatile.global.cs.b32 [gbuf], %r1;", []),
        ("st", "st.mmio.relaxed.sys.global.v2.b32 [gbuf], {%r1, %r2};", ["mmio"]),
        ("st", "st.mmio.relaxed.sys.global.L2::cache_hint.b32 [gbuf], %r1, %rd2;", ["mmio", "cache_hint"]),
        ("st", "st.mmio.release.sys.global.b32 [gbuf], %r1;", ["mmio"]),
        ("st", "st.shared.b32 [gbuf], %r1;", []),
        ("st", "st.global.b32 [sbuf], %r1;", []),
        ("st", "st.global.b32 [cbuf], %r1;", []),
        ("st", "st.b32 [cbuf], %r1;", []),
        ("st", "st.b32 [kp], %r1;", []),
        ("st", "st.global.b32 [fn], %r1;", []),
        ("st", "st %r1, [%rd1];", []),
        ("st", "st.global.b32 [%rd1], %r1", []),
    ]
    return rows


# --------------------------------------------------------------------------------------------
# cp.async family
# --------------------------------------------------------------------------------------------
CPA_AXES = {
    "cop": ["ca", "cg", None, "cs", "lu", "wb", "two"],
    "dst_space": ["shared", "shared::cta", None, "shared::cluster", "global", "local"],
    "src_space": ["global", None, "shared", "local", "const"],
    "hint": [None, "hint_policy", "hint_only", "policy_only", "hint_policy32", "hint_policy_imm"],
    "prefetch": [None, "L2::64B", "L2::128B", "L2::256B", "L2::32B", "L1::64B"],
    "size": ["4", "8", "16", "2", "1", "32", "0", "12", "-4", "%r1", "0x10"],
    "tail": [None, "src_imm_small", "src_imm_eq", "src_imm_big", "src_reg", "src_reg64",
             "src_reg16", "ignore_pred", "ignore_notpred", "ignore_imm", "both", "src_f"],
    "dst": ["svar", "reg32", "reg64", "svar_off", "gvar", "imm", "noBracket", "regf"],
    "src": ["reg64", "gvar", "gvar_off", "reg32", "svar", "imm", "noBracket", "cvar"],
    "guard": [None, "p", "notp"],
    "order": ["canonical", "reverse", "shuffle", "swap_adjacent"],
    "extra": [None, "unknown_mod", "no_async", "dup_cop", "type_b32", "sync"],
}
CPA_DEFAULT = {"cop": "ca", "dst_space": "shared", "src_space": "global", "hint": None,
               "prefetch": None, "size": "4", "tail": None, "dst": "svar", "src": "reg64",
               "guard": None, "order": "canonical", "extra": None}


def cpa_features(c: dict) -> list[str]:
    f = ["cp_async"]
    if c["hint"]:
        f.append("cp_async_hint")
    if c["prefetch"]:
        f.append("cp_async_hint")
        if c["prefetch"] == "L2::256B":
            f.append("prefetch_256")
    if c["tail"] in ("ignore_pred", "ignore_notpred", "ignore_imm", "both"):
        f.append("ignore_src")
    if c["dst_space"] == "shared::cta":
        f.append("cp_async_cta")
    if c["dst_space"] == "shared::cluster":
        f.append("shared_cluster")
    return f


def render_cpa(c: dict, rng: random.Random) -> str:
    quals: list[str] = []
    if c["extra"] != "no_async":
        quals.append("async")
    if c["cop"] == "two":
        quals += ["ca", "cg"]
    elif c["cop"]:
        quals.append(c["cop"])
    if c["extra"] == "dup_cop" and c["cop"] in ("ca", "cg"):
        quals.append(c["cop"])
    if c["dst_space"]:
        quals.append(c["dst_space"])
    if c["src_space"]:
        quals.append(c["src_space"])
    if c["hint"] in ("hint_policy", "hint_only", "hint_policy32", "hint_policy_imm"):
        quals.append("L2::cache_hint")
    if c["prefetch"]:
        quals.append(c["prefetch"])
    if c["extra"] == "unknown_mod":
        quals.insert(rng.randrange(1, len(quals) + 1), "bar")
    elif c["extra"] == "type_b32":
        quals.append("b32")
    elif c["extra"] == "sync":
        quals.append("sync")
    head_q = quals[:1] + shuffle_order(quals[1:], c["order"], rng) if quals[:1] == ["async"] \
        else shuffle_order(quals, c["order"], rng)
    head = join_quals("cp", head_q)
    dst = {"svar": "[sbuf]", "reg32": "[%r1]", "reg64": "[%rd3]", "svar_off": "[sbuf+16]",
           "gvar": "[gbuf]", "imm": "[128]", "noBracket": "%r1", "regf": "[%f1]"}[c["dst"]]
    src = {"reg64": "[%rd1]", "gvar": "[gbuf]", "gvar_off": "[gbuf+4]", "reg32": "[%r2]",
           "svar": "[sbuf]", "imm": "[256]", "noBracket": "%rd1", "cvar": "[cbuf]"}[c["src"]]
    ops = [dst, src, c["size"]]
    tail = c["tail"]
    size_num = int(c["size"], 0) if re.fullmatch(r"-?(0x)?[0-9a-fA-F]+", c["size"]) else 16
    if tail == "src_imm_small":
        ops.append(str(max(0, size_num // 2)))
    elif tail == "src_imm_eq":
        ops.append(str(size_num))
    elif tail == "src_imm_big":
        ops.append(str(size_num * 2 + 1))
    elif tail == "src_reg":
        ops.append("%r3")
    elif tail == "src_reg64":
        ops.append("%rd3")
    elif tail == "src_reg16":
        ops.append("%rs3")
    elif tail == "src_f":
        ops.append("%f3")
    elif tail == "ignore_pred":
        ops.append("%p1")
    elif tail == "ignore_notpred":
        ops.append("!%p1")
    elif tail == "ignore_imm":
        ops.append("1")
    elif tail == "both":
        ops += ["%r3", "%p1"]
    hint = c["hint"]
    if hint in ("hint_policy", "policy_only"):
        ops.append("%rd2")
    elif hint == "hint_policy32":
        ops.append("%r2")
    elif hint == "hint_policy_imm":
        ops.append("0")
    return GUARDS[c["guard"]] + head + " " + ", ".join(ops) + ";"


def cpa_fix(c: dict, rng: random.Random) -> None:
    if c["cop"] == "cg" and c["size"] == "4" and rng.random() < 0.75:
        c["size"] = "16"


def gen_cp_async(rng: random.Random) -> list[Case]:
    cases: list[Case] = []
    for axis, values in CPA_AXES.items():
        for value in values:
            if value == CPA_DEFAULT[axis]:
                continue
            for _ in range(5):
                c = dict(CPA_DEFAULT)
                c[axis] = value
                if rng.random() < 0.4:
                    c["cop"] = "cg"
                    c["size"] = "16"
                    if axis == "cop":
                        c["cop"] = value
                    if axis == "size":
                        c["size"] = value
                t, v, how = pick_target_version(rng, cpa_features(c))
                cases.append(Case("cp.async", render_cpa(c, rng), t, v,
                                  {"gen": "sweep", "axis": axis, "tv": how, **c}))
    # cop x size x tail cross product: the cp-size / src-size rules
    for cop in ["ca", "cg"]:
        for size in ["4", "8", "16", "2", "32"]:
            for tail in [None, "src_imm_small", "src_imm_eq", "src_imm_big", "src_reg",
                         "ignore_pred", "both"]:
                c = dict(CPA_DEFAULT, cop=cop, size=size, tail=tail)
                for mode in ("valid", "exact"):
                    t, v, how = pick_target_version(rng, cpa_features(c), mode)
                    cases.append(Case("cp.async", render_cpa(c, rng), t, v,
                                      {"gen": "cross", "tv": how, **c}))
    for _ in range(420):
        c = dict(CPA_DEFAULT)
        for axis, values in CPA_AXES.items():
            if rng.random() < 0.25:
                c[axis] = rng.choice(values)
        cpa_fix(c, rng)
        t, v, how = pick_target_version(rng, cpa_features(c))
        cases.append(Case("cp.async", render_cpa(c, rng), t, v, {"gen": "mixed", "tv": how, **c}))
    hand = [
        "cp.async.ca.shared.global [sbuf], [gbuf+4], 4;",
        "cp.async.ca.shared::cta.global [%r1+8], [%rd1], 8;",
        "cp.async.cg.shared.global [%r2], [%rd3], 16;",
        "cp.async.cg.shared.global.L2::64B [%r2], [%rd3], 16;",
        "cp.async.cg.shared.global.L2::128B [%r1+16], [%rd1], 16;",
        "cp.async.cg.shared.global.L2::256B [%r2+32], [%rd3], 16;",
        "cp.async.ca.shared.global.L2::cache_hint [%r2], [%rd1], 4, %rd2;",
        "cp.async.ca.shared.global [sbuf], [gbuf], 4, %p1;",
        "cp.async.cg.shared.global.L2::cache_hint [%r1], [%rd2], 16, %p1, %rd2;",
        "cp.async.cg.shared.global [%r1], [%rd1], 16, %r3;",
        "cp.async.cg.shared.global [%r1], [%rd1], 16, 0;",
        "cp.async.cg.shared.global [%r1], [%rd1], 16, 8;",
        "cp.async.cg.shared.global [%r1], [%rd1], 16, 16;",
        "cp.async.cg.shared.global [%r1], [%rd1], 16, 17;",
        "cp.async.ca.shared.global [%r1], [%rd1], 16, %r3, %rd2;",
        "cp.async.ca.shared.global.L2::cache_hint [%r1], [%rd1], 16, %r3, %rd2;",
        "cp.async.ca.shared.global.L2::cache_hint.L2::128B [%r1], [%rd1], 16, %rd2;",
        "cp.async.ca.shared.global.L2::128B.L2::cache_hint [%r1], [%rd1], 16, %rd2;",
        "cp.async.cg.shared.global.L2::cache_hint.L2::256B [%r1], [%rd1], 16, %p1, %rd2;",
        "cp.async.ca.shared.global [%r1], [%rd1], 4, %p1, %p2;",
        "cp.async.ca.shared.global [%r1], [%rd1], 4, %r3, %p1;",
        "cp.async.ca.shared.global [%r1], [%rd1], 4, %p1, %r3;",
        "cp.async.ca.shared.global [%r1], [%rd1];",
        "cp.async.ca.shared.global [%r1], [%rd1], 4, %r3, %p1, %rd2;",
        "cp.async.ca.shared.global [%r1], [%rd1], 4, %rd2;",
        "cp.async.ca.shared.global [%rd1], [%rd2], 4;",
        "cp.async.ca.shared.global [%r1], [%r2], 4;",
        "cp.async.ca.shared.global [gbuf], [sbuf], 4;",
        "cp.async.ca.global.shared [%rd1], [%r1], 4;",
        "cp.async.shared.global [%r1], [%rd1], 4;",
        "cp.async.ca.cg.shared.global [%r1], [%rd1], 16;",
        "cp.async.global.shared.ca [%r1], [%rd1], 4;",
        "cp.ca.shared.global [%r1], [%rd1], 4;",
        "cp.async.ca.shared.global [%r1], [%rd1], %r2;",
        "cp.async.ca.shared.global [%r1], [%rd1], 4.0;",
        "@%p1 cp.async.ca.shared.global [%r1], [%rd1], 8;",
        "@%p1 cp.async.cg.shared.global [%r1], [%rd1], 16, %p2;",
    ]
    for insn in hand:
        for mode in ("valid", "tgt_below", "ver_below"):
            feats = ["cp_async"] + (["cp_async_hint"] if "L2::" in insn else []) \
                + (["ignore_src"] if "%p" in insn.split("]", 2)[-1] else []) \
                + (["cp_async_cta"] if "::cta" in insn else [])
            t, v, how = pick_target_version(rng, feats, mode)
            cases.append(Case("cp.async", insn, t, v, {"gen": "hand", "tv": how}))
    return cases


def gen_cp_async_misc(rng: random.Random) -> list[Case]:
    forms = [
        ("cp.async.commit_group;", ["cp_async"]),
        ("@%p1 cp.async.commit_group;", ["cp_async"]),
        ("cp.async.commit_group %r1;", ["cp_async"]),
        ("cp.async.commit_group.b64;", ["cp_async"]),
        ("cp.async.commit_groups;", ["cp_async"]),
        ("cp.async.commit;", ["cp_async"]),
        ("cp.async.wait_all;", ["cp_async"]),
        ("@%p1 cp.async.wait_all;", ["cp_async"]),
        ("cp.async.wait_all 0;", ["cp_async"]),
        ("cp.async.wait_all %r1;", ["cp_async"]),
        ("cp.async.wait_group 0;", ["cp_async"]),
        ("cp.async.wait_group 1;", ["cp_async"]),
        ("cp.async.wait_group 7;", ["cp_async"]),
        ("cp.async.wait_group 8;", ["cp_async"]),
        ("cp.async.wait_group 31;", ["cp_async"]),
        ("cp.async.wait_group 255;", ["cp_async"]),
        ("cp.async.wait_group 65536;", ["cp_async"]),
        ("cp.async.wait_group -1;", ["cp_async"]),
        ("cp.async.wait_group 0x3;", ["cp_async"]),
        ("cp.async.wait_group %r1;", ["cp_async"]),
        ("cp.async.wait_group;", ["cp_async"]),
        ("cp.async.wait_group 1, 2;", ["cp_async"]),
        ("cp.async.wait_group 1.0;", ["cp_async"]),
        ("@%p1 cp.async.wait_group 2;", ["cp_async"]),
        ("cp.async.wait_group.b32 1;", ["cp_async"]),
        ("cp.async.wait 1;", ["cp_async"]),
        ("cp.async.mbarrier.arrive.b64 [%rd1];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.noinc.b64 [%rd1];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.b64 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.noinc.shared.b64 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared::cta.b64 [sbuf];", ["cp_async_mbarrier", "cp_async_cta"]),
        ("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%r1];", ["cp_async_mbarrier", "cp_async_cta"]),
        ("cp.async.mbarrier.arrive.shared::cluster.b64 [sbuf];", ["cp_async_mbarrier", "shared_cluster"]),
        ("cp.async.mbarrier.arrive.global.b64 [%rd1];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.b32 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.u64 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.b64 [%r1];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.b64 [%rd1];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.b64 [sbuf+8];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.b64 [gbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.b64 %r1;", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.b64 [sbuf], 1;", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.b64 %rd1, [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.b64;", ["cp_async_mbarrier"]),
        ("@%p1 cp.async.mbarrier.arrive.noinc.shared.b64 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.noinc.noinc.shared.b64 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.inc.shared.b64 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.noinc.b64 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.b64.shared.noinc [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.release.cta.shared.b64 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.arrive.shared.b64.b64 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.wait.shared.b64 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.mbarrier.shared.b64 [sbuf];", ["cp_async_mbarrier"]),
        ("cp.async.bulk.commit_group;", ["cp_async"]),
        ("cp.async.bulk.wait_group 0;", ["cp_async"]),
        ("cp.async.bulk.wait_group.read 0;", ["cp_async"]),
    ]
    cases = []
    modes = ["valid", "valid", "tgt_below", "ver_below", "exact", "random"]
    for insn, feats in forms:
        reps = 6 if insn.count(" ") <= 2 else 4
        for i in range(reps):
            t, v, how = pick_target_version(rng, feats, modes[i % len(modes)])
            cases.append(Case("cp.async.group" if "mbarrier" not in insn else "cp.async.mbarrier",
                              insn, t, v, {"gen": "forms", "tv": how}))
    return cases


# --------------------------------------------------------------------------------------------
# createpolicy
# --------------------------------------------------------------------------------------------
PRIMARY = ["L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged"]
SECONDARY = ["L2::evict_first", "L2::evict_unchanged"]
BAD_PRIO = ["L2::evict_last", "L2::evict_normal", "L2::no_allocate", "L1::evict_last",
            "L2::evict_middle", "evict_last"]
FRACTIONS = ["1.0", "0.5", "0.25", "0.0625", "0", "0.0", "1.5", "-1", "-1.0", "1", "2",
             "0f3F800000", "0f3F000000", "0f00000000", "0d3FE0000000000000", "1e-3", "%f1",
             "%r1", "%fd1", "%rd1", "0.999999", "1.0000001"]


def gen_createpolicy(rng: random.Random) -> list[Case]:
    cases: list[Case] = []
    feats = ["createpolicy"]

    def add(insn, axes, mode=None):
        t, v, how = pick_target_version(rng, feats, mode)
        cases.append(Case("createpolicy", insn, t, v, {"gen": axes.get("gen", "enum"), "tv": how, **axes}))

    # fractional: primary x secondary (incl. none) x fraction forms
    for prim in PRIMARY + ["L2::no_allocate", "L1::evict_last", "L2::evict_middle"]:
        for sec in [None] + SECONDARY + ["L2::evict_last", "L2::evict_normal"]:
            for frac in ["none", "1.0", "0.5", "0", "1.5", "-1"]:
                q = ["fractional", prim] + ([sec] if sec else []) + ["b64"]
                ops = "%rd1" + ("" if frac == "none" else ", " + frac)
                mode = rng.choice(["valid", "valid", "valid", "tgt_below", "ver_below", "exact"])
                add(join_quals("createpolicy", q) + " " + ops + ";",
                    {"kind": "fractional", "primary": prim, "secondary": sec, "fraction": frac}, mode)
    for frac in FRACTIONS:
        for mode in ("valid", "valid", "exact"):
            add(f"createpolicy.fractional.L2::evict_last.b64 %rd1, {frac};",
                {"kind": "fractional", "fraction": frac}, mode)
        add(f"createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd1, {frac};",
            {"kind": "fractional", "fraction": frac})
    # range: primary x secondary x global/generic x operand forms
    range_ops = ["[%rd2], %r1, %r2", "[%rd2], 0x100000, 0x200000", "[gbuf], %r1, %r2",
                 "[%rd2+64], 4096, 8192", "[%rd2], %rd3, %rd4", "[%rd2], %r1", "[%rd2]",
                 "%rd2, %r1, %r2", "[%r3], %r1, %r2", "[sbuf], %r1, %r2", "[%rd2], %f1, %f2",
                 "[%rd2], 8192, 4096", "[%rd2], 0, 0", "[%rd2], 0x100000000, 0x100000000",
                 "[%rd2], %r1, %r2, %r3", "[%rd2], %rs1, %rs2"]
    for prim in PRIMARY + ["L2::no_allocate"]:
        for sec in [None] + SECONDARY + ["L2::evict_last"]:
            for glob in [True, False]:
                q = ["range"] + (["global"] if glob else []) + [prim] + ([sec] if sec else []) + ["b64"]
                opsel = "[%rd2], %r1, %r2" if rng.random() < 0.6 else rng.choice(range_ops)
                mode = rng.choice(["valid", "valid", "tgt_below", "ver_below", "exact"])
                add(join_quals("createpolicy", q) + " %rd1, " + opsel + ";",
                    {"kind": "range", "primary": prim, "secondary": sec, "global": glob}, mode)
    for ops in range_ops:
        for glob in [True, False]:
            for mode in ("valid", "exact"):
                q = ["range"] + (["global"] if glob else []) + ["L2::evict_last", "L2::evict_first", "b64"]
                add(join_quals("createpolicy", q) + " %rd1, " + ops + ";",
                    {"kind": "range", "ops": ops, "global": glob}, mode)
    # cvt
    cvt_forms = ["createpolicy.cvt.L2.b64 %rd1, %rd2;", "createpolicy.cvt.L2.b64 %rd1, 0;",
                 "createpolicy.cvt.L2.b64 %rd1, 0x14F0000000000000;",
                 "createpolicy.cvt.L2.b64 %rd1, %r2;", "createpolicy.cvt.L2.b64 %r1, %rd2;",
                 "createpolicy.cvt.L2.b64 %rd1;", "createpolicy.cvt.L2.b64 %rd1, %rd2, %rd3;",
                 "createpolicy.cvt.b64 %rd1, %rd2;", "createpolicy.cvt.L1.b64 %rd1, %rd2;",
                 "createpolicy.cvt.L2.b32 %r1, %r2;", "createpolicy.cvt.L2 %rd1, %rd2;",
                 "createpolicy.cvt.L2.u64 %rd1, %rd2;", "createpolicy.cvt.L2.b64 %rd1, [%rd2];",
                 "createpolicy.cvt.L2::evict_last.b64 %rd1, %rd2;",
                 "createpolicy.cvt.L2.L2::evict_last.b64 %rd1, %rd2;",
                 "createpolicy.L2.cvt.b64 %rd1, %rd2;", "@%p1 createpolicy.cvt.L2.b64 %rd1, %rd2;",
                 "createpolicy.cvt.L2.b64 %ul1, %sl2;", "createpolicy.cvt.L2.b64 %fd1, %rd2;"]
    for insn in cvt_forms:
        for mode in ("valid", "valid", "tgt_below", "ver_below", "exact"):
            add(insn, {"kind": "cvt"}, mode)
    # wrong types, widths, orders, predicates, unknown modifiers
    misc = [
        "createpolicy.fractional.L2::evict_last.b32 %r1, 1.0;",
        "createpolicy.fractional.L2::evict_last.u64 %rd1, 1.0;",
        "createpolicy.fractional.L2::evict_last.s64 %rd1, 1.0;",
        "createpolicy.fractional.L2::evict_last %rd1, 1.0;",
        "createpolicy.fractional.L2::evict_last.b64.b64 %rd1, 1.0;",
        "createpolicy.fractional.L2::evict_last.b64 %r1, 1.0;",
        "createpolicy.fractional.L2::evict_last.b64 %fd1, 1.0;",
        "createpolicy.fractional.L2::evict_last.b64 %ul1, 0.5;",
        "createpolicy.fractional.L2::evict_last.b64 %sl1, 0.5;",
        "createpolicy.fractional.L2::evict_last.b64 %rq1, 1.0;",
        "createpolicy.fractional.L2::evict_last.b64 %p1, 1.0;",
        "createpolicy.fractional.L2::evict_last.b64 5, 1.0;",
        "createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0, 0.5;",
        "createpolicy.fractional.L2::evict_last.b64;",
        "createpolicy.fractional.b64 %rd1, 1.0;",
        "createpolicy.fractional.L2::evict_first.L2::evict_first.b64 %rd1, 0.5;",
        "createpolicy.fractional.L2::evict_unchanged.L2::evict_unchanged.b64 %rd1, 0.5;",
        "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.L2::evict_first.b64 %rd1, 0.5;",
        "createpolicy.L2::evict_last.fractional.b64 %rd1, 1.0;",
        "createpolicy.b64.fractional.L2::evict_last %rd1, 1.0;",
        "createpolicy.fractional.b64.L2::evict_last %rd1, 1.0;",
        "createpolicy.L2::evict_last.L2::evict_first.fractional.b64 %rd1, 0.5;",
        "createpolicy.fractional.L2::evict_first.L2::evict_last.b64 %rd1, 0.5;",
        "createpolicy.fractional.range.L2::evict_last.b64 %rd1, 1.0;",
        "createpolicy.fractional.global.L2::evict_last.b64 %rd1, 1.0;",
        "createpolicy.fractional.L2::evict_last.foo.b64 %rd1, 1.0;",
        "createpolicy.fractional.L1::evict_last.b64 %rd1, 1.0;",
        "createpolicy.fractional.L2::evict_last.L2::cache_hint.b64 %rd1, 1.0;",
        "createpolicy.L2::evict_last.b64 %rd1, 1.0;",
        "createpolicy.b64 %rd1, 1.0;",
        "createpolicy %rd1, 1.0;",
        "@%p1 createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0;",
        "@!%p1 createpolicy.range.L2::evict_first.b64 %rd1, [%rd2], %r1, %r2;",
        "createpolicy.range.shared.L2::evict_last.b64 %rd1, [sbuf], %r1, %r2;",
        "createpolicy.range.local.L2::evict_last.b64 %rd1, [lbuf], %r1, %r2;",
        "createpolicy.range.global.global.L2::evict_last.b64 %rd1, [%rd2], %r1, %r2;",
        "createpolicy.range.L2::evict_last.global.b64 %rd1, [%rd2], %r1, %r2;",
        "createpolicy.global.range.L2::evict_last.b64 %rd1, [%rd2], %r1, %r2;",
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd2], %r1, %r2, 0.5;",
        "createpolicy.range.global.L2::evict_last.b32 %r1, [%rd2], %r1, %r2;",
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd2], %rd1, %rd2;",
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd2], %s1, %u2;",
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd2], %ul1, %ul2;",
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd2], %f1, %f2;",
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd2], 1.0, 2.0;",
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd2], -1, 16;",
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd2], 4294967295, 4294967295;",
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd2], 4294967296, 4294967296;",
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [%rd2+%r1], %r1, %r2;",
        "createpolicy.range.global.L2::evict_last.b64 %rd1, [64], %r1, %r2;",
        "createpolicy.fractional.L2::evict_last.b64 %rd1, %f1;",
        "createpolicy.fractional.L2::evict_last.b64 %rd1, %h1;",
        "createpolicy.fractional.L2::evict_last.b64 %rd1, [%rd2];",
    ]
    for insn in misc:
        for mode in ("valid", "valid", "exact", "tgt_below"):
            add(insn, {"kind": "misc"}, mode)
    # version/target sweeps of the three legal forms
    legal = ["createpolicy.fractional.L2::evict_last.b64 %rd1, 1.0;",
             "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %rd1, 0.5;",
             "createpolicy.fractional.L2::evict_normal.b64 %rd1;",
             "createpolicy.range.L2::evict_last.L2::evict_first.b64 %rd1, [%rd2], 0x100000, 0x200000;",
             "createpolicy.range.global.L2::evict_first.b64 %rd1, [%rd2], %r1, %r2;",
             "createpolicy.cvt.L2.b64 %rd1, %rd2;"]
    for insn in legal:
        for t in TARGETS:
            vs = valid_versions(t)
            v = rng.choice([x for x in vs if vkey(x) >= (7, 4)] or vs)
            cases.append(Case("createpolicy", insn, t, v, {"gen": "target_sweep"}))
        for v in VERSIONS:
            t = rng.choice([x for x in ["sm_80", "sm_86", "sm_75", "sm_70"]
                            if vkey(TARGET_MIN_VERSION[x]) <= vkey(v)] or ["sm_70"])
            cases.append(Case("createpolicy", insn, t, v, {"gen": "version_sweep"}))
    return cases


# --------------------------------------------------------------------------------------------
# prefetch / prefetchu
# --------------------------------------------------------------------------------------------
def gen_prefetch(rng: random.Random) -> list[Case]:
    cases: list[Case] = []
    heads = {
        "prefetch.global.L1": ["prefetch"], "prefetch.global.L2": ["prefetch"],
        "prefetch.local.L1": ["prefetch"], "prefetch.local.L2": ["prefetch"],
        "prefetch.L1": ["prefetch"], "prefetch.L2": ["prefetch"],
        "prefetch.global.L2::evict_last": ["prefetch_evict"],
        "prefetch.global.L2::evict_normal": ["prefetch_evict"],
        "prefetchu.L1": ["prefetch"],
        # illegal or out-of-grammar forms
        "prefetch.shared.L1": ["prefetch"], "prefetch.const.L1": ["prefetch"],
        "prefetch.param.L1": ["prefetch"], "prefetch.global.L3": ["prefetch"],
        "prefetch.global": ["prefetch"], "prefetch": ["prefetch"],
        "prefetch.global.L2::evict_first": ["prefetch_evict"],
        "prefetch.global.L2::evict_unchanged": ["prefetch_evict"],
        "prefetch.global.L1::evict_last": ["prefetch_evict"],
        "prefetch.L2::evict_last": ["prefetch_evict"],
        "prefetch.local.L2::evict_last": ["prefetch_evict"],
        "prefetch.global.L2.L2::evict_last": ["prefetch_evict"],
        "prefetch.global.L2::evict_last.L2::evict_normal": ["prefetch_evict"],
        "prefetch.global.L1.L2": ["prefetch"], "prefetch.global.global.L1": ["prefetch"],
        "prefetch.L1.global": ["prefetch"], "prefetch.L2::evict_last.global": ["prefetch_evict"],
        "prefetch.global.L2::64B": ["prefetch"], "prefetch.global.L1.b32": ["prefetch"],
        "prefetch.global.L1.foo": ["prefetch"],
        "prefetchu.L2": ["prefetch"], "prefetchu.global.L1": ["prefetch"],
        "prefetchu.local.L1": ["prefetch"], "prefetchu": ["prefetch"],
        "prefetchu.L1.L1": ["prefetch"], "prefetchu.L1::evict_last": ["prefetch"],
        "prefetch.global.tensormap": ["prefetch"], "prefetch.tensormap": ["prefetch"],
    }
    addrs = ["[%rd1]", "[gbuf]", "[gbuf+64]", "[%rd1+128]", "[lbuf]", "[sbuf]", "[cbuf]", "[kp]",
             "[%r1]", "[64]", "%rd1", "[%f1]"]
    for head, feats in heads.items():
        main_addr = "[lbuf]" if ".local" in head else "[%rd1]"
        for i, mode in enumerate(["valid", "valid", "tgt_below", "ver_below", "exact", "random"]):
            addr = main_addr if i < 3 else rng.choice(addrs)
            t, v, how = pick_target_version(rng, feats, mode)
            cases.append(Case("prefetch", f"{head} {addr};", t, v, {"gen": "forms", "tv": how,
                                                                     "head": head}))
    for head in ["prefetch.global.L1", "prefetch.global.L2", "prefetch.L1", "prefetch.local.L2",
                 "prefetch.global.L2::evict_last", "prefetchu.L1"]:
        for addr in addrs:
            t, v, how = pick_target_version(rng, heads[head], "valid")
            cases.append(Case("prefetch", f"{head} {addr};", t, v, {"gen": "addr", "tv": how,
                                                                     "head": head}))
    extra = ["@%p1 prefetch.global.L2 [%rd1];", "@!%p1 prefetchu.L1 [%rd1];",
             "prefetch.global.L2 [%rd1], %rd2;", "prefetch.global.L2;",
             "prefetch.global.L2 [%rd1], [%rd2];", "prefetch.global.L2::evict_last [%rd1], %rd2;",
             "prefetch.global.L2::cache_hint [%rd1], %rd2;", "prefetchu.L1 [%rd1], 0;",
             "prefetch.global.L2 [%rd1].unified;"]
    for insn in extra:
        for mode in ("valid", "exact", "tgt_below"):
            feats = ["prefetch_evict"] if "evict" in insn else ["prefetch"]
            t, v, how = pick_target_version(rng, feats, mode)
            cases.append(Case("prefetch", insn, t, v, {"gen": "extra", "tv": how}))
    # target and version sweeps of the legal forms
    for head in ["prefetch.global.L1 [%rd1];", "prefetch.local.L2 [lbuf];", "prefetchu.L1 [%rd1];",
                 "prefetch.global.L2::evict_last [%rd1];", "prefetch.global.L2::evict_normal [%rd1];"]:
        for t in TARGETS:
            cases.append(Case("prefetch", head, t, rng.choice(valid_versions(t)), {"gen": "target_sweep"}))
        for v in VERSIONS:
            t = rng.choice([x for x in ["sm_80", "sm_75", "sm_70", "sm_86"]
                            if vkey(TARGET_MIN_VERSION[x]) <= vkey(v)] or ["sm_70"])
            cases.append(Case("prefetch", head, t, v, {"gen": "version_sweep"}))
    return cases


def gen_handpicked(rng: random.Random) -> list[Case]:
    cases = []
    for family, insn, feats in handpicked_ld_st():
        fam = "ld.global.nc" if ".nc" in insn else family
        for mode in ("valid", "exact", "tgt_below", "ver_below"):
            t, v, how = pick_target_version(rng, feats, mode)
            cases.append(Case(fam, insn, t, v, {"gen": "hand", "tv": how}))
    return cases


def gen_boundary_grid(rng: random.Random) -> list[Case]:
    """Every feature of ld/st at every target and around its version boundary."""
    probes = [
        ("ld", "ld.weak.global.b32 %r1, [%rd1];"), ("ld", "ld.relaxed.gpu.global.b32 %r1, [%rd1];"),
        ("ld", "ld.acquire.sys.b32 %r1, [%rd1];"), ("ld", "ld.relaxed.cluster.global.b32 %r1, [%rd1];"),
        ("ld", "ld.mmio.relaxed.sys.global.b32 %r1, [%rd1];"), ("ld", "ld.shared::cta.b32 %r1, [sbuf];"),
        ("ld", "ld.shared::cluster.b32 %r1, [%rd1];"), ("ld", "ld.param::entry.b32 %r1, [kp];"),
        ("ld", "ld.global.L1::evict_last.b32 %r1, [%rd1];"),
        ("ld", "ld.global.L2::64B.b32 %r1, [%rd1];"), ("ld", "ld.global.L2::256B.b32 %r1, [%rd1];"),
        ("ld", "ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;"), ("ld", "ld.global.b128 %rq1, [%rd1];"),
        ("ld", "ld.global.v8.f32 {%f1, %f2, %f3, %f4, %f5, %f6, %f7, %f8}, [%rd1];"),
        ("ld", "ld.global.L2::evict_last.v4.b64 {%rd1, %rd2, %rd3, %rd4}, [%rd1];"),
        ("ld", "ld.global.b32 %r1, [%rd1].unified;"), ("ld", "ld.local.volatile.b32 %r1, [lbuf];"),
        ("ld.global.nc", "ld.global.nc.b32 %r1, [%rd1];"),
        ("ld.global.nc", "ld.global.nc.L1::no_allocate.b32 %r1, [%rd1];"),
        ("st", "st.weak.global.b32 [%rd1], %r1;"), ("st", "st.release.gpu.global.b32 [%rd1], %r1;"),
        ("st", "st.mmio.relaxed.sys.global.b32 [%rd1], %r1;"),
        ("st", "st.global.L1::evict_last.b32 [%rd1], %r1;"),
        ("st", "st.global.L2::cache_hint.b32 [%rd1], %r1, %rd2;"), ("st", "st.global.b128 [%rd1], %rq1;"),
        ("st", "st.relaxed.sys.global.b128 [%rd1], %rq1;"),
        ("st", "st.global.v8.b32 [%rd1], {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8};"),
        ("st", "st.local.volatile.b32 [lbuf], %r1;"), ("st", "st.shared::cluster.b32 [%rd1], %r1;"),
        ("st", "st.param::func.b32 [pa], %r1;"),
        ("cp.async", "cp.async.ca.shared.global [sbuf], [%rd1], 4;"),
        ("cp.async", "cp.async.cg.shared.global.L2::128B [sbuf], [%rd1], 16;"),
        ("cp.async", "cp.async.ca.shared.global [sbuf], [%rd1], 8, %p1;"),
        ("cp.async", "cp.async.ca.shared::cta.global [sbuf], [%rd1], 4;"),
        ("cp.async", "cp.async.cg.shared.global.L2::cache_hint [sbuf], [%rd1], 16, %rd2;"),
        ("cp.async.group", "cp.async.wait_group 1;"),
        ("cp.async.mbarrier", "cp.async.mbarrier.arrive.noinc.shared::cta.b64 [sbuf];"),
    ]
    cases = []
    for family, insn in probes:
        for t in TARGETS:
            vs = valid_versions(t)
            cases.append(Case(family, insn, t, vs[-1] if rng.random() < 0.5 else rng.choice(vs),
                              {"gen": "grid_target"}))
        for v in VERSIONS:
            t = rng.choice([x for x in ["sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90"]
                            if vkey(TARGET_MIN_VERSION[x]) <= vkey(v)] or ["sm_70"])
            cases.append(Case(family, insn, t, v, {"gen": "grid_version"}))
    return cases



# --------------------------------------------------------------------------------------------
# Operand-type matrix (the relaxed type-checking rules), sinks, immediates, parameter contexts
# --------------------------------------------------------------------------------------------
OPERAND_REGS = [("b8", "%b1"), ("b16", "%rs1"), ("b32", "%r1"), ("b64", "%rd1"), ("b128", "%rq1"),
                ("u16", "%us1"), ("s16", "%ss1"), ("u32", "%u1"), ("s32", "%s1"), ("u64", "%ul1"),
                ("s64", "%sl1"), ("f16", "%h1"), ("f32", "%f1"), ("f64", "%fd1"), ("pred", "%p1"),
                ("imm", "1"), ("imm_neg", "-1"), ("fimm32", "0f3F800000"), ("fimm64", "0d3FF0000000000000"),
                ("fdec", "1.5")]


def gen_operand_matrix(rng: random.Random) -> list[Case]:
    cases = []
    for op in ("ld", "st"):
        for t in TYPES + ["f16"]:
            for kind, r in OPERAND_REGS:
                feats = ["b128"] if (t == "b128" or kind == "b128") else []
                insn = (f"ld.global.{t} {r}, [%rd1];" if op == "ld" else f"st.global.{t} [%rd1], {r};")
                t_, v_, how = pick_target_version(rng, feats, "valid" if rng.random() < 0.85 else None)
                cases.append(Case(op, insn, t_, v_, {"gen": "operand_matrix", "type": t,
                                                     "operand": kind, "tv": how}))
    # vector operands: element widths and kinds
    for op in ("ld", "st"):
        for vec, t in [("v2", "b32"), ("v4", "b32"), ("v2", "f32"), ("v2", "b16"), ("v4", "u16"),
                       ("v2", "b64"), ("v2", "f64"), ("v4", "s32")]:
            n = vec_count(vec)
            for elems in ["%r", "%rd", "%rs", "%f", "%fd", "%u", "%s", "%h", "%p", "%ul"]:
                regs = ", ".join(f"{elems}{i % 4}" for i in range(n))
                ops = "{" + regs + "}"
                insn = (f"ld.global.{vec}.{t} {ops}, [%rd1];" if op == "ld"
                        else f"st.global.{vec}.{t} [%rd1], {ops};")
                t_, v_, how = pick_target_version(rng, [], "valid")
                cases.append(Case(op, insn, t_, v_, {"gen": "vector_elems", "tv": how}))
    return cases


def gen_sinks_and_vectors(rng: random.Random) -> list[Case]:
    cases = []
    shapes = [("v2", "b32", "%r"), ("v4", "b32", "%r"), ("v8", "b32", "%r"), ("v8", "f32", "%f"),
              ("v2", "b64", "%rd"), ("v4", "b64", "%rd"), ("v4", "f64", "%fd"), ("v2", "b16", "%rs"),
              ("v4", "b16", "%rs"), ("v8", "b16", "%rs"), ("v8", "u8", "%rs")]
    for op in ("ld", "st"):
        for vec, t, p in shapes:
            n = vec_count(vec)
            for pattern in ("none", "first", "last", "all_but_one", "all"):
                items = [f"{p}{i % 4}" for i in range(n)]
                if pattern == "first":
                    items[0] = "_"
                elif pattern == "last":
                    items[-1] = "_"
                elif pattern == "all_but_one":
                    items = ["_"] * (n - 1) + [items[-1]]
                elif pattern == "all":
                    items = ["_"] * n
                ops = "{" + ", ".join(items) + "}"
                for space in ("global", ""):
                    head = f"{op}.{space + '.' if space else ''}{vec}.{t}"
                    insn = f"{head} {ops}, [%rd1];" if op == "ld" else f"{head} [%rd1], {ops};"
                    if op == "ld" and vec == "v8" and type_bits(t) < 32 and pattern == "none":
                        continue  # ptxas 13.5 crashes (SIGSEGV) on these; a few stay in the hand list
                    feats = ["vec256"] if (vec, type_bits(t)) in (("v8", 32), ("v4", 64)) else []
                    t_, v_, how = pick_target_version(rng, feats, "valid" if rng.random() < 0.8 else None)
                    cases.append(Case(op, insn, t_, v_, {"gen": "sinks", "pattern": pattern, "tv": how}))
    for op in ("ld", "st"):
        for insn_ops in [("_", "scalar_sink"), ("{_}", "braced_sink"), ("{%r1}", "braced_scalar"),
                         ("{%r1, %r2}", "pair_for_scalar")]:
            ops, name = insn_ops
            insn = f"ld.global.b32 {ops}, [%rd1];" if op == "ld" else f"st.global.b32 [%rd1], {ops};"
            for mode in ("valid", "valid", "random"):
                t_, v_, how = pick_target_version(rng, [], mode)
                cases.append(Case(op, insn, t_, v_, {"gen": "sinks", "pattern": name, "tv": how}))
    return cases


def gen_immediates(rng: random.Random) -> list[Case]:
    cases = []
    imms = ["0", "7", "-1", "0xFF", "4294967296", "0xFFFFFFFFFFFFFFFF", "1.0", "-0.5",
            "0f3F800000", "0d3FF0000000000000"]
    for t in ["b8", "b16", "b32", "b64", "b128", "u8", "s16", "u32", "s64", "f32", "f64"]:
        for imm in imms:
            feats = ["b128"] if t == "b128" else []
            t_, v_, how = pick_target_version(rng, feats, "valid")
            cases.append(Case("st", f"st.global.{t} [%rd1], {imm};", t_, v_,
                              {"gen": "immediates", "tv": how}))
    for insn in ["st.global.v2.b32 [%rd1], {%r1, 5};", "st.global.v4.f32 [%rd1], {%f1, 1.0, %f2, 0f3F800000};",
                 "st.global.v2.b64 [%rd1], {1, 2};", "ld.global.v2.b32 {%r1, 5}, [%rd1];",
                 "ld.global.b32 7, [%rd1];", "ld.global.f32 1.0, [%rd1];", "ld.global.f32 0f3F800000, [%rd1];"]:
        for mode in ("valid", "random"):
            t_, v_, how = pick_target_version(rng, [], mode)
            cases.append(Case(insn.split(".")[0], insn, t_, v_, {"gen": "immediates", "tv": how}))
    return cases


def gen_param_contexts(rng: random.Random) -> list[Case]:
    """ld.param / st.param in a kernel (before and after a call) and in a device function."""
    cases = []
    forms = [
        "ld.param.b32 %r1, [pa];", "ld.param.b32 %r1, [pr];", "ld.param.u64 %rd1, [kp];",
        "ld.param::entry.u64 %rd1, [kp];", "ld.param::func.b32 %r1, [pr];", "ld.param::func.b32 %r1, [fa];",
        "ld.param.b32 %r1, [fa];", "ld.param::entry.b32 %r1, [fa];", "ld.param.b64 %rd1, [fb];",
        "ld.param::func.b64 %rd1, [fb];", "@%p1 ld.param.b32 %r1, [pr];", "@%p1 ld.param.b32 %r1, [fa];",
        "@%p1 ld.param.u64 %rd1, [kp];", "ld.param.b32 %r1, [fr];", "ld.param.v2.b32 {%r1, %r2}, [fb];",
        "st.param.b32 [pa], %r1;", "@%p1 st.param.b32 [pa], %r1;", "st.param::func.b32 [pa], %r1;",
        "st.param.b32 [fr], %r1;", "st.param::func.b32 [fr], %r1;", "@%p1 st.param.b32 [fr], %r1;",
        "st.param.b32 [fa], %r1;", "st.param.b64 [pb], %rd1;", "st.param.u64 [kp], %rd1;",
        "st.param.v2.b32 [pb], {%r1, %r2};", "st.param.b32 [pr], %r1;", "st.param.b32 [%rd1], %r1;",
        "ld.param.b32 %r1, [%rd1];", "ld.param::func.b32 %r1, [%rd1];", "ld.param::entry.b32 %r1, [%rd1];",
        "ld.local.b32 %r1, [lbuf];", "ld.global.b32 %r1, [%rd1];",
        "st.local.b32 [lbuf], %r1;", "ld.param.b32 %r1, [kp];",
    ]
    for insn in forms:
        if "[%rd1], %r1" in insn and insn.startswith("st.param"):
            reps = [("entry", "valid")]  # ptxas 13.5 crashes (SIGSEGV) here; one case documents it
        else:
            reps = [(ctx, mode) for ctx in CONTEXTS for mode in ("valid", "ver_below")]
        for ctx, mode in reps:
            feats = ["param_entry"] if "::" in insn else []
            t_, v_, how = pick_target_version(rng, feats, mode)
            fam = "ld" if insn.lstrip("@%p1 !").startswith("ld") else "st"
            cases.append(Case(fam, insn, t_, v_, {"gen": "param_context", "tv": how}, context=ctx))
    return cases


def gen_mmio_sem(rng: random.Random) -> list[Case]:
    """.mmio with .relaxed/.acquire/.release around PTX ISA 9.3, and semantics x scope x space."""
    cases = []
    for insn in ["ld.mmio.acquire.sys.global.b32 %r1, [%rd1];", "ld.mmio.relaxed.sys.global.b32 %r1, [%rd1];",
                 "st.mmio.release.sys.global.b32 [%rd1], %r1;", "st.mmio.relaxed.sys.global.b32 [%rd1], %r1;",
                 "ld.mmio.acquire.sys.b32 %r1, [%rd1];", "st.mmio.release.sys.b32 [%rd1], %r1;"]:
        for v in VERSIONS:
            t = rng.choice([x for x in ["sm_70", "sm_75", "sm_80", "sm_90", "sm_100"]
                            if vkey(TARGET_MIN_VERSION[x]) <= vkey(v)] or ["sm_70"])
            cases.append(Case(insn[:2], insn, t, v, {"gen": "mmio_versions"}))
    sems = ["", "weak", "volatile", "relaxed.gpu", "acquire.gpu", "release.gpu", "mmio.relaxed.sys",
            "mmio.acquire.sys", "mmio.release.sys", "relaxed", "gpu", "relaxed.cta.gpu"]
    spaces = ["", "global", "shared", "shared::cta", "shared::cluster", "local", "const", "param",
              "param::entry", "param::func"]
    addr = {"": "[%rd1]", "global": "[%rd1]", "shared": "[sbuf]", "shared::cta": "[sbuf]",
            "shared::cluster": "[%rd1]", "local": "[lbuf]", "const": "[cbuf]", "param": "[kp]",
            "param::entry": "[kp]", "param::func": "[pr]"}
    for op in ("ld", "st"):
        for sem in sems:
            for sp in spaces:
                quals = ".".join(x for x in (sem, sp, "b32") if x)
                a = addr[sp] if op == "ld" else addr[sp].replace("[kp]", "[pa]").replace("[pr]", "[pa]")
                insn = f"ld.{quals} %r1, {a};" if op == "ld" else f"st.{quals} {a}, %r1;"
                ctx = "after_call" if (op == "ld" and sp == "param::func") else "entry"
                t_, v_, how = pick_target_version(rng, ["mmio"] if "mmio" in sem else [], "valid")
                if "mmio" in sem and vkey(v_) < (9, 3) and rng.random() < 0.7:
                    v_ = rng.choice(["9.3", "9.4", "9.5"])
                cases.append(Case(op, insn, t_, v_, {"gen": "sem_space"}, context=ctx))
    return cases


def gen_cp_async_operands(rng: random.Random) -> list[Case]:
    cases = []
    base = "cp.async.ca.shared.global"
    tails = ["%u3", "%s3", "%f3", "%b3", "%ul3", "%rs3", "-1", "0x4", "%p1, %p2", "!%p1", "%p1, %r3"]
    for tail in tails:
        for mode in ("valid", "exact"):
            t_, v_, how = pick_target_version(rng, ["cp_async", "ignore_src"], mode)
            cases.append(Case("cp.async", f"{base} [sbuf], [%rd1], 8, {tail};", t_, v_,
                              {"gen": "cp_operands", "tv": how}))
    pols = ["%rd2", "%ul2", "%sl2", "%r2", "%fd2", "0", "0x14F0000000000000", "%p1"]
    for pol in pols:
        for pre in ["", "%r3, ", "%p1, "]:
            insn = f"{base}.L2::cache_hint [sbuf], [%rd1], 8, {pre}{pol};"
            t_, v_, how = pick_target_version(rng, ["cp_async_hint", "ignore_src"], "valid")
            cases.append(Case("cp.async", insn, t_, v_, {"gen": "cp_policy", "tv": how}))
    addrs = [("[sbuf]", "[%rd1]"), ("[%r1]", "[%rd1]"), ("[%rd3]", "[%rd1]"), ("[%rs1]", "[%rd1]"),
             ("[sbuf+8]", "[gbuf+8]"), ("[gbuf]", "[%rd1]"), ("[sbuf]", "[sbuf]"), ("[sbuf]", "[cbuf]"),
             ("[sbuf]", "[lbuf]"), ("[128]", "[%rd1]"), ("[sbuf]", "[256]"), ("[%f1]", "[%rd1]"),
             ("[sbuf]", "[%fd1]"), ("[sbuf]", "[%ul1]"), ("[sbuf]", "[kp]"), ("sbuf", "[%rd1]")]
    for d, src in addrs:
        for space in ("shared.global", "shared::cta.global"):
            insn = f"cp.async.ca.{space} {d}, {src}, 4;"
            t_, v_, how = pick_target_version(rng, ["cp_async"], "valid")
            cases.append(Case("cp.async", insn, t_, v_, {"gen": "cp_addr", "tv": how}))
    return cases


FAMILY_ORDER = ["ld", "ld.global.nc", "st", "cp.async", "cp.async.group", "cp.async.mbarrier",
                "createpolicy", "prefetch"]
ID_PREFIX = {"ld": "ld", "ld.global.nc": "ldnc", "st": "st", "cp.async": "cpasync",
             "cp.async.group": "cpgroup", "cp.async.mbarrier": "cpmbar",
             "createpolicy": "policy", "prefetch": "prefetch"}


def generate() -> list[dict]:
    """All cases, deterministic, each with its full module text."""
    rng = random.Random(SEED)
    raw: list[Case] = []
    raw += gen_ld(random.Random(rng.randrange(1 << 30)))
    raw += gen_ld_nc(random.Random(rng.randrange(1 << 30)))
    raw += gen_st(random.Random(rng.randrange(1 << 30)))
    raw += gen_handpicked(random.Random(rng.randrange(1 << 30)))
    raw += gen_cp_async(random.Random(rng.randrange(1 << 30)))
    raw += gen_cp_async_misc(random.Random(rng.randrange(1 << 30)))
    raw += gen_createpolicy(random.Random(rng.randrange(1 << 30)))
    raw += gen_prefetch(random.Random(rng.randrange(1 << 30)))
    raw += gen_boundary_grid(random.Random(rng.randrange(1 << 30)))
    raw += gen_operand_matrix(random.Random(rng.randrange(1 << 30)))
    raw += gen_sinks_and_vectors(random.Random(rng.randrange(1 << 30)))
    raw += gen_immediates(random.Random(rng.randrange(1 << 30)))
    raw += gen_param_contexts(random.Random(rng.randrange(1 << 30)))
    raw += gen_mmio_sem(random.Random(rng.randrange(1 << 30)))
    raw += gen_cp_async_operands(random.Random(rng.randrange(1 << 30)))
    seen: set[tuple[str, str, str]] = set()
    per_family: Counter = Counter()
    out: list[dict] = []
    for c in raw:
        family = c.family
        if family == "ld" and re.search(r"\.nc\b", c.insn):
            family = "ld.global.nc"
        key = (c.insn, c.target, c.version, c.context)
        if key in seen:
            continue
        seen.add(key)
        per_family[family] += 1
        case_id = f"{ID_PREFIX[family]}-{per_family[family]:05d}"
        axes = {k: v for k, v in c.axes.items() if v is not None and v is not False}
        out.append({
            "id": case_id,
            "family": family,
            "target": c.target,
            "version": c.version,
            "arch": ptxas_arch(c.target),
            "line": INSN_LINE,
            "context": c.context,
            "insn": c.insn,
            "axes": axes,
            "ptx": render_module(case_id, family, c.target, c.version, c.insn, c.context),
        })
    out.sort(key=lambda d: d["id"])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the cases as JSON lines to this file")
    ap.add_argument("--stats", action="store_true", help="print counts per family and target")
    args = ap.parse_args()
    cases = generate()
    if args.out:
        with open(args.out, "w") as f:
            for c in cases:
                f.write(json.dumps(c, sort_keys=True) + "\n")
    if args.stats or not args.out:
        fam = Counter(c["family"] for c in cases)
        tgt = Counter(c["target"] for c in cases)
        ver = Counter(c["version"] for c in cases)
        print(f"{len(cases)} cases")
        for k in FAMILY_ORDER:
            print(f"  {k:20s} {fam[k]}")
        print("targets:", dict(sorted(tgt.items(), key=lambda kv: (sm_number(kv[0]), kv[0]))))
        print("versions:", dict(sorted(ver.items(), key=lambda kv: vkey(kv[0]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
