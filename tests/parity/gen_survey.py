#!/usr/bin/env python3
"""ptxas parity on valid PTX that ptxsim used to reject (false rejections), and the rules
around it: `.branchtargets` / `brx.idx`, `.calltargets`, and a survey of directives the corpus
seldom uses (`.alias`, `.common`, `.weak`, `.extern .func`, `.noreturn`, `.pragma`, the
performance-tuning directives, `.abi_preserve*`, `.loc … function_name/inlined_at`, debug
`.section`s, `generic()`/`mask()` initializers, …).

Families (hand-written; every case is a small complete module):

* **brx** — `label: .branchtargets L…;` with `brx.idx{.uni} index, label`: valid forms (index
  register of each 32-bit type, immediate, guard, `.uni`, repeated and forward labels, lists
  in nested blocks, device functions) and one fault each (unknown label, register entry,
  empty list, trailing comma, 16/64-bit/predicate index, plain label or later list as the
  operand, operand count, type word, `brx` without `.idx`, duplicate list name, `bra` to a
  list), at `.version`/`.target` variations (PTX 6.0 and sm_30 are the documented minimums).
* **calltargets** — `label: .calltargets f, g;` with an indirect `call … , %rd, (…), label`.
* **survey** — one valid module per directive or attribute of the PTX ISA's directive list,
  each at sm_80 (PTX 8.0) and sm_90 (PTX 8.5), plus a few invalid neighbours; then more
  valid constructs (vector registers, initializers, indirect calls, pragmas, …) at PTX 8.0,
  8.5 and 8.7.
* **header** — each function-header directive on an `.entry` and on a `.func`, at PTX 6.0 …
  9.0 and sm_70 … sm_90 (the gates and the syntax rule of which kind takes which).
* **extern-call** — `.extern` functions the module never defines, called or not.
* **empty-statement** — a `;` with nothing before it, in a body and at module scope.
* **mask-init** — the mask operator of initializers (`0xFF00(generic(x)+8)`).

Every module is assembled with `ptxas -arch=<arch> case.ptx -o /dev/null` (`<arch>` = the
`.target`, sm_75 below it); exit code and complete output go to survey.jsonl.gz
(crates/ptx-check/tests/survey.rs compares ptxsim with it). Cases on which ptxas crashed or
answered differently on a second run are left out and counted in survey.meta.json. Running
ptxas and checking the data are golden_driver.py's, shared with gen_adversarial.py and
gen_gaps.py.

Usage:
  source ../../../shared/tools/cuda-tools.sh
  gen_survey.py --list              print the cases as JSON lines (no ptxas)
  gen_survey.py --run [--jobs 2]    run ptxas, write survey.jsonl.gz and survey.meta.json
  gen_survey.py --verify            survey.jsonl.gz matches this generator (no ptxas)
"""

from __future__ import annotations

import re
import sys

from golden_driver import golden_main

GENERATOR_VERSION = 6


def arch_for(text: str) -> str:
    """The `.target`, or sm_75 (the oldest ptxas 13.5 assembles for) below it."""
    t = re.search(r"^\s*\.target\s+(sm_\w+)", text, re.M).group(1)
    return t if int(re.match(r"sm_(\d+)", t).group(1)) >= 75 else "sm_75"


def brx_module(version: str, target: str, body: str, tail: str = "") -> str:
    return f""".version {version}
.target {target}
.address_size 64
.visible .entry k(.param .u64 p)
{{
  .reg .b32 %r<4>;
  .reg .s32 %s<2>;
  .reg .u32 %u<2>;
  .reg .b64 %rd<4>;
  .reg .b16 %h<4>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
{body}
L0:
  ret;
L1:
  ret;
}}
{tail}"""


