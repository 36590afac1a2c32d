//! Tensor copies (TMA) and tensor maps: `cp{.reduce}.async.bulk.tensor` (tiled and im2col
//! boxes, swizzled shared layouts, multicast to this CTA), `cp.async.bulk.prefetch.tensor`,
//! `tensormap.replace` and `tensormap.cp_fenceproxy`. The copies queue and land through the
//! bulk engine of the parent module (`push_load`, `push_store`).

use super::*;

impl Machine<'_> {
    /// The 128 bytes of the tensor map at generic address `addr` (param, const or global
    /// memory, as the ISA places tensor maps).
    fn read_tensor_map(
        &self,
        cta: &Cta,
        wi: usize,
        lane: usize,
        id: u32,
        addr: u64,
    ) -> Result<[u8; TENSOR_MAP_BYTES], ExecError> {
        let mut b = [0u8; TENSOR_MAP_BYTES];
        if !addr.is_multiple_of(64) {
            return Err(self.fault(
                cta,
                wi as u32,
                lane as u32,
                id,
                FaultKind::Misaligned {
                    space: "tensor-map",
                    address: addr,
                    bytes: 64,
                },
            ));
        }
        let (space, off) = classify_generic(addr);
        let oob = |space| FaultKind::OutOfBounds {
            space,
            address: off,
            bytes: TENSOR_MAP_BYTES as u32,
        };
        let end = off as usize + TENSOR_MAP_BYTES;
        match space {
            Space::KernelParam => match self.kernel_params.get(off as usize..end) {
                Some(s) => b.copy_from_slice(s),
                None => return Err(self.fault(cta, wi as u32, lane as u32, id, oob("param"))),
            },
            Space::Const => match self.program.const_bytes.get(off as usize..end) {
                Some(s) => b.copy_from_slice(s),
                None => return Err(self.fault(cta, wi as u32, lane as u32, id, oob("const"))),
            },
            Space::Global => {
                if self.mem.read(off, &mut b).is_err() {
                    return Err(self.fault(cta, wi as u32, lane as u32, id, oob("global")));
                }
            }
            other => {
                return Err(self.other(
                    cta,
                    wi,
                    lane,
                    id,
                    format!(
                        "the tensor map at generic address 0x{addr:x} is in {} memory; a tensor \
                         copy reads its map from param, const or global memory",
                        space_name(other)
                    ),
                ))
            }
        }
        Ok(b)
    }

    /// Decodes and checks the tensor map of a tensor copy.
    fn tensor_tile(
        &self,
        cta: &Cta,
        wi: usize,
        lane: usize,
        id: u32,
        addr: u64,
        dim: u32,
    ) -> Result<(TensorMap, Tile), ExecError> {
        let bytes = self.read_tensor_map(cta, wi, lane, id, addr)?;
        let Some(map) = TensorMap::decode(&bytes) else {
            return Err(self.other(
                cta,
                wi,
                lane,
                id,
                format!(
                    "the 128 bytes at 0x{addr:x} are not a tensor map built by tensormap.replace \
                     or described in the launch (ptxsim does not decode tensor maps encoded by \
                     the CUDA driver)"
                ),
            ));
        };
        let tile = map.tile(dim).map_err(|e| {
            self.other(
                cta,
                wi,
                lane,
                id,
                format!("invalid tensor map at 0x{addr:x}: {e}"),
            )
        })?;
        Ok((map, tile))
    }

    /// `cp{.reduce}.async.bulk{.prefetch}.tensor` in tile mode.
    pub(super) fn exec_tensor_copy(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        inst: &TensorCopyInst,
        exec: u32,
    ) -> Result<(), ExecError> {
        read_addrs!(self, cta, wi; tm = inst.tmap, sm = inst.smem, mb = or_zero(inst.mbar));
        read_srcs!(self, cta, wi; mask = or_imm(inst.cta_mask, 0));
        let coords: Vec<[u64; 32]> = inst
            .coords
            .iter()
            .map(|&src| self.src_values(cta, wi, src))
            .collect();
        let policy = self.policy_value(cta, wi, inst.policy, exec);
        let hints = MemHints {
            operator: Some(memsys::CacheOperator::Cg),
            ..MemHints::default()
        };
        for l in lanes(exec) {
            let map_addr = if inst.tmap_space == Space::Generic {
                tm[l]
            } else {
                to_generic(inst.tmap_space, tm[l])
            };
            let (map, tile) = self.tensor_tile(cta, wi, l, id, map_addr, inst.dim)?;
            let c: Vec<i32> = coords.iter().map(|v| v[l] as u32 as i32).collect();
            let bytes = tile.bytes();
            let access = self.access(cta, wi, id, l);
            match inst.kind {
                TensorOpKind::Prefetch => {
                    // A hint: boxes larger than PREFETCH_LIMIT bytes are not modelled.
                    if self.cfg.cache_model && bytes <= PREFETCH_LIMIT {
                        let runs = tile.runs(&c);
                        let mut acc = Vec::new();
                        for r in &runs {
                            line_pieces(r.global, r.bytes as u64, |g, _, n| {
                                acc.push(LaneAccess::new(g, n))
                            });
                        }
                        self.prefetch_l2(cta, id, policy, &acc);
                    }
                }
                TensorOpKind::Load => {
                    let mbar = self.shared_range(cta, wi, l, id, mb[l], 8, 8)?;
                    let dst = self.shared_range(cta, wi, l, id, sm[l], bytes, 128)?;
                    let runs = tile.runs(&c);
                    let mut data = vec![0u8; bytes as usize];
                    if let Some(nan) = tile.fill {
                        let e = tile.elem as usize;
                        for chunk in data.chunks_exact_mut(e) {
                            chunk.copy_from_slice(&nan.to_le_bytes()[..e]);
                        }
                    }
                    let mut global = Vec::with_capacity(runs.len());
                    for r in &runs {
                        self.global_range(cta, wi, l, id, r.global, r.bytes as u64, 1)?;
                        global.push((r.global, r.offset, r.bytes));
                    }
                    self.bulk_global_read(cta, wi, l, id, &hints, policy, &global, &mut data)?;
                    let pieces = self.box_pieces(cta, wi, l, id, &tile, dst, bytes)?;
                    let to_self = self.multicast_to_self(
                        cta,
                        wi,
                        l,
                        id,
                        inst.cta_mask.map(|_| mask[l] & 0xFFFF),
                    )?;
                    if to_self {
                        let sources = runs.iter().map(|r| (r.global, r.bytes)).collect();
                        self.push_load(cta, access, pieces, data, None, mbar, bytes, sources);
                    }
                }
                TensorOpKind::Store | TensorOpKind::Reduce(_) => {
                    let src = self.shared_range(cta, wi, l, id, sm[l], bytes, 128)?;
                    let runs = tile.runs(&c);
                    let reads = self.box_pieces(cta, wi, l, id, &tile, src, bytes)?;
                    let reduce = match inst.kind {
                        TensorOpKind::Reduce(op) => {
                            let ty = map.elem_type.scalar().filter(|&t| {
                                !matches!(map.elem_type.0, 8 | 11 | 12)
                                    && reduce_allowed(op, t, true)
                            });
                            let Some(ty) = ty else {
                                return Err(self.other(
                                    cta,
                                    wi,
                                    l,
                                    id,
                                    format!(
                                        "cp.reduce.async.bulk.tensor does not reduce elements of \
                                         type {} with {op:?}",
                                        map.elem_type.name()
                                    ),
                                ));
                            };
                            Some((op, ty))
                        }
                        _ => None,
                    };
                    let mut writes = Vec::new();
                    for r in &runs {
                        self.global_range(cta, wi, l, id, r.global, r.bytes as u64, 1)?;
                        line_pieces(r.global, r.bytes as u64, |a, d, n| {
                            writes.push((a, r.offset + d, n))
                        });
                    }
                    self.push_store(
                        cta,
                        wi,
                        l,
                        id,
                        access,
                        reads,
                        bytes as u32,
                        writes,
                        reduce,
                        hints,
                        policy,
                    );
                }
            }
        }
        Ok(())
    }

    /// The shared-memory pieces of a box image at `base`: one piece without swizzling, one per
    /// 16-byte chunk (at its swizzled address) with it. Checks every piece's bounds.
    #[allow(clippy::too_many_arguments)]
    fn box_pieces(
        &self,
        cta: &Cta,
        wi: usize,
        lane: usize,
        id: u32,
        tile: &Tile,
        base: u32,
        bytes: u64,
    ) -> Result<Vec<(u32, u32, u32)>, ExecError> {
        if tile.swizzle == 0 {
            return Ok(vec![(base, 0, bytes as u32)]);
        }
        let mut pieces = Vec::with_capacity((bytes / 16) as usize);
        for off in (0..bytes as u32).step_by(16) {
            let a = tile.chunk_address(base, off);
            if a as u64 + 16 > cta.shared.len() as u64 {
                return Err(self.fault(
                    cta,
                    wi as u32,
                    lane as u32,
                    id,
                    FaultKind::OutOfBounds {
                        space: "shared",
                        address: a as u64,
                        bytes: 16,
                    },
                ));
            }
            pieces.push((a, off, 16));
        }
        Ok(pieces)
    }

    /// `tensormap.replace`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_tensormap_replace(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        field: Field,
        ord: u32,
        addr: Addr,
        space: Space,
        value: Src,
        exec: u32,
    ) -> Result<(), ExecError> {
        read_addrs!(self, cta, wi; a = addr);
        read_srcs!(self, cta, wi; v = value);
        for l in lanes(exec) {
            let (sp, at) = match space {
                Space::Generic => classify_generic(a[l]),
                s => (s, a[l]),
            };
            let value = if matches!(field, Field::GlobalAddress | Field::GlobalStride) {
                v[l]
            } else {
                v[l] & 0xFFFF_FFFF
            };
            match sp {
                Space::Shared => {
                    let off = self.shared_range(cta, wi, l, id, at, 128, 64)? as usize;
                    let obj: &mut [u8; TENSOR_MAP_BYTES] = (&mut cta.shared
                        [off..off + TENSOR_MAP_BYTES])
                        .try_into()
                        .expect("128 bytes");
                    if let Err(e) = TensorMap::replace(obj, field, ord, value) {
                        return Err(self.other(cta, wi, l, id, format!("tensormap.replace: {e}")));
                    }
                }
                Space::Global => {
                    self.global_range(cta, wi, l, id, at, 128, 64)?;
                    let mut obj = [0u8; TENSOR_MAP_BYTES];
                    self.mem.read(at, &mut obj).map_err(|e| {
                        self.other(cta, wi, l, id, format!("tensormap.replace: {e}"))
                    })?;
                    TensorMap::replace(&mut obj, field, ord, value).map_err(|e| {
                        self.other(cta, wi, l, id, format!("tensormap.replace: {e}"))
                    })?;
                    self.global_store_bytes(cta, wi, l, id, at, &obj)?;
                }
                other => {
                    return Err(self.other(
                        cta,
                        wi,
                        l,
                        id,
                        format!(
                            "tensormap.replace: address 0x{:x} is in {} memory; tensormap.replace \
                             edits maps in global or shared::cta memory",
                            a[l],
                            space_name(other)
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// A store of `bytes` at global `addr` by one lane, through memsys.
    fn global_store_bytes(
        &mut self,
        cta: &Cta,
        wi: usize,
        lane: usize,
        id: u32,
        addr: u64,
        bytes: &[u8],
    ) -> Result<(), ExecError> {
        let mut acc = Vec::new();
        let mut places = Vec::new();
        line_pieces(addr, bytes.len() as u64, |a, off, n| {
            acc.push(LaneAccess::new(a, n));
            places.push((lane, off as usize, n as usize));
        });
        let hints = MemHints {
            operator: Some(memsys::CacheOperator::Cg),
            ..MemHints::default()
        };
        let req = self.request(cta, AccessKind::Store, &hints, None, id);
        self.write_global(cta, wi, id, &req, &acc, &places, bytes)
    }

    /// `tensormap.cp_fenceproxy.global.shared::cta...`: the warp's threads copy the 128-byte
    /// map from shared to global memory (once per distinct pair of addresses).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn exec_tensormap_copy(
        &mut self,
        cta: &mut Cta,
        wi: usize,
        id: u32,
        dst: Addr,
        src: Addr,
        size: u32,
        exec: u32,
    ) -> Result<(), ExecError> {
        read_addrs!(self, cta, wi; d = dst, s = src);
        let mut done: Vec<(u64, u64)> = Vec::new();
        for l in lanes(exec) {
            if done.contains(&(d[l], s[l])) {
                continue;
            }
            done.push((d[l], s[l]));
            let off = self.shared_range(cta, wi, l, id, s[l], size as u64, 64)? as usize;
            self.global_range(cta, wi, l, id, d[l], size as u64, 64)?;
            let bytes = cta.shared[off..off + size as usize].to_vec();
            self.global_store_bytes(cta, wi, l, id, d[l], &bytes)?;
        }
        Ok(())
    }
}
