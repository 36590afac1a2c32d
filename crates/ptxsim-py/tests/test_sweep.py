"""ptxsim.sweep, ptxsim.triton.sweep and ``python -m ptxsim sweep``: the same rows on local
threads, on a local Ray instance and from the CLI; failures reported with the rest run; a
cache of finished points; the report page rendered by headless Chromium."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

import ptxsim
from _util import REPO, RUN_DIR

VADD = str(RUN_DIR / "triton.vadd_evict_last.sm80.toml")
SWEEP_DATA = REPO / "crates" / "ptxsim" / "tests" / "data" / "sweep"


def small_spec() -> dict:
    # 2 variants x 2 GPUs x 2 set-asides: 8 points of ~2,000 warp-instructions.
    return {
        "launch": VADD,
        "axes": {
            "variant": ["original", "ef=loads=evict_first"],
            "gpu": ["a100", "h100"],
            "persisting_l2": [0, "64KiB"],
        },
    }


def statuses(out) -> list[str]:
    with open(os.path.join(out, "timings.csv")) as f:
        return [r["status"] for r in csv.DictReader(f)]


@pytest.fixture(scope="module")
def ray_local():
    """A local Ray instance with two CPUs, for the tests of the Ray backend."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_local_rows_match_the_cli(tmp_path):
    rows = ptxsim.sweep(small_spec(), out=tmp_path / "py", jobs=2)
    assert isinstance(rows, list) and len(rows) == 8
    assert list(rows[0])[:7] == ["variant", "gpu", "persisting_l2", "seed", "step", "kernel", "outputs_equal"]
    assert [r["variant"] for r in rows[:2]] == ["original", "ef"]
    assert {r["persisting_l2"] for r in rows} == {0, 65536}
    assert all(r["outputs_equal"] is True for r in rows)
    # 1536 floats of x and y read from DRAM once each, in every configuration.
    assert all(r["dram__bytes_read.sum"] == 2 * 1536 * 4 for r in rows)
    # The CLI on the same spec (as a TOML file) writes the same rows.
    spec = tmp_path / "spec.toml"
    spec.write_text(
        f'launch = {json.dumps(VADD)}\n[axes]\nvariant = ["original", "ef=loads=evict_first"]\n'
        'gpu = ["a100", "h100"]\npersisting_l2 = [0, "64KiB"]\n'
    )
    cli = os.environ.get("PTXSIM_CLI", str(REPO / "target" / "debug" / "ptxsim"))
    subprocess.run([cli, "sweep", str(spec), "--out", str(tmp_path / "cli")], check=True, capture_output=True)
    assert json.loads((tmp_path / "cli" / "results.json").read_text()) == rows
    assert (tmp_path / "cli" / "results.csv").read_bytes() == (tmp_path / "py" / "results.csv").read_bytes()


def test_ray_gives_the_local_rows_and_uses_the_cache(tmp_path, ray_local):
    local = ptxsim.sweep(small_spec(), out=tmp_path / "local")
    remote = ptxsim.sweep(small_spec(), out=tmp_path / "ray", backend="ray")
    assert remote == local
    for name in ("results.csv", "results.json"):
        assert (tmp_path / "ray" / name).read_bytes() == (tmp_path / "local" / name).read_bytes()
    assert statuses(tmp_path / "ray") == ["ran"] * 8
    # Run again: every point is in the cache, no task runs.
    again = ptxsim.sweep(small_spec(), out=tmp_path / "ray", backend="ray")
    assert again == local
    assert statuses(tmp_path / "ray") == ["cached"] * 8


def test_failed_points_raise_after_the_rest_ran(tmp_path, ray_local):
    spec = str(SWEEP_DATA / "failing.toml")
    for backend in ("local", "ray"):
        out = tmp_path / backend
        with pytest.raises(ptxsim.SweepError) as e:
            ptxsim.sweep(spec, out=out, backend=backend)
        assert len(e.value.failures) == 2 and len(e.value.rows) == 2
        point, error = e.value.failures[0]
        assert "vadd_step_limit.toml" in point and "more than 10 warp-instructions" in error
        assert statuses(out) == ["ran", "ran", "failed", "failed"]
    assert (tmp_path / "ray" / "results.csv").read_bytes() == (tmp_path / "local" / "results.csv").read_bytes()


