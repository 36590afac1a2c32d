//! Minimum `.target` and `.version` of the instructions other than the cache-control ones
//! (`redux.sync` needs sm_80, `mma….m16n8k16` sm_80 and PTX 7.0, `wgmma` exists only on
//! sm_90a, …), as ptxas 13.5 enforces them.
//!
//! [`INSN_GATES`] has one row per message ptxas prints for an instruction whose target or
//! version is too old, in ptxas's order within the opcode. The rows are measured: every
//! instruction form of the real corpus and of the PTX ISA's common forms was assembled by real
//! ptxas over a sweep of targets and versions (`tests/parity/gen_gates.py`, which also derives
//! this table — feature by feature, with the condition under which ptxas prints each message —
//! and writes `insn_gates_table.rs`). `ptx-check` reports the rows' messages and
//! `docs/features.md` lists them.
//!
//! A row applies to an instruction when its opcode (the first word) is [`InsnGate::opcode`]
//! and every word of [`InsnGate::when`] holds, see [`Facts::holds`].

use crate::target::{PtxVersion, SmTarget};

pub use crate::insn_gates_table::INSN_GATES;

/// What a row checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateKind {
    /// `«subject» requires .target sm_«N» or higher`.
    Target(u32),
    /// `«subject» requires .target «N» or higher` (ptxas's wording for `wmma.mma`).
    TargetBare(u32),
    /// `«subject» requires PTX ISA .version «V» or later`.
    Version(PtxVersion),
    /// `«subject» not supported on .target '«target»'` unless the target is one of these.
    Arch(&'static [&'static str]),
    /// `«subject» cannot be compiled for architecture '«arch»'` on these targets (ptxas is run
    /// with `-arch` = the target).
    Compile(&'static [&'static str]),
}

/// One message of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InsnGate {
    pub opcode: &'static str,
    /// Every word must hold: `.x` (modifier present), `!.x` (absent), `.x|.y` (either),
    /// `t0.f16` (the first type modifier is `.f16`), `#3` (three operands), `%name` (the
    /// special register `%name` is an operand), `@sm=89` / `@v>=8.1` (target / version).
    pub when: &'static [&'static str],
    pub kind: GateKind,
    /// The subject of ptxas's message (`Feature 'redux'`, `Instruction 'wgmma.fence'`, …).
    pub subject: &'static str,
    /// One probed instruction the row was measured on (for the docs).
    pub evidence: &'static str,
}

/// The words a row condition can test, for one instruction.
#[derive(Debug, Clone, Default)]
pub struct Facts<'a> {
    /// The modifiers as written, with their dots.
    pub modifiers: &'a [&'a str],
    /// Operand count (top level).
    pub operands: usize,
    /// Special registers among the operands (`%cluster_ctarank`, without `.x`).
    pub special: Vec<&'a str>,
}

/// The type words whose order the `tN` conditions test.
pub const TYPE_WORDS: &[&str] = &[
    ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32",
    ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".tf32", ".pred", ".e4m3",
    ".e5m2", ".e4m3x2", ".e5m2x2", ".s4", ".u4", ".b1", ".f32x2", ".s16x2", ".u16x2",
];

impl Facts<'_> {
    fn has(&self, word: &str) -> bool {
        if let Some(n) = word.strip_prefix('#') {
            return n.parse() == Ok(self.operands);
        }
        if word.starts_with('%') {
            return self.special.contains(&word);
        }
        if let Some(rest) = word.strip_prefix('t') {
            if let Some(dot) = rest.find('.') {
                if let Ok(i) = rest[..dot].parse::<usize>() {
                    let ty = &rest[dot..];
                    return self
                        .modifiers
                        .iter()
                        .filter(|m| TYPE_WORDS.contains(m))
                        .nth(i)
                        .is_some_and(|m| *m == ty);
                }
            }
        }
        self.modifiers.contains(&word)
    }

    /// True if every word of `when` holds for this instruction on `target` and `version`
    /// (`version` as ptxas compares it, see [`gate_version`]).
    pub fn holds(&self, when: &[&str], target: SmTarget, version: PtxVersion) -> bool {
        when.iter().all(|w| {
            if let Some(cond) = w.strip_prefix('@') {
                return target_condition(cond, target.number, gate_version(version));
            }
            if let Some(neg) = w.strip_prefix('!') {
                return !self.has(neg);
            }
            w.split('|').any(|alt| self.has(alt))
        })
    }
}

fn target_condition(cond: &str, sm: u32, version: PtxVersion) -> bool {
    let (what, rest) = if let Some(r) = cond.strip_prefix("sm") {
        ("sm", r)
    } else if let Some(r) = cond.strip_prefix('v') {
        ("v", r)
    } else {
        return false;
    };
    let (op, value) = ["<=", ">=", "!=", "<", ">", "="]
        .iter()
        .find_map(|op| rest.strip_prefix(op).map(|v| (*op, v)))
        .unwrap_or(("=", rest));
    let ord = if what == "sm" {
        match value.parse::<u32>() {
            Ok(n) => sm.cmp(&n),
            Err(_) => return false,
        }
    } else {
        match PtxVersion::parse(value) {
            Some(v) => version.cmp(&v),
            None => return false,
        }
    };
    use core::cmp::Ordering::*;
    match op {
        "<" => ord == Less,
        "<=" => ord != Greater,
        ">" => ord == Greater,
        ">=" => ord != Less,
        "!=" => ord != Equal,
        _ => ord == Equal,
    }
}

