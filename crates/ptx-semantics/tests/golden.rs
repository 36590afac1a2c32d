//! Compares every case of the golden files (written by `gen_golden.py` from Python ints, exact
//! rationals, numpy, ml_dtypes and mpmath) with the crate, bit for bit (`.approx` functions:
//! within the ISA's bound). An op name the dispatcher does not know fails the test, so no case
//! is skipped silently.

use ptx_semantics::cmp::{self, CmpOp};
use ptx_semantics::cvt::{self, CvtMods};
use ptx_semantics::float::{self as fl, TestpOp};
use ptx_semantics::half::{self, HalfMods, HalfOp};
use ptx_semantics::int::{self, IntTy, PrmtMode};
use ptx_semantics::round::{Format, BF16, E4M3, E5M2, F16, F32, F64};
use ptx_semantics::Rnd;
use std::io::Read;
use std::path::Path;

fn golden(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.gz"));
    let raw = std::fs::File::open(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut text = String::new();
    flate2::read::GzDecoder::new(raw)
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// Runs every line of `file` through `f(op, parts, operands) -> results`; the last
/// `results.len()` tokens of the line are the expected values.
fn check_file(file: &str, f: impl Fn(&str, &[&str], &[u64]) -> Option<Vec<u64>>) -> usize {
    let text = golden(file);
    let mut n = 0;
    let mut failures = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut toks = line.split_whitespace();
        let op = toks.next().unwrap();
        let vals: Vec<u64> = toks.map(|t| u64::from_str_radix(t, 16).unwrap()).collect();
        let parts: Vec<&str> = op.split('.').collect();
        match f(op, &parts, &vals) {
            None => failures.push(format!("{file}:{}: unknown op {op}", i + 1)),
            Some(got) => {
                let want = &vals[vals.len() - got.len()..];
                if got != want {
                    failures.push(format!(
                        "{file}:{}: {line}\n    got {}",
                        i + 1,
                        got.iter()
                            .map(|v| format!("{v:x}"))
                            .collect::<Vec<_>>()
                            .join(" ")
                    ));
                }
            }
        }
        n += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(n > 100, "{file}: only {n} cases");
    n
}

fn ity(s: &str) -> IntTy {
    let bits: u32 = s[1..].parse().unwrap();
    IntTy {
        bits,
        signed: s.starts_with('s'),
    }
}

fn rnd_of(parts: &[&str]) -> Rnd {
    for p in parts {
        match *p {
            "rn" | "rni" => return Rnd::Rn,
            "rz" | "rzi" => return Rnd::Rz,
            "rm" | "rmi" => return Rnd::Rm,
            "rp" | "rpi" => return Rnd::Rp,
            "rna" => return Rnd::Rna,
            _ => {}
        }
    }
    Rnd::Rn
}

fn has(parts: &[&str], q: &str) -> bool {
    parts.contains(&q)
}

fn fmt_of(s: &str) -> Format {
    match s {
        "f16" => F16,
        "bf16" => BF16,
        "f32" => F32,
        "f64" => F64,
        "e4m3" => E4M3,
        "e5m2" => E5M2,
        "tf32" => ptx_semantics::round::TF32,
        _ => panic!("format {s}"),
    }
}

#[test]
fn integer_instructions_match_python() {
    let n = check_file("int.txt", |op, p, v| {
        let last = *p.last().unwrap();
        let r = match p[0] {
            "add" if op == "add.sat.s32" => int::add_sat_s32(v[0] as u32, v[1] as u32) as u64,
            "sub" if op == "sub.sat.s32" => int::sub_sat_s32(v[0] as u32, v[1] as u32) as u64,
            "add" => int::add(ity(last), v[0], v[1]),
            "sub" => int::sub(ity(last), v[0], v[1]),
            "mul" => match p[1] {
                "lo" => int::mul_lo(ity(last), v[0], v[1]),
                "hi" => int::mul_hi(ity(last), v[0], v[1]),
                "wide" => int::mul_wide(ity(last), v[0], v[1]),
                _ => return None,
            },
            "mad" => match (p[1], p[2]) {
                ("hi", "sat") => int::mad_hi_sat_s32(v[0] as u32, v[1] as u32, v[2] as u32) as u64,
                ("lo", _) => int::mad_lo(ity(last), v[0], v[1], v[2]),
                ("hi", _) => int::mad_hi(ity(last), v[0], v[1], v[2]),
                ("wide", _) => int::mad_wide(ity(last), v[0], v[1], v[2]),
                _ => return None,
            },
            "div" => int::div(ity(last), v[0], v[1]),
            "rem" => int::rem(ity(last), v[0], v[1]),
            "min" | "max" => {
                let t = ity(last);
                let r = if p[0] == "min" {
                    int::min(t, v[0], v[1])
                } else {
                    int::max(t, v[0], v[1])
                };
                if has(p, "relu") {
                    int::relu(t, r)
                } else {
                    r
                }
            }
            "abs" => int::abs(ity(last), v[0]),
            "neg" => int::neg(ity(last), v[0]),
            "setp" => cmp::cmp_int(CmpOp::from_name(p[1])?, ity(last), v[0], v[1]) as u64,
            "sad" => int::sad(ity(last), v[0], v[1], v[2]),
            "and" => int::and(v[0], v[1]),
            "or" => int::or(v[0], v[1]),
            "xor" => int::xor(v[0], v[1]),
            "not" => int::not(ity(last), v[0]),
            "cnot" => int::cnot(ity(last), v[0]),
            "shl" => int::shl(ity(last), v[0], v[1] as u32),
            "shr" => int::shr(ity(last), v[0], v[1] as u32),
            "popc" => int::popc(ity(last), v[0]) as u64,
            "clz" => int::clz(ity(last), v[0]) as u64,
            "brev" => int::brev(ity(last), v[0]),
            "bfind" => int::bfind(ity(last), has(p, "shiftamt"), v[0]) as u64,
            "bfe" => int::bfe(ity(last), v[0], v[1] as u32, v[2] as u32),
            "bfi" => int::bfi(ity(last), v[0], v[1], v[2] as u32, v[3] as u32),
            "prmt" => {
                let mode = match p.get(2).copied() {
                    None => PrmtMode::Generic,
                    Some("f4e") => PrmtMode::F4e,
                    Some("b4e") => PrmtMode::B4e,
                    Some("rc8") => PrmtMode::Rc8,
                    Some("ecl") => PrmtMode::Ecl,
                    Some("ecr") => PrmtMode::Ecr,
                    Some("rc16") => PrmtMode::Rc16,
                    _ => return None,
                };
                int::prmt(mode, v[0] as u32, v[1] as u32, v[2] as u32) as u64
            }
            "shf" => int::shf(
                p[1] == "l",
                p[2] == "wrap",
                v[0] as u32,
                v[1] as u32,
                v[2] as u32,
            ) as u64,
            "lop3" => int::lop3(v[0] as u32, v[1] as u32, v[2] as u32, v[3] as u8) as u64,
            "dp4a" => int::dp4a(
                p[1] == "s32",
                p[2] == "s32",
                v[0] as u32,
                v[1] as u32,
                v[2] as u32,
            ) as u64,
            "dp2a" => int::dp2a(
                p[1] == "hi",
                p[2] == "s32",
                p[3] == "s32",
                v[0] as u32,
                v[1] as u32,
                v[2] as u32,
            ) as u64,
            "cvt" => {
                let sat = has(p, "sat");
                int::cvt_int(ity(p[p.len() - 2]), ity(last), v[0], sat)
            }
            "mul24" => int::mul24(last == "s32", p[1] == "hi", v[0] as u32, v[1] as u32) as u64,
            "bmsk" => int::bmsk(p[1] == "wrap", v[0] as u32, v[1] as u32) as u64,
            "szext" => int::szext(last == "s32", p[1] == "wrap", v[0] as u32, v[1] as u32) as u64,
            "addc" => {
                let (r, c) = int::add_carry(ity(last), v[0], v[1], v[2] != 0);
                return Some(vec![r, c as u64]);
            }
            "subc" => {
                let (r, c) = int::sub_borrow(ity(last), v[0], v[1], v[2] != 0);
                return Some(vec![r, c as u64]);
            }
            _ => return None,
        };
        Some(vec![r])
    });
    eprintln!("int.txt: {n} cases");
}

fn testp_op(s: &str) -> Option<TestpOp> {
    Some(match s {
        "finite" => TestpOp::Finite,
        "infinite" => TestpOp::Infinite,
        "number" => TestpOp::Number,
        "notanumber" => TestpOp::NotANumber,
        "normal" => TestpOp::Normal,
        "subnormal" => TestpOp::Subnormal,
        _ => return None,
    })
}

#[test]
fn f32_f64_instructions_match_exact_rationals_and_numpy() {
    let n = check_file("float.txt", |_op, p, v| {
        let last = *p.last().unwrap();
        let (rnd, ftz, sat, nan) = (rnd_of(p), has(p, "ftz"), has(p, "sat"), has(p, "NaN"));
        let r = if last == "f32" {
            let (a, b, c) = (
                v[0] as u32,
                *v.get(1).unwrap_or(&0) as u32,
                *v.get(2).unwrap_or(&0) as u32,
            );
            (match p[0] {
                "add" => fl::add_f32(a, b, rnd, ftz, sat),
                "sub" => fl::sub_f32(a, b, rnd, ftz, sat),
                "mul" => fl::mul_f32(a, b, rnd, ftz, sat),
                "div" => fl::div_f32(a, b, rnd, ftz),
                "fma" => fl::fma_f32(a, b, c, rnd, ftz, sat),
                "sqrt" => fl::sqrt_f32(a, rnd, ftz),
                "rcp" => fl::rcp_f32(a, rnd, ftz),
                "min" => fl::min_f32(a, b, ftz, nan),
                "max" => fl::max_f32(a, b, ftz, nan),
                "abs" => fl::abs_f32(a, ftz),
                "neg" => fl::neg_f32(a, ftz),
                "copysign" => fl::copysign_f32(a, b),
                "setp" => cmp::cmp_f32(CmpOp::from_name(p[1])?, a, b, ftz) as u32,
                "testp" => fl::testp_f32(testp_op(p[1])?, a) as u32,
                _ => return None,
            }) as u64
        } else {
            let (a, b, c) = (v[0], *v.get(1).unwrap_or(&0), *v.get(2).unwrap_or(&0));
            match p[0] {
                "add" => fl::add_f64(a, b, rnd),
                "sub" => fl::sub_f64(a, b, rnd),
                "mul" => fl::mul_f64(a, b, rnd),
                "div" => fl::div_f64(a, b, rnd),
                "fma" => fl::fma_f64(a, b, c, rnd),
                "sqrt" => fl::sqrt_f64(a, rnd),
                "rcp" => fl::rcp_f64(a, rnd),
                "min" => fl::min_f64(a, b, nan),
                "max" => fl::max_f64(a, b, nan),
                "setp" => cmp::cmp_f64(CmpOp::from_name(p[1])?, a, b) as u64,
                _ => return None,
            }
        };
        Some(vec![r])
    });
    eprintln!("float.txt: {n} cases");
}

#[test]
fn half_instructions_match_exact_rationals() {
    let n = check_file("half.txt", |_op, p, v| {
        let last = *p.last().unwrap();
        let (ftz, sat, relu, nan) = (has(p, "ftz"), has(p, "sat"), has(p, "relu"), has(p, "NaN"));
        let m = HalfMods { ftz, sat, relu };
        if let Some(elem) = last.strip_suffix("x2") {
            let f = fmt_of(elem);
            let (a, b, c) = (v[0] as u32, v[1] as u32, *v.get(2).unwrap_or(&0) as u32);
            let op = match p[0] {
                "add" => HalfOp::Add,
                "mul" => HalfOp::Mul,
                "fma" => HalfOp::Fma,
                _ => return None,
            };
            let r = half::x2_3(a, b, c, |x, y, z| half::arith(f, op, x, y, z, Rnd::Rn, m));
            return Some(vec![r as u64]);
        }
        let f = fmt_of(last);
        let (a, b, c) = (
            v[0] as u16,
            *v.get(1).unwrap_or(&0) as u16,
            *v.get(2).unwrap_or(&0) as u16,
        );
        let r = match p[0] {
            "add" => half::arith(f, HalfOp::Add, a, b, 0, Rnd::Rn, m),
            "sub" => half::arith(f, HalfOp::Sub, a, b, 0, Rnd::Rn, m),
            "mul" => half::arith(f, HalfOp::Mul, a, b, 0, Rnd::Rn, m),
            "fma" => half::arith(f, HalfOp::Fma, a, b, c, Rnd::Rn, m),
            "min" => half::min(f, a, b, ftz, nan),
            "max" => half::max(f, a, b, ftz, nan),
            "neg" => half::neg(f, a, ftz),
            "abs" => half::abs(f, a, ftz),
            "setp" => cmp::cmp_small(f, CmpOp::from_name(p[1])?, a as u64, b as u64, false) as u16,
            _ => return None,
        };
        Some(vec![r as u64])
    });
    eprintln!("half.txt: {n} cases");
}

fn is_float(s: &str) -> bool {
    matches!(s, "f16" | "bf16" | "f32" | "f64" | "tf32")
}

#[test]
fn cvt_matches_exact_rationals_numpy_and_ml_dtypes() {
    let n = check_file("cvt.txt", |_op, p, v| {
        let (dst, src) = (p[p.len() - 2], p[p.len() - 1]);
        let m = CvtMods {
            ftz: has(p, "ftz"),
            sat: has(p, "sat"),
            relu: has(p, "relu"),
            satfinite: has(p, "satfinite"),
        };
        let rnd = rnd_of(p);
        let integral = p
            .iter()
            .any(|q| matches!(*q, "rni" | "rzi" | "rmi" | "rpi"));
        let r = match dst {
            "f16x2" if src.ends_with("x2") => {
                cvt::unpack_f8x2_to_f16x2(fmt_of(&src[..4]), v[0] as u16, m.relu) as u64
            }
            "f16x2" => cvt::pack_f16x2_f32(v[0] as u32, v[1] as u32, rnd, m) as u64,
            "bf16x2" => cvt::pack_bf16x2_f32(v[0] as u32, v[1] as u32, rnd, m) as u64,
            "e4m3x2" | "e5m2x2" => {
                cvt::pack_f8x2_f32(fmt_of(&dst[..4]), v[0] as u32, v[1] as u32, m.relu) as u64
            }
            "tf32" => cvt::tf32_from_f32(v[0] as u32, rnd, m) as u64,
            _ if is_float(dst) && is_float(src) && integral => {
                cvt::f2f_integral(fmt_of(dst), v[0], rnd, m)
            }
            _ if is_float(dst) && is_float(src) => cvt::f2f(fmt_of(dst), fmt_of(src), v[0], rnd, m),
            _ if is_float(src) => cvt::f2i(ity(dst), fmt_of(src), v[0], rnd, m.ftz),
            _ if is_float(dst) => cvt::i2f(fmt_of(dst), ity(src), v[0], rnd, m),
            _ => return None,
        };
        Some(vec![r])
    });
    eprintln!("cvt.txt: {n} cases");
}

/// `|got - want| <= bound * scale` where scale is `|want|` (relative) or 1 (absolute).
fn within(got: f64, want: f64, rel: f64, abs: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= rel * want.abs() + abs
}

#[test]
fn approx_functions_stay_within_the_isa_bounds() {
    // The bounds as the ISA states them (asserted so a change to a constant is a visible change).
    assert_eq!(fl::TANH_APPROX_F32_MAX_REL, 2f64.powi(-11));
    assert_eq!(fl::EX2_APPROX_F32_MAX_REL, 2f64.powi(-22));
    assert_eq!(fl::SQRT_APPROX_F32_MAX_REL, 2f64.powi(-23));
    assert!((fl::RSQRT_APPROX_F32_MAX_REL - 2f64.powf(-22.9)).abs() < 1e-10);
    assert!((fl::SINCOS_APPROX_F32_MAX_ABS - 2f64.powf(-20.5)).abs() < 1e-10);
    assert!((half::EX2_APPROX_F16_MAX_REL - 2f64.powf(-9.9)).abs() < 1e-6);
    let text = golden("approx.txt");
    let mut n = 0;
    let mut bad = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let t: Vec<&str> = line.split_whitespace().collect();
        let p: Vec<&str> = t[0].split('.').collect();
        let a = u64::from_str_radix(t[1], 16).unwrap();
        let want = f64::from_bits(u64::from_str_radix(t[2], 16).unwrap());
        let f32v = |x: u32| f32::from_bits(x) as f64;
        let ulp32 = |w: f64| {
            // one f32 ulp at |w| (subnormal spacing below 2^-126)
            let e = if w == 0.0 {
                -126
            } else {
                (w.abs().log2().floor() as i32).max(-126)
            };
            2f64.powi(e - 23)
        };
        let ok = match (p[0], *p.last().unwrap()) {
            (fun, "f32") => {
                let x = a as u32;
                let got = match fun {
                    "ex2" => f32v(fl::ex2_approx_f32(x, false)),
                    "lg2" => f32v(fl::lg2_approx_f32(x, false)),
                    "sin" => f32v(fl::sin_approx_f32(x, false)),
                    "cos" => f32v(fl::cos_approx_f32(x, false)),
                    "tanh" => f32v(fl::tanh_approx_f32(x)),
                    "rsqrt" => f32v(fl::rsqrt_approx_f32(x, false)),
                    "sqrt" => f32v(fl::sqrt_approx_f32(x, false)),
                    "rcp" => f32v(fl::rcp_approx_f32(x, false)),
                    _ => panic!("{line}"),
                };
                let xin = f32v(x);
                let (rel, abs) = match fun {
                    // relative bound, plus the half-ulp absolute floor where the exact value is
                    // subnormal or out of range in f32
                    "ex2" => (fl::EX2_APPROX_F32_MAX_REL, ulp32(want)),
                    "lg2" if (0.5..=2.0).contains(&xin) => (0.0, fl::LG2_APPROX_F32_MAX_ERR),
                    "lg2" => (fl::LG2_APPROX_F32_MAX_ERR, 0.0),
                    // The H100 (whose values we return, bit for bit: tests/sfu_h100.rs) adds the
                    // error of its argument reduction to the ISA's 2^-20.5: FMUL.RZ by the f32
                    // 1/2π is off by up to |x|·2^-23 revolutions.
                    "sin" | "cos" if xin.abs() <= 100.0 * std::f64::consts::PI => (
                        0.0,
                        fl::SINCOS_APPROX_F32_MAX_ABS
                            + xin.abs() * 2f64.powi(-23) * std::f64::consts::TAU,
                    ),
                    // outside [-100π, 100π] the ISA bounds nothing; the unit's value is still a
                    // sine or cosine of some angle
                    "sin" | "cos" => (0.0, 1.0 + want.abs()),
                    "tanh" => (fl::TANH_APPROX_F32_MAX_REL, 0.0),
                    "rsqrt" => (fl::RSQRT_APPROX_F32_MAX_REL, 0.0),
                    "sqrt" => (fl::SQRT_APPROX_F32_MAX_REL, 0.0),
                    // 1 ulp; and the f32 result of a value beyond f32 range is ±inf/0
                    _ => (0.0, fl::RCP_APPROX_F32_MAX_ULP * ulp32(want)),
                };
                let want32 = want as f32 as f64; // out-of-range references saturate like f32
                within(got, want32, rel, abs) || within(got, want, rel, abs)
            }
            (fun, f) => {
                let fmt = fmt_of(f);
                let x = a as u16;
                let got = half::to_f64(
                    fmt,
                    if fun == "ex2" {
                        half::ex2_approx(fmt, x, false)
                    } else {
                        half::tanh_approx(fmt, x)
                    } as u64,
                );
                let rel = if fmt == F16 {
                    half::EX2_APPROX_F16_MAX_REL
                } else {
                    2f64.powi(-7)
                };
                let want_r = half::to_f64(fmt, half::from_f64(fmt, want, Rnd::Rn));
                // below the normal range the relative bound cannot hold: one subnormal spacing
                let floor = if want.abs() < 2f64.powi(-14) && fmt == F16 {
                    2f64.powi(-24)
                } else {
                    0.0
                };
                within(got, want_r, 0.0, 0.0) || within(got, want, rel, floor)
            }
        };
        if !ok {
            bad.push(line.to_string());
        }
        n += 1;
    }
    assert!(
        bad.is_empty(),
        "{} of {n} outside bound:\n{}",
        bad.len(),
        bad[..bad.len().min(30)].join("\n")
    );
    assert!(n > 1000);
    eprintln!("approx.txt: {n} cases");
}

#[test]
fn warp_helpers_match_the_isa_pseudocode() {
    use ptx_semantics::warp::{self, ReduxOp, ShflMode};
    let n = check_file("warp.txt", |_op, p, v| {
        Some(match p[0] {
            "shfl" => {
                let mode = match p[1] {
                    "up" => ShflMode::Up,
                    "down" => ShflMode::Down,
                    "bfly" => ShflMode::Bfly,
                    "idx" => ShflMode::Idx,
                    _ => return None,
                };
                let (j, pr) = warp::shfl_source(mode, v[0] as u32, v[1] as u32, v[2] as u32);
                vec![j as u64, pr as u64]
            }
            "vote" => {
                let (m, pr) = (v[0] as u32, v[1] as u32);
                vec![match p[1] {
                    "all" => warp::vote_all(m, pr) as u64,
                    "any" => warp::vote_any(m, pr) as u64,
                    "uni" => warp::vote_uni(m, pr) as u64,
                    "ballot" => warp::vote_ballot(m, pr) as u64,
                    _ => return None,
                }]
            }
            "match" => {
                let vals: [u64; 32] = v[..32].try_into().unwrap();
                let member = v[32] as u32;
                if p[1] == "any" {
                    (0..32)
                        .map(|l| warp::match_any(&vals, member, l) as u64)
                        .collect()
                } else {
                    let (m, pr) = warp::match_all(&vals, member);
                    vec![m as u64, pr as u64]
                }
            }
            "redux" => {
                let vals: [u32; 32] = std::array::from_fn(|i| v[i] as u32);
                let op = match p[1] {
                    "add" => ReduxOp::Add,
                    "min" => ReduxOp::Min,
                    "max" => ReduxOp::Max,
                    "and" => ReduxOp::And,
                    "or" => ReduxOp::Or,
                    "xor" => ReduxOp::Xor,
                    _ => return None,
                };
                let t = if p[2] == "b32" { IntTy::U32 } else { ity(p[2]) };
                vec![warp::redux(op, t, &vals, v[32] as u32) as u64]
            }
            _ => return None,
        })
    });
    eprintln!("warp.txt: {n} cases");
}

#[test]
fn atom_combine_functions_match_python() {
    use ptx_semantics::atom::{self, AtomOp};
    let n = check_file("atom.txt", |_op, p, v| {
        let last = *p.last().unwrap();
        let r = match (p[1], last) {
            ("add", "f32") => atom::atom_add_f32(v[0] as u32, v[1] as u32, v[2] != 0) as u64,
            ("add", "f64") => atom::atom_add_f64(v[0], v[1]),
            ("add", "f16") => atom::atom_add_f16(v[0] as u16, v[1] as u16) as u64,
            ("add", "bf16") => atom::atom_add_bf16(v[0] as u16, v[1] as u16) as u64,
            ("add", "f16x2") => atom::atom_add_f16x2(v[0] as u32, v[1] as u32) as u64,
            ("add", "bf16x2") => atom::atom_add_bf16x2(v[0] as u32, v[1] as u32) as u64,
            (op, t) => {
                let op = match op {
                    "and" => AtomOp::And,
                    "or" => AtomOp::Or,
                    "xor" => AtomOp::Xor,
                    "exch" => AtomOp::Exch,
                    "add" => AtomOp::Add,
                    "inc" => AtomOp::Inc,
                    "dec" => AtomOp::Dec,
                    "min" => AtomOp::Min,
                    "max" => AtomOp::Max,
                    "cas" => AtomOp::Cas,
                    _ => return None,
                };
                let t = match t.strip_prefix('b') {
                    Some(w) => ity(&format!("u{w}")),
                    None => ity(t),
                };
                atom::atom_int(op, t, v[0], v[1], *v.get(2).unwrap_or(&0))
            }
        };
        Some(vec![r])
    });
    eprintln!("atom.txt: {n} cases");
}

#[test]
fn mma_and_ldmatrix_follow_the_isa_fragment_layouts() {
    use ptx_semantics::mma::{self, MmaKind};
    let text = golden("mma.txt");
    let mut n = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let mut t = line.split_whitespace();
        let op = t.next().unwrap();
        let v: Vec<u64> = t.map(|x| u64::from_str_radix(x, 16).unwrap()).collect();
        if let Some(kind) = op.strip_prefix("mma.") {
            let kind = match kind {
                "m16n8k16.f32.f16" => MmaKind::M16n8k16F32F16,
                "m16n8k16.f32.bf16" => MmaKind::M16n8k16F32Bf16,
                "m16n8k16.f16.f16" => MmaKind::M16n8k16F16F16,
                "m16n8k8.f32.tf32" => MmaKind::M16n8k8F32Tf32,
                "m16n8k8.f32.f16" => MmaKind::M16n8k8F32F16,
                "m16n8k8.f32.bf16" => MmaKind::M16n8k8F32Bf16,
                "m16n8k8.f16.f16" => MmaKind::M16n8k8F16F16,
                _ => panic!("unknown {op}"),
            };
            let a: [[u32; 4]; 32] =
                std::array::from_fn(|l| std::array::from_fn(|r| v[l * 4 + r] as u32));
            let b: [[u32; 2]; 32] =
                std::array::from_fn(|l| std::array::from_fn(|r| v[128 + l * 2 + r] as u32));
            let c: [[u32; 4]; 32] =
                std::array::from_fn(|l| std::array::from_fn(|r| v[192 + l * 4 + r] as u32));
            let d = mma::mma_sync(kind, &a, &b, &c);
            for l in 0..32 {
                for r in 0..4 {
                    assert_eq!(d[l][r] as u64, v[320 + l * 4 + r], "{op} lane {l} reg {r}");
                }
            }
        } else {
            let p: Vec<&str> = op.split('.').collect();
            let num: u32 = p[1][1..].parse().unwrap();
            let trans = p.get(2) == Some(&"trans");
            let addrs: [u64; 32] = v[..32].try_into().unwrap();
            let mem = &v[32..32 + 256];
            let d = mma::ldmatrix(num, trans, &addrs, |a| {
                mem.get((a / 2) as usize).map(|&x| x as u16).ok_or(a)
            })
            .unwrap();
            for l in 0..32 {
                for r in 0..4 {
                    assert_eq!(d[l][r] as u64, v[288 + l * 4 + r], "{op} lane {l} reg {r}");
                }
            }
        }
        n += 1;
    }
    assert!(n >= 100, "{n}");
    eprintln!("mma.txt: {n} cases");
}