LIST = "ts: .branchtargets L0, L1;\n"
BRX = {
    "valid": LIST + " brx.idx %r2, ts;",
    "uni": LIST + " brx.idx.uni %r2, ts;",
    "s32-index": LIST + " brx.idx %s1, ts;",
    "u32-index": LIST + " brx.idx %u1, ts;",
    "immediate-index": LIST + " brx.idx 1, ts;",
    "guarded": "setp.eq.u32 %p1, %r2, 0;\n" + LIST + " @%p1 brx.idx %r2, ts;",
    "negated-guard": "setp.eq.u32 %p1, %r2, 0;\n" + LIST + " @!%p1 brx.idx.uni %r2, ts;",
    "repeated-label": "ts: .branchtargets L0, L1, L0;\n brx.idx %r2, ts;",
    "one-label": "ts: .branchtargets L1;\n brx.idx 0, ts;",
    "backward-label": "L2: ts: .branchtargets L2, L0, L1;\n brx.idx %r2, ts;",
    "unused-list": LIST,
    "two-lists": LIST + "us: .branchtargets L1, L0;\n brx.idx %r2, ts;\n brx.idx %r2, us;",
    "list-in-block": "{ ts: .branchtargets L0, L1;\n brx.idx %r2, ts; }",
    "label-in-nested-block": "ts: .branchtargets L0, L3;\n brx.idx %r2, ts;\n { L3: ret; }",
    "unknown-label": "ts: .branchtargets L0, L9;\n brx.idx %r2, ts;",
    "empty-list": "ts: .branchtargets ;\n brx.idx %r2, ts;",
    "trailing-comma": "ts: .branchtargets L0, L1,;\n brx.idx %r2, ts;",
    "register-entry": "ts: .branchtargets L0, %r1;\n brx.idx %r2, ts;",
    "unlabelled-list": ".branchtargets L0, L1;\n bra L0;",
    "b64-index": LIST + " brx.idx %rd2, ts;",
    "b16-index": LIST + " brx.idx %h2, ts;",
    "pred-index": LIST + " brx.idx %p1, ts;",
    "label-operand": "brx.idx %r2, L0;",
    "list-after-use": "brx.idx %r2, ts;\n" + LIST,
    "three-operands": LIST + " brx.idx %r2, ts, ts;",
    "one-operand": LIST + " brx.idx ts;",
    "type-word": LIST + " brx.idx.u32 %r2, ts;",
    "no-idx": LIST + " brx %r2, ts;",
    "duplicate-list": LIST + "ts: .branchtargets L0;\n brx.idx %r2, ts;",
    "list-named-like-label": "L0: .branchtargets L1;\n brx.idx %r2, L0;",
    "bra-to-list": LIST + " bra ts;",
    "undeclared-index": LIST + " brx.idx %q, ts;",
}
BRX_TARGETS = [("8.0", "sm_80"), ("6.0", "sm_30"), ("6.0", "sm_20"), ("7.0", "sm_70"),
               ("8.5", "sm_90a"), ("8.7", "sm_100a")]

FUNC_BRX = """.version 8.0
.target sm_80
.address_size 64
.func (.reg .b32 r) pick(.reg .b32 i)
{
  ts: .branchtargets A, B;
  brx.idx i, ts;
A: mov.b32 r, 10;
  ret;
B: mov.b32 r, 20;
  ret;
}
.visible .entry k() { .reg .b32 %r<2>; mov.u32 %r0, %tid.x; and.b32 %r0, %r0, 1;
  call (%r1), pick, (%r0); ret; }
"""

CALLTARGETS = {
    "valid": """
.func (.param .b32 r) f(.param .b32 a) { ld.param.b32 %r1, [a]; st.param.b32 [r], %r1; ret; }
.func (.param .b32 r) g(.param .b32 a) { ld.param.b32 %r1, [a]; st.param.b32 [r], %r1; ret; }
.visible .entry k() {
  .reg .b32 %r<4>; .reg .b64 %rd<2>;
  mov.u64 %rd1, f;
  { .param .b32 a; .param .b32 r; st.param.b32 [a], 1;
    ft: .calltargets f, g;
    call (r), %rd1, (a), ft;
    ld.param.b32 %r2, [r]; }
  ret; }""",
    "unknown-function": """
.func (.param .b32 r) f(.param .b32 a) { ret; }
.visible .entry k() {
  .reg .b64 %rd<2>;
  mov.u64 %rd1, f;
  { .param .b32 a; .param .b32 r;
    ft: .calltargets f, h;
    call (r), %rd1, (a), ft; }
  ret; }""",
    "unused": """
.func f() { ret; }
.visible .entry k() { ft: .calltargets f; ret; }""",
    "label-entry": """
.func f() { ret; }
.visible .entry k() { ft: .calltargets f, L; L: ret; }""",
    "empty": """
.func f() { ret; }
.visible .entry k() { ft: .calltargets ; ret; }""",
    "as-brx-list": """
.func f() { ret; }
.visible .entry k() { .reg .b32 %r<2>; ft: .calltargets f; brx.idx %r1, ft; ret; }""",
    "brx-list-in-call": """
.func f() { ret; }
.visible .entry k() { .reg .b64 %rd<2>; mov.u64 %rd1, f;
  ts: .branchtargets L; call %rd1, (), ts; L: ret; }""",
}

