//! The `.approx` forms run through the interpreter give the H100's bits: one kernel applies each
//! form to an input whose H100 output was measured (`../shared/hw/h100/sfu`: special_inputs.npz,
//! the 16-bit tables and the RCP64H/RSQ64H tables); the expected words are those measurements.

use ptx_exec::{KernelArg, LaunchConfig, Session};

/// (PTX computing `%r2` (and `%rd2` for the 64-bit cases), the H100's word(s)).
const CASES: &[(&str, &[u32])] = &[
    ("mov.f32 %f1, 0f007FFFFF; rcp.approx.f32 %f2, %f1; mov.b32 %r2, %f2;", &[0x7e80_0001]),
    ("mov.f32 %f1, 0f00000001; sqrt.approx.f32 %f2, %f1; mov.b32 %r2, %f2;", &[0x1a35_04f3]),
    ("mov.f32 %f1, 0f00400000; lg2.approx.f32 %f2, %f1; mov.b32 %r2, %f2;", &[0xc2fd_ffff]),
    ("mov.f32 %f1, 0fC2FE0000; ex2.approx.f32 %f2, %f1; mov.b32 %r2, %f2;", &[0x003f_ffff]),
    ("mov.f32 %f1, 0f43000000; sin.approx.f32 %f2, %f1; mov.b32 %r2, %f2;", &[0x3f38_9626]),
    ("mov.f32 %f1, 0f43000000; cos.approx.ftz.f32 %f2, %f1; mov.b32 %r2, %f2;", &[0xbf31_6160]),
    ("mov.f32 %f1, 0f3F800000; tanh.approx.f32 %f2, %f1; mov.b32 %r2, %f2;", &[0x3f42_f848]),
    ("mov.f32 %f1, 0f42FE0000; rsqrt.approx.ftz.f32 %f2, %f1; mov.b32 %r2, %f2;", &[0x3db5_bb09]),
    ("mov.b32 %r3, 0xC4D23555; ex2.approx.f16x2 %r2, %r3;", &[0x2887_3d0a]),
    ("mov.b32 %r3, 0xBFC03F00; tanh.approx.bf16x2 %r2, %r3;", &[0xbf67_3eec]),
    (
        "mov.b16 %h1, 0x3EAB; ex2.approx.ftz.bf16 %h2, %h1; mov.b16 %h3, 0; mov.b32 %r2, {%h2, %h3};",
        &[0x3fa1],
    ),
    (
        "mov.b16 %h1, 0xBE00; tanh.approx.f16 %h2, %h1; mov.b16 %h3, 0; mov.b32 %r2, {%h2, %h3};",
        &[0xbb3d],
    ),
    (
        "mov.f64 %fd1, 0d4008000000000000; rcp.approx.ftz.f64 %fd2, %fd1; mov.b64 %rd2, %fd2;",
        &[0, 0x3fd5_5555],
    ),
    (
        "mov.f64 %fd1, 0d4024000000000000; rsqrt.approx.ftz.f64 %fd2, %fd1; mov.b64 %rd2, %fd2;",
        &[0, 0x3fd4_3d13],
    ),
];

#[test]
fn approx_forms_in_the_interpreter_give_the_h100_outputs() {
    let mut body = String::new();
    let mut slot = 0;
    for (code, want) in CASES {
        body += code;
        body += if want.len() == 2 {
            "\nst.global.u64 [%rd1+OFF], %rd2;\n"
        } else {
            "\nst.global.u32 [%rd1+OFF], %r2;\n"
        };
        body = body.replace("OFF", &(4 * slot).to_string());
        slot += want.len();
    }
    let ptx = format!(
        ".version 8.0\n.target sm_90\n.address_size 64\n\n\
         .visible .entry k(.param .u64 out)\n{{\n\
         .reg .b16 %h<8>;\n.reg .b32 %r<8>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<8>;\n.reg .f64 %fd<8>;\n\
         ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd1, %rd1;\n{body}ret;\n}}\n"
    );
    let module = ptx_syntax::parse(&ptx).expect("test kernel parses");
    let mut s = Session::new(&module, &ptx, memsys::GpuConfig::h100()).expect("lowers");
    let out = s.alloc_buffer(&vec![0u8; 4 * slot]).unwrap();
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [1, 1, 1],
        ..LaunchConfig::default()
    };
    s.launch("k", &[KernelArg::Pointer(out)], cfg).unwrap();
    let got: Vec<u32> = s
        .read_buffer(out, 4 * slot)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let want: Vec<u32> = CASES.iter().flat_map(|c| c.1.iter().copied()).collect();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "word {i}: got {g:#010x}, H100 {w:#010x}");
    }
}
