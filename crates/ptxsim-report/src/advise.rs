//! `ptxsim advise`: rules in the spirit of Nsight Compute's guided analysis, applied to what
//! the model saw of one run, each a [`Suggestion`] naming the PTX line and its evidence. A
//! suggestion that is a hint rewrite carries it in `compare --variant` form; the CLI runs it
//! and fills [`Suggestion::measured`] with what it changed.
//!
//! Rules (ids as in the JSON report; docs/report.md lists them):
//!
//! | id | fires when | rewrite |
//! |---|---|---|
//! | `uncoalesced` | a line's lanes touch ≥ 1.5× the ideal sectors | none (the access pattern) |
//! | `l1-fill-unused` | a load fills L1 and no access ever hits it | `line:N=cg` |
//! | `stream-evicts-reused` | a line streams (no L2 hits) while another line's L2 reuse misses | `line:S=evict_first+line:R=evict_last` |
//! | `evict-last-capped` | evict-last requests were made normal for want of set-aside | none (`--persisting-l2`) |
//! | `prefetch-unused` | a line's L2 prefetch fills exceed the sectors its loads read | `line:N=none` |
//! | `hint-ignored` | a `prefetch{u}.L1` (the H100 keeps no prefetched line in L1 for later loads) | none (`prefetch.global.L2`) |
//! | `read-only-nc` | a plain global load of an argument the launch never writes | `line:N=nc` |

use crate::metrics::{self, MetricValue, MetricValues};
use crate::model::{LineRow, VariantReport};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Every rule id, in the order suggestions are listed.
pub const RULES: &[&str] = &[
    "uncoalesced",
    "l1-fill-unused",
    "stream-evicts-reused",
    "evict-last-capped",
    "prefetch-unused",
    "hint-ignored",
    "read-only-nc",
];

/// Requested / ideal sectors at or above which a line is reported uncoalesced.
pub const UNCOALESCED_RATIO: f64 = 1.5;
/// L2 hit rate (%) at or below which a line counts as streaming.
pub const STREAM_HIT_PCT: f64 = 5.0;

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suggestion {
    /// A rule id of [`RULES`].
    pub rule: String,
    pub ptx_line: u32,
    /// The user's line (`k.cu:26 (in annotated_ptr.h:64)`), `-` without line information.
    pub source: String,
    /// What the model saw, in words and numbers.
    pub evidence: String,
    /// What to do, in words.
    pub advice: String,
    /// `NAME=REWRITE` as `compare --variant` takes it, or `None` when the fix is not a hint.
    pub rewrite: Option<String>,
    /// What the rewrite changed against the original (empty without a rewrite).
    pub measured: Measured,
    /// Multi-step launches: the kernel step whose run the rule read (its index in the launch
    /// file) and its kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
}

impl Suggestion {
    /// `PTX line 42 (k.cu:26)`, with `step 1 (kernel k), ` before it on a multi-step launch.
    pub fn where_text(&self) -> String {
        let at = format!("PTX line {} ({})", self.ptx_line, self.source);
        match (self.step, &self.kernel) {
            (Some(i), Some(k)) => format!("step {i} (kernel {k}), {at}"),
            (Some(i), None) => format!("step {i}, {at}"),
            _ => at,
        }
    }
}

/// Key figures of a rewrite's run against the original's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ns: Option<Change>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dram_bytes: Option<Change>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l1_hit_rate_pct: Option<Change>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub l2_hit_rate_pct: Option<Change>,
    /// `identical` or `different` (the variant's outputs against the original's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outputs: Option<String>,
    /// Why the rewrite could not be measured (it failed to apply or to run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A figure before and after.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub original: f64,
    pub rewritten: f64,
}

fn value(m: &MetricValues, name: &str) -> Option<f64> {
    metrics::get(m, name).map(MetricValue::as_f64)
}

fn count(m: &MetricValues, name: &str) -> u64 {
    match metrics::get(m, name) {
        Some(MetricValue::Count(c)) => c,
        _ => 0,
    }
}

