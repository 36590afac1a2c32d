//! The target and version gates of the instructions outside the cache-control families
//! (`ptx_isa::insn_gates`), indexed once per module by opcode: most rows cannot fail on a
//! recent target and version, and most instructions have no row left to test.

use super::symbols::{self, Scopes, Sym};
use super::{codes, plain_subject, Checker};
use crate::Diagnostic;
use ptx_isa::insn_gates::Facts;
use ptx_isa::{GateKind, InsnGate, Modifier, Opcode, PtxVersion, SmTarget};
use ptx_syntax::ast::{Instruction, Operand};
use ptx_syntax::Span;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// An instruction's modifier words, as written.
pub(crate) type Words<'a> = SmallVec<[&'a str; 8]>;

/// A modifier as the rules hold it (the generic instruction's own `Spanned<SmolStr>`, or a
/// word with its span): the gate lookup reads them in place instead of collecting the words
/// of every instruction first.
pub(crate) trait WrittenWord {
    fn word(&self) -> &str;
}

impl WrittenWord for ptx_syntax::ast::ModifierWord {
    fn word(&self) -> &str {
        &self.value
    }
}

impl WrittenWord for (&str, Span) {
    fn word(&self) -> &str {
        self.0
    }
}

/// The gate rows of one known opcode that fail on the module's target and version.
pub(crate) struct OpcodeGates {
    /// In table order (ptxas's order within the opcode).
    rows: Vec<&'static InsnGate>,
    /// The special registers the rows test (`%cluster_ctarank` of a `%cluster_ctarank` or
    /// `!%cluster_ctarank` word): a row reads no other operand name, so only these are looked
    /// up, and an instruction that has none of them is answered by its shape.
    special_words: Vec<&'static str>,
}

/// Every opcode ptxas knows, with its failing rows.
pub(crate) struct GateIndex {
    /// By opcode (`Opcode as usize`: `Opcode::ALL`'s order).
    gates: Vec<OpcodeGates>,
    /// Which rows hold, by instruction shape: opcode, modifiers and operand count written as
    /// one key (`mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32#4`). Without special
    /// register operands these are all a row's condition reads, so the answer is the same for every
    /// instruction of a shape, and a module repeats a few shapes many times (evaluating the
    /// conditions was a tenth of `check`'s time).
    holding: FxHashMap<ShapeKey, SmallVec<[u16; 2]>>,
    /// The key being built (reused).
    key: ShapeKey,
}

/// Shapes remembered at most: past this the conditions are evaluated each time, so memory
/// stays bounded on a module of many distinct instructions.
const MAX_SHAPES: usize = 4096;

impl GateIndex {
    pub fn new(target: SmTarget, version: PtxVersion) -> Self {
        let gates: Vec<OpcodeGates> = Opcode::ALL
            .iter()
            .map(|&op| {
                let rows: Vec<&'static InsnGate> = ptx_isa::insn_gates::gates_of(op.name())
                    .iter()
                    .filter(|g| g.fails_on(target, version))
                    .collect();
                let mut special_words: Vec<&'static str> = rows
                    .iter()
                    .flat_map(|g| g.when.iter())
                    .flat_map(|w| w.trim_start_matches('!').split('|'))
                    .filter(|w| w.starts_with('%'))
                    .collect();
                special_words.sort_unstable();
                special_words.dedup();
                OpcodeGates {
                    rows,
                    special_words,
                }
            })
            .collect();
        GateIndex {
            gates,
            holding: FxHashMap::default(),
            key: ShapeKey::default(),
        }
    }
}

