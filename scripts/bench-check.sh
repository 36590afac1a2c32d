#!/usr/bin/env bash
# `ptxsim check` against `ptxas -O0 -arch=sm_80` on one large module, both timed as whole
# processes (wall time and peak RSS from /usr/bin/time), side by side.
#
# Workload (issue 16 §1): Triton's sm_80 fp32 matmul from the corpus
# (tests/corpus/triton/matmul_fp32_tf32.sm80.ptx) with its `.loc` lines and debug sections
# dropped and the kernel repeated under new names (matmul_kernel_1 … matmul_kernel_352) to
# 7.6 MB, built by crates/ptx-syntax/examples/big_module.rs as scripts/bench-parse.sh builds
# its module. ptxas accepts the file; `ptxsim check` reports nothing.
#
#   RUNS=N     timed runs of each tool, reported as the median (default 5; ptxas runs
#              min(RUNS, PTXAS_RUNS) times, default 3, as it takes seconds)
#   MB=X       minimum module size in MiB (default 7.28: 352 copies, 7,646,271 bytes)
#   THREADS=N  `ptxsim check --threads N` (default: check's default, the available cores)
#   CHRT=1     run both tools under `chrt -f 1` (real-time priority, needs root): on a machine
#              shared with other sessions' builds, their load otherwise decides how much of
#              the second core `ptxsim check` gets (Linux shares CPU per session, not per
#              thread), and so its wall time
#
# Needs ptxas for the comparison: source ../shared/tools/cuda-tools.sh first. The numbers of
# crates/ptx-check/BENCHMARKS.md come from this script.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${TMPDIR:-/tmp}/ptxsim-check-bench.ptx
runs=${RUNS:-5}
ptxas_runs=${PTXAS_RUNS:-3}
[ "$ptxas_runs" -gt "$runs" ] && ptxas_runs=$runs
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "needs GNU time at /usr/bin/time (apt-get install time)"; exit 1; }

cargo build --release -q -p ptxsim
cargo run --release -q -p ptx-syntax --example big_module -- "$out" "${MB:-7.28}" \
  tests/corpus/triton/matmul_fp32_tf32.sm80.ptx --no-loc
bytes=$(stat -c %s "$out")
kernels=$(grep -c '^\.visible \.entry' "$out")
echo "module: $out, $bytes bytes, $kernels kernels"

prio=()
[ "${CHRT:-0}" = 1 ] && prio=(chrt -f 1)
threads=()
[ -n "${THREADS:-}" ] && threads=(--threads "$THREADS")

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# median wall seconds, peak RSS (KB) and CPU seconds (user + system) of $1 runs of the rest
measure() {
  local n=$1
  shift
  local walls=() rss=() cpu=()
  for _ in $(seq "$n"); do
    local r u s t0 t1
    # wall time from the shell's clock (ns; GNU time's %e rounds to 10 ms), which includes
    # starting time (and chrt): a millisecond or two against the tools
    t0=$(date +%s%N)
    read -r r u s < <("$TIME" -f '%M %U %S' "${prio[@]}" "$@" 2>&1 >/dev/null | tail -1)
    t1=$(date +%s%N)
    walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f", (b - a) / 1e9}')")
    rss+=("$r")
    cpu+=("$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}')")
  done
  echo "$(printf '%s\n' "${walls[@]}" | median) $(printf '%s\n' "${rss[@]}" | median) $(printf '%s\n' "${cpu[@]}" | median)"
}

read -r sim sim_rss sim_cpu < <(measure "$runs" "${CARGO_TARGET_DIR:-target}/release/ptxsim" check "${threads[@]}" "$out")
echo "ptxsim check ${threads[*]}: ${sim} s wall, ${sim_cpu} s CPU, peak RSS ${sim_rss} KB ($(awk -v r="$sim_rss" -v b="$bytes" 'BEGIN {printf "%.2f", r*1024/b}')x the file), median of $runs"
if command -v ptxas >/dev/null && [ "$ptxas_runs" -gt 0 ]; then
  read -r ptx ptx_rss ptx_cpu < <(measure "$ptxas_runs" ptxas -O0 -arch=sm_80 "$out" -o /dev/null)
  echo "ptxas -O0 -arch=sm_80: ${ptx} s wall, ${ptx_cpu} s CPU, peak RSS ${ptx_rss} KB, median of $ptxas_runs"
  echo "ratio: $(awk -v p="$ptx" -v s="$sim" 'BEGIN {if (s > 0) printf "%.0f", p/s; else print "inf"}')x"
else
  echo "ptxas not on PATH (or PTXAS_RUNS=0): source ../shared/tools/cuda-tools.sh to compare"
fi
