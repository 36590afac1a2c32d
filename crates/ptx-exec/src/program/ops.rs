//! The interpreter's operations, declared once: [`for_each_op!`] lists every [`Op`] variant
//! with the facts the interpreter needs about it, and each consumer is generated from that
//! list with an exhaustive `match` (no catch-all arm), so an operation added to [`Op`] but
//! not to the table, or added to the table without a handler, reach or register roles, fails
//! to compile:
//!
//! | column | generated | where |
//! |---|---|---|
//! | handler | `Machine::execute`, the dispatcher | `machine/step.rs` |
//! | reach, phase | [`Op::reach`] and [`Op::needs_serial_phase`]: which round phase runs it | here |
//! | registers | [`register_slots`](super::register_slots), the register prefetch | `slots.rs` |
//! | sync | [`Op::warp_sync_mask`], the warp-synchronous gate | here |
//! | slice | [`slice_roles`](super::slice_roles), the counters-only slice | `slice.rs` |
//!
//! (The model is Pulley's `for_each_op!` in wasmtime and wasmi's `for_each_op.rs`.)
//!
//! **Reach** says where an operation's effects may go, which decides the round phase that
//! runs it (`machine/rounds.rs`):
//! - `cta`: only the CTA's own state (registers, shared memory, barriers); runs in the
//!   CTA-parallel phase.
//! - `outside`: the memory system or the launch's ordered outputs whenever a lane executes it.
//! - `by(f)`: `f(program, op)` decides ([`Reach`]): by the state space and, for generic
//!   addresses, where the lanes' addresses point; or by an operand (a fence that invalidates
//!   L1, a call of `vprintf`).
//!
//! **Phase**, for an operation that reaches outside its CTA: `serial` (in turn order, after the
//! SM-parallel phase) or `weak(f)`: SM-parallel when `f(op)`, the operation's memory semantics,
//! is weak (a weak global `ld`/`st`, `cp.async`'s global read), else serial.
//!
//! **Registers**: the value-register slots read or written, `[role field, ...]` with `dst`
//! ([`Dst`]), `src` ([`Src`]) or `slot` ([`Slot`]) roles, or `[custom f]` for the operand forms a
//! list cannot say; `[]` leaves an operation out of the prefetch (a hint only: the rare forms).
//!
//! **Sync**: `mask` for a warp-synchronous operation whose `mask` field is its membermask.
//!
//! **Slice**: what counters-only mode does with the operation (`slice.rs`): `pure` (skipped
//! when no register it writes is needed; the registers column is complete), `pure(f)` (the
//! same with `f`'s complete roles), `keep` (always runs; the registers column is complete),
//! `keep(f)` (always runs; `f` adds what the registers column leaves out), `only(f)` (always
//! runs; `f` gives every role) or `opaque` (a kernel holding it is not sliced).

use super::*;

