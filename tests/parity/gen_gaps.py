#!/usr/bin/env python3
"""ptxas parity on the gaps a fresh mutation sample found (gen_mutations.py with new seeds):
duplicate definitions, the `.target`/`.version` gate of versions written `X.1Y`, and the
`cp.async.bulk` family.

Families (a fixed seed; every case is a small complete module, or a real corpus module with
one edit):

* **dup-fixed** — hand-written probes of the namespace rules: registers, register ranges
  (`%r<4>` then `%r0`, `%r<4>` twice, `%r<4>` then `%r4`), predicates, `.local`/`.shared`/
  body `.param`s, kernel and function parameters (return and input), labels, nested blocks,
  module variables of every state space and linkage (`.extern`, `.weak`, `.visible`,
  `.common`), functions with and without prototypes, `.extern` functions, entry/function and
  variable/function clashes, prototypes that disagree in count, type, alignment or space.
* **dup-random** — random compositions of the same declarations with names drawn from a small
  pool, so that they collide in every combination and order.
* **dup-corpus** — real corpus modules (tests/corpus) with one declaration line or label line
  repeated, or a declaration added that reuses a parameter's name.
* **target** — `.target` sm_88 … sm_121f (incl. `a`/`f`) at every `.version` 7.8 … 9.5 and
  the written forms `7.18`, `8.10` … `8.15`, `6.28` (ptxas compares the version as written,
  not `major*10+minor`, with the target's minimum).
* **labels** — `bra` targets: labels of the branch's block, an enclosing, nested or sibling
  block, another function, defined before or after the branch, call-prototype labels,
  registers, special registers, variables of every state space, parameters, functions and
  immediates as targets (hand-written probes, random block structures, and real corpus
  modules with one branch target renamed or one label removed).
* **st-words** — `st` with `.async` or `.bulk` written after another word (a plain `st`:
  `.async` is an illegal modifier, `.bulk` an unknown one) and as the first word (`st.async`,
  `st.bulk`, checked for their gates only), with and without types and vectors.
* **bulk** — the `cp.async.bulk` group instructions with a modifier between `.bulk` and the
  group word, the bulk copies and prefetches (valid forms and one fault each: operand count
  and shape, coordinate vectors, prefetch sizes, vector and type words, state spaces), and
  guards naming undeclared predicates on instructions of every family, and the special
  registers `%clock_hi`, `%pm0_64` … `%pm7_64`.

Every module is assembled with `ptxas -arch=<arch> case.ptx -o /dev/null` (`<arch>` = the
`.target`); exit code and complete output go to gaps.jsonl.gz (crates/ptx-check/tests/gaps.rs
compares ptxsim with it). Cases on which ptxas crashed (signal, internal error) or answered
differently on a second run are left out and counted in gaps.meta.json. Running ptxas and
checking the data are golden_driver.py's, shared with gen_adversarial.py and gen_survey.py.

Usage:
  source ../../../shared/tools/cuda-tools.sh
  gen_gaps.py --list              print the cases as JSON lines (no ptxas)
  gen_gaps.py --run [--jobs 2]    run ptxas, write gaps.jsonl.gz and gaps.meta.json
  gen_gaps.py --verify            gaps.jsonl.gz matches this generator (no ptxas)
"""

from __future__ import annotations

import random
import re
import sys
from pathlib import Path

from golden_driver import golden_main

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parent / "corpus"
SEED = 0x5EED_D0B1
GENERATOR_VERSION = 3
HEADER = ".version 8.5\n.target sm_90a\n.address_size 64\n"

# ---------------------------------------------------------------------------------------------
# dup-fixed

