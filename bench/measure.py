"""One command timed as the benchmarks report it: wall seconds, CPU seconds (user + system, the
command and every process it waited for) and peak resident memory, from wait4."""
from __future__ import annotations

import os
import subprocess
import time


def run(command: list[str], out: str | None = None, cwd: str | None = None, env: dict | None = None) -> dict:
    """Run command (stdout to the file out, or discarded); {"wall", "cpu", "peak_mb", "rc"}."""
    start = time.perf_counter()
    with open(out or os.devnull, "wb") as handle:
        proc = subprocess.Popen(command, stdout=handle, stderr=subprocess.DEVNULL, cwd=cwd, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024,
            "rc": proc.returncode}


def table(header: list[str], rows: list[list[str]]) -> str:
    """Rows as an aligned text table."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)] if rows else [len(h) for h in header]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(line, widths)) for line in [header] + rows)