SURVEY = {
    "alias": """.func f() { ret; }
.func g();
.alias g, f;
.visible .entry k() { call g; ret; }""",
    "common-global": """.common .global .align 4 .b32 c[4];
.visible .entry k() { .reg .b32 %r<2>; ld.global.b32 %r1, [c]; ret; }""",
    "weak-global": """.weak .global .align 4 .b32 w = 3;
.visible .entry k() { .reg .b32 %r<2>; ld.global.b32 %r1, [w]; ret; }""",
    "weak-func": """.weak .func (.reg .b32 r) f() { mov.b32 r, 1; ret; }
.visible .entry k() { .reg .b32 %r<2>; call (%r1), f, (); ret; }""",
    "extern-func": """.extern .func (.param .b32 r) ext(.param .b64 a);
.visible .entry k() { ret; }""",
    "extern-func-called": """.extern .func (.param .b32 r) ext(.param .b64 a);
.visible .entry k() { .reg .b32 %r<2>;
  { .param .b64 a; .param .b32 r; st.param.b64 [a], 0; call (r), ext, (a); ld.param.b32 %r1, [r]; }
  ret; }""",
    "noreturn": """.func die() .noreturn { trap; }
.visible .entry k() { call die; ret; }""",
    "noreturn-proto": """.func die() .noreturn { trap; }
.visible .entry k() { .reg .b64 %rd<2>; mov.u64 %rd1, die;
  p: .callprototype _ () .noreturn;
  call %rd1, (), p; ret; }""",
    "pragma-nounroll": """.visible .entry k() { .reg .b32 %r<2>; .reg .pred %p<2>; mov.u32 %r1, 0;
L: .pragma "nounroll";
  add.u32 %r1, %r1, 1; setp.lt.u32 %p1, %r1, 4; @%p1 bra L; ret; }""",
    "pragma-module": """.pragma "nounroll";
.visible .entry k() { ret; }""",
    "pragma-entry": """.visible .entry k() .pragma "nounroll"; { ret; }""",
    "maxnreg": """.visible .entry k() .maxnreg 32 { ret; }""",
    "maxntid": """.visible .entry k() .maxntid 256, 1, 1 { ret; }""",
    "maxntid-1d": """.visible .entry k() .maxntid 256 { ret; }""",
    "reqntid": """.visible .entry k() .reqntid 128, 2 { ret; }""",
    "minnctapersm": """.visible .entry k() .maxntid 128 .minnctapersm 2 { ret; }""",
    "maxnctapersm": """.visible .entry k() .maxntid 128 .maxnctapersm 2 { ret; }""",
    "maxclusterrank": """.visible .entry k() .maxclusterrank 8 { ret; }""",
    "reqnctapercluster": """.visible .entry k() .reqnctapercluster 2, 1, 1 { ret; }""",
    "explicitcluster": """.visible .entry k() .explicitcluster .reqnctapercluster 2 { ret; }""",
    "blocksareclusters": """.visible .entry k() .blocksareclusters .reqntid 32 .reqnctapercluster 2 { ret; }""",
    "func-maxnreg": """.func f() .maxnreg 32 { ret; }
.visible .entry k() { call f; ret; }""",
    "abi-preserve": """.func f() .abi_preserve 8 { ret; }
.visible .entry k() { call f; ret; }""",
    "abi-preserve-control": """.func f() .abi_preserve_control 8 { ret; }
.visible .entry k() { call f; ret; }""",
    "loc-function-name": """.file 1 "a.cu"
.visible .entry k() {
  .loc 1 3 5, function_name $L__info_string0, inlined_at 1 7 9
  ret; }
.section .debug_str {
$L__info_string0:
.b8 102,0
}""",
    "loc-inlined-at": """.file 1 "a.cu"
.file 2 "b.h"
.visible .entry k() {
  .loc 2 3 5, inlined_at 1 7 9
  ret; }""",
    "file-timestamp": """.file 1 "a.cu", 1700000000, 1234
.visible .entry k() { .loc 1 2 3
 ret; }""",
    "section-label-diff": """.visible .entry k() { $L__func_begin0: ret; $L__func_end0: }
.section .debug_info {
.b32 $L__func_end0-$L__func_begin0
.b64 $L__func_begin0
.b8 0
}""",
    "section-abbrev": """.visible .entry k() { ret; }
.section .debug_abbrev {
.b8 1
.b8 17
.b8 0
}""",
    "generic-init": """.global .align 4 .b32 x = 5;
.global .align 8 .u64 p = generic(x);
.visible .entry k() { ret; }""",
    "mask-init": """.global .align 4 .b32 x = 5;
.global .align 1 .b8 m[8] = {0xFF(generic(x)), 0xFF00(generic(x)), 0, 0, 0, 0, 0, 0};
.visible .entry k() { ret; }""",
    "b8-address-bytes": """.global .align 4 .b32 x = 5;
.global .align 1 .b8 m[8] = {0xFF(x), 0xFF00(x), 0xFF0000(x), 0xFF000000(x), 0, 0, 0, 0};
.visible .entry k() { ret; }""",
    "ptr-param": """.visible .entry k(.param .u64 .ptr .global .align 16 p) { ret; }""",
    "shared-extern": """.extern .shared .align 16 .b8 dyn[];
.visible .entry k() { .reg .b64 %rd<2>; mov.u64 %rd1, dyn; ret; }""",
    "managed": """.global .attribute(.managed) .align 4 .b32 g;
.visible .entry k() { ret; }""",
    "unified": """.global .attribute(.unified(19, 95)) .align 4 .b32 g;
.visible .entry k() { ret; }""",
    "const-init": """.const .align 4 .b32 c[2] = {1, 2};
.visible .entry k() { ret; }""",
    "local-module": """.local .align 4 .b32 l[2];
.visible .entry k() { ret; }""",
    "callprototype-reg": """.visible .entry k() { .reg .b64 %rd<2>; .reg .b32 %r<2>;
  p: .callprototype (.reg .b32 _) _ (.reg .b32 _);
  ret; }""",
    "texref": """.global .texref t;
.visible .entry k() { ret; }""",
    "samplerref": """.global .samplerref s = { addr_mode_0 = clamp_to_edge, filter_mode = nearest };
.visible .entry k() { ret; }""",
    "surfref": """.global .surfref s;
.visible .entry k() { ret; }""",
    "entry-param-align": """.visible .entry k(.param .align 16 .b8 p[32]) { ret; }""",
    "func-array-param": """.func f(.param .align 8 .b8 a[16]) { ret; }
.visible .entry k() { ret; }""",
    "v4-global": """.global .align 16 .v4 .f32 v = {1.0, 2.0, 3.0, 4.0};
.visible .entry k() { ret; }""",
    "f16-reg": """.visible .entry k() { .reg .f16 %h<2>; .reg .f16x2 %x<2>; .reg .bf16 %b<2>; ret; }""",
    "sreg-alias": """.visible .entry k() { .reg .b32 %r<2>; mov.u32 %r1, %laneid; mov.u32 %r1, %warpid; mov.u32 %r1, %nsmid; mov.u32 %r1, %gridid; ret; }""",
    "minnctapersm-func": """.func f() .minnctapersm 2 { ret; }
.visible .entry k() { call f; ret; }""",
}
SURVEY_TARGETS = [("8.0", "sm_80"), ("8.5", "sm_90")]

