"""The GIL is released while a kernel runs: another Python thread keeps running meanwhile."""

import threading
import time

import numpy as np

import ptxsim
from _util import CORPUS

VADD = CORPUS / "triton" / "vadd_evict_last.sm80.ptx"


def test_other_threads_run_during_a_launch():
    n = 1 << 21  # 2048 CTAs: long enough to measure (about a second on a debug build)
    x = np.arange(n, dtype=np.float32)
    y = np.ones(n, dtype=np.float32)
    out = np.zeros(n, dtype=np.float32)
    started, done, result = threading.Event(), threading.Event(), {}

    def worker():
        started.set()
        try:
            result["r"] = ptxsim.launch(VADD, "vadd_evict_last", n // 1024, 128, [x, y, out, n, None, None])
        finally:
            done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    started.wait()
    # Pure-Python work on this thread, timestamped, until the launch returns. If the launch
    # held the GIL, this loop would stop for the whole run.
    ticks = [time.perf_counter()]
    while not done.is_set():
        sum(range(200))
        ticks.append(time.perf_counter())
    thread.join()
    r = result["r"]
    np.testing.assert_array_equal(out, x + y)
    assert r.elapsed > 0.1, f"the run ({r.elapsed:.3f} s) is too short to tell"
    longest_pause = max(b - a for a, b in zip(ticks, ticks[1:]))
    # Held, the GIL would stop this thread for the whole run (a pause about as long as
    # r.elapsed); half leaves room for the OS descheduling it on a loaded machine.
    assert longest_pause < r.elapsed / 2, (
        f"this thread stalled {longest_pause:.3f} s during a {r.elapsed:.3f} s run: the GIL was held"
    )
    assert len(ticks) > 1000
