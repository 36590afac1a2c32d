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

ARCHS = [80, 90]
