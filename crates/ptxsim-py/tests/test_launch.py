"""ptxsim.launch: corpus kernels against their numpy references, argument marshalling, errors
with the CLI's messages, the report."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

import ptxsim
from _util import CORPUS, RUN_DIR, cli_error, load_launch, mismatches

# One-kernel launch files: ptxsim.launch runs one kernel over the arrays it is given. Multi-step
# files ([[buffer]]/[[step]]: CUB and CUTLASS host sequences over one device memory) are run by
# `ptxsim run --launch` and checked in crates/ptxsim/tests/corpus_run.rs.
NVCC_LAUNCHES = sorted(p for p in RUN_DIR.glob("nvcc.*.toml")
                       if not re.search(r"^\[\[step\]\]", p.read_text(), re.M))
VADD = CORPUS / "triton" / "vadd_evict_last.sm80.ptx"  # Triton, evict_last loads, .loc lines


def test_the_corpus_has_nvcc_launches():
    assert len(NVCC_LAUNCHES) >= 100


@pytest.mark.parametrize("path", NVCC_LAUNCHES, ids=lambda p: p.stem)
def test_nvcc_corpus_launch_matches_numpy(path: Path):
    launch = load_launch(path)
    result = ptxsim.launch(
        launch.ptx, launch.kernel, launch.grid, launch.block, launch.args,
        shared=launch.shared, seed=launch.seed,
    )
    assert launch.expects, f"{path.name} has no expected output"
    for arg, want, max_ulp in launch.expects:
        got = launch.args[arg]  # written back in place
        got = got.array if isinstance(got, ptxsim.TensorMap) else got
        bad = mismatches(got, want, max_ulp)
        assert not bad, f"{path.name}: argument {arg}: {len(bad)} mismatches, first {bad}"
    assert result.kernel == launch.kernel
    assert result.thread_instructions > 0


def vadd_args(n=1536, out_len=None):
    x = np.arange(n, dtype=np.float32) * 0.5
    y = np.full(n, 3.25, dtype=np.float32)
    out = np.zeros(out_len if out_len is not None else n, dtype=np.float32)
    return x, y, out


def test_ptx_as_path_str_text_and_bytes_give_the_same_run():
    text = VADD.read_text()
    runs = []
    for ptx in (VADD, str(VADD), text, text.encode()):
        x, y, out = vadd_args()
        r = ptxsim.launch(ptx, "vadd_evict_last", 2, 128, [x, y, out, 1536, None, None])
        np.testing.assert_array_equal(out, x + y)
        runs.append(json.loads(r.to_json()))
    assert all(run == runs[0] for run in runs)


def test_grid_and_block_forms():
    for grid, block in ((2, 128), ((2,), [128]), ([2, 1, 1], (128, 1, 1))):
        x, y, out = vadd_args()
        r = ptxsim.launch(VADD, "vadd_evict_last", grid, block, [x, y, out, 1536, None, None])
        assert (r.grid, r.block) == ((2, 1, 1), (128, 1, 1))
        np.testing.assert_array_equal(out, x + y)
    with pytest.raises(ptxsim.LaunchError, match="zero dimension"):
        ptxsim.launch(VADD, "vadd_evict_last", (2, 0), 128, [x, y, out, 1536, None, None])


# Stores each parameter at a fixed offset of `out` (and 1 at offset 36 if `maybe` is null).
PARAMS_PTX = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry params(.param .u64 out, .param .u8 a, .param .s16 b, .param .u32 c,
                       .param .s64 d, .param .f32 f, .param .f64 g, .param .f16 h,
                       .param .u64 maybe)
{
  .reg .pred %p<2>;
  .reg .b16 %rs<4>;
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<4>;
  .reg .f64 %fd<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u8 %rs1, [a];
  st.global.u8 [%rd1], %rs1;
  ld.param.s16 %rs2, [b];
  st.global.b16 [%rd1+2], %rs2;
  ld.param.u32 %r1, [c];
  st.global.u32 [%rd1+4], %r1;
  ld.param.s64 %rd2, [d];
  st.global.u64 [%rd1+8], %rd2;
  ld.param.f32 %f1, [f];
  st.global.f32 [%rd1+16], %f1;
  ld.param.f64 %fd1, [g];
  st.global.f64 [%rd1+24], %fd1;
  ld.param.b16 %rs3, [h];
  st.global.b16 [%rd1+32], %rs3;
  ld.param.u64 %rd3, [maybe];
  setp.eq.u64 %p1, %rd3, 0;
  selp.u32 %r2, 1, 0, %p1;
  st.global.u32 [%rd1+36], %r2;
  ret;
}
"""


