"""The run/verify driver shared by the ptxas-parity generators whose cases are small complete
modules (gen_adversarial.py, gen_gaps.py, gen_survey.py).

A generator supplies `generate()` (a list of cases, each a dict with at least `id`, `family`,
`ptx` and `arch`) and calls `golden_main`, which gives it the common command line:

  --list              print the cases as JSON lines (no ptxas)
  --run [--jobs 2]    assemble every case with real ptxas and write <stem>.jsonl.gz and
                      <stem>.meta.json next to the generators ([--limit N]: the first N only,
                      for a quick look; such a file does not pass --verify)
  --verify            <stem>.jsonl.gz holds exactly the modules generate() makes today (no
                      ptxas)
  (none)              count the cases per family

Every case is assembled with `ptxas -arch=<arch> case.ptx -o /dev/null` in a scratch
directory, twice (a third time when the two answers differ). Cases on which ptxas crashed
(signal, internal error) or answered differently between runs have no verdict: they are left
out of the data file and counted in the meta file.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

HERE = Path(__file__).resolve().parent

Generate = Callable[[], list[dict]]


def ptxas_once(ptx: str, arch: str) -> tuple[int, str]:
    """One ptxas run of `ptx` as `case.ptx` in a fresh scratch directory: exit code (-999 on
    a two-minute timeout) and stdout + stderr."""
    d = tempfile.mkdtemp(prefix="ptxsim-golden-")
    try:
        (Path(d) / "case.ptx").write_text(ptx)
        try:
            p = subprocess.run(["ptxas", f"-arch={arch}", "case.ptx", "-o", "/dev/null"],
                               capture_output=True, text=True, cwd=d, timeout=120)
        except subprocess.TimeoutExpired:
            return -999, "timeout"
        return p.returncode, p.stdout + p.stderr
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run_case(case: dict) -> dict:
    """The case with ptxas's first answer (`exit`, `raw`) and whether it was flaky or crashed."""
    first = ptxas_once(case["ptx"], case["arch"])
    runs = [first, ptxas_once(case["ptx"], case["arch"])]
    if runs[1] != first:
        runs.append(ptxas_once(case["ptx"], case["arch"]))
    rec = dict(case)
    rec["exit"], rec["raw"] = first
    rec["flaky"] = len(set(runs)) > 1
    rec["crash"] = any(e < 0 or "Internal compiler error" in r or "internal error" in r.lower()
                       for e, r in runs)
    return rec


def run_golden(stem: str, generate: Generate, jobs: int, arch_rule: str, limit: int = 0,
               **meta_extra) -> int:
    """Runs the cases of `generate()` through ptxas and writes `<stem>.jsonl.gz` (the cases
    with a verdict, sorted by id) and `<stem>.meta.json` (ptxas version, command, counts, the
    ids left out, `meta_extra`, and the data file's sha256)."""
    if shutil.which("ptxas") is None:
        print("ptxas not on PATH: source shared/tools/cuda-tools.sh first", file=sys.stderr)
        return 2
    cases = generate()
    if limit:
        cases = cases[:limit]
    version = subprocess.run(["ptxas", "--version"], capture_output=True, text=True,
                             check=True).stdout.strip()
    results = []
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        for n, rec in enumerate(ex.map(run_case, cases), 1):
            results.append(rec)
            if n % 250 == 0:
                print(f"{n}/{len(cases)}", file=sys.stderr)
    kept = [r for r in results if not (r["crash"] or r["flaky"])]
    left = [r for r in results if r["crash"] or r["flaky"]]
    kept.sort(key=lambda r: r["id"])
    data = HERE / f"{stem}.jsonl.gz"
    with gzip.GzipFile(data, "wb", mtime=0) as f:
        for r in kept:
            r = {k: v for k, v in r.items() if k not in ("crash", "flaky")}
            f.write((json.dumps(r, sort_keys=True) + "\n").encode())
    exits = Counter(r["exit"] for r in kept)
    meta = {
        "ptxas_version": version,
        "command": "ptxas -arch=<arch> case.ptx -o /dev/null (cwd = scratch dir)",
        "arch_rule": arch_rule,
        "generator": f"tests/parity/gen_{stem}.py",
        **meta_extra,
        "generated": len(results),
        "cases": len(kept),
        "accepted": exits.get(0, 0),
        "rejected": len(kept) - exits.get(0, 0),
        "exit_codes": {str(k): v for k, v in sorted(exits.items())},
        "left_out_crash": sum(1 for r in left if r["crash"]),
        "left_out_flaky": sum(1 for r in left if r["flaky"] and not r["crash"]),
        "left_out_ids": sorted(r["id"] for r in left),
        "per_family": dict(sorted(Counter(r["family"] for r in kept).items())),
        "sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
    }
    (HERE / f"{stem}.meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    print(json.dumps({k: meta[k] for k in ("cases", "accepted", "rejected", "left_out_crash",
                                            "left_out_flaky", "per_family")}, indent=1))
    return 0


def verify_golden(stem: str, generate: Generate) -> int:
    """Whether `<stem>.jsonl.gz` holds exactly the modules `generate()` makes today: every
    stored case's module is the generated one of its id, and the stored cases plus those left
    out are all the generated ones."""
    gen = {c["id"]: c["ptx"] for c in generate()}
    meta = json.loads((HERE / f"{stem}.meta.json").read_text())
    n = bad = 0
    with gzip.open(HERE / f"{stem}.jsonl.gz", "rt") as f:
        for line in f:
            r = json.loads(line)
            n += 1
            bad += gen.get(r["id"]) != r["ptx"]
    ok = bad == 0 and n + len(meta["left_out_ids"]) == len(gen)
    print(f"{stem}.jsonl.gz matches the generator" if ok else f"stale ({bad} differ)")
    return 0 if ok else 1


def golden_main(description: str, stem: str, generate: Generate, arch_rule: str,
                **meta_extra) -> int:
    """The generators' command line (see the module docstring); `arch_rule` says in the meta
    file how the generator chose `-arch`, `meta_extra` (generator version, seed) is recorded
    there as well."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--run", action="store_true")
    ap.add_argument("--verify", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args()
    if args.list:
        for c in generate():
            print(json.dumps(c))
        return 0
    if args.run:
        return run_golden(stem, generate, args.jobs, arch_rule, args.limit, **meta_extra)
    if args.verify:
        return verify_golden(stem, generate)
    cases = generate()
    print(f"{len(cases)} cases", Counter(c["family"] for c in cases))
    return 0
