#!/usr/bin/env python3
"""Golden data from pycachesim (PyPI) for memsys's parity test, and pycachesim's rate.

    python3 tests/memsys/pycachesim_parity.py            # traces + golden counts
    python3 tests/memsys/pycachesim_parity.py --rate     # also time the 10 M benchmark trace
    python3 tests/memsys/pycachesim_parity.py --rate-trace kernel.trace   # and a text trace

The script makes a virtual environment under target/pycachesim-venv, installs pycachesim
0.3.1 there and re-runs itself with it. It writes, deterministically (fixed seeds):

- tests/memsys/traces/<name>.trace: one access per line, `0x<hex address> <bytes>`, after a
  `# sets=S ways=W line=L` header;
- tests/memsys/golden/pycachesim.json: for each trace, the geometry and pycachesim's HIT_count
  and MISS_count for a one-level LRU cache (write-back, write-allocate, loads only);
- with --rate: pycachesim's accesses/s on memsys's synthetic benchmark workload
  (`memsys::replay::synthetic(1)`, mirrored below; a checksum of its first 100 000 accesses is
  stored so the Rust test can check the mirror), through an L1 (128 KiB, 4 ways) + L2
  (40 MiB, 16 ways) LRU hierarchy of 128 B lines, every access a load;
- with --rate-trace FILE: pycachesim's accesses/s, through the same hierarchy, on the
  addresses of a text trace (docs/trace-format.md), e.g. the real-kernel replay workload
  written by `cargo run --release -p ptxsim --example kernel_trace -- --write kernel.trace`.

The Rust test crates/memsys/tests/pycachesim_parity.rs replays the same traces through memsys
configured as one-level LRU (`GpuConfig::single_level`) and asserts identical counts.
"""

import json
import os
import random
import subprocess
import sys
import time
import venv

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
VENV = os.path.join(ROOT, "target", "pycachesim-venv")
PYCACHESIM = "pycachesim==0.3.1"

# (name, sets, ways, line bytes, generator)
M64 = (1 << 64) - 1


def ensure_venv():
    """Re-execute inside a venv that has pycachesim."""
    if os.environ.get("PTXSIM_PYCACHESIM_VENV") == "1":
        return
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        venv.create(VENV, with_pip=True)
        subprocess.check_call([py, "-m", "pip", "install", "-q", PYCACHESIM])
    env = dict(os.environ, PTXSIM_PYCACHESIM_VENV="1")
    os.execve(py, [py, os.path.abspath(__file__)] + sys.argv[1:], env)


def sequential_reuse(rng):
    # Three passes of 8 B reads over 20 KiB (the cache holds 16 KiB), then a random tail.
    out = []
    for _ in range(3):
        out += [(0x10000 + off, 8) for off in range(0, 20 * 1024, 8)]
    out += [(0x10000 + rng.randrange(0, 20 * 1024, 4), 4) for _ in range(2000)]
    return out


def random_hot_cold(rng):
    # 85 % in a 24 KiB hot region, 15 % anywhere in 4 MiB; 4/8/16 B aligned.
    out = []
    for _ in range(12000):
        size = rng.choice([4, 8, 16])
        if rng.random() < 0.85:
            addr = 0x200000 + rng.randrange(0, 24 * 1024, size)
        else:
            addr = 0x400000 + rng.randrange(0, 4 << 20, size)
        out.append((addr, size))
    return out


def strided_conflict(rng):
    # Power-of-two strides that pile into few sets, mixed with short sequential runs.
    out = []
    for _ in range(10000 // 10):
        base = rng.randrange(0, 1 << 20, 32)
        stride = rng.choice([1024, 2048, 4096, 96])
        out += [(base + i * stride, 4) for i in range(8)]
        out += [(base + 4, 4), (base + 36, 4)]
    return out


def unaligned_spanning(rng):
    # Unaligned reads of 1..32 B over 8 KiB: many span two 64 B lines.
    return [(rng.randrange(0, 8192), rng.randint(1, 32)) for _ in range(8000)]


TRACES = [
    ("lru_sequential_reuse", 64, 4, 64, sequential_reuse, 1),
    ("lru_random_hot_cold", 48, 6, 128, random_hot_cold, 2),
    ("lru_strided_conflict", 32, 8, 32, strided_conflict, 3),
    ("lru_unaligned_spanning", 16, 2, 64, unaligned_spanning, 4),
]


def one_level(sets, ways, line):
    from cachesim import Cache, CacheSimulator, MainMemory

    mem = MainMemory()
    l1 = Cache("L1", sets, ways, line, "LRU")
    mem.load_to(l1)
    mem.store_from(l1)
    return CacheSimulator(l1, mem), l1


class SplitMix64:
    """memsys's generator (crates/memsys/src/rng.rs)."""

    def __init__(self, seed):
        self.s = seed & M64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)


