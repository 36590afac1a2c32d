"""ptxsim.check: the CLI's `check` as a list of findings."""

import json
import subprocess

import pytest

import ptxsim
from _util import CORPUS, cli

ACCEPTED = sorted((CORPUS / "nvcc").glob("*.ptx")) + sorted((CORPUS / "triton").glob("*.ptx"))


def cli_check_json(path):
    p = subprocess.run([str(cli()), "check", "--format", "json", str(path)], capture_output=True, text=True)
    return json.loads(p.stdout)["files"][0]["diagnostics"]


def test_corpus_files_ptxas_accepted_have_no_errors():
    assert len(ACCEPTED) >= 60
    for path in ACCEPTED:
        errors = [d for d in ptxsim.check(path) if d.is_error()]
        assert errors == [], f"{path.name}: {errors}"


def test_findings_match_the_cli_json(tmp_path):
    bad = tmp_path / "bad.ptx"
    text = (CORPUS / "triton" / "vadd_evict_last.sm80.ptx").read_text()
    bad.write_text(text.replace("ld.global.L1::evict_last.L2::cache_hint.v4.b32", "ld.global.L1::evict_last.L2::cache_hint.v4.b32 ]", 1))
    found = ptxsim.check(bad)
    assert found, "a stray `]` must be a syntax error"
    want = cli_check_json(bad)
    assert [(d.severity, d.code, d.line, d.column, d.end_line, d.end_column, d.message, d.ptxas, d.help) for d in found] == [
        (w["severity"], w["code"], w["line"], w["column"], w["end_line"], w["end_column"], w["message"], w["ptxas"], w["help"])
        for w in want
    ]
    d = found[0]
    assert d.severity == "fatal" and d.is_error() and d.file == str(bad)
    assert f"{bad}:{d.line}:{d.column}" in str(d) and d.message in str(d)


def test_text_input_and_options():
    text = (CORPUS / "triton" / "vadd_evict_last.sm80.ptx").read_text()
    assert [d for d in ptxsim.check(text, "sm_90") if d.is_error()] == []
    assert [d for d in ptxsim.check(text, ptx_version="8.8") if d.is_error()] == []
    with pytest.raises(ValueError, match="sm_1234x"):
        ptxsim.check(text, "sm_1234x")
    with pytest.raises(ValueError, match="`eight` is not a PTX version"):
        ptxsim.check(text, ptx_version="eight")
