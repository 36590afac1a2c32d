"""Writes one probe kernel per `.approx` PTX form (sfu_probe.ptx), assembles it with ptxas for
sm_90 and stores the SASS listing (sfu_probe.sm_90.sass) that `src/sfu/` follows for each form's
IEEE sequence around its MUFU operation.

Usage (CUDA 13.5 tools on PATH):
    source ../shared/tools/cuda-tools.sh
    python3 crates/ptx-semantics/data/sass/gen_sass.py
Each kernel loads its operand(s) from a .u64 parameter pointer, runs exactly one instruction and
stores the result, so the listing of kernel `k_<form>` is that form's sequence.
"""
import os
import re
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (PTX instruction with %d/%a/%b placeholders, register type of result/operands)
FORMS = {
    "rcp_approx_f32": ("rcp.approx.f32 {d}, {a};", "f32", 1),
    "rcp_approx_ftz_f32": ("rcp.approx.ftz.f32 {d}, {a};", "f32", 1),
    "sqrt_approx_f32": ("sqrt.approx.f32 {d}, {a};", "f32", 1),
    "sqrt_approx_ftz_f32": ("sqrt.approx.ftz.f32 {d}, {a};", "f32", 1),
    "rsqrt_approx_f32": ("rsqrt.approx.f32 {d}, {a};", "f32", 1),
    "rsqrt_approx_ftz_f32": ("rsqrt.approx.ftz.f32 {d}, {a};", "f32", 1),
    "ex2_approx_f32": ("ex2.approx.f32 {d}, {a};", "f32", 1),
    "ex2_approx_ftz_f32": ("ex2.approx.ftz.f32 {d}, {a};", "f32", 1),
    "lg2_approx_f32": ("lg2.approx.f32 {d}, {a};", "f32", 1),
    "lg2_approx_ftz_f32": ("lg2.approx.ftz.f32 {d}, {a};", "f32", 1),
    "sin_approx_ftz_f32": ("sin.approx.ftz.f32 {d}, {a};", "f32", 1),
    "sin_approx_f32": ("sin.approx.f32 {d}, {a};", "f32", 1),
    "cos_approx_ftz_f32": ("cos.approx.ftz.f32 {d}, {a};", "f32", 1),
    "cos_approx_f32": ("cos.approx.f32 {d}, {a};", "f32", 1),
    "tanh_approx_f32": ("tanh.approx.f32 {d}, {a};", "f32", 1),
    "div_full_f32": ("div.full.f32 {d}, {a}, {b};", "f32", 2),
    "div_full_ftz_f32": ("div.full.ftz.f32 {d}, {a}, {b};", "f32", 2),
    "div_approx_f32": ("div.approx.f32 {d}, {a}, {b};", "f32", 2),
    "div_approx_ftz_f32": ("div.approx.ftz.f32 {d}, {a}, {b};", "f32", 2),
    "ex2_approx_f16": ("ex2.approx.f16 {d}, {a};", "b16", 1),
    "ex2_approx_f16x2": ("ex2.approx.f16x2 {d}, {a};", "b32", 1),
    "ex2_approx_ftz_bf16": ("ex2.approx.ftz.bf16 {d}, {a};", "b16", 1),
    "ex2_approx_ftz_bf16x2": ("ex2.approx.ftz.bf16x2 {d}, {a};", "b32", 1),
    "tanh_approx_f16": ("tanh.approx.f16 {d}, {a};", "b16", 1),
    "tanh_approx_f16x2": ("tanh.approx.f16x2 {d}, {a};", "b32", 1),
    "tanh_approx_bf16": ("tanh.approx.bf16 {d}, {a};", "b16", 1),
    "tanh_approx_bf16x2": ("tanh.approx.bf16x2 {d}, {a};", "b32", 1),
    "rcp_approx_ftz_f64": ("rcp.approx.ftz.f64 {d}, {a};", "f64", 1),
    "rsqrt_approx_f64": ("rsqrt.approx.f64 {d}, {a};", "f64", 1),
    "rsqrt_approx_ftz_f64": ("rsqrt.approx.ftz.f64 {d}, {a};", "f64", 1),
}
SIZE = {"f32": 4, "b16": 2, "b32": 4, "f64": 8}


def kernel(name, insn, ty, nops):
    sz = SIZE[ty]
    ops = ["%a", "%b"][:nops]
    loads = "\n".join(f"    ld.global.{ty} {o}, [%p+{i * sz}];" for i, o in enumerate(ops))
    regs = ", ".join(["%d"] + ops)
    body = insn.format(d="%d", a="%a", b="%b")
    return f""".visible .entry k_{name}(.param .u64 out)
{{
    .reg .u64 %p;
    .reg .{ty} {regs};
    ld.param.u64 %p, [out];
    cvta.to.global.u64 %p, %p;
{loads}
    {body}
    st.global.{ty} [%p], %d;
    ret;
}}
"""


def main():
    ptx = ".version 8.5\n.target sm_90\n.address_size 64\n\n" + "\n".join(
        kernel(n, *v) for n, v in FORMS.items())
    ptx_path = os.path.join(HERE, "sfu_probe.ptx")
    with open(ptx_path, "w") as f:
        f.write(ptx)
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "p.cubin")
        subprocess.run(["ptxas", "-arch=sm_90", "-O3", ptx_path, "-o", cubin], check=True)
        sass = subprocess.run(["cuobjdump", "-sass", cubin], check=True, capture_output=True, text=True).stdout
    version = subprocess.run(["ptxas", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1]
    # Drop the per-instruction encodings (/* 0x... */ comment lines) so the listing reads as code.
    lines = [l.rstrip() for l in sass.splitlines() if not re.match(r"^\s*/\* 0x[0-9a-f]+ \*/\s*$", l)]
    with open(os.path.join(HERE, "sfu_probe.sm_90.sass"), "w") as f:
        f.write(f"# cuobjdump -sass of sfu_probe.ptx assembled by `ptxas -arch=sm_90 -O3` ({version})\n")
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
