//! Cache-semantics hazard detection (`ptxsim run --hazards`).
//!
//! The machine calls these hooks on every memory operation of a launch when hazards are on.
//! Four classes, each a behaviour the PTX ISA documents as unreliable:
//!
//! - **`stale-l1`** — "multiple L1 caches are not coherent for global data … the second thread
//!   may get stale L1 cache data" (Cache Operators, `.ca`): a load served from an SM's L1
//!   whose bytes differ from the coherent value. memsys flags such lanes; the tracker names the
//!   store that made them stale.
//! - **`nc-after-write`** — `ld.global.nc` reads "via non-coherent cache": reading bytes
//!   written earlier in the same launch is undefined.
//! - **`cp-async-incomplete`** — `cp.async` results are visible only after
//!   `cp.async.wait_group`/`wait_all` or an mbarrier completion ("No other synchronization
//!   mechanism guarantees the completion"): a shared-memory access to a copy's destination
//!   before it completed for the accessing thread (its own wait, or another thread's wait
//!   followed by a barrier), or a store to a source still being copied. The same for bulk and
//!   tensor copies (`cp.async.bulk{.tensor}` into shared memory, completed through an mbarrier;
//!   `wgmma` operand reads included) and for shared-memory writes to the source of a bulk store
//!   before its `cp.async.bulk.wait_group.read`.
//! - **`read-after-discard`** — `discard.global.L2` "behaves like a weak write of an
//!   *unstable indeterminate value*: reads of the same memory location will return an
//!   unstable indeterminate value until the location is written again" (PTX ISA, discard): a
//!   global load of bytes discarded and not written since, in this launch or an earlier
//!   kernel step of a multi-step launch ([`Tracker::carry_discards`]).
//! - **`weak-spin`** — a thread reads one location repeatedly with weak loads that may be
//!   cached in L1 while another CTA writes it: the loop may never see the write.
//!
//! Reports are deduplicated per (class, line of the access, line of the conflicting access)
//! with an occurrence count.

use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// The kinds of hazard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HazardClass {
    StaleL1,
    NcAfterWrite,
    CpAsyncIncomplete,
    WeakSpin,
    ReadAfterDiscard,
}

impl HazardClass {
    pub fn name(self) -> &'static str {
        match self {
            HazardClass::StaleL1 => "stale-l1",
            HazardClass::NcAfterWrite => "nc-after-write",
            HazardClass::CpAsyncIncomplete => "cp-async-incomplete",
            HazardClass::WeakSpin => "weak-spin",
            HazardClass::ReadAfterDiscard => "read-after-discard",
        }
    }

    /// What the class means, for reports.
    pub fn explanation(self) -> &'static str {
        match self {
            HazardClass::StaleL1 => {
                "a load was served from this SM's L1 with bytes another SM (or a write-through) \
                 has since changed; L1 caches are not coherent for global data"
            }
            HazardClass::NcAfterWrite => {
                "ld.global.nc read bytes written earlier in the same launch; the non-coherent \
                 path may return the old value"
            }
            HazardClass::CpAsyncIncomplete => {
                "shared memory was accessed before the asynchronous copy writing it completed for \
                 this thread (cp.async: wait_group/wait_all of the issuing thread, then a barrier \
                 for other threads, or an mbarrier wait; cp.async.bulk/TMA: a successful wait on \
                 its mbarrier), or the source of a bulk store was overwritten before \
                 cp.async.bulk.wait_group.read"
            }
            HazardClass::ReadAfterDiscard => {
                "a load read bytes that discard.global.L2 made undefined and nothing wrote \
                 since (the discarded writes never reached memory; write the data again or \
                 drop the discard)"
            }
            HazardClass::WeakSpin => {
                "a location is read repeatedly with weak loads that may hit L1 while another CTA \
                 writes it; the loop may never observe the write (use ld.acquire, ld.volatile \
                 or .cg)"
            }
        }
    }
}

/// Who performed an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Access {
    /// Instruction id (index into the program's instruction table).
    pub instr: u32,
    pub cta: [u32; 3],
    pub thread: [u32; 3],
}

/// One deduplicated hazard.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hazard {
    pub class: HazardClass,
    /// The first access that hit the hazard.
    pub access: Access,
    /// Address (global address, or shared-memory offset for cp-async-incomplete).
    pub address: u64,
    pub bytes: u32,
    /// "global" or "shared".
    pub space: &'static str,
    /// The earlier access it conflicts with (the store, or the cp.async), when known.
    pub conflict: Option<Access>,
    /// How many accesses hit this (class, line, conflicting line).
    pub count: u64,
    /// The kernel step (0-based, of a multi-step launch) the conflicting access ran in, when
    /// it was an earlier step's (a read-after-discard across kernels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conflict_step: Option<u32>,
}

/// Global-memory bookkeeping granule: hazards are tracked per 4-byte word.
const WORD: u64 = 4;

/// Loads of the same address by the same thread and instruction before it counts as a spin.
const SPIN_THRESHOLD: u32 = 4;

#[derive(Debug, Clone, Copy)]
struct Writer {
    access: Access,
    cta_linear: u64,
}