def expected_param_bytes(a, b, c, d, f, g, h, null):
    """The bytes a driver would copy for these values, as numpy encodes each declared type."""
    out = np.zeros(40, dtype=np.uint8)
    for offset, value in ((0, np.uint8(a)), (2, np.int16(b)), (4, np.uint32(c)), (8, np.int64(d)),
                          (16, np.float32(f)), (24, np.float64(g)), (32, np.float16(h)), (36, np.uint32(null))):
        raw = np.frombuffer(value.tobytes(), dtype=np.uint8)
        out[offset:offset + raw.size] = raw
    return out


def run_params(*values):
    out = np.zeros(40, dtype=np.uint8)
    ptxsim.launch(PARAMS_PTX, "params", 1, 1, [out, *values])
    return out


def test_scalars_are_typed_by_the_param_declarations():
    buf = np.zeros(4, dtype=np.int32)
    got = run_params(200, np.int16(-5), 4_000_000_000, np.int64(-(2**40)), 0.1, np.float64(1 / 3), 1.5, None)
    np.testing.assert_array_equal(got, expected_param_bytes(200, -5, 4_000_000_000, -(2**40), 0.1, 1 / 3, 1.5, 1))
    # A negative int for a .u32 parameter is its two's complement (Triton passes i32 so); an
    # int for a float parameter is its value; bools are 0/1; a buffer is a non-null pointer.
    got = run_params(True, -32768, -1, 2**63 - 1, 3, np.float32(2.5), np.float16(-0.25), buf)
    np.testing.assert_array_equal(got, expected_param_bytes(1, -32768, 2**32 - 1, 2**63 - 1, 3.0, 2.5, -0.25, 0))


@pytest.mark.parametrize(
    "values, message",
    [
        ((256, 0, 0, 0, 0.0, 0.0, 0.0, None), r"argument 1 \(parameter `a`\): 256 does not fit in a \.u8 parameter"),
        ((0, 40000, 0, 0, 0.0, 0.0, 0.0, None), r"argument 2 \(parameter `b`\): 40000 does not fit in a \.s16"),
        ((0, 0, 2**32, 0, 0.0, 0.0, 0.0, None), r"argument 3 \(parameter `c`\): 4294967296 does not fit"),
        ((0, 0, 1.5, 0, 0.0, 0.0, 0.0, None), r"argument 3 \(parameter `c`\): a float \(1\.5\) cannot be passed to a \.u32"),
        ((0, 0, 0, 0, 0.0, 0.0, 0.0, 7.0), r"argument 8 \(parameter `maybe`\): a float"),
    ],
)
def test_scalars_out_of_range_or_of_the_wrong_kind_raise(values, message):
    with pytest.raises(ptxsim.LaunchError, match=message):
        run_params(*values)


def test_buffer_for_a_scalar_parameter_and_unknown_objects_raise():
    with pytest.raises(ptxsim.LaunchError, match="argument 1 is a buffer, but parameter `a` is .u8"):
        run_params(np.zeros(4, np.uint8), 0, 0, 0, 0.0, 0.0, 0.0, None)
    with pytest.raises(TypeError, match="argument 1: expected a numpy array, None, or a bool/int/float scalar, got str"):
        run_params("1", 0, 0, 0, 0.0, 0.0, 0.0, None)


