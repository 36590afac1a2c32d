//! Replays every saved fuzz input (`fuzz/regressions/<target>/*`: the crashes and hangs the
//! campaigns of `scripts/fuzz` found, and hand-made inputs for resource limits) through its
//! target's code, the same code the AFL++ binaries run (fuzz/src/targets.rs, included here so
//! that CI needs no AFL++). A target panicking, aborting or hanging fails the test.

#[allow(dead_code)]
#[path = "../../../fuzz/src/targets.rs"]
mod targets;

use std::path::Path;
use std::time::Instant;

fn regressions_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions")
}

#[test]
fn every_saved_fuzz_input_runs_cleanly() {
    let mut replayed = 0;
    for (name, target) in targets::TARGETS {
        let dir = regressions_dir().join(name);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            let data = std::fs::read(&file).unwrap();
            let started = Instant::now();
            target(&data);
            // A hang found by a campaign must now end by its limits (a few seconds at most
            // even in a debug build); far longer means the limit does not apply.
            assert!(
                started.elapsed().as_secs() < 60,
                "{} took {:?}",
                file.display(),
                started.elapsed()
            );
            replayed += 1;
        }
    }
    assert!(
        replayed > 0,
        "no saved inputs under {}",
        regressions_dir().display()
    );
}

#[test]
fn every_target_has_a_regression_directory_the_script_knows() {
    let script =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/fuzz"))
            .unwrap();
    for (name, _) in targets::TARGETS {
        assert!(
            script.contains(name),
            "scripts/fuzz does not know target {name}"
        );
        assert!(
            regressions_dir().join(name).is_dir(),
            "fuzz/regressions/{name}/ is missing"
        );
    }
}
