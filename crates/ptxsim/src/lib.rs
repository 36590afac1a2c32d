//! The library half of the `ptxsim` CLI: kernel launches described by argument specs or
//! launch files (shared by the `run` command and the corpus test suite), one module variant's
//! run as `compare` and `sweep` make it ([`point`]), and sweeps ([`sweep`], also run by the
//! Python package's `ptxsim.sweep`).

pub mod advise;
pub mod launch;
pub mod output;
pub mod point;
pub mod sweep;
pub mod trace_out;
