"""Thread plumbing of the writers and readers: work mapped over a pool in order, in bounded memory."""
from __future__ import annotations

import os
from collections import deque
from concurrent.futures import ThreadPoolExecutor


def ordered_map(fn, items, threads: int, window: int = 0):
    """fn over items on a thread pool, results in order, at most `window` (default threads + 1) in
    flight, so memory stays bounded however long items is."""
    if threads <= 1:
        yield from map(fn, items)
        return
    window = max(window, threads + 1)
    with ThreadPoolExecutor(threads) as pool:
        pending: deque = deque()
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def default_threads() -> int:
    """Threads for encoding and formatting: GPU_GENOME_COMPARE_THREADS (-t), else the cores this
    process may use, at most 16."""
    value = os.environ.get("GPU_GENOME_COMPARE_THREADS", "")
    if value.isdigit() and int(value) > 0:
        return int(value)
    try:
        return max(1, min(16, len(os.sched_getaffinity(0))))
    except AttributeError:
        return max(1, min(16, os.cpu_count() or 1))