/// Calls `$m!` with the operation table: for each [`Op`] variant,
/// `Variant => handler, reach, phase, [registers], sync, slice;` (see the module docs).
macro_rules! for_each_op {
    ($m:ident) => {
        $m! {
            // variant              handler            reach              phase              registers                 sync    slice
            Nop                  => nothing,           cta,               serial,            [],                       none,  keep;
            Mov                  => exec_move,         cta,               serial,            [dst d, src a],           none,  pure;
            Pack                 => exec_move,         cta,               serial,            [custom pack_slots],      none,  pure;
            Unpack               => exec_move,         cta,               serial,            [custom unpack_slots],    none,  pure;
            MovPred              => exec_move,         cta,               serial,            [],                       none,  keep;
            MovVec               => exec_move,         cta,               serial,            [],                       none,  pure(movvec_roles);
            Cvt                  => exec_convert,      cta,               serial,            [dst d, src a],           none,  pure;
            CvtPack              => exec_convert,      cta,               serial,            [dst d, src a, src b],    none,  pure;
            Cvta                 => exec_convert,      cta,               serial,            [dst d, src a],           none,  pure;
            IsSpace              => exec_convert,      cta,               serial,            [],                       none,  keep(isspace_roles);
            Mapa                 => exec_convert,      cta,               serial,            [],                       none,  pure(mapa_roles);
            Int1                 => exec_int,          cta,               serial,            [dst d, src a],           none,  pure;
            Int2                 => exec_int,          cta,               serial,            [dst d, src a, src b],    none,  pure;
            Int3                 => exec_int,          cta,               serial,            [dst d, src a, src b, src c], none,  pure;
            Bfe                  => exec_int,          cta,               serial,            [dst d, src a, src b, src c], none,  pure;
            Bfi                  => exec_int,          cta,               serial,            [],                       none,  pure(bfi_roles);
            Prmt                 => exec_int,          cta,               serial,            [dst d, src a, src b, src c], none,  pure;
            Shf                  => exec_int,          cta,               serial,            [dst d, src a, src b, src c], none,  pure;
            Carry                => exec_int_multi,    cta,               serial,            [dst d, src a, src b, src c], none,  keep;
            Video                => exec_int_multi,    cta,               serial,            [],                       none,  pure(video_roles);
            VideoScalar          => exec_int_multi,    cta,               serial,            [dst d, src a, src b, src c], none,  pure;
            Lop3Pred             => exec_int_multi,    cta,               serial,            [dst d, src a, src b, src c], none,  keep;
            Float1               => exec_float,        cta,               serial,            [dst d, src a],           none,  pure;
            Float2               => exec_float,        cta,               serial,            [dst d, src a, src b],    none,  pure;
            Fma                  => exec_float,        cta,               serial,            [dst d, src a, src b, src c], none,  pure;
            FmaContract          => exec_float,        cta,               serial,            [dst d, src a, src b, src c], none,  pure;
            Testp                => exec_float,        cta,               serial,            [],                       none,  keep(testp_roles);
            Setp                 => exec_compare,      cta,               serial,            [src a, src b],           none,  keep;
            Set                  => exec_compare,      cta,               serial,            [dst d, src a, src b],    none,  pure;
            Selp                 => exec_compare,      cta,               serial,            [dst d, src a, src b],    none,  pure;
            Slct                 => exec_compare,      cta,               serial,            [dst d, src a, src b, src c], none,  pure;
            PredLogic            => exec_compare,      cta,               serial,            [],                       none,  keep;
            PredNot              => exec_compare,      cta,               serial,            [],                       none,  keep;
            Ld                   => load,              by(ld_reach),      weak(ld_semantics), [custom ld_slots],       none,  keep(ld_policy_roles);
            St                   => store,             by(st_reach),      weak(st_semantics), [custom st_slots],       none,  keep(st_policy_roles);
            Prefetch             => exec_memory_other, outside,           serial,            [],                       none,  keep(prefetch_roles);
            // discard restores kernel-start bytes: a kernel with one runs in full mode.
            L2Control            => exec_memory_other, outside,           serial,            [],                       none,  opaque;
            Atom                 => exec_memory_other, by(atom_reach),    serial,            [],                       none,  keep(atom_roles);
            AtomVec              => exec_memory_other, by(atom_reach),    serial,            [],                       none,  keep(atom_vec_roles);
            CreatePolicyFractional => exec_memory_other, cta,             serial,            [],                       none,  keep(policy_fractional_roles);
            // Range cache policies are encoded by the memory system (the L2's geometry).
            CreatePolicyRange    => exec_memory_other, outside,           serial,            [],                       none,  keep(policy_range_roles);
            CreatePolicyCvt      => exec_memory_other, cta,               serial,            [dst d, src a],           none,  keep;
            // `cp.async` reads global memory when it is issued (a weak read); the rest of the
            // copy (landing in shared memory) is the CTA's own.
            CpAsync              => exec_async,        outside,           weak(cp_async_semantics), [custom cp_async_slots], none,  keep(cp_async_policy_roles);
            CpAsyncCommit        => exec_async,        cta,               serial,            [],                       none,  keep;
            CpAsyncWait          => exec_async,        cta,               serial,            [],                       none,  keep;
            CpAsyncWaitAll       => exec_async,        cta,               serial,            [],                       none,  keep;
            CpAsyncMbarrierArrive => exec_async,       cta,               serial,            [],                       none,  keep(mbar_arrive_roles);
            Mbarrier             => exec_async,        cta,               serial,            [],                       none,  keep(mbarrier_roles);
            BulkCopy             => exec_bulk_family,  outside,           serial,            [],                       none,  opaque;
            TensorCopy           => exec_bulk_family,  outside,           serial,            [],                       none,  opaque;
            BulkPrefetch         => exec_bulk_family,  outside,           serial,            [],                       none,  opaque;
            BulkCommit           => exec_bulk_family,  cta,               serial,            [],                       none,  keep;
            BulkWait             => exec_bulk_family,  outside,           serial,            [],                       none,  keep;
            TensormapReplace     => exec_bulk_family,  outside,           serial,            [],                       none,  opaque;
            TensormapCopy        => exec_bulk_family,  outside,           serial,            [],                       none,  opaque;
            BarSync              => exec_bar,          cta,               serial,            [],                       none,  keep(bar_roles);
            BarRed               => exec_bar,          cta,               serial,            [],                       none,  keep(bar_roles);
            Fence                => fence,             by(fence_reach),   serial,            [],                       none,  keep;
            Shfl                 => shuffle_vote,      cta,               serial,            [dst d, src a, src b, src c], mask,  only(shfl_roles);
            Vote                 => shuffle_vote,      cta,               serial,            [],                       mask,  keep(vote_roles);
            Elect                => shuffle_vote,      cta,               serial,            [],                       mask,  keep(elect_roles);
            Activemask           => shuffle_vote,      cta,               serial,            [],                       none,  keep(activemask_roles);
            WarpSync             => nothing,           cta,               serial,            [],                       mask,  keep(warp_sync_roles);
            Redux                => exec_reduce_match, cta,               serial,            [],                       mask,  only(redux_roles);
            Match                => exec_reduce_match, cta,               serial,            [],                       mask,  keep(match_roles);
            Ldmatrix             => exec_matrix,       cta,               serial,            [custom ldmatrix_slots],  none,  keep;
            Stmatrix             => exec_matrix,       cta,               serial,            [custom stmatrix_slots],  none,  keep;
            Mma                  => exec_matrix,       cta,               serial,            [custom mma_slots],       none,  pure;
            WmmaLoad             => exec_matrix,       by(wmma_reach),    serial,            [],                       none,  opaque;
            WmmaStore            => exec_matrix,       by(wmma_reach),    serial,            [],                       none,  opaque;
            WmmaMma              => exec_matrix,       cta,               serial,            [custom mma_slots],       none,  pure;
            Wgmma                => exec_matrix,       cta,               serial,            [],                       none,  opaque;
            WgmmaFence           => nothing,           cta,               serial,            [],                       none,  keep;
            WgmmaCommit          => nothing,           cta,               serial,            [],                       none,  keep;
            WgmmaWait            => nothing,           cta,               serial,            [],                       none,  keep;
            Bra                  => control,           cta,               serial,            [],                       none,  keep;
            BrxIdx               => control,           cta,               serial,            [],                       none,  keep(brx_roles);
            Call                 => control,           by(call_reach),    serial,            [],                       none,  opaque;
            Ret                  => control,           by(ret_reach),     serial,            [],                       none,  keep;
            Exit                 => control,           cta,               serial,            [],                       none,  keep;
            Trap                 => control,           cta,               serial,            [],                       none,  keep;
            Brkpt                => control,           cta,               serial,            [],                       none,  keep;
        }
    };
}
pub(crate) use for_each_op;