impl Checker<'_> {
    /// The target and version gates of an instruction outside the cache-control families
    /// (`ptx_isa::insn_gates`): ptxas's messages in its order, at the instruction's line.
    pub(super) fn insn_gates<M: WrittenWord>(
        &mut self,
        i: &Instruction,
        opcode: Opcode,
        mods: &[M],
        scopes: &Scopes,
    ) {
        let start = i.opcode_span.start.min(i.span.start);
        let (target, version) = (self.target, self.version);
        // Made once `directives` has set the target and version, at the first instruction.
        let index = self
            .gates
            .get_or_insert_with(|| GateIndex::new(target, version));
        let gates = Some(&index.gates[opcode as usize]).filter(|g| !g.rows.is_empty());
        if let Some(gates) = gates {
            let operands = i.op.operands();
            let mut special = Vec::new();
            if !gates.special_words.is_empty() {
                special_registers(operands, &gates.special_words, scopes, &mut special);
            }
            let words = || mods.iter().map(|m| m.word()).collect::<Words>();
            let holding = if !special.is_empty() {
                holding_rows(gates, &words(), operands.len(), special, target, version)
            } else {
                let key = &mut index.key.0;
                key.clear();
                push_word(key, opcode.name().as_bytes());
                for m in mods {
                    push_word(key, m.word().as_bytes());
                }
                // `#` is in no opcode or modifier: the key reads back one way.
                key.push(b'#');
                push_decimal(key, operands.len());
                index.key.pad();
                match index.holding.get(&index.key) {
                    Some(rows) => rows.clone(),
                    None => {
                        let rows = holding_rows(
                            gates,
                            &words(),
                            operands.len(),
                            Vec::new(),
                            target,
                            version,
                        );
                        if index.holding.len() < MAX_SHAPES {
                            index.holding.insert(index.key.clone(), rows.clone());
                        }
                        rows
                    }
                }
            };
            for &row in &holding {
                let g = gates.rows[usize::from(row)];
                self.diags
                    .push(gate_message(g, i.opcode_span, start, target, version));
            }
        }
        if matches!(opcode, Opcode::Shfl | Opcode::Vote)
            && !mods.iter().any(|m| super::is(m.word(), Modifier::Sync))
        {
            self.diags.extend(without_sync(
                opcode.name(),
                i.opcode_span,
                start,
                self.sm,
                self.version,
            ));
        }
    }
}

/// Appends `n` in decimal (`write!` goes through the formatting machinery, a tenth of the
/// gate lookup's time).
fn push_decimal(key: &mut Vec<u8>, n: usize) {
    if n >= 10 {
        push_decimal(key, n / 10);
    }
    key.push(b'0' + (n % 10) as u8);
}

/// An instruction shape's key (opcode, modifiers, `#`, operand count), zero-padded to whole
/// 16-byte chunks and compared chunk by chunk: the equality of two byte slices is a `memcmp`
/// call whose length branches mispredict as lengths vary. The padding keeps keys apart: a key
/// ends in a digit, so dropping the trailing zero bytes gives the key back.
#[derive(Clone, Default)]
struct ShapeKey(Vec<u8>);

/// The bytes' hash: equal keys (equal bytes) hash alike.
impl std::hash::Hash for ShapeKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.hash(state)
    }
}

impl ShapeKey {
    /// Pads the key with zero bytes to a multiple of 16 (one 16-byte store, cut back).
    fn pad(&mut self) {
        let len = self.0.len();
        self.0.extend_from_slice(&[0; 16]);
        self.0.truncate(len.next_multiple_of(16));
    }
}

impl PartialEq for ShapeKey {
    fn eq(&self, other: &Self) -> bool {
        let chunk = |c: &[u8]| {
            let mut w = [0u8; 16];
            w.copy_from_slice(c);
            u128::from_le_bytes(w)
        };
        self.0.len() == other.0.len()
            && (self.0.chunks_exact(16))
                .zip(other.0.chunks_exact(16))
                .all(|(a, b)| chunk(a) == chunk(b))
    }
}

impl Eq for ShapeKey {}

/// Appends `word` to `key`. A word of up to 16 bytes (every opcode and nearly every modifier)
/// is read with two overlapping loads, appended as one 16-byte store and the key cut back to
/// its length. `push_str` made a `memcpy` call per word, whose size branches mispredict as
/// the length changes from word to word: this executes a few more instructions but took
/// ~2 % off the time of checking a large module (BENCHMARKS.md, fifth pass).
fn push_word(key: &mut Vec<u8>, word: &[u8]) {
    let Some((n, bytes)) = short_word(word) else {
        key.extend_from_slice(word);
        return;
    };
    let len = key.len();
    key.extend_from_slice(&bytes.to_le_bytes());
    key.truncate(len + usize::from(n));
}

