//! Plain-text rendering: the run report and the side-by-side comparison table.

use crate::metrics::{self, get, MetricValue, KEY_METRICS};
use crate::model::{Report, VariantReport};
use crate::timing::TimeEstimate;
use std::fmt::Write as _;

/// `1234567` → `1,234,567`.
pub fn thousands(v: u64) -> String {
    let digits = v.to_string();
    let mut groups: Vec<&str> = Vec::new();
    let mut end = digits.len();
    while end > 3 {
        groups.push(&digits[end - 3..end]);
        end -= 3;
    }
    groups.push(&digits[..end]);
    groups.reverse();
    groups.join(",")
}

/// A metric value for a table cell.
pub fn format_value(v: Option<MetricValue>) -> String {
    match v {
        None => "-".into(),
        Some(MetricValue::Percent(p)) => format!("{p:.2} %"),
        Some(MetricValue::Count(c)) => thousands(c),
    }
}

/// Bytes as `12.0 KiB` (exact below 1 KiB).
pub fn format_bytes(b: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if b < 1024 {
        return format!("{b} B");
    }
    let mut v = b as f64 / 1024.0;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.1} {}", UNITS[u])
}

/// Nanoseconds as `68.8 us` (`850 ns` below 1 us).
pub fn format_ns(ns: f64) -> String {
    if ns < 1000.0 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} us", ns / 1e3)
    } else {
        format!("{:.2} ms", ns / 1e6)
    }
}

/// A variant's bound: `L2 (1.31x the next)`.
pub fn bound_cell(t: &TimeEstimate) -> String {
    if t.margin > 0.0 {
        format!("{} ({:.2}x next)", t.bound.label(), t.margin)
    } else {
        t.bound.label().to_string()
    }
}

/// The estimate's breakdown: one line per resource, longest first.
fn time_section(v: &VariantReport) -> String {
    let Some(t) = &v.time else {
        return String::new();
    };
    let mut s = format!(
        "Estimated time (gpu__time_duration.sum, an estimate: docs/timing.md): {} = launch {} + resources overlapped; bound by {}
  {} CTAs on the busiest SM, {} resident at once (limited by {}), {} wave(s)
",
        format_ns(t.ns),
        format_ns(t.launch_overhead_ns),
        bound_cell(t),
        t.ctas_per_sm,
        t.resident_ctas_per_sm,
        limits_text(&t.limited_by),
        t.waves
    );
    let mut rows = vec![vec!["resource".to_string(), "time".into()]];
    for term in &t.terms {
        rows.push(vec![term.resource.label().to_string(), format_ns(term.ns)]);
    }
    s.push_str(&table(&rows, 1));
    s
}

/// "registers and warps".
fn limits_text(limits: &[ptx_exec::Limit]) -> String {
    let names: Vec<&str> = limits.iter().map(|l| l.label()).collect();
    names.join(" and ")
}

/// The residency line of a variant: registers per thread and their source, CTAs per SM,
/// the binding limit and each resource's limit, CTAs resident over the GPU.
pub fn residency_line(v: &VariantReport) -> Option<String> {
    let r = v.run.residency.as_ref()?;
    let source = r.registers_source.map_or("-", |s| s.label());
    let regs = r
        .by_registers
        .map_or_else(|| "none".to_string(), |n| n.to_string());
    Some(format!(
        "residency: {} registers/thread ({source}), {} (warps {}, registers {regs}, shared \
         memory {}, CTA slots {}); {} CTAs resident at once",
        r.registers_per_thread,
        r.describe(),
        r.by_warps,
        r.by_shared_memory,
        r.by_ctas,
        v.run.resident_ctas
    ))
}

/// A table whose first `left` columns are left-aligned and the others right-aligned.
fn table(rows: &[Vec<String>], left: usize) -> String {
    aligned(rows, |c, _| c < left)
}

