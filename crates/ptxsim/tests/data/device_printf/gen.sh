#!/usr/bin/env bash
# Regenerates the device printf/assert test data: the PTX nvcc emits for printf_assert.cu, and
# the expected output from the host C library running the same printf calls (expected_host.c).
# Needs: source ../shared/tools/cuda-tools.sh (nvcc), a C compiler (cc).
set -euo pipefail
cd "$(dirname "$0")"
nvcc -arch=sm_80 -ptx printf_assert.cu -o printf_assert.sm80.ptx
cc -O0 -o /tmp/ptxsim_expected_host expected_host.c
/tmp/ptxsim_expected_host > expected_stdout.txt
python3 - <<'PY'
import numpy as np
np.save("x.npy", (np.arange(4, dtype=np.float32) * np.float32(1.25)))  # x[t] = 1.25 t
np.save("n.npy", np.arange(4, dtype=np.int32) * 7)                      # n[t] = 7 t
np.save("v.npy", np.array([3, 1, 0, 5], dtype=np.int32))                # check_positive: v[2] fails
PY
