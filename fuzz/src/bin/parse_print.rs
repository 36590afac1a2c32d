//! AFL++ entry point of the `parse_print` target (see `ptxsim_fuzz::parse_print`).
fn main() {
    afl::fuzz!(|data: &[u8]| {
        ptxsim_fuzz::parse_print(data);
    });
}
