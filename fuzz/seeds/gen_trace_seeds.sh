#!/usr/bin/env bash
# Seeds for the `trace` fuzz target: the first accesses of what `ptxsim run --trace-out`
# records for a sample of corpus launches (every op family the recorder writes: cache
# operators, eviction priorities, cache hints with policies, prefetch sizes, cp.async, atomics).
# Usage: fuzz/seeds/gen_trace_seeds.sh [PTXSIM_BINARY]  (default: target/release/ptxsim, built if missing)
set -euo pipefail
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${1:-$REPO/target/release/ptxsim}
[ -x "$BIN" ] || (cd "$REPO" && cargo build --release -p ptxsim)
OUT=$REPO/fuzz/seeds/trace
rm -f "$OUT"/*.trace
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
LAUNCHES="nvcc.annotated_ptr.sm100.annotated_axpy nvcc.annotated_ptr.sm100.annotated_fraction"
for f in "$REPO"/tests/corpus/run/*.toml; do
  n=$(basename "$f" .toml)
  case "$n" in
    *evict*|*cache_hint*|*prefetch*|*cp_async*|*atomic*|*policy*|*annotated*|*nc*|*streaming*|*cv*|*lu*) LAUNCHES="$LAUNCHES $n" ;;
  esac
done
# One launch per kernel (the same kernel compiled for other targets records the same ops).
LAUNCHES=$(printf '%s\n' $LAUNCHES | sort -u | awk '{k=$0; while (sub(/\.(sm[0-9]+a?|lineinfo|debug)\./, ".", k)) {} if (!(k in seen)) {seen[k]=1; print}}')
# At most 40, spread over the list.
total=$(printf '%s\n' $LAUNCHES | wc -l)
LAUNCHES=$(printf '%s\n' $LAUNCHES | awk -v t="$total" 'BEGIN {s = t > 40 ? t / 40 : 1} NR == 1 || int((NR - 1) / s) != int((NR - 2) / s)')
i=0
for n in $LAUNCHES; do
  if "$BIN" run --launch "$REPO/tests/corpus/run/$n.toml" --trace-out "$TMP/t" >/dev/null 2>&1 && [ -s "$TMP/t" ]; then
    # Keep the header comment and the first 120 accesses: small seeds fuzz fast.
    head -n 121 "$TMP/t" > "$OUT/$n.trace"
    i=$((i + 1))
  fi
done
echo "wrote $i seeds to fuzz/seeds/trace"
