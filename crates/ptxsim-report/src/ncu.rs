//! The user's own Nsight Compute measurements beside ptxsim's: `ncu --csv --page raw` output
//! read, the launched kernel's row picked, and each metric both have shown with the difference.
//!
//! The raw page is one header row (`"ID","Process ID",…,"Kernel Name",…` then one column per
//! metric), one units row (empty for the identification columns, `byte`, `nsecond`, `%`, …)
//! and one row per profiled launch. Numbers are quoted and may carry thousands separators
//! (`"2,048"`); ncu's default `--print-units auto` scales units (`Kbyte`, `usecond`), which
//! are brought back to ptxsim's (bytes, nanoseconds). Lines before the header (`==PROF==`
//! messages, the program's own output) are skipped.

use crate::metrics::{self, MetricValue, MetricValues};
use serde::{Deserialize, Serialize};

/// One profiled launch of the raw page.
#[derive(Debug, Clone, PartialEq)]
pub struct NcuLaunch {
    /// The `ID` column (ncu's launch number over the whole profile).
    pub id: String,
    pub kernel: String,
    /// Metric name → value in ptxsim's unit (bytes, nanoseconds, percent, counts), with the
    /// unit the file gave.
    pub metrics: Vec<(String, f64, String)>,
}

/// A whole raw page.
#[derive(Debug, Clone, PartialEq)]
pub struct NcuCsv {
    pub launches: Vec<NcuLaunch>,
}

/// An error reading an export, with what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NcuError(pub String);

impl std::fmt::Display for NcuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NcuError {}

/// Columns before the metrics that identify a launch (not metrics themselves).
const ID_COLUMNS: &[&str] = &[
    "ID",
    "Process ID",
    "Process Name",
    "Host Name",
    "Kernel Name",
    "Kernel Time",
    "Context",
    "Stream",
    "Block Size",
    "Grid Size",
    "Device",
    "CC",
];

