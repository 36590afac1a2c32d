//! `--ncu-csv FILE` / `--ncu-launch N` of `run` and `compare`: the user's own Nsight Compute
//! export, read before the run (a bad file fails at once) and set beside the report.

use clap::Args as ClapArgs;
use ptxsim_report::ncu::{self, NcuCsv, NcuLaunch};
use ptxsim_report::Report;
use std::path::PathBuf;

#[derive(ClapArgs, Clone, Default)]
pub struct NcuArgs {
    /// An `ncu --csv --page raw` export of this kernel on a GPU: each metric both have is
    /// shown with ptxsim's value, the measured one and the difference (beside the original
    /// in `compare`). The launched kernel's name picks its rows.
    #[arg(long, value_name = "FILE")]
    pub ncu_csv: Option<PathBuf>,
    /// Which launch of the kernel in the export (0: its first).
    #[arg(long, value_name = "N", default_value_t = 0, requires = "ncu_csv")]
    pub ncu_launch: usize,
}

/// The export's launch of `kernel`, read and picked.
pub struct Loaded {
    file: String,
    launch: NcuLaunch,
    index: usize,
}

impl NcuArgs {
    /// Reads the export and picks the launch (`None` without `--ncu-csv`).
    pub fn load(&self, kernel: &str) -> Result<Option<Loaded>, String> {
        let Some(path) = &self.ncu_csv else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--ncu-csv: cannot read {}: {e}", path.display()))?;
        let csv = NcuCsv::parse(&text).map_err(|e| format!("--ncu-csv {}: {e}", path.display()))?;
        let launch = csv
            .launch_of(kernel, self.ncu_launch)
            .map_err(|e| format!("--ncu-csv {}: {e}", path.display()))?
            .clone();
        Ok(Some(Loaded {
            file: path.display().to_string(),
            launch,
            index: self.ncu_launch,
        }))
    }
}

/// Sets the measurements beside the report's first variant.
pub fn attach(report: &mut Report, loaded: Option<&Loaded>) {
    if let (Some(l), Some(v)) = (loaded, report.variants.first()) {
        report.ncu = Some(ncu::compare(&l.file, &l.launch, l.index, &v.totals));
    }
}
