//! The PTX instruction names ptxas knows (PTX ISA 9.x), as one enum: [`Opcode`].
//!
//! The parser classifies every instruction's opcode once ([`Opcode::parse`]); the validator
//! dispatches its rule families and the interpreter its lowering on the enum, each with a
//! `match` that has no catch-all, so a new row here is a compile error wherever an
//! instruction must be classified. An opcode outside the table gets ptxas's `Not a name of
//! any known instruction` (ptxas is case-sensitive: `LD` is not `ld`).
//!
//! Per opcode the table carries what ptx-isa knows of it: its spelling ([`Opcode::name`]),
//! whether the parser gives it typed fields ([`Opcode::is_cache_control`]), and the target
//! and version rows ptxas enforces ([`Opcode::gates`], from [`crate::INSN_GATES`]).

use crate::insn_gates::{InsnGate, INSN_GATES};

macro_rules! opcodes {
    ($($variant:ident = $name:literal,)+) => {
        /// A PTX instruction name (the first word of an instruction, without modifiers).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Opcode { $($variant),+ }

        impl Opcode {
            /// Every opcode, in the table's (alphabetical) order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$variant),+];

            /// The PTX spelling (`ld`, `cp`, `prefetchu`, …).
            pub const fn name(self) -> &'static str {
                match self { $(Opcode::$variant => $name),+ }
            }

            /// The opcode spelled `word` (case-sensitive, as ptxas is), if ptxas knows it.
            pub fn parse(word: &str) -> Option<Opcode> {
                match word { $($name => Some(Opcode::$variant),)+ _ => None }
            }
        }
    };
}

#[rustfmt::skip]
opcodes! {
    Abs = "abs", Activemask = "activemask", Add = "add", Addc = "addc", Alloca = "alloca",
    And = "and", Applypriority = "applypriority", Atom = "atom", Bar = "bar",
    Barrier = "barrier", Bfe = "bfe", Bfi = "bfi", Bfind = "bfind", Bmsk = "bmsk", Bra = "bra",
    Brev = "brev", Brkpt = "brkpt", Brx = "brx", Call = "call",
    Clusterlaunchcontrol = "clusterlaunchcontrol", Clz = "clz", Cnot = "cnot",
    Copysign = "copysign", Cos = "cos", Cp = "cp", Createpolicy = "createpolicy", Cvt = "cvt",
    Cvta = "cvta", Discard = "discard", Div = "div", Dp2a = "dp2a", Dp4a = "dp4a",
    Elect = "elect", Ex2 = "ex2", Exit = "exit", Fence = "fence", Fma = "fma", Fns = "fns",
    Getctarank = "getctarank", Griddepcontrol = "griddepcontrol", Isspacep = "isspacep",
    Istypeof = "istypeof", Istypep = "istypep", Ld = "ld", Ldmatrix = "ldmatrix", Ldu = "ldu",
    Lg2 = "lg2", Lop3 = "lop3", Mad = "mad", Mad24 = "mad24", Madc = "madc", Mapa = "mapa",
    Match = "match", Max = "max", Mbarrier = "mbarrier", Membar = "membar", Min = "min",
    Mma = "mma", Mov = "mov", Movmatrix = "movmatrix", Mul = "mul", Mul24 = "mul24",
    Multimem = "multimem", Nanosleep = "nanosleep", Neg = "neg", Not = "not", Or = "or",
    Pmevent = "pmevent", Popc = "popc", Prefetch = "prefetch", Prefetchu = "prefetchu",
    Prmt = "prmt", Rcp = "rcp", Red = "red", Redux = "redux", Rem = "rem", Ret = "ret",
    Rsqrt = "rsqrt", Sad = "sad", Selp = "selp", Set = "set", Setmaxnreg = "setmaxnreg",
    Setp = "setp", Shf = "shf", Shfl = "shfl", Shl = "shl", Shr = "shr", Sin = "sin",
    Slct = "slct", Sqrt = "sqrt", St = "st", Stackrestore = "stackrestore",
    Stacksave = "stacksave", Stmatrix = "stmatrix", Sub = "sub", Subc = "subc", Suld = "suld",
    Suq = "suq", Sured = "sured", Sust = "sust", Szext = "szext", Tanh = "tanh",
    Tcgen05 = "tcgen05", Tensormap = "tensormap", Testp = "testp", Tex = "tex", Tld4 = "tld4",
    Trap = "trap", Txq = "txq", Vabsdiff = "vabsdiff", Vabsdiff2 = "vabsdiff2",
    Vabsdiff4 = "vabsdiff4", Vadd = "vadd", Vadd2 = "vadd2", Vadd4 = "vadd4",
    Vavrg2 = "vavrg2", Vavrg4 = "vavrg4", Vmad = "vmad", Vmax = "vmax", Vmax2 = "vmax2",
    Vmax4 = "vmax4", Vmin = "vmin", Vmin2 = "vmin2", Vmin4 = "vmin4", Vote = "vote",
    Vset = "vset", Vset2 = "vset2", Vset4 = "vset4", Vshl = "vshl", Vshr = "vshr",
    Vsub = "vsub", Vsub2 = "vsub2", Vsub4 = "vsub4", Wgmma = "wgmma", Wmma = "wmma",
    Xor = "xor",
}

impl Opcode {
    /// The opcodes whose forms the parser gives typed qualifier fields (`ld`, `st`, `cp`'s
    /// `cp.async` forms, `createpolicy`, `prefetch`, `prefetchu`).
    pub const fn is_cache_control(self) -> bool {
        matches!(
            self,
            Opcode::Ld
                | Opcode::St
                | Opcode::Cp
                | Opcode::Createpolicy
                | Opcode::Prefetch
                | Opcode::Prefetchu
        )
    }

    /// The rows of [`INSN_GATES`] for this opcode, in ptxas's order.
    pub fn gates(self) -> impl Iterator<Item = &'static InsnGate> {
        let name = self.name();
        INSN_GATES.iter().filter(move |g| g.opcode == name)
    }
}

impl core::fmt::Display for Opcode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sorted_and_parse_back() {
        for w in Opcode::ALL.windows(2) {
            assert!(w[0].name() < w[1].name(), "{} before {}", w[0], w[1]);
        }
        for &op in Opcode::ALL {
            assert_eq!(Opcode::parse(op.name()), Some(op));
        }
        assert_eq!(Opcode::parse("LD"), None);
        assert_eq!(Opcode::parse("foo"), None);
    }

    #[test]
    fn every_gated_opcode_is_in_the_table() {
        for g in INSN_GATES {
            assert!(
                Opcode::parse(g.opcode).is_some(),
                "{} gated but unknown",
                g.opcode
            );
        }
        assert!(Opcode::Redux.gates().count() > 0);
    }
}
