//! Register and operand access: source operands (registers, immediates, special registers
//! such as `%tid` and `%clock`), destinations, predicates and address operands, for a whole
//! warp at a time.

use super::{lanes, Cta, Frame, Machine, Warp, FULL};
use crate::alu::width_mask;
use crate::program::*;

impl Machine<'_> {
    #[inline(always)]
    pub(super) fn read_src(&self, cta: &Cta, wi: usize, src: Src, out: &mut [u64; 32]) {
        let warp = &cta.warps[wi];
        let frame = warp.frames.last().expect("a frame");
        match src {
            Src::Reg(s) => {
                // Two 128-byte halves: each is copied inline, where one 256-byte copy is a
                // `memcpy` call (most instructions read two or three registers).
                let b = frame.base(s);
                let regs = &frame.regs[b..b + 32];
                let (lo, hi) = out.split_at_mut(16);
                copy16(lo, &regs[..16]);
                copy16(hi, &regs[16..]);
            }
            Src::Imm(v) => *out = [v; 32],
            Src::Special(sp) if lane_dependent(sp) => {
                for (lane, o) in out.iter_mut().enumerate() {
                    *o = self.special(cta, warp, lane as u32, sp);
                }
            }
            Src::Special(sp) => *out = [self.special(cta, warp, 0, sp); 32],
        }
    }

    /// A source operand for the whole warp, by value, where the vector is moved anyway
    /// (collected with others). Handlers read into locals with `read_srcs!` instead.
    pub(super) fn src_values(&self, cta: &Cta, wi: usize, src: Src) -> [u64; 32] {
        read_srcs!(self, cta, wi; out = src);
        out
    }

    pub(super) fn special(&self, cta: &Cta, warp: &Warp, lane: u32, sp: Special) -> u64 {
        let t = self.thread_of(cta, warp.index, lane);
        let c = |v: [u32; 3], i: u8| v.get(i as usize).copied().unwrap_or(0) as u64;
        match sp {
            Special::Tid(i) => c(t, i),
            Special::Ntid(i) => c(self.cfg.block, i),
            Special::Ctaid(i) => c(cta.id, i),
            Special::Nctaid(i) => c(self.cfg.grid, i),
            Special::LaneId => lane as u64,
            Special::WarpId => warp.index as u64,
            Special::NWarpId => cta.warps.len() as u64,
            Special::SmId => cta.sm as u64,
            Special::NSmId => self.sm_count as u64,
            Special::GridId => 1,
            Special::Clock => (self.clock + self.steps) & 0xFFFF_FFFF,
            Special::Clock64 => self.clock + self.steps,
            // A deterministic "time": 1 ns per warp-instruction executed so far.
            Special::GlobalTimer => self.steps,
            Special::LaneMaskEq => 1u64 << lane,
            Special::LaneMaskLt => (1u64 << lane) - 1,
            Special::LaneMaskLe => (1u64 << (lane + 1)) - 1,
            Special::LaneMaskGt => (!((1u64 << (lane + 1)) - 1)) & 0xFFFF_FFFF,
            Special::LaneMaskGe => (!((1u64 << lane) - 1)) & 0xFFFF_FFFF,
            Special::DynamicSmemSize => self.cfg.dynamic_shared as u64,
            Special::TotalSmemSize => cta.shared.len() as u64,
            Special::ClusterId(i) => c(cta.id, i),
            Special::NClusterId(i) => c(self.cfg.grid, i),
            Special::ClusterCtaId(_) => 0,
            Special::ClusterNCtaId(_) => 1,
            Special::ClusterCtaRank => 0,
            Special::ClusterNCtaRank => 1,
            Special::Zero => 0,
        }
    }

    #[inline]
    pub(super) fn write_dst(
        cta: &mut Cta,
        wi: usize,
        program: &Program,
        d: Dst,
        vals: &[u64; 32],
        mask: u32,
    ) {
        let Dst::Reg(s) = d else { return };
        let frame = cta.warps[wi].frames.last_mut().expect("a frame");
        let m = width_mask(program.functions[frame.func as usize].slot_bits[s as usize]);
        let b = frame.base(s);
        let regs = &mut frame.regs[b..b + 32];
        if mask == FULL {
            for (r, v) in regs.iter_mut().zip(vals) {
                *r = v & m;
            }
        } else {
            let mut bits = mask;
            while bits != 0 {
                let l = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                regs[l] = vals[l] & m;
            }
        }
    }

    /// Writes `value(lane)` to `d` for each lane of `exec` (the other lanes keep their
    /// registers): the write-back of a handler whose lanes compute independently.
    #[inline(always)]
    pub(super) fn write_lanes(
        cta: &mut Cta,
        wi: usize,
        program: &Program,
        d: Dst,
        exec: u32,
        mut value: impl FnMut(usize) -> u64,
    ) {
        let mut out = [0u64; 32];
        for l in lanes(exec) {
            out[l] = value(l);
        }
        Self::write_dst(cta, wi, program, d, &out, exec);
    }

    /// Fills a destination vector with `compute` (an `alu::*_lanes` function that runs the
    /// whole warp at once) and writes it to `d` for the lanes of `exec`.
    #[inline(always)]
    pub(super) fn write_warp(
        cta: &mut Cta,
        wi: usize,
        program: &Program,
        d: Dst,
        exec: u32,
        compute: impl FnOnce(&mut [u64; 32]),
    ) {
        let mut out = [0u64; 32];
        compute(&mut out);
        Self::write_dst(cta, wi, program, d, &out, exec);
    }

    pub(super) fn pred_mask(frame: &Frame, p: PredSrc) -> u32 {
        match p {
            PredSrc::Reg { idx, negated } => {
                let v = frame.preds[idx as usize];
                if negated {
                    !v
                } else {
                    v
                }
            }
            PredSrc::Const(true) => FULL,
            PredSrc::Const(false) => 0,
        }
    }

    pub(super) fn write_pred(frame: &mut Frame, idx: PredIdx, value: u32, mask: u32) {
        let p = &mut frame.preds[idx as usize];
        *p = (*p & !mask) | (value & mask);
    }

    /// Base + offset for every lane (`read_addrs!` declares `out` and calls this).
    #[inline]
    pub(super) fn addr_values(&self, cta: &Cta, wi: usize, addr: Addr, out: &mut [u64; 32]) {
        match addr.base {
            Some(slot) => {
                self.read_src(cta, wi, Src::Reg(slot), out);
                for v in out.iter_mut() {
                    *v = v.wrapping_add(addr.offset as u64);
                }
            }
            None => *out = [addr.offset as u64; 32],
        }
    }

    /// A source operand's value in the first lane of `exec`: the operand of a warp-uniform
    /// instruction (barrier ids and counts, cache policies, matrix descriptors).
    #[inline]
    pub(super) fn first_lane_value(&self, cta: &Cta, wi: usize, src: Src, exec: u32) -> u64 {
        read_srcs!(self, cta, wi; v = src);
        v[exec.trailing_zeros() as usize]
    }
}