# Appended after the first survey (generator version 2), so that the earlier ids stay as they
# were; also run at PTX 8.7.
MORE = {
    "pragma-smem-spilling": """.visible .entry k() { .pragma "enable_smem_spilling"; ret; }""",
    "pragma-unknown": """.visible .entry k() { .pragma "no_such_pragma"; ret; }""",
    "vector-registers": """.visible .entry k() { .reg .v2 .b32 %v; .reg .v4 .f32 %w;
  mov.b32 %v.x, 1; ret; }""",
    "local-depot": """.visible .entry k() { .local .align 8 .b8 __local_depot0[16];
  .reg .b64 %SP, %SPL; mov.u64 %SPL, __local_depot0; cvta.local.u64 %SP, %SPL; ret; }""",
    "unsized-initialized": """.visible .global .align 4 .u32 x[] = {1, 2, 3};
.visible .entry k() { ret; }""",
    "address-initializers": """.global .align 4 .u32 x[4];
.global .align 8 .u64 p[2] = {x, x+4};
.visible .entry k() { ret; }""",
    "float-initializers": """.global .f32 f = 0f3F800000;
.global .f64 d = 0d3FF0000000000000;
.global .f32 g[2] = {1.5, 0f40000000};
.visible .entry k() { ret; }""",
    "array-return": """.func (.param .align 16 .b8 r[16]) f() { st.param.b32 [r], 1; ret; }
.visible .entry k() { .reg .b32 %r<2>;
  { .param .align 16 .b8 rv[16]; call.uni (rv), f, (); ld.param.b32 %r1, [rv]; } ret; }""",
    "indirect-call-prototype": """.func (.param .b32 r) f(.param .b32 a) {
  ld.param.b32 %r1, [a]; st.param.b32 [r], %r1; ret; }
.visible .entry k() { .reg .b32 %r<3>; .reg .b64 %rd<2>; mov.u64 %rd1, f;
 { .param .b32 a; .param .b32 r; st.param.b32 [a], 3;
   prototype_0 : .callprototype (.param .b32 _) _ (.param .b32 _);
   call (r), %rd1, (a), prototype_0; ld.param.b32 %r2, [r]; } ret; }""",
    "extern-global-array": """.extern .global .align 4 .b32 eg[];
.visible .entry k() { ret; }""",
    "weak-entry": """.weak .entry k() { ret; }""",
    "entry-without-parens": """.entry k { ret; }""",
    "extern-noreturn-decl": """.extern .func abort() .noreturn;
.visible .entry k() { ret; }""",
    "reg-params": """.func (.reg .b32 r) f(.reg .b32 a, .reg .b64 b) { add.s32 r, a, 1; ret; }
.visible .entry k() { .reg .b32 %r<3>; .reg .b64 %rd<2>; call (%r1), f, (%r2, %rd1); ret; }""",
    "alloca": """.visible .entry k() { .reg .b64 %rd<3>; stacksave.u64 %rd1;
  alloca.u64 %rd2, 64, 16; stackrestore.u64 %rd1; ret; }""",
    "integer-literals": """.visible .entry k() { .reg .b32 %r<2>; .reg .b64 %rd<2>;
  mov.b32 %r1, 0xFFFFFFFF; mov.b64 %rd1, 0x8000000000000000U; mov.b32 %r1, 017;
  mov.b32 %r1, 0b101; ret; }""",
    "special-registers": """.visible .entry k() { .reg .b32 %r<2>; .reg .b64 %rd<2>;
  mov.u32 %r1, %lanemask_lt; mov.u64 %rd1, %globaltimer; mov.u32 %r1, %dynamic_smem_size;
  mov.u32 %r1, %total_smem_size; mov.u64 %rd1, %clock64; mov.u32 %r1, %envreg3; ret; }""",
    "constant-expressions": """.global .align 4 .b32 a[4*2+1];
.visible .entry k() { .reg .b32 %r<2>; mov.b32 %r1, (1<<4)|3; add.s32 %r1, %r1, -(2*3);
  ret; }""",
    "performance-directives": """.visible .entry k() .maxntid 128, 1, 1 .minnctapersm 1 .maxnreg 64
{ ret; }""",
    "ptr-attributes": """.visible .entry k(.param .u64 .ptr .align 8 p,
  .param .u64 .ptr .shared .align 4 q) { ret; }""",
    "loc-function-name-after-loc": """.file 1 "a.cu"
.visible .func g() { ret; }
.visible .entry k() {
 .loc 1 2 3
 .loc 1 5 1, function_name $L__info_string0, inlined_at 1 2 3
 ret; }
.section .debug_str { $L__info_string0:
.b8 103, 0 }""",
    "file-with-size": """.file 1 "/x/a.cu", 1700000000, 100
.file 2 "b.h"
.visible .entry k() { .loc 2 1 1
ret; }""",
}
MORE_TARGETS = [("8.0", "sm_80"), ("8.5", "sm_90"), ("8.7", "sm_90a")]

