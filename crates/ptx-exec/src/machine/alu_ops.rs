//! Register-to-register instructions: moves and packing, conversions, integer, floating-point,
//! comparison and predicate logic. Each handler reads its sources for the whole warp
//! (`read_srcs!`), computes the executing lanes (through `crate::alu` and `ptx_semantics`) and
//! writes the destination (`write_lanes` for lane-by-lane values, `write_warp` for the
//! `alu::*_lanes` functions that compute a whole warp); none touches memory or control flow.

use super::{bool_op, lanes, lanes_where, Cta, Machine};
use crate::alu::{self, width_mask};
use crate::error::{ExecError, FaultKind};
use crate::memory::{self, classify_generic};
use crate::program::*;

impl Machine<'_> {
    /// Moves, vector packs and unpacks, predicate moves.
    #[inline]
    pub(super) fn exec_move(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let program = self.program;
        match &inst.op {
            Op::Mov { d, a: s, bits } => {
                read_srcs!(self, cta, wi; a = *s);
                let m = width_mask(*bits);
                // All 32 lanes (a loop the compiler vectorizes); write_dst keeps `exec`'s.
                Self::write_warp(cta, wi, program, *d, exec, |out| {
                    for l in 0..32 {
                        out[l] = a[l] & m;
                    }
                });
            }
            Op::Pack {
                d,
                parts,
                part_bits,
                d_bits,
            } => {
                let pm = width_mask(*part_bits);
                if *d_bits > 64 {
                    // .b128 from two .b64 (or four .b32) parts: low slot then high slot.
                    let per_slot = 64 / part_bits;
                    let mut lo = [0u64; 32];
                    let mut hi = [0u64; 32];
                    for (k, p) in parts.iter().enumerate() {
                        let Some(p) = p else { continue };
                        read_srcs!(self, cta, wi; a = *p);
                        let (dst, shift) = if (k as u32) < per_slot {
                            (&mut lo, k as u32 * part_bits)
                        } else {
                            (&mut hi, (k as u32 - per_slot) * part_bits)
                        };
                        for l in 0..32 {
                            dst[l] |= (a[l] & pm) << shift;
                        }
                    }
                    Self::write_dst(cta, wi, program, Dst::Reg(*d), &lo, exec);
                    Self::write_dst(cta, wi, program, Dst::Reg(*d + 1), &hi, exec);
                } else {
                    let mut out = [0u64; 32];
                    for (k, p) in parts.iter().enumerate() {
                        let Some(p) = p else { continue };
                        read_srcs!(self, cta, wi; a = *p);
                        for l in 0..32 {
                            out[l] |= (a[l] & pm) << (k as u32 * part_bits);
                        }
                    }
                    Self::write_dst(cta, wi, program, Dst::Reg(*d), &out, exec);
                }
            }
            Op::MovVec { ds, srcs } => {
                let mut vals = vec![[0u64; 32]; srcs.len()];
                for (v, s) in vals.iter_mut().zip(srcs) {
                    self.read_src(cta, wi, *s, v);
                }
                for (d, v) in ds.iter().zip(&vals) {
                    Self::write_dst(cta, wi, program, *d, v, exec);
                }
            }
            Op::Unpack {
                ds,
                a: s,
                part_bits,
            } => {
                let pm = width_mask(*part_bits);
                let wide = match s {
                    Src::Reg(slot) => {
                        let f = &program.functions
                            [cta.warps[wi].frames.last().expect("frame").func as usize];
                        f.slot_bits.get(*slot as usize + 1).is_some()
                            && ds.len() as u32 * part_bits > 64
                    }
                    _ => false,
                };
                read_srcs!(self, cta, wi; a = *s);
                let mut b = [0u64; 32];
                if wide {
                    if let Src::Reg(slot) = s {
                        self.read_src(cta, wi, Src::Reg(slot + 1), &mut b);
                    }
                }
                let per_slot = (64 / part_bits).max(1);
                for (k, d) in ds.iter().enumerate() {
                    let (src, shift) = if wide && k as u32 >= per_slot {
                        (&b, (k as u32 - per_slot) * part_bits)
                    } else {
                        (&a, k as u32 * part_bits)
                    };
                    Self::write_warp(cta, wi, program, *d, exec, |out| {
                        for l in 0..32 {
                            out[l] = (src[l] >> shift) & pm;
                        }
                    });
                }
            }
            Op::MovPred { d, a: p } => {
                let f = frame!(cta, wi);
                let v = Self::pred_mask(f, *p);
                Self::write_pred(f, *d, v, exec);
            }
            _ => unreachable!("`execute` routes only moves and packs here"),
        }
        Ok(())
    }

    /// Conversions: `cvt`, `cvt.pack`, `cvta`, `mapa`, `isspacep`.
    #[inline]
    pub(super) fn exec_convert(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let program = self.program;
        match &inst.op {
            Op::Cvt {
                d,
                a: s,
                dty,
                aty,
                mode,
                int_rounding,
                d_bits,
            } => {
                read_srcs!(self, cta, wi; a = *s);
                Self::write_warp(cta, wi, program, *d, exec, |out| {
                    alu::cvt_lanes(*dty, *aty, *mode, *int_rounding, *d_bits, &a, out, exec)
                });
            }
            Op::CvtPack {
                d,
                a: x,
                b: y,
                dty,
                mode,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y);
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    alu::cvt_pack(*dty, *mode, a[l], b[l])
                });
            }
            Op::Cvta {
                d,
                a: s,
                space,
                to_generic,
                bits,
            } => {
                read_srcs!(self, cta, wi; a = *s);
                let m = width_mask(*bits);
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    if *to_generic {
                        memory::to_generic(*space, a[l]) & m
                    } else {
                        // To a state space: the offset within the address's window.
                        classify_generic(a[l]).1 & m
                    }
                });
            }
            Op::Mapa { d, a: s, rank } => {
                read_srcs!(self, cta, wi; a = *s, b = *rank);
                if let Some(l) = lanes(exec).find(|&l| b[l] as u32 != 0) {
                    return Err(self.fault(
                        cta,
                        wi as u32,
                        l as u32,
                        inst.id,
                        FaultKind::Other(format!(
                            "mapa to cluster CTA rank {}: launches run every CTA as a cluster of \
                             one (%cluster_nctarank = 1), so the only rank is 0",
                            b[l] as u32
                        )),
                    ));
                }
                Self::write_dst(cta, wi, program, *d, &a, exec);
            }
            Op::IsSpace { d, a: s, space } => {
                read_srcs!(self, cta, wi; a = *s);
                let v = lanes_where(exec, |l| {
                    let (sp, _) = classify_generic(a[l]);
                    match space {
                        Space::Param => sp == Space::KernelParam,
                        other => sp == *other,
                    }
                });
                Self::write_pred(frame!(cta, wi), *d, v, exec);
            }
            _ => unreachable!("`execute` routes only conversions here"),
        }
        Ok(())
    }

    /// Integer arithmetic and bit manipulation.
    #[inline]
    pub(super) fn exec_int(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let program = self.program;
        match &inst.op {
            Op::Int1 { op, ty, d, a: x } => {
                read_srcs!(self, cta, wi; a = *x);
                Self::write_lanes(cta, wi, program, *d, exec, |l| alu::int1(*op, *ty, a[l]));
            }
            Op::Int2 {
                op,
                ty,
                d,
                a: x,
                b: y,
            } => {
                if self.tracks_uniform() {
                    if let Some((a, b)) = self.uniform_pair(cta, wi, *x, *y, exec) {
                        let v = alu::int2(*op, *ty, a, b);
                        Self::write_uniform(cta, wi, program, *d, v, exec);
                        return Ok(());
                    }
                    Self::clear_uniform(cta, wi, *d);
                }
                read_srcs!(self, cta, wi; a = *x, b = *y);
                Self::write_warp(cta, wi, program, *d, exec, |out| {
                    alu::int2_lanes(*op, *ty, &a, &b, out, exec)
                });
            }
            Op::Int3 {
                op,
                ty,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                Self::write_warp(cta, wi, program, *d, exec, |out| {
                    alu::int3_lanes(*op, *ty, &a, &b, &c, out, exec)
                });
            }
            Op::Bfe {
                ty,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    alu::bfe(*ty, a[l], b[l], c[l])
                });
            }
            Op::Bfi {
                ty,
                d,
                a: f,
                b: x,
                c: p,
                e: n,
            } => {
                read_srcs!(self, cta, wi; a = *f, b = *x, c = *p, e = *n);
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    alu::bfi(*ty, a[l], b[l], c[l], e[l])
                });
            }
            Op::Prmt {
                mode,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    alu::prmt(*mode, a[l] as u32, b[l] as u32, c[l] as u32) as u64
                });
            }
            Op::Shf {
                left,
                clamp,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    alu::shf(*left, *clamp, a[l] as u32, b[l] as u32, c[l] as u32) as u64
                });
            }
            _ => unreachable!("`execute` routes only integer ops here"),
        }
        Ok(())
    }

    /// Integer instructions with more than one result or lane: carry chains (`add.cc`, `addc`, `mad.cc`), SIMD video (`vadd2`, `vmax4`...), and `lop3` with a predicate output.
    #[inline]
    pub(super) fn exec_int_multi(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let program = self.program;
        match &inst.op {
            Op::Carry {
                op,
                cin,
                cout,
                ty,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                let flags = cta.warps[wi].carry;
                let mut new_flags = flags & !exec;
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    // Without a carry-in, `sub.cc` is `a + ~b + 1`: carry flag set.
                    let cf = if *cin {
                        flags >> l & 1 == 1
                    } else {
                        *op == CarryOp::Sub
                    };
                    let (v, co) = alu::carry(*op, *ty, a[l], b[l], c[l], cf);
                    if co {
                        new_flags |= 1 << l;
                    }
                    v
                });
                if *cout {
                    cta.warps[wi].carry = new_flags;
                }
            }
            Op::VideoScalar {
                op,
                d_signed,
                a_signed,
                b_signed,
                sat,
                clamp,
                op2,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    ptx_semantics::int::video_scalar(
                        *op,
                        *d_signed,
                        *a_signed,
                        *b_signed,
                        *sat,
                        *clamp,
                        *op2,
                        a[l] as u32,
                        b[l] as u32,
                        c[l] as u32,
                    ) as u64
                });
            }
            Op::Video {
                op,
                lanes: n,
                d_signed,
                a_signed,
                b_signed,
                sat,
                add,
                mask,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    ptx_semantics::int::video_simd(
                        *op,
                        *n,
                        *d_signed,
                        *a_signed,
                        *b_signed,
                        *sat,
                        *add,
                        *mask,
                        a[l] as u32,
                        b[l] as u32,
                        c[l] as u32,
                    ) as u64
                });
            }
            Op::Lop3Pred {
                lut,
                op,
                d,
                p,
                a: x,
                b: y,
                c: z,
                q,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                let mut nonzero = 0u32;
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    let v = ptx_semantics::int::lop3(a[l] as u32, b[l] as u32, c[l] as u32, *lut);
                    if v != 0 {
                        nonzero |= 1 << l;
                    }
                    v as u64
                });
                if let Some(p) = p {
                    let qm = Self::pred_mask(frame!(cta, wi), *q);
                    let pv = bool_op(*op, nonzero, qm);
                    Self::write_pred(frame!(cta, wi), *p, pv, exec);
                }
            }
            _ => unreachable!("`execute` routes only carry, video and lop3-predicate ops here"),
        }
        Ok(())
    }

    /// Floating-point arithmetic and `testp`.
    #[inline]
    pub(super) fn exec_float(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let program = self.program;
        match &inst.op {
            Op::Float1 {
                op,
                ty,
                mode,
                d,
                a: x,
            } => {
                read_srcs!(self, cta, wi; a = *x);
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    alu::float1(*op, *ty, *mode, a[l])
                });
            }
            Op::Float2 {
                op,
                ty,
                mode,
                d,
                a: x,
                b: y,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y);
                Self::write_warp(cta, wi, program, *d, exec, |out| {
                    alu::float2_lanes(*op, *ty, *mode, &a, &b, out, exec)
                });
            }
            Op::Fma {
                ty,
                mode,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                Self::write_warp(cta, wi, program, *d, exec, |out| {
                    alu::fma_lanes(*ty, *mode, &a, &b, &c, out, exec)
                });
            }
            Op::FmaContract {
                ty,
                mode,
                product,
                neg_ab,
                neg_c,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                Self::write_warp(cta, wi, program, *d, exec, |out| {
                    alu::fma_contract_lanes(
                        *ty,
                        *mode,
                        *product,
                        [*neg_ab, *neg_c],
                        [&a, &b, &c],
                        out,
                        exec,
                    )
                });
            }
            Op::Testp { kind, ty, d, a: x } => {
                read_srcs!(self, cta, wi; a = *x);
                let v = lanes_where(exec, |l| alu::testp(*kind, *ty, a[l]));
                Self::write_pred(frame!(cta, wi), *d, v, exec);
            }
            _ => unreachable!("`execute` routes only floating-point ops here"),
        }
        Ok(())
    }

    /// Comparisons, selects and predicate logic.
    #[inline]
    pub(super) fn exec_compare(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let program = self.program;
        match &inst.op {
            Op::Setp {
                cmp,
                ty,
                ftz,
                d,
                d_not,
                a: x,
                b: y,
                combine,
            } => {
                let one = self
                    .tracks_uniform()
                    .then(|| self.uniform_pair(cta, wi, *x, *y, exec))
                    .flatten();
                let v = match one {
                    // The same comparison in every executing lane.
                    Some((a, b)) => {
                        if alu::compare(*cmp, *ty, *ftz, a, b) {
                            exec
                        } else {
                            0
                        }
                    }
                    None => {
                        read_srcs!(self, cta, wi; a = *x, b = *y);
                        alu::compare_lanes(*cmp, *ty, *ftz, &a, &b, exec)
                    }
                };
                let f = frame!(cta, wi);
                let (mut t, mut nt) = (v, !v);
                if let Some((op, p)) = combine {
                    let pm = Self::pred_mask(f, *p);
                    t = bool_op(*op, v, pm);
                    nt = bool_op(*op, !v, pm);
                }
                if let Some(d) = d {
                    Self::write_pred(f, *d, t, exec);
                }
                if let Some(d) = d_not {
                    Self::write_pred(f, *d, nt, exec);
                }
            }
            Op::Set {
                cmp,
                dty,
                ty,
                d,
                a: x,
                b: y,
                combine,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y);
                let pm = combine.map(|(op, p)| (op, Self::pred_mask(frame!(cta, wi), p)));
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    let combine = |t: bool| match pm {
                        Some((op, m)) => bool_op(op, t as u32, (m >> l) & 1) & 1 != 0,
                        None => t,
                    };
                    alu::set(*cmp, *dty, *ty, a[l], b[l], combine)
                });
            }
            Op::Selp {
                bits,
                d,
                a: x,
                b: y,
                p,
            } => {
                let pm = Self::pred_mask(frame!(cta, wi), *p);
                let m = width_mask(*bits);
                if self.tracks_uniform() {
                    let picked = pm & exec;
                    if picked == exec || picked == 0 {
                        let src = if picked != 0 { *x } else { *y };
                        let frame = cta.warps[wi].frames.last().expect("a frame");
                        let lane = exec.trailing_zeros() as usize;
                        if let Some(v) = self.uniform_value(cta, wi, frame, src, lane) {
                            Self::write_uniform(cta, wi, program, *d, v & m, exec);
                            return Ok(());
                        }
                    }
                    Self::clear_uniform(cta, wi, *d);
                }
                read_srcs!(self, cta, wi; a = *x, b = *y);
                // Every lane selected (the loop vectorizes); `write_dst` keeps `exec`'s.
                let mut out = [0u64; 32];
                for (l, o) in out.iter_mut().enumerate() {
                    *o = if pm >> l & 1 != 0 { a[l] } else { b[l] } & m;
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::Slct {
                ty: _,
                cty,
                d,
                a: x,
                b: y,
                c: z,
            } => {
                read_srcs!(self, cta, wi; a = *x, b = *y, c = *z);
                Self::write_lanes(cta, wi, program, *d, exec, |l| {
                    alu::slct(*cty, false, a[l], b[l], c[l])
                });
            }
            Op::PredLogic { op, d, a: x, b: y } => {
                let f = frame!(cta, wi);
                let v = bool_op(*op, Self::pred_mask(f, *x), Self::pred_mask(f, *y));
                Self::write_pred(f, *d, v, exec);
            }
            Op::PredNot { d, a: x } => {
                let f = frame!(cta, wi);
                let v = !Self::pred_mask(f, *x);
                Self::write_pred(f, *d, v, exec);
            }
            _ => unreachable!("`execute` routes only comparisons and selects here"),
        }
        Ok(())
    }
}