FIXED = {
    "reg-range-then-member": """.visible .entry k() {
 .reg .b32 %r<4>;
 .reg .u32 %r0;
 .reg .b32 %r4;
 .reg .b32 %r<4>;
 ret; }""",
    "range-after-scalar": """.visible .entry k() {
 .reg .b32 %r0;
 .reg .b32 %r<4>;
 .reg .b32 %q<4>;
 .reg .b32 %q<8>;
 .reg .b16 %q<2>;
 .reg .b32 %s<4>;
 .reg .b32 %s3;
 .reg .b32 %s3;
 ret; }""",
    "list-in-range-and-before": """.visible .entry k() {
 .reg .b32 %r<34>;
 .reg .u32 %r0, %r1, %r2, %r3, %alo, %ahi;
 .reg .u32 %r0, %r1, %a0, %alo;
 .reg .u32 %r0, %ahi, %ahi;
 ret; }""",
    "nested-blocks": """.visible .entry k() {
 .reg .b32 %x;
 { .reg .b32 %x; .reg .b32 %x; L: ret; }
 L: ret;
 { M: ret; }
 { M: ret; }
 { .reg .b32 %r<2>; { .reg .b32 %r<2>; .reg .b32 %r1; } }
 ret;
}""",
    "module-spaces": """.global .b32 g;
.global .b32 g;
.shared .b32 h;
.const .b32 h;
.global .b32 h;
.visible .entry k() { .local .b32 l; .local .b32 l; .shared .b32 s; .shared .b32 s; .reg .b32 h; .param .b32 pp; .param .b32 pp; ret; }""",
    "linkage": """.extern .global .b32 e1;
.visible .global .b32 e1;
.extern .global .b32 e2;
.weak .global .b32 e2;
.extern .global .b32 e3;
.common .global .b32 e3;
.visible .global .b32 e4;
.extern .global .b32 e4;
.global .b32 e5;
.extern .global .b32 e5;
.extern .global .b32 e6;
.extern .shared .b32 e6;
.extern .global .b32 e7;
.global .b32 e7;
.global .b32 e7;
.weak .global .b32 w;
.global .b32 w;""",
    "params": """.visible .entry k(.param .u64 a, .param .u64 a) { ret; }
.visible .entry j(.param .u32 a) { .param .b32 a; {.reg .b32 a;} ret; }
.func (.param .b32 r) f(.param .b32 r) { ret; }
.func (.param .b32 r) f2(.param .b32 a) { .reg .b32 r; ret; }""",
    "params-multiline": """.visible .entry k(
 .param .u64 a,
 .param .u64 a
) {
 .reg .u32 %x,
   %x;
 .reg .u32 %x;
 ret; }""",
    "labels-and-names": """.visible .entry k(.param .u32 a) { .reg .b32 %r; L: ret; }
.visible .entry j(.param .u32 a) { .reg .b32 %r; .reg .b32 L; L: ret; M: .reg .b32 M; ret; a: ret; }""",
    "pred-then-reg": """.visible .entry k() { .reg .pred %p; .reg .b32 %p; .reg .pred %q<2>; .reg .pred %q1; ret; }""",
    "functions": """.func f();
.func f() { ret; }
.func f2();
.func f2();
.func f3() { ret; }
.func f3();
.func f4() { ret; }
.func f4() { ret; }
.visible .entry k() { ret; }
.visible .entry k() { ret; }""",
    "entry-redefined-params": """.visible .entry k(.param .u64 a) { ret; }
.visible .entry k() { ret; }""",
    "prototypes": """.func (.param .b32 r) f(.param .b32 a);
.func f(.param .b32 a) { ret; }
.func f1(.param .b32 a);
.func f1(.reg .b64 a);
.func f2(.param .b32 a, .param .b32 b);
.func f2(.param .u32 a, .param .u32 b);
.func f3(.param .b32 a, .param .b32 b);
.func f3(.param .u64 a, .reg .b32 b);
.func f5(.param .b32 a[2]);
.func f5(.param .b32 a[3]);
.func f6(.param .b64 a);
.func f6(.param .align 8 .b64 a);
.func f7(.param .align 4 .b8 a[8]);
.func f7(.param .align 8 .b8 a[8]);
.func f9(.param .b32 a);
.func f9(.param .b32 a);
.func f9(.param .u32 a);""",
    "prototype-multiline": """.func f8(.param .b32 a);
.func f8
(
  .param .b32 a,
  .param .b32 b
)
{
 ret;
}
.func f8
(
  .param .b32 a,
  .param .b32 b
)
{
 ret;
}""",
    "extern-functions": """.extern .func f1();
.func f1();
.extern .func f2();
.visible .func f2() {ret;}
.extern .func f3();
.extern .func f3();
.extern .func f4(.param .b32 a);
.extern .func f4();
.func f5();
.extern .func f5();
.func f6() {ret;}
.extern .func f6();
.weak .func f8() {ret;}
.extern .func f8();
.extern .func f9();
.weak .func f9() {ret;}
.global .b32 h;
.global .b32 h;""",
    "function-then-var": """.func g() { ret; }
.global .b32 g;
.func v();
.global .b32 v;
.global .b32 h;
.global .b32 h;
.visible .entry k() { .reg .b32 %r; .reg .b32 %r; ret; }""",
    "var-then-func-stops": """.global .b32 g;
.func g() { ret; }
.global .b32 h;
.global .b32 h;""",
    "var-then-visible-entry": """.global .b32 v;
.visible .entry v() {ret;}
.visible .entry k() { .reg .b32 %r; .reg .b32 %r; ret; }""",
    "var-then-prototype": """.global .b32 v;
.entry v();
.visible .entry k() { .reg .b32 %r; .reg .b32 %r; ret; }""",
    "entry-then-func": """.entry v() { ret; }
.func v() { ret; }
.global .b32 h;
.global .b32 h;
.func w();
.entry w() {ret;}""",
    "call-prototype-label": """.visible .entry k() {
 .reg .b32 proto;
 proto: .callprototype _ (.param .b32 _);
 ret; }""",
    "dups-with-other-errors": """.visible .entry k(.param .u64 a) {
 .reg .b32 %r<4>;
 .reg .b64 %rd<4>;
 .reg .b32 %r1;
 ld.global.L2::64B.b32 %r2, [a];
 .reg .b32 %r2;
 ld.global.b32 %r3, [%rd9];
 L: ret;
 L: ret; }""",
}