impl Measured {
    /// The figures of `rewritten` against `original`.
    pub fn of(original: &VariantReport, rewritten: &VariantReport) -> Measured {
        let pair = |f: &dyn Fn(&VariantReport) -> Option<f64>| {
            Some(Change {
                original: f(original)?,
                rewritten: f(rewritten)?,
            })
        };
        let dram = |v: &VariantReport| {
            Some(
                (count(&v.totals, "dram__bytes_read.sum")
                    + count(&v.totals, "dram__bytes_write.sum")) as f64,
            )
        };
        Measured {
            time_ns: pair(&|v: &VariantReport| v.time.as_ref().map(|t| t.ns)),
            dram_bytes: pair(&dram),
            l1_hit_rate_pct: pair(&|v: &VariantReport| {
                value(&v.totals, "l1tex__t_sector_hit_rate.pct")
            }),
            l2_hit_rate_pct: pair(&|v: &VariantReport| {
                value(&v.totals, "lts__t_sector_hit_rate.pct")
            }),
            outputs: Some(rewritten.outputs.status.clone()),
            error: None,
        }
    }

    /// The figures of a rewrite over a whole multi-step launch: each kernel step's original
    /// and rewritten report (`pairs`), time and DRAM bytes summed, hit rates as hits over
    /// lookups summed over the steps; `outputs` the launch's buffers after its last step.
    pub fn over_steps(pairs: &[(&VariantReport, &VariantReport)], outputs: &str) -> Measured {
        let sum = |f: &dyn Fn(&VariantReport) -> Option<f64>, pick: usize| {
            pairs.iter().try_fold(0.0, |acc, p| {
                Some(acc + f(if pick == 0 { p.0 } else { p.1 })?)
            })
        };
        let pair = |f: &dyn Fn(&VariantReport) -> Option<f64>| {
            Some(Change {
                original: sum(f, 0)?,
                rewritten: sum(f, 1)?,
            })
        };
        let rate = |hit: &str, miss: &str| {
            let of = |pick: usize| {
                let hits = sum(
                    &|v: &VariantReport| Some(count(&v.totals, hit) as f64),
                    pick,
                )?;
                let misses = sum(
                    &|v: &VariantReport| Some(count(&v.totals, miss) as f64),
                    pick,
                )?;
                (hits + misses > 0.0).then(|| 100.0 * hits / (hits + misses))
            };
            Some(Change {
                original: of(0)?,
                rewritten: of(1)?,
            })
        };
        Measured {
            time_ns: pair(&|v: &VariantReport| v.time.as_ref().map(|t| t.ns)),
            dram_bytes: pair(&|v: &VariantReport| {
                Some(
                    (count(&v.totals, "dram__bytes_read.sum")
                        + count(&v.totals, "dram__bytes_write.sum")) as f64,
                )
            }),
            l1_hit_rate_pct: rate(
                "l1tex__t_sectors_lookup_hit.sum",
                "l1tex__t_sectors_lookup_miss.sum",
            ),
            l2_hit_rate_pct: rate(
                "lts__t_sectors_lookup_hit.sum",
                "lts__t_sectors_lookup_miss.sum",
            ),
            outputs: Some(outputs.to_string()),
            error: None,
        }
    }

    /// Whether nothing was measured (a suggestion without a rewrite).
    pub fn is_empty(&self) -> bool {
        *self == Measured::default()
    }
}

/// The opcode with its qualifiers (`ld.global.v4.b32`), past a guard predicate (`@%p1`).
fn opcode(text: &str) -> &str {
    let mut words = text.split_whitespace();
    match words.next() {
        Some(w) if w.starts_with('@') => words.next().unwrap_or(""),
        Some(w) => w,
        None => "",
    }
}

/// Whether a line's instruction is a weak global (or generic) load a hint can change.
fn plain_load(text: &str) -> bool {
    let op = opcode(text);
    op.starts_with("ld.")
        && !op.starts_with("ld.param")
        && !op.starts_with("ld.shared")
        && !op.starts_with("ld.local")
        && !op.starts_with("ld.const")
        && ![
            ".volatile",
            ".relaxed",
            ".acquire",
            ".mmio",
            ".cv",
            ".cg",
            ".nc",
        ]
        .iter()
        .any(|q| op.contains(q))
}

fn suggestion(
    rule: &str,
    row: &LineRow,
    evidence: String,
    advice: &str,
    rewrite: Option<String>,
) -> Suggestion {
    Suggestion {
        rule: rule.into(),
        ptx_line: row.ptx_line,
        source: row.where_text(),
        evidence,
        advice: advice.into(),
        rewrite,
        measured: Measured::default(),
        step: None,
        kernel: None,
    }
}

