//! HTML tables: time estimates, the variant comparison, DRAM by line, top lines and per-line
//! counters.

use super::*;

pub(super) fn metric_cell(v: Option<MetricValue>, unit: &str) -> String {
    match (v, unit) {
        (Some(MetricValue::Count(b)), "bytes") => format_bytes(b),
        (Some(MetricValue::Count(b)), "ns") => crate::text::format_ns(b as f64),
        _ => format_value(v),
    }
}

/// The time estimate per variant, fastest first: total, change, bound and every resource.
pub(super) fn time_table(r: &Report) -> String {
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
pub(super) fn better_when_higher(name: &str) -> Option<bool> {
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

pub(super) fn compare_table(r: &Report) -> String {
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
pub(super) type ReadWrite = (u64, u64);

/// A chart row: its label and sub-label.
pub(super) type RowLabel = (String, String);

pub(super) fn dram_by_line(r: &Report) -> (Vec<RowLabel>, Vec<Vec<ReadWrite>>) {
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

pub(super) fn top_lines_table(r: &Report) -> String {
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
            esc(&row.where_text()),
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

pub(super) fn lines_table(v: &VariantReport) -> String {
    let mut s = String::from(
        "<table><tr><th class=\"l\">line</th><th class=\"l\">source</th><th>execs</th><th>L1 sectors</th><th>L1 hit</th><th>L2 sectors</th><th>L2 hit</th><th>DRAM read</th><th>DRAM written</th><th>L2 evictions f/n/l</th><th>sectors / ideal</th><th class=\"l\">instruction</th></tr>",
    );
    for row in &v.lines {
        let m = |k: &str| format_value(get(&row.metrics, k));
        let _ = write!(
            s,
            "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}/{}/{}</td><td>{} / {}</td><td class=\"code\">{}</td></tr>",
            row.ptx_line,
            esc(&row.where_text()),
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
            m(crate::metrics::SECTORS_METRIC),
            m(crate::metrics::IDEAL_SECTORS_METRIC),
            esc(&row.text)
        );
    }
    s.push_str("</table>");
    s
}