# ---------------------------------------------------------------------------------------------
# dup-random

REG_NAMES = ["%x", "%y", "%r0", "%r1", "%r3", "%r4", "%p", "a", "L"]
VAR_NAMES = ["a", "b", "L", "M", "g"]
LABELS = ["L", "M", "a", "$L__BB0_1"]


def random_body(rng: random.Random, depth: int) -> list[str]:
    out = []
    for _ in range(rng.randint(1, 6)):
        r = rng.random()
        if r < 0.25:
            names = rng.sample(REG_NAMES, rng.randint(1, 2))
            ty = rng.choice([".b32", ".u32", ".pred", ".b64"])
            out.append(f".reg {ty} {', '.join(names)};")
        elif r < 0.42:
            out.append(f".reg {rng.choice(['.b32', '.b64', '.pred'])} "
                       f"{rng.choice(['%r', '%p', '%x'])}<{rng.choice([2, 4])}>;")
        elif r < 0.57:
            space = rng.choice([".local", ".shared", ".param"])
            out.append(f"{space} .b32 {rng.choice(VAR_NAMES)};")
        elif r < 0.75:
            out.append(f"{rng.choice(LABELS)}: ret;")
        elif r < 0.87 and depth < 2:
            inner = random_body(rng, depth + 1)
            out.append("{ " + " ".join(inner) + " }")
        else:
            out.append("ret;")
    if not out[-1].endswith("ret;") and not out[-1].endswith("}"):
        out.append("ret;")
    return out


def random_params(rng: random.Random, n: int) -> list[str]:
    ps = []
    for _ in range(n):
        ty = rng.choice([".b32", ".u32", ".b64"])
        align = rng.choice(["", "", ".align 8 "])
        dims = rng.choice(["", "", "[2]"])
        ps.append(f".param {align}{ty} {rng.choice(['a', 'b', 'r'])}{dims}")
    return ps


def random_module(rng: random.Random) -> str:
    items = []
    for _ in range(rng.randint(0, 3)):
        link = rng.choice(["", "", ".visible ", ".extern ", ".weak "])
        space = rng.choice([".global", ".shared", ".const"])
        items.append(f"{link}{space} .b32 {rng.choice(['g', 'h'])};")
    for _ in range(rng.randint(1, 3)):
        entry = rng.random() < 0.4
        name = rng.choice(["f", "k"])
        link = rng.choice(["", ".visible "] if entry else ["", "", ".visible ", ".weak "])
        params = random_params(rng, rng.randint(0, 2))
        rets = "" if entry or rng.random() < 0.6 else f"({random_params(rng, 1)[0]}) "
        head = f"{link}{'.entry' if entry else '.func'} {rets}{name}({', '.join(params)})"
        if rng.random() < 0.3:
            items.append(head + ";")
        else:
            items.append(head + " {\n " + "\n ".join(random_body(rng, 0)) + "\n}")
    rng.shuffle(items)
    return HEADER + "\n".join(items) + "\n"


# ---------------------------------------------------------------------------------------------
# dup-corpus

