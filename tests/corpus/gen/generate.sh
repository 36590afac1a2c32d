#!/usr/bin/env bash
# Regenerates the whole PTX corpus, its manifest and the launch files with numpy references:
#   tests/corpus/{nvcc,triton,rejected}/*.ptx, triton/*.json, manifest.json, run/*.toml, run/data/,
#   and the generated summary at the end of docs/corpus.md
# Needs only the cuda-tools environment (nvcc, ptxas, Triton, numpy; no GPU):
#   bash tests/corpus/gen/generate.sh
# or, to add or rebuild some nvcc outputs without rebuilding the rest (build_corpus.py --only: the
# given output stems, every target; their manifest entries replaced, the others kept; the launch
# files and the summary are remade from the whole manifest, which leaves unchanged ones as they are):
#   bash tests/corpus/gen/generate.sh --only cub_scan,thrust_algos
# Set CUDA_TOOLS to the cuda-tools.sh script if it is not at ../shared/tools/ beside the repository.
set -euo pipefail
ONLY=()
if [ "${1:-}" = --only ] && [ -n "${2:-}" ]; then ONLY=(--only "$2"); elif [ $# -ne 0 ]; then
  echo "usage: generate.sh [--only STEM[,STEM...]]" >&2; exit 2
fi
GEN=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CORPUS=$(dirname "$GEN")
REPO=$(cd "$CORPUS/../.." && pwd)
CUDA_TOOLS=${CUDA_TOOLS:-}
for c in "$CUDA_TOOLS" "$REPO/../shared/tools/cuda-tools.sh"; do
  if [ -n "$c" ] && [ -f "$c" ]; then CUDA_TOOLS=$c; break; fi
done
[ -f "$CUDA_TOOLS" ] || { echo "generate.sh: cuda-tools.sh not found; set CUDA_TOOLS" >&2; exit 1; }
# shellcheck disable=SC1090
source "$CUDA_TOOLS"
# CUTLASS and cute headers: the nvidia-cutlass wheel ships them (cutlass_library/source/include).
python -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("cutlass_library") is None)' ||
  python -m pip install -q --no-deps nvidia-cutlass==4.2.0.0

# Compilers record absolute source paths (.file, DWARF comp_dir, nvcc's internal name hashes), so
# the sources are compiled from one fixed location, whatever the checkout path.
STAGE=/tmp/ptxsim-corpus-src
exec 9>"$STAGE.lock"
flock 9
rm -rf "$STAGE"
mkdir -p "$STAGE"
cp -r "$GEN/cuda" "$GEN/triton" "$STAGE/"
rm -rf "$STAGE/triton/__pycache__"
export TRITON_CACHE_DIR="$STAGE/triton-cache"   # always compile afresh
export PYTHONDONTWRITEBYTECODE=1

if [ ${#ONLY[@]} -eq 0 ]; then
  rm -rf "$CORPUS/nvcc" "$CORPUS/triton" "$CORPUS/rejected" "$CORPUS/run" "$CORPUS/manifest.json"
fi
python "$GEN/build_corpus.py" "$STAGE" "$CORPUS" "${ONLY[@]}"
python "$GEN/make_launches.py" "$CORPUS"
python "$GEN/summarize.py" "$CORPUS" "$REPO/docs/corpus.md"
rm -rf "$STAGE"
