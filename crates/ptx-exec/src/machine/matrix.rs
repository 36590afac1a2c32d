//! Matrix instructions: `ldmatrix`, `stmatrix`, `mma.sync`, `wmma.load/store/mma` and
//! `wgmma.mma_async`. The arithmetic is in `ptx_semantics` (`mma`, `wmma`, `wgmma`); this file
//! gathers the fragments from registers and memory and scatters the results.

use super::addressing::LocalRef;
use super::operands::or_imm;
use super::{lanes, Cta, Machine, FULL};
use crate::alu;
use crate::error::{ExecError, FaultKind};
use crate::program::*;
use memsys::{AccessKind, LaneAccess};

impl Machine<'_> {
    /// `ldmatrix`, `stmatrix`, `mma`, `wmma` and `wgmma`.
    pub(super) fn exec_matrix(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let program = self.program;
        match &inst.op {
            Op::Ldmatrix {
                num,
                trans,
                ds,
                addr,
                generic,
            } => self.exec_ldmatrix(cta, wi, inst.id, *num, *trans, ds, *addr, *generic, exec)?,
            Op::Stmatrix {
                num,
                trans,
                srcs,
                addr,
                generic,
            } => self.exec_stmatrix(cta, wi, inst.id, *num, *trans, srcs, *addr, *generic)?,
            Op::Mma {
                shape,
                ds,
                a: xa,
                b: xb,
                c: xc,
            } => self.exec_mma(cta, wi, *shape, ds, xa, xb, xc, exec),
            Op::WmmaLoad(w) => self.exec_wmma_mem(cta, wi, inst.id, w, exec, true)?,
            Op::WmmaStore(w) => self.exec_wmma_mem(cta, wi, inst.id, w, exec, false)?,
            Op::WmmaMma {
                op,
                ds,
                a: xa,
                b: xb,
                c: xc,
            } => {
                self.wmma_whole_warp(cta, wi, inst.id, exec)?;
                let read = |this: &Self, srcs: &[Src]| -> Vec<[u64; 32]> {
                    srcs.iter().map(|&s| this.src_values(cta, wi, s)).collect()
                };
                let (ra, rb, rc) = (read(self, xa), read(self, xb), read(self, xc));
                let d = ptx_semantics::wmma::wmma_mma(*op, &ra, &rb, &rc, ds.len());
                for (k, &slot) in ds.iter().enumerate() {
                    Self::write_dst(cta, wi, program, Dst::Reg(slot), &d[k], exec);
                }
            }
            Op::Wgmma {
                shape,
                ds,
                a_desc,
                a_regs,
                b_desc,
                scale_d,
                imm,
            } => self.exec_wgmma(
                cta,
                wi,
                inst.id,
                *shape,
                ds,
                *a_desc,
                a_regs.as_deref(),
                *b_desc,
                *scale_d,
                *imm,
                exec,
            )?,
            _ => unreachable!("`execute` routes only matrix ops here"),
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_ldmatrix(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        num: u8,
        trans: bool,
        ds: &[Slot],
        addr: Addr,
        generic: bool,
        exec: u32,
    ) -> Result<(), ExecError> {
        // Lanes 8i..8i+7 give the row addresses of matrix i; each row is 8 b16 elements.
        read_addrs!(self, cta, wi; a = addr);
        let needed = self.any_needed(ds.iter().copied());
        if self.slicing() && !needed {
            // Counters-only mode, fragments nobody needs: only the row addresses' checks.
            let rows = &a[..(8 * num as usize).min(32)];
            if !generic && Self::shared_offsets_ok(cta, rows, 16) {
                return Ok(());
            }
            for (r, &ar) in rows.iter().enumerate() {
                self.shared_offset(cta, wi, id, r as u32, ar, generic, 16)?;
            }
            return Ok(());
        }
        let mut rows = [[0u16; 8]; 32];
        for (r, row) in rows.iter_mut().enumerate().take(8 * num as usize) {
            let off = self.shared_offset(cta, wi, id, r as u32, a[r], generic, 16)? as usize;
            if needed {
                self.check_shared_read(cta, id, off as u64, 16);
            }
            if self.tracker.is_some() {
                let access = self.access(cta, wi, id, r);
                self.check_shared(cta, wi, r, access, off as u64, 16);
            }
            for (k, e) in row.iter_mut().enumerate() {
                *e = u16::from_le_bytes([cta.shared[off + 2 * k], cta.shared[off + 2 * k + 1]]);
            }
        }
        let mut out = [0u64; 32];
        for (m, &slot) in ds.iter().enumerate() {
            for (l, o) in out.iter_mut().enumerate() {
                // Fragment: lane l holds row l/4, elements 2*(l%4) and 2*(l%4)+1.
                let (r, c0) = (l / 4, 2 * (l % 4));
                let get = |row: usize, col: usize| -> u16 {
                    if trans {
                        rows[8 * m + col][row]
                    } else {
                        rows[8 * m + row][col]
                    }
                };
                *o = get(r, c0) as u64 | ((get(r, c0 + 1) as u64) << 16);
            }
            Self::write_dst(cta, wi, self.program, Dst::Reg(slot), &out, exec);
        }
        Ok(())
    }

    /// `stmatrix`: the inverse of `ldmatrix`. Lanes `8i..8i+7` give the row addresses of matrix
    /// `i`; register `i` of lane `l` holds row `l/4`, elements `2(l%4)` and `+1` of matrix `i`
    /// (with `.trans`, column `l/4`, rows `2(l%4)` and `+1`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_stmatrix(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        num: u8,
        trans: bool,
        srcs: &[Src],
        addr: Addr,
        generic: bool,
    ) -> Result<(), ExecError> {
        read_addrs!(self, cta, wi; a = addr);
        let regs: Vec<[u64; 32]> = srcs.iter().map(|&s| self.src_values(cta, wi, s)).collect();
        let mut rows = [[0u16; 8]; 32];
        for (m, reg) in regs.iter().enumerate() {
            for (l, &v) in reg.iter().enumerate() {
                let (r, c0) = (l / 4, 2 * (l % 4));
                for h in 0..2 {
                    let e = (v >> (16 * h)) as u16;
                    if trans {
                        rows[8 * m + c0 + h][r] = e;
                    } else {
                        rows[8 * m + r][c0 + h] = e;
                    }
                }
            }
        }
        let unknown = self.unknown_data(srcs.iter());
        for (r, row) in rows.iter().enumerate().take(8 * num as usize) {
            let off = self.shared_offset(cta, wi, id, r as u32, a[r], generic, 16)? as usize;
            self.note_shared_store(cta, off as u64, 16, unknown);
            if self.tracker.is_some() {
                let access = self.access(cta, wi, id, r);
                self.check_shared(cta, wi, r, access, off as u64, 16);
                self.check_shared_write(cta, access, off as u64, 16);
            }
            for (k, e) in row.iter().enumerate() {
                cta.shared[off + 2 * k..off + 2 * k + 2].copy_from_slice(&e.to_le_bytes());
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_mma(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        shape: MmaShape,
        ds: &[Slot],
        xa: &[Src],
        xb: &[Src],
        xc: &[Src],
        exec: u32,
    ) {
        // Fixed arrays, not Vecs: an mma reads at most 4 A, 2 B and 4 C registers per lane
        // (`MmaKind::regs`), and this runs once per warp instruction of a matmul's inner loop.
        // Registers go straight from the register file into each lane's fragment.
        let (mut fa, mut fb, mut fc) = ([[0u32; 4]; 32], [[0u32; 2]; 32], [[0u32; 4]; 32]);
        self.fragments(cta, wi, xa, &mut fa);
        self.fragments(cta, wi, xb, &mut fb);
        self.fragments(cta, wi, xc, &mut fc);
        let result = alu::mma(shape, &fa, &fb, &fc);
        for (k, &slot) in ds.iter().enumerate() {
            Self::write_dst(cta, wi, self.program, Dst::Reg(slot), &result[k], exec);
        }
    }

    /// The low 32 bits of the first `N` sources' values, as each lane's fragment registers
    /// (`frag[lane][r]`: source `r`).
    fn fragments<const N: usize>(
        &self,
        cta: &Cta,
        wi: usize,
        srcs: &[Src],
        frag: &mut [[u32; N]; 32],
    ) {
        let frame = cta.warps[wi].frames.last().expect("a frame");
        for (r, &src) in srcs.iter().enumerate().take(N) {
            match src {
                Src::Reg(s) => {
                    let b = frame.base(s);
                    let values = &frame.regs[b..b + 32];
                    for (f, &v) in frag.iter_mut().zip(values) {
                        f[r] = v as u32;
                    }
                }
                _ => {
                    read_srcs!(self, cta, wi; values = src);
                    for (f, &v) in frag.iter_mut().zip(&values) {
                        f[r] = v as u32;
                    }
                }
            }
        }
    }

    /// `wmma` instructions are `.sync.aligned`: every thread of the warp executes them together.
    pub(super) fn wmma_whole_warp(
        &self,
        cta: &Cta,
        wi: usize,
        id: u32,
        exec: u32,
    ) -> Result<(), ExecError> {
        let warp = &cta.warps[wi];
        if exec != FULL || warp.frames[0].mask != FULL {
            return Err(self.fault(
                cta,
                wi as u32,
                exec.trailing_zeros(),
                id,
                FaultKind::Other(format!(
                    "wmma is .sync.aligned: all 32 threads of the warp must execute it together, \
                     but only lanes 0x{exec:08x} do"
                )),
            ));
        }
        Ok(())
    }

    /// `wmma.load` (`load`) or `wmma.store`: the whole matrix is read or written as one warp
    /// request of one access per row (`.row`) or column (`.col`); the fragment registers follow
    /// the layout of [`ptx_semantics::wmma`].
    pub(super) fn exec_wmma_mem(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        w: &WmmaMemInst,
        exec: u32,
        load: bool,
    ) -> Result<(), ExecError> {
        use ptx_semantics::wmma::{wmma_gather, wmma_scatter};
        self.wmma_whole_warp(cta, wi, id, exec)?;
        read_addrs!(self, cta, wi; a = w.addr);
        let default_ld = if w.row_major { w.cols } else { w.rows } as u64;
        read_srcs!(self, cta, wi; st = or_imm(w.stride, default_ld));
        if let Some(l) = (1..32).find(|&l| a[l] != a[0] || st[l] as u32 != st[0] as u32) {
            return Err(self.fault(
                cta,
                wi as u32,
                l as u32,
                id,
                FaultKind::Other(format!(
                    "wmma address and stride must be the same in every thread: lane 0 has \
                     0x{:x} (stride {}), lane {l} 0x{:x} (stride {})",
                    a[0], st[0] as u32, a[l], st[l] as u32
                )),
            ));
        }
        let eb = (w.ty.bits() / 8) as u64;
        let ld = st[0] as u32 as u64;
        let (runs, run_len) = if w.row_major {
            (w.rows, w.cols)
        } else {
            (w.cols, w.rows)
        };
        let bytes = (run_len as u64 * eb) as u32;
        let starts: Vec<u64> = (0..runs as u64)
            .map(|r| a[0].wrapping_add(r * ld * eb))
            .collect();
        let index = |run: u32, i: u32| -> usize {
            if w.row_major {
                (run * w.cols + i) as usize
            } else {
                (i * w.cols + run) as usize
            }
        };
        let get = |buf: &[u8], at: usize| -> u32 {
            let mut v = [0u8; 4];
            v[..eb as usize].copy_from_slice(&buf[at..at + eb as usize]);
            u32::from_le_bytes(v)
        };
        let size = (w.rows * w.cols) as usize;
        if load {
            let buf = self.wmma_runs(cta, wi, id, w.space, &starts, bytes, eb as u32, None)?;
            let mut m = vec![0u32; size];
            for run in 0..runs {
                for i in 0..run_len {
                    let at = (run * bytes + i * eb as u32) as usize;
                    m[index(run, i)] = get(&buf, at);
                }
            }
            let regs = wmma_scatter(&m, w.ty, w.rows, w.cols, w.regs.len());
            for (k, &slot) in w.regs.iter().enumerate() {
                Self::write_dst(cta, wi, self.program, Dst::Reg(slot), &regs[k], exec);
            }
        } else {
            let regs: Vec<[u64; 32]> = w
                .regs
                .iter()
                .map(|&slot| self.src_values(cta, wi, Src::Reg(slot)))
                .collect();
            let m = wmma_gather(&regs, w.ty, w.rows, w.cols);
            let mut buf = vec![0u8; (runs * bytes) as usize];
            for run in 0..runs {
                for i in 0..run_len {
                    let at = (run * bytes + i * eb as u32) as usize;
                    buf[at..at + eb as usize]
                        .copy_from_slice(&m[index(run, i)].to_le_bytes()[..eb as usize]);
                }
            }
            self.wmma_runs(cta, wi, id, w.space, &starts, bytes, eb as u32, Some(&buf))?;
        }
        Ok(())
    }

    /// Reads (`data` = None; returns the bytes, run after run) or writes `bytes` bytes at each
    /// of `starts` in `space` (generic addresses resolved per run), as one warp request.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn wmma_runs(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        space: Space,
        starts: &[u64],
        bytes: u32,
        align: u32,
        data: Option<&[u8]>,
    ) -> Result<Vec<u8>, ExecError> {
        let mut out = vec![0u8; starts.len() * bytes as usize];
        let mut acc = Vec::new();
        let mut places = Vec::new();
        for (k, &start) in starts.iter().enumerate() {
            let lane = k % 32;
            let at = k * bytes as usize;
            let (sp, addr) = self.resolve(space, start);
            if sp == Space::Global {
                if !addr.is_multiple_of(align as u64) {
                    return Err(self.misaligned_global(cta, wi, lane as u32, id, addr, align));
                }
                acc.push(LaneAccess::new(addr, bytes));
                places.push((lane, at, bytes as usize));
                continue;
            }
            if sp == Space::Shared && self.tracker.is_some() {
                let access = self.access(cta, wi, id, lane);
                self.check_shared(cta, wi, lane, access, addr, bytes);
                if data.is_some() {
                    self.check_shared_write(cta, access, addr, bytes);
                }
            }
            let r = self.local_bytes(cta, wi, id, lane, sp, addr, bytes, align, data.is_some())?;
            match (data, r) {
                (Some(d), LocalRef::Mut(m)) => m.copy_from_slice(&d[at..at + bytes as usize]),
                (Some(_), LocalRef::Ref(_)) => unreachable!("writes resolve to mutable spaces"),
                (None, r) => out[at..at + bytes as usize].copy_from_slice(r.get()),
            }
        }
        if !acc.is_empty() {
            let kind = if data.is_some() {
                AccessKind::Store
            } else {
                AccessKind::Load
            };
            let req = memsys::Request {
                warp: cta.warps[wi].index,
                ..self.request(cta, kind, &MemHints::default(), None, id)
            };
            match data {
                Some(d) => {
                    let mut buf = Vec::with_capacity(acc.len() * bytes as usize);
                    for &(_, at, len) in &places {
                        buf.extend_from_slice(&d[at..at + len]);
                    }
                    self.write_global(cta, wi, id, &req, &acc, &places, &buf)?;
                }
                None => {
                    let mut buf = vec![0u8; acc.len() * bytes as usize];
                    self.read_global(cta, wi, id, &req, &acc, &places, Some(&mut buf))?;
                    for (k, &(_, at, len)) in places.iter().enumerate() {
                        out[at..at + len].copy_from_slice(&buf[k * len..(k + 1) * len]);
                    }
                }
            }
        }
        Ok(out)
    }

    /// `wgmma.mma_async`: each warp of the warpgroup (4 consecutive warps) updates its own
    /// accumulator rows; A and B are read from shared memory through their descriptors when
    /// the instruction issues (the kernel may not touch them before `wgmma.wait_group`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_wgmma(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        shape: WgmmaShape,
        ds: &[Slot],
        a_desc: Src,
        a_regs: Option<&[Src]>,
        b_desc: Src,
        scale_d: Option<PredSrc>,
        imm: [i8; 4],
        exec: u32,
    ) -> Result<(), ExecError> {
        use ptx_semantics::wgmma::{mma_async_any, AOperand, WgmmaError, WgmmaOperands, WgmmaType};
        let first = exec.trailing_zeros() as usize;
        let a = self.first_lane_value(cta, wi, a_desc, exec);
        let b = self.first_lane_value(cta, wi, b_desc, exec);
        let scale = match scale_d {
            Some(p) => {
                Self::pred_mask(cta.warps[wi].frames.last().expect("frame"), p) & (1 << first) != 0
            }
            None => true,
        };
        let wty = |t: ptx_isa::ScalarType| match t {
            ptx_isa::ScalarType::Bf16 => WgmmaType::Bf16,
            ptx_isa::ScalarType::Tf32 => WgmmaType::Tf32,
            ptx_isa::ScalarType::E4m3 => WgmmaType::E4m3,
            ptx_isa::ScalarType::E5m2 => WgmmaType::E5m2,
            ptx_isa::ScalarType::S8 => WgmmaType::S8,
            ptx_isa::ScalarType::U8 => WgmmaType::U8,
            _ => WgmmaType::F16,
        };
        let (ty, ty_b) = (wty(shape.input), wty(shape.input_b));
        let ops = WgmmaOperands {
            n: shape.n,
            scale_d: scale,
            negate_a: imm[0] == -1,
            negate_b: imm[1] == -1,
            trans_a: imm[2] == 1,
            trans_b: imm[3] == 1,
            f16_accumulator: shape.f16_accumulator,
        };
        let rank = (cta.warps[wi].index % 4) as usize;
        let mut d = Box::new([[0u32; 128]; 128]);
        {
            let frame = cta.warps[wi].frames.last().expect("frame");
            for lane in 0..32 {
                for (i, &slot) in ds.iter().enumerate().take(128) {
                    d[rank * 32 + lane][i] = frame.regs[frame.base(slot) + lane] as u32;
                }
            }
        }
        let shared = &cta.shared;
        // Hazard tracking: the shared addresses the operands are read from (async copies that
        // have not completed for this thread, such as a TMA load not waited for, are hazards).
        let track = self.tracker.is_some()
            && (!cta.copy_words.is_empty() || !cta.bulk.load_words.is_empty());
        let touched = std::cell::RefCell::new(Vec::new());
        let read = |addr: u32, bytes: u32| -> Result<u32, u32> {
            if track {
                touched.borrow_mut().push(addr);
            }
            let at = addr as usize;
            let slice = shared.get(at..at + bytes as usize).ok_or(addr)?;
            let mut w = [0u8; 4];
            w[..slice.len()].copy_from_slice(slice);
            Ok(u32::from_le_bytes(w))
        };
        let mut a_frag = [[0u32; 4]; 32];
        if let Some(regs) = a_regs {
            for (r, src) in regs.iter().enumerate().take(4) {
                read_srcs!(self, cta, wi; v = *src);
                for (lane, frag) in a_frag.iter_mut().enumerate() {
                    frag[r] = v[lane] as u32;
                }
            }
        }
        let a_src = match a_regs {
            Some(_) => AOperand::Registers {
                rank: rank as u32,
                regs: &a_frag,
            },
            None => AOperand::Shared(a),
        };
        if let Err(e) = mma_async_any(ty, ty_b, shape.satfinite, a_src, b, ops, &mut d, read) {
            let kind = match e {
                WgmmaError::Read(addr) => FaultKind::OutOfBounds {
                    space: "shared",
                    address: addr as u64,
                    bytes: ty.elem_bytes(),
                },
                other => FaultKind::Other(format!("wgmma.mma_async: {other:?}")),
            };
            return Err(self.fault(cta, wi as u32, first as u32, id, kind));
        }
        if track {
            let mut words: Vec<u32> = touched.into_inner().iter().map(|a| a / 4).collect();
            words.sort_unstable();
            words.dedup();
            let access = self.access(cta, wi, id, first);
            for w in words {
                self.check_shared(cta, wi, first, access, w as u64 * 4, 4);
            }
        }
        let frame = cta.warps[wi].frames.last_mut().expect("frame");
        for lane in lanes(exec) {
            for (i, &slot) in ds.iter().enumerate().take(128) {
                let b = frame.base(slot);
                frame.regs[b + lane] = d[rank * 32 + lane][i] as u64;
            }
        }
        Ok(())
    }
}
