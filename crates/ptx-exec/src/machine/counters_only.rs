//! Counters-only mode ([`LaunchConfig::counters_only`]): the kernel's slice
//! (`program/slice.rs`) runs, the rest of its instructions are counted but skipped
//! (`step.rs`), and stores whose data the slice skipped write bytes marked unknown. What
//! the machine tracks so that the counters stay those of the full run:
//!
//! - shared memory: a byte map per CTA of the bytes an unknown store wrote last; a load into a
//!   needed register (`ld`, `ldmatrix`) or an atomic that touches one is a conflict. A CTA's
//!   accesses run in one order whatever the thread count, so the map is exact.
//! - local and param memory: whether the CTA stored unknown data there at all; a needed load
//!   after it is a conflict.
//! - global memory: the 128-byte lines unknown stores wrote and the lines any access read
//!   (every load, atomic and copy: a needed register may come from one, and a stale L1 read
//!   compares the bytes of one). A line in both sets is a conflict, whatever the order of
//!   the accesses (the SM-parallel phase runs SMs on several threads), so the decision is the
//!   same for every thread count. A line read that an earlier counters-only launch of the
//!   session left unknown is one too (`Session::launch`).
//!
//! A conflict makes the launch run again in full mode from the memory system as it was
//! (`Session::launch`), and the summary says why ([`CountersOnly::restarted`]).

use super::{Cta, Machine};
use crate::program::*;
use memsys::LaneAccess;
use rustc_hash::FxHashSet;
use std::collections::BTreeSet;

/// Global memory is tracked in lines of this many bytes (log2).
const LINE_SHIFT: u32 = 7;

/// What counters-only mode did in a launch ([`super::RunSummary::counters_only`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CountersOnly {
    /// Whether the kernel could be sliced; when not (an instruction whose registers the slice
    /// cannot follow: bulk or tensor copies, `wmma.load`/`store`, `wgmma`, calls, printf), it
    /// ran in full.
    pub sliced: bool,
    /// Instructions of the kernel the slice skips, of all its instructions.
    pub skipped: u32,
    pub instructions: u32,
    /// Why the launch ran again in full mode (`None`: the counters-only run stood).
    pub restarted: Option<String>,
}

impl CountersOnly {
    /// One line for a run summary.
    pub fn describe(&self) -> String {
        match (&self.restarted, self.sliced) {
            (Some(why), _) => format!("counters-only: restarted in full mode: {why}"),
            (None, true) => format!(
                "counters-only: {} of {} instructions skipped (values not computed; counters \
                 and time estimate as in a full run)",
                self.skipped, self.instructions
            ),
            (None, false) => "counters-only: the kernel cannot be sliced (calls, bulk or tensor \
                              copies, wmma.load/store or wgmma), ran in full"
                .to_string(),
        }
    }
}

/// The accesses a counters-only launch tracks (merged from every host thread's machine).
#[derive(Debug, Clone, Default)]
pub struct Unknowns {
    /// Global lines read by any access (a hash set: every global read inserts; the questions
    /// asked of it take the least line, so their answers do not depend on its order).
    pub read_lines: FxHashSet<u64>,
    /// Global lines written with unknown data.
    pub unknown_lines: BTreeSet<u64>,
    /// The first conflict found in shared, local or param memory (the least by text when
    /// several machines found one, so the same for every thread count).
    pub conflict: Option<String>,
}

impl Unknowns {
    pub(super) fn merge(&mut self, other: Unknowns) {
        self.read_lines.extend(other.read_lines);
        self.unknown_lines.extend(other.unknown_lines);
        if let Some(c) = other.conflict {
            self.note(c);
        }
    }

    fn note(&mut self, why: String) {
        if self.conflict.as_ref().is_none_or(|c| why < *c) {
            self.conflict = Some(why);
        }
    }

    /// A global line this launch read that an earlier counters-only launch of the session
    /// wrote with values it did not compute: running this launch again cannot repair that.
    pub fn reads_earlier_unknown(&self, earlier: &BTreeSet<u64>) -> Option<u64> {
        self.read_lines
            .iter()
            .filter(|l| earlier.contains(l))
            .min()
            .map(|l| l << LINE_SHIFT)
    }

    /// The reason to run the launch again in full mode, if any: a conflict, or a global line
    /// both read and written unknown.
    pub fn restart_reason(&self) -> Option<String> {
        if let Some(c) = &self.conflict {
            return Some(c.clone());
        }
        let both = |set: &BTreeSet<u64>| {
            self.read_lines
                .iter()
                .filter(|l| set.contains(l))
                .min()
                .map(|l| l << LINE_SHIFT)
        };
        both(&self.unknown_lines).map(|addr| {
            format!(
                "global memory at {addr:#x} is read and also written with values the slice \
                 does not compute (a load of it may feed an address or branch, or compare \
                 stale L1 bytes)"
            )
        })
    }
}

