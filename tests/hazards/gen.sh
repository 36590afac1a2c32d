#!/usr/bin/env bash
# Compiles the hazard test kernels to PTX (sm_80, with line info so reports name source lines).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -arch=sm_80 -ptx -lineinfo hazard_kernels.cu -o hazard_kernels.sm80.ptx
# nvcc writes the absolute source path into .file; keep the committed file machine-independent.
sed -i "s|\"$(pwd)/|\"tests/hazards/|" hazard_kernels.sm80.ptx