/// `uncoalesced`: lanes touch many more sectors than their bytes need.
fn uncoalesced(v: &VariantReport, out: &mut Vec<Suggestion>) {
    for row in &v.lines {
        let got = count(&row.metrics, metrics::SECTORS_METRIC);
        let ideal = count(&row.metrics, metrics::IDEAL_SECTORS_METRIC);
        if ideal == 0 || (got as f64) < UNCOALESCED_RATIO * ideal as f64 {
            continue;
        }
        out.push(suggestion(
            "uncoalesced",
            row,
            format!(
                "{got} sectors touched where {ideal} would hold the bytes accessed ({:.1}x); {} sectors of excess traffic",
                got as f64 / ideal as f64,
                got - ideal
            ),
            "make consecutive lanes access consecutive addresses (transpose through shared memory, or change the data layout)",
            None,
        ));
    }
}

/// `l1-fill-unused`: a load allocates in L1 and never hits there.
fn l1_fill_unused(v: &VariantReport, out: &mut Vec<Suggestion>) {
    for row in &v.lines {
        let sectors = count(&row.metrics, "l1tex__t_sectors.sum");
        let hits = count(&row.metrics, "l1tex__t_sectors_lookup_hit.sum");
        if !plain_load(&row.text) || sectors == 0 || hits > 0 {
            continue;
        }
        out.push(suggestion(
            "l1-fill-unused",
            row,
            format!("{sectors} L1 sectors looked up, 0 hits: the data filled into L1 is never re-read"),
            "load with .cg (or .L1::no_allocate) so the line does not take L1 space from reused data",
            Some(format!("l1-cg-{0}=line:{0}=cg", row.ptx_line)),
        ));
    }
}

/// `stream-evicts-reused`: one line streams through L2 while another's reuse misses.
fn stream_evicts_reused(v: &VariantReport, out: &mut Vec<Suggestion>) {
    let evictions = count(&v.totals, "ptxsim__lts_evictions_normal.sum");
    if evictions == 0 {
        return;
    }
    let dram = |r: &LineRow| count(&r.metrics, "dram__bytes_read.sum");
    let hit = |r: &LineRow| value(&r.metrics, "lts__t_sector_hit_rate.pct");
    let loads = v
        .lines
        .iter()
        .filter(|r| opcode(&r.text).starts_with("ld."));
    let stream = loads
        .clone()
        .filter(|r| hit(r).is_some_and(|h| h <= STREAM_HIT_PCT) && dram(r) > 0)
        .max_by_key(|r| dram(r));
    // The reused line: some L2 hits, and misses that went to DRAM.
    let reused = loads
        .filter(|r| hit(r).is_some_and(|h| h > STREAM_HIT_PCT && h < 95.0) && dram(r) > 0)
        .max_by_key(|r| dram(r));
    let (Some(s), Some(r)) = (stream, reused) else {
        return;
    };
    if s.ptx_line == r.ptx_line {
        return;
    }
    out.push(suggestion(
        "stream-evicts-reused",
        s,
        format!(
            "line {} streams ({:.0} % L2 hits, {} B from DRAM) while line {} re-reads data that was evicted ({:.0} % L2 hits, {} B from DRAM); {evictions} normal-class L2 evictions",
            s.ptx_line,
            hit(s).unwrap_or(0.0),
            dram(s),
            r.ptx_line,
            hit(r).unwrap_or(0.0),
            dram(r)
        ),
        "mark the streamed load evict_first (or .cs) and the reused one evict_last",
        Some(format!(
            "stream-{}=line:{}=evict_first+line:{}=evict_last",
            s.ptx_line, s.ptx_line, r.ptx_line
        )),
    ));
}

/// `evict-last-capped`: evict-last requests made normal for want of set-aside.
fn evict_last_capped(v: &VariantReport, out: &mut Vec<Suggestion>) {
    for row in &v.lines {
        let capped = count(&row.metrics, "ptxsim__lts_evict_last_capped.sum");
        if capped == 0 {
            continue;
        }
        out.push(suggestion(
            "evict-last-capped",
            row,
            format!("{capped} evict-last L2 requests were made normal: the persisting set-aside is too small for them"),
            "raise the set-aside (cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, N); ptxsim --persisting-l2 N) or mark less data evict_last",
            None,
        ));
    }
}