# Family `header` (generator version 3): each header directive on an `.entry` and on a `.func`
# at versions and targets around its gates.
HEADER_DIRECTIVES = [
    ".maxclusterrank 8", ".reqnctapercluster 2", ".explicitcluster .reqnctapercluster 2",
    ".blocksareclusters .reqntid 32 .reqnctapercluster 2", ".abi_preserve 8",
    ".abi_preserve_control 8", ".noreturn", ".maxntid 64", ".reqntid 64", ".minnctapersm 2",
    ".maxntid 64 .minnctapersm 2", ".maxnreg 32", ".maxnctapersm 2",
]
HEADER_TARGETS = [("7.7", "sm_90"), ("7.8", "sm_90"), ("8.8", "sm_90"), ("9.0", "sm_90"),
                  ("9.0", "sm_80"), ("6.0", "sm_75"), ("6.3", "sm_70"), ("6.4", "sm_70")]


# Family `extern-call` (generator version 4): `.extern` functions never defined, called or not.
EXTERN_CALLS = {
    "called": """.extern .func f();
.visible .entry k() { call f; ret; }""",
    "declared-only": """.extern .func f();
.visible .entry k() { ret; }""",
    "called-from-uncalled-func": """.extern .func f();
.func g() { call f; ret; }
.visible .entry k() { ret; }""",
    "called-from-weak-func": """.extern .func f();
.weak .func g() { call f; ret; }
.visible .entry k() { ret; }""",
    "first-called-reported": """.extern .func f();
.extern .func h();
.visible .entry k() { call h; call f; ret; }""",
    "with-extern-variable": """.extern .global .b32 v;
.extern .func f();
.visible .entry k() { call f; ret; }""",
    "with-return-value": """.extern .func (.param .b32 r) f(.param .b32 a);
.visible .entry k() { .reg .b32 %r<2>;
  { .param .b32 a; .param .b32 r; st.param.b32 [a], 1; call (r), f, (a);
    ld.param.b32 %r1, [r]; } ret; }""",
    "defined-later": """.extern .func f();
.visible .entry k() { call f; ret; }
.visible .func f() { ret; }""",
    "static-undefined-and-called-extern": """.func s();
.extern .func f();
.visible .entry k() { call f; ret; }""",
    "uncalled-undefined-visible": """.visible .func f();
.visible .entry k() { ret; }""",
}
for _name in ("vprintf", "malloc", "free", "__assertfail", "cudaMalloc", "cudaLaunchDeviceV2",
              "memcpy", "__nv_sinf", "abort"):
    EXTERN_CALLS[f"system-call {_name}"] = (f".extern .func {_name}();\n"
                                            f".visible .entry k() {{ call {_name}; ret; }}")