/// The version the gates compare: ptxas treats `.version 5.1` as 6.0 (measured: every
/// "requires PTX ISA .version 6.0" gate passes at 5.1).
pub fn gate_version(v: PtxVersion) -> PtxVersion {
    if v == PtxVersion::new(5, 1) {
        PtxVersion::new(6, 0)
    } else {
        v
    }
}

/// The `-arch` ptxas is run with for a target (the target itself, sm_75 for older ones).
pub fn arch_for(target: &str, number: u32) -> String {
    if number >= 75 {
        target.to_string()
    } else {
        "sm_75".to_string()
    }
}

impl InsnGate {
    /// True if `target` and `version` fall short of this row (it prints its message for an
    /// instruction its condition holds for); [`InsnGate::message`] is `Some` exactly then.
    pub fn fails_on(&self, target: SmTarget, version: PtxVersion) -> bool {
        match self.kind {
            GateKind::Target(n) | GateKind::TargetBare(n) => target.number < n,
            GateKind::Version(v) => gate_version(version) < v,
            GateKind::Arch(allowed) => !allowed.contains(&target.to_string().as_str()),
            GateKind::Compile(on) => on.contains(&target.to_string().as_str()),
        }
    }

    /// ptxas's message if this row fails for `target` (as written, e.g. `sm_90a`) and
    /// `version`.
    pub fn message(&self, target: SmTarget, version: PtxVersion) -> Option<String> {
        if !self.fails_on(target, version) {
            return None;
        }
        let name = target.to_string();
        match self.kind {
            GateKind::Target(n) => Some(format!(
                "{} requires .target sm_{n} or higher",
                self.subject
            )),
            GateKind::TargetBare(n) => {
                Some(format!("{} requires .target {n} or higher", self.subject))
            }
            GateKind::Version(v) => Some(format!(
                "{} requires PTX ISA .version {v} or later",
                self.subject
            )),
            GateKind::Arch(_) => Some(format!(
                "{} not supported on .target '{name}'",
                self.subject
            )),
            GateKind::Compile(_) => Some(format!(
                "{} cannot be compiled for architecture '{}'",
                self.subject,
                arch_for(&name, target.number)
            )),
        }
    }
}

/// The rows of one opcode, in table order: a binary search, as the generator writes the
/// table sorted by opcode (each opcode's rows together, in ptxas's order).
pub fn gates_of(opcode: &str) -> &'static [InsnGate] {
    let start = INSN_GATES.partition_point(|g| g.opcode < opcode);
    let len = INSN_GATES[start..].partition_point(|g| g.opcode == opcode);
    &INSN_GATES[start..start + len]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(mods: &'a [&'a str], n: usize) -> Facts<'a> {
        Facts {
            modifiers: mods,
            operands: n,
            special: Vec::new(),
        }
    }

    #[test]
    fn redux_needs_sm80_and_ptx70() {
        let f = facts(&[".sync", ".add", ".s32"], 3);
        let t = SmTarget::parse("sm_75").unwrap();
        let msgs: Vec<String> = gates_of("redux")
            .iter()
            .filter(|g| f.holds(g.when, t, PtxVersion::new(6, 5)))
            .filter_map(|g| g.message(t, PtxVersion::new(6, 5)))
            .collect();
        assert_eq!(
            msgs,
            [
                "Feature 'redux' requires .target sm_80 or higher",
                "Feature 'redux' requires PTX ISA .version 7.0 or later"
            ]
        );
    }

    #[test]
    fn conditions() {
        let f = facts(&[".rn", ".f16", ".bf16"], 2);
        let t = SmTarget::parse("sm_89").unwrap();
        let v = PtxVersion::new(8, 0);
        assert!(f.holds(&[".f16|.f32", "!.relu", "t0.f16", "t1.bf16", "#2"], t, v));
        assert!(!f.holds(&["t0.bf16"], t, v));
        assert!(f.holds(&["@sm=89", "@v<8.1"], t, v));
        assert!(!f.holds(&["@v>=8.1"], t, v));
        assert_eq!(gate_version(PtxVersion::new(5, 1)), PtxVersion::new(6, 0));
    }

    #[test]
    fn table_is_sorted_by_opcode_for_gates_of() {
        for w in INSN_GATES.windows(2) {
            assert!(
                w[0].opcode <= w[1].opcode,
                "{} before {}",
                w[0].opcode,
                w[1].opcode
            );
        }
        assert_eq!(
            gates_of("redux").len(),
            INSN_GATES.iter().filter(|g| g.opcode == "redux").count()
        );
        assert!(gates_of("zzz").is_empty() && gates_of("").is_empty());
    }

    #[test]
    fn every_row_is_well_formed() {
        for g in INSN_GATES {
            assert!(!g.opcode.is_empty() && !g.subject.is_empty());
            for w in g.when {
                assert!(!w.is_empty() && !w.contains('?'), "{g:?}");
            }
        }
    }
}