def test_unknown_kernel_and_argument_count_have_the_cli_messages():
    with pytest.raises(ptxsim.LaunchError) as e:
        ptxsim.launch(VADD, "nope", 1, 32, [])
    assert str(e.value) == cli_error("run", str(VADD), "--kernel", "nope", "--grid", "1", "--block", "32")
    assert "no kernel named `nope` (the module has: vadd_evict_last)" in str(e.value)
    with pytest.raises(ptxsim.LaunchError) as e:
        ptxsim.launch(VADD, "vadd_evict_last", 1, 32, [])
    assert str(e.value) == cli_error("run", str(VADD), "--kernel", "vadd_evict_last", "--grid", "1", "--block", "32")
    assert str(e.value).startswith("kernel `vadd_evict_last` takes 6 arguments, 0 given")


def test_syntax_error_names_file_line_and_column_like_the_cli(tmp_path):
    lines = VADD.read_text().splitlines()
    broken = next(i for i, line in enumerate(lines) if "st.global" in line)
    lines[broken] = lines[broken].replace("st.global", "st.global [", 1)
    bad = tmp_path / "broken.ptx"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(ptxsim.PtxSyntaxError) as e:
        ptxsim.launch(bad, "vadd_evict_last", 1, 32, [None] * 6)
    assert str(e.value) == cli_error("run", str(bad), "--kernel", "vadd_evict_last", "--grid", "1", "--block", "32")
    assert str(e.value).startswith(f"{bad}:{broken + 1}:")
    (d,) = e.value.diagnostics
    assert (d.severity, d.code, d.line) == ("fatal", "E0001", broken + 1)
    assert f"{bad}:{broken + 1}:{d.column}" in str(d)  # the rich rendering with the excerpt


def test_validation_errors_raise_with_the_diagnostics():
    # Triton 3.9's own PTX that ptxas rejects: `.cg` combined with `.L1::evict_first`
    # (tests/corpus/rejected, captured by the corpus generator before Triton's ptxas step).
    rejected = CORPUS / "rejected" / "triton" / "vadd_cg_evict_first.sm80.ptx"
    findings = [d for d in ptxsim.check(rejected) if d.is_error()]
    # ptxas: "Modifier '.evict_first' cannot be combined with modifier '.cg'".
    assert any("cannot be combined" in d.ptxas for d in findings), findings
    with pytest.raises(ptxsim.PtxValidationError) as e:
        ptxsim.launch(rejected, "vadd_cg_evict_first", 1, 128, [None] * 6)
    assert [repr(d) for d in e.value.diagnostics] == [repr(d) for d in findings]
    assert str(e.value).splitlines() == [f"{d.file}:{d.line}:{d.column}: {d.message}" for d in findings]


def test_kernel_fault_raises_naming_thread_and_line_like_the_cli(tmp_path):
    x, y, out = vadd_args(out_len=100)  # the kernel writes 1536 floats
    with pytest.raises(ptxsim.KernelFault) as e:
        ptxsim.launch(VADD, "vadd_evict_last", 2, 128, [x, y, out, 1536, None, None])
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    assert str(e.value) == cli_error(
        "run", str(VADD), "--kernel", "vadd_evict_last", "--grid", "2", "--block", "128",
        "--arg", str(tmp_path / "x.npy"), "--arg", str(tmp_path / "y.npy"), "--arg", "zeros:f32:100",
        "--arg", "s32:1536", "--arg", "null", "--arg", "null",
    )
    fault = e.value
    # Each thread stores 4 floats (16 bytes): thread 25 of CTA 0 is the first past 400 bytes.
    assert (fault.kernel, fault.cta, fault.thread) == ("vadd_evict_last", (0, 0, 0), (25, 0, 0))
    first_store = next(i + 1 for i, line in enumerate(VADD.read_text().splitlines()) if "st.global" in line)
    assert fault.ptx_line == first_store
    assert fault.instruction.startswith("@%p1 st.global.v4.b32")
    assert fault.source is not None and fault.source.endswith("kernels.py:19")
    assert fault.reason == f"out-of-bounds global access of 16 bytes at address {fault.address:#x}"
    assert f"thread (25,0,0), PTX line {first_store}" in str(fault)
    np.testing.assert_array_equal(out, 0)  # a faulted launch writes nothing back


