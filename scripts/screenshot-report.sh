#!/usr/bin/env bash
# Renders the README demo's comparison as HTML and screenshots it with headless Chromium, to look
# at the report as a person would: target/report-demo.html and docs/report-screenshot.png.
#
# Needs: Debian's `chromium` (apt-get install chromium fonts-dejavu-core). Not run by the test
# suite (CI has no browser); the test suite checks the HTML's content.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v chromium >/dev/null || { echo "chromium not found: apt-get install chromium" >&2; exit 1; }
out_html=${1:-target/report-demo.html}
out_png=${2:-docs/report-screenshot.png}
cargo build --release -q -p ptxsim
target/release/ptxsim compare --launch examples/matmul_fp16.sm80.toml \
    --variant l1=cp.async=ca \
    --variant persist=cp.async=policy:fraction:1.0:evict_last \
    --variant prefetch=cp.async=.L2::256B \
    --report html --report-out "$out_html" >/dev/null
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --no-first-run \
    --disable-component-update --disable-sync --user-data-dir="$profile" \
    --hide-scrollbars --screenshot="$out_png" --window-size=1400,2000 "file://$PWD/$out_html" \
    2>/dev/null
echo "wrote $out_html and $out_png"
