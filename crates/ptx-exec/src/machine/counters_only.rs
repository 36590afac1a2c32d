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
use rustc_hash::FxHashMap;

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
    /// The registers the slice needs, and the register-file entries they were folded onto
    /// (`Slice::registers`).
    pub registers: (u32, u32),
    /// Why the launch ran again in full mode (`None`: the counters-only run stood).
    pub restarted: Option<String>,
}

impl CountersOnly {
    /// What a counters-only launch of a kernel of `instructions` instructions does with its
    /// `slice` (`None`: it cannot be sliced and runs in full), before it runs.
    pub(crate) fn of(slice: Option<&Slice>, instructions: u32) -> CountersOnly {
        CountersOnly {
            sliced: slice.is_some(),
            skipped: slice.map_or(0, |s| s.skipped() as u32),
            instructions,
            registers: slice.map_or((0, 0), |s| s.registers_held()),
            restarted: None,
        }
    }

    /// One line for a run summary.
    pub fn describe(&self) -> String {
        match (&self.restarted, self.sliced) {
            (Some(why), _) => format!("counters-only: restarted in full mode: {why}"),
            (None, true) => format!(
                "counters-only: {} of {} instructions skipped, {} needed registers in {} \
                 register-file entries (values not computed; counters and time estimate as in a \
                 full run)",
                self.skipped, self.instructions, self.registers.0, self.registers.1
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
    pub read_lines: LineBits,
    /// Global lines written with unknown data.
    pub unknown_lines: LineBits,
    /// The first conflict found in shared, local or param memory (the least by text when
    /// several machines found one, so the same for every thread count).
    pub conflict: Option<String>,
}

impl Unknowns {
    pub(super) fn merge(&mut self, other: Unknowns) {
        self.read_lines.union(&other.read_lines);
        self.unknown_lines.union(&other.unknown_lines);
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
    pub fn reads_earlier_unknown(&self, earlier: &LineBits) -> Option<u64> {
        self.read_lines
            .sorted()
            .find(|l| earlier.contains(l))
            .map(|l| l << LINE_SHIFT)
    }

    /// The reason to run the launch again in full mode, if any: a conflict, or a global line
    /// both read and written unknown.
    pub fn restart_reason(&self) -> Option<String> {
        if let Some(c) = &self.conflict {
            return Some(c.clone());
        }
        let both = |set: &LineBits| {
            self.read_lines
                .sorted()
                .find(|l| set.contains(l))
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

/// A set of line numbers as a bitmap of 4,096-line pages (512 KiB of address space each): a
/// global read sets a bit in the page it fell in last time, almost always, where a hash set
/// hashed and probed for every line (the triad, all loads, ran 10 % slower in counters-only
/// mode than in full for it).
#[derive(Debug, Clone, Default)]
pub struct LineBits {
    /// Page number → index in `bits`.
    index: FxHashMap<u64, u32>,
    bits: Vec<[u64; 64]>,
    /// The page of the last insertion and its index.
    last: Option<(u64, u32)>,
}

impl LineBits {
    const PAGE_SHIFT: u32 = 12;

    fn insert(&mut self, line: u64) {
        let page = line >> Self::PAGE_SHIFT;
        let at = match self.last {
            Some((p, i)) if p == page => i,
            _ => {
                let next = self.bits.len() as u32;
                let i = *self.index.entry(page).or_insert(next);
                if i == next {
                    self.bits.push([0; 64]);
                }
                self.last = Some((page, i));
                i
            }
        };
        let bit = (line & ((1 << Self::PAGE_SHIFT) - 1)) as usize;
        self.bits[at as usize][bit / 64] |= 1 << (bit % 64);
    }

    /// Whether `line` is in the set.
    pub fn contains(&self, line: &u64) -> bool {
        let bit = (line & ((1 << Self::PAGE_SHIFT) - 1)) as usize;
        self.index
            .get(&(line >> Self::PAGE_SHIFT))
            .is_some_and(|&i| self.bits[i as usize][bit / 64] >> (bit % 64) & 1 != 0)
    }

    /// Adds the lines of `other`.
    pub fn union(&mut self, other: &LineBits) {
        for (&page, &i) in &other.index {
            for (w, &word) in other.bits[i as usize].iter().enumerate() {
                let mut bits = word;
                while bits != 0 {
                    let b = bits.trailing_zeros() as u64;
                    bits &= bits - 1;
                    self.insert((page << Self::PAGE_SHIFT) | (w as u64 * 64 + b));
                }
            }
        }
    }

    /// The lines, in increasing order.
    pub fn sorted(&self) -> impl Iterator<Item = u64> + '_ {
        let mut pages: Vec<(u64, u32)> = self.index.iter().map(|(&p, &i)| (p, i)).collect();
        pages.sort_unstable();
        pages.into_iter().flat_map(move |(page, i)| {
            let words = &self.bits[i as usize];
            (0..1u64 << Self::PAGE_SHIFT)
                .filter(move |&b| words[(b / 64) as usize] >> (b % 64) & 1 != 0)
                .map(move |b| (page << Self::PAGE_SHIFT) | b)
        })
    }
}

impl std::iter::Extend<u64> for LineBits {
    fn extend<I: IntoIterator<Item = u64>>(&mut self, lines: I) {
        lines.into_iter().for_each(|l| self.insert(l));
    }
}

/// The 128-byte lines of `runs` (an access's `ByteRuns`) into `set`.
fn lines_of_runs(runs: &[(u64, u64)], set: &mut LineBits) {
    let mut last = u64::MAX;
    for &(start, end) in runs {
        for line in (start >> LINE_SHIFT).max(last.wrapping_add(1))..=(end - 1) >> LINE_SHIFT {
            set.insert(line);
            last = line;
        }
        last = last.max((end - 1) >> LINE_SHIFT);
    }
}

/// The 128-byte lines the lanes of `acc` touch (a lane of no bytes: its address's line) into
/// `set`.
fn lines_of(acc: &[LaneAccess], set: &mut LineBits) {
    let mut runs = super::sectors::ByteRuns::new();
    if super::sectors::byte_runs(acc, &mut runs) {
        return lines_of_runs(&runs, set);
    }
    let mut last = u64::MAX;
    for a in acc {
        let first = a.addr >> LINE_SHIFT;
        let end = (a.addr + u64::from(a.bytes.max(1)) - 1) >> LINE_SHIFT;
        // Most lanes of a coalesced access fall in the line the lane before them did.
        if first == last && end == last {
            continue;
        }
        let mut line = first;
        loop {
            if line != last {
                set.insert(line);
                last = line;
            }
            if line >= end {
                break;
            }
            line += 1;
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

    /// Notes global accesses that read (`runs`: their `ByteRuns`, when they have them).
    #[inline]
    pub(super) fn note_global_reads(&mut self, acc: &[LaneAccess], runs: Option<&[(u64, u64)]>) {
        if self.slicing() {
            match runs {
                Some(runs) => lines_of_runs(runs, &mut self.summary.unknowns.read_lines),
                None => lines_of(acc, &mut self.summary.unknowns.read_lines),
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_bits_hold_lines_across_pages_in_order() {
        let lines = [5u64, 4095, 4096, 1 << 40, 7, 4096 * 3 + 64, 5];
        let mut a = LineBits::default();
        a.extend(lines[..4].iter().copied());
        let mut b = LineBits::default();
        b.extend(lines[4..].iter().copied());
        a.union(&b);
        let mut want: Vec<u64> = lines.to_vec();
        want.sort_unstable();
        want.dedup();
        assert_eq!(a.sorted().collect::<Vec<_>>(), want);
        assert!(want.iter().all(|l| a.contains(l)));
        assert!(!a.contains(&6) && !a.contains(&4097) && !a.contains(&((1 << 40) + 1)));
        assert_eq!(b.sorted().collect::<Vec<_>>(), vec![5, 7, 4096 * 3 + 64]);
    }

    /// The lines `lines_of` notes (through byte runs or lane by lane) against each lane's
    /// lines counted one by one, for lanes in order, out of order, overlapping, of no bytes.
    #[test]
    fn lines_of_notes_every_line_a_lane_touches() {
        let mut next = super::super::below(0x2545_F491_4F6C_DD1D);
        for case in 0..2000 {
            let lanes = 1 + next(32);
            let base = (1 << 20) + next(3) * 64;
            let acc: Vec<LaneAccess> = (0..lanes)
                .map(|l| {
                    let bytes = [0u32, 4, 16, 64, 200][next(5) as usize];
                    let addr = match case % 3 {
                        0 => base + l * 16,
                        1 => base + l * 100 + next(8),
                        _ => base + next(4096),
                    };
                    LaneAccess::new(addr, bytes)
                })
                .collect();
            let mut want: Vec<u64> = acc
                .iter()
                .flat_map(|a| {
                    (a.addr >> LINE_SHIFT)
                        ..=((a.addr + u64::from(a.bytes.max(1)) - 1) >> LINE_SHIFT)
                })
                .collect();
            want.sort_unstable();
            want.dedup();
            let mut set = LineBits::default();
            lines_of(&acc, &mut set);
            assert_eq!(set.sorted().collect::<Vec<_>>(), want, "{acc:?}");
        }
    }
}
