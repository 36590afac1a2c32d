//! AFL++ entry point of the `interp` target (see `ptxsim_fuzz::interp`).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        ptxsim_fuzz::interp(data);
    });
}
