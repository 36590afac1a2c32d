#!/usr/bin/env python3
"""Multi-instruction parity modules: several instructions of the golden corpus in one module.

The single-instruction corpus (golden.jsonl) cannot show how ptxas treats a file with many
instructions: `Unknown symbol` messages wait for the end of the function, the `.version`/
`.target` mismatch comes after every statement message, a fatal stops the rest, the 32-bit
address checks and the call-sequence check only run on error-free files. This script puts 2-6
random golden instructions into one module (same template, contexts entry / after_call / func,
the target and version of a random golden case), runs real ptxas on it, and writes
`multi.jsonl.gz` with the instructions and ptxas's complete output. The Rust parity test
(crates/ptx-check/tests/parity.rs) rebuilds each module from the template and compares.

Usage: source ../shared/tools/cuda-tools.sh; python3 gen_multi.py [--count 1500] [--seed 7]
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen_cases  # noqa: E402


def module_text(case: dict) -> str:
    insns = case["insns"]
    uses = any("%rq" in x for x in insns)
    allowed = gen_cases.b128_registers_allowed(case["target"], case["version"])
    b128 = gen_cases.B128_DECL if (uses or allowed) else gen_cases.B128_NONE
    return gen_cases.TEMPLATES[case["context"]].format(
        version=case["version"], target=case["target"], id=case["id"], family="multi",
        context=case["context"], b128=b128, insn="\n\t".join(insns))


def run(case: dict) -> dict:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "case.ptx").write_text(module_text(case))
        r = subprocess.run(["ptxas", "-arch=" + gen_cases.ptxas_arch(case["target"]), "case.ptx",
                            "-o", "/dev/null"], cwd=d, capture_output=True, text=True)
    out = dict(case)
    out.update(exit=r.returncode, raw=r.stderr,
               crash=r.returncode < 0 or "Internal compiler error" in r.stderr)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    pool = [json.loads(l) for l in open(HERE / "golden.jsonl")]
    pool = [c for c in pool if not c["crash"]]
    cases = []
    for i in range(args.count):
        base = rng.choice(pool)
        cases.append({
            "id": "multi-%05d" % i,
            "target": base["target"],
            "version": base["version"],
            "context": rng.choice(gen_cases.CONTEXTS),
            "insns": [rng.choice(pool)["insn"] for _ in range(rng.randint(2, 6))],
        })
    with ThreadPoolExecutor(2) as ex:
        out = list(ex.map(run, cases))
    with gzip.open(HERE / "multi.jsonl.gz", "wt") as f:
        for r in out:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"{len(out)} modules, {sum(r['crash'] for r in out)} crashes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
