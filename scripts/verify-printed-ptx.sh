#!/usr/bin/env bash
# Prints every accepted corpus file with `ptxsim fmt`, runs real ptxas on the printout for the
# file's target, and records the SHA-256 of each printout with ptxas's verdict in
# tests/corpus/printed.json. The test suite (no ptxas in CI) asserts that today's printer
# produces exactly the printouts ptxas accepted.
#
# Needs: source ../shared/tools/cuda-tools.sh (ptxas), python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v ptxas >/dev/null || { echo "ptxas not on PATH: source ../shared/tools/cuda-tools.sh" >&2; exit 1; }
cargo build --release -q -p ptxsim
python3 - <<'PY'
import hashlib, json, subprocess, tempfile, os
manifest = json.load(open("tests/corpus/manifest.json"))
out = {"ptxas": subprocess.run(["ptxas", "--version"], capture_output=True, text=True).stdout.strip().splitlines()[-1],
       "files": {}}
with tempfile.TemporaryDirectory() as tmp:
    for entry in sorted(manifest["files"], key=lambda e: e["file"]):
        if entry["ptxas"]["verdict"] != "accepted":
            continue
        src = os.path.join("tests/corpus", entry["file"])
        printed = subprocess.run(["target/release/ptxsim", "fmt", src], capture_output=True, check=True).stdout
        path = os.path.join(tmp, "printed.ptx")
        open(path, "wb").write(printed)
        r = subprocess.run(["ptxas", "-arch=" + entry["ptxas"]["arch"], path, "-o", "/dev/null"], capture_output=True, text=True)
        out["files"][entry["file"]] = {"sha256": hashlib.sha256(printed).hexdigest(),
                                       "arch": entry["ptxas"]["arch"],
                                       "ptxas_exit": r.returncode,
                                       "ptxas_output": (r.stdout + r.stderr).strip()}
        print(f"{entry['file']}: ptxas exit {r.returncode}")
json.dump(out, open("tests/corpus/printed.json", "w"), indent=1, sort_keys=True)
open("tests/corpus/printed.json", "a").write("\n")
PY
