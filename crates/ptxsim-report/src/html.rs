//! The HTML report: one self-contained file (inline CSS and SVG, no scripts, no network) with
//! the comparison table, hit rate per level per variant, DRAM traffic per variant and per
//! source line, L2 occupancy by eviction class over the run, the top lines and the glossary.

use crate::metrics::{get, MetricValue, KEY_METRICS};
use crate::model::{Report, VariantReport};
use crate::text::{format_bytes, format_value, thousands};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Series colours (Tableau 10), one per variant.
const PALETTE: &[&str] = &[
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];
/// Eviction classes: evict-first, normal, evict-last.
const CLASS_COLORS: [&str; 3] = ["#e15759", "#4e79a7", "#59a14f"];
const CLASS_NAMES: [&str; 3] = ["evict_first", "normal", "evict_last"];

fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

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

/// Round tick values from 0 to at least `max`: (step, count).
fn ticks(max: f64) -> (f64, usize) {
    if max <= 0.0 || !max.is_finite() {
        return (1.0, 1);
    }
    let raw = max / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| s * 5.0 >= max)
        .unwrap_or(10.0 * mag);
    (step, (max / step).ceil().max(1.0) as usize)
}

/// Round tick values for a byte axis: steps of 1, 2, 2.5 or 5 times a power of ten of KiB,
/// MiB or GiB (so labels read 200 KiB, 400 KiB rather than 195.3 KiB).
fn ticks_bytes(max: f64) -> (f64, usize) {
    let mut unit = 1.0;
    while max / unit >= 1024.0 && unit < 1024f64.powi(4) {
        unit *= 1024.0;
    }
    let (step, n) = ticks(max / unit);
    (step * unit, n)
}

/// Short byte labels for axes: `512 B`, `64 KiB`, `1.5 MiB`.
fn axis_bytes(v: f64) -> String {
    let b = v.round() as u64;
    for (unit, name) in [(1u64 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
        if b >= unit {
            let x = b as f64 / unit as f64;
            return if (x - x.round()).abs() < 1e-9 {
                format!("{x:.0} {name}")
            } else {
                format!("{x:.1} {name}")
            };
        }
    }
    format!("{b} B")
}

/// Bar labels: `348 KiB`, `1.5 MiB` (no decimals from 100 of a unit).
fn compact_bytes(b: u64) -> String {
    let s = format_bytes(b);
    match s.split_once(' ') {
        Some((num, unit)) if num.parse::<f64>().is_ok_and(|x| x >= 100.0) => {
            format!("{:.0} {unit}", num.parse::<f64>().unwrap_or(0.0))
        }
        _ => s,
    }
}

fn axis_count(v: f64) -> String {
    let c = v.round() as u64;
    if c >= 1_000_000 {
        format!("{:.1}M", v / 1e6)
    } else if c >= 10_000 {
        format!("{:.0}k", v / 1e3)
    } else {
        thousands(c)
    }
}

fn legend(items: &[(String, &str)]) -> String {
    let mut s = String::from("<div class=\"legend\">");
    for (name, c) in items {
        let _ = write!(
            s,
            "<span><i style=\"background:{c}\"></i>{}</span>",
            esc(name)
        );
    }
    s.push_str("</div>");
    s
}

/// Grouped vertical bars: for each group (x), one bar per series; `None` draws "n/a".
fn grouped_bars(
    groups: &[String],
    series: &[(String, &str)],
    values: &[Vec<Option<f64>>],
    y_max: f64,
    bytes: bool,
    y_label: &dyn Fn(f64) -> String,
    value_label: &dyn Fn(f64) -> String,
) -> String {
    let (w, h) = (560.0, 300.0);
    let (left, right, top, bottom) = (64.0, 12.0, 16.0, 44.0);
    let plot_w = w - left - right;
    let plot_h = h - top - bottom;
    let (step, n) = if bytes {
        ticks_bytes(y_max)
    } else {
        ticks(y_max)
    };
    let top_val = step * n as f64;
    let mut s = format!(
        "<svg viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" class=\"chart\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">"
    );
    for k in 0..=n {
        let v = step * k as f64;
        let y = top + plot_h - plot_h * v / top_val;
        let _ = write!(
            s,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" class=\"grid\"/><text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            w - right,
            left - 6.0,
            y + 4.0,
            esc(&y_label(v))
        );
    }
    let gw = plot_w / groups.len().max(1) as f64;
    let nb = series.len().max(1) as f64;
    let bw = (gw * 0.8 / nb).min(56.0);
    for (g, name) in groups.iter().enumerate() {
        let gx = left + gw * g as f64 + (gw - bw * nb) / 2.0;
        for (k, (sname, c)) in series.iter().enumerate() {
            let x = gx + bw * k as f64;
            match values.get(k).and_then(|v| v.get(g)).copied().flatten() {
                Some(v) => {
                    let bh = (plot_h * v / top_val).max(0.0);
                    let y = top + plot_h - bh;
                    let _ = write!(
                        s,
                        "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"{c}\"><title>{}: {}</title></rect><text x=\"{:.1}\" y=\"{:.1}\" class=\"val\" text-anchor=\"middle\">{}</text>",
                        bw - 3.0,
                        esc(sname),
                        esc(&value_label(v)),
                        x + (bw - 3.0) / 2.0,
                        y - 4.0,
                        esc(&value_label(v))
                    );
                }
                None => {
                    let _ = write!(
                        s,
                        "<text x=\"{:.1}\" y=\"{:.1}\" class=\"val muted\" text-anchor=\"middle\">n/a</text>",
                        x + (bw - 3.0) / 2.0,
                        top + plot_h - 4.0
                    );
                }
            }
        }
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"label\" text-anchor=\"middle\">{}</text>",
            left + gw * (g as f64 + 0.5),
            h - bottom + 20.0,
            esc(name)
        );
    }
    let _ = write!(
        s,
        "<line x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" class=\"axis\"/></svg>",
        w - right,
        top + plot_h,
        top + plot_h
    );
    s
}