/// `prefetch-unused`: L2 prefetch fills beyond what the line's loads read.
fn prefetch_unused(v: &VariantReport, out: &mut Vec<Suggestion>) {
    for row in &v.lines {
        let fills = count(&row.metrics, "ptxsim__lts_prefetch_fills.sum");
        let read = count(&row.metrics, "lts__t_sectors.sum");
        if fills == 0 || fills <= read || !row.text.contains("L2::") {
            continue;
        }
        out.push(suggestion(
            "prefetch-unused",
            row,
            format!("{fills} L2 sectors prefetched for {read} sectors looked up by the line"),
            "drop the .L2::64B/128B/256B prefetch size: the sectors it brings in are not read",
            Some(format!("no-prefetch-{0}=line:{0}=none", row.ptx_line)),
        ));
    }
}

/// `hint-ignored`: an L1 prefetch, which the H100 does not keep for the loads after it (memsys
/// route.rs: `ld_forms.prefetch_forms` hit 0 of 13 L1 sectors after `prefetch.global.L1`,
/// `prefetch.L1` and `prefetchu.L1`); the prefetch still reaches L2.
fn hint_ignored(v: &VariantReport, out: &mut Vec<Suggestion>) {
    for row in &v.lines {
        let op = opcode(&row.text);
        if !(op.starts_with("prefetch") && op.contains(".L1")) {
            continue;
        }
        out.push(suggestion(
            "hint-ignored",
            row,
            format!("`{op}`: the line is not kept in L1 for the loads after it (as on an H100); only L2 is warmed"),
            "prefetch to L2 (prefetch.global.L2), or drop the prefetch",
            None,
        ));
    }
}

/// `read-only-nc`: plain loads whose sectors no instruction of the launch writes.
/// `read_only_lines` says, per PTX line, whether that holds (absent: unknown, no suggestion).
fn read_only_nc(
    v: &VariantReport,
    read_only_lines: &BTreeMap<u32, bool>,
    out: &mut Vec<Suggestion>,
) {
    for row in &v.lines {
        if !plain_load(&row.text) || !opcode(&row.text).starts_with("ld.global") {
            continue;
        }
        if read_only_lines.get(&row.ptx_line) != Some(&true) {
            continue;
        }
        out.push(suggestion(
            "read-only-nc",
            row,
            "the buffer this line reads is never written during the launch".into(),
            "load it through the read-only path: ld.global.nc (const __restrict__ or __ldg in CUDA C++)",
            Some(format!("nc-{0}=line:{0}=nc", row.ptx_line)),
        ));
    }
}

/// Every rule's findings on the original's report. `read_only_lines` marks the load lines
/// whose buffers the launch never writes (the CLI finds them from the outputs).
pub fn advise(v: &VariantReport, read_only_lines: &BTreeMap<u32, bool>) -> Vec<Suggestion> {
    let mut out = Vec::new();
    uncoalesced(v, &mut out);
    l1_fill_unused(v, &mut out);
    stream_evicts_reused(v, &mut out);
    evict_last_capped(v, &mut out);
    prefetch_unused(v, &mut out);
    hint_ignored(v, &mut out);
    read_only_nc(v, read_only_lines, &mut out);
    out
}

/// The suggestions as text: one block each, with what its rewrite measured.
pub fn text_section(r: &crate::Report) -> String {
    use std::fmt::Write;
    let Some(list) = &r.suggestions else {
        return String::new();
    };
    let mut s = String::from("\nSuggestions\n");
    if list.is_empty() {
        s.push_str("  none: no rule found anything to act on in this run\n");
    }
    for (k, g) in list.iter().enumerate() {
        let _ = writeln!(
            s,
            "\n{}. [{}] {}\n   seen: {}\n   do:   {}",
            k + 1,
            g.rule,
            g.where_text(),
            g.evidence,
            g.advice
        );
        if let Some(rw) = &g.rewrite {
            let _ = writeln!(s, "   ran:  --variant {rw}");
            let _ = writeln!(s, "         {}", measured_text(&g.measured));
        }
    }
    s
}

