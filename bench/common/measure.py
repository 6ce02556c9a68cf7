"""One command timed as the benchmarks report it: wall seconds, CPU seconds (user + system, the
command and every process it waited for) and peak resident memory.

The command runs under /usr/bin/time where there is one: a process forked from a large parent
reports the parent's peak as its own (Linux keeps the high-water mark across exec), so the peak
is taken in a small process that forks the command itself. Without it, wait4's figures.

Python may keep its bytecode cache, as on a user's machine: PYTHONDONTWRITEBYTECODE (set on some
build machines) is dropped from the command's environment, and `warm_python` writes the cache of
the package before the first timed run. Without the cache every run of ours compiles the package's
source again, about 0.07 CPU s."""
from __future__ import annotations

import os
import subprocess
import tempfile
import time

TIME = "/usr/bin/time"


def python_env(env: dict | None = None) -> dict:
    """The environment a timed command gets: env or this one, with Python's bytecode cache allowed."""
    env = dict(os.environ if env is None else env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def warm_python(python: str) -> None:
    """The package's modules compiled to bytecode once, before anything is timed."""
    subprocess.run([python, "-c", "import gpu_kernels.__main__"], env=python_env(), check=True)


def run(command: list[str], out: str | None = None, cwd: str | None = None, env: dict | None = None,
        err: str | None = None) -> dict:
    """Run command (stdout to the file out, stderr to the file err, each else discarded); {"wall", "cpu",
    "peak_mb", "rc"}."""
    env = python_env(env)
    report = None
    if os.path.exists(TIME):
        handle, report = tempfile.mkstemp(suffix=".time")
        os.close(handle)
        command = [TIME, "-f", "%U %S %M", "-o", report, *command]
    start = time.perf_counter()
    with open(out or os.devnull, "wb") as handle, open(err or os.devnull, "wb") as errors:
        proc = subprocess.Popen(command, stdout=handle, stderr=errors, cwd=cwd, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    cpu, peak_kb = usage.ru_utime + usage.ru_stime, usage.ru_maxrss
    if report:
        with open(report) as handle:
            fields = handle.read().split()[-3:]  # after any "Command exited with non-zero status" line
        os.unlink(report)
        cpu, peak_kb = float(fields[0]) + float(fields[1]), int(fields[2])
    return {"wall": wall, "cpu": cpu, "peak_mb": peak_kb / 1024, "rc": os.waitstatus_to_exitcode(status)}


def table(header: list[str], rows: list[list[str]]) -> str:
    """Rows as an aligned text table."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)] if rows else [len(h) for h in header]
    return "\n".join("  ".join(cell.rjust(w) for cell, w in zip(line, widths)) for line in [header] + rows)


def wrap_timed(owner, name: str, record) -> object:
    """Replace owner.name with a wrapper that calls record(start, end) after every call (perf_counter
    times, on the calling thread); returns the original, for setattr to put back."""
    inner = getattr(owner, name)

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            record(start, time.perf_counter())
    setattr(owner, name, timed)
    return inner
