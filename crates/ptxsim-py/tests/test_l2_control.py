"""The L2 control surface from Python (issue 31): access_policy_window= on ptxsim.launch and
ptxsim.triton.run (checked as the CUDA runtime checks it), and discard.global.L2 in an nvcc kernel
(tests/l2ctl/l2_control.cu) with its read-after-discard hazard."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import triton
import triton.language as tl

import ptxsim
import ptxsim.triton
from _util import cli_error

ROOT = Path(__file__).resolve().parents[3]
PTX = ROOT / "tests" / "l2ctl" / "l2_control.sm80.ptx"


def window_lines(r: ptxsim.Result) -> tuple[int, int]:
    hit = sum(line["l2"]["window_hit_prop"] for line in r.lines)
    miss = sum(line["l2"]["window_miss_prop"] for line in r.lines)
    return hit, miss


def stream(window=None, **kw):
    data = np.zeros(8192, dtype=np.float32)
    sink = np.zeros(64, dtype=np.float32)
    if callable(window):
        window = window(data)
    return ptxsim.launch(PTX, "stream_read", 64, 128, [data, 8192, sink], gpu="h100",
                         persisting_l2="4MiB", access_policy_window=window, **kw)


def test_a_window_on_the_array_itself_makes_its_lines_persist():
    plain = stream()
    assert window_lines(plain) == (0, 0)
    assert plain.stats["l2_occupancy"]["evict_last"] == 0
    r = stream(lambda data: {"arg": data, "bytes": "32KiB", "hit_ratio": 1.0,
                             "hit_prop": "persisting", "miss_prop": "normal"})
    hit, miss = window_lines(r)
    assert hit > 0 and miss == 0
    assert r.stats["l2_occupancy"]["evict_last"] > 0
    # By index, half of the lines: both properties are given.
    r = stream({"arg": 0, "offset": 0, "bytes": 32768, "hit_ratio": 0.5,
                "hit_prop": "persisting", "miss_prop": "streaming"})
    hit, miss = window_lines(r)
    assert hit > 0 and miss > 0


@pytest.mark.parametrize("window,flag", [
    ({"arg": 0, "bytes": 0, "hit_ratio": 0.5, "hit_prop": "persisting", "miss_prop": "normal"},
     "0:0:0.5:persisting:normal"),
    ({"arg": 0, "bytes": "4KiB", "hit_ratio": 1.5, "hit_prop": "persisting", "miss_prop": "normal"},
     "0:4KiB:1.5:persisting:normal"),
    ({"arg": 0, "bytes": 4096, "hit_ratio": 0.5, "hit_prop": "persisting", "miss_prop": "persisting"},
     "0:4096:0.5:persisting:persisting"),
    ({"arg": 1, "bytes": 4096, "hit_ratio": 0.5, "hit_prop": "persisting", "miss_prop": "normal"},
     "1:4096:0.5:persisting:normal"),
])
def test_refused_windows_raise_the_cli_error(window, flag):
    with pytest.raises(ptxsim.LaunchError) as e:
        stream(window)
    want = cli_error("run", str(PTX), "--kernel", "stream_read", "--grid", "64", "--block", "128",
                     "--arg", "zeros:f32:8192", "--arg", "s32:8192", "--arg", "zeros:f32:64",
                     "--persisting-l2", "4MiB", "--access-policy-window", flag)
    # The same sentence after the window as each side writes it.
    assert str(e.value).split("`: ")[-1] == want.split("`: ")[-1]


def test_malformed_window_dicts_are_named():
    with pytest.raises(ptxsim.LaunchError, match="missing key"):
        stream({"arg": 0, "bytes": 4096})
    with pytest.raises(ptxsim.LaunchError, match="unknown key"):
        stream({"arg": 0, "bytes": 4096, "hit_ratio": 1, "hit_prop": "normal", "miss_prop": "normal",
                "ratio": 1})
    with pytest.raises(ptxsim.LaunchError, match="neither an argument index nor one of"):
        stream({"arg": np.zeros(4), "bytes": 4096, "hit_ratio": 1, "hit_prop": "normal",
                "miss_prop": "normal"})
    with pytest.raises(ptxsim.LaunchError, match="give normal, streaming or persisting"):
        stream({"arg": 0, "bytes": 4096, "hit_ratio": 1, "hit_prop": "sticky", "miss_prop": "normal"})


def test_discarded_scratch_reads_back_as_before_and_is_a_hazard():
    buf = np.zeros(128, dtype=np.float32)
    out = np.full(128, -1.0, dtype=np.float32)
    r = ptxsim.launch(PTX, "write_discard_read", 2, 64, [buf, out, 1, 1], hazards=True)
    # The writes never reached memory: the discarded lines read as they were, zeros.
    np.testing.assert_array_equal(out, np.zeros(128, dtype=np.float32))
    np.testing.assert_array_equal(buf, np.zeros(128, dtype=np.float32))
    [h] = [h for h in r.hazards if h["class"] == "read-after-discard"]
    assert h["count"] == 128
    assert "discard.global.L2" in h["conflict"]["instruction"]
    discards = sum(line["l2"]["discards"] for line in r.lines)
    assert discards == 4  # 128 floats = 4 lines
    out[:] = -1.0
    r = ptxsim.launch(PTX, "write_discard_read", 2, 64, [buf, out, 1, 0], hazards=True)
    np.testing.assert_array_equal(out, np.arange(128, dtype=np.float32))
    assert not r.hazards


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def test_triton_run_takes_a_window():
    n = 8192
    x = np.arange(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    window = {"arg": x, "bytes": x.nbytes, "hit_ratio": 1.0, "hit_prop": "persisting",
              "miss_prop": "normal"}
    r = ptxsim.triton.run(scale_kernel, (n // 1024,), x, out, n, BLOCK=1024, gpu="h100",
                          persisting_l2="4MiB", access_policy_window=window)
    np.testing.assert_array_equal(out, x * 2.0)
    assert window_lines(r)[0] > 0
    assert r.stats["l2_occupancy"]["evict_last"] > 0
    # By index among the arguments as given; a scalar is no buffer.
    r = ptxsim.triton.run(scale_kernel, (n // 1024,), x, out, n, BLOCK=1024, gpu="h100",
                          access_policy_window=dict(window, arg=1))
    assert window_lines(r)[0] > 0
    with pytest.raises(ptxsim.LaunchError, match="argument 2 is not a buffer"):
        ptxsim.triton.run(scale_kernel, (n // 1024,), x, out, n, BLOCK=1024, gpu="h100",
                          access_policy_window=dict(window, arg=2))
