//! The HTML report: one self-contained file (inline CSS and SVG, no scripts, no network) with
//! the comparison table, hit rate per level per variant, DRAM traffic per variant and per
//! source line, L2 occupancy by eviction class over the run, the top lines and the glossary.
//!
//! This file: [`render`], [`esc`] and the stylesheet; `html/charts.rs` the SVG charts,
//! `html/tables.rs` the tables.

use crate::metrics::{get, MetricValue, KEY_METRICS};
use crate::model::{Report, VariantReport};
use crate::text::{format_bytes, format_value, thousands};
use std::collections::BTreeMap;
use std::fmt::Write as _;

mod charts;
mod tables;

use charts::*;
use tables::*;

/// Escapes text for HTML element content and attribute values.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

pub(crate) const CSS: &str = r#"
:root { --fg:#1d2330; --muted:#6b7280; --line:#e5e7eb; --bg:#f7f8fa; }
* { box-sizing: border-box; }
body { margin:0; background:var(--bg); color:var(--fg); font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif; }
main { max-width:1240px; margin:0 auto; padding:24px 28px 48px; }
h1 { font-size:22px; margin:0 0 4px; }
h2 { font-size:17px; margin:0 0 10px; }
.sub { color:var(--muted); margin:0 0 18px; }
.card { background:#fff; border:1px solid var(--line); border-radius:8px; padding:16px 18px; margin:0 0 18px; }
.row { display:flex; flex-wrap:wrap; gap:18px; }
.row > .card { flex:1 1 520px; min-width:0; }
svg.chart { max-width:100%; height:auto; }
.note { color:var(--muted); font-size:12.5px; margin:6px 0 0; }
table { border-collapse:collapse; width:100%; font-size:13px; }
th, td { padding:4px 8px; border-bottom:1px solid var(--line); text-align:right; white-space:nowrap; }
th { background:#f3f4f6; font-weight:600; }
td.l, th.l { text-align:left; }
td.code { text-align:left; font-family:ui-monospace,"DejaVu Sans Mono",monospace; font-size:12px; white-space:normal; overflow-wrap:anywhere; min-width:170px; }
.scroll { overflow-x:auto; }
td.name { text-align:left; font-family:ui-monospace,"DejaVu Sans Mono",monospace; font-size:12px; color:var(--muted); }
.good { color:#15803d; } .bad { color:#b91c1c; } .muted { color:var(--muted); fill:#6b7280; }
.status-different { color:#b91c1c; font-weight:700; } .status-identical { color:#15803d; }
.legend { display:flex; flex-wrap:wrap; gap:14px; margin:0 0 8px; font-size:13px; }
.legend i { display:inline-block; width:12px; height:12px; border-radius:2px; margin-right:6px; vertical-align:-1px; }
svg text { font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif; }
svg .tick { font-size:11px; fill:#6b7280; }
svg .label { font-size:12.5px; fill:#1d2330; font-weight:600; }
svg .val { font-size:10.5px; fill:#374151; }
svg .mono { font-family:ui-monospace,"DejaVu Sans Mono",monospace; }
svg .grid { stroke:#eceef1; stroke-width:1; }
svg .axis { stroke:#9ca3af; stroke-width:1; }
details summary { cursor:pointer; font-weight:600; margin:4px 0; }
.err { background:#fef2f2; border-color:#fecaca; }
.err p { margin:4px 0; }
"#;

/// Renders the whole report as one HTML document.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    write_header(&mut s, r);
    if r.variants.is_empty() {
        s.push_str("<p>No runs.</p></main></body></html>\n");
        return s;
    }
    write_differences(&mut s, r);
    s.push_str(&crate::advise::html_section(r));
    s.push_str(&crate::ncu::html_section(r));
    if let Some(steps) = &r.steps {
        // A multi-step launch: each kernel step's counters, one section each.
        for st in steps {
            let _ = write!(s, "<h2>Step {}: {}</h2>", st.step, esc(&st.what));
            let step = st.as_report(r);
            write_summary(&mut s, &step);
            write_details(&mut s, &step);
        }
        write_glossary(&mut s, r);
        return s;
    }
    let series: Vec<(String, &str)> = r
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| (v.name.clone(), color(i)))
        .collect();
    write_summary(&mut s, r);
    write_level_charts(&mut s, r, &series);
    write_dram_by_line(&mut s, r, &series);
    write_occupancy(&mut s, r);
    write_details(&mut s, r);
    write_glossary(&mut s, r);
    s
}

/// The document head and the title block: launch, GPU model, tool.
fn write_header(s: &mut String, r: &Report) {
    let l = &r.launch;
    let title = match &r.steps {
        Some(steps) => format!(
            "ptxsim cache report: {} kernel steps of a launch file (the first: {})",
            steps.len(),
            l.kernel
        ),
        None => format!("ptxsim cache report: {}", l.kernel),
    };
    let _ = write!(
        s,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{CSS}</style></head><body><main>",
        esc(&title)
    );
    let _ = write!(
        s,
        "<h1>{}</h1><p class=\"sub\"><b>{}</b> · grid ({},{},{}) × block ({},{},{}) · {} · seed {}<br>GPU model <b>{}</b>: {} SMs · L1 {} per SM ({}-way) · L2 {} ({}-way, persisting set-aside {} of max {}) · {} B lines of {} B sectors · {}</p>",
        esc(&title),
        esc(&l.ptx),
        l.grid[0],
        l.grid[1],
        l.grid[2],
        l.block[0],
        l.block[1],
        l.block[2],
        l.shared_text(),
        l.seed,
        esc(&r.gpu.name),
        r.gpu.sm_count,
        format_bytes(r.gpu.l1_bytes),
        r.gpu.l1_ways,
        format_bytes(r.gpu.l2_bytes),
        r.gpu.l2_ways,
        format_bytes(r.gpu.persisting_l2_bytes),
        format_bytes(r.gpu.persisting_l2_max_bytes),
        r.gpu.line_bytes,
        r.gpu.sector_bytes,
        esc(&r.tool)
    );
    let control = l.l2_control_lines();
    if !control.is_empty() {
        let _ = write!(s, "<p class=\"sub\">{}</p>", esc(&control.join(" · ")));
    }
}

/// A warning card when a variant changed the kernel's outputs.
fn write_differences(s: &mut String, r: &Report) {
    if r.has_differences() {
        s.push_str("<div class=\"card err\"><h2>Hints changed the result</h2>");
        for v in r.variants.iter().filter(|v| v.outputs.is_different()) {
            for d in &v.outputs.differences {
                let _ = write!(
                    s,
                    "<p>Variant <b>{}</b>: argument {} differs from the baseline in {} of {} {} elements; first at [{}]: {} (baseline {}).</p>",
                    esc(&v.name),
                    d.arg,
                    d.elements_differing,
                    d.elements,
                    esc(&d.element_type),
                    d.first_index,
                    esc(&d.variant_value),
                    esc(&d.baseline_value)
                );
            }
        }
        s.push_str("<p class=\"note\">Cache hints must not change results: the kernel depends on cache behaviour (a data race or a coherence bug such as a stale L1 read).</p></div>");
    }
}

/// The comparison table and the time estimates.
fn write_summary(s: &mut String, r: &Report) {
    let _ = write!(
        s,
        "<div class=\"card\"><h2>{}</h2>{}<p class=\"note\">Metric names follow Nsight Compute; <code>ptxsim__</code> names are counters Nsight does not have. Hover a metric for its description; the glossary is at the end.{}</p></div>",
        if r.variants.len() > 1 {
            "Variants side by side"
        } else {
            "Summary"
        },
        compare_table(r),
        if r.variants.len() > 1 {
            " In parentheses: the change against the original (hit rates in percentage points)."
        } else {
            ""
        }
    );

    s.push_str(&time_table(r));
}

/// Hit rate per level per variant, and DRAM bytes per variant.
fn write_level_charts(s: &mut String, r: &Report, series: &[(String, &str)]) {
    // Hit rate per level per variant, and DRAM bytes per variant.
    let hit: Vec<Vec<Option<f64>>> = r
        .variants
        .iter()
        .map(|v| {
            ["l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct"]
                .iter()
                .map(|k| get(&v.totals, k).map(MetricValue::as_f64))
                .collect()
        })
        .collect();
    let dram: Vec<Vec<Option<f64>>> = r
        .variants
        .iter()
        .map(|v| {
            ["dram__bytes_read.sum", "dram__bytes_write.sum"]
                .iter()
                .map(|k| get(&v.totals, k).map(MetricValue::as_f64))
                .collect()
        })
        .collect();
    let dram_max = dram
        .iter()
        .flatten()
        .flatten()
        .fold(0.0f64, |a, b| a.max(*b));
    let _ = write!(
        s,
        "<div class=\"row\"><div class=\"card\"><h2>Sector hit rate per level</h2>{}{}<p class=\"note\">l1tex__t_sector_hit_rate.pct and lts__t_sector_hit_rate.pct; n/a: no lookups at that level.</p></div><div class=\"card\"><h2>DRAM traffic</h2>{}{}<p class=\"note\">dram__bytes_read.sum and dram__bytes_write.sum (write-backs during the run).</p></div></div>",
        legend(series),
        grouped_bars(
            &["L1".to_string(), "L2".to_string()],
            series,
            &hit,
            100.0,
            false,
            &|v| format!("{v:.0}%"),
            &|v| format!("{v:.1}%"),
        ),
        legend(series),
        grouped_bars(
            &["read".to_string(), "written".to_string()],
            series,
            &dram,
            dram_max.max(1.0),
            true,
            &axis_bytes,
            &|v| compact_bytes(v.round() as u64),
        )
    );
}

/// DRAM bytes per source (or PTX) line.
fn write_dram_by_line(s: &mut String, r: &Report, series: &[(String, &str)]) {
    let (labels, rw) = dram_by_line(r);
    let by = if r.variants.iter().any(|v| !v.source_lines.is_empty()) {
        "source line"
    } else {
        "PTX line (the module has no .loc line information)"
    };
    let _ = write!(
        s,
        "<div class=\"card\"><h2>DRAM bytes per {by}</h2>{}",
        legend(series)
    );
    if labels.is_empty() {
        s.push_str("<p class=\"note\">No DRAM traffic.</p>");
    } else {
        s.push_str(&dram_rows(&labels, series, &rw));
        s.push_str("<p class=\"note\">Solid: bytes read; striped: bytes written. The lines with the most traffic in any variant, at most 12.</p>");
    }
    s.push_str("</div>");
}

/// L2 occupancy by eviction class over the run, one chart per variant.
fn write_occupancy(s: &mut String, r: &Report) {
    let l2_lines = r.gpu.l2_bytes / u64::from(r.gpu.line_bytes.max(1));
    let _ = write!(
        s,
        "<div class=\"card\"><h2>L2 occupancy by eviction priority class</h2>{}<div class=\"row\" style=\"gap:8px\">",
        legend(&[
            ("evict_first".to_string(), CLASS_COLORS[0]),
            ("normal".to_string(), CLASS_COLORS[1]),
            ("evict_last".to_string(), CLASS_COLORS[2]),
        ])
    );
    let y_max = max_occupancy(r);
    for (i, v) in r.variants.iter().enumerate() {
        s.push_str(&occupancy_chart(v, l2_lines, y_max, color(i)));
    }
    let _ = write!(
        s,
        "</div><p class=\"note\">L2 lines held by each class (of the L2's {} lines), sampled every {} memory requests.</p></div>",
        thousands(l2_lines),
        thousands(r.variants[0].l2_timeline.interval_requests)
    );
}

/// The top lines table, each variant's changed lines, and the per-line tables.
fn write_details(s: &mut String, r: &Report) {
    let _ = write!(
        s,
        "<div class=\"card\"><h2>Top lines by DRAM traffic ({})</h2><div class=\"scroll\">{}</div></div>",
        esc(&r.variants[0].name),
        top_lines_table(r)
    );

    for v in r.variants.iter().filter(|v| !v.baseline) {
        let _ = write!(
            s,
            "<div class=\"card\"><details><summary>Variant {}: <code>{}</code> changed {} line(s){}</summary><table><tr><th class=\"l\">line</th><th class=\"l\">before</th><th class=\"l\">after</th></tr>",
            esc(&v.name),
            esc(v.rewrite.as_deref().unwrap_or("")),
            v.changes.len(),
            if v.skipped.is_empty() {
                String::new()
            } else {
                format!(", skipped {}", v.skipped.len())
            }
        );
        for c in &v.changes {
            let _ = write!(
                s,
                "<tr><td class=\"l\">{}</td><td class=\"code\">{}</td><td class=\"code\">{}</td></tr>",
                c.line,
                esc(&c.before),
                esc(&c.after)
            );
        }
        for k in &v.skipped {
            let _ = write!(
                s,
                "<tr><td class=\"l\">{}</td><td class=\"code\">{}</td><td class=\"l muted\">skipped: {}</td></tr>",
                k.line,
                esc(&k.instruction),
                esc(&k.reason)
            );
        }
        s.push_str("</table></details></div>");
    }
    for v in &r.variants {
        let _ = write!(
            s,
            "<div class=\"card\"><details><summary>Per PTX line: {} ({} lines with memory activity)</summary><div class=\"scroll\">{}</div></details></div>",
            esc(&v.name),
            v.lines.len(),
            lines_table(v)
        );
    }
}

/// The metric glossary, and the end of the document.
fn write_glossary(s: &mut String, r: &Report) {
    s.push_str("<div class=\"card\"><details><summary>Metric glossary</summary><table><tr><th class=\"l\">name</th><th class=\"l\">unit</th><th class=\"l\">description</th><th class=\"l\">source</th></tr>");
    for m in &r.metrics {
        let _ = write!(
            s,
            "<tr><td class=\"name\">{}</td><td class=\"l\">{}</td><td class=\"l\" style=\"white-space:normal\">{}</td><td class=\"l\">{}</td></tr>",
            esc(&m.name),
            esc(&m.unit),
            esc(&m.description),
            if m.nsight { "Nsight Compute" } else { "ptxsim" }
        );
    }
    s.push_str("</table></details></div></main></body></html>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn byte_axes_step_in_binary_units() {
        let (step, n) = ticks_bytes(683.0 * 1024.0);
        assert_eq!(step, 200.0 * 1024.0);
        assert_eq!(n, 4);
        assert_eq!(axis_bytes(step), "200 KiB");
        assert_eq!(axis_bytes(2.5 * 1024.0 * 1024.0), "2.5 MiB");
        assert_eq!(axis_bytes(512.0), "512 B");
    }

    #[test]
    fn ticks_cover_the_maximum_with_round_steps() {
        for max in [1.0, 7.0, 99.0, 100.0, 12345.0, 4.5e6] {
            let (step, n) = ticks(max);
            assert!(step * n as f64 >= max, "{max}");
            assert!(n <= 6, "{max}: {n}");
            let mant = step / 10f64.powf(step.log10().floor());
            assert!(
                [1.0, 2.0, 2.5, 5.0].iter().any(|m| (m - mant).abs() < 1e-9),
                "{step}"
            );
        }
    }
}
