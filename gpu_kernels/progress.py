"""A progress line on a terminal: each stage's log message (the -v messages) drawn over the last one
on one line of standard error while a command runs, then wiped, so a run of minutes shows where it
is and leaves only its summary line. Nothing is drawn where standard error is not a terminal (a
pipe, a file, a cluster's log) or where -v prints the messages themselves."""
from __future__ import annotations

import logging
import os
import shutil
import sys
import time

CLEAR = "\r\x1b[K"  # to the line's start, then erase it


class _Stderr:
    """Standard error, wiping the progress line before anything else is written to it."""

    def __init__(self, stream):
        self.stream, self.shown = stream, False

    def write(self, text: str) -> int:
        if self.shown and text:
            self.stream.write(CLEAR)
            self.shown = False
        return self.stream.write(text)

    def status(self, text: str) -> None:
        self.stream.write(CLEAR + text)
        self.stream.flush()
        self.shown = True

    def wipe(self) -> None:
        if self.shown:
            self.stream.write(CLEAR)
            self.stream.flush()
            self.shown = False

    def __getattr__(self, name):
        return getattr(self.stream, name)


class _Line(logging.Handler):
    """Draws each INFO message of the package's loggers as the progress line, with the time since the
    command started."""

    def __init__(self, err: _Stderr):
        super().__init__(logging.INFO)
        self.err, self.start = err, time.perf_counter()

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno != logging.INFO:
            return  # warnings and errors print as ever (the line is wiped first)
        width = shutil.get_terminal_size((80, 24)).columns
        text = f"[{time.perf_counter() - self.start:5.0f} s] {record.getMessage()}".replace("\n", " ")
        self.err.status(text[:max(10, width - 1)])


def start(verbose: int):
    """The progress line for one command (None where there is none: -v, or no terminal); stop() ends it."""
    stream = sys.stderr
    if verbose or stream is None or not stream.isatty() or os.environ.get("TERM") == "dumb":
        return None
    err = _Stderr(stream)
    sys.stderr = err
    root = logging.getLogger()
    levels = {}
    for handler in root.handlers:
        # the root's handlers write warnings through the wrapper, and no more than they did: the
        # package's INFO messages, now let through for the line, go up to them too
        levels[handler] = handler.level
        handler.setLevel(max(handler.level, root.getEffectiveLevel()))
        if isinstance(handler, logging.StreamHandler) and handler.stream is stream:
            handler.setStream(err)
    package = logging.getLogger("gpu_kernels")
    line = _Line(err)
    package.addHandler(line)
    saved = package.level
    package.setLevel(logging.INFO)
    return err, line, saved, stream, levels


def stop(started) -> None:
    """Wipes the line and puts standard error and the loggers back as they were."""
    if started is None:
        return
    err, line, saved, stream, levels = started
    err.wipe()
    package = logging.getLogger("gpu_kernels")
    package.removeHandler(line)
    package.setLevel(saved)
    for handler, level in levels.items():
        handler.setLevel(level)
        if isinstance(handler, logging.StreamHandler) and handler.stream is err:
            handler.setStream(stream)
    if sys.stderr is err:
        sys.stderr = stream
