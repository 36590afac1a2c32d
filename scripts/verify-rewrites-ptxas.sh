#!/usr/bin/env bash
# Applies every `ptxsim compare` rewrite below to the PTX of every corpus launch for sm_80 and
# newer, runs real ptxas on each rewritten module for the file's target, and records the
# SHA-256 of each rewritten text with ptxas's verdict in tests/corpus/rewrites.json. The test
# suite (no ptxas in CI) asserts that today's rewrites produce exactly the texts ptxas accepted.
#
# Needs: source ../shared/tools/cuda-tools.sh (ptxas), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v ptxas >/dev/null || { echo "ptxas not on PATH: source ../shared/tools/cuda-tools.sh" >&2; exit 1; }
cargo build --release -q -p ptxsim
python3 - <<'PY'
import glob, hashlib, json, os, re, subprocess, tempfile
REWRITES = [
    "strip-hints", "loads=evict_first", "loads=evict_last", "loads=no_allocate", "loads=cg",
    "loads=cs", "loads=cv", "loads=.L2::256B", "stores=cs", "stores=wt", "stores=evict_first",
    "cp.async=ca", "cp.async=cg", "cp.async=.L2::128B", "policy=fraction:0.5:evict_last",
    "policy=fraction:1.0:evict_first:evict_unchanged", "policy=none",
    "loads=policy:fraction:0.25:evict_last+stores=cs",
]
out = {"ptxas": subprocess.run(["ptxas", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1],
       "rewrites": REWRITES, "files": {}}
seen = set()
with tempfile.TemporaryDirectory() as tmp:
    for launch in sorted(glob.glob("tests/corpus/run/*.toml")):
        text = open(launch).read()
        if re.search(r"^\[\[step\]\]", text, re.M):
            continue  # multi-step launches: `ptxsim compare` takes one-kernel launch files
        ptx = os.path.normpath(os.path.join("tests/corpus/run", re.search(r'^ptx = "(.*)"', text, re.M).group(1)))
        arch = re.search(r"^\.target\s+(sm_\d+a?)", open(ptx).read(), re.M).group(1)
        if int(re.sub(r"\D", "", arch)) < 80 or ptx in seen:
            continue
        seen.add(ptx)
        args = ["target/release/ptxsim", "compare", "--launch", launch, "--emit-ptx", tmp]
        for i, r in enumerate(REWRITES):
            args += ["--variant", f"v{i}={r}"]
        # Exit 1 means a variant changed the kernel's outputs (recorded); the PTX is written first.
        run = subprocess.run(args, capture_output=True, text=True)
        if run.returncode not in (0, 1):
            raise SystemExit(f"{launch}: ptxsim compare failed: {run.stderr}")
        changed = sorted(set(re.findall(r"error: variant `v(\d+)` changed the result", run.stdout)))
        entry = {"arch": arch, "launch": os.path.basename(launch), "rewrites": {},
                 "changed_results": [REWRITES[int(i)] for i in changed]}
        for i, r in enumerate(REWRITES):
            path = os.path.join(tmp, f"v{i}.ptx")
            data = open(path, "rb").read()
            p = subprocess.run(["ptxas", "-arch=" + arch, path, "-o", "/dev/null"], capture_output=True, text=True)
            entry["rewrites"][r] = {"sha256": hashlib.sha256(data).hexdigest(), "ptxas_exit": p.returncode,
                                    "ptxas_output": (p.stdout + p.stderr).strip().replace(path, "REWRITTEN.ptx")}
            print(f"{ptx} {r}: ptxas exit {p.returncode}")
        out["files"][os.path.relpath(ptx, "tests/corpus")] = entry
json.dump(out, open("tests/corpus/rewrites.json", "w"), indent=1, sort_keys=True)
open("tests/corpus/rewrites.json", "a").write("\n")
PY
