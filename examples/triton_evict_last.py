# %% [markdown]
# # Does `eviction_policy="evict_last"` keep a reused table in L2?
#
# A Triton kernel adds a small lookup table to a long input: every block streams 4 KiB of `x`
# (read once) and reads 4 KiB of `table` (read again by every pass over the table). Without a
# hint, the streaming input pushes the table out of L2 between its reuses; with
# `eviction_policy="evict_last"` on the table's load, the table's lines stay.
#
# ptxsim runs the PTX Triton compiles for sm_80 on the CPU (no GPU), over the A100 model with
# its L2 scaled down to 256 KiB (a100-l2-256k.toml beside this file) so that a 128 KiB table
# and a 2 MiB input show the effect in about a second.
#
# Run: `python examples/triton_evict_last.py` (needs `pip install triton` and ptxsim).

# %%
from pathlib import Path

import numpy as np
import triton
import triton.language as tl

import ptxsim.triton


@triton.jit
def add_table(x_ptr, table_ptr, out_ptr, n, table_size, BLOCK: tl.constexpr, TABLE_POLICY: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    t = tl.load(table_ptr + offs % table_size, mask=mask, eviction_policy=TABLE_POLICY)
    tl.store(out_ptr + offs, x + t, mask=mask)


# %%
n, table_size, block = 1 << 19, 1 << 15, 1024
rng = np.random.default_rng(0)
x = rng.random(n, dtype=np.float32)
table = rng.random(table_size, dtype=np.float32)
gpu = Path(__file__).with_name("a100-l2-256k.toml")

results = {}
for policy in ("", "evict_last"):
    out = np.zeros(n, dtype=np.float32)
    results[policy] = ptxsim.triton.run(
        add_table, (triton.cdiv(n, block),), x, table, out, n, table_size,
        BLOCK=block, TABLE_POLICY=policy, target="sm_80", gpu=gpu,
        persisting_l2=196608,  # cudaLimitPersistingL2CacheSize: 3/4 of this L2 for evict-last lines
    )
    # Hints change where data lives, never the result.
    assert np.array_equal(out, x + table[np.arange(n) % table_size])

# %%
for policy, title in (("", "no hint"), ("evict_last", 'eviction_policy="evict_last" on the table')):
    print(f"=== {title} ===")
    print(results[policy].summary())

# %%
plain, hinted = results[""].stats["total"], results["evict_last"].stats["total"]
print("=== comparison ===")
print(f"{'':24}{'no hint':>12}{'evict_last':>12}")
for label, key in (("L2 read hits (sectors)", ("l2", "read_hits")), ("DRAM bytes read", ("dram", "bytes_read"))):
    print(f"{label:24}{plain[key[0]][key[1]]:>12}{hinted[key[0]][key[1]]:>12}")