def test_non_contiguous_and_read_only_arrays():
    x, y, out = vadd_args(3072)
    with pytest.raises(ptxsim.LaunchError, match="argument 0: the array is not C-contiguous"):
        ptxsim.launch(VADD, "vadd_evict_last", 2, 128, [x[::2], y, out, 1536, None, None])
    # Read-only inputs are fine; a read-only output the kernel writes is refused.
    x.flags.writeable = False
    ptxsim.launch(VADD, "vadd_evict_last", 2, 128, [x, y, out, 1536, None, None])
    np.testing.assert_array_equal(out[:1536], x[:1536] + y[:1536])
    read_only_out = np.zeros_like(out)
    read_only_out.flags.writeable = False
    with pytest.raises(ptxsim.LaunchError, match="argument 2 is read-only, but the kernel wrote to it"):
        ptxsim.launch(VADD, "vadd_evict_last", 2, 128, [x, y, read_only_out, 1536, None, None])


def test_multidimensional_arrays_are_passed_whole():
    x, y, out = (a.reshape(48, 32) for a in vadd_args())
    ptxsim.launch(VADD, "vadd_evict_last", 2, 128, [x, y, out, 1536, None, None])
    np.testing.assert_array_equal(out, x + y)


def test_same_input_and_seed_give_the_same_report():
    reports = []
    for seed in (7, 7, 8):
        x, y, out = vadd_args()
        r = ptxsim.launch(VADD, "vadd_evict_last", 2, 128, [x, y, out, 1536, None, None], seed=seed)
        np.testing.assert_array_equal(out, x + y)
        reports.append(json.loads(r.to_json()))
    assert reports[0] == reports[1]
    assert reports[2]["run"]["seed"] == 8


def test_thread_count_changes_nothing_but_the_threads_used():
    reports = []
    for threads in (1, 2, 3):
        x, y, out = vadd_args()
        r = ptxsim.launch(VADD, "vadd_evict_last", 4, 128, [x, y, out, 1536, None, None], seed=3,
                          threads=threads)
        np.testing.assert_array_equal(out, x + y)
        assert (r.threads, r.threads_note) == (threads, None)
        reports.append(json.loads(r.to_json()))
    assert reports[0] == reports[1] == reports[2]
    # Hazard tracking runs on one thread, and says so.
    x, y, out = vadd_args()
    r = ptxsim.launch(VADD, "vadd_evict_last", 4, 128, [x, y, out, 1536, None, None], threads=2,
                      hazards=True)
    assert r.threads == 1 and "hazard tracking" in r.threads_note
    for bad in (0, 5000):
        with pytest.raises(ptxsim.LaunchError, match=f"threads = {bad}: give 1 to 1024"):
            ptxsim.launch(VADD, "vadd_evict_last", 4, 128, [x, y, out, 1536, None, None],
                          threads=bad)


def test_registers_per_thread_decide_ctas_per_sm():
    # 128 threads = 4 warps on the H100: 64 registers are 2048 a warp, 16384 / 2048 = 8 warps in
    # each of the 4 register-file partitions, 32 per SM: 8 CTAs (warps allow 16): registers bind.
    x, y, out = vadd_args()
    r = ptxsim.launch(VADD, "vadd_evict_last", 4, 128, [x, y, out, 1536, None, None],
                      registers_per_thread=64)
    assert (r.registers_per_thread, r.registers_source) == (64, "flag")
    assert (r.ctas_per_sm, r.limited_by) == (8, ["registers"])
    assert json.loads(r.to_json())["run"]["residency"]["ctas_per_sm"] == 8
    assert "64 registers/thread (flag), 8 CTAs/SM limited by registers" in r.summary()
    # Without a figure: estimated from the PTX, and said so.
    r = ptxsim.launch(VADD, "vadd_evict_last", 4, 128, [x, y, out, 1536, None, None])
    assert r.registers_source == "estimate" and 16 <= r.registers_per_thread <= 255
    for bad in (0, 256):
        with pytest.raises(ptxsim.LaunchError, match=f"registers_per_thread = {bad}: give"):
            ptxsim.launch(VADD, "vadd_evict_last", 4, 128, [x, y, out, 1536, None, None],
                          registers_per_thread=bad)