#[test]
fn wgmma_reads_operands_through_descriptors_as_the_isa_layouts() {
    use ptx_semantics::wgmma::{self, WgmmaOperands, WgmmaType};
    let text = golden("wgmma.txt");
    let mut n_cases = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
    {
        let mut t = line.split_whitespace();
        let op = t.next().unwrap();
        let v: Vec<u64> = t.map(|x| u64::from_str_radix(x, 16).unwrap()).collect();
        let ty = match op {
            "wgmma.f16" => WgmmaType::F16,
            "wgmma.bf16" => WgmmaType::Bf16,
            "wgmma.tf32" => WgmmaType::Tf32,
            _ => panic!("{op}"),
        };
        let ops = WgmmaOperands {
            n: v[0] as u32,
            scale_d: v[1] != 0,
            negate_a: v[2] != 0,
            negate_b: v[3] != 0,
            trans_a: v[4] != 0,
            trans_b: v[5] != 0,
            f16_accumulator: false,
        };
        let (ad, bd, nwords) = (v[6], v[7], v[8] as usize);
        let words = &v[9..9 + nwords];
        let half_n = (ops.n / 2) as usize;
        let din = &v[9 + nwords..9 + nwords + 128 * half_n];
        let dout = &v[9 + nwords + 128 * half_n..];
        assert_eq!(dout.len(), 128 * half_n);
        let mut d = Box::new([[0u32; 128]; 128]);
        for tid in 0..128 {
            for i in 0..half_n {
                d[tid][i] = din[tid * half_n + i] as u32;
            }
        }
        wgmma::mma_async(ty, ad, bd, ops, &mut d, |addr, bytes| {
            let w = words[(addr as usize / 4) % nwords] as u32;
            Ok::<u32, ()>(if bytes == 4 {
                w
            } else {
                (w >> (16 * ((addr % 4) / 2))) & 0xffff
            })
        })
        .unwrap();
        for tid in 0..128 {
            for i in 0..half_n {
                assert_eq!(
                    d[tid][i] as u64,
                    dout[tid * half_n + i],
                    "{op} case {n_cases} thread {tid} reg {i}"
                );
            }
        }
        n_cases += 1;
    }
    assert!(n_cases >= 20);
    eprintln!("wgmma.txt: {n_cases} cases");
}

#[test]
fn wgmma_descriptor_fields_decode_like_the_triton_corpus_constants() {
    use ptx_semantics::wgmma::{MatrixDescriptor, Swizzle};
    // or.b64 constants from tests/corpus/triton/matmul_fp16.sm90.ptx
    let a = MatrixDescriptor::decode(0x8000_0020_0000_0000 | 0x10);
    assert_eq!(
        (a.start, a.lbo, a.sbo, a.base_offset, a.swizzle),
        (0x100, 0, 512, 0, Swizzle::B64)
    );
    let b = MatrixDescriptor::decode(0x4000_0040_0000_0000);
    assert_eq!((b.sbo, b.swizzle), (1024, Swizzle::B128));
    assert_eq!(MatrixDescriptor::decode(3 << 62).swizzle, Swizzle::B32);
    // 128-byte swizzle: 16-byte chunk c of row r moves to chunk c ^ (r % 8)
    for r in 0..8u32 {
        for c in 0..8u32 {
            assert_eq!(
                Swizzle::B128.apply(r * 128 + c * 16),
                r * 128 + ((c ^ r) * 16)
            );
        }
    }
}