/// Splits one CSV record (quoted fields, `""` for a quote, commas inside quotes).
fn fields(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A number as ncu prints it: thousands separators, `n/a` (none).
fn number(text: &str) -> Option<f64> {
    let t: String = text.chars().filter(|c| *c != ',' && *c != ' ').collect();
    t.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The factor that brings `unit` to ptxsim's base unit, and the base unit's name.
fn scale(unit: &str) -> (f64, &str) {
    match unit {
        "nsecond" => return (1.0, "ns"),
        "usecond" => return (1e3, "ns"),
        "msecond" => return (1e6, "ns"),
        "second" => return (1e9, "ns"),
        "cycle" | "" | "%" => return (1.0, unit),
        _ => {}
    }
    // ncu's SI prefixes (`Kbyte` = 1,000 bytes, `Msector`).
    let mut chars = unit.chars();
    let factor = match chars.next() {
        Some('K') => 1e3,
        Some('M') => 1e6,
        Some('G') => 1e9,
        Some('T') => 1e12,
        _ => return (1.0, unit),
    };
    let rest = chars.as_str();
    if rest.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
        (factor, rest)
    } else {
        (1.0, unit)
    }
}

impl NcuCsv {
    /// Reads a raw page.
    pub fn parse(text: &str) -> Result<NcuCsv, NcuError> {
        let mut lines = text.lines().map(|l| l.trim_end_matches('\r'));
        let header = lines
            .by_ref()
            .map(fields)
            .find(|f| f.first().map(String::as_str) == Some("ID"))
            .ok_or_else(|| {
                NcuError(
                    "no `\"ID\",…` header row: give the output of `ncu --csv --page raw` (the \
                     details page has Section Name/Metric Name columns instead)"
                        .into(),
                )
            })?;
        if header.iter().any(|h| h == "Metric Name") {
            return Err(NcuError(
                "this is ncu's details page (a Metric Name column); export with --page raw".into(),
            ));
        }
        let kernel_col = header
            .iter()
            .position(|h| h == "Kernel Name")
            .ok_or_else(|| NcuError("the header has no Kernel Name column".into()))?;
        let units = lines
            .next()
            .map(fields)
            .ok_or_else(|| NcuError("the units row after the header is missing".into()))?;
        let mut launches = Vec::new();
        for (n, line) in lines.enumerate() {
            if !line.starts_with('"') {
                continue; // `==PROF==` messages and program output between rows
            }
            let row = fields(line);
            if row.len() != header.len() {
                return Err(NcuError(format!(
                    "launch row {} has {} fields, the header {}",
                    n + 1,
                    row.len(),
                    header.len()
                )));
            }
            let mut metrics = Vec::new();
            for (i, name) in header.iter().enumerate() {
                if ID_COLUMNS.contains(&name.as_str()) {
                    continue;
                }
                let unit = units.get(i).map_or("", String::as_str);
                if let Some(v) = number(&row[i]) {
                    let (factor, base) = scale(unit);
                    metrics.push((name.clone(), v * factor, base.to_string()));
                }
            }
            launches.push(NcuLaunch {
                id: row[0].clone(),
                kernel: row[kernel_col].clone(),
                metrics,
            });
        }
        Ok(NcuCsv { launches })
    }

    /// The `nth` (0-based) launch of `kernel`: ncu names a kernel as the source declares it,
    /// `saxpy(int, float *)` for C++ or `saxpy` for `extern "C"`, so a name matches up to the
    /// parameter list (and a mangled PTX name matches its demangled base name's prefix).
    pub fn launch_of(&self, kernel: &str, nth: usize) -> Result<&NcuLaunch, NcuError> {
        let matching: Vec<&NcuLaunch> = self
            .launches
            .iter()
            .filter(|l| kernel_matches(&l.kernel, kernel))
            .collect();
        match matching.get(nth) {
            Some(l) => Ok(*l),
            None if matching.is_empty() => {
                let mut names: Vec<&str> =
                    self.launches.iter().map(|l| l.kernel.as_str()).collect();
                names.dedup();
                Err(NcuError(format!(
                    "no launch of `{kernel}` in the export (its kernels: {})",
                    names.join(", ")
                )))
            }
            None => Err(NcuError(format!(
                "`{kernel}` has {} launch(es) in the export; --ncu-launch {nth} asks for launch {}",
                matching.len(),
                nth + 1
            ))),
        }
    }
}

/// Whether ncu's kernel name `ncu` names the PTX entry `ptx`.
fn kernel_matches(ncu: &str, ptx: &str) -> bool {
    let base = ncu.split('(').next().unwrap_or(ncu).trim();
    // `void ns::k<int>(…)` → the last path segment without templates.
    let base = base.rsplit(' ').next().unwrap_or(base);
    let short = base.split('<').next().unwrap_or(base);
    let short = short.rsplit("::").next().unwrap_or(short);
    base == ptx || short == ptx || demangled_base(ptx).is_some_and(|d| d == short)
}

/// The identifier of a simple Itanium-mangled name (`_Z6kernelPfi` → `kernel`).
fn demangled_base(mangled: &str) -> Option<&str> {
    let rest = mangled.strip_prefix("_Z")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    rest.get(digits..digits + len)
}

/// One metric both have.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NcuRow {
    pub metric: String,
    /// ptxsim's unit (bytes, ns, %, counts).
    pub unit: String,
    pub ptxsim: f64,
    pub measured: f64,
    /// ptxsim − measured (percentage points for `%` metrics).
    pub difference: f64,
    /// The difference relative to the measurement, percent (`None` when it is 0).
    pub relative_pct: Option<f64>,
}

/// The measurements beside a variant's metrics (the original's, in `compare`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NcuComparison {
    /// The export as given.
    pub file: String,
    /// ncu's name of the kernel and the launch's `ID`.
    pub kernel: String,
    pub launch_id: String,
    /// Which launch of the kernel in the export (0-based, `--ncu-launch`).
    pub launch_index: usize,
    pub rows: Vec<NcuRow>,
    /// Metrics of the export ptxsim has no counterpart for (counted, not listed).
    pub unmatched: usize,
}

/// Pairs `launch`'s metrics with `totals` (a variant's).
pub fn compare(
    file: &str,
    launch: &NcuLaunch,
    launch_index: usize,
    totals: &MetricValues,
) -> NcuComparison {
    let mut rows = Vec::new();
    let mut unmatched = 0;
    for (name, measured, _) in &launch.metrics {
        let Some(ours) = metrics::get(totals, name) else {
            unmatched += 1;
            continue;
        };
        let ptxsim = ours.as_f64();
        let difference = ptxsim - measured;
        rows.push(NcuRow {
            metric: name.clone(),
            unit: match ours {
                MetricValue::Percent(_) => "%".into(),
                MetricValue::Count(_) => metrics::unit(name).to_string(),
            },
            ptxsim,
            measured: *measured,
            difference,
            relative_pct: (*measured != 0.0).then(|| 100.0 * difference / measured),
        });
    }
    NcuComparison {
        file: file.to_string(),
        kernel: launch.kernel.clone(),
        launch_id: launch.id.clone(),
        launch_index,
        rows,
        unmatched,
    }
}