# Family `empty-statement` (generator version 5): a `;` with nothing before it.
EMPTY_STATEMENTS = ["ret;;", "; ret;", "mov.u32 %r1, 0;; ret;", "{ ; } ret;", "L: ; ret;",
                    "{ ret; } ret;"]


# Family `mask-init` (generator version 6): the mask operator of initializers (one byte of an
# address), in variables of each byte-sized type, with valid and invalid masks.
MASK_INITS = [
    ".b8 m[2] = {0xFF(generic(x)), 0}", ".u8 m[2] = {0xFF(generic(x)), 0}",
    ".s8 m[2] = {0xFF(generic(x)), 0}", ".u8 m[2] = {0xFF(x), 0}",
    ".u8 m[2] = {0xFF00(generic(x)+8), 1}", ".u16 m[2] = {0xFF(generic(x)), 0}",
    ".u8 m[1] = {0xF0(generic(x))}", ".u8 m[1] = {255(generic(x))}", ".u8 m[1] = {0xFF(5)}",
    ".u8 m[1] = {0x1FE(generic(x))}", ".u8 m[1] = {0XFF00000000000000(generic(x)+4)}",
    ".u32 m[1] = {0xFF(generic(x))}",
]
# nvcc 13.5 `-ptx` of a packed struct holding pointers (a data pointer and a function pointer).
MASK_NVCC = """.global .align 4 .b32 x[4];
.func _Z1gPi(.param .b64 a) { ret; }
.global .align 1 .u8 pk[19] = {1, 0XFF(generic(x)+8), 0xFF00(generic(x)+8), 0xFF0000(generic(x)+8), 0xFF000000(generic(x)+8), 0xFF00000000(generic(x)+8), 0xFF0000000000(generic(x)+8), 0xFF000000000000(generic(x)+8), 0xFF00000000000000(generic(x)+8), 7, 0, 0XFF(generic(x)), 0xFF00(generic(x)), 0xFF0000(generic(x)), 0xFF000000(generic(x)), 0xFF00000000(generic(x)), 0xFF0000000000(generic(x)), 0xFF000000000000(generic(x)), 0xFF00000000000000(generic(x))};
.global .align 1 .u8 fk[9] = {3, 0XFF(_Z1gPi), 0xFF00(_Z1gPi), 0xFF0000(_Z1gPi), 0xFF000000(_Z1gPi), 0xFF00000000(_Z1gPi), 0xFF0000000000(_Z1gPi), 0xFF000000000000(_Z1gPi), 0xFF00000000000000(_Z1gPi)};
.visible .entry k() { ret; }"""


