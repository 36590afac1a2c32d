//! `ptx-semantics`: the per-lane meaning of PTX's computational instructions, as pure functions
//! over raw register bits.
//!
//! The interpreter (`ptx-exec`) calls these once per active lane, so they take and return plain
//! integers (`u16`/`u32`/`u64` register bits), never allocate, and never panic: division by zero,
//! NaNs, out-of-range shifts and conversions all have the results the PTX ISA defines (or, where
//! the ISA leaves a value unspecified, a documented choice).
//!
//! | module | instructions |
//! |---|---|
//! | [`int`] | `add sub mul mad mul24 div rem abs neg min max and or xor not cnot lop3 shl shr shf bfe bfi bmsk szext prmt popc clz brev bfind dp4a dp2a sad`, integer `cvt` |
//! | [`cmp`] | `setp set selp slct` for every type and comparison operator |
//! | [`float`] | `.f32`/`.f64` `add sub mul fma mad div rcp sqrt rsqrt ex2 lg2 sin cos tanh min max abs neg copysign testp` |
//! | [`half`] | `.f16 .f16x2 .bf16 .bf16x2` `add sub mul fma min max neg abs ex2 tanh` |
//! | [`cvt`] | float↔float, float↔int, packed `f16x2/bf16x2/e4m3x2/e5m2x2`, `tf32` |
//! | [`warp`] | `shfl.sync` source lane and predicate, `vote.sync`, `match.sync`, `redux.sync`, `activemask` |
//! | [`atom`] | the combine function of `atom`/`red` for every operation and type |
//! | [`mma`] | `mma.sync` m16n8k16/m16n8k8 (f16, bf16, tf32) fragments and arithmetic, `ldmatrix` |
//! | [`wmma`] | `wmma.load/.mma/.store` fragments (implementation-defined layout) and arithmetic |
//! | [`wgmma`] | `wgmma.mma_async` m64nNk16 f16/bf16 and m64nNk8 tf32 through shared-memory matrix descriptors (all swizzle modes) |
//! | [`sfu`] | the H100's special-function unit (MUFU) and every `.approx` form built on it, bit for bit |
//! | [`round`] | exact rounding of `m·2^e` into any binary format in every rounding mode |
//!
//! Exactness: `.rn` paths use the host's IEEE-754 operations; `.rz .rm .rp` use `rustc_apfloat`
//! (LLVM's APFloat) or the integer rounding in [`round`]. See the crate README for the table of
//! instruction → function → edge rules → test source.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod atom;
pub mod cmp;
pub mod cvt;
pub mod float;
pub mod half;
pub mod int;
pub mod mma;
pub mod round;
pub mod sfu;
pub mod warp;
pub mod wgmma;
pub mod wmma;

pub use round::Rnd;
