"""Compile-time and launch-time configuration of the Triton corpus kernels.

One table shared by compile_triton.py (which specializes each kernel the way Triton's runtime
would for these launch values) and make_launches.py (which launches it with exactly these
values). Scalars listed in `scalars` are the launch values; `constexprs` are compile-time
constants; pointer arguments are described by dtype.
"""

# Triton's runtime marks pointer and integer arguments divisible by 16 with tt.divisibility=16
# and turns integer arguments equal to 1 into constexprs; compile_triton.py does the same from
# the values below.

# Two problem sizes: VADD_N is not a multiple of 16, so Triton keeps per-element masks and emits
# scalar predicated loads; VADD_N_ALIGNED is, so Triton vectorizes (v4 loads/stores).
VADD_N = 1500
VADD_N_ALIGNED = 1536
VADD_BLOCK = 1024

KERNELS = [
    # name (file stem), jit function, pointer args (name -> dtype), scalars (name -> (type, value)),
    # constexprs, compile options, grid
    dict(name="vadd_evict_last", fn="vadd_evict_last",
         args=[("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n_elements", "i32", VADD_N_ALIGNED)],
         constexprs={"BLOCK_SIZE": VADD_BLOCK}, options=dict(num_warps=4), grid=[(VADD_N_ALIGNED + VADD_BLOCK - 1) // VADD_BLOCK]),
    dict(name="vadd_evict_first", fn="vadd_evict_first",
         args=[("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n_elements", "i32", VADD_N)],
         constexprs={"BLOCK_SIZE": VADD_BLOCK}, options=dict(num_warps=4), grid=[(VADD_N + VADD_BLOCK - 1) // VADD_BLOCK]),
    dict(name="vadd_cg_cs", fn="vadd_cg_cs",
         args=[("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n_elements", "i32", VADD_N_ALIGNED)],
         constexprs={"BLOCK_SIZE": VADD_BLOCK}, options=dict(num_warps=4), grid=[(VADD_N_ALIGNED + VADD_BLOCK - 1) // VADD_BLOCK]),
    dict(name="vadd_ca_wt", fn="vadd_ca_wt",
         args=[("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n_elements", "i32", VADD_N)],
         constexprs={"BLOCK_SIZE": VADD_BLOCK}, options=dict(num_warps=4), grid=[(VADD_N + VADD_BLOCK - 1) // VADD_BLOCK]),
    dict(name="vadd_cg_evict_first", fn="vadd_cg_evict_first", ptxas_rejects=True,
         args=[("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n_elements", "i32", VADD_N)],
         constexprs={"BLOCK_SIZE": VADD_BLOCK}, options=dict(num_warps=4), grid=[(VADD_N + VADD_BLOCK - 1) // VADD_BLOCK]),
    dict(name="vadd_cv_wb_cg", fn="vadd_cv_wb_cg",
         args=[("x_ptr", "*fp32"), ("y_ptr", "*fp32"), ("out_ptr", "*fp32"), ("out2_ptr", "*fp32"),
               ("n_elements", "i32", VADD_N)],
         constexprs={"BLOCK_SIZE": VADD_BLOCK}, options=dict(num_warps=4), grid=[(VADD_N + VADD_BLOCK - 1) // VADD_BLOCK]),
    dict(name="vadd_f16_evict", fn="vadd_f16_evict",
         args=[("x_ptr", "*fp16"), ("y_ptr", "*fp16"), ("out_ptr", "*fp16"), ("n_elements", "i32", VADD_N_ALIGNED)],
         constexprs={"BLOCK_SIZE": VADD_BLOCK}, options=dict(num_warps=2), grid=[(VADD_N_ALIGNED + VADD_BLOCK - 1) // VADD_BLOCK]),
    dict(name="softmax", fn="softmax_kernel",
         args=[("output_ptr", "*fp32"), ("input_ptr", "*fp32"), ("input_row_stride", "i32", 100),
               ("output_row_stride", "i32", 100), ("n_cols", "i32", 100)],
         constexprs={"BLOCK_SIZE": 128}, options=dict(num_warps=4), grid=[8]),
    dict(name="layer_norm", fn="layer_norm_fwd_fused",
         args=[("X", "*fp32"), ("Y", "*fp32"), ("W", "*fp32"), ("B", "*fp32"), ("Mean", "*fp32"), ("Rstd", "*fp32"),
               ("stride", "i32", 256), ("N", "i32", 256), ("eps", "fp32", 1e-5)],
         constexprs={"BLOCK_SIZE": 128}, options=dict(num_warps=4), grid=[4]),
]

MATMUL_M, MATMUL_N, MATMUL_K = 128, 64, 64
for _name, _dt, _prec in (("matmul_fp16", "fp16", "tf32"), ("matmul_fp32_tf32", "fp32", "tf32"),
                          ("matmul_fp32_ieee", "fp32", "ieee")):
    KERNELS.append(dict(
        name=_name, fn="matmul_kernel",
        args=[("a_ptr", "*" + _dt), ("b_ptr", "*" + _dt), ("c_ptr", "*" + _dt),
              ("M", "i32", MATMUL_M), ("N", "i32", MATMUL_N), ("K", "i32", MATMUL_K),
              ("stride_am", "i32", MATMUL_K), ("stride_ak", "i32", 1), ("stride_bk", "i32", MATMUL_N),
              ("stride_bn", "i32", 1), ("stride_cm", "i32", MATMUL_N), ("stride_cn", "i32", 1)],
        constexprs={"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8,
                    "INPUT_PRECISION": _prec},
        options=dict(num_warps=4, num_stages=3),
        grid=[(MATMUL_M // 64) * (MATMUL_N // 64)]))

# Kernels users write beyond the tutorials. Small sizes: a few CTAs each.
RAND_N, RAND_SEED = 1000, 1234
KERNELS += [
    dict(name="dropout", fn="dropout_kernel",
         args=[("x_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n_elements", "i32", RAND_N), ("p", "fp32", 0.25),
               ("seed", "i32", RAND_SEED)],
         constexprs={"BLOCK_SIZE": 256}, options=dict(num_warps=4), grid=[4]),
    dict(name="rand", fn="rand_kernel",
         args=[("out_ptr", "*fp32"), ("iout_ptr", "*i32"), ("n_elements", "i32", RAND_N), ("seed", "i32", RAND_SEED)],
         constexprs={"BLOCK_SIZE": 256}, options=dict(num_warps=4), grid=[4]),
    dict(name="layer_norm_bwd", fn="layer_norm_bwd_dx",
         args=[("DX", "*fp32"), ("DY", "*fp32"), ("X", "*fp32"), ("W", "*fp32"), ("Mean", "*fp32"), ("Rstd", "*fp32"),
               ("stride", "i32", 200), ("N", "i32", 200)],
         constexprs={"BLOCK_SIZE_N": 256}, options=dict(num_warps=4), grid=[4]),
    dict(name="sum_atomic", fn="sum_atomic_kernel",
         args=[("x_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n_elements", "i32", RAND_N)],
         constexprs={"BLOCK_SIZE": 256}, options=dict(num_warps=4), grid=[4]),
    dict(name="cumsum_where", fn="cumsum_where_kernel",
         args=[("x_ptr", "*i32"), ("out_ptr", "*i32"), ("out2_ptr", "*i32")],
         constexprs={"BLOCK": 128}, options=dict(num_warps=4), grid=[3]),
    dict(name="sort", fn="sort_kernel",
         args=[("x_ptr", "*fp32"), ("out_ptr", "*fp32")],
         constexprs={"BLOCK": 64}, options=dict(num_warps=2), grid=[3]),
    dict(name="histogram", fn="histogram_kernel",
         args=[("x_ptr", "*i32"), ("out_ptr", "*i32")],
         constexprs={"BLOCK": 256, "NBINS": 16}, options=dict(num_warps=4), grid=[1]),
    # 2 heads x 64 positions x head dim 32; one CTA per (32-row block, head).
    dict(name="flash_attn", fn="flash_attn_fwd",
         args=[("Q", "*fp16"), ("K", "*fp16"), ("V", "*fp16"), ("O", "*fp16"), ("sm_scale", "fp32", 0.5),
               ("N_CTX", "i32", 64)],
         constexprs={"BLOCK_M": 32, "BLOCK_N": 32, "HEAD_DIM": 32}, options=dict(num_warps=4, num_stages=2),
         grid=[2, 2]),
    # Persistent grouped matmul: NUM_SMS programs loop over the 3 x 2 tiles of a 96 x 64 output.
    dict(name="persistent_matmul_fp16", fn="persistent_matmul",
         args=[("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("c_ptr", "*fp16"), ("M", "i32", 96), ("N", "i32", 64),
               ("K", "i32", 64)],
         constexprs={"NUM_SMS": 4, "BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 2},
         options=dict(num_warps=4, num_stages=2), grid=[4]),
    dict(name="persistent_matmul_bf16", fn="persistent_matmul",
         args=[("a_ptr", "*bf16"), ("b_ptr", "*bf16"), ("c_ptr", "*fp32"), ("M", "i32", 96), ("N", "i32", 64),
               ("K", "i32", 64)],
         constexprs={"NUM_SMS": 2, "BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 2},
         options=dict(num_warps=4, num_stages=2), grid=[2]),
    dict(name="int8_matmul", fn="int8_matmul",
         args=[("a_ptr", "*i8"), ("b_ptr", "*i8"), ("c_ptr", "*i32"), ("M", "i32", 96), ("N", "i32", 64),
               ("K", "i32", 64)],
         constexprs={"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32}, options=dict(num_warps=4, num_stages=2),
         grid=[3, 2]),
]

KERNELS += [
    # fp8 (e4m3) needs sm_89+: Triton refuses float8e4nv for sm_80, so this one is sm_90 only.
    dict(name="fp8_roundtrip", fn="fp8_roundtrip", archs=[90],
         args=[("x_ptr", "*fp32"), ("out_ptr", "*fp32"), ("q_ptr", "*i8"), ("n", "i32", 300)],
         constexprs={"BLOCK": 128}, options=dict(num_warps=4), grid=[3]),
    # tl.clamp with symmetric constant bounds becomes min.xorsign.abs.f32 on sm_90.
    dict(name="clamp", fn="clamp_kernel",
         args=[("x_ptr", "*fp32"), ("out_ptr", "*fp32"), ("n", "i32", 300)],
         constexprs={"BLOCK": 128}, options=dict(num_warps=4), grid=[3]),
]

ARCHS = [80, 90]

# Second sweep of user kernels.
KERNELS += [
    dict(name="rms_norm", fn="rms_norm_fwd",
         args=[("X", "*fp32"), ("Y", "*fp32"), ("W", "*fp32"), ("Rstd", "*fp32"), ("stride", "i32", 200),
               ("N", "i32", 200), ("eps", "fp32", 1e-6)],
         constexprs={"BLOCK_SIZE": 256}, options=dict(num_warps=4), grid=[6]),
    dict(name="rotary", fn="rotary_kernel",
         args=[("X", "*fp32"), ("Out", "*fp32"), ("Pos", "*i32"), ("InvFreq", "*fp32"), ("heads", "i32", 2)],
         constexprs={"HALF": 32}, options=dict(num_warps=1), grid=[8, 2]),
    dict(name="activations", fn="activations_kernel",
         args=[("X", "*fp32"), ("Gelu", "*fp32"), ("GeluTanh", "*fp32"), ("Silu", "*fp32"), ("Softplus", "*fp32"),
               ("n", "i32", 500)],
         constexprs={"BLOCK": 256}, options=dict(num_warps=4), grid=[2]),
    dict(name="argmax", fn="argmax_kernel",
         args=[("X", "*fp32"), ("Amax", "*i32"), ("Amin", "*i32"), ("Vmax", "*fp32"), ("n_cols", "i32", 100),
               ("stride", "i32", 100)],
         constexprs={"BLOCK": 128}, options=dict(num_warps=2), grid=[10]),
    dict(name="splitk_matmul", fn="splitk_matmul",
         args=[("a_ptr", "*fp32"), ("b_ptr", "*fp32"), ("c_ptr", "*fp32"), ("M", "i32", 40), ("N", "i32", 48),
               ("K", "i32", 96)],
         constexprs={"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16, "SPLIT_K": 3},
         options=dict(num_warps=4, num_stages=2), grid=[2, 2, 3]),
    dict(name="ragged_where", fn="ragged_where_kernel",
         args=[("X", "*fp32"), ("Y", "*fp32"), ("M", "i32", 37), ("N", "i32", 50), ("stride", "i32", 52)],
         constexprs={"BLOCK_M": 16, "BLOCK_N": 32}, options=dict(num_warps=2), grid=[3, 2]),
    dict(name="cast", fn="cast_kernel",
         args=[("X", "*fp32"), ("Bf16", "*i16"), ("F16", "*fp16"), ("F16Rtz", "*fp16"), ("I8", "*i8"),
               ("I32", "*i32"), ("Back", "*fp32"), ("n", "i32", 300)],
         constexprs={"BLOCK": 128}, options=dict(num_warps=4), grid=[3]),
    dict(name="cumprod", fn="cumprod_kernel",
         args=[("X", "*fp32"), ("Out", "*fp32")],
         constexprs={"BLOCK": 64}, options=dict(num_warps=2), grid=[4]),
    dict(name="custom_reduce", fn="custom_reduce_kernel",
         args=[("X", "*fp32"), ("Xi", "*i32"), ("Xor", "*i32"), ("AbsMax", "*fp32"), ("AbsIdx", "*i32")],
         constexprs={"BLOCK": 128}, options=dict(num_warps=4), grid=[3]),
]

# Fused-attention backward (dK/dV and dQ kernels), 2 heads x 64 positions x head dim 16.
KERNELS += [
    dict(name="attn_bwd_dkdv", fn="attn_bwd_dkdv",
         args=[("Q", "*fp16"), ("K", "*fp16"), ("V", "*fp16"), ("DO", "*fp16"), ("M", "*fp32"), ("D", "*fp32"),
               ("DK", "*fp16"), ("DV", "*fp16"), ("sm_scale", "fp32", 0.5), ("qk_scale", "fp32", 1.0),
               ("N_CTX", "i32", 64)],
         constexprs={"BLOCK_M": 16, "BLOCK_N": 32, "HEAD_DIM": 16}, options=dict(num_warps=4, num_stages=2),
         grid=[2, 2]),
    dict(name="attn_bwd_dq", fn="attn_bwd_dq",
         args=[("Q", "*fp16"), ("K", "*fp16"), ("V", "*fp16"), ("DO", "*fp16"), ("M", "*fp32"), ("D", "*fp32"),
               ("DQ", "*fp16"), ("sm_scale", "fp32", 0.5), ("qk_scale", "fp32", 1.0), ("N_CTX", "i32", 64)],
         constexprs={"BLOCK_M": 32, "BLOCK_N": 16, "HEAD_DIM": 16}, options=dict(num_warps=4, num_stages=2),
         grid=[2, 2]),
]

# Tensor-core matmuls with 8-bit inputs and 64-row tiles: int8 through wgmma .s32.s8.s8 on sm_90
# (mma.sync m16n8k32 on sm_80); fp8 (sm_90 only) through wgmma .f32.e4m3.{e4m3,e5m2}.
KERNELS += [
    dict(name="int8_matmul_64", fn="int8_matmul",
         args=[("a_ptr", "*i8"), ("b_ptr", "*i8"), ("c_ptr", "*i32"), ("M", "i32", 128), ("N", "i32", 64),
               ("K", "i32", 128)],
         constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}, options=dict(num_warps=4, num_stages=2),
         grid=[2, 1]),
    dict(name="fp8_matmul_e4m3_e5m2", fn="fp8_matmul", archs=[90],
         args=[("a_ptr", "*fp8e4nv"), ("b_ptr", "*fp8e5"), ("c_ptr", "*fp32"), ("M", "i32", 128), ("N", "i32", 64),
               ("K", "i32", 128)],
         constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}, options=dict(num_warps=4, num_stages=2),
         grid=[2, 1]),
    dict(name="fp8_matmul_e4m3", fn="fp8_matmul", archs=[90],
         args=[("a_ptr", "*fp8e4nv"), ("b_ptr", "*fp8e4nv"), ("c_ptr", "*fp32"), ("M", "i32", 64), ("N", "i32", 128),
               ("K", "i32", 64)],
         constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, options=dict(num_warps=4, num_stages=3),
         grid=[1, 2]),
]

# Flash attention with 64-row blocks: on sm_90 Q K^T is a wgmma with both operands in shared
# memory and P V a wgmma whose A operand (P) is in registers.
KERNELS += [
    dict(name="flash_attn_64", fn="flash_attn_fwd",
         args=[("Q", "*fp16"), ("K", "*fp16"), ("V", "*fp16"), ("O", "*fp16"), ("sm_scale", "fp32", 0.25),
               ("N_CTX", "i32", 128)],
         constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "HEAD_DIM": 64}, options=dict(num_warps=4, num_stages=2),
         grid=[2, 2]),
]

KERNELS += [
    dict(name="matmul_f16acc", fn="matmul_f16acc",
         args=[("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("c_ptr", "*fp16"), ("M", "i32", 128), ("N", "i32", 64),
               ("K", "i32", 64)],
         constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, options=dict(num_warps=4, num_stages=3),
         grid=[2, 1]),
]

# Tensor descriptors: on sm_90 Triton builds tensor maps in the global scratch buffer
# (tensormap.replace) or takes them as __grid_constant__ parameters (host descriptors) and moves
# tiles with the Tensor Memory Accelerator; on sm_80 the device-side descriptors become plain
# loads and stores. Sizes are not multiples of the blocks, so boxes run out of bounds.
KERNELS += [
    dict(name="tma_copy2d", fn="tma_copy2d",
         args=[("in_ptr", "*fp32"), ("out_ptr", "*fp32"), ("M", "i32", 100), ("N", "i32", 80)],
         constexprs={"BLOCK_M": 32, "BLOCK_N": 64}, options=dict(num_warps=4), grid=[4, 2]),
    dict(name="tma_matmul", fn="tma_matmul",
         args=[("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("c_ptr", "*fp16"), ("M", "i32", 96), ("N", "i32", 80),
               ("K", "i32", 72)],
         constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, options=dict(num_warps=4, num_stages=3),
         grid=[2, 2]),
    dict(name="tma_atomic_add", fn="tma_atomic_add",
         args=[("x_ptr", "*fp32"), ("out_ptr", "*fp32"), ("M", "i32", 64), ("N", "i32", 32)],
         constexprs={"BLOCK_M": 16, "BLOCK_N": 32}, options=dict(num_warps=4), grid=[4]),
    dict(name="tma_3d", fn="tma_3d",
         args=[("x_ptr", "*fp16"), ("out_ptr", "*fp16"), ("A", "i32", 5), ("B", "i32", 24), ("C", "i32", 80)],
         constexprs={"BLOCK_A": 2, "BLOCK_B": 8, "BLOCK_C": 32}, options=dict(num_warps=4), grid=[3, 3]),
    dict(name="tma_descriptor_persistent_matmul", fn="tma_descriptor_persistent_matmul",
         args=[("a_ptr", "*fp16"), ("b_ptr", "*fp16"), ("c_ptr", "*fp16"), ("M", "i32", 160), ("N", "i32", 128),
               ("K", "i32", 96)],
         constexprs={"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2, "NUM_SMS": 3},
         options=dict(num_warps=4, num_stages=3), grid=[3]),
    dict(name="tma_flash_attn", fn="tma_flash_attn",
         args=[("Q", "*fp16"), ("K", "*fp16"), ("V", "*fp16"), ("O", "*fp16"), ("sm_scale", "fp32", 0.25),
               ("N_CTX", "i32", 128)],
         constexprs={"BLOCK_M": 64, "BLOCK_N": 64, "HEAD_DIM": 64}, options=dict(num_warps=4, num_stages=2),
         grid=[2, 2]),
    # Host-side descriptors exist on sm_90 only (a CUtensorMap parameter).
    dict(name="tma_host_desc", fn="tma_host_desc", archs=[90],
         args=[("a_desc", "tensordesc<fp16[32, 64]>"), ("c_desc", "tensordesc<fp16[32, 64]>")],
         constexprs={"BLOCK_M": 32, "BLOCK_N": 64}, options=dict(num_warps=4), grid=[3, 2]),
    dict(name="tma_persistent_matmul", fn="tma_persistent_matmul", archs=[90],
         args=[("a_desc", "tensordesc<fp16[64, 32]>"), ("b_desc", "tensordesc<fp16[64, 32]>"),
               ("c_desc", "tensordesc<fp16[64, 32]>"), ("M", "i32", 192), ("N", "i32", 128), ("K", "i32", 96)],
         constexprs={"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 2,
                     "EPILOGUE_SUBTILE": True, "NUM_SMS": 3},
         options=dict(num_warps=4, num_stages=3), grid=[3]),
]
