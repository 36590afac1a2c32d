//! AFL++ entry point of the `check` target (see `ptxsim_fuzz::check`).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        ptxsim_fuzz::check(data);
    });
}
