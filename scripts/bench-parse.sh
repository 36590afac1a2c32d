#!/usr/bin/env bash
# Whole-process time of `ptxsim check` and of `ptxas` on the same ≥10 MB module: the largest
# corpus file (Triton sm_90 fp32 matmul) with its kernel repeated under new names
# (crates/ptx-syntax/examples/big_module.rs). Parse throughput alone: cargo bench -p ptx-syntax;
# parse + rules in-process: cargo bench -p ptx-check.
#
# Needs ptxas for the comparison: source ../shared/tools/cuda-tools.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${TMPDIR:-/tmp}/ptxsim-big.ptx
cargo build --release -q -p ptxsim
cargo run --release -q -p ptx-syntax --example big_module -- "$out" 10
runs=${RUNS:-5}
best() { # best wall time of $runs runs of "$@", in seconds
  local b=999999
  for _ in $(seq "$runs"); do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
    b=$(echo "$s $e $b" | awk '{t=$2-$1; if (t<$3) print t; else print $3}')
  done
  echo "$b"
}
sim=$(best target/release/ptxsim check "$out")
echo "ptxsim check: ${sim} s (best of $runs)"
if command -v ptxas >/dev/null; then
  RUNS=1
  ptx=$(runs=1 best ptxas -arch=sm_90a "$out" -o /dev/null)
  echo "ptxas -arch=sm_90a: ${ptx} s"
  echo "ratio: $(echo "$ptx $sim" | awk '{printf "%.0f", $1/$2}')x"
else
  echo "ptxas not on PATH: source ../shared/tools/cuda-tools.sh to compare"
fi
