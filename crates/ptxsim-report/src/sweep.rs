//! The sweep report (`DIR/report.html` of `ptxsim sweep`): one self-contained page (inline
//! CSS, no scripts, no network) with heatmaps of the L2 hit rate and the DRAM traffic over two
//! axes of the sweep, one panel per value of the other axes, and the table of every row.

use crate::html::{esc, CSS};
use crate::metrics::{MetricInfo, MetricValue};
use crate::text::{format_bytes, format_value, thousands};
use serde_json::Value;
use std::fmt::Write as _;

/// A sweep's rows as the report draws them.
pub struct SweepTable<'a> {
    pub title: String,
    pub columns: &'a [String],
    /// How many leading columns are axes (the launch's own axes, variant, GPU, set-aside,
    /// seed, step, kernel); then `outputs_equal`, then the metrics.
    pub axis_columns: usize,
    pub rows: &'a [Vec<Value>],
    pub metrics: &'a [MetricInfo],
    /// (point, error) of the points that failed.
    pub failures: &'a [(String, String)],
    /// The heatmaps' axes (default: the first two axes with more than one value).
    pub x: Option<&'a str>,
    pub y: Option<&'a str>,
}

/// The metrics drawn as heatmaps, and whether higher is better.
const HEATMAPS: [(&str, bool); 2] = [
    ("lts__t_sector_hit_rate.pct", true),
    ("dram__bytes_read.sum", false),
];

/// Panels drawn per heatmap metric at most (the table holds every row).
const MAX_PANELS: usize = 24;

fn text_of(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn metric_text(v: &Value, unit: &str) -> String {
    let value = match v {
        Value::Number(n) if n.is_u64() => n.as_u64().map(MetricValue::Count),
        Value::Number(n) => n.as_f64().map(MetricValue::Percent),
        _ => None,
    };
    match value {
        Some(MetricValue::Count(c)) if unit == "bytes" => format_bytes(c),
        Some(MetricValue::Count(c)) => thousands(c),
        other => format_value(other),
    }
}

/// Distinct values of column `c`, in order of appearance.
fn distinct(rows: &[Vec<Value>], c: usize) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for r in rows {
        if !out.contains(&r[c]) {
            out.push(r[c].clone());
        }
    }
    out
}

/// A cell colour: light for the worst value, dark blue for the best.
fn shade(v: f64, lo: f64, hi: f64, higher_better: bool) -> (String, &'static str) {
    // One value everywhere: a middle shade, neither best nor worst.
    let mut t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
    if !higher_better && hi > lo {
        t = 1.0 - t;
    }
    let light = 94.0 - 52.0 * t;
    let text = if light < 62.0 { "#fff" } else { "#1d2330" };
    (format!("hsl(212,62%,{light:.0}%)"), text)
}

fn heatmap_axes(t: &SweepTable) -> Result<(usize, Option<usize>), String> {
    let axes = &t.columns[..t.axis_columns];
    let find = |name: &str| {
        axes.iter().position(|c| c == name).ok_or_else(|| {
            format!(
                "report axis `{name}` is not an axis of the sweep ({})",
                axes.join(", ")
            )
        })
    };
    let varying: Vec<usize> = (0..t.axis_columns)
        .filter(|&c| distinct(t.rows, c).len() > 1)
        .collect();
    let y = match t.y {
        Some(n) => find(n)?,
        None => *varying.first().unwrap_or(&0),
    };
    let x = match t.x {
        Some(n) => Some(find(n)?),
        None => varying.iter().copied().find(|&c| c != y),
    };
    Ok((y, x))
}

