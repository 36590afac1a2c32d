#!/usr/bin/env bash
# Regenerates libcu_tiled.lineinfo.sm90.ptx from libcu_tiled.cu with NVIDIA's nvcc (CPU only):
#   source ../shared/tools/cuda-tools.sh   (from the repository root; nvcc and the CCCL headers)
#   bash crates/ptxsim/tests/data/libcu_attribution/gen.sh
set -euo pipefail
cd "$(dirname "$0")"
nvcc --version | tail -2
nvcc -std=c++17 -arch=sm_90 -lineinfo -ptx -o libcu_tiled.lineinfo.sm90.ptx libcu_tiled.cu