def test_stats_and_per_line_table():
    x, y, out = vadd_args()
    r = ptxsim.launch(VADD, "vadd_evict_last", 2, 128, [x, y, out, 1536, None, None], gpu="a100")
    total = r.stats["total"]
    assert r.gpu == r.stats["gpu"] == "a100"
    # Every global byte was read from DRAM once: 2 inputs x 1536 floats, at sector granularity.
    assert total["dram"]["bytes_read"] == 2 * 1536 * 4
    assert total["l2"]["write_sectors"] == 1536 * 4 // 32
    # The per-line table sums to the totals and names the Triton source lines.
    for level, key in (("l1", "read_sectors"), ("l2", "read_sectors"), ("l2", "write_sectors")):
        assert sum(line[level][key] for line in r.lines) == total[level][key]
    assert sum(line["dram"]["bytes_read"] for line in r.lines) == total["dram"]["bytes_read"]
    text = VADD.read_text().splitlines()
    loads = [line for line in r.lines if "ld.global" in line["instruction"]]
    assert len(loads) == 4
    for line in loads:
        assert "L1::evict_last" in text[line["line"] - 1]
        assert line["source"].endswith(("kernels.py:20", "kernels.py:21"))
        assert line["l2"]["read_sectors"] > 0 and line["l2_hit_rate"] == 0.0
    # evict_last loads leave their lines as evict-last in L2.
    assert r.stats["l2_occupancy"]["evict_last"] > 0
    summary = r.summary()
    assert summary.startswith("kernel `vadd_evict_last` on a100: grid (2,1,1) block (128,1,1)")
    assert "DRAM: bytes read 12288" in summary and "top lines by DRAM traffic:" in summary
    assert r.hazards == []


def test_gpu_models_and_override_files(tmp_path):
    toml = tmp_path / "small.toml"
    toml.write_text('preset = "h100"\nname = "h100-small-l2"\npersisting_l2_max_bytes = 131072\n[l2]\nsize_bytes = 262144\n')
    for gpu, name in (("b200", "b200"), (toml, "h100-small-l2"), (str(toml), "h100-small-l2")):
        x, y, out = vadd_args()
        assert ptxsim.launch(VADD, "vadd_evict_last", 2, 128, [x, y, out, 1536, None, None], gpu=gpu).gpu == name
    with pytest.raises(ptxsim.LaunchError, match="unknown GPU preset 'v100'"):
        ptxsim.launch(VADD, "vadd_evict_last", 2, 128, [x, y, out, 1536, None, None], gpu="v100")
    old = tmp_path / "old.toml"
    old.write_text('preset = "h100"\npersisting_l2_bytes = 131072\n')
    with pytest.raises(ptxsim.LaunchError, match="persisting_l2_max_bytes"):
        ptxsim.launch(VADD, "vadd_evict_last", 2, 128, [x, y, out, 1536, None, None], gpu=old)


