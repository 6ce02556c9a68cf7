"""Where a command line's wall time goes, from the parent's side: the command line run as a child with
debug logging, each log line printed against the moment the child was started, then the moment the
parent saw it end (the exit: the operating system taking back the device memory and pinned buffers).
With --teardown, the exit alone: children that hold so many GB of device memory and of pinned host
memory, then os._exit, timed from their last word to their end.

    python bench/studies/process_timeline.py Q.fa R.fa [--runs 2] [--chains] [--teardown]
    python bench/studies/process_timeline.py PROBES.fa R.fa --mems 1024   # mems -l 1024 instead of compare

Prints tables; not a test.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from common.measure import python_env  # noqa: E402

CHILD = """
import logging, sys
logging.basicConfig(level=logging.DEBUG, stream=sys.stderr,
                    format="%(created).4f %(threadName)s %(name)s %(message)s")
for name in ("cupy", "numba", "matplotlib"):
    logging.getLogger(name).setLevel(logging.WARNING)
sys.argv = ["gpu_kernels"] + sys.argv[1:]
from gpu_kernels.__main__ import cli
cli()
"""

HOLDER = """
import os, sys, time
import numpy as np
import cupy as cp
device_gb, pinned_gb = float(sys.argv[1]), float(sys.argv[2])
held = []
if device_gb:
    held.append(cp.empty(int(device_gb * 2**30), dtype=cp.uint8))
    held[-1][::4096] = 1
if pinned_gb:
    memory = cp.cuda.alloc_pinned_memory(int(pinned_gb * 2**30))
    view = np.frombuffer(memory, dtype=np.uint8, count=int(pinned_gb * 2**30))
    view[::4096] = 1
    held.append(memory)
cp.cuda.Device().synchronize()
print(f"{time.time():.4f}", flush=True)
os._exit(0)
"""


def timeline(query: str, reference: str, out: str, extra: list[str], mems: int = 0) -> None:
    """One command line (compare, with the arguments `extra` besides; mems: `mems -l MEMS` instead) with
    its log lines against its start."""
    env = python_env()
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    command = ["mems", query, reference, "-l", str(mems), "-o", out + ".txt"] if mems else \
        ["compare", query, reference, "--hsps", out]
    started = time.time()
    child = subprocess.run([sys.executable, "-c", CHILD, *command, "-v", *extra],
                           env=env, capture_output=True, text=True)
    ended = time.time()
    last = started
    print(f"{'at s':>7} {'step s':>7}  thread      line")
    for line in child.stderr.splitlines():
        stamp, _, rest = line.partition(" ")
        try:
            at = float(stamp) - started
        except ValueError:
            at = -1.0
        if not 0 <= at < 3600:  # not a log line: the summary the command line prints
            print(f"{'':>7} {'':>7}  {line[:160]}")
            continue
        thread, _, text = rest.partition(" ")
        print(f"{at:7.3f} {at - (last - started):7.3f}  {thread[:10]:<10}  {text[:150]}")
        last = float(stamp)
    print(f"{ended - started:7.3f} {ended - last:7.3f}  (process ended, status {child.returncode})")


def teardown(runs: int) -> None:
    """How long an exit takes with so much device and pinned memory held."""
    print(f"{'device GB':>9} {'pinned GB':>9}  exit s (each run)")
    for device_gb, pinned_gb in ((0, 0), (8, 0), (32, 0), (64, 0), (0, 1), (0, 4), (0, 8), (64, 4)):
        times = []
        for _ in range(runs):
            child = subprocess.Popen([sys.executable, "-c", HOLDER, str(device_gb), str(pinned_gb)],
                                     stdout=subprocess.PIPE, text=True)
            said = float(child.stdout.readline())
            child.wait()
            times.append(time.time() - said)
        print(f"{device_gb:9} {pinned_gb:9}  " + " ".join(f"{t:.3f}" for t in times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query", nargs="?")
    parser.add_argument("reference", nargs="?")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--teardown", action="store_true", help="only the exit with memory held")
    parser.add_argument("--chains", action="store_true", help="compare with the chains table and the chain PAF too")
    parser.add_argument("--mems", type=int, default=0, metavar="L", help="mems -l L (with --backend cupy) instead")
    args = parser.parse_args()
    if args.teardown:
        teardown(args.runs)
        return
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(args.query))) as work:
        for run in range(args.runs):
            print(f"\nrun {run + 1}")
            extra = ["--chains-table", os.path.join(work, "c.parquet"), "--chains", os.path.join(work, "c.paf")]
            extra = extra if args.chains else ["--backend", "cupy"] if args.mems else []
            timeline(args.query, args.reference, os.path.join(work, "t.parquet"), extra, args.mems)


if __name__ == "__main__":
    main()
