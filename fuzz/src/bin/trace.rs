//! AFL++ entry point of the `trace` target (see `ptxsim_fuzz::trace`).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        ptxsim_fuzz::trace(data);
    });
}