def test_python_m_ptxsim_sweep(tmp_path):
    spec = SWEEP_DATA / "failing.toml"
    r = subprocess.run([sys.executable, "-m", "ptxsim", "sweep", str(spec), "--out", str(tmp_path / "o"),
                        "--jobs", "2"], capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert "2 point(s) of the sweep failed" in r.stderr
    r = subprocess.run([sys.executable, "-m", "ptxsim", "sweep", str(SWEEP_DATA / "stale.toml"), "--out",
                        str(tmp_path / "s")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    with open(tmp_path / "s" / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["variant"], r["outputs_equal"]) for r in rows] == [
        ("original", "true"), ("cg", "false"), ("original", "true"), ("cg", "false")]
    # --threads: interpreter threads per point; the rows do not depend on it.
    r = subprocess.run([sys.executable, "-m", "ptxsim", "sweep", str(spec), "--out", str(tmp_path / "t"),
                        "--jobs", "2", "--threads", "2"], capture_output=True, text=True)
    assert r.returncode == 1 and "2 point(s) of the sweep failed" in r.stderr, r.stderr
    assert (tmp_path / "t" / "results.csv").read_bytes() == (tmp_path / "o" / "results.csv").read_bytes()
    r = subprocess.run([sys.executable, "-m", "ptxsim", "sweep", str(spec), "--out", str(tmp_path / "z"),
                        "--threads", "0"], capture_output=True, text=True)
    assert r.returncode == 2 and "--threads" in r.stderr, r.stderr


def test_rows_are_a_dataframe_when_pandas_is_there(tmp_path, monkeypatch):
    made = []

    class DataFrame:
        def __init__(self, rows):
            made.append(rows)

    monkeypatch.setitem(sys.modules, "pandas", types.SimpleNamespace(DataFrame=DataFrame))
    df = ptxsim.sweep({"launch": VADD}, out=tmp_path)
    assert isinstance(df, DataFrame) and len(made[0]) == 1 and made[0][0]["variant"] == "original"


def test_errors(tmp_path, monkeypatch):
    with pytest.raises(ptxsim.PtxsimError, match="unknown field `colour`"):
        ptxsim.sweep({"launch": VADD, "axes": {"colour": [1]}}, out=tmp_path)
    with pytest.raises(ptxsim.PtxsimError, match="cannot read"):
        ptxsim.sweep(tmp_path / "missing.toml", out=tmp_path)
    with pytest.raises(ValueError, match="'local' or 'ray'"):
        ptxsim.sweep({"launch": VADD}, out=tmp_path, backend="dask")
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ImportError, match=r"pip install 'ray\[default\]'"):
        ptxsim.sweep({"launch": VADD}, out=tmp_path / "r", backend="ray")


def test_triton_sweep_over_sizes_and_constexprs(tmp_path):
    import triton
    import ptxsim.triton
    from test_triton import add_kernel

    rng = np.random.default_rng(3)
    x, y = rng.standard_normal(4096, dtype=np.float32), rng.standard_normal(4096, dtype=np.float32)

    def make_args(p):
        n = p["n"]
        return [x[:n].copy(), y[:n].copy(), np.zeros(n, dtype=np.float32), n]

    rows = ptxsim.triton.sweep(
        add_kernel, lambda p: (triton.cdiv(p["n"], p["BLOCK_SIZE"]),), make_args,
        {"n": [1000, 4096], "BLOCK_SIZE": [256, 1024], "variant": ["original", "ef=loads=evict_first"]},
        out=tmp_path, jobs=2)
    assert len(rows) == 8
    assert list(rows[0])[:3] == ["BLOCK_SIZE", "n", "variant"]
    assert {(r["n"], r["BLOCK_SIZE"]) for r in rows} == {(1000, 256), (1000, 1024), (4096, 256), (4096, 1024)}
    for r in rows:
        assert r["gpu"] == "a100" and r["kernel"] == "add_kernel" and r["outputs_equal"] is True
        # Two arrays of n floats, each read in whole 64-byte L2 fetch granules (the H100's).
        assert r["dram__bytes_read.sum"] == 2 * ((4 * r["n"] + 63) // 64 * 64)
    # One launch directory per size and constexpr, reused when the sweep runs again.
    assert len(list((tmp_path / "triton").iterdir())) == 4
    again = ptxsim.triton.sweep(
        add_kernel, lambda p: (triton.cdiv(p["n"], p["BLOCK_SIZE"]),), make_args,
        {"n": [1000, 4096], "BLOCK_SIZE": [256, 1024], "variant": ["original", "ef=loads=evict_first"]},
        out=tmp_path)
    assert again == rows and statuses(tmp_path) == ["cached"] * 8


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail("headless Chromium is needed (scripts/python-test installs Debian's `chromium`)")


def test_report_renders_in_headless_chromium(tmp_path):
    from PIL import Image

    out = tmp_path / "sweep"
    ptxsim.sweep(small_spec(), out=out, jobs=2)
    page = (out / "report.html").as_uri()
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1200,900",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run([chromium(), *flags, "--dump-dom", page], capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    # The DOM Chromium built: both heatmaps (two panels each: the set-asides) and the table.
    assert dom.stdout.count('class="heatmap"') == 4
    assert dom.stdout.count("<tr>") >= 8 + 1 + 4 * 3
    shot = tmp_path / "page.png"
    r = subprocess.run([chromium(), *flags, f"--screenshot={shot}", page], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and shot.exists(), r.stderr[-2000:]
    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert img.shape[:2] == (900, 1200)
    # Text, rules and cells: pixels far from both the page's grey and the cards' white (a blank
    # page has none; this one about 9 %).
    far = lambda c: np.abs(img - np.array(c)).sum(axis=2) > 24  # noqa: E731
    drawn = far([0xF7, 0xF8, 0xFA]) & far([0xFF, 0xFF, 0xFF])
    assert drawn.mean() > 0.04, f"only {drawn.mean():.1%} of the page is drawn"
    # Heatmap cells: saturated blue.
    blue = (img[..., 2] - img[..., 0] > 80) & (img[..., 2] > 120)
    assert blue.sum() > 2000, f"{blue.sum()} blue pixels"
