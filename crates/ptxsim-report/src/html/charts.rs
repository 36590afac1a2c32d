//! Inline SVG charts: palette, axis ticks and labels, legends, grouped bars, DRAM rows and the
//! L2 occupancy areas.

use super::*;

/// Series colours (Tableau 10), one per variant.
pub(super) const PALETTE: &[&str] = &[
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];
/// Eviction classes: evict-first, normal, evict-last.
pub(super) const CLASS_COLORS: [&str; 3] = ["#e15759", "#4e79a7", "#59a14f"];
pub(super) const CLASS_NAMES: [&str; 3] = ["evict_first", "normal", "evict_last"];

pub(super) fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Round tick values from 0 to at least `max`: (step, count).
pub(super) fn ticks(max: f64) -> (f64, usize) {
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
pub(super) fn ticks_bytes(max: f64) -> (f64, usize) {
    let mut unit = 1.0;
    while max / unit >= 1024.0 && unit < 1024f64.powi(4) {
        unit *= 1024.0;
    }
    let (step, n) = ticks(max / unit);
    (step * unit, n)
}

/// Short byte labels for axes: `512 B`, `64 KiB`, `1.5 MiB`.
pub(super) fn axis_bytes(v: f64) -> String {
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
pub(super) fn compact_bytes(b: u64) -> String {
    let s = format_bytes(b);
    match s.split_once(' ') {
        Some((num, unit)) if num.parse::<f64>().is_ok_and(|x| x >= 100.0) => {
            format!("{:.0} {unit}", num.parse::<f64>().unwrap_or(0.0))
        }
        _ => s,
    }
}

pub(super) fn axis_count(v: f64) -> String {
    let c = v.round() as u64;
    if c >= 1_000_000 {
        format!("{:.1}M", v / 1e6)
    } else if c >= 10_000 {
        format!("{:.0}k", v / 1e3)
    } else {
        thousands(c)
    }
}

pub(super) fn legend(items: &[(String, &str)]) -> String {
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
pub(super) fn grouped_bars(
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
pub(super) fn dram_rows(
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
pub(super) fn max_occupancy(r: &Report) -> u64 {
    r.variants
        .iter()
        .flat_map(|v| v.l2_timeline.samples.iter().chain([&v.l2_timeline.end]))
        .map(|x| x.evict_first + x.normal + x.evict_last)
        .max()
        .unwrap_or(0)
}

/// Stacked areas of L2 lines by class over the run, on a line-count axis up to `y_max` lines
/// (shared by every variant), with the L2's capacity marked when in range.
pub(super) fn occupancy_chart(
    v: &VariantReport,
    l2_lines: u64,
    y_max: u64,
    title_color: &str,
) -> String {
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