def corpus_files() -> list[Path]:
    files = sorted(p for p in CORPUS.rglob("*.ptx")
                   if "rejected" not in p.parts and p.stat().st_size < 40_000)
    return files


DECL = re.compile(r"^\s*\.(reg|local|shared|param)\b[^;]*;\s*$")
LABEL = re.compile(r"^\s*[$A-Za-z_][$\w]*:\s*$")


def corpus_edit(rng: random.Random, path: Path) -> tuple[str, str] | None:
    lines = path.read_text().split("\n")
    depth = 0
    decls, labels, opens = [], [], []
    for i, line in enumerate(lines):
        if line.lstrip().startswith(".section"):
            break  # the DWARF sections: no functions after them
        if depth >= 1 and DECL.match(line):
            decls.append(i)
        if depth >= 1 and LABEL.match(line):
            labels.append(i)
        if line.strip() == "{" and depth == 0:
            opens.append(i)
        depth += line.count("{") - line.count("}")
    kinds = [k for k, xs in (("decl", decls), ("label", labels), ("param", opens)) if xs]
    if not kinds:
        return None
    kind = rng.choice(kinds)
    if kind == "decl":
        i = rng.choice(decls)
        lines.insert(i + 1, lines[i])
    elif kind == "label":
        i = rng.choice(labels)
        lines.insert(i + 1, lines[i])
        lines.insert(i + 2, "\tret;")
    else:
        i = rng.choice(opens)
        # a declaration that reuses the function's first parameter name, if it has one
        sig = "\n".join(lines[max(0, i - 12):i])
        m = re.findall(r"\.param\s+[^,)]*?\s([$\w]+)\s*[,)\n]", sig + "\n")
        if not m:
            return None
        lines.insert(i + 1, f"\t.reg .b32 {m[-1]};")
    return kind, "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# target

TARGETS = ["sm_88", "sm_89", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_103",
           "sm_103a", "sm_103f", "sm_107", "sm_107a", "sm_107f", "sm_110", "sm_110a", "sm_110f",
           "sm_120", "sm_120a", "sm_120f", "sm_121", "sm_121a", "sm_121f"]
VERSIONS = ["7.8", "8.0", "8.5", "8.6", "8.7", "8.8", "9.0", "9.3", "9.4", "9.5", "8.10",
            "8.13", "8.14", "8.15", "7.18", "6.28"]

# ---------------------------------------------------------------------------------------------
# bulk

BULK_HEAD = """.version 8.6
.target {target}
.address_size 64
.visible .entry k(.param .u64 p)
{{
 .reg .pred %p<2>;
 .reg .b16 %rs<4>;
 .reg .b32 %r<8>;
 .reg .b64 %rd<8>;
 .shared .align 128 .b8 smem[1024];
 .shared .align 8 .b64 bar;
"""
# (head, group word, operands): a modifier goes between head and group word.
GROUP_FORMS = [("cp.async.bulk", "commit_group", ";"), ("cp.async.bulk", "wait_group", " 0;"),
               ("cp.async.bulk", "wait_group.read", " 0;")]