fn heatmap(
    t: &SweepTable,
    metric: usize,
    higher_better: bool,
    y: usize,
    x: Option<usize>,
) -> String {
    let col = t.axis_columns + 1 + metric;
    let info = &t.metrics[metric];
    let values: Vec<f64> = t.rows.iter().filter_map(|r| r[col].as_f64()).collect();
    if values.is_empty() {
        return String::new();
    }
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    // Panels: the other varying axes.
    let others: Vec<usize> = (0..t.axis_columns)
        .filter(|&c| c != y && Some(c) != x && distinct(t.rows, c).len() > 1)
        .collect();
    let key = |r: &Vec<Value>| others.iter().map(|&c| r[c].clone()).collect::<Vec<_>>();
    let mut panels: Vec<Vec<Value>> = Vec::new();
    for r in t.rows {
        let k = key(r);
        if !panels.contains(&k) {
            panels.push(k);
        }
    }
    let ys = distinct(t.rows, y);
    let xs = x.map_or_else(|| vec![Value::Null], |x| distinct(t.rows, x));
    let mut s = String::new();
    let _ = write!(
        s,
        "<div class=\"card\"><h2>{} <span class=\"muted\">({})</span></h2><p class=\"note\">{}; darker is better.</p><div class=\"row heat\">",
        esc(&info.name),
        esc(&info.unit),
        esc(&info.description)
    );
    for panel in panels.iter().take(MAX_PANELS) {
        let title: Vec<String> = others
            .iter()
            .zip(panel)
            .map(|(&c, v)| format!("{}={}", t.columns[c], text_of(v)))
            .collect();
        let _ = write!(
            s,
            "<div class=\"panel\"><p class=\"ptitle\">{}</p><table class=\"heatmap\"><tr><th class=\"l\">{} \\ {}</th>",
            esc(&title.join(" · ")),
            esc(&t.columns[y]),
            esc(x.map_or("", |x| t.columns[x].as_str()))
        );
        for xv in &xs {
            let _ = write!(s, "<th>{}</th>", esc(&text_of(xv)));
        }
        s.push_str("</tr>");
        for yv in &ys {
            let _ = write!(s, "<tr><th class=\"l\">{}</th>", esc(&text_of(yv)));
            for xv in &xs {
                let cell = t.rows.iter().find(|r| {
                    key(r) == *panel
                        && r[y] == *yv
                        && match x {
                            Some(x) => r[x] == *xv,
                            None => true,
                        }
                });
                match cell.map(|r| &r[col]) {
                    Some(v) if v.as_f64().is_some() => {
                        let (bg, fg) = shade(v.as_f64().unwrap_or(0.0), lo, hi, higher_better);
                        let _ = write!(
                            s,
                            "<td style=\"background:{bg};color:{fg}\">{}</td>",
                            esc(&metric_text(v, &info.unit))
                        );
                    }
                    _ => s.push_str("<td class=\"muted\">-</td>"),
                }
            }
            s.push_str("</tr>");
        }
        s.push_str("</table></div>");
    }
    s.push_str("</div>");
    if panels.len() > MAX_PANELS {
        let _ = write!(
            s,
            "<p class=\"note\">{} more panels in the table below and results.csv.</p>",
            panels.len() - MAX_PANELS
        );
    }
    s.push_str("</div>");
    s
}

fn rows_table(t: &SweepTable) -> String {
    let mut s = String::from(
        "<div class=\"card\"><h2>Every point</h2><div class=\"scroll\"><table class=\"rows\"><tr>",
    );
    for (i, c) in t.columns.iter().enumerate() {
        let class = if i < t.axis_columns {
            " class=\"l\""
        } else {
            ""
        };
        let _ = write!(s, "<th{class}>{}</th>", esc(c));
    }
    s.push_str("</tr>");
    for r in t.rows {
        s.push_str("<tr>");
        for (i, v) in r.iter().enumerate() {
            if i < t.axis_columns {
                let _ = write!(s, "<td class=\"l\">{}</td>", esc(&text_of(v)));
            } else if i == t.axis_columns {
                let (class, text) = match v {
                    Value::Bool(true) => ("status-identical", "yes"),
                    Value::Bool(false) => ("status-different", "NO"),
                    _ => ("muted", "-"),
                };
                let _ = write!(s, "<td class=\"{class}\">{text}</td>");
            } else {
                let unit = &t.metrics[i - t.axis_columns - 1].unit;
                let _ = write!(s, "<td>{}</td>", esc(&metric_text(v, unit)));
            }
        }
        s.push_str("</tr>");
    }
    s.push_str("</table></div></div>");
    s
}

/// Renders the sweep report.
pub fn render_html(t: &SweepTable) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{}</title><style>{CSS}{SWEEP_CSS}</style></head><body><main>",
        esc(&t.title)
    );
    let different = t
        .rows
        .iter()
        .filter(|r| r[t.axis_columns] == Value::Bool(false))
        .count();
    let _ = write!(
        s,
        "<h1>{}</h1><p class=\"sub\">{} rows · {} failed points · {} rows whose outputs differ from the original's</p>",
        esc(&t.title),
        t.rows.len(),
        t.failures.len(),
        different
    );
    if !t.failures.is_empty() {
        s.push_str("<div class=\"card err\"><h2>Failed points</h2>");
        for (p, e) in t.failures {
            let _ = write!(s, "<p><b>{}</b>: {}</p>", esc(p), esc(e));
        }
        s.push_str("</div>");
    }
    if !t.rows.is_empty() {
        match heatmap_axes(t) {
            Ok((y, x)) => {
                for (name, higher_better) in HEATMAPS {
                    if let Some(m) = t.metrics.iter().position(|m| m.name == name) {
                        s.push_str(&heatmap(t, m, higher_better, y, x));
                    }
                }
            }
            Err(e) => {
                let _ = write!(s, "<div class=\"card err\"><p>{}</p></div>", esc(&e));
            }
        }
        s.push_str(&rows_table(t));
    }
    s.push_str("</main></body></html>\n");
    s
}

const SWEEP_CSS: &str = r#"
.heat { align-items:flex-start; }
.panel { flex:0 1 auto; }
.ptitle { margin:0 0 4px; font-weight:600; font-size:13px; }
table.heatmap { width:auto; }
table.heatmap td { min-width:88px; text-align:center; font-variant-numeric:tabular-nums; }
table.rows td, table.rows th { font-size:12px; }
"#;