/// `est. time 12.0 us -> 9.5 us (-20.8 %), DRAM 1.0 MB -> 0.5 MB, …, outputs identical`.
pub fn measured_text(m: &Measured) -> String {
    if let Some(e) = &m.error {
        return format!("could not be measured: {e}");
    }
    let mut parts = Vec::new();
    let pct = |c: &Change| {
        let change = 100.0 * (c.rewritten - c.original) / c.original;
        if c.original == 0.0 {
            String::new()
        } else if change.abs() < 0.05 {
            // Below the printed precision (the estimate's float noise): no `-0.0 %`.
            " (no change)".to_string()
        } else {
            format!(" ({change:+.1} %)")
        }
    };
    if let Some(c) = &m.time_ns {
        parts.push(format!(
            "est. time {:.0} ns -> {:.0} ns{}",
            c.original,
            c.rewritten,
            pct(c)
        ));
    }
    if let Some(c) = &m.dram_bytes {
        parts.push(format!(
            "DRAM {} -> {}{}",
            crate::text::format_bytes(c.original as u64),
            crate::text::format_bytes(c.rewritten as u64),
            pct(c)
        ));
    }
    for (label, c) in [
        ("L1 hit", &m.l1_hit_rate_pct),
        ("L2 hit", &m.l2_hit_rate_pct),
    ] {
        if let Some(c) = c {
            parts.push(format!(
                "{label} {:.1} % -> {:.1} %",
                c.original, c.rewritten
            ));
        }
    }
    if let Some(o) = &m.outputs {
        parts.push(format!("outputs {o}"));
    }
    parts.join(", ")
}

/// The suggestions as an HTML section (empty outside `advise`).
pub fn html_section(r: &crate::Report) -> String {
    use crate::html::esc;
    use std::fmt::Write;
    let Some(list) = &r.suggestions else {
        return String::new();
    };
    let mut s = String::from("<h2>Suggestions</h2>");
    if list.is_empty() {
        s.push_str("<p class=\"note\">No rule found anything to act on in this run.</p>");
        return s;
    }
    s.push_str("<table><tr><th class=\"l\">rule</th><th class=\"l\">PTX line</th><th class=\"l\">source</th><th class=\"l\">seen</th><th class=\"l\">do</th><th class=\"l\">rewrite run</th><th class=\"l\">measured</th></tr>");
    for g in list {
        let _ = write!(
            s,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td class=\"l code\">{}</td><td class=\"l\">{}</td></tr>",
            esc(&g.rule),
            match (g.step, &g.kernel) {
                (Some(i), Some(k)) => format!("{} <span class=\"note\">step {i}, {}</span>", g.ptx_line, esc(k)),
                _ => g.ptx_line.to_string(),
            },
            esc(&g.source),
            esc(&g.evidence),
            esc(&g.advice),
            esc(g.rewrite.as_deref().unwrap_or("-")),
            esc(&if g.rewrite.is_some() { measured_text(&g.measured) } else { "-".into() })
        );
    }
    s.push_str("</table>");
    s
}

/// The `advise` report as text: the original's run report (of each kernel step, for a
/// multi-step launch), then the suggestions.
pub fn render_text(r: &crate::Report) -> String {
    let Some(steps) = &r.steps else {
        return crate::text::render_run(r) + &text_section(r);
    };
    let mut s = String::new();
    for st in steps {
        s.push_str(&format!("== step {}: {}\n", st.step, st.what));
        s.push_str(&crate::text::render_run(&st.as_report(r)));
        s.push('\n');
    }
    s + &text_section(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_loads_are_weak_global_ones() {
        assert!(plain_load("ld.global.f32 %f1, [%rd1];"));
        assert!(plain_load("ld.global.L1::evict_last.f32 %f1, [%rd1];"));
        assert!(plain_load("ld.f32 %f1, [%rd1];"));
        assert!(plain_load(
            "@%p1 ld.global.L1::evict_last.L2::cache_hint.v4.b32 {%r1, %r2, %r3, %r4}, [%rd1], %rd2;"
        ));
        assert!(!plain_load(
            "@%p1 st.global.v4.b32 [%rd1], {%r1, %r2, %r3, %r4};"
        ));
        assert!(!plain_load("ld.global.cg.f32 %f1, [%rd1];"));
        assert!(!plain_load("ld.global.nc.f32 %f1, [%rd1];"));
        assert!(!plain_load("ld.shared.f32 %f1, [%r1];"));
        assert!(!plain_load("ld.relaxed.gpu.global.u32 %r1, [%rd1];"));
        assert!(!plain_load("st.global.f32 [%rd1], %f1;"));
    }
}