BULK_INSNS = [
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1], 64, [bar];",
    "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [smem], 64;",
    "cp.async.bulk.prefetch.L2.global [%rd1], 64;",
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [bar];",
    "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r1}], [smem];",
    "cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1, {%r1, %r2}];",
    "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [smem], 64;",
    "cp.async.ca.shared.global [smem], [%rd1], 16;",
    "cp.async.commit_group;",
    "ld.global.b32 %r1, [%rd1];",
    "add.u32 %r1, %r2, %r3;",
    "mov.u32 %r1, %r2;",
    "bar.sync 0;",
    "mbarrier.arrive.shared.b64 %rd2, [bar];",
]
# The copies and prefetches themselves: valid forms and one fault each (operand count and
# shape, coordinate vectors, prefetch sizes, vector and type words, state spaces).
COPY_FORMS = [
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1], 64, [bar];",
    "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes [smem], [%rd1], 64, [bar];",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [smem], [%rd1], 64, [bar], %rd2;",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [smem], [%rd1], 64, [bar], %rs1;",
    "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [smem], [smem], 64, [bar];",
    "cp.async.bulk.shared.global.mbarrier::complete_tx::bytes [smem], [%rd1], 64, [bar];",
    "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1], 64;",
    "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [smem], 64;",
    "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint [%rd1], [smem], 64, %rd2;",
    "cp.async.bulk;",
    "cp.async.bulk.b32;",
    "cp.async.bulk.s32 0;",
    "cp.async.bulk.acquire.sys;",
    "cp.async.bulk.global.shared::cta.bulk_group [%rd1], [smem];",
    "cp.async.bulk.global.shared::cta.bulk_group [%rd1];",
    "cp.async.bulk.global.shared::cta.bulk_group.b32 [%rd1], [smem], 64;",
    "cp.async.bulk.global.global.bulk_group [%rd1], [smem], 64;",
    "cp.async.bulk.global.shared::cta.global.bulk_group [%rd1], [smem], 64;",
    "cp.async.bulk.global.shared::cta.bulk_group.L2::64B [%rd1], [smem], 64;",
    "cp.async.bulk.global.shared::cta.bulk_group.L2::256B [%rd1], [smem], 64;",
    "cp.async.bulk.global.shared::cta.bulk_group.v4 [%rd1], [smem], 64;",
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [bar];",
    "cp.async.bulk.tensor.2d.shared::cta.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [bar];",
    "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2, %r3}], [bar];",
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint [smem], [%rd1, {%r1, %r2}], [bar], %rd2;",
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1}], [bar];",
    "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [bar];",
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1], [bar];",
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}];",
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [smem], %rd1, [bar];",
    "cp.async.bulk.tensor.2d.shared::cluster.global.L2::256B.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [bar];",
    "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r1}], [smem];",
    "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%rd1, {%r1, %r2, %r3}], [smem];",
    "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group %rd1, [smem];",
    "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%rd1, {%r1}];",
    "cp.async.bulk.tensor.3d.global.shared::cta.bulk_group %rd8, [smem];",
    "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::128B [%rd1, {%r1}], [smem];",
    "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::64B [%rd1, {%r1}], [smem];",
    "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.L2::cache_hint [%rd1, {%r1}], [smem], %rd2;",
    "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.v2 [%rd1, {%r1}], [smem];",
    "cp.async.bulk.tensor.2d.global.v8.shared::cta.bulk_group [%rd1, {%r1, %r2}], [smem];",
    "cp.async.bulk.tensor.1d.global.bulk_group [%rd1, {%r1}], [smem];",
    "cp.async.bulk.tensor.1d.global.shared::cta.shared::cta.bulk_group [%rd1, {%r1}], [smem];",
    "cp.async.bulk.tensor.2d.global.shared::cta.global.bulk_group [%rd1, {%r1, %r2}], [smem];",
    "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group.b32 [%rd1, {%r1}], [smem];",
    "cp.async.bulk.tensor.1d.shared::cluster.shared::cta.bulk_group [smem, {%r1}], [smem];",
    "cp.async.bulk.prefetch.L2.global [%rd1], 64;",
    "cp.async.bulk.prefetch.L2.global.L2::cache_hint [%rd1], 64, %rd2;",
    "cp.async.bulk.prefetch.L2.global [%rd1];",
    "cp.async.bulk.prefetch.L2.shared [%rd1], 64;",
    "cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1, {%r1, %r2}];",
    "cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%rd1, {%r1, %r2}];",
    "cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1, {%r1}];",
    "cp.async.bulk.prefetch.tensor.2d.L2.global [%rd1];",
    "cp.async.bulk.tensor.2d.shared::gpu.shared::cta.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [bar];",
    "cp.async.bulk.tensor.2d.shared::cluster.global.foo.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [bar];",
    "cp.async.bulk.global::x.shared::cta.bulk_group [%rd1], [smem], 64;",
    "cp.async.bulk.global.shared::cta.bulk_group.foo.v4 [%rd1], [smem], 64;",
    "cp.async.bulk.tensor.shared::cta.global.mbarrier::complete_tx::bytes [smem], [%rd1, {%r1, %r2}], [bar];",
    "cp.async.bulk.tensor.global.shared::cta.bulk_group [%rd1, {%r1}], [smem];",
    "cp.async.bulk.prefetch.tensor.L2.global [%rd1, {%r1, %r2}];",
]
# Special registers ptx-check did not know (found while probing undeclared registers).
UNDECLARED = [
    "mov.u32 %r1, %clock_hi;",
    "mov.u64 %rd1, %pm3_64;",
    "ld.global.b32 %r1, [%clock_hi];",
]
BETWEEN = [".global", ".shared", ".L2", ".read", ".async", ".bulk", ".cta", ".foo"]


