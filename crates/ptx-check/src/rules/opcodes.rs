//! The PTX instruction names ptxas knows (PTX ISA 9.x). An opcode outside this list gets
//! ptxas's `Not a name of any known instruction`; the instructions in it other than the
//! cache-control ones are not validated further.

#[rustfmt::skip]
pub(crate) const OPCODES: &[&str] = &[
    "abs", "activemask", "add", "addc", "alloca", "and", "applypriority", "atom", "bar", "barrier",
    "bfe", "bfi", "bfind", "bmsk", "bra", "brev", "brkpt", "brx", "call", "clusterlaunchcontrol",
    "clz", "cnot", "copysign", "cos", "cp", "createpolicy", "cvt", "cvta", "discard", "div",
    "dp2a", "dp4a", "elect", "ex2", "exit", "fence", "fma", "fns", "getctarank", "griddepcontrol",
    "isspacep", "istypeof", "istypep", "ld", "ldmatrix", "ldu", "lg2", "lop3", "mad", "mad24", "madc", "mapa",
    "match", "max", "mbarrier", "membar", "min", "mma", "mov", "movmatrix", "mul", "mul24",
    "multimem", "nanosleep", "neg", "not", "or", "pmevent", "popc", "prefetch", "prefetchu",
    "prmt", "rcp", "red", "redux", "rem", "ret", "rsqrt", "sad", "selp", "set", "setmaxnreg",
    "setp", "shf", "shfl", "shl", "shr", "sin", "slct", "sqrt", "st", "stackrestore", "stacksave",
    "stmatrix", "sub", "subc", "suld", "suq", "sured", "sust", "szext", "tanh", "tcgen05",
    "tensormap", "testp", "tex", "tld4", "trap", "txq", "vabsdiff", "vabsdiff2", "vabsdiff4",
    "vadd", "vadd2", "vadd4", "vavrg2", "vavrg4", "vmad", "vmax", "vmax2", "vmax4", "vmin",
    "vmin2", "vmin4", "vote", "vset", "vset2", "vset4", "vshl", "vshr", "vsub", "vsub2", "vsub4",
    "wgmma", "wmma", "xor",
];

/// True if ptxas knows `opcode` (case-sensitive, as ptxas is).
pub(crate) fn is_known(opcode: &str) -> bool {
    OPCODES.binary_search(&opcode).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_is_sorted_for_binary_search() {
        for w in OPCODES.windows(2) {
            assert!(w[0] < w[1], "{} before {}", w[0], w[1]);
        }
        assert!(is_known("ld") && is_known("wgmma") && !is_known("LD") && !is_known("foo"));
    }
}