/// A word of up to 16 bytes as its length and its bytes in one little-endian `u128`, zero past
/// the length (so equal pairs are equal words), read with two overlapping loads instead of a
/// loop or a `memcpy` call; `None` for a longer word.
fn short_word(word: &[u8]) -> Option<(u8, u128)> {
    let n = word.len();
    if n > 16 {
        return None;
    }
    let u32_at = |at: usize| {
        u128::from(u32::from_le_bytes([
            word[at],
            word[at + 1],
            word[at + 2],
            word[at + 3],
        ]))
    };
    let u64_at = |at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&word[at..at + 8]);
        u128::from(u64::from_le_bytes(w))
    };
    // Byte `k` of `bytes` (little-endian) is `word[k]` for every `k < n`, and zero from `n`
    // on: the loads cover every byte, where two overlap they put the same byte in the same
    // place, and the highest one ends at byte `n - 1`.
    let bytes: u128 = match n {
        0 => 0,
        1..=3 => {
            u128::from(word[0])
                | u128::from(word[n / 2]) << (8 * (n / 2))
                | u128::from(word[n - 1]) << (8 * (n - 1))
        }
        4..=7 => u32_at(0) | u32_at(n - 4) << (8 * (n - 4)),
        _ => u64_at(0) | u64_at(n - 8) << (8 * (n - 8)),
    };
    Some((n as u8, bytes))
}

/// The indices (into `gates.rows`, in order) of the rows whose condition holds.
fn holding_rows(
    gates: &OpcodeGates,
    mods: &[&str],
    operands: usize,
    special: Vec<&str>,
    target: SmTarget,
    version: PtxVersion,
) -> SmallVec<[u16; 2]> {
    let facts = Facts {
        modifiers: mods,
        operands,
        special,
    };
    gates
        .rows
        .iter()
        .enumerate()
        .filter(|(_, g)| facts.holds(g.when, target, version))
        .map(|(row, _)| u16::try_from(row).expect("an opcode has fewer than 65536 gate rows"))
        .collect()
}

/// The message of a row that fails on `target` and `version` and whose condition holds.
fn gate_message(
    g: &InsnGate,
    opcode_span: Span,
    start: u32,
    target: SmTarget,
    version: PtxVersion,
) -> Diagnostic {
    let text = g
        .message(target, version)
        .expect("the index holds only rows that fail here");
    let subject = plain_subject(g.subject);
    let (code, message, help) = match g.kind {
        GateKind::Target(n) | GateKind::TargetBare(n) => (
            codes::TARGET_TOO_OLD,
            format!("{subject} needs sm_{n} or newer; the module targets {target}"),
            format!("use `.target sm_{n}` or a later target"),
        ),
        GateKind::Version(v) => (
            codes::VERSION_TOO_OLD,
            format!("{subject} needs PTX ISA {v} or later; the module is PTX {version}"),
            format!("use `.version {v}` or later"),
        ),
        GateKind::Arch(allowed) => (
            codes::NOT_ON_TARGET,
            format!("{subject} does not exist on {target}"),
            format!("targets that have it: {}", allowed.join(", ")),
        ),
        GateKind::Compile(_) => (
            codes::NOT_ON_TARGET,
            format!("{subject} cannot be compiled for {target}"),
            "compile for an architecture that has it (see docs/features.md)".to_string(),
        ),
    };
    Diagnostic::error(code, opcode_span, message, text)
        .with_help(help)
        .at_line_of(start)
}

