//! `ptxsim run --launch FILE` for multi-step launch files (`[[buffer]]`, `[[step]]`): the
//! kernels a library's host code launches one after the other over shared buffers, with
//! memsets in between (docs/launch-format.md).

use super::run::{fail, gpu_config, run_launch_steps, Args, LaunchArgs};
use ptxsim::launch::{load_session, prepare_steps, read_npy, write_npy, LaunchFile};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn run(launch: &LaunchArgs, args: &Args, file: LaunchFile, base: &Path) -> ExitCode {
    if args.report.is_some() || args.trace_out.is_some() || args.hazards_json.is_some() {
        return fail(
            "--report, --trace-out and --hazards-json take one-kernel launches, not a \
             multi-step launch file",
        );
    }
    let gpu = match &file.gpu {
        Some(g) if g.ends_with(".toml") => base.join(g).display().to_string(),
        Some(g) => g.clone(),
        None => launch.gpu.clone(),
    };
    let gpu = match gpu_config(&gpu) {
        Ok(g) => g,
        Err(e) => return fail(e),
    };
    let ptx = base.join(&file.ptx);
    let mut prepared = match load_session(&ptx, gpu)
        .and_then(|s| prepare_steps(s, &file, base))
        .and_then(|p| p.check_runnable(&ptx).map(|()| p))
    {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let mut outputs = Vec::new();
    for o in file
        .out
        .iter()
        .map(|(i, p)| format!("{i}={}", base.join(p).display()))
        .chain(args.out.iter().cloned())
    {
        let Some((name, path)) = o.split_once('=') else {
            return fail(format!(
                "--out `{o}`: write NAME=PATH (a buffer of the file)"
            ));
        };
        outputs.push((name.to_string(), PathBuf::from(path)));
    }
    let mut config = ptx_exec::LaunchConfig {
        seed: launch.seed.unwrap_or(file.seed),
        cache_model: !args.no_cache_model,
        hazards: args.hazards,
        ..Default::default()
    };
    if let Some(m) = launch.max_steps.or(file.max_steps) {
        config.max_steps = m;
    }
    let mut hazards_found = 0;
    for i in 0..prepared.steps.len() {
        let what = prepared.steps[i].describe();
        let label = format!("step {i}");
        let result = run_launch_steps(&mut prepared, i, &config, &label);
        if args.hazards {
            if let ptxsim::launch::PreparedStep::Launch { kernel, .. } = &prepared.steps[i] {
                println!("step {i}: {what}");
                match super::hazards::report(&prepared.session, kernel, None) {
                    Ok(n) => hazards_found += n,
                    Err(e) => return fail(e),
                }
            }
        }
        match result {
            Ok(Some((s, elapsed))) => println!(
                "step {i}: {what}: {} warp-instructions, {} thread-instructions in {:.3} s",
                s.warp_instructions,
                s.thread_instructions,
                elapsed.as_secs_f64()
            ),
            Ok(None) => println!("step {i}: {what}"),
            Err((msg, code)) => {
                eprintln!("error: step {i} ({what}): {msg}");
                return code;
            }
        }
    }
    for (name, path) in &outputs {
        let out = match prepared.buffer(name) {
            Ok(a) => a,
            Err(e) => return fail(format!("--out {name}: {e}")),
        };
        let written = if path.extension().is_some_and(|e| e == "bin") {
            std::fs::write(path, &out.bytes).map_err(|e| e.to_string())
        } else {
            write_npy(path, &out).map_err(|e| e.to_string())
        };
        if let Err(e) = written {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
        println!("wrote buffer `{name}` to {}", path.display());
    }
    let mut matched = true;
    for ex in &file.expect {
        let name = ex.buffer.as_deref().unwrap_or_default();
        let want = match read_npy(&base.join(&ex.npy)) {
            Ok(w) => w,
            Err(e) => return fail(e),
        };
        let got = match prepared.buffer(name) {
            Ok(g) => g,
            Err(e) => return fail(e),
        };
        match ptxsim::launch::compare(&got, &want, ex.max_ulp) {
            Ok(c) if c.mismatches == 0 => println!(
                "expect: {} matches {} ({} elements, max {} ulp, bound {})",
                ex.what(),
                ex.npy.display(),
                c.elements,
                c.max_ulp_seen,
                ex.max_ulp
            ),
            Ok(c) => {
                matched = false;
                let (i, got, want) = c.first_mismatch.unwrap_or_default();
                println!(
                    "expect: {} differs from {} in {} of {} elements; first at [{i}]: got {got}, expected {want}",
                    ex.what(),
                    ex.npy.display(),
                    c.mismatches,
                    c.elements
                );
            }
            Err(e) => return fail(e),
        }
    }
    if !matched {
        ExitCode::from(1)
    } else if args.fail_on_hazard && hazards_found > 0 {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    }
}
