#!/usr/bin/env bash
# Compiles the benchmark kernels to PTX for sm_80.
set -euo pipefail
cd "$(dirname "$0")"
nvcc -arch=sm_80 -ptx -O3 bench_kernels.cu -o bench_kernels.sm80.ptx
