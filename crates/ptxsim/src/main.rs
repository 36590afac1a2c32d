//! `ptxsim`: the command-line front of the workspace.
fn main() {}
