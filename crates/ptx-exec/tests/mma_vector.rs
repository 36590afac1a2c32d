//! `alu::mma` runs `mma.sync` in the widest vector form the CPU has (AVX-512, AVX2, else the
//! portable build); every form gives the portable form's bits, for every shape and for
//! operands that stress the rounding: random bit patterns (NaNs, infinities, subnormals,
//! cancelling sums) as well as the small integers real matmuls carry.

use ptx_exec::alu;
use ptx_semantics::mma::{mma_sync, MmaKind};

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

const KINDS: [MmaKind; 9] = [
    MmaKind::M16n8k16F32F16,
    MmaKind::M16n8k16F32Bf16,
    MmaKind::M16n8k16F16F16,
    MmaKind::M16n8k8F32Tf32,
    MmaKind::M16n8k8F32F16,
    MmaKind::M16n8k8F32Bf16,
    MmaKind::M16n8k8F16F16,
    MmaKind::M16n8k32S32I8 {
        a_signed: true,
        b_signed: false,
        satfinite: true,
    },
    MmaKind::M16n8k16S32I8 {
        a_signed: false,
        b_signed: true,
        satfinite: false,
    },
];

#[test]
fn every_vector_form_of_mma_gives_the_portable_bits() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for kind in KINDS {
        for round in 0..400 {
            // Random patterns, then patterns from a few exact small values (f16 ±0..3).
            let word = |s: &mut u64| -> u32 {
                let r = xorshift(s);
                if round % 2 == 0 {
                    r as u32
                } else {
                    const SMALL: [u16; 6] = [0x0000, 0x3c00, 0xbc00, 0x4000, 0xc200, 0x8000];
                    let lo = SMALL[(r % 6) as usize] as u32;
                    let hi = SMALL[((r >> 8) % 6) as usize] as u32;
                    lo | hi << 16
                }
            };
            let mut fa = [[0u32; 4]; 32];
            let mut fb = [[0u32; 2]; 32];
            let mut fc = [[0u32; 4]; 32];
            for l in 0..32 {
                fa[l] = [0; 4].map(|_| word(&mut state));
                fb[l] = [0; 2].map(|_| word(&mut state));
                fc[l] = [0; 4].map(|_| word(&mut state));
            }
            let portable = mma_sync(kind, &fa, &fb, &fc);
            let vector = alu::mma(kind, &fa, &fb, &fc);
            let (_, _, c_regs) = kind.regs();
            for l in 0..32 {
                for r in 0..c_regs as usize {
                    assert_eq!(
                        vector[r][l], portable[l][r] as u64,
                        "{kind:?} round {round} lane {l} register {r}"
                    );
                }
            }
        }
    }
}