/// Per-launch hazard state.
#[derive(Default)]
pub struct Tracker {
    /// Last global writer of each word in this launch.
    writers: HashMap<u64, Writer>,
    /// (instr, global thread, address) → consecutive weak loads.
    spins: HashMap<(u32, u64, u64), u32>,
    /// Global source words of copies not landed yet → the cp.async that reads them, and how
    /// many pending copies read the word.
    pending_sources: HashMap<u64, (Access, u32)>,
    reports: BTreeMap<(HazardClass, u32, Option<u32>), Hazard>,
    /// Words discarded (`discard.global.L2`) and not written since → the discard, and the
    /// kernel step it ran in when it was an earlier step's ([`Tracker::carry_discards`]).
    discarded: HashMap<u64, (Access, Option<u32>)>,
    /// Discards of earlier kernel steps that reads of this one hit, by the earlier step:
    /// reported with the earlier step's index ([`Hazard::conflict_step`]).
    step: Option<u32>,
}

/// Discarded words an earlier kernel step left: pass to [`Tracker::carry_discards`].
#[derive(Debug, Clone, Default)]
pub struct DiscardedWords {
    words: HashMap<u64, (Access, Option<u32>)>,
}

impl DiscardedWords {
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The host wrote `len` bytes at `addr` (a memset or copy step): they are defined again.
    pub fn written(&mut self, addr: u64, len: u64) {
        if self.words.is_empty() || len == 0 {
            return;
        }
        let (first, last) = (addr / WORD, (addr + len - 1) / WORD);
        self.words.retain(|w, _| *w < first || *w > last);
    }
}

impl Tracker {
    fn report(
        &mut self,
        class: HazardClass,
        access: Access,
        address: u64,
        bytes: u32,
        space: &'static str,
        conflict: Option<Access>,
    ) {
        let key = (class, access.instr, conflict.map(|c| c.instr));
        self.reports
            .entry(key)
            .and_modify(|h| h.count += 1)
            .or_insert(Hazard {
                class,
                access,
                address,
                bytes,
                space,
                conflict,
                count: 1,
                conflict_step: None,
            });
    }

    /// Sets which kernel step this tracker's launch is (multi-step launches), and the words
    /// earlier steps discarded and nothing wrote since.
    pub fn carry_discards(&mut self, step: u32, carried: DiscardedWords) {
        self.step = Some(step);
        self.discarded = carried.words;
    }

    /// The words discarded and not written again at the end of this launch, tagged with its
    /// step, for the next kernel step.
    pub fn take_discards(&mut self) -> DiscardedWords {
        let step = self.step;
        DiscardedWords {
            words: std::mem::take(&mut self.discarded)
                .into_iter()
                .map(|(w, (a, s))| (w, (a, s.or(step))))
                .collect(),
        }
    }

    /// `discard.global.L2` of `bytes` at `addr` by one lane.
    pub(crate) fn discarded(&mut self, access: Access, addr: u64, bytes: u32) {
        for w in words(addr, bytes) {
            self.discarded.insert(w, (access, None));
        }
    }

    /// A global store by one lane.
    pub(crate) fn global_store(&mut self, access: Access, cta_linear: u64, addr: u64, bytes: u32) {
        let mut overwritten = None;
        for w in words(addr, bytes) {
            self.writers.insert(w, Writer { access, cta_linear });
            self.discarded.remove(&w);
            if let Some(&(copy, _)) = self.pending_sources.get(&w) {
                overwritten.get_or_insert(copy);
            }
        }
        if let Some(copy) = overwritten {
            // A store to bytes a cp.async has not finished reading.
            self.report(
                HazardClass::CpAsyncIncomplete,
                access,
                addr,
                bytes,
                "global",
                Some(copy),
            );
        }
    }

    /// A cp.async started reading `bytes` at `src`.
    pub(crate) fn copy_issued(&mut self, copy: Access, src: u64, bytes: u32) {
        if bytes == 0 {
            return;
        }
        for w in words(src, bytes) {
            self.pending_sources.entry(w).or_insert((copy, 0)).1 += 1;
        }
    }

    /// A cp.async that read `bytes` at `src` completed.
    pub(crate) fn copy_completed(&mut self, src: u64, bytes: u32) {
        if bytes == 0 {
            return;
        }
        for w in words(src, bytes) {
            if let Some(e) = self.pending_sources.get_mut(&w) {
                e.1 -= 1;
                if e.1 == 0 {
                    self.pending_sources.remove(&w);
                }
            }
        }
    }