def test_persisting_l2_set_aside(tmp_path):
    # The set-aside is a launch setting (cudaLimitPersistingL2CacheSize): 0 by default, an int or
    # a KiB/MiB/GiB string, at most the GPU's persisting_l2_max_bytes (H100: 32,768,000 B).
    x, y, out = vadd_args()
    args = [x, y, out, 1536, None, None]
    assert ptxsim.launch(VADD, "vadd_evict_last", 2, 128, args, gpu="h100").persisting_l2 == 0
    r = ptxsim.launch(VADD, "vadd_evict_last", 2, 128, args, gpu="h100", persisting_l2="4MiB")
    assert r.persisting_l2 == 4 << 20
    assert "persisting L2 set-aside 4194304 B" in r.summary()
    assert '"persisting_l2": 4194304' in r.to_json()
    assert ptxsim.launch(VADD, "vadd_evict_last", 2, 128, args, gpu="h100",
                         persisting_l2=32768000).persisting_l2 == 32768000
    with pytest.raises(ptxsim.LaunchError, match="exceeds the maximum of GPU 'h100': 32768000 B"):
        ptxsim.launch(VADD, "vadd_evict_last", 2, 128, args, gpu="h100", persisting_l2=32768001)
    with pytest.raises(ptxsim.LaunchError, match="not a byte count"):
        ptxsim.launch(VADD, "vadd_evict_last", 2, 128, args, gpu="h100", persisting_l2="4 lines")


# CTA 0 reads `data` through its SM's L1 (.ca), spins, and reads it again; CTA 1, on another SM,
# writes it meanwhile. The second read hits the stale L1 line (the spec's non-coherent L1).
STALE_PTX = """\
.version 8.0
.target sm_80
.address_size 64

.visible .entry stale(.param .u64 data, .param .u64 out)
{
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [data];
  ld.param.u64 %rd2, [out];
  mov.u32 %r1, %ctaid.x;
  setp.ne.u32 %p1, %r1, 0;
  @%p1 bra WRITER;
  ld.global.ca.u32 %r2, [%rd1];
  mov.u32 %r3, 0;
SPIN:
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p2, %r3, 2000;
  @%p2 bra SPIN;
  ld.global.ca.u32 %r4, [%rd1];
  st.global.u32 [%rd2], %r2;
  st.global.u32 [%rd2+4], %r4;
  ret;
WRITER:
  mov.u32 %r5, 42;
  st.global.u32 [%rd1], %r5;
  ret;
}
"""


def test_hazards_report_stale_l1_reads_when_asked():
    second_load = STALE_PTX.splitlines().index("  ld.global.ca.u32 %r4, [%rd1];") + 1
    data, out = np.zeros(1, np.uint32), np.zeros(2, np.uint32)
    r = ptxsim.launch(STALE_PTX, "stale", 2, 1, [data, out], hazards=True)
    assert out.tolist() == [0, 0] and data.tolist() == [42]  # the stale value was read
    (h,) = r.hazards
    assert (h["class"], h["line"], h["cta"], h["thread"], h["count"]) == ("stale-l1", second_load, [0, 0, 0], [0, 0, 0], 1)
    assert "hazards: 1" in r.summary()
    assert h["conflict"]["cta"] == [1, 0, 0] and h["conflict"]["instruction"].startswith("st.global")
    # Without hazards=True the list stays empty.
    assert ptxsim.launch(STALE_PTX, "stale", 2, 1, [np.zeros(1, np.uint32), out]).hazards == []
    # The fix: the second read bypasses L1 (.cg) and sees the write.
    fixed = STALE_PTX.replace("ld.global.ca.u32 %r4", "ld.global.cg.u32 %r4")
    data, out = np.zeros(1, np.uint32), np.zeros(2, np.uint32)
    r = ptxsim.launch(fixed, "stale", 2, 1, [data, out], hazards=True)
    assert out.tolist() == [0, 42] and r.hazards == []
    assert "hazards: none" in r.summary()


def test_max_steps_fault():
    with pytest.raises(ptxsim.KernelFault, match="more than 100 warp-instructions executed"):
        ptxsim.launch(STALE_PTX, "stale", 2, 1, [np.zeros(1, np.uint32), np.zeros(2, np.uint32)], max_steps=100)


SPIN_PTX = """\
.version 8.0
.target sm_80
.address_size 64
.visible .entry spin()
{
$L_spin:
\tbra.uni $L_spin;
}
"""