def bulk_cases(rng: random.Random) -> list[tuple[str, str]]:
    out = []
    for head, group, rest in GROUP_FORMS:
        for mod in BETWEEN:
            out.append(("bulk-between", f"{head}{mod}.{group}{rest}"))
    for insn in COPY_FORMS:
        out.append(("bulk-copy", insn))
    for insn in UNDECLARED:
        out.append(("special-register", insn))
    for insn in BULK_INSNS:
        for guard in ["@%nosuchp", "@!%nosuchp", "@%r1", "@%p1"]:
            out.append(("guard", f"{guard} {insn}"))
    rng.shuffle(out)
    return out


LABEL_HEAD = (".version 8.5\n.target sm_90a\n.address_size 64\n"
              ".global .b32 g;\n.shared .b32 s;\n.func f() { ret; }\n")

LABEL_FIXED = {
    "undefined": "{ bra $L_nowhere; ret; }",
    "guarded-undefined": "{ .reg .pred %p; @%p bra.uni X; ret; }",
    "forward": "{ bra L1; L1: ret; }",
    "backward": "{ L1: bra L1; }",
    "in-nested-block": "{ bra L1; { L1: ret; } ret; }",
    "from-nested-block": "{ { bra L1; } L1: ret; }",
    "sibling-block": "{ { bra X; } { X: ret; } ret; }",
    "deep-nesting": "{ { { bra X; } } X: ret; }",
    "deep-nested-label": "{ { { X: ret; } } bra X; }",
    "twice-undefined": "{ bra X; bra X; ret; }",
    "two-undefined": "{ bra A; bra B; ret; }",
    "register": "{ .reg .b32 %r; bra %r; ret; }",
    "predicate": "{ .reg .pred %p; bra %p; ret; }",
    "special-register": "{ bra %tid; ret; }",
    "special-register-x": "{ bra %tid.x; ret; }",
    "global-variable": "{ bra g; ret; }",
    "shared-variable": "{ bra s; ret; }",
    "local-variable": "{ .local .b32 v; bra v; ret; }",
    "body-param": "{ .param .b32 pp; bra pp; ret; }",
    "function": "{ bra f; ret; }",
    "immediate": "{ bra 4; ret; }",
    "prototype": "{ P: .callprototype ()_ (); bra P; ret; }",
    "prototype-nested": "{ P: .callprototype ()_ (); { bra P; } ret; }",
    "label-and-undefined-register-use": "{ .reg .b32 %r; bra A; A: add.s32 %r, %r, 1; ret; }",
    "unknown-then-ld": "{ .reg .b32 %r; .reg .b64 %rd; bra A; ld.global.u32 %r, [%rd9]; ret; }",
}


def label_random_body(rng: random.Random, depth: int, pool: list[str]) -> list[str]:
    out: list[str] = []
    for _ in range(rng.randint(1, 5)):
        r = rng.random()
        if r < 0.35:
            out.append(f"bra{rng.choice(['', '.uni'])} {rng.choice(pool)};")
        elif r < 0.6:
            out.append(f"{rng.choice(pool)}: add.s32 %r1, %r1, 1;")
        elif r < 0.7:
            out.append(f"@%p1 bra {rng.choice(pool)};")
        elif r < 0.85 and depth < 3:
            out.append("{")
            out.extend(label_random_body(rng, depth + 1, pool))
            out.append("}")
        else:
            out.append("add.s32 %r1, %r1, 2;")
    return out


