//! The fuzz targets' logic, one function per target, each taking the raw input bytes. A
//! target returns normally on any input; a panic (a failed invariant or an unexpected crash)
//! is a finding. `src/bin/*.rs` wrap these in `afl::fuzz!`; the workspace test
//! `crates/ptxsim/tests/fuzz_regressions.rs` includes `targets.rs` to replay saved inputs.

mod targets;
pub use targets::*;