/// `shfl`/`vote` without `.sync` (measured): an error on sm_70 and later from PTX 6.4,
/// otherwise a warning (and a deprecation warning from PTX 6.0).
fn without_sync(op: &str, span: Span, start: u32, sm: u32, version: PtxVersion) -> Vec<Diagnostic> {
    if sm >= 70 && version >= PtxVersion::new(6, 4) {
        return vec![Diagnostic::error(
            codes::NOT_ON_TARGET,
            span,
            format!("`{op}` without `.sync` does not exist on sm_70 and later from PTX 6.4"),
            format!("Instruction '{op}' without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4"),
        )
        .with_help(format!("write `{op}.sync` with a member mask"))
        .at_line_of(start)];
    }
    let mut out = vec![Diagnostic::warning(
        codes::NOT_ON_TARGET,
        span,
        format!("`{op}` without `.sync` is unpredictable on sm_70 and later"),
        format!("Instruction '{op}' without '.sync' may produce unpredictable results on sm_70 and later architectures"),
    )
    .with_help(format!("write `{op}.sync` with a member mask"))
    .at_line_of(start)];
    if version >= PtxVersion::new(6, 0) {
        out.push(
            Diagnostic::warning(
                codes::NOT_ON_TARGET,
                span,
                format!("`{op}` without `.sync` is deprecated"),
                format!("Instruction '{op}' without '.sync' is deprecated since PTX ISA version 6.0 and will be discontinued in a future PTX ISA version"),
            )
            .with_help(format!("write `{op}.sync` with a member mask"))
            .at_line_of(start),
        );
    }
    out
}

/// Special registers among the operands (`%cluster_ctarank`, `%clusterid` of `%clusterid.x`):
/// `%` names that are not declared registers, of those in `words` (the ones the rows test;
/// whether another name is among them changes no row's answer).
fn special_registers<'o>(
    ops: &'o [Operand],
    words: &[&str],
    scopes: &Scopes,
    out: &mut Vec<&'o str>,
) {
    for o in ops {
        match o {
            Operand::Name(n) if n.name.starts_with('%') => {
                let base = n.name.split('.').next().unwrap_or("");
                if !words.contains(&base) {
                    continue;
                }
                // The cheap test first: a special register counts even where a scope
                // declares its name.
                let declared =
                    !symbols::is_special(base) && matches!(scopes.lookup(base), Some(Sym::Reg(_)));
                if !declared {
                    out.push(base);
                }
            }
            Operand::Vector(v, _) | Operand::Bracket(v, _) | Operand::List(v, _) => {
                special_registers(v, words, scopes, out)
            }
            Operand::Not(inner, _) => {
                special_registers(std::slice::from_ref(&**inner), words, scopes, out)
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key of a word list is the words' concatenation, at every length `push_word` has a
    /// path for (the short, 4-7, 8-16 byte loads, and the long copy).
    #[test]
    fn push_word_appends_the_exact_bytes() {
        let text: Vec<u8> = (0..40u8).map(|k| b'a' + k % 26).collect();
        for first in 0..=20 {
            for second in 0..=20 {
                let (a, b) = (&text[..first], &text[3..3 + second]);
                let mut key = b"mma".to_vec();
                push_word(&mut key, a);
                push_word(&mut key, b);
                let want: Vec<u8> = [&b"mma"[..], a, b].concat();
                assert_eq!(key, want, "words of {first} and {second} bytes");
            }
        }
    }

    /// The index has every opcode's rows, at the opcode's place.
    #[test]
    fn every_opcode_has_its_rows_in_place() {
        let index = GateIndex::new(SmTarget::parse("sm_50").unwrap(), PtxVersion::new(6, 0));
        for &op in Opcode::ALL {
            let rows = &index.gates[op as usize].rows;
            assert!(rows.iter().all(|g| g.opcode == op.name()), "{op}");
        }
        assert!(!index.gates[Opcode::Redux as usize].rows.is_empty());
    }

    /// Padded keys are equal exactly when the keys are, across the 16-byte chunk boundaries.
    #[test]
    fn shape_keys_compare_as_their_text() {
        let keys: Vec<String> = (0..40)
            .flat_map(|n| ["a", "b"].map(|tail| format!("{}{tail}#{}", "x".repeat(n), n % 3)))
            .collect();
        for a in &keys {
            for b in &keys {
                let (mut ka, mut kb) = (
                    ShapeKey(a.clone().into_bytes()),
                    ShapeKey(b.clone().into_bytes()),
                );
                ka.pad();
                kb.pad();
                assert_eq!(ka.0.len() % 16, 0);
                assert_eq!(ka == kb, a == b, "{a} vs {b}");
            }
        }
    }
}
