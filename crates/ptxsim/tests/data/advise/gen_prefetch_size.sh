#!/usr/bin/env bash
# Regenerates prefetch_size.sm90.ptx from prefetch_size.cu (needs nvcc: source
# ../shared/tools/cuda-tools.sh from the project root first). The `.file` path is made
# relative to this directory.
set -euo pipefail
cd "$(dirname "$0")"
nvcc -arch=sm_90 -lineinfo -ptx prefetch_size.cu -o prefetch_size.sm90.ptx
sed -i "s|\"$PWD/|\"|" prefetch_size.sm90.ptx