pub(crate) fn header(r: &Report) -> String {
    let l = &r.launch;
    let mut s = format!(
        "{} on `{}` ({}) grid ({},{},{}) block ({},{},{}) {}, seed {}\n\
         gpu {}: {} SMs, L1 {} ({}-way) per SM, L2 {} ({}-way, persisting set-aside {} of max {}), {} B lines of {} B sectors\n",
        r.tool,
        l.kernel,
        l.ptx,
        l.grid[0],
        l.grid[1],
        l.grid[2],
        l.block[0],
        l.block[1],
        l.block[2],
        l.shared_text(),
        l.seed,
        r.gpu.name,
        r.gpu.sm_count,
        format_bytes(r.gpu.l1_bytes),
        r.gpu.l1_ways,
        format_bytes(r.gpu.l2_bytes),
        r.gpu.l2_ways,
        format_bytes(r.gpu.persisting_l2_bytes),
        format_bytes(r.gpu.persisting_l2_max_bytes),
        r.gpu.line_bytes,
        r.gpu.sector_bytes,
    );
    for line in l.l2_control_lines() {
        s.push_str(&line);
        s.push('\n');
    }
    s
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// `32/4` (requested / ideal sectors), `-` for a line with no global ld/st.
fn sectors_cell(m: &crate::MetricValues) -> String {
    let n = |name| match get(m, name) {
        Some(crate::MetricValue::Count(c)) => c,
        _ => 0,
    };
    match (
        n(crate::metrics::SECTORS_METRIC),
        n(crate::metrics::IDEAL_SECTORS_METRIC),
    ) {
        (0, 0) => "-".into(),
        (r, i) => format!("{}/{}", thousands(r), thousands(i)),
    }
}

fn source_cell(v: &VariantReport, ptx_line: u32) -> String {
    v.lines
        .iter()
        .find(|l| l.ptx_line == ptx_line)
        .map_or("-".into(), |l| l.where_text())
}

/// The run report of the first variant: summary, evictions, top lines, per-line counters.
pub fn render_run(r: &Report) -> String {
    let mut s = header(r);
    let Some(v) = r.variants.first() else {
        return s;
    };
    if let Some(line) = residency_line(v) {
        let _ = writeln!(s, "{line}");
    }
    write_summary(&mut s, r, v);
    write_evictions(&mut s, v);
    write_top_lines(&mut s, v);
    write_per_line(&mut s, v);
    write_per_source_line(&mut s, v);
    s.push_str(&crate::ncu::text_section(r));
    s
}

/// The run line, the metric summary and the time estimate.
fn write_summary(s: &mut String, r: &Report, v: &VariantReport) {
    let _ = writeln!(
        s,
        "run: {} warp-instructions, {} thread-instructions, cp.async {}, stale L1 reads {}\n",
        thousands(v.run.warp_instructions),
        thousands(v.run.thread_instructions),
        format_bytes(v.run.cp_async_bytes),
        v.run.stale_reads
    );
    s.push_str("Summary (Nsight Compute names; ptxsim__ marks counters Nsight does not have)\n");
    let mut rows = vec![vec![
        "metric".to_string(),
        "value".into(),
        "unit".into(),
        "description".into(),
    ]];
    for m in &r.metrics {
        rows.push(vec![
            m.name.clone(),
            format_value(get(&v.totals, &m.name)),
            m.unit.clone(),
            m.description.clone(),
        ]);
    }
    s.push_str(&table_mixed(&rows));
    s.push('\n');
    let time = time_section(v);
    if !time.is_empty() {
        s.push_str(&time);
        s.push('\n');
    }
}

/// Evictions by class per level, and L2 lines by class at the end.
fn write_evictions(s: &mut String, v: &VariantReport) {
    s.push_str("Evictions by priority class (lines)\n");
    let (l1, l2) = (&v.levels.l1.evictions, &v.levels.l2.evictions);
    let rows = vec![
        vec![
            "level".to_string(),
            "evict_first".into(),
            "normal".into(),
            "evict_last".into(),
            "total".into(),
        ],
        vec![
            "L1".into(),
            thousands(l1.evict_first),
            thousands(l1.normal),
            thousands(l1.evict_last),
            thousands(l1.total()),
        ],
        vec![
            "L2".into(),
            thousands(l2.evict_first),
            thousands(l2.normal),
            thousands(l2.evict_last),
            thousands(l2.total()),
        ],
        vec![
            "total".into(),
            thousands(l1.evict_first + l2.evict_first),
            thousands(l1.normal + l2.normal),
            thousands(l1.evict_last + l2.evict_last),
            thousands(l1.total() + l2.total()),
        ],
    ];
    s.push_str(&table(&rows, 1));
    let end = &v.l2_timeline.end;
    let _ = writeln!(
        s,
        "L2 lines at the end: evict_first {}, normal {}, evict_last {}\n",
        thousands(end.evict_first),
        thousands(end.normal),
        thousands(end.evict_last)
    );
}

/// The lines with the most DRAM traffic.
fn write_top_lines(s: &mut String, v: &VariantReport) {
    s.push_str("Top lines by DRAM traffic\n");
    if v.top_dram_lines.is_empty() {
        s.push_str("  (no DRAM traffic)\n");
    } else {
        let mut rows = vec![vec![
            "ptx line".to_string(),
            "source".into(),
            "DRAM read".into(),
            "DRAM written".into(),
            "L2 hit".into(),
            "instruction".into(),
        ]];
        for l in &v.top_dram_lines {
            let Some(row) = v.lines.iter().find(|x| x.ptx_line == *l) else {
                continue;
            };
            rows.push(vec![
                l.to_string(),
                source_cell(v, *l),
                format_value(get(&row.metrics, "dram__bytes_read.sum")),
                format_value(get(&row.metrics, "dram__bytes_write.sum")),
                format_value(get(&row.metrics, "lts__t_sector_hit_rate.pct")),
                truncate(&row.text, 80),
            ]);
        }
        s.push_str(&table_with_text_last(&rows));
    }
    s.push('\n');
}

/// Counters per PTX line with memory activity.
fn write_per_line(s: &mut String, v: &VariantReport) {
    s.push_str("Per PTX line (lines with memory activity)\n");
    let mut rows = vec![vec![
        "line".to_string(),
        "source".into(),
        "execs".into(),
        "L1 sect".into(),
        "L1 hit".into(),
        "L2 sect".into(),
        "L2 hit".into(),
        "DRAM rd".into(),
        "DRAM wr".into(),
        "L2 evict f/n/l".into(),
        "sect/ideal".into(),
        "L2 control".into(),
        "instruction".into(),
    ]];
    for row in &v.lines {
        let m = &row.metrics;
        let c = |n: &str| format_value(get(m, n));
        rows.push(vec![
            row.ptx_line.to_string(),
            row.where_text(),
            thousands(row.executions),
            c("l1tex__t_sectors.sum"),
            c("l1tex__t_sector_hit_rate.pct"),
            c("lts__t_sectors.sum"),
            c("lts__t_sector_hit_rate.pct"),
            c("dram__bytes_read.sum"),
            c("dram__bytes_write.sum"),
            format!(
                "{}/{}/{}",
                c("ptxsim__lts_evictions_evict_first.sum"),
                c("ptxsim__lts_evictions_normal.sum"),
                c("ptxsim__lts_evictions_evict_last.sum")
            ),
            sectors_cell(m),
            l2_control_cell(m),
            truncate(&row.text, 72),
        ]);
    }
    s.push_str(&table_with_text_last(&rows));
}

/// What `discard` / `applypriority` (and an access policy window) did on a line:
/// `discarded 16 (64 dirty sectors saved)`, `evict_normal 8 (3 from evict-last)`; `-` else.
fn l2_control_cell(m: &crate::MetricValues) -> String {
    let n = |name: &str| match get(m, name) {
        Some(MetricValue::Count(c)) => c,
        _ => 0,
    };
    let mut parts = Vec::new();
    let d = n("ptxsim__lts_discards.sum");
    let saved = n("ptxsim__lts_discard_writebacks_saved.sum");
    if d > 0 || saved > 0 {
        parts.push(format!(
            "discarded {} ({} dirty sectors saved)",
            thousands(d),
            thousands(saved)
        ));
    }
    let a = n("ptxsim__lts_priority_applied.sum");
    if a > 0 {
        parts.push(format!(
            "evict_normal {} ({} from evict-last)",
            thousands(a),
            thousands(n("ptxsim__lts_priority_demoted.sum"))
        ));
    }
    let (h, mi) = (
        n("ptxsim__lts_window_hit_prop.sum"),
        n("ptxsim__lts_window_miss_prop.sum"),
    );
    if h + mi > 0 {
        parts.push(format!(
            "window hit/miss {}/{}",
            thousands(h),
            thousands(mi)
        ));
    }
    if parts.is_empty() {
        "-".to_string()
    } else {
        parts.join(", ")
    }
}

/// Counters per source line (modules with `.loc`).
fn write_per_source_line(s: &mut String, v: &VariantReport) {
    if !v.source_lines.is_empty() {
        s.push_str("\nPer source line (.loc), inlined code at the user's call site\n");
        let mut rows = vec![vec![
            "source".to_string(),
            "ptx lines".into(),
            "L1 hit".into(),
            "L2 hit".into(),
            "DRAM rd".into(),
            "DRAM wr".into(),
            "sect/ideal".into(),
        ]];
        for sl in &v.source_lines {
            let c = |n: &str| format_value(get(&sl.metrics, n));
            let base = sl.file.rsplit(['/', '\\']).next().unwrap_or(&sl.file);
            rows.push(vec![
                format!("{base}:{}", sl.line),
                truncate(
                    &sl.ptx_lines
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(","),
                    24,
                ),
                c("l1tex__t_sector_hit_rate.pct"),
                c("lts__t_sector_hit_rate.pct"),
                c("dram__bytes_read.sum"),
                c("dram__bytes_write.sum"),
                sectors_cell(&sl.metrics),
            ]);
        }
        s.push_str(&table(&rows, 2));
    }
}

/// A table whose first column is left-aligned, numbers right-aligned, and the last two (unit,
/// description) left-aligned.
fn table_mixed(rows: &[Vec<String>]) -> String {
    aligned(rows, |c, n| c == 0 || c + 2 >= n)
}

/// Numbers right-aligned; the line and source columns and the last (a text) left-aligned.
fn table_with_text_last(rows: &[Vec<String>]) -> String {
    aligned(rows, |c, n| c <= 1 || c + 1 == n)
}

/// A table whose first column is left-aligned and the others right-aligned, the last
/// left-aligned (for other modules' sections).
pub(crate) fn aligned_public(rows: &[Vec<String>]) -> String {
    aligned(rows, |c, n| c == 0 || c + 1 == n)
}

fn aligned(rows: &[Vec<String>], left: impl Fn(usize, usize) -> bool) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            let pad = widths[c].saturating_sub(cell.chars().count());
            if left(c, cols) {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        out.push_str("  ");
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Change of a count against the baseline, as `+12.5%` (empty when equal or undefined).
fn delta(base: Option<MetricValue>, v: Option<MetricValue>) -> String {
    match (base, v) {
        (Some(MetricValue::Count(b)), Some(MetricValue::Count(x))) if b != x => {
            if b == 0 {
                " (new)".into()
            } else {
                format!(" ({:+.1}%)", (x as f64 - b as f64) * 100.0 / b as f64)
            }
        }
        (Some(MetricValue::Percent(b)), Some(MetricValue::Percent(x)))
            if (b - x).abs() >= 0.005 =>
        {
            format!(" ({:+.2})", x - b)
        }
        _ => String::new(),
    }
}

/// The variants by estimated time, fastest first, with each one's change against the
/// original and what bounds it.
fn ranking(r: &Report) -> String {
    let base = r
        .variants
        .first()
        .and_then(|v| v.time.as_ref())
        .map(|t| t.ns);
    let ranked = r.ranked_by_time();
    if ranked.is_empty() {
        return String::new();
    }
    let mut s = String::from("\nRanked by estimated time (an estimate: docs/timing.md)\n");
    let mut rows = vec![vec![
        "#".to_string(),
        "variant".into(),
        "est. time".into(),
        "vs original".into(),
        "bound by".into(),
        "next resources".into(),
    ]];
    for (i, v) in ranked.iter().enumerate() {
        let Some(t) = &v.time else { continue };
        let vs = match base {
            Some(b) if !v.baseline && b > 0.0 => format!("{:+.1}%", (t.ns - b) * 100.0 / b),
            _ => "-".into(),
        };
        let next = t
            .terms
            .iter()
            .filter(|x| x.resource != t.bound)
            .take(2)
            .map(|x| format!("{} {}", x.resource.label(), format_ns(x.ns)))
            .collect::<Vec<_>>()
            .join(", ");
        rows.push(vec![
            (i + 1).to_string(),
            v.name.clone(),
            format_ns(t.ns),
            vs,
            bound_cell(t),
            next,
        ]);
    }
    s.push_str(&aligned(&rows, |c, _| c == 1 || c >= 4));
    s
}

/// The side-by-side table of the key metrics per variant, then what each rewrite changed and
/// any output differences.
pub fn render_compare(r: &Report) -> String {
    let mut s = header(r);
    if let Some(line) = r.variants.first().and_then(residency_line) {
        let _ = writeln!(s, "{line} (baseline)");
    }
    s.push('\n');
    let base = r.variants.first();
    for v in &r.variants {
        let _ = writeln!(
            s,
            "  {:<12} {}",
            v.name,
            v.rewrite
                .as_deref()
                .unwrap_or("the module as written (baseline)")
        );
    }
    s.push('\n');
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut head = vec!["metric".to_string(), String::new()];
    head.extend(r.variants.iter().map(|v| v.name.clone()));
    rows.push(head);
    for (name, label) in KEY_METRICS {
        let mut row = vec![label.to_string(), name.to_string()];
        for v in &r.variants {
            let val = get(&v.totals, name);
            let mut cell = match (val, metrics::unit(name)) {
                (Some(MetricValue::Count(b)), "bytes") => format_bytes(b),
                (Some(MetricValue::Count(b)), "ns") => format_ns(b as f64),
                _ => format_value(val),
            };
            if !v.baseline {
                cell.push_str(&delta(base.and_then(|b| get(&b.totals, name)), val));
            }
            row.push(cell);
        }
        rows.push(row);
    }
    let mut bound = vec!["bound by".to_string(), String::new()];
    bound.extend(
        r.variants
            .iter()
            .map(|v| v.time.as_ref().map_or_else(|| "-".into(), bound_cell)),
    );
    rows.push(bound);
    let mut resident = vec!["CTAs/SM".to_string(), String::new()];
    resident.extend(r.variants.iter().map(|v| {
        v.run.residency.as_ref().map_or_else(
            || "-".into(),
            |x| {
                format!(
                    "{} ({}, {} regs {})",
                    x.ctas_per_sm,
                    limits_text(&x.limited_by),
                    x.registers_per_thread,
                    x.registers_source.map_or("-", |s| s.label())
                )
            },
        )
    }));
    rows.push(resident);
    let mut changed = vec!["lines changed".to_string(), String::new()];
    changed.extend(r.variants.iter().map(|v| {
        if v.baseline {
            "-".into()
        } else if v.skipped.is_empty() {
            v.changes.len().to_string()
        } else {
            format!("{} ({} skipped)", v.changes.len(), v.skipped.len())
        }
    }));
    rows.push(changed);
    let mut outputs = vec!["outputs".to_string(), String::new()];
    outputs.extend(r.variants.iter().map(|v| match v.outputs.status.as_str() {
        "different" => "DIFFERENT".to_string(),
        other => other.to_string(),
    }));
    rows.push(outputs);
    s.push_str(&aligned(&rows, |c, _| c < 2));
    s.push_str(
        "  (in parentheses: the change against the original; for hit rates in percentage points)\n",
    );
    s.push_str(&ranking(r));
    for v in r.variants.iter().filter(|v| !v.baseline) {
        if v.changes.is_empty() {
            let _ = writeln!(
                s,
                "\nwarning: variant `{}` ({}) changed no instruction the launch runs",
                v.name,
                v.rewrite.as_deref().unwrap_or("")
            );
        }
        if v.changes_not_launched > 0 {
            let _ = writeln!(
                s,
                "note: variant `{}` also changed {} line(s) of kernels not launched (not counted)",
                v.name, v.changes_not_launched
            );
        }
        for k in &v.skipped {
            let _ = writeln!(
                s,
                "note: variant `{}` left line {} unchanged: {}",
                v.name, k.line, k.reason
            );
        }
    }
    for v in r.variants.iter().filter(|v| v.outputs.is_different()) {
        for d in &v.outputs.differences {
            let _ = writeln!(
                s,
                "\nerror: variant `{}` changed the result: argument {} differs from the baseline in {} of {} {} elements; first at [{}]: {} (baseline {})",
                v.name,
                d.arg,
                d.elements_differing,
                d.elements,
                d.element_type,
                d.first_index,
                d.variant_value,
                d.baseline_value
            );
        }
    }
    if r.has_differences() {
        s.push_str(
            "hints must not change results: the kernel depends on cache behaviour (a data race, or a \
             coherence bug such as a stale L1 read: see the stale L1 reads row)\n",
        );
    }
    s.push_str(&crate::ncu::text_section(r));
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_by_three() {
        for (v, s) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (1234567, "1,234,567"),
        ] {
            assert_eq!(super::thousands(v), s);
        }
    }
}
