"""``python -m ptxsim sweep SPEC --out DIR [--jobs N] [--threads N] [--ray [ADDRESS]]``: a sweep
from a shell, on local threads or on a Ray cluster (``--ray`` alone starts a local instance;
``--ray auto`` joins the cluster of this machine; ``--ray ray://HOST:10001`` a remote one).

Exit status: 0 when every point ran, 1 when some failed (the files are written all the same),
2 for a bad spec or option.
"""

from __future__ import annotations

import argparse
import sys

from . import PtxsimError
from ._sweep import SweepError, sweep


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ptxsim", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("sweep", help="run a sweep spec (docs/sweep.md)")
    p.add_argument("spec", help="the sweep spec (TOML)")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--jobs", type=int, default=None, help="points at once (local; default: the cores)")
    p.add_argument("--threads", type=int, default=1, help="interpreter threads per point (reserved: 1)")
    p.add_argument("--ray", nargs="?", const="", default=None, metavar="ADDRESS",
                   help="run each point as a Ray task (ADDRESS of a cluster, or none for a local Ray)")
    args = parser.parse_args(argv)
    backend = "local" if args.ray is None else "ray"
    try:
        rows = sweep(args.spec, out=args.out, backend=backend, jobs=args.jobs, threads=args.threads,
                     ray_address=args.ray or None)
    except SweepError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except (PtxsimError, ImportError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"sweep: {len(rows)} rows: wrote {args.out}/results.csv", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
