//! The mask operator of initializers (`0xFF00(generic(x)+8)`, one byte of an address; nvcc
//! writes pointers in packed structs so): the interpreter lays the bytes out so that they
//! read back as the address. Expected value: the same address from a `.u64` initialized with
//! `generic(x)+8`, a form the interpreter already evaluates, and the bytes' rule
//! `(address & mask) >> shift` applied here.

use ptx_exec::{KernelArg, LaunchConfig, Session};

const PTX: &str = ".version 8.0\n.target sm_80\n.address_size 64\n\
.global .align 4 .b32 x[4];\n\
.global .align 8 .u64 ref = generic(x)+8;\n\
.global .align 1 .u8 pk[11] = {1, 0XFF(generic(x)+8), 0xFF00(generic(x)+8), \
0xFF0000(generic(x)+8), 0xFF000000(generic(x)+8), 0xFF00000000(generic(x)+8), \
0xFF0000000000(generic(x)+8), 0xFF000000000000(generic(x)+8), \
0xFF00000000000000(generic(x)+8), 7, 255(generic(x)+8)};\n\
.visible .entry k(.param .u64 out)\n{\n\
.reg .pred %p<2>;\n.reg .b32 %r<4>;\n.reg .b64 %rd<8>;\n\
ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n\
ld.global.u64 %rd2, [ref];\nst.global.u64 [%rd1], %rd2;\n\
mov.u32 %r1, 0;\n\
LOOP: cvt.u64.u32 %rd3, %r1;\nmov.u64 %rd4, pk;\nadd.s64 %rd4, %rd4, %rd3;\n\
ld.global.u8 %r2, [%rd4];\nmul.wide.u32 %rd5, %r1, 4;\nadd.s64 %rd6, %rd1, %rd5;\n\
st.global.u32 [%rd6+8], %r2;\nadd.u32 %r1, %r1, 1;\nsetp.lt.u32 %p1, %r1, 11;\n@%p1 bra LOOP;\n\
ret;\n}\n";

#[test]
fn mask_bytes_spell_the_address() {
    let module = ptx_syntax::parse(PTX).expect("parses");
    let mut s = Session::new(&module, PTX, memsys::GpuConfig::a100()).expect("lowers");
    let out = s.alloc_buffer(&[0u8; 8 + 4 * 11]).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        ..LaunchConfig::default()
    };
    s.launch("k", &[KernelArg::Pointer(out)], cfg).unwrap();
    let bytes = s.read_buffer(out, 8 + 4 * 11).unwrap();
    let addr = u64::from_le_bytes(bytes[..8].try_into().unwrap());
    assert_ne!(addr, 8, "generic(x)+8 is a real address");
    let read: Vec<u64> = bytes[8..]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as u64)
        .collect();
    let mut want = vec![1u64];
    want.extend((0..8).map(|k| (addr & (0xFF << (8 * k))) >> (8 * k)));
    want.push(7);
    want.push(addr & 0xFF);
    assert_eq!(read, want);
}
