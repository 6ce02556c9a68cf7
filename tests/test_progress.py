"""The progress line (gpu_kernels/progress.py): drawn on a terminal from the stages' messages, wiped
before anything else is written and at the end; nothing of it where standard error is not a
terminal or where -v prints the messages."""
import io
import re
import sys

import pytest

from conftest import MYCO_232, MYCO_7422
from gpu_kernels.__main__ import main

SUMMARY = re.compile(r"\d+ alignments \(\d+ in the backbone\) of \d+ chains")  # align's summary line


class Terminal(io.StringIO):
    def isatty(self):
        return True


def run(monkeypatch, stream, args) -> int:
    """main(args) with `stream` as standard error (set in the test's body: pytest's capture sets its
    own again between a fixture and the test)."""
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setenv("TERM", "xterm")
    try:
        return main(args)
    finally:
        assert sys.stderr is stream  # put back
        monkeypatch.undo()


def test_align_on_a_terminal_draws_its_stages_and_leaves_only_its_summary(tmp_path, monkeypatch):
    terminal = Terminal()
    assert run(monkeypatch, terminal, ["align", MYCO_232, MYCO_7422, "--backend", "numpy", "-o", str(tmp_path / "a.paf")]) == 0
    text = terminal.getvalue()
    assert "\r\x1b[K[" in text and " s] " in text  # stages drawn, with their times
    assert "chains of" in text  # a stage's own message
    lines = text.split("\r\x1b[K")
    assert SUMMARY.match(lines[-1]) or SUMMARY.match(lines[-2]), lines[-3:]
    assert text.endswith("\n") or text.endswith("\r\x1b[K")


def test_a_line_written_after_the_progress_line_wipes_it_first(monkeypatch):
    import logging

    from gpu_kernels import progress

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("TERM", "xterm")
    started = progress.start(0)
    try:
        logging.getLogger("gpu_kernels.engine").info("words: many")
        logging.getLogger("gpu_kernels.engine").debug("not drawn")
        print("error: x.fa: record 2: no bases", file=sys.stderr)
        logging.getLogger("gpu_kernels.engine").info("seeds")
    finally:
        progress.stop(started)
    text = terminal.getvalue()
    assert sys.stderr is terminal
    assert text.startswith("\r\x1b[K[    0 s] words: many\r\x1b[Kerror: x.fa: record 2: no bases\n")
    assert "not drawn" not in text
    assert text.endswith("seeds\r\x1b[K")  # wiped at the end


@pytest.mark.parametrize("tty, verbose", [(False, []), (True, ["-v"])])
def test_no_line_off_a_terminal_or_with_v(tmp_path, monkeypatch, tty, verbose):
    stream = Terminal() if tty else io.StringIO()
    assert run(monkeypatch, stream, ["align", MYCO_232, MYCO_7422, "--backend", "numpy", "-o",
                                     str(tmp_path / "a.paf"), *verbose]) == 0
    text = stream.getvalue()
    assert SUMMARY.search(text)  # the summary line
    assert "\x1b[K" not in text
