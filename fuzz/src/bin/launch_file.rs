//! AFL++ entry point of the `launch_file` target (see `ptxsim_fuzz::launch_file`).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        ptxsim_fuzz::launch_file(data);
    });
}