def header_module(version: str, target: str, directive: str, kind: str) -> str:
    if kind == "entry":
        body = f".visible .entry k() {directive} {{ ret; }}"
    else:
        body = f".func f() {directive} {{ ret; }}\n.visible .entry k() {{ call f; ret; }}"
    return f".version {version}\n.target {target}\n.address_size 64\n{body}\n"


def generate() -> list[dict]:
    cases: list[dict] = []

    def add(family: str, ptx: str, note: str) -> None:
        cases.append({"id": f"srv-{len(cases) + 1:05d}", "family": family, "note": note,
                      "ptx": ptx, "arch": arch_for(ptx)})

    for version, target in BRX_TARGETS:
        for name, body in BRX.items():
            add("brx", brx_module(version, target, body), f"{name} ({version} {target})")
    add("brx", FUNC_BRX, "brx.idx in a .func with .reg parameters")
    for version, target in SURVEY_TARGETS:
        head = f".version {version}\n.target {target}\n.address_size 64\n"
        for name, text in CALLTARGETS.items():
            add("calltargets", head + text.lstrip("\n") + "\n", f"{name} ({version} {target})")
        for name, text in SURVEY.items():
            add("survey", head + text + "\n", f"{name} ({version} {target})")
    for version, target in MORE_TARGETS:
        head = f".version {version}\n.target {target}\n.address_size 64\n"
        for name, text in MORE.items():
            add("survey", head + text + "\n", f"{name} ({version} {target})")
    for directive in HEADER_DIRECTIVES:
        for kind in ("entry", "func"):
            for version, target in HEADER_TARGETS:
                add("header", header_module(version, target, directive, kind),
                    f"{kind} {directive} ({version} {target})")
    for name, text in EXTERN_CALLS.items():
        add("extern-call", ".version 8.0\n.target sm_80\n.address_size 64\n" + text + "\n", name)
    for body in EMPTY_STATEMENTS:
        add("empty-statement", ".version 8.5\n.target sm_90a\n.address_size 64\n"
            ".visible .entry k()\n{\n.reg .b32 %r<3>;\n" + body + "\n}\n", body)
    for text in (";\n.visible .entry k() { ret; }", ".visible .entry k() { ret; };"):
        add("empty-statement", ".version 8.5\n.target sm_90a\n.address_size 64\n" + text + "\n",
            "module scope: " + text)
    for decl in MASK_INITS:
        add("mask-init", ".version 8.0\n.target sm_80\n.address_size 64\n"
            ".global .align 4 .b32 x[4];\n.global .align 1 " + decl + ";\n"
            ".visible .entry k() { ret; }\n", decl)
    for version, target in (("8.0", "sm_80"), ("8.5", "sm_90")):
        add("mask-init", f".version {version}\n.target {target}\n.address_size 64\n"
            + MASK_NVCC + "\n", f"nvcc packed struct with pointers ({version} {target})")
    return cases


if __name__ == "__main__":
    sys.exit(golden_main(__doc__.splitlines()[0], "survey", generate,
                         arch_rule="arch = .target (sm_75 below it)",
                         generator_version=GENERATOR_VERSION))
