"""Reports a kernel author can act on, from Python: `Result._repr_html_` (the HTML report a
notebook shows), `ptxsim.compare` and `ptxsim.advise` (the CLI's experiments, with their own
`_repr_html_`), and `Result.compare_ncu` against an `ncu --csv --page raw` export."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import ptxsim

# A strided load (one sector per lane where 4 would hold the warp's bytes) that L1 never
# re-reads, and a store.
STRIDED = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 src, .param .u64 dst)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [src];
	ld.param.u64 %rd2, [dst];
	cvta.to.global.u64 %rd1, %rd1;
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 128;
	add.u64 %rd4, %rd1, %rd3;
	ld.global.u32 %r2, [%rd4];
	mul.wide.u32 %rd5, %r1, 4;
	add.u64 %rd6, %rd2, %rd5;
	st.global.u32 [%rd6], %r2;
	ret;
}
"""
LOAD_LINE = 15


def _args():
    return [np.arange(32 * 32, dtype=np.uint32), np.zeros(32, dtype=np.uint32)]


def test_result_repr_html_is_the_self_contained_report():
    r = ptxsim.launch(STRIDED, "k", 1, 32, _args())
    html = r._repr_html_()
    assert html.startswith("<!DOCTYPE html>")
    assert "<script" not in html
    assert "sectors / ideal" in html
    report = json.loads(r.report_json())
    line = next(l for l in report["variants"][0]["lines"] if l["ptx_line"] == LOAD_LINE)
    assert line["metrics"]["smsp__sass_sectors_mem_global.sum"] == 32
    assert line["metrics"]["smsp__sass_sectors_mem_global_ideal.sum"] == 4


def test_compare_runs_variants_and_shows_html():
    rep = ptxsim.compare(STRIDED, "k", 1, 32, _args(), ["cg=loads=cg", "nc=loads=nc"])
    assert rep.command == "compare"
    assert rep.variants == ["original", "cg", "nc"]
    doc = json.loads(rep.to_json())
    assert [v["outputs"]["status"] for v in doc["variants"]] == ["baseline", "identical", "identical"]
    assert "ld.global.nc.u32" in doc["variants"][2]["changes"][0]["after"]
    assert "lines changed" in rep.summary()
    assert "<script" not in rep._repr_html_()


def test_compare_and_advise_take_the_registers_per_thread():
    # 200 registers x 32 threads = 6,400 per CTA, allocated 256 per warp: 8 CTAs per SM of the
    # H100's 65,536 (cuda_occupancy.h's rule, worked by hand), limited by registers.
    for rep in (
        ptxsim.compare(STRIDED, "k", 1, 32, _args(), ["cg=loads=cg"], registers_per_thread=200),
        ptxsim.advise(STRIDED, "k", 1, 32, _args(), registers_per_thread=200),
    ):
        for v in json.loads(rep.to_json())["variants"]:
            res = v["run"]["residency"]
            assert (res["registers_per_thread"], res["registers_source"]) == (200, "flag")
            assert (res["ctas_per_sm"], res["limited_by"]) == (8, ["registers"])
    with pytest.raises(ptxsim.LaunchError, match="1 to 255"):
        ptxsim.compare(STRIDED, "k", 1, 32, _args(), ["cg=loads=cg"], registers_per_thread=256)


def test_compare_and_advise_prepare_the_launch_as_launch_does():
    # One preparation path (crates/ptxsim-py/src/setup.rs): a module ptxas rejects raises
    # launch's PtxValidationError with the diagnostics, a wrong argument count names the
    # parameters.
    rejected = STRIDED.replace("ld.global.u32", "ld.global.cg.L1::evict_first.u32")
    findings = [d for d in ptxsim.check(rejected) if d.is_error()]
    assert findings
    for run in (
        lambda src, args: ptxsim.compare(src, "k", 1, 32, args, ["cg=loads=cg"]),
        lambda src, args: ptxsim.advise(src, "k", 1, 32, args),
    ):
        with pytest.raises(ptxsim.PtxValidationError) as e:
            run(rejected, _args())
        assert [repr(d) for d in e.value.diagnostics] == [repr(d) for d in findings]
        with pytest.raises(ptxsim.LaunchError, match=r"takes 2 arguments, 1 given \(parameters: "):
            run(STRIDED, _args()[:1])


