#!/usr/bin/env python3
"""A fresh parity sample: gen_mutations.py's generator with another seed, each module given to
real ptxas and to `ptxsim check --format ptxas`, the verdicts and outputs compared.

The committed mutation set (mutations.jsonl.gz) is one fixed sample; the checker is judged on
modules nobody has seen, so a new seed now and then finds rules the fixed sample never
exercises (this is how the duplicate-definition, `cp.async.bulk`, guard, `bra` target and
`sub.rn.f32` gaps of docs/ptxas-rules.md §21–23 were found). Nothing is committed from a run:
turn what it finds into generator cases (gen_gaps.py) with their ptxas output.

Usage (ptxas on PATH: source ../../../shared/tools/cuda-tools.sh):
  probe_fresh.py --seed 0xC0FFEE [--per-file 6] [--ptxsim target/release/ptxsim] [--out bad.json]

Prints the number of modules, verdict disagreements and exact-output agreements; writes every
verdict disagreement (module text, both outputs) to --out. ptxas crashes are left out.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen_mutations  # noqa: E402
import run_mutations  # noqa: E402


def run_one(case: dict, ptxsim: str) -> dict:
    text = gen_mutations.materialize(case)
    d = tempfile.mkdtemp(prefix="ptxsim-fresh-")
    try:
        (Path(d) / "case.ptx").write_text(text)
        q = subprocess.run([ptxsim, "check", "--format", "ptxas", "case.ptx"],
                           capture_output=True, text=True, cwd=d, timeout=120)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    return {"id": case["id"], "kind": case["kind"], "text": text,
            "ptxas": list(run_mutations.ptxas_once(text, case["arch"])),
            "ours": [q.returncode, q.stdout + q.stderr]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", required=True, type=lambda s: int(s, 0))
    ap.add_argument("--per-file", type=int, default=6)
    ap.add_argument("--ptxsim", default=str(HERE.parent.parent / "target/release/ptxsim"))
    ap.add_argument("--out", default="fresh-disagreements.json")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if shutil.which("ptxas") is None:
        print("ptxas not on PATH: source shared/tools/cuda-tools.sh first", file=sys.stderr)
        return 2
    gen_mutations.SEED = args.seed
    cases = gen_mutations.generate(per_file=args.per_file)
    with ThreadPoolExecutor(args.jobs) as ex:
        res = list(ex.map(lambda c: run_one(c, args.ptxsim), cases))
    res = [r for r in res if r["ptxas"][0] >= 0 and "Internal" not in r["ptxas"][1]]
    bad = [r for r in res if (r["ptxas"][0] == 0) != (r["ours"][0] == 0)]
    exact = sum(r["ptxas"][1].strip() == r["ours"][1].strip() for r in res)
    print(f"{len(res)} modules (ptxas crashes left out): {len(bad)} verdict disagreements, "
          f"{exact} exact outputs")
    Path(args.out).write_text(json.dumps(bad, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
