#!/usr/bin/env python3
"""ptxsim's kernel-time estimate against the H100's measured durations of the corpus kernels.

`data/corpus_durations.csv` holds, for each kernel of the corpus launches, the duration ncu
measured on an H100 (`gpu__time_duration.sum`, caches flushed before each kernel; see
data/NOTE.md). This script runs the same launches with `ptxsim run --gpu GPU --report json` and
prints the estimate's error: overall, by what bounds the estimate, and the worst kernels. Most
of these kernels are a few microseconds of launch overhead and latency (docs/timing.md says
what the estimate means for them); the figures are information, not a test.

Usage: tests/timing/corpus_timing.py [--ptxsim BIN] [--gpu GPU] [--runs DIR] [--json OUT]
Run from the project root (defaults: target/release/ptxsim, h100, tests/corpus/run)."""
import argparse, csv, json, math, os, statistics, subprocess, sys, tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--csv", default=os.path.join(HERE, "data", "corpus_durations.csv"))
ap.add_argument("--ptxsim", default="target/release/ptxsim")
ap.add_argument("--gpu", default="h100")
ap.add_argument("--runs", default="tests/corpus/run")
ap.add_argument("--json", help="write every kernel's measured and estimated time and work here")
a = ap.parse_args()

by_launch = defaultdict(list)
for row in csv.DictReader(open(a.csv)):
    by_launch[row["launch"]].append(row)

recs = []
for launch, hw_rows in sorted(by_launch.items()):
    with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
        p = subprocess.run([a.ptxsim, "run", "--launch", os.path.join(a.runs, launch + ".toml"), "--gpu", a.gpu,
                            "--report", "json", "--report-out", tmp.name], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"ptxsim failed on {launch}: {p.stderr.strip().splitlines()[-1:]}", file=sys.stderr)
            continue
        rep = json.load(open(tmp.name))
    reps = rep if isinstance(rep, list) else [rep]
    for h in hw_rows:
        step = int(h["step"])
        if step >= len(reps):
            continue
        t = reps[step]["variants"][0]["time"]
        recs.append({"kernel": f"{launch}#{step}", "measured_ns": float(h["gpu__time_duration.sum"]),
                     "estimate_ns": t["ns"], "bound": t["bound"], "margin": t["margin"], "work": t["work"],
                     "terms": {x["resource"]: x["ns"] for x in t["terms"]}})

if not recs:
    sys.exit("no kernel ran")


def err(r):
    return 100.0 * (r["estimate_ns"] - r["measured_ns"]) / r["measured_ns"]


def summary(name, rs):
    es = [err(r) for r in rs]
    ab = sorted(abs(e) for e in es)
    within = lambda x: sum(1 for e in ab if e <= x)
    print(f"{name:<22} {len(rs):>4} kernels  median |err| {statistics.median(ab):5.1f}%  "
          f"median err {statistics.median(es):+6.1f}%  within 25%: {within(25):>3} ({100 * within(25) / len(rs):.0f}%)  "
          f"within 50%: {within(50):>3} ({100 * within(50) / len(rs):.0f}%)  "
          f"geomean est/measured {math.exp(statistics.mean(math.log(r['estimate_ns'] / r['measured_ns']) for r in rs)):.2f}")


summary("all", recs)
for lo, hi, label in [(0, 5000, "measured < 5 us"), (5000, 20000, "5-20 us"), (20000, 1e12, ">= 20 us")]:
    rs = [r for r in recs if lo <= r["measured_ns"] < hi]
    if rs:
        summary(label, rs)
by_bound = defaultdict(list)
for r in recs:
    by_bound[r["bound"]].append(r)
for b, rs in sorted(by_bound.items()):
    summary(f"bound: {b}", rs)
print("\nworst 12:")
for r in sorted(recs, key=lambda r: -abs(math.log(r["estimate_ns"] / r["measured_ns"])))[:12]:
    print(f"  {r['kernel'][:70]:<70} measured {r['measured_ns']:>9.0f} ns  estimate {r['estimate_ns']:>9.0f} ns  "
          f"{err(r):+7.1f}%  {r['bound']}")
if a.json:
    json.dump(recs, open(a.json, "w"), indent=1)