/// Where an operation's effects may go (the table's reach column).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reach {
    /// Only the CTA's own state.
    Cta,
    /// The memory system or the launch's ordered outputs, when a lane executes it.
    Outside,
    /// Depends on where the lanes' addresses (generic, or `ld.param` of a kernel parameter's
    /// generic address) point.
    ByAddress(Space, Addr),
}

macro_rules! reach_of {
    ($program:ident, $op:ident; cta) => {
        Reach::Cta
    };
    ($program:ident, $op:ident; outside) => {
        Reach::Outside
    };
    ($program:ident, $op:ident; by($f:ident)) => {
        $f($program, $op)
    };
}

macro_rules! serial_phase_of {
    ($op:ident; serial) => {
        true
    };
    ($op:ident; weak($f:ident)) => {
        $f($op) != memsys::Semantics::Weak
    };
}

macro_rules! sync_mask_of {
    ($op:ident, $v:ident; none) => {
        None
    };
    ($op:ident, $v:ident; mask) => {
        match $op {
            Op::$v { mask, .. } => Some(*mask),
            _ => unreachable!(),
        }
    };
}

macro_rules! gen_op_facts {
    ($( $v:ident => $h:ident, $r:ident $(($rf:ident))?, $p:ident $(($pf:ident))?, $regs:tt, $s:ident, $sl:ident $(($slf:ident))?; )*) => {
        impl Op {
            /// Where this operation's effects may go, by its opcode and operands (the table's
            /// reach column). Conservative: an answer other than [`Reach::Cta`] only moves the
            /// instruction out of the CTA-parallel phase.
            #[inline(always)]
            pub fn reach(&self, program: &Program) -> Reach {
                let op = self;
                match op {
                    $( Op::$v { .. } => reach_of!(program, op; $r $(($rf))?), )*
                }
            }

            /// Whether this operation, when it reaches outside its CTA, must run in the serial
            /// phase (the table's phase column): all but weak global loads and stores and
            /// `cp.async`.
            #[inline(always)]
            pub fn needs_serial_phase(&self) -> bool {
                let op = self;
                match op {
                    $( Op::$v { .. } => serial_phase_of!(op; $p $(($pf))?), )*
                }
            }

            /// The membermask of a warp-synchronous instruction (`vote.sync`, `redux.sync`,
            /// `match.sync`, `shfl.sync`, `elect.sync`, `bar.warp.sync`): each executing
            /// thread waits until every non-exited thread of the mask has executed the
            /// instruction (the table's sync column).
            #[inline(always)]
            pub fn warp_sync_mask(&self) -> Option<Src> {
                let op = self;
                match op {
                    $( Op::$v { .. } => sync_mask_of!(op, $v; $s), )*
                }
            }
        }
    };
}
for_each_op!(gen_op_facts);

