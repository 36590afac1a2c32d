//! Memory instructions: `ld`, `st`, `prefetch`, `atom`/`red` (scalar and vector), and
//! `createpolicy`. Addressing and the global path through the cache model live in
//! `addressing.rs`; the hazard checks they feed in `hazard.rs`.

use super::addressing::{element_runs, Accesses, LocalRef, Places};
use super::operands::or_imm;
use super::{lanes, Cta, Machine, MAX_LANE_BYTES};
use crate::alu::{self, width_mask};
use crate::error::{ExecError, FaultKind};
use crate::memory::classify_generic;
use crate::program::*;
use memsys::{AccessKind, LaneAccess, MemSystem};
use smallvec::SmallVec;

impl Machine<'_> {
    pub(super) fn exec_load(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        ld: &LoadInst,
        exec: u32,
    ) -> Result<(), ExecError> {
        read_addrs!(self, cta, wi; a = ld.addr);
        let n = ld.dsts.len();
        let eb = ld.elem_bytes as usize;
        let total = (eb * n) as u32;
        let policy = self.policy_value(cta, wi, ld.policy, exec);
        // Bytes per lane, lane-major.
        // Bytes per lane, lane-major; the widest access is 32 bytes per lane (.v8.b32, .v4.b64).
        let mut storage = [0u8; 32 * MAX_LANE_BYTES];
        let data = &mut storage[..32 * total as usize];
        let mut global_lanes: SmallVec<[(usize, u64); 32]> = SmallVec::new();
        let mut local_lanes: SmallVec<[(usize, u64, u32); 32]> = SmallVec::new();
        let needed = self.slicing()
            && self.any_needed(ld.dsts.iter().filter_map(|d| match d {
                Dst::Reg(r) => Some(*r),
                Dst::Sink => None,
            }));
        // Counters-only mode, no register the slice needs: the lanes' bytes are not copied
        // out of shared, local or param memory, nor into registers.
        let unread = self.slicing() && !needed;
        for l in lanes(exec) {
            let (sp, addr) = self.resolve(ld.space, a[l]);
            if sp == Space::Global {
                if !super::addressing::is_aligned(addr, total as u64) {
                    return Err(self.misaligned_global(cta, wi, l as u32, id, addr, total));
                }
                global_lanes.push((l, addr));
            } else {
                if needed {
                    match sp {
                        Space::Shared => self.check_shared_read(cta, id, addr, total),
                        Space::Local | Space::Param => self.check_private_read(cta, id),
                        _ => {}
                    }
                }
                if sp == Space::Shared && self.tracker.is_some() {
                    let access = self.access(cta, wi, id, l);
                    self.check_shared(cta, wi, l, access, addr, total);
                }
                let r = self.local_bytes(cta, wi, id, l, sp, addr, total, total, false)?;
                if !unread {
                    data[l * total as usize..(l + 1) * total as usize].copy_from_slice(r.get());
                }
                if sp == Space::Local {
                    local_lanes.push((l, addr, total));
                }
            }
        }
        self.local_traffic(cta, wi, id, AccessKind::Load, &ld.hints, &local_lanes)?;
        if !global_lanes.is_empty() {
            let req = self.request(cta, AccessKind::Load, &ld.hints, policy, id);
            self.global_read(
                cta,
                wi,
                id,
                &req,
                &global_lanes,
                &ld.dsts
                    .iter()
                    .map(|d| *d == Dst::Sink)
                    .collect::<SmallVec<[bool; 8]>>(),
                eb,
                data,
            )?;
        }
        if unread {
            return Ok(());
        }
        // Distribute into registers with sign or zero extension.
        let program = self.program;
        let frame = cta.warps[wi].frames.last_mut().expect("frame");
        let func = &program.functions[frame.func as usize];
        for (k, d) in ld.dsts.iter().enumerate() {
            let Dst::Reg(slot) = d else { continue };
            let m = width_mask(ld.dst_bits[k]);
            for l in lanes(exec) {
                let bytes = &data[l * total as usize + k * eb..][..eb];
                if eb == 16 {
                    let lo = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
                    let hi = u64::from_le_bytes(bytes[8..].try_into().expect("8 bytes"));
                    let b = frame.base(*slot);
                    frame.regs[b + l] = lo;
                    if func.slot_bits.len() > *slot as usize + 1 {
                        let b = frame.base(*slot + 1);
                        frame.regs[b + l] = hi;
                    }
                    continue;
                }
                let raw = le_value(bytes);
                let ext = match ld.extend {
                    Extend::Sign if eb < 8 => {
                        let sh = 64 - 8 * eb as u32;
                        (((raw << sh) as i64) >> sh) as u64
                    }
                    _ => raw,
                };
                let b = frame.base(*slot);
                frame.regs[b + l] = ext & m;
            }
        }
        Ok(())
    }

    pub(super) fn exec_store(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        st: &StoreInst,
        exec: u32,
    ) -> Result<(), ExecError> {
        read_addrs!(self, cta, wi; a = st.addr);
        let eb = st.elem_bytes as usize;
        let n = st.srcs.len();
        let total = eb * n;
        let mut storage = [0u8; 32 * MAX_LANE_BYTES];
        let data = &mut storage[..32 * total];
        let mut v = [0u64; 32];
        let mut v_hi = [0u64; 32];
        let unknown = self.unknown_data(st.srcs.iter().flatten());
        // Counters-only mode, data the slice does not compute: its bytes are marked unknown
        // (a needed read of them restarts the launch in full mode), so none are gathered and
        // none written to shared, local or param memory; global memory gets zeros.
        let skip_data = unknown && self.slicing();
        for (k, s) in st.srcs.iter().enumerate() {
            let Some(s) = s.as_ref().filter(|_| !skip_data) else {
                continue;
            };
            self.read_src(cta, wi, *s, &mut v);
            if eb == 16 {
                if let Src::Reg(slot) = s {
                    self.read_src(cta, wi, Src::Reg(slot + 1), &mut v_hi);
                }
            }
            for l in lanes(exec) {
                let dst = &mut data[l * total + k * eb..][..eb];
                if eb == 16 {
                    dst[..8].copy_from_slice(&v[l].to_le_bytes());
                    dst[8..].copy_from_slice(&v_hi[l].to_le_bytes());
                } else {
                    dst.copy_from_slice(&v[l].to_le_bytes()[..eb]);
                }
            }
        }
        let sinks: SmallVec<[bool; 8]> = st.srcs.iter().map(Option::is_none).collect();
        let runs = element_runs(&sinks);
        let policy = self.policy_value(cta, wi, st.policy, exec);
        let mut accesses = Accesses::new();
        let mut places = Places::new();
        let mut local_lanes: SmallVec<[(usize, u64, u32); 32]> = SmallVec::new();
        for l in lanes(exec) {
            let (sp, addr) = self.resolve(st.space, a[l]);
            if sp == Space::Global {
                if !super::addressing::is_aligned(addr, total as u64) {
                    return Err(self.misaligned_global(cta, wi, l as u32, id, addr, total as u32));
                }
                for &(first, count) in &runs {
                    accesses.push(LaneAccess::new(
                        addr + (first * eb) as u64,
                        (count * eb) as u32,
                    ));
                    places.push((l, l * total + first * eb, count * eb));
                }
            } else {
                if sp == Space::Shared && self.tracker.is_some() {
                    let access = self.access(cta, wi, id, l);
                    self.check_shared(cta, wi, l, access, addr, total as u32);
                    self.check_shared_write(cta, access, addr, total as u32);
                }
                match sp {
                    Space::Shared => {
                        for &(first, count) in &runs {
                            let at = addr + (first * eb) as u64;
                            self.note_shared_store(cta, at, (count * eb) as u32, unknown);
                        }
                    }
                    _ => self.note_private_store(cta, unknown),
                }
                for &(first, count) in &runs {
                    let r = self.local_bytes(
                        cta,
                        wi,
                        id,
                        l,
                        sp,
                        addr + (first * eb) as u64,
                        (count * eb) as u32,
                        if first == 0 { total as u32 } else { eb as u32 },
                        true,
                    )?;
                    match r {
                        LocalRef::Mut(m) if !skip_data => {
                            m.copy_from_slice(&data[l * total + first * eb..][..count * eb])
                        }
                        LocalRef::Mut(_) => {}
                        LocalRef::Ref(_) => unreachable!("writes resolve to mutable spaces"),
                    }
                    if sp == Space::Local {
                        local_lanes.push((l, addr + (first * eb) as u64, (count * eb) as u32));
                    }
                }
            }
        }
        self.local_traffic(cta, wi, id, AccessKind::Store, &st.hints, &local_lanes)?;
        if accesses.is_empty() {
            return Ok(());
        }
        if unknown {
            self.note_unknown_global(&accesses);
        }
        // The warp's index picks its SM sub-partition's write-combining window (memsys).
        let req = memsys::Request {
            warp: cta.warps[wi].index,
            ..self.request(cta, AccessKind::Store, &st.hints, policy, id)
        };
        // Lanes 0..n with every element: the packed order is the lane-major layout itself.
        let packed_is_lane_major = runs.len() == 1
            && runs[0] == (0, n)
            && places.iter().enumerate().all(|(i, p)| i == p.0);
        if packed_is_lane_major {
            let len = places.len() * total;
            self.write_global(cta, wi, id, &req, &accesses, &places, &data[..len])?;
            return Ok(());
        }
        let mut buf: SmallVec<[u8; 1024]> = SmallVec::new();
        for &(_, at, len) in &places {
            buf.extend_from_slice(&data[at..at + len]);
        }
        self.write_global(cta, wi, id, &req, &accesses, &places, &buf)?;
        Ok(())
    }

    /// `prefetch`, `atom`/`red` (scalar and vector) and `createpolicy`.
    pub(super) fn exec_memory_other(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        inst: &Inst,
        exec: u32,
    ) -> Result<(), ExecError> {
        let program = self.program;
        match &inst.op {
            Op::Prefetch {
                space,
                addr,
                level2,
                l2_priority,
            } => {
                self.exec_prefetch(cta, wi, inst.id, *space, *addr, *level2, *l2_priority, exec)?
            }
            Op::L2Control { kind, space, addr } => {
                self.exec_l2_control(cta, wi, inst.id, *kind, *space, *addr, exec)?
            }
            Op::Atom {
                op,
                ty,
                space,
                d,
                addr,
                b: x,
                c: y,
                hints,
                result_unread,
            } => self.exec_atom(
                cta,
                wi,
                inst.id,
                *op,
                *ty,
                *space,
                &[(*d, *x)],
                *addr,
                *y,
                *hints,
                *result_unread,
                exec,
            )?,
            Op::AtomVec {
                op,
                ty,
                space,
                elems,
                addr,
                hints,
            } => self.exec_atom(
                cta,
                wi,
                inst.id,
                *op,
                *ty,
                *space,
                elems,
                *addr,
                None,
                *hints,
                elems.iter().all(|(d, _)| d.is_none()),
                exec,
            )?,
            Op::CreatePolicyFractional {
                d,
                primary,
                secondary,
                fraction,
            } => {
                read_srcs!(self, cta, wi; a = *fraction);
                let mut out = [0u64; 32];
                for l in lanes(exec) {
                    let f = f32::from_bits(a[l] as u32);
                    out[l] = MemSystem::create_fractional_policy(*primary, *secondary, f).map_err(
                        |e| {
                            self.fault(
                                cta,
                                wi as u32,
                                l as u32,
                                inst.id,
                                FaultKind::Other(format!("createpolicy: {e}")),
                            )
                        },
                    )?;
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::CreatePolicyRange {
                d,
                primary,
                secondary,
                addr,
                generic,
                primary_size,
                total_size,
            } => {
                read_addrs!(self, cta, wi; a = *addr);
                read_srcs!(self, cta, wi; b = *primary_size, c = *total_size);
                // ptxas folds log2 of a literal total size at compile time.
                let total_operand = if matches!(total_size, Src::Imm(_)) {
                    memsys::TotalSizeOperand::Literal
                } else {
                    memsys::TotalSizeOperand::Register
                };
                let mut out = [0u64; 32];
                for l in lanes(exec) {
                    let base = if *generic {
                        classify_generic(a[l]).1
                    } else {
                        a[l]
                    };
                    out[l] = self
                        .mem
                        .create_range_policy(
                            base,
                            b[l] as u32,
                            c[l] as u32,
                            total_operand,
                            *primary,
                            *secondary,
                        )
                        .map_err(|e| {
                            self.fault(
                                cta,
                                wi as u32,
                                l as u32,
                                inst.id,
                                FaultKind::Other(format!("createpolicy: {e}")),
                            )
                        })?;
                }
                Self::write_dst(cta, wi, program, *d, &out, exec);
            }
            Op::CreatePolicyCvt { d, a: s } => {
                // cudaAccessProperty values are already in the policy encoding (REFERENCE.md).
                read_srcs!(self, cta, wi; a = *s);
                Self::write_dst(cta, wi, program, *d, &a, exec);
            }
            _ => unreachable!("`execute` routes only prefetch, atom and createpolicy here"),
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_prefetch(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        space: Space,
        addr: Addr,
        level2: bool,
        l2: Option<memsys::L2EvictionPriority>,
        exec: u32,
    ) -> Result<(), ExecError> {
        if !self.cfg.cache_model {
            return Ok(());
        }
        read_addrs!(self, cta, wi; a = addr);
        // "The prefetch instruction brings the cache line containing the specified address
        // ... into the specified cache level" (PTX ISA, prefetch): each lane asks for its whole
        // line (on an H100, Nsight counts 4 L2 sectors per warp and line for every prefetch
        // form, `ld_forms.prefetch_forms`: 112 = 4 warps x 7 prefetches x 4).
        let line = u64::from(self.mem.config().l2.line_bytes.min(memsys::MAX_LANE_BYTES));
        let mut acc = Vec::new();
        for l in lanes(exec) {
            let (sp, ad) = self.resolve(space, a[l]);
            if sp == Space::Global {
                acc.push(LaneAccess::new(ad & !(line - 1), line as u32));
            }
        }
        if acc.is_empty() {
            return Ok(());
        }
        let hints = MemHints {
            operator: Some(if level2 {
                memsys::CacheOperator::Cg
            } else {
                memsys::CacheOperator::Ca
            }),
            l2_priority: l2,
            ..MemHints::default()
        };
        let req = self.request(cta, AccessKind::Prefetch, &hints, None, id);
        // A prefetch of an address outside every allocation is dropped, as on hardware.
        let _ = self.mem.load(&req, &acc, &mut []);
        Ok(())
    }

    /// `discard.global.L2 [a], 128` and `applypriority.global.L2::evict_normal [a], 128`, each
    /// lane its own line (memsys `system/l2_control.rs`). PTX ISA (`discard`, `applypriority`):
    /// "The operand `size` is an integer constant that specifies the amount of data, in
    /// bytes ... The only supported value for the size operand is 128" and the address must be
    /// in the global window; an address that is not 128-byte aligned, not global, or outside
    /// every allocation is a kernel fault naming the thread, the PTX line and the address.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_l2_control(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        kind: L2ControlKind,
        space: Space,
        addr: Addr,
        exec: u32,
    ) -> Result<(), ExecError> {
        read_addrs!(self, cta, wi; a = addr);
        const LINE: u64 = 128;
        let mut lines: SmallVec<[(usize, u64); 32]> = SmallVec::new();
        for l in lanes(exec) {
            let (sp, ad) = self.resolve(space, a[l]);
            if sp != Space::Global {
                return Err(self.fault(
                    cta,
                    wi as u32,
                    l as u32,
                    id,
                    FaultKind::Other(format!(
                        "{}: address 0x{ad:x} is not in the global window (it takes a global \
                         line)",
                        kind.mnemonic()
                    )),
                ));
            }
            if ad % LINE != 0 {
                return Err(self.fault(
                    cta,
                    wi as u32,
                    l as u32,
                    id,
                    FaultKind::Other(format!(
                        "{}: address 0x{ad:x} is not aligned to the 128-byte line (0x{:x} is)",
                        kind.mnemonic(),
                        ad & !(LINE - 1)
                    )),
                ));
            }
            if !self.mem.is_mapped(ad, LINE) {
                return Err(self.fault(
                    cta,
                    wi as u32,
                    l as u32,
                    id,
                    FaultKind::OutOfBounds {
                        space: "global",
                        address: ad,
                        bytes: LINE as u32,
                    },
                ));
            }
            lines.push((l, ad));
        }
        if kind == L2ControlKind::Discard && self.tracker.is_some() {
            for &(l, ad) in &lines {
                let access = self.access(cta, wi, id, l);
                if let Some(t) = &mut self.tracker {
                    t.discarded(access, ad, LINE as u32);
                }
            }
        }
        if !self.cfg.cache_model {
            return Ok(());
        }
        for &(l, ad) in &lines {
            let r = match kind {
                L2ControlKind::Discard => self.mem.discard_l2(cta.sm, id, ad).map(|_| ()),
                L2ControlKind::ApplyPriorityNormal => self
                    .mem
                    .apply_priority_normal_l2(cta.sm, id, ad)
                    .map(|_| ()),
            };
            r.map_err(|e| {
                self.fault(
                    cta,
                    wi as u32,
                    l as u32,
                    id,
                    FaultKind::Other(format!("memory model: {e}")),
                )
            })?;
        }
        Ok(())
    }

    /// `atom`/`red`, scalar (one element) or vector (`elems` consecutive elements per lane,
    /// `.v2`/`.v4`/`.v8`). A vector atomic is one memory request of the whole vector per
    /// lane: on an H100 the `atom.global.add.v4.f32` build of `triton.splitk_matmul` (sm_90)
    /// counts 720 L2 atom sectors, as its sm_80 build's scalar `atom.add.f32` do; issuing the
    /// four elements as four requests counted 2,880.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_atom(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        op: AtomOp,
        ty: ptx_isa::ScalarType,
        space: Space,
        elems: &[(Option<Dst>, Src)],
        addr: Addr,
        c: Option<Src>,
        hints: MemHints,
        result_unread: bool,
        exec: u32,
    ) -> Result<(), ExecError> {
        let n = elems.len();
        read_addrs!(self, cta, wi; a = addr);
        read_srcs!(self, cta, wi; cv = or_imm(c, 0));
        let mut bv = vec![[0u64; 32]; n];
        for (k, (_, b)) in elems.iter().enumerate() {
            self.read_src(cta, wi, *b, &mut bv[k]);
        }
        let eb = ty.bytes() as usize;
        let vb = eb * n;
        let mut old = vec![[0u64; 32]; n];
        let mut global = Vec::new();
        for l in lanes(exec) {
            let (sp, ad) = self.resolve(space, a[l]);
            if sp == Space::Global {
                if ad % eb as u64 != 0 {
                    return Err(self.misaligned_global(cta, wi, l as u32, id, ad, eb as u32));
                }
                global.push((l, ad));
            } else {
                for k in 0..n {
                    let ad = ad + (k * eb) as u64;
                    // Its operands are in the slice; the bytes it reads must be known.
                    match sp {
                        Space::Shared => self.check_shared_read(cta, id, ad, eb as u32),
                        _ => self.check_private_read(cta, id),
                    }
                    if sp == Space::Shared && self.tracker.is_some() {
                        let access = self.access(cta, wi, id, l);
                        self.check_shared(cta, wi, l, access, ad, eb as u32);
                        self.check_shared_write(cta, access, ad, eb as u32);
                    }
                    let r = self.local_bytes(cta, wi, id, l, sp, ad, eb as u32, eb as u32, true)?;
                    let LocalRef::Mut(m) = r else { unreachable!() };
                    let mut v = [0u8; 8];
                    v[..eb].copy_from_slice(m);
                    let prev = u64::from_le_bytes(v);
                    old[k][l] = prev;
                    let new = alu::atom_combine(op, ty, prev, bv[k][l], cv[l]);
                    m.copy_from_slice(&new.to_le_bytes()[..eb]);
                }
            }
        }
        if !global.is_empty() {
            let req = self.request(cta, AccessKind::Atomic, &hints, None, id);
            let acc: Vec<LaneAccess> = global
                .iter()
                .map(|&(_, ad)| LaneAccess::new(ad, vb as u32))
                .collect();
            let places: Vec<(usize, usize, usize)> =
                global.iter().map(|&(l, _)| (l, 0, vb)).collect();
            self.note_global_reads(&acc, None);
            if self.cfg.cache_model {
                let mut olds = vec![0u64; global.len() * n];
                let gl = &global;
                let bv = &bv;
                let mut update = |i: usize, bytes: &mut [u8]| {
                    let l = gl[i].0;
                    for (k, e) in bytes.chunks_exact_mut(eb).enumerate() {
                        let mut v = [0u8; 8];
                        v[..eb].copy_from_slice(e);
                        let prev = u64::from_le_bytes(v);
                        olds[i * n + k] = prev;
                        let new = alu::atom_combine(op, ty, prev, bv[k][l], cv[l]);
                        e.copy_from_slice(&new.to_le_bytes()[..eb]);
                    }
                };
                // ptxas performs a warp's 32-bit integer `add` on one address once (a leader
                // lane and a scan), and `and`/`or`/`xor`/`min`/`max` too when nothing reads the
                // result (`red`): memsys `atomic_warp_aggregated` has the SASS evidence.
                let int32 = n == 1 && eb == 4 && ty.kind() != ptx_isa::TypeKind::Float;
                let aggregable = match op {
                    AtomOp::Add => int32,
                    AtomOp::And | AtomOp::Or | AtomOp::Xor | AtomOp::Min | AtomOp::Max => {
                        int32 && result_unread
                    }
                    _ => false,
                };
                let uniform = global.len() > 1 && global.iter().all(|&(_, ad)| ad == global[0].1);
                let r = if aggregable && uniform {
                    self.mem.atomic_warp_aggregated(&req, &acc, &mut update)
                } else {
                    self.mem.atomic(&req, &acc, &mut update)
                };
                r.map_err(|e| self.mem_fault(cta, wi, id, &acc, &places, e))?;
                for (i, &(l, _)) in global.iter().enumerate() {
                    for (k, o) in old.iter_mut().enumerate() {
                        o[l] = olds[i * n + k];
                    }
                }
            } else {
                for (i, &(l, ad)) in global.iter().enumerate() {
                    let mut bytes = vec![0u8; vb];
                    self.mem
                        .read(ad, &mut bytes)
                        .map_err(|e| self.mem_fault(cta, wi, id, &acc[i..=i], &places[i..=i], e))?;
                    for (k, e) in bytes.chunks_exact_mut(eb).enumerate() {
                        let mut v = [0u8; 8];
                        v[..eb].copy_from_slice(e);
                        let prev = u64::from_le_bytes(v);
                        old[k][l] = prev;
                        let new = alu::atom_combine(op, ty, prev, bv[k][l], cv[l]);
                        e.copy_from_slice(&new.to_le_bytes()[..eb]);
                    }
                    self.mem
                        .write(ad, &bytes)
                        .map_err(|e| self.mem_fault(cta, wi, id, &acc[i..=i], &places[i..=i], e))?;
                }
            }
            self.track_stores(cta, wi, id, &acc, &places);
        }
        for (k, (d, _)) in elems.iter().enumerate() {
            if let Some(d) = d {
                Self::write_dst(cta, wi, self.program, *d, &old[k], exec);
            }
        }
        Ok(())
    }
}

/// The little-endian value of 1 to 8 bytes (fixed-size reads for the common sizes: a
/// `memcpy` call of a variable length costs more than the load).
#[inline(always)]
fn le_value(bytes: &[u8]) -> u64 {
    match bytes.len() {
        4 => u64::from(u32::from_le_bytes(bytes.try_into().expect("4 bytes"))),
        8 => u64::from_le_bytes(bytes.try_into().expect("8 bytes")),
        2 => u64::from(u16::from_le_bytes(bytes.try_into().expect("2 bytes"))),
        1 => u64::from(bytes[0]),
        n => {
            let mut v = [0u8; 8];
            v[..n].copy_from_slice(bytes);
            u64::from_le_bytes(v)
        }
    }
}
