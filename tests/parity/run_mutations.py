#!/usr/bin/env python3
"""Run real ptxas on every case of gen_mutations.py and write mutations.jsonl.gz.

Same conventions as run_ptxas.py: each module is written to a scratch directory as `case.ptx`
and assembled with `ptxas -arch=<arch> case.ptx -o /dev/null`, `<arch>` being the module's
`.target` (sm_75 for lower targets, and for modules whose `.target` is missing or unknown).
Every case runs twice (three times if the two runs differ); a case whose runs differ is
`flaky`, one where ptxas died of a signal or printed an internal error is `crash` (both are
left out of the comparison: they have no front-end verdict).

Output records: the case (id, kind, how, base, edits or ptx, arch) plus exit, raw (ptxas's
complete output), crash, flaky. mutations.meta.json records the ptxas version and counts.

Usage:
  source ../../../shared/tools/cuda-tools.sh
  run_mutations.py [--jobs 2] [--limit N]
  run_mutations.py --verify      # no ptxas: check mutations.jsonl.gz matches the generator
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

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen_mutations  # noqa: E402
from run_ptxas import ptxas_version  # noqa: E402

OUT = HERE / "mutations.jsonl.gz"
META = HERE / "mutations.meta.json"


def ptxas_once(text: str, arch: str) -> tuple[int, str]:
    d = tempfile.mkdtemp(prefix="ptxsim-mut-")
    try:
        (Path(d) / "case.ptx").write_bytes(text.encode())
        p = subprocess.run(["ptxas", f"-arch={arch}", "case.ptx", "-o", "/dev/null"],
                           capture_output=True, text=True, cwd=d, timeout=120)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return -9, "timeout"
    finally:
        shutil.rmtree(d, ignore_errors=True)


def run_case(case: dict) -> dict:
    text = gen_mutations.materialize(case)
    first = ptxas_once(text, case["arch"])
    runs = [first, ptxas_once(text, case["arch"])]
    if runs[1] != first:
        runs.append(ptxas_once(text, case["arch"]))
    rec = dict(case)
    rec["exit"], rec["raw"] = first
    rec["flaky"] = len(set(runs)) > 1
    rec["crash"] = any(e < 0 or "Internal compiler error" in r for e, r in runs)
    if rec["flaky"]:
        rec["runs"] = [{"exit": e, "raw": r} for e, r in runs]
    rec["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    return rec


def verify() -> int:
    cases = {c["id"]: c for c in gen_mutations.generate()}
    bad = 0
    n = 0
    with gzip.open(OUT, "rt") as fh:
        for line in fh:
            g = json.loads(line)
            n += 1
            c = cases.get(g["id"])
            text = gen_mutations.materialize(g)
            if c is None or gen_mutations.materialize(c) != text or \
                    hashlib.sha256(text.encode()).hexdigest() != g["sha256"]:
                bad += 1
                if bad <= 10:
                    print(f"mismatch: {g['id']}", file=sys.stderr)
    ok = bad == 0 and n == len(cases)
    print(f"{n} recorded, {len(cases)} generated: " +
          ("mutations.jsonl.gz matches gen_mutations.py" if ok else "stale: rerun run_mutations.py"))
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description="Run ptxas on the mutation cases")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--verify", action="store_true")
    args = ap.parse_args()
    if args.verify:
        return verify()
    if shutil.which("ptxas") is None:
        print("ptxas not on PATH: source shared/tools/cuda-tools.sh first", file=sys.stderr)
        return 2
    cases = gen_mutations.generate()
    if args.limit:
        cases = cases[: args.limit]
    results = []
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for i, rec in enumerate(ex.map(run_case, cases), 1):
            results.append(rec)
            if i % 500 == 0:
                print(f"{i}/{len(cases)}", file=sys.stderr, flush=True)
    results.sort(key=lambda r: r["id"])
    with gzip.open(OUT, "wt", compresslevel=9) as fh:
        for r in results:
            fh.write(json.dumps(r, sort_keys=True) + "\n")
    exits = Counter(r["exit"] for r in results)
    meta = {
        "ptxas_version": ptxas_version(),
        "command": "ptxas -arch=<arch> case.ptx -o /dev/null (cwd = scratch dir)",
        "arch_rule": "arch = .target, or sm_75 when .target is below sm_75, missing or unknown",
        "generator": "tests/parity/gen_mutations.py",
        "generator_version": gen_mutations.GENERATOR_VERSION,
        "seed": gen_mutations.SEED,
        "cases": len(results),
        "accepted": exits.get(0, 0),
        "rejected": len(results) - exits.get(0, 0),
        "exit_codes": {str(k): v for k, v in sorted(exits.items())},
        "flaky": sum(r["flaky"] for r in results),
        "crash": sum(r["crash"] for r in results),
        "per_kind": dict(sorted(Counter(r["kind"] for r in results).items())),
    }
    META.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    print(json.dumps({k: meta[k] for k in ("cases", "accepted", "rejected", "crash", "flaky",
                                           "per_kind")}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