def label_cases(rng: random.Random) -> list[tuple[str, str, str]]:
    out = [("labels", LABEL_HEAD + ".visible .entry k()\n" + body + "\n", name)
           for name, body in LABEL_FIXED.items()]
    out.append(("labels", LABEL_HEAD + ".visible .entry k() { L1: ret; }\n"
                ".visible .entry k2() { bra L1; ret; }\n", "other-function"))
    for i in range(90):
        body = label_random_body(rng, 0, ["L1", "L2", "L3", "$L__x"])
        ptx = (LABEL_HEAD + ".visible .entry k()\n{\n.reg .b32 %r1;\n.reg .pred %p1;\n"
               + "\n".join(body) + "\nret;\n}\n")
        out.append(("labels", ptx, f"random {i}"))
    files = [p for p in corpus_files() if "bra" in p.read_text()]
    for path in rng.sample(files, min(30, len(files))):
        lines = path.read_text().split("\n")
        bras = [i for i, l in enumerate(lines) if re.search(r"\bbra(\.uni)?\s+[$\w]+;", l)]
        # Labels of code only: a debug section's `$L__info_string…` named by `.loc …
        # function_name` is another rule (not modelled; docs/ptxas-rules.md §22).
        labels = [i for i, l in enumerate(lines) if re.match(r"^\s*[$\w]+:\s*$", l)
                  and "info_string" not in l]
        if rng.random() < 0.5 and bras:
            i = rng.choice(bras)
            lines[i] = re.sub(r"(\bbra(?:\.uni)?\s+)([$\w]+);", r"\1\2_gone;", lines[i])
            note = f"{path.relative_to(CORPUS)}: line {i + 1} branches to an undefined label"
        elif labels:
            i = rng.choice(labels)
            note = f"{path.relative_to(CORPUS)}: label line {i + 1} removed"
            lines[i] = ""
        else:
            continue
        out.append(("labels", "\n".join(lines), note))
    return out


ST_WORD_HEAD = (".version 8.8\n.target sm_100\n.address_size 64\n.visible .entry k()\n{\n"
                ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n")

ST_WORD_FORMS = [
    "st.global.async [%rd1], {%r1};", "st.global.async.b32 [%rd1], %r1;",
    "st.global.async.v2 [%rd1], {%r1, %r2};", "st.global.async.v2.b32 [%rd1], {%r1, %r2};",
    "st.shared.async.b32 [%r1], %r2;", "st.weak.async.global.b32 [%rd1], %r1;",
    "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%r1], %r2, [%r3];",
    "st.shared::cluster.async.mbarrier::complete_tx::bytes.b32 [%r1], %r2, [%r3];",
    "st.global.L1::evict_last.async.u32 [%rd1], %r1;",
    "st.bulk.weak.shared::cta [%r1], 128, 0;", "st.weak.bulk.shared::cta [%r1], 128, 0;",
    "st.shared.bulk.b32 [%r1], %r2;", "st.global.bulk.b32 [%rd1], %r2;",
    "st.global.cs.bulk.u32 [%rd1], %r2;",
]


def st_word_cases() -> list[tuple[str, str, str]]:
    return [("st-words", ST_WORD_HEAD + insn + "\nret;\n}\n", insn) for insn in ST_WORD_FORMS]


# ---------------------------------------------------------------------------------------------


def arch_for(text: str) -> str:
    m = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.M)
    t = m.group(1) if m else "sm_90a"
    return t if t not in ("sm_50", "sm_52", "sm_53", "sm_60", "sm_61", "sm_62", "sm_70",
                          "sm_72") else "sm_75"


def generate() -> list[dict]:
    rng = random.Random(SEED)
    cases: list[dict] = []

    def add(family: str, ptx: str, note: str = "") -> None:
        cases.append({"id": f"gap-{len(cases) + 1:05d}", "family": family, "note": note,
                      "ptx": ptx, "arch": arch_for(ptx)})

    for name, body in FIXED.items():
        add("dup-fixed", HEADER + body + "\n", name)
    for _ in range(360):
        add("dup-random", random_module(rng))
    files = corpus_files()
    for path in rng.sample(files, min(60, len(files))):
        edit = corpus_edit(rng, path)
        if edit:
            add("dup-corpus", edit[1], f"{path.relative_to(CORPUS)}: {edit[0]}")
    for t in TARGETS:
        for v in VERSIONS:
            add("target", f".version {v}\n.target {t}\n.address_size 64\n"
                          ".visible .entry k() { ret; }\n", f"{t} {v}")
    for kind, insn in bulk_cases(rng):
        ptx = BULK_HEAD.format(target="sm_90a") + " " + insn + "\n ret;\n}\n"
        add("bulk", ptx, f"{kind}: {insn}")
    # Appended last, with their own generator, so the earlier ids and modules stay as they were.
    for family, ptx, note in label_cases(random.Random(SEED + 1)):
        add(family, ptx, note)
    for family, ptx, note in st_word_cases():
        add(family, ptx, note)
    return cases


if __name__ == "__main__":
    sys.exit(golden_main(__doc__.splitlines()[0], "gaps", generate,
                         arch_rule="arch = .target (sm_75 below it)",
                         generator_version=GENERATOR_VERSION, seed=SEED))
