#!/usr/bin/env python3
"""Run real ptxas on every case from gen_cases.py and write the golden verdicts.

For each case the module is written to a scratch directory as `case.ptx` and assembled with
`ptxas -arch=<arch> case.ptx -o /dev/null`, where `<arch>` is the case's `.target` (or sm_75,
the lowest GPU ptxas 13.5 knows, for older targets; ptxas checks features against `.target`).
ptxas's exit code and its diagnostics are recorded; every diagnostic line
`ptxas case.ptx, line N; <severity> : <text>` (or `ptxas <severity> : <text>` without a line)
becomes `{"line": N|null, "severity": ..., "text": ...}`.

Outputs (next to this script unless told otherwise):
  golden.jsonl       one JSON object per case, sorted by id: id, family, target, version, arch,
                     line (of the instruction), insn, axes, ptx, exit, messages, raw
  golden.meta.json   ptxas version, command line, generator seed and counts

Usage:
  source ../../../shared/tools/cuda-tools.sh     # puts ptxas on PATH
  run_ptxas.py [--jobs 2] [--limit N] [--out-dir DIR]
  run_ptxas.py --verify      # no ptxas needed: check golden.jsonl matches gen_cases.py
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen_cases  # noqa: E402

LINE_RE = re.compile(r"^ptxas (?P<file>.+?), line (?P<line>\d+); (?P<sev>[a-z]+)\s*: (?P<text>.*)$")
NOLINE_RE = re.compile(r"^ptxas (?P<sev>fatal|error|warning|info)\s*: (?P<text>.*)$")


def parse_messages(raw: str) -> list[dict]:
    msgs = []
    for line in raw.splitlines():
        m = LINE_RE.match(line)
        if m:
            msgs.append({"line": int(m["line"]), "severity": m["sev"], "text": m["text"]})
            continue
        m = NOLINE_RE.match(line)
        if m:
            msgs.append({"line": None, "severity": m["sev"], "text": m["text"]})
            continue
        if line.strip():
            msgs.append({"line": None, "severity": "unparsed", "text": line})
    return msgs


def ptxas_version() -> str:
    out = subprocess.run(["ptxas", "--version"], capture_output=True, text=True, check=True).stdout
    return out.strip()


def ptxas_once(case: dict) -> tuple[int, str]:
    d = tempfile.mkdtemp(prefix="ptxsim-parity-")
    try:
        (Path(d) / "case.ptx").write_text(case["ptx"])
        p = subprocess.run(["ptxas", f"-arch={case['arch']}", "case.ptx", "-o", "/dev/null"],
                           capture_output=True, text=True, cwd=d, timeout=120)
        return p.returncode, p.stdout + p.stderr
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run_case(case: dict) -> dict:
    """Run ptxas twice (three times if the two runs differ). ptxas 13.5 sometimes crashes
    (SIGSEGV, exit -11) on a few accepted forms and not always: such cases get
    `flaky: true` and every run is kept in `runs`; `exit`/`messages`/`raw` are the first run."""
    first = ptxas_once(case)
    runs = [first, ptxas_once(case)]
    if runs[1] != first:
        runs.append(ptxas_once(case))
    rec = dict(case)
    rec["exit"], rec["raw"] = first
    rec["messages"] = parse_messages(first[1])
    rec["flaky"] = len(set(runs)) > 1
    if rec["flaky"]:
        rec["runs"] = [{"exit": e, "raw": r} for e, r in runs]
    rec["crash"] = any(e < 0 or "Internal compiler error" in r for e, r in runs)
    return rec


def verify(out_dir: Path) -> int:
    cases = {c["id"]: c for c in gen_cases.generate()}
    bad = 0
    seen = set()
    with open(out_dir / "golden.jsonl") as f:
        for line in f:
            g = json.loads(line)
            seen.add(g["id"])
            c = cases.get(g["id"])
            if c is None or c["ptx"] != g["ptx"]:
                bad += 1
                if bad <= 10:
                    print(f"mismatch: {g['id']}", file=sys.stderr)
    missing = set(cases) - seen
    if missing:
        print(f"{len(missing)} generated cases missing from golden", file=sys.stderr)
    ok = bad == 0 and not missing
    print("golden.jsonl matches gen_cases.py" if ok else "golden.jsonl is stale: rerun run_ptxas.py")
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description="Run ptxas on the parity cases and write golden.jsonl")
    ap.add_argument("--jobs", type=int, default=2, help="ptxas processes at once (default 2)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N cases (for trying out)")
    ap.add_argument("--out-dir", default=str(HERE))
    ap.add_argument("--verify", action="store_true", help="check golden.jsonl against gen_cases.py")
    args = ap.parse_args()
    out_dir = Path(args.out_dir)
    if args.verify:
        return verify(out_dir)
    if shutil.which("ptxas") is None:
        print("ptxas not on PATH: source shared/tools/cuda-tools.sh first", file=sys.stderr)
        return 2
    cases = gen_cases.generate()
    if args.limit:
        cases = cases[: args.limit]
    version = ptxas_version()
    results: list[dict] = []
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for i, rec in enumerate(ex.map(run_case, cases), 1):
            results.append(rec)
            if i % 500 == 0:
                print(f"{i}/{len(cases)}", file=sys.stderr)
    results.sort(key=lambda r: r["id"])
    golden = out_dir / "golden.jsonl"
    with open(golden, "w") as f:
        for r in results:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    digest = hashlib.sha256(golden.read_bytes()).hexdigest()
    exits = Counter(r["exit"] for r in results)
    meta = {
        "ptxas_version": version,
        "ptxas_release": re.search(r"release (\S+), (V\S+)", version).group(0)
        if re.search(r"release (\S+), (V\S+)", version) else version.splitlines()[-1],
        "command": "ptxas -arch=<arch> case.ptx -o /dev/null (cwd = scratch dir)",
        "arch_rule": "arch = .target, or sm_75 when .target is below sm_75",
        "generator": "tests/parity/gen_cases.py",
        "generator_version": gen_cases.GENERATOR_VERSION,
        "seed": gen_cases.SEED,
        "instruction_line": gen_cases.INSN_LINE,
        "cases": len(results),
        "accepted": exits.get(0, 0),
        "rejected": len(results) - exits.get(0, 0),
        "exit_codes": {str(k): v for k, v in sorted(exits.items())},
        "flaky": sum(1 for r in results if r["flaky"]),
        "crash": sum(1 for r in results if r["crash"]),
        "per_family": dict(sorted(Counter(r["family"] for r in results).items())),
        "golden_sha256": digest,
    }
    (out_dir / "golden.meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    print(json.dumps({k: meta[k] for k in ("cases", "accepted", "rejected", "per_family")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