def test_timeout_is_a_kernel_fault():
    with pytest.raises(ptxsim.KernelFault, match=r"ran longer than 0.2 s of wall-clock time") as e:
        ptxsim.launch(SPIN_PTX, "spin", 1, 32, [], timeout=0.2)
    assert e.value.ptx_line == 7
    with pytest.raises(ValueError, match="timeout"):
        ptxsim.launch(SPIN_PTX, "spin", 1, 32, [], timeout=-1)


def test_buffer_over_the_gpu_memory_is_a_resource_error(tmp_path: Path):
    gpu = tmp_path / "small.toml"
    gpu.write_text('preset = "h100"\nmemory_bytes = 1048576\n')
    big = np.zeros(300_000, np.float32)  # 1.2 MB: over the 1 MiB of device memory
    with pytest.raises(ptxsim.ResourceError, match="out of device memory: cannot allocate 1200000 bytes") as e:
        ptxsim.launch(STALE_PTX, "stale", 1, 1, [big, np.zeros(2, np.uint32)], gpu=gpu)
    assert "argument 0" in str(e.value) and isinstance(e.value, ptxsim.PtxsimError)


def test_shared_memory_over_the_block_limit_is_a_resource_error():
    with pytest.raises(ptxsim.ResourceError, match="allows at most 232448 per block"):
        ptxsim.launch(SPIN_PTX, "spin", 1, 32, [], shared=300_000)


def test_missing_file():
    with pytest.raises(ptxsim.PtxsimError, match="cannot read /nonexistent/k.ptx: No such file"):
        ptxsim.launch("/nonexistent/k.ptx", "k", 1, 1, [])


HAZARD_PTX = CORPUS.parent / "hazards" / "hazard_kernels.sm80.ptx"


@pytest.mark.parametrize(
    "kernel,cls",
    [("nc_after_write_bug", "nc-after-write"), ("nc_after_write_fixed", None)],
)
def test_hazards_every_class_reaches_python(kernel: str, cls: str | None):
    buf, out = np.zeros(64, np.float32), np.zeros(64, np.float32)
    r = ptxsim.launch(HAZARD_PTX, kernel, 1, 64, [buf, out, 64], hazards=True)
    if cls is None:
        assert r.hazards == []
        return
    (h,) = r.hazards
    assert h["class"] == cls and h["instruction"].startswith("ld.global.nc")
    assert h["source"].startswith("tests/hazards/hazard_kernels.cu:")
    assert h["conflict"]["instruction"].startswith("st.global") and h["count"] > 1


def test_cp_async_hazard_reaches_python():
    inp, out = np.arange(100, 228, dtype=np.int32), np.zeros(128, np.int32)
    r = ptxsim.launch(HAZARD_PTX, "cp_async_no_wait_bug", 1, 128, [inp, out], hazards=True)
    assert [h["class"] for h in r.hazards] == ["cp-async-incomplete"]
    assert r.hazards[0]["conflict"]["instruction"].startswith("cp.async")


PRINTF_DATA = Path(__file__).resolve().parents[2] / "ptxsim" / "tests" / "data" / "device_printf"


def test_device_printf_matches_the_c_library_and_assert_raises():
    # nvcc output calling vprintf and __assertfail (crates/ptxsim/tests/data/device_printf, see
    # its gen.sh); the expected text is the host C library's output for the same calls.
    ptx = PRINTF_DATA / "printf_assert.sm80.ptx"
    x = np.load(PRINTF_DATA / "x.npy")
    n = np.load(PRINTF_DATA / "n.npy")
    r = ptxsim.launch(ptx, "print_values", 1, 4, [x, n, 10**12, 3])
    assert "".join(r.printf) == (PRINTF_DATA / "expected_stdout.txt").read_text()
    v = np.load(PRINTF_DATA / "v.npy")
    with pytest.raises(ptxsim.KernelFault, match=r"Assertion `v\[t\] > 0` failed") as e:
        ptxsim.launch(ptx, "check_positive", 1, 32, [v, 4])
    assert e.value.printf == [f"checking {k}\n" for k in (3, 1, 0, 5)]
    assert e.value.thread == (2, 0, 0)
