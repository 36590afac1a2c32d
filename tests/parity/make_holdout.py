#!/usr/bin/env python3
"""Build tests/parity/holdout.jsonl.gz: cases the rule catalog was NOT written from.

The cases come from gen_cases.py run with other seeds, minus every case already in
golden.jsonl; they were assembled with real ptxas (same command as run_ptxas.py, one run per
case) and are used only to check docs/ptxas-rules.md (via rules_model.py) on unseen input.

  holdout-1: seeds 0x1234, 0xBEEF, stratified sample (random.Random(7)), 3,020 cases
  holdout-2: seeds 0x1234, 0xBEEF, 0x5151, 0x77 minus holdout-1, shuffled (random.Random(11)),
             first 15,000 cases

Usage: source shared/tools/cuda-tools.sh; python3 make_holdout.py   (about 10 minutes)
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gen_cases  # noqa: E402
from run_ptxas import parse_messages, ptxas_once  # noqa: E402

KEY = ("target", "version", "context", "insn")


def fresh(seeds, seen):
    pool = []
    for seed in seeds:
        gen_cases.SEED = seed
        for c in gen_cases.generate():
            k = tuple(c[x] for x in KEY)
            if k not in seen:
                seen.add(k)
                pool.append(c)
    return pool


def main() -> int:
    seen = set()
    for line in open(HERE / "golden.jsonl"):
        c = json.loads(line)
        seen.add(tuple(c[x] for x in KEY))
    base_seen = set(seen)
    pool = fresh((0x1234, 0xBEEF), seen)
    rng = random.Random(7)
    by: dict[str, list] = {}
    for c in pool:
        by.setdefault(c["family"], []).append(c)
    quota = {"ld": 900, "st": 700, "ld.global.nc": 250, "cp.async": 450, "createpolicy": 350,
             "prefetch": 250, "cp.async.group": 60, "cp.async.mbarrier": 60}
    h1 = []
    for fam, cs in by.items():
        rng.shuffle(cs)
        h1 += cs[: quota.get(fam, 100)]
    for i, c in enumerate(h1):
        c["id"] = "hold-%05d" % i
    seen = base_seen | {tuple(c[x] for x in KEY) for c in h1}
    h2 = fresh((0x1234, 0xBEEF, 0x5151, 0x77), seen)
    random.Random(11).shuffle(h2)
    h2 = h2[:15000]
    for i, c in enumerate(h2):
        c["id"] = "hold2-%05d" % i

    def run(c):
        e, raw = ptxas_once(c)
        r = {k: c[k] for k in ("id", "family", "target", "version", "context", "insn", "line")}
        r.update(exit=e, raw=raw, messages=parse_messages(raw),
                 crash=e < 0 or "Internal compiler error" in raw)
        return r

    with ThreadPoolExecutor(2) as ex:
        out = sorted(ex.map(run, h1 + h2), key=lambda r: r["id"])
    with gzip.open(HERE / "holdout.jsonl.gz", "wt") as f:
        for r in out:
            f.write(json.dumps(r, sort_keys=True) + "\n")
    print(f"{len(out)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