    /// A global load by one lane; `weak_cached` for weak loads that may be served from L1.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn global_load(
        &mut self,
        access: Access,
        cta_linear: u64,
        thread_global: u64,
        addr: u64,
        bytes: u32,
        non_coherent: bool,
        weak_cached: bool,
        stale: bool,
    ) {
        if !self.discarded.is_empty() {
            if let Some(&(discard, step)) = words(addr, bytes).find_map(|w| self.discarded.get(&w))
            {
                let key = (
                    HazardClass::ReadAfterDiscard,
                    access.instr,
                    Some(discard.instr),
                );
                let h = self.reports.entry(key).or_insert(Hazard {
                    class: HazardClass::ReadAfterDiscard,
                    access,
                    address: addr,
                    bytes,
                    space: "global",
                    conflict: Some(discard),
                    count: 0,
                    conflict_step: step,
                });
                h.count += 1;
            }
        }
        let last_writer = words(addr, bytes)
            .filter_map(|w| self.writers.get(&w).copied())
            .next();
        let nc_after_write = non_coherent && last_writer.is_some();
        if let (true, Some(w)) = (nc_after_write, last_writer) {
            self.report(
                HazardClass::NcAfterWrite,
                access,
                addr,
                bytes,
                "global",
                Some(w.access),
            );
        }
        // A stale `ld.global.nc` after a store is the nc-after-write hazard just reported (the
        // read-only path's copy is not updated by stores, even the SM's own): one report.
        if stale && !nc_after_write {
            // The store that changed the coherent value after this SM cached the line: the
            // last writer from another CTA.
            let conflict = words(addr, bytes)
                .filter_map(|w| self.writers.get(&w))
                .find(|w| w.cta_linear != cta_linear)
                .map(|w| w.access);
            self.report(
                HazardClass::StaleL1,
                access,
                addr,
                bytes,
                "global",
                conflict,
            );
        }
        if weak_cached {
            let key = (access.instr, thread_global, addr);
            let n = self.spins.entry(key).or_insert(0);
            *n += 1;
            if *n >= SPIN_THRESHOLD {
                if let Some(w) = words(addr, bytes)
                    .filter_map(|w| self.writers.get(&w))
                    .find(|w| w.cta_linear != cta_linear)
                {
                    let conflict = w.access;
                    self.report(
                        HazardClass::WeakSpin,
                        access,
                        addr,
                        bytes,
                        "global",
                        Some(conflict),
                    );
                }
            }
        }
    }

    /// A shared-memory access by one lane to a copy's destination that the copy has not
    /// completed for (see the module overview); `copy` is the cp.async.
    pub(crate) fn shared_conflict(
        &mut self,
        access: Access,
        offset: u64,
        bytes: u32,
        copy: Access,
    ) {
        self.report(
            HazardClass::CpAsyncIncomplete,
            access,
            offset,
            bytes,
            "shared",
            Some(copy),
        );
    }

    /// Whether any hazard was found.
    pub fn is_empty(&self) -> bool {
        self.reports.is_empty()
    }

    /// The deduplicated reports, by class then line.
    pub fn into_reports(self) -> Vec<Hazard> {
        self.reports.into_values().collect()
    }
}

fn words(addr: u64, bytes: u32) -> impl Iterator<Item = u64> {
    let first = addr / WORD;
    let last = (addr + bytes.max(1) as u64 - 1) / WORD;
    first..=last
}

/// Renders hazards in the style of compute-sanitizer. `line` maps an instruction id to
/// "PTX line N (file:line)" and its text.
pub fn render_text(
    kernel: &str,
    hazards: &[Hazard],
    line: &dyn Fn(u32) -> (String, String),
) -> String {
    let mut out = String::new();
    for h in hazards {
        let (where_, text) = line(h.access.instr);
        out.push_str(&format!(
            "========= Hazard {} ({} occurrence{})\n",
            h.class.name(),
            h.count,
            if h.count == 1 { "" } else { "s" }
        ));
        out.push_str(&format!(
            "=========     {} of {} bytes at {} address 0x{:x}\n",
            if h.class == HazardClass::CpAsyncIncomplete && h.space == "global" {
                "Store"
            } else {
                "Access"
            },
            h.bytes,
            h.space,
            h.address
        ));
        out.push_str(&format!(
            "=========     at {where_} in kernel `{kernel}`: {text}\n"
        ));
        out.push_str(&format!(
            "=========     by thread ({},{},{}) in block ({},{},{})\n",
            h.access.thread[0],
            h.access.thread[1],
            h.access.thread[2],
            h.access.cta[0],
            h.access.cta[1],
            h.access.cta[2]
        ));
        if let Some(c) = h.conflict {
            let (cw, ct) = line(c.instr);
            let step = h
                .conflict_step
                .map(|s| format!(" in step {s}"))
                .unwrap_or_default();
            out.push_str(&format!(
                "=========     conflicts with {cw}{step} by thread ({},{},{}) in block ({},{},{}): {ct}\n",
                c.thread[0], c.thread[1], c.thread[2], c.cta[0], c.cta[1], c.cta[2]
            ));
        }
        out.push_str(&format!(
            "=========     {}\n=========\n",
            h.class.explanation()
        ));
    }
    let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
    for h in hazards {
        *counts.entry(h.class.name()).or_default() += h.count;
    }
    let list: Vec<String> = counts.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    out.push_str(&format!(
        "========= HAZARD SUMMARY: {} report{}{}\n",
        hazards.len(),
        if hazards.len() == 1 { "" } else { "s" },
        if list.is_empty() {
            String::new()
        } else {
            format!(" ({})", list.join(", "))
        }
    ));
    out
}
