//! Properties checked against cheap independent references (the host's IEEE arithmetic and
//! round trips), plus "never panics" over arbitrary bit patterns.

use proptest::prelude::*;
use ptx_semantics::cvt::{self, CvtMods};
use ptx_semantics::float as fl;
use ptx_semantics::half::{self, HalfMods, HalfOp};
use ptx_semantics::int::{self, IntTy, PrmtMode};
use ptx_semantics::round::{self, Overflow, BF16, E4M3, E5M2, F16, F32, F64};
use ptx_semantics::Rnd;

fn canon32(x: f32) -> u32 {
    if x.is_nan() {
        fl::NAN_F32
    } else {
        x.to_bits()
    }
}

const MODES: [Rnd; 5] = [Rnd::Rn, Rnd::Rna, Rnd::Rz, Rnd::Rm, Rnd::Rp];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn rn_f32_arithmetic_equals_native(a: u32, b: u32, c: u32) {
        let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
        prop_assert_eq!(fl::add_f32(a, b, Rnd::Rn, false, false), canon32(x + y));
        prop_assert_eq!(fl::mul_f32(a, b, Rnd::Rn, false, false), canon32(x * y));
        prop_assert_eq!(fl::div_f32(a, b, Rnd::Rn, false), canon32(x / y));
        prop_assert_eq!(fl::fma_f32(a, b, c, Rnd::Rn, false, false), canon32(x.mul_add(y, z)));
    }

    #[test]
    fn directed_results_bracket_the_rn_result(a: u32, b: u32) {
        // rm <= rn <= rp and rz is one of rm/rp, for every finite result
        let rn = f32::from_bits(fl::add_f32(a, b, Rnd::Rn, false, false));
        let rm = f32::from_bits(fl::add_f32(a, b, Rnd::Rm, false, false));
        let rp = f32::from_bits(fl::add_f32(a, b, Rnd::Rp, false, false));
        let rz = fl::add_f32(a, b, Rnd::Rz, false, false);
        if !rn.is_nan() {
            prop_assert!(rm <= rn && rn <= rp);
            prop_assert!(rz == rm.to_bits() || rz == rp.to_bits() || f32::from_bits(rz) == rn);
        }
        let sm = f32::from_bits(fl::sqrt_f32(a, Rnd::Rm, false));
        let sp = f32::from_bits(fl::sqrt_f32(a, Rnd::Rp, false));
        let sn = f32::from_bits(a).sqrt();
        if !sn.is_nan() {
            prop_assert!(sm <= sn && sn <= sp);
            prop_assert!(sp.to_bits() - sm.to_bits() <= 1 || sm.is_infinite() || sp.is_infinite());
        }
    }

    #[test]
    fn f64_to_f32_conversion_equals_native(a: u64) {
        let x = f64::from_bits(a);
        let got = round::convert(F64, F32, a, Rnd::Rn, Overflow::Ieee) as u32;
        prop_assert_eq!(got, canon32(x as f32));
    }

    #[test]
    fn widening_then_narrowing_is_the_identity(h: u16, s: u32) {
        for fmt in [F16, BF16] {
            if fmt.is_nan(h as u64) { continue; }
            let wide = cvt::f2f(F32, fmt, h as u64, Rnd::Rn, CvtMods::default());
            for r in MODES {
                prop_assert_eq!(cvt::f2f(fmt, F32, wide, r, CvtMods::default()), h as u64);
            }
        }
        if !f32::from_bits(s).is_nan() {
            let d = cvt::f2f(F64, F32, s as u64, Rnd::Rn, CvtMods::default());
            prop_assert_eq!(d, (f32::from_bits(s) as f64).to_bits());
            prop_assert_eq!(cvt::f2f(F32, F64, d, Rnd::Rz, CvtMods::default()), s as u64);
        }
    }

    #[test]
    fn int_to_float_to_int_round_trips_when_exact(v: i32) {
        let f = cvt::i2f(F64, IntTy::S32, v as u32 as u64, Rnd::Rn, CvtMods::default());
        prop_assert_eq!(f, (v as f64).to_bits());
        prop_assert_eq!(cvt::f2i(IntTy::S32, F64, f, Rnd::Rz, false), v as u32 as u64);
    }

    #[test]
    fn float_to_int_truncation_equals_rust_saturating_cast(a: u32) {
        let x = f32::from_bits(a);
        prop_assert_eq!(cvt::f2i(IntTy::S32, F32, a as u64, Rnd::Rz, false), x as i32 as u32 as u64);
        prop_assert_eq!(cvt::f2i(IntTy::U64, F32, a as u64, Rnd::Rz, false), x as u64);
        prop_assert_eq!(cvt::f2i(IntTy::S64, F32, a as u64, Rnd::Rm, false), x.floor() as i64 as u64);
        prop_assert_eq!(cvt::f2i(IntTy::S16, F32, a as u64, Rnd::Rn, false),
            x.round_ties_even() as i16 as u16 as u64);
    }

    #[test]
    fn never_panics_on_any_bits(a: u64, b: u64, c: u64, s: u32) {
        for t in [IntTy::U8, IntTy::S8, IntTy::U16, IntTy::S16, IntTy::U32, IntTy::S32, IntTy::U64, IntTy::S64] {
            let _ = (int::div(t, a, b), int::rem(t, a, b), int::mul_hi(t, a, b), int::mad_wide(t, a, b, c));
            let _ = (int::shl(t, a, s), int::shr(t, a, s), int::bfe(t, a, s, b as u32), int::bfi(t, a, b, s, c as u32));
            let _ = (int::bfind(t, true, a), int::clz(t, a), int::brev(t, a), int::abs(t, a));
            for f in [F16, BF16, F32, F64, E4M3, E5M2] {
                for r in MODES {
                    let _ = cvt::f2i(t, f, a, r, true);
                    let _ = cvt::i2f(f, t, a, r, CvtMods { sat: true, ..Default::default() });
                    let _ = cvt::f2f_integral(f, a, r, CvtMods::default());
                }
            }
        }
        for r in MODES {
            let _ = fl::sqrt_f64(a, r);
            let _ = fl::fma_f64(a, b, c, r);
            let _ = fl::sqrt_f32(s, r, true);
            let _ = half::arith(BF16, HalfOp::Fma, a as u16, b as u16, c as u16, r, HalfMods::default());
            for (d, f) in [(F16, F64), (E4M3, F32), (E5M2, F16), (BF16, E4M3), (F32, E5M2)] {
                let _ = cvt::f2f(d, f, a, r, CvtMods { satfinite: true, relu: true, ftz: true, sat: false });
            }
        }
        let _ = int::prmt(PrmtMode::B4e, a as u32, b as u32, s);
        let _ = fl::div_approx_f32(a as u32, b as u32, true);
    }
}
