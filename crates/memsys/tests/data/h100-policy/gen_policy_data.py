#!/usr/bin/env python3
"""Regenerates this folder from the H100 measurements and ptxas 13.5.

Usage (from the repository root, after `source ../shared/tools/cuda-tools.sh`):
    python3 crates/memsys/tests/data/h100-policy/gen_policy_data.py [../shared/hw/h100]

1. Copies the createpolicy values the H100 returned (`policy/createpolicy_sweep.npz`,
   `policy/createpolicy_probe.npz`) into plain .npy files, one per array, which the Rust tests
   read with npyz (no zip reader needed).
2. Derives, from the H100's MUFU.LG2 tables (`sfu/lg2_e0.npz` bounds the unit's internal
   log2 L(m) of 1 + m*2^-23 from below, `sfu/lg2_e-1.npz` plus 1 from above), the smallest
   mantissa m for which `ceil(MUFU.LG2(2^e * (1 + m*2^-23)))` exceeds e in each binade of e:
   LG2 returns e + L(m) rounded toward zero, so the ceiling moves once L(m) reaches one ulp of
   e. Written to lg2_ceil_min_mantissa.json; the Rust constant `LG2_CEIL_MIN_MANTISSA` in
   crates/memsys/src/policy.rs must equal it (tests/policy_h100.rs checks).
3. Writes the SASS ptxas 13.5 emits for `createpolicy` with register and literal operands
   (createpolicy_lowering.ptx -> createpolicy_lowering.sm90.sass), the evidence for the
   rules in policy.rs (FMUL by 15.99, I2FP + MUFU.LG2 + F2I.CEIL, the 32-bit round-up add,
   the saturation at 127, the total-size-0 branch).
"""
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "../../../../../../shared/hw/h100"))


def table(path):
    d = np.load(path)
    return np.concatenate([[d["first"]], d["first"] + np.cumsum(d["diff"])]).astype(np.uint32)


for name in ("createpolicy_sweep", "createpolicy_probe"):
    d = np.load(os.path.join(HW, "policy", name + ".npz"))
    for key in d.files:
        np.save(os.path.join(HERE, f"{name}.{key}.npy"), d[key])

# The probe's 228 literal-fraction instructions, in order: [primary, secondary, fraction or None].
literals = []
ptx_text = open(os.path.join(HW, "policy", "createpolicy_probe.sm80.ptx")).read()
for stmt in ptx_text.replace("\n", " ").split(";"):
    line = stmt.strip()
    if not line.startswith("createpolicy.fractional") or "%f" in line:
        continue
    head, _, rest = line.partition(" ")
    quals = [q.split("::")[1] for q in head.split(".") if q.startswith("L2::")]
    operands = [o.strip() for o in rest.split(",")]
    literals.append([quals[0], quals[1] if len(quals) > 1 else None,
                     float(operands[1]) if len(operands) > 1 else None])
assert len(literals) == 228, len(literals)
json.dump(literals, open(os.path.join(HERE, "createpolicy_probe.literals.json"), "w"))

lower = table(os.path.join(HW, "sfu", "lg2_e0.npz")).view(np.float32).astype(np.float64)
upper = 1.0 + table(os.path.join(HW, "sfu", "lg2_e-1.npz")).view(np.float32).astype(np.float64)
rows = []
for first_e, ulp_exp in ((1, -23), (2, -22), (4, -21), (8, -20), (16, -19), (32, -18)):
    ulp = 2.0 ** ulp_exp
    surely_above = int(np.argmax(lower >= ulp))  # L(m) > lower(m) >= ulp
    below = np.where(upper <= ulp)[0]            # L(m) < upper(m) <= ulp
    surely_below = int(below.max()) if len(below) else 0
    assert surely_below + 1 == surely_above, (first_e, surely_below, surely_above)
    rows.append([first_e, surely_above])
json.dump({"source": "H100 MUFU.LG2 tables lg2_e0 / lg2_e-1 (../shared/hw/h100/sfu)",
           "min_mantissa_from_exponent": rows}, open(os.path.join(HERE, "lg2_ceil_min_mantissa.json"), "w"), indent=1)
print("LG2 ceil thresholds:", rows)

ptx = os.path.join(HERE, "createpolicy_lowering.ptx")
cubin = "/tmp/createpolicy_lowering.cubin"
subprocess.run(["ptxas", "-arch=sm_90", ptx, "-o", cubin], check=True)
sass = subprocess.run(["cuobjdump", "-sass", cubin], check=True, capture_output=True, text=True).stdout
sass = "\n".join(line.split(";")[0] + ";" if "*/" in line and ";" in line else line
                 for line in sass.splitlines() if not line.strip().startswith("/* 0x"))
open(os.path.join(HERE, "createpolicy_lowering.sm90.sass"), "w").write(
    "// cuobjdump -sass of createpolicy_lowering.ptx assembled by ptxas 13.5 -arch=sm_90\n" + sass + "\n")