/// An optional address operand as an address: 0 (in every lane) where the instruction leaves
/// it out.
pub(super) fn or_zero(addr: Option<Addr>) -> Addr {
    addr.unwrap_or(Addr {
        base: None,
        offset: 0,
    })
}

/// An optional source operand as a source: the immediate `absent` (in every lane) where the
/// instruction leaves it out.
pub(super) fn or_imm(src: Option<Src>, absent: u64) -> Src {
    src.unwrap_or(Src::Imm(absent))
}

/// Copies 16 register values as one fixed-size move.
#[inline(always)]
fn copy16(dst: &mut [u64], src: &[u64]) {
    let d: &mut [u64; 16] = dst.try_into().expect("16 lanes");
    *d = *<&[u64; 16]>::try_from(src).expect("16 lanes");
}

/// Whether a special register's value differs between the lanes of a warp (the others are
/// read once per warp). Exhaustive, so that a new register has to be placed here.
pub(super) fn lane_dependent(sp: Special) -> bool {
    match sp {
        Special::Tid(_)
        | Special::LaneId
        | Special::LaneMaskEq
        | Special::LaneMaskLt
        | Special::LaneMaskLe
        | Special::LaneMaskGt
        | Special::LaneMaskGe => true,
        Special::Ntid(_)
        | Special::Ctaid(_)
        | Special::Nctaid(_)
        | Special::WarpId
        | Special::NWarpId
        | Special::SmId
        | Special::NSmId
        | Special::GridId
        | Special::Clock
        | Special::Clock64
        | Special::GlobalTimer
        | Special::DynamicSmemSize
        | Special::TotalSmemSize
        | Special::ClusterId(_)
        | Special::NClusterId(_)
        | Special::ClusterCtaId(_)
        | Special::ClusterNCtaId(_)
        | Special::ClusterCtaRank
        | Special::ClusterNCtaRank
        | Special::Zero => false,
    }
}
