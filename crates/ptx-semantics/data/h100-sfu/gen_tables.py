"""Converts the H100 special-function-unit measurements (../shared/hw/h100/sfu, first-difference
.npz tables and .npy arrays) into the compressed blobs `src/sfu/` embeds and the check data its
tests read.

Blob format (`*.z`, read by `src/sfu/table.rs`), all little-endian:
    b"SFU2" | u32 count | u32 chunk length (65,536) | u32 chunk count n | n u32 end offsets of
    the chunks (bytes, after this header) | the chunks
and each chunk, a zlib stream (level 9), holds up to 65,536 consecutive values as
    u32 width (1, 2 or 4 bytes per difference) | u32 first value |
    the first differences of the values (two's complement, `width` bytes each), stored byte
    plane by byte plane (all low bytes, then the next byte, ...)
so the model decodes only the chunks an input touches. The values are the output bit patterns
(u32; u16 patterns for the 16-bit forms).

Outputs (deterministic; run from anywhere):
    tables/<name>.z   the tables the MUFU model reads (embedded with include_bytes!)
    check/<name>.z    every 509th value of the H100 tables the tests check the rules against
                      (the tables the model does not embed: other lg2 binades, non-ftz subnormals)
    check/special_inputs.txt   the special inputs through every f32 form, as measured
    manifest.txt      per blob: name, count of the H100 table, checksum of the values stored
                      (sum of v[i] * (i mod 65521 + 1) mod 2^64)
With --full DIR it also writes every check table in full to DIR (for the exhaustive example,
`cargo run --release -p ptx-semantics --example sfu_exhaustive -- DIR`; not committed).

Usage: python3 gen_tables.py [--src ../shared/hw/h100/sfu] [--full DIR]
"""
import argparse
import glob
import os
import struct
import zlib

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
STRIDE = 509

# Tables the model embeds (the MUFU operations' own descriptions, README section 2); the tanh
# tables (tanh_p{e}_step{k}) are added from the source folder.
MODEL = ["rcp_1_2", "sqrt_1_4", "rsqrt_1_4", "ex2_grid23", "lg2_e0", "lg2_e-1", "rcp64h_1_2",
         "rsq64h_1_4", "sin_table23", "cos_table23", "ex2_f16_all", "ex2_bf16_all", "tanh_f16_all",
         "tanh_bf16_all"]
BY_X = [f"{f}_x{e}" for f in ("sin", "cos") for e in range(-24, 3)]


def load(path):
    if path.endswith(".npy"):
        return np.load(path).astype(np.uint32)
    z = np.load(path)
    return np.concatenate([[z["first"]], z["first"] + np.cumsum(z["diff"].astype(np.int64))]).astype(np.uint32)


def checksum(values):
    """sum(v[i] * (i mod 65521 + 1)) mod 2^64: catches any misplaced or wrong value when decoding."""
    w = (np.arange(values.size, dtype=np.uint64) % np.uint64(65521)) + np.uint64(1)
    return int(np.sum(values.astype(np.uint64) * w, dtype=np.uint64))


CHUNK = 1 << 16


def chunk(values):
    v = values.astype(np.int64)
    d = np.diff(v)
    signed = np.where(d >= 2**31, d - 2**32, np.where(d < -2**31, d + 2**32, d))
    m = int(np.abs(signed).max()) if d.size else 0
    width = 1 if m < 128 else 2 if m < 32768 else 4
    raw = (signed if width < 4 else d & 0xFFFFFFFF).astype({1: "<i1", 2: "<i2", 4: "<u4"}[width])
    planes = raw.view(np.uint8).reshape(-1, width).T.copy().tobytes()
    return zlib.compress(struct.pack("<II", width, int(values[0])) + planes, 9)


def blob(values):
    chunks = [chunk(values[i:i + CHUNK]) for i in range(0, values.size, CHUNK)]
    ends = np.cumsum([len(c) for c in chunks]).astype("<u4")
    head = b"SFU2" + struct.pack("<III", values.size, CHUNK, len(chunks)) + ends.tobytes()
    return head + b"".join(chunks)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=os.path.join(HERE, "..", "..", "..", "..", "..", "shared", "hw", "h100", "sfu"))
    ap.add_argument("--full")
    a = ap.parse_args()
    src = os.path.abspath(a.src)
    os.makedirs(os.path.join(HERE, "tables"), exist_ok=True)
    os.makedirs(os.path.join(HERE, "check"), exist_ok=True)
    manifest = []
    model = MODEL[:10] + sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(src, "tanh_p*.npz"))) + MODEL[10:]
    for name in model + BY_X:
        path = os.path.join(src, name + (".npy" if name.endswith("_all") else ".npz"))
        if name in BY_X:
            path = os.path.join(src, "sincos_by_x", name + ".npz")
        v = load(path)
        write(os.path.join(HERE, "tables", name + ".z"), blob(v))
        manifest.append((f"tables/{name}", v.size, checksum(v)))
    checks = sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(src, "lg2_e*.npz"))
                    if os.path.basename(p)[:-4] not in ("lg2_e0", "lg2_e-1"))
    checks += sorted(os.path.basename(p)[:-4] for p in glob.glob(os.path.join(src, "*_noftz_denormal_*.npz")))
    for name in checks:
        v = load(os.path.join(src, name + ".npz"))
        write(os.path.join(HERE, "check", name + ".z"), blob(v[::STRIDE]))
        manifest.append((f"check/{name}", v.size, checksum(v[::STRIDE])))
        if a.full:
            os.makedirs(a.full, exist_ok=True)
            write(os.path.join(a.full, name + ".z"), blob(v))
    sp = np.load(os.path.join(src, "special_inputs.npz"))
    keys = [k for k in sp.files if k != "input"]
    with open(os.path.join(HERE, "check", "special_inputs.txt"), "w") as f:
        f.write("# H100 outputs of special inputs (../shared/hw/h100/sfu/special_inputs.npz): input then\n")
        f.write("# " + " ".join(keys) + "\n")
        for i, x in enumerate(sp["input"]):
            f.write(f"{int(x):08x} " + " ".join(f"{int(sp[k][i]):08x}" for k in keys) + "\n")
    with open(os.path.join(HERE, "manifest.txt"), "w") as f:
        f.write(f"# name count checksum-of-the-stored-values (check/* hold every {STRIDE}th of count values)\n")
        for n, c, h in manifest:
            f.write(f"{n} {c} {h:016x}\n")


if __name__ == "__main__":
    main()
