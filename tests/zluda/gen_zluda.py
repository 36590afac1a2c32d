#!/usr/bin/env python3
"""Vendors ZLUDA's PTX conformance kernels and their expected outputs (the data behind
crates/ptxsim/tests/zluda.rs).

Source: https://github.com/vosen/ZLUDA at snapshot 8a7931be (Aug 2026), `ptx/src/test/spirv_run`:
every `test_ptx!`, `test_ptx_with_32!` and `test_ptx_warp!` invocation that runs a kernel (the
ones with an input and/or an expected output; the one-argument forms only compare LLVM IR).
ZLUDA's harness (`run_cuda` in mod.rs) launches kernel NAME of NAME.ptx with one CTA of 1 thread
(`test_ptx_warp!`: 64), 1024 bytes of dynamic shared memory, parameters (input buffer, output
buffer) (`test_ptx_warp!`: the output buffer twice), the output buffer zeroed first, and compares
the output buffer's bytes with the expected array.

The expected arrays are Rust expressions (`half::f16::from_f32(3.14)`, `f32::NAN`,
`std::f32::consts::PI / 2f32`, ...): this script writes them into a small Rust program that
prints each case's bytes, so that Rust evaluates them exactly as ZLUDA's test does. Output:
spirv_run/*.ptx (the kernels the cases use), cases.tsv (name, threads, input element type,
input bytes, output element type, output bytes; hex), LICENSE-MIT and LICENSE-APACHE (ZLUDA's).

Usage: python3 tests/zluda/gen_zluda.py ZLUDA_GIT_DIR   (a clone or bare mirror of vosen/ZLUDA;
needs cargo and the `half` crate, 2.x, in the local registry: it builds offline)
"""
import os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COMMIT = "8a7931be"


def git_show(git_dir, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{COMMIT}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def invocations(src):
    """(macro, args text) of each uncommented test macro invocation with arguments."""
    out = []
    for m in re.finditer(r"^(test_ptx|test_ptx_with_32|test_ptx_warp)!\(", src, re.M):
        depth, i = 1, m.end()
        while depth:
            c = src[i]
            depth += c == "("
            depth -= c == ")"
            i += 1
        body = src[m.end():i - 1]
        out.append((m.group(1), body))
    return out


def split_top(text):
    """Top-level comma-separated parts of text (brackets and parentheses nest)."""
    parts, depth, cur = [], 0, ""
    for c in text:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += c
    if cur.strip():
        parts.append(cur)
    # drop line comments
    return [re.sub(r"//[^\n]*", "", p).strip() for p in parts]


RUST_MAIN = r'''
trait Elem { fn name() -> &'static str; fn put(&self, out: &mut Vec<u8>); }
macro_rules! elem { ($($t:ty),*) => { $(impl Elem for $t {
    fn name() -> &'static str { stringify!($t) }
    fn put(&self, out: &mut Vec<u8>) { out.extend_from_slice(&self.to_le_bytes()) } })* } }
elem!(u8, u16, u32, u64, i8, i16, i32, i64, f32, f64, half::f16, half::bf16);
fn hex(v: &[u8]) -> String { v.iter().map(|b| format!("{b:02x}")).collect() }
fn dump<I: Elem, O: Elem>(name: &str, threads: u32, input: Option<&[I]>, output: &[O]) {
    let mut i = Vec::new();
    let mut o = Vec::new();
    if let Some(input) = input { for x in input { x.put(&mut i) } }
    for x in output { x.put(&mut o) }
    let iname = if input.is_some() { I::name() } else { "-" };
    println!("{name}\t{threads}\t{iname}\t{}\t{}\t{}", if input.is_some() { hex(&i) } else { "-".into() }, O::name(), hex(&o));
}
#[allow(clippy::all, unused_parens, overflowing_literals)]
fn main() {
'''


def main():
    git_dir = sys.argv[1]
    src = git_show(git_dir, "ptx/src/test/spirv_run/mod.rs")
    calls = []
    for macro, body in invocations(src):
        args = split_top(body)
        if len(args) < 2:
            continue
        name = args[0]
        if macro == "test_ptx_warp":
            calls.append(f'    dump::<u8, _>("{name}", 64, None, &{args[1]});')
        else:
            calls.append(f'    dump("{name}", 1, Some(&{args[1]}), &{args[2]});')
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "src"))
        open(os.path.join(d, "Cargo.toml"), "w").write(
            '[package]\nname = "zluda_cases"\nversion = "0.1.0"\nedition = "2021"\n\n'
            '[dependencies]\nhalf = "2"\n\n[workspace]\n')
        open(os.path.join(d, "src", "main.rs"), "w").write(RUST_MAIN + "\n".join(calls) + "\n}\n")
        rows = subprocess.run(["cargo", "run", "--quiet", "--offline", "--release"], cwd=d, check=True,
                              capture_output=True, text=True).stdout
    kdir = os.path.join(HERE, "spirv_run")
    shutil.rmtree(kdir, ignore_errors=True)
    os.makedirs(kdir)
    names = [r.split("\t")[0] for r in rows.splitlines()]
    for n in names:
        open(os.path.join(kdir, n + ".ptx"), "w").write(git_show(git_dir, f"ptx/src/test/spirv_run/{n}.ptx"))
    with open(os.path.join(HERE, "cases.tsv"), "w") as f:
        f.write(f"# ZLUDA {COMMIT} ptx/src/test/spirv_run/mod.rs: name, threads, input type, input bytes, "
                "output type, expected output bytes (hex; '-': no input, the output buffer is passed twice)\n")
        f.write(rows)
    for lic in ("LICENSE-MIT", "LICENSE-APACHE"):
        open(os.path.join(HERE, lic), "w").write(git_show(git_dir, lic))
    print(f"{len(names)} cases")


if __name__ == "__main__":
    main()
