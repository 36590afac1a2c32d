"""Sweeps: a launch over every combination of hint variants, GPU models, persisting set-aside
sizes and seeds, run on local threads or as Ray tasks (``ptxsim.sweep``; the CLI's ``ptxsim
sweep`` and ``python -m ptxsim sweep`` run the same code).

The spec is a TOML file or a dict of the same shape (docs/sweep.md)::

    {"launch": "examples/matmul_fp16.sm80.toml",
     "axes": {"variant": ["original", "persist=cp.async=policy:fraction:1.0:evict_last"],
              "gpu": ["a100", "h100"], "persisting_l2": [0, 8388608]}}

Every point is run by the Rust extension; this module only moves JSON between it and Ray.
Ray is optional: it is imported when ``backend="ray"`` asks for it.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Optional, Union

from . import PtxsimError, _native

__all__ = ["sweep", "SweepError"]


class SweepError(PtxsimError):
    """Some points of a sweep failed. The output files are written all the same; ``rows`` holds
    the rows of the points that ran and ``failures`` (point, error) of those that did not."""

    def __init__(self, message: str, rows: Any, failures: list):
        super().__init__(message)
        self.rows = rows
        self.failures = failures


def _spec_json(spec: Union[str, "os.PathLike[str]", dict]) -> tuple[str, str, str]:
    """(spec as JSON, directory its paths are relative to, title)."""
    if isinstance(spec, dict):
        # Paths may be given as os.PathLike; relative ones are taken from the working directory.
        return json.dumps(spec, default=os.fspath), os.getcwd(), "ptxsim sweep"
    if isinstance(spec, (str, os.PathLike)):
        path = Path(spec)
        return _native.sweep_read_spec(str(path)), str(path.parent.resolve()), f"ptxsim sweep {path}"
    raise TypeError(f"spec: expected a path or a dict, got {type(spec).__name__}")


def _rows(rows_json: str):
    rows = json.loads(rows_json)
    try:
        import pandas
    except ImportError:
        return rows
    return pandas.DataFrame(rows)


def _ray_module():
    try:
        import ray
    except ImportError:
        raise ImportError(
            "backend='ray' needs Ray: pip install 'ray[default]' (ptxsim runs without it on "
            "backend='local')"
        ) from None
    return ray


def _point_task(spec: str, directory: str, index: int) -> str:
    """One point, as a Ray task runs it (the worker imports ptxsim from its own environment)."""
    return _native.sweep_point(spec, directory, index)


def _run_ray(spec: str, directory: str, out: str, pending: list[int], total: int,
             ray_address: Optional[str], progress: bool) -> dict[int, str]:
    ray = _ray_module()
    if not ray.is_initialized():
        if ray_address:
            ray.init(address=ray_address)
        else:
            ray.init()
    task = ray.remote(num_cpus=1)(_point_task)
    spec_ref = ray.put(spec)
    running = {task.remote(spec_ref, directory, i): i for i in pending}
    done: dict[int, str] = {}
    show = progress and sys.stderr.isatty()
    finished = total - len(pending)
    while running:
        ready, _ = ray.wait(list(running), num_returns=1)
        for ref in ready:
            i = running.pop(ref)
            outcome = ray.get(ref)
            done[i] = outcome
            _native.sweep_store(out, outcome)
            status = json.loads(outcome)
            if status["status"] == "failed":
                print(f"error: point {_native.sweep_describe(spec, directory, i)}: {status['error']}",
                      file=sys.stderr)
            finished += 1
            if show:
                print(f"\rsweep: {finished}/{total} points", end="", file=sys.stderr, flush=True)
    if show:
        print(file=sys.stderr)
    return done


def sweep(
    spec: Union[str, "os.PathLike[str]", dict],
    out: Union[str, "os.PathLike[str]"],
    backend: str = "local",
    jobs: Optional[int] = None,
    *,
    threads: int = 1,
    ray_address: Optional[str] = None,
    progress: bool = True,
):
    """Run every point of a sweep and write ``out``/results.csv, results.json, timings.csv,
    failures.json and report.html; points already in ``out``'s cache are not run again.

    spec: a TOML file, or a dict of the same shape (paths relative to the working directory).
    backend: ``"local"`` (a thread pool of ``jobs`` points at once, default one per core) or
        ``"ray"`` (one Ray task per point; call ``ray.init`` first, or pass ``ray_address=``;
        without either a local Ray instance starts). Both give the same rows.
    threads: interpreter threads per point (reserved: only 1 in this version).

    Returns the rows: a pandas DataFrame when pandas is installed, else a list of dicts. Raises
    SweepError (with ``.rows`` and ``.failures``) after writing the files if any point failed.
    """
    spec_json, directory, title = _spec_json(spec)
    out = os.path.abspath(os.fspath(out))
    if backend == "local":
        rows_json, failures = _native.sweep_local(
            spec_json, directory, out, int(jobs or 0), int(threads), title, bool(progress))
    elif backend == "ray":
        total, pending = _native.sweep_plan(spec_json, directory, out, int(threads))
        done = _run_ray(spec_json, directory, out, pending, total, ray_address, progress)
        rows_json, failures = _native.sweep_finish(
            spec_json, directory, out, [done.get(i) for i in range(total)], title)
    else:
        raise ValueError(f"backend: 'local' or 'ray', got {backend!r}")
    rows = _rows(rows_json)
    if failures:
        lines = "\n".join(f"  {p}: {e}" for p, e in failures)
        raise SweepError(f"{len(failures)} point(s) of the sweep failed:\n{lines}", rows, failures)
    return rows