/// `ptxsim` beside Nsight Compute, as a text table (empty without `--ncu-csv`).
pub fn text_section(r: &crate::Report) -> String {
    use std::fmt::Write;
    let Some(n) = &r.ncu else {
        return String::new();
    };
    let mut s = format!(
        "\nNsight Compute ({}, `{}` launch ID {}) beside ptxsim's {}\n",
        n.file,
        n.kernel,
        n.launch_id,
        r.variants.first().map_or("run", |v| v.name.as_str())
    );
    let mut rows = vec![vec![
        "metric".to_string(),
        "ptxsim".into(),
        "measured".into(),
        "difference".into(),
        "unit".into(),
    ]];
    for row in &n.rows {
        rows.push(vec![
            row.metric.clone(),
            fmt_number(row.ptxsim),
            fmt_number(row.measured),
            match row.relative_pct {
                Some(p) if row.unit != "%" => format!("{} ({p:+.1} %)", signed(row.difference)),
                _ => signed(row.difference),
            },
            row.unit.clone(),
        ]);
    }
    s.push_str(&crate::text::aligned_public(&rows));
    let _ = writeln!(
        s,
        "  ({} metric(s) of the export have no ptxsim counterpart)",
        n.unmatched
    );
    s
}

/// The comparison as an HTML section (empty without `--ncu-csv`).
pub fn html_section(r: &crate::Report) -> String {
    use crate::html::esc;
    use std::fmt::Write;
    let Some(n) = &r.ncu else {
        return String::new();
    };
    let mut s = format!(
        "<h2>Nsight Compute beside ptxsim</h2><p class=\"note\">{} · <code>{}</code> launch ID {} · {} metric(s) of the export have no ptxsim counterpart</p><table><tr><th class=\"l\">metric</th><th>ptxsim</th><th>measured</th><th>difference</th><th class=\"l\">unit</th></tr>",
        esc(&n.file),
        esc(&n.kernel),
        esc(&n.launch_id),
        n.unmatched
    );
    for row in &n.rows {
        let _ = write!(
            s,
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l\">{}</td></tr>",
            esc(&row.metric),
            fmt_number(row.ptxsim),
            fmt_number(row.measured),
            signed(row.difference),
            esc(&row.unit)
        );
    }
    s.push_str("</table>");
    s
}

/// `+1,024`, `-3.50`, `0`.
fn signed(v: f64) -> String {
    if v > 0.0 {
        format!("+{}", fmt_number(v))
    } else {
        fmt_number(v)
    }
}

/// An integer with separators when whole, else two decimals.
fn fmt_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        let t = crate::text::thousands(v.abs() as u64);
        if v < 0.0 {
            format!("-{t}")
        } else {
            t
        }
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_keep_commas_and_quotes_inside_quotes() {
        assert_eq!(
            fields(r#""0","saxpy(int, float *)","2,048","a ""b""",x"#),
            ["0", "saxpy(int, float *)", "2,048", "a \"b\"", "x"]
        );
    }

    #[test]
    fn units_scale_to_bytes_and_nanoseconds() {
        assert_eq!(scale("Kbyte"), (1e3, "byte"));
        assert_eq!(scale("Mbyte"), (1e6, "byte"));
        assert_eq!(scale("usecond"), (1e3, "ns"));
        assert_eq!(scale("%"), (1.0, "%"));
        assert_eq!(scale("sector"), (1.0, "sector"));
        assert_eq!(number("1,234,567"), Some(1234567.0));
        assert_eq!(number("n/a"), None);
    }

    #[test]
    fn kernel_names_match_as_ncu_prints_them() {
        assert!(kernel_matches(
            "saxpy(int, float, float *, float *)",
            "saxpy"
        ));
        assert!(kernel_matches("saxpy", "saxpy"));
        assert!(kernel_matches("void ns::gemm<float>(float *, int)", "gemm"));
        assert!(kernel_matches("kernel(float *, int)", "_Z6kernelPfi"));
        assert!(!kernel_matches("saxpy2(int)", "saxpy"));
    }
}