/// Horizontal bars, one row per label with one bar per series; each bar is read (solid) plus
/// written (striped) bytes.
fn dram_rows(
    labels: &[(String, String)],
    series: &[(String, &str)],
    rw: &[Vec<(u64, u64)>],
) -> String {
    let label_w = 300.0;
    let w = 1180.0;
    let right = 110.0;
    let bar_h = 13.0;
    let gap = 10.0;
    let row_h = bar_h * series.len().max(1) as f64 + gap;
    let top = 24.0;
    let h = top + row_h * labels.len() as f64 + 10.0;
    let max = rw
        .iter()
        .flatten()
        .map(|(r, w)| r + w)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let (step, n) = ticks_bytes(max);
    let top_val = step * n as f64;
    let plot_w = w - label_w - right;
    let mut s = format!(
        "<svg viewBox=\"0 0 {w} {h:.0}\" width=\"{w}\" height=\"{h:.0}\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\"><defs><pattern id=\"stripes\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#fff\" fill-opacity=\"0.0\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#fff\" stroke-width=\"3\"/></pattern></defs>"
    );
    for k in 0..=n {
        let v = step * k as f64;
        let x = label_w + plot_w * v / top_val;
        let _ = write!(
            s,
            "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{}\" y2=\"{:.1}\" class=\"grid\"/><text x=\"{x:.1}\" y=\"14\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            top - 4.0,
            h - 8.0,
            esc(&axis_bytes(v))
        );
    }
    for (r, (label, sub)) in labels.iter().enumerate() {
        let y0 = top + row_h * r as f64;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"label\" text-anchor=\"end\">{}</text><text x=\"{:.1}\" y=\"{:.1}\" class=\"tick mono\" text-anchor=\"end\">{}</text>",
            label_w - 10.0,
            y0 + row_h / 2.0 - 3.0,
            esc(label),
            label_w - 10.0,
            y0 + row_h / 2.0 + 10.0,
            esc(sub)
        );
        for (k, (sname, c)) in series.iter().enumerate() {
            let (rd, wr) = rw.get(k).and_then(|v| v.get(r)).copied().unwrap_or((0, 0));
            let y = y0 + bar_h * k as f64;
            let wr_x = label_w + plot_w * rd as f64 / top_val;
            let rd_w = plot_w * rd as f64 / top_val;
            let wr_w = plot_w * wr as f64 / top_val;
            let title = format!(
                "{sname}: read {}, written {}",
                format_bytes(rd),
                format_bytes(wr)
            );
            let _ = write!(
                s,
                "<g><title>{}</title><rect x=\"{label_w}\" y=\"{y:.1}\" width=\"{rd_w:.1}\" height=\"{:.1}\" fill=\"{c}\"/><rect x=\"{wr_x:.1}\" y=\"{y:.1}\" width=\"{wr_w:.1}\" height=\"{:.1}\" fill=\"{c}\" fill-opacity=\"0.45\"/><rect x=\"{wr_x:.1}\" y=\"{y:.1}\" width=\"{wr_w:.1}\" height=\"{:.1}\" fill=\"url(#stripes)\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"val\">{}</text></g>",
                esc(&title),
                bar_h - 2.0,
                bar_h - 2.0,
                bar_h - 2.0,
                wr_x + wr_w + 5.0,
                y + bar_h - 3.5,
                esc(&format_bytes(rd + wr))
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// Stacked areas of L2 lines by class over the run, as a share of the L2's lines.
/// Most L2 lines held at any sample of any variant (the shared y scale of the charts).
fn max_occupancy(r: &Report) -> u64 {
    r.variants
        .iter()
        .flat_map(|v| v.l2_timeline.samples.iter().chain([&v.l2_timeline.end]))
        .map(|x| x.evict_first + x.normal + x.evict_last)
        .max()
        .unwrap_or(0)
}

/// Stacked areas of L2 lines by class over the run, on a line-count axis up to `y_max` lines
/// (shared by every variant), with the L2's capacity marked when in range.
fn occupancy_chart(v: &VariantReport, l2_lines: u64, y_max: u64, title_color: &str) -> String {
    let (w, h) = (560.0, 220.0);
    let (left, right, top, bottom) = (52.0, 12.0, 28.0, 36.0);
    let plot_w = w - left - right;
    let plot_h = h - top - bottom;
    let samples = &v.l2_timeline.samples;
    let mut s = format!(
        "<svg viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\"><text x=\"{left}\" y=\"16\" class=\"label\" fill=\"{title_color}\">{}</text>",
        esc(&v.name)
    );
    let (step, n) = ticks(y_max.max(1) as f64);
    let y_top = step * n as f64;
    for k in 0..=n {
        let v = step * k as f64;
        let y = top + plot_h - plot_h * v / y_top;
        let _ = write!(
            s,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" class=\"grid\"/><text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">{}</text>",
            w - right,
            left - 6.0,
            y + 4.0,
            esc(&axis_count(v))
        );
    }
    if (l2_lines as f64) <= y_top {
        let y = top + plot_h - plot_h * l2_lines as f64 / y_top;
        let _ = write!(
            s,
            "<line x1=\"{left}\" x2=\"{}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#374151\" stroke-dasharray=\"4 3\"/><text x=\"{}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">L2 capacity</text>",
            w - right,
            w - right - 4.0,
            y - 4.0
        );
    }
    if samples.len() < 2 || l2_lines == 0 {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" class=\"label muted\" text-anchor=\"middle\">too few memory requests for a timeline</text></svg>",
            left + plot_w / 2.0,
            top + plot_h / 2.0
        );
        return s;
    }
    let x_max = samples.last().map_or(1, |x| x.request).max(1) as f64;
    let x_of = |r: u64| left + plot_w * r as f64 / x_max;
    let y_of = |lines: u64| top + plot_h - plot_h * (lines as f64 / y_top).min(1.0);
    // Cumulative stacks: first, first+normal, first+normal+last.
    let stack = |upto: usize, x: &memsys::OccupancySample| -> u64 {
        [x.evict_first, x.normal, x.evict_last][..=upto]
            .iter()
            .sum()
    };
    for class in (0..3).rev() {
        let mut d = String::new();
        for (i, x) in samples.iter().enumerate() {
            let _ = write!(
                d,
                "{}{:.1},{:.1} ",
                if i == 0 { "M" } else { "L" },
                x_of(x.request),
                y_of(stack(class, x))
            );
        }
        for x in samples.iter().rev() {
            let lower = if class == 0 { 0 } else { stack(class - 1, x) };
            let _ = write!(d, "L{:.1},{:.1} ", x_of(x.request), y_of(lower));
        }
        d.push('Z');
        let _ = write!(
            s,
            "<path d=\"{d}\" fill=\"{}\" fill-opacity=\"0.85\" stroke=\"none\"><title>{}</title></path>",
            CLASS_COLORS[class], CLASS_NAMES[class]
        );
    }
    let (step, n) = ticks(x_max);
    for k in 0..=n {
        let v = step * k as f64;
        if v > x_max * 1.001 {
            break;
        }
        let x = x_of(v as u64);
        let _ = write!(
            s,
            "<text x=\"{x:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"middle\">{}</text>",
            top + plot_h + 16.0,
            esc(&axis_count(v))
        );
    }
    let end = &v.l2_timeline.end;
    let _ = write!(
        s,
        "<line x1=\"{left}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" class=\"axis\"/><text x=\"{:.1}\" y=\"{:.1}\" class=\"tick\" text-anchor=\"end\">memory requests →</text><text x=\"{:.1}\" y=\"16\" class=\"tick\" text-anchor=\"end\">at the end: {} first · {} normal · {} last</text></svg>",
        w - right,
        top + plot_h,
        top + plot_h,
        w - right,
        h - 4.0,
        w - right,
        thousands(end.evict_first),
        thousands(end.normal),
        thousands(end.evict_last)
    );
    s
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

fn metric_cell(v: Option<MetricValue>, unit: &str) -> String {
    match (v, unit) {
        (Some(MetricValue::Count(b)), "bytes") => format_bytes(b),
        (Some(MetricValue::Count(b)), "ns") => crate::text::format_ns(b as f64),
        _ => format_value(v),
    }
}

/// The time estimate per variant, fastest first: total, change, bound and every resource.
fn time_table(r: &Report) -> String {
    use crate::timing::Resource;
    const ORDER: [Resource; 7] = [
        Resource::DramReads,
        Resource::DramWrites,
        Resource::L2,
        Resource::L1Shared,
        Resource::Issue,
        Resource::TensorCores,
        Resource::Latency,
    ];
    let ranked = r.ranked_by_time();
    if ranked.is_empty() {
        return String::new();
    }
    let base = r.variants[0].time.as_ref().map(|t| t.ns);
    let mut s = String::from(
        "<div class=\"card\"><h2>Estimated time (gpu__time_duration.sum)</h2><div class=\"scroll\"><table><tr><th class=\"l\">variant</th><th>est. time</th><th>vs original</th><th class=\"l\">bound by</th>",
    );
    for res in ORDER {
        let _ = write!(s, "<th>{}</th>", esc(res.label()));
    }
    s.push_str("</tr>");
    for v in ranked {
        let Some(t) = &v.time else { continue };
        let vs = match base {
            Some(b) if !v.baseline && b > 0.0 => format!("{:+.1}%", (t.ns - b) * 100.0 / b),
            _ => "-".into(),
        };
        let _ = write!(
            s,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td>",
            esc(&v.name),
            crate::text::format_ns(t.ns),
            vs,
            esc(&crate::text::bound_cell(t))
        );
        for res in ORDER {
            let ns = t
                .terms
                .iter()
                .find(|x| x.resource == res)
                .map_or(0.0, |x| x.ns);
            let _ = write!(s, "<td>{}</td>", crate::text::format_ns(ns));
        }
        s.push_str("</tr>");
    }
    let _ = write!(
        s,
        "</table></div><p class=\"note\">An estimate, not a measurement: launch overhead plus each resource's work at its peak rate, overlapped (docs/timing.md). Registers are not counted in occupancy.</p></div>"
    );
    s
}

/// Whether higher is better for a metric (for colouring deltas), if it has a direction.
fn better_when_higher(name: &str) -> Option<bool> {
    if name.ends_with("hit_rate.pct") {
        Some(true)
    } else if name.starts_with("dram__")
        || name == "ptxsim__l1_stale_reads.sum"
        || name == crate::metrics::TIME_METRIC
    {
        Some(false)
    } else {
        None
    }
}

fn compare_table(r: &Report) -> String {
    let base = &r.variants[0];
    let mut s = String::from("<table><tr><th class=\"l\">metric</th><th class=\"l\">name</th>");
    for (i, v) in r.variants.iter().enumerate() {
        let _ = write!(
            s,
            "<th><span style=\"color:{}\">■</span> {}</th>",
            color(i),
            esc(&v.name)
        );
    }
    let single = r.variants.len() == 1;
    if !single {
        s.push_str("</tr><tr><td class=\"l\">rewrite</td><td></td>");
    }
    for v in r.variants.iter().filter(|_| !single) {
        let _ = write!(
            s,
            "<td class=\"name\" style=\"text-align:right\">{}</td>",
            esc(v.rewrite.as_deref().unwrap_or("(original)"))
        );
    }
    s.push_str("</tr>");
    for (name, label) in KEY_METRICS {
        let unit = crate::metrics::unit(name);
        let desc = r
            .metrics
            .iter()
            .find(|m| m.name == *name)
            .map_or("", |m| m.description.as_str());
        let _ = write!(
            s,
            "<tr><td class=\"l\" title=\"{}\">{}</td><td class=\"name\">{}</td>",
            esc(desc),
            esc(label),
            esc(name)
        );
        let b = get(&base.totals, name);
        for v in &r.variants {
            let x = get(&v.totals, name);
            let mut cell = esc(&metric_cell(x, unit));
            if !v.baseline {
                if let (Some(bv), Some(xv)) = (b, x) {
                    let (bf, xf) = (bv.as_f64(), xv.as_f64());
                    if (bf - xf).abs() > 1e-9 {
                        let class = match better_when_higher(name) {
                            Some(up) if (xf > bf) == up => "good",
                            Some(_) => "bad",
                            None => "muted",
                        };
                        let d = match xv {
                            MetricValue::Percent(_) => format!("{:+.2} pt", xf - bf),
                            MetricValue::Count(_) if bf > 0.0 => {
                                format!("{:+.1}%", (xf - bf) * 100.0 / bf)
                            }
                            MetricValue::Count(_) => "new".into(),
                        };
                        let _ = write!(cell, " <span class=\"{class}\">({d})</span>");
                    }
                }
            }
            let _ = write!(s, "<td>{cell}</td>");
        }
        s.push_str("</tr>");
    }
    if single {
        s.push_str("</table>");
        return s;
    }
    s.push_str("<tr><td class=\"l\">lines changed</td><td></td>");
    for v in &r.variants {
        let c = if v.baseline {
            "-".to_string()
        } else if v.skipped.is_empty() {
            v.changes.len().to_string()
        } else {
            format!("{} ({} skipped)", v.changes.len(), v.skipped.len())
        };
        let _ = write!(s, "<td>{c}</td>");
    }
    s.push_str("</tr><tr><td class=\"l\">outputs vs. baseline</td><td></td>");
    for v in &r.variants {
        let _ = write!(
            s,
            "<td class=\"status-{}\">{}</td>",
            esc(&v.outputs.status),
            esc(&v.outputs.status)
        );
    }
    s.push_str("</tr></table>");
    s
}

/// DRAM traffic per source line (or PTX line without `.loc`), for every variant: rows are the
/// lines with the most traffic in any variant.
/// Bytes (read, written).
type ReadWrite = (u64, u64);

/// A chart row: its label and sub-label.
type RowLabel = (String, String);

fn dram_by_line(r: &Report) -> (Vec<RowLabel>, Vec<Vec<ReadWrite>>) {
    let use_source = r.variants.iter().any(|v| !v.source_lines.is_empty());
    // key → per variant (read, written), plus a sub-label.
    let mut keys: BTreeMap<String, (Vec<(u64, u64)>, String)> = BTreeMap::new();
    let n = r.variants.len();
    let rw = |m: &crate::metrics::MetricValues| {
        let c = |k: &str| match get(m, k) {
            Some(MetricValue::Count(c)) => c,
            _ => 0,
        };
        (c("dram__bytes_read.sum"), c("dram__bytes_write.sum"))
    };
    for (i, v) in r.variants.iter().enumerate() {
        if use_source {
            for sl in &v.source_lines {
                let base = sl.file.rsplit(['/', '\\']).next().unwrap_or(&sl.file);
                let key = format!("{base}:{}", sl.line);
                let sub = format!(
                    "PTX {}",
                    sl.ptx_lines
                        .iter()
                        .take(4)
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                        + if sl.ptx_lines.len() > 4 { ", …" } else { "" }
                );
                let e = keys.entry(key).or_insert((vec![(0, 0); n], sub));
                e.0[i] = rw(&sl.metrics);
            }
        } else {
            for l in &v.lines {
                let key = format!("PTX line {}", l.ptx_line);
                let sub: String = l.text.chars().take(44).collect();
                let e = keys.entry(key).or_insert((vec![(0, 0); n], sub));
                e.0[i] = rw(&l.metrics);
            }
        }
    }
    let mut rows: Vec<(String, Vec<ReadWrite>, String)> = keys
        .into_iter()
        .map(|(k, (v, sub))| (k, v, sub))
        .filter(|(_, v, _)| v.iter().any(|(a, b)| a + b > 0))
        .collect();
    rows.sort_by(|a, b| {
        let m = |v: &Vec<(u64, u64)>| v.iter().map(|(r, w)| r + w).max().unwrap_or(0);
        m(&b.1).cmp(&m(&a.1)).then(a.0.cmp(&b.0))
    });
    rows.truncate(12);
    let labels = rows
        .iter()
        .map(|(k, _, sub)| (k.clone(), sub.clone()))
        .collect();
    let per_variant = (0..n)
        .map(|i| rows.iter().map(|(_, v, _)| v[i]).collect())
        .collect();
    (labels, per_variant)
}

fn top_lines_table(r: &Report) -> String {
    let base = &r.variants[0];
    let mut s = String::from(
        "<table><tr><th class=\"l\">PTX line</th><th class=\"l\">source</th><th>L1 hit</th><th>L2 hit</th><th>DRAM read</th><th>DRAM written</th>",
    );
    for v in r.variants.iter().skip(1) {
        let _ = write!(s, "<th>DRAM, {}</th>", esc(&v.name));
    }
    s.push_str("<th class=\"l\">instruction</th></tr>");
    for l in &base.top_dram_lines {
        let Some(row) = base.lines.iter().find(|x| x.ptx_line == *l) else {
            continue;
        };
        let m = |k: &str| metric_cell(get(&row.metrics, k), crate::metrics::unit(k));
        let _ = write!(
            s,
            "<tr><td class=\"l\">{l}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>",
            esc(&row.user_source().map_or("-".into(), |s| s.short())),
            m("l1tex__t_sector_hit_rate.pct"),
            m("lts__t_sector_hit_rate.pct"),
            m("dram__bytes_read.sum"),
            m("dram__bytes_write.sum")
        );
        for v in r.variants.iter().skip(1) {
            let total = v.lines.iter().find(|x| x.ptx_line == *l).map_or(0, |x| {
                let c = |k: &str| match get(&x.metrics, k) {
                    Some(MetricValue::Count(c)) => c,
                    _ => 0,
                };
                c("dram__bytes_read.sum") + c("dram__bytes_write.sum")
            });
            let _ = write!(s, "<td>{}</td>", format_bytes(total));
        }
        let _ = write!(s, "<td class=\"code\">{}</td></tr>", esc(&row.text));
    }
    s.push_str("</table>");
    if base.top_dram_lines.is_empty() {
        s.push_str("<p class=\"note\">No DRAM traffic.</p>");
    }
    s
}

fn lines_table(v: &VariantReport) -> String {
    let mut s = String::from(
        "<table><tr><th class=\"l\">line</th><th class=\"l\">source</th><th>execs</th><th>L1 sectors</th><th>L1 hit</th><th>L2 sectors</th><th>L2 hit</th><th>DRAM read</th><th>DRAM written</th><th>L2 evictions f/n/l</th><th class=\"l\">instruction</th></tr>",
    );
    for row in &v.lines {
        let m = |k: &str| format_value(get(&row.metrics, k));
        let _ = write!(
            s,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}/{}/{}</td><td class=\"code\">{}</td></tr>",
            row.ptx_line,
            esc(&row.user_source().map_or("-".into(), |s| s.short())),
            thousands(row.executions),
            m("l1tex__t_sectors.sum"),
            m("l1tex__t_sector_hit_rate.pct"),
            m("lts__t_sectors.sum"),
            m("lts__t_sector_hit_rate.pct"),
            m("dram__bytes_read.sum"),
            m("dram__bytes_write.sum"),
            m("ptxsim__lts_evictions_evict_first.sum"),
            m("ptxsim__lts_evictions_normal.sum"),
            m("ptxsim__lts_evictions_evict_last.sum"),
            esc(&row.text)
        );
    }
    s.push_str("</table>");
    s
}

/// Renders the whole report as one HTML document.
pub fn render(r: &Report) -> String {
    let mut s = String::new();
    let l = &r.launch;
    let title = format!("ptxsim cache report: {}", l.kernel);
    let _ = write!(
        s,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{CSS}</style></head><body><main>",
        esc(&title)
    );
    let _ = write!(
        s,
        "<h1>{}</h1><p class=\"sub\"><b>{}</b> · grid ({},{},{}) × block ({},{},{}) · {} B dynamic shared · seed {}<br>GPU model <b>{}</b>: {} SMs · L1 {} per SM ({}-way) · L2 {} ({}-way, persisting set-aside {} of max {}) · {} B lines of {} B sectors · {}</p>",
        esc(&title),
        esc(&l.ptx),
        l.grid[0],
        l.grid[1],
        l.grid[2],
        l.block[0],
        l.block[1],
        l.block[2],
        l.shared_bytes,
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
    if r.variants.is_empty() {
        s.push_str("<p>No runs.</p></main></body></html>\n");
        return s;
    }
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
    let series: Vec<(String, &str)> = r
        .variants
        .iter()
        .enumerate()
        .map(|(i, v)| (v.name.clone(), color(i)))
        .collect();

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
        legend(&series),
        grouped_bars(
            &["L1".to_string(), "L2".to_string()],
            &series,
            &hit,
            100.0,
            false,
            &|v| format!("{v:.0}%"),
            &|v| format!("{v:.1}%"),
        ),
        legend(&series),
        grouped_bars(
            &["read".to_string(), "written".to_string()],
            &series,
            &dram,
            dram_max.max(1.0),
            true,
            &axis_bytes,
            &|v| compact_bytes(v.round() as u64),
        )
    );

    let (labels, rw) = dram_by_line(r);
    let by = if r.variants.iter().any(|v| !v.source_lines.is_empty()) {
        "source line"
    } else {
        "PTX line (the module has no .loc line information)"
    };
    let _ = write!(
        s,
        "<div class=\"card\"><h2>DRAM bytes per {by}</h2>{}",
        legend(&series)
    );
    if labels.is_empty() {
        s.push_str("<p class=\"note\">No DRAM traffic.</p>");
    } else {
        s.push_str(&dram_rows(&labels, &series, &rw));
        s.push_str("<p class=\"note\">Solid: bytes read; striped: bytes written. The lines with the most traffic in any variant, at most 12.</p>");
    }
    s.push_str("</div>");

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
    s
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