STREAM_BASE, STREAM_BYTES = 0x7F0000000000, 256 << 20
HOT_BASE, HOT_BYTES = 0x7F2000000000, 8 << 20
RANDOM_BASE, RANDOM_BYTES = 0x7F4000000000, 256 << 20


def synthetic(seed, n):
    """Mirror of memsys::replay::synthetic: yields (addr, bytes, is_store)."""
    rng = SplitMix64(seed)
    stream = [0] * 16
    for _ in range(n):
        r = rng.next()
        sm = r & 15
        sel = (r >> 8) & 15
        size = (4, 8, 16)[(r >> 40) % 3]
        sector = r >> 16
        store = False
        if sel <= 7:
            off = stream[sm]
            stream[sm] = (off + 32) % STREAM_BYTES
            addr = STREAM_BASE + sm * STREAM_BYTES + off
        elif sel <= 11:
            addr = HOT_BASE + (sector % (HOT_BYTES // 32)) * 32
        elif sel <= 13:
            addr = RANDOM_BASE + (sector % (RANDOM_BYTES // 32)) * 32
        elif sel == 14:
            store = True
            addr = HOT_BASE + (sector % (HOT_BYTES // 32)) * 32
        else:
            size = 16
            addr = RANDOM_BASE + (sector % (RANDOM_BYTES // 32)) * 32
        yield addr, size, store


def checksum(accesses):
    """Order-sensitive checksum the Rust test recomputes."""
    h = 0
    for addr, size, store in accesses:
        h = ((h * 0x100000001B3) ^ addr ^ (size << 56) ^ (int(store) << 63)) & M64
    return h


def measure_rate(n):
    from cachesim import Cache, CacheSimulator, MainMemory

    addrs = [a for a, _, _ in synthetic(1, n)]
    mem = MainMemory()
    l2 = Cache("L2", 20480, 16, 128, "LRU")
    mem.load_to(l2)
    mem.store_from(l2)
    l1 = Cache("L1", 256, 4, 128, "LRU", load_from=l2, store_to=l2)
    cs = CacheSimulator(l1, mem)
    t = time.perf_counter()
    cs.load(addrs, length=1)  # the C loop over the list (pycachesim's fastest path)
    dt = time.perf_counter() - t
    return {"accesses": n, "seconds": dt, "accesses_per_second": n / dt}


def measure_rate_trace(path):
    """pycachesim on the addresses of a text trace, every access a load (reading not timed)."""
    from cachesim import Cache, CacheSimulator, MainMemory

    addrs = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                addrs.append(int(fields[2], 16))
    mem = MainMemory()
    l2 = Cache("L2", 20480, 16, 128, "LRU")
    mem.load_to(l2)
    mem.store_from(l2)
    l1 = Cache("L1", 256, 4, 128, "LRU", load_from=l2, store_to=l2)
    cs = CacheSimulator(l1, mem)
    t = time.perf_counter()
    cs.load(addrs, length=1)
    dt = time.perf_counter() - t
    return {"trace": os.path.basename(path), "accesses": len(addrs), "seconds": dt,
            "accesses_per_second": len(addrs) / dt}


def main():
    ensure_venv()
    import importlib.metadata

    golden = {
        "generator": "tests/memsys/pycachesim_parity.py",
        "pycachesim_version": importlib.metadata.version("pycachesim"),
        "traces": [],
        "synthetic_checksum_100k": checksum(synthetic(1, 100_000)),
    }
    for name, sets, ways, line, gen, seed in TRACES:
        accesses = gen(random.Random(seed))
        path = os.path.join(HERE, "traces", name + ".trace")
        with open(path, "w") as f:
            f.write(f"# sets={sets} ways={ways} line={line}\n")
            for addr, size in accesses:
                f.write(f"0x{addr:x} {size}\n")
        cs, cache = one_level(sets, ways, line)
        for addr, size in accesses:
            cs.load(addr, length=size)
        st = cache.stats()
        golden["traces"].append({
            "name": name,
            "file": f"tests/memsys/traces/{name}.trace",
            "sets": sets,
            "ways": ways,
            "line_bytes": line,
            "accesses": len(accesses),
            "hits": st["HIT_count"],
            "misses": st["MISS_count"],
        })
        print(f"{name}: {len(accesses)} accesses, {st['HIT_count']} hits, {st['MISS_count']} misses")
    out = os.path.join(HERE, "golden", "pycachesim.json")
    if "--rate" in sys.argv:
        golden["rate"] = measure_rate(10_000_000)
        print("pycachesim rate:", golden["rate"])
    if "--rate-trace" in sys.argv:
        path = sys.argv[sys.argv.index("--rate-trace") + 1]
        golden["rate_trace"] = measure_rate_trace(path)
        print("pycachesim rate on", path + ":", golden["rate_trace"])
    if os.path.exists(out):
        with open(out) as f:
            old = json.load(f)
        for key in ("rate", "rate_trace"):
            if key in old and key not in golden:
                golden[key] = old[key]
    with open(out, "w") as f:
        json.dump(golden, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