def test_advise_suggests_and_measures():
    rep = ptxsim.advise(STRIDED, "k", 1, 32, _args())
    rules = {s["rule"]: s for s in rep.suggestions}
    assert rules["uncoalesced"]["ptx_line"] == LOAD_LINE
    assert rules["uncoalesced"]["rewrite"] is None and rules["uncoalesced"]["measured"] == {}
    fill = rules["l1-fill-unused"]
    assert fill["rewrite"] == f"l1-cg-{LOAD_LINE}=line:{LOAD_LINE}=cg"
    assert fill["measured"]["outputs"] == "identical"
    assert rules["read-only-nc"]["rewrite"].endswith(f"line:{LOAD_LINE}=nc")
    assert "Suggestions" in rep.summary()


def test_compare_ncu_reads_a_raw_export(tmp_path: Path):
    r = ptxsim.launch(STRIDED, "k", 1, 32, _args())
    csv = tmp_path / "k.csv"
    csv.write_text(
        '==PROF== Connected to process 1 (python)\n'
        '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
        '"Block Size","Grid Size","Device","CC","dram__bytes_read.sum","lts__t_sectors.sum"\n'
        '"","","","","","","","","","","","Kbyte","sector"\n'
        '"0","1","python","h","k","1","7","(32, 1, 1)","(1, 1, 1)","0","9.0","1.02","1,040"\n'
    )
    cmp = r.compare_ncu(csv)
    rows = {row["metric"]: row for row in cmp["rows"]}
    assert rows["dram__bytes_read.sum"]["measured"] == pytest.approx(1020.0)
    assert rows["lts__t_sectors.sum"]["measured"] == 1040
    with pytest.raises(ptxsim.LaunchError, match="no launch of `k`"):
        csv.write_text(csv.read_text().replace('"k","1","7"', '"other","1","7"'))
        r.compare_ncu(csv)


def test_compare_counters_only_reports_the_full_runs_counters():
    # Counters-only mode computes no outputs: every counter, per-line table and time estimate
    # is the full run's, and `outputs` says the variants' were not compared.
    variants = ["cg=loads=cg", "nc=loads=nc"]
    full = json.loads(ptxsim.compare(STRIDED, "k", 1, 32, _args(), variants).to_json())
    co = json.loads(
        ptxsim.compare(STRIDED, "k", 1, 32, _args(), variants, counters_only=True, threads=2).to_json()
    )
    assert [v["name"] for v in co["variants"]] == ["original", "cg", "nc"]
    for a, b in zip(full["variants"], co["variants"]):
        for key in ("totals", "levels", "lines", "l2_timeline", "time"):
            assert a[key] == b[key], (a["name"], key)
    assert [v["outputs"]["status"] for v in co["variants"]] == ["baseline", "not computed", "not computed"]
    assert "not computed" in ptxsim.compare(STRIDED, "k", 1, 32, _args(), variants, counters_only=True).summary()


def test_compare_and_advise_take_fmad_and_threads():
    # `fmad=` (ptxas's --fmad) changes values, not counters; `threads=` changes neither: the
    # reports of one and two host threads, contracted or not, are the same.
    reports = [
        json.loads(ptxsim.compare(STRIDED, "k", 1, 32, _args(), ["cg=loads=cg"], fmad=f, threads=t).to_json())
        for f, t in ((True, 1), (False, 2))
    ]
    assert reports[0]["variants"] == reports[1]["variants"]
    adv = [json.loads(ptxsim.advise(STRIDED, "k", 1, 32, _args(), fmad=f, threads=t).to_json()) for f, t in ((True, 1), (False, 2))]
    assert adv[0]["variants"] == adv[1]["variants"]
    with pytest.raises(TypeError):
        ptxsim.compare(STRIDED, "k", 1, 32, _args(), ["cg=loads=cg"], fmad="no")
    with pytest.raises(ptxsim.LaunchError, match="threads = 0"):
        ptxsim.advise(STRIDED, "k", 1, 32, _args(), threads=0)