fn lines_of(acc: &[LaneAccess], set: &mut impl std::iter::Extend<u64>) {
    let mut last = u64::MAX;
    for a in acc {
        let first = a.addr >> LINE_SHIFT;
        let end = (a.addr + u64::from(a.bytes.max(1)) - 1) >> LINE_SHIFT;
        for line in first..=end {
            if line != last {
                set.extend(Some(line));
                last = line;
            }
        }
    }
}

impl Machine<'_> {
    /// Whether counters-only mode runs the kernel's slice in this launch.
    #[inline(always)]
    pub(super) fn slicing(&self) -> bool {
        self.slice.is_some()
    }

    /// Whether the slice needs no value read from shared memory (`Slice::shared_values_unused`):
    /// `cp.async` then skips the copy into shared memory and its group bookkeeping.
    #[inline(always)]
    pub(super) fn shared_values_unused(&self) -> bool {
        self.slice.is_some_and(|s| s.shared_values_unused)
    }

    /// Whether any register of `dsts` is one the slice needs.
    pub(super) fn any_needed(&self, mut dsts: impl Iterator<Item = Slot>) -> bool {
        self.slice.is_some_and(|s| dsts.any(|d| s.is_needed(d)))
    }

    /// Whether a store of `srcs` writes values the slice does not compute.
    pub(super) fn unknown_data<'a>(&self, mut srcs: impl Iterator<Item = &'a Src>) -> bool {
        self.slice
            .is_some_and(|s| srcs.any(|x| matches!(x, Src::Reg(r) if !s.is_needed(*r))))
    }

    /// Notes global accesses that read.
    #[inline]
    pub(super) fn note_global_reads(&mut self, acc: &[LaneAccess]) {
        if self.slicing() {
            lines_of(acc, &mut self.summary.unknowns.read_lines);
        }
    }

    /// Notes global accesses that wrote unknown data.
    pub(super) fn note_unknown_global(&mut self, acc: &[LaneAccess]) {
        if self.slicing() {
            lines_of(acc, &mut self.summary.unknowns.unknown_lines);
        }
    }

    /// A store to shared bytes `[addr, addr + len)` of `cta`: marks them unknown or known.
    pub(super) fn note_shared_store(&mut self, cta: &mut Cta, addr: u64, len: u32, unknown: bool) {
        if !self.slicing() {
            return;
        }
        let (a, e) = (addr as usize, addr as usize + len as usize);
        if unknown {
            if cta.shared_unknown.len() < e {
                cta.shared_unknown.resize(cta.shared.len().max(e), false);
            }
            cta.shared_unknown[a..e].fill(true);
        } else if cta.shared_unknown.len() > a {
            let e = e.min(cta.shared_unknown.len());
            cta.shared_unknown[a..e].fill(false);
        }
    }

    /// A read of shared bytes `[addr, addr + len)` whose value the slice needs: a conflict if
    /// an unknown store wrote one of them.
    pub(super) fn check_shared_read(&mut self, cta: &Cta, id: u32, addr: u64, len: u32) {
        let (a, e) = (addr as usize, addr as usize + len as usize);
        if !self.slicing() || cta.shared_unknown.len() <= a {
            return;
        }
        let e = e.min(cta.shared_unknown.len());
        if cta.shared_unknown[a..e].iter().any(|&u| u) {
            let why = format!(
                "{} reads shared memory at {addr:#x} that holds a value the slice does not \
                 compute into a register an address, branch or predicate depends on",
                self.where_is(id)
            );
            self.summary.unknowns.note(why);
        }
    }

    /// A local or param store of unknown data.
    pub(super) fn note_private_store(&mut self, cta: &mut Cta, unknown: bool) {
        if self.slicing() && unknown {
            cta.private_unknown = true;
        }
    }

    /// A local or param read whose value the slice needs.
    pub(super) fn check_private_read(&mut self, cta: &Cta, id: u32) {
        if self.slicing() && cta.private_unknown {
            let why = format!(
                "{} reads local or param memory where the CTA stored values the slice does \
                 not compute, into a register an address, branch or predicate depends on",
                self.where_is(id)
            );
            self.summary.unknowns.note(why);
        }
    }

    fn where_is(&self, id: u32) -> String {
        match self.program.instrs.get(id as usize) {
            Some(i) => format!("`{}` (PTX line {})", i.text, i.ptx_line),
            None => format!("instruction {id}"),
        }
    }
}
