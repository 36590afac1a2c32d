#!/usr/bin/env bash
# Regenerates l2_control.sm80.ptx and l2_control.sm90.ptx from l2_control.cu (CUDA tools:
# `source ../shared/tools/cuda-tools.sh` from the repository root first).
set -euo pipefail
cd "$(dirname "$0")"
for sm in 80 90; do
  nvcc -std=c++17 -arch=sm_$sm -ptx -lineinfo l2_control.cu -o l2_control.sm$sm.ptx
  ptxas -arch=sm_$sm l2_control.sm$sm.ptx -o /dev/null
done