/// Global and local `ld`/`st` reach the cache model (`Machine::local_traffic`); shared,
/// constant and kernel-parameter ones stay in the CTA; generic ones (and `ld.param`) go by
/// the address.
#[inline(always)]
fn space_reach(space: Space, addr: Addr) -> Reach {
    match space {
        Space::Global | Space::Local => Reach::Outside,
        Space::Shared | Space::Const | Space::KernelParam => Reach::Cta,
        Space::Generic | Space::Param => Reach::ByAddress(space, addr),
    }
}

#[inline(always)]
fn ld_reach(_: &Program, op: &Op) -> Reach {
    let Op::Ld(ld) = op else { unreachable!() };
    space_reach(ld.space, ld.addr)
}

#[inline(always)]
fn st_reach(_: &Program, op: &Op) -> Reach {
    let Op::St(st) = op else { unreachable!() };
    space_reach(st.space, st.addr)
}

/// Atomics have no local form.
#[inline(always)]
fn atom_reach(_: &Program, op: &Op) -> Reach {
    let (Op::Atom { space, addr, .. } | Op::AtomVec { space, addr, .. }) = op else {
        unreachable!()
    };
    space_reach(*space, *addr)
}

#[inline(always)]
fn wmma_reach(_: &Program, op: &Op) -> Reach {
    let (Op::WmmaLoad(w) | Op::WmmaStore(w)) = op else {
        unreachable!()
    };
    match w.space {
        Space::Shared | Space::Local => Reach::Cta,
        _ => Reach::Outside,
    }
}

/// A fence that ptxas follows with CCTL.IVALL invalidates the SM's L1.
#[inline(always)]
fn fence_reach(_: &Program, op: &Op) -> Reach {
    let Op::Fence { invalidate_l1 } = op else {
        unreachable!()
    };
    if *invalidate_l1 {
        Reach::Outside
    } else {
        Reach::Cta
    }
}

/// A declared-only callee is `vprintf` or `__assertfail` (`builtin_call`); a debug build's
/// calls save and reload call frames in local memory through the cache model
/// (`Machine::frame_traffic`).
#[inline(always)]
fn call_reach(program: &Program, op: &Op) -> Reach {
    let Op::Call { func, .. } = op else {
        unreachable!()
    };
    let callee = &program.functions[*func as usize];
    if callee.code.is_empty() || callee.frame_save_words > 0 {
        Reach::Outside
    } else {
        Reach::Cta
    }
}

/// A debug build's returns reload call frames from local memory.
#[inline(always)]
fn ret_reach(program: &Program, _: &Op) -> Reach {
    if program.debug {
        Reach::Outside
    } else {
        Reach::Cta
    }
}

#[inline(always)]
fn ld_semantics(op: &Op) -> memsys::Semantics {
    let Op::Ld(ld) = op else { unreachable!() };
    ld.hints.semantics
}

#[inline(always)]
fn st_semantics(op: &Op) -> memsys::Semantics {
    let Op::St(st) = op else { unreachable!() };
    st.hints.semantics
}

#[inline(always)]
fn cp_async_semantics(op: &Op) -> memsys::Semantics {
    let Op::CpAsync(cp) = op else { unreachable!() };
    cp.hints.semantics
}
