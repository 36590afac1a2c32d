//! The library half of the `ptxsim` CLI: kernel launches described by argument specs or
//! launch files (shared by the `run` command and the corpus test suite).

pub mod launch;
pub mod point;
pub mod sweep;
pub mod trace_out;
