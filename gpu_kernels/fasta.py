"""FASTA reading (plain or gzip, multi-record), with one clear error per kind of bad input."""
from __future__ import annotations

import gzip
import os
from dataclasses import dataclass

import numpy as np

from .encode import ENCODE, N_CODE, encode
from .errors import InputError


@dataclass
class Record:
    """One FASTA record: its name and its encoded sequence."""

    name: str
    codes: np.ndarray


def read_bytes(path: str) -> bytes:
    """The file's bytes, gunzipped when it is gzip; a missing or unreadable file is an InputError."""
    if not os.path.exists(path):
        raise InputError("no such file", path)
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile) as error:
        raise InputError(f"cannot read: {error}", path) from None
    return data


def read_fasta(path: str) -> list[Record]:
    """All records of a FASTA file, in file order, each checked and encoded."""
    data = read_bytes(path)
    if not data.strip():
        raise InputError("empty file, no FASTA records", path)
    if b"\x00" in data:
        raise InputError("binary data (NUL bytes), not FASTA", path)
    start = len(data) - len(data.lstrip())
    if data[start:start + 1] != b">":
        raise InputError("sequence data before the first '>' header line", path)
    records: list[Record] = []
    seen: dict[str, int] = {}
    for number, chunk in enumerate(data[start + 1:].split(b"\n>"), start=1):
        header, _, body = chunk.partition(b"\n")
        name = _record_name(header, number, path)
        if name in seen:
            raise InputError(f"duplicate record name (records #{seen[name]} and #{number})", path, name)
        seen[name] = number
        seq = body.translate(None, b" \t\r\n")
        if not seq:
            raise InputError("empty record, no sequence", path, name)
        codes = encode(seq)
        bad = np.flatnonzero(codes == 255)
        if bad.size:
            byte = seq[bad[0]]
            shown = chr(byte) if 32 < byte < 127 else f"byte 0x{byte:02x}"
            raise InputError(f"unexpected character {shown!r} in the sequence", path, name)
        if not np.any(codes < N_CODE):
            raise InputError("no A, C, G or T in the sequence (all N)", path, name)
        records.append(Record(name, codes))
    return records


def _record_name(header: bytes, number: int, path: str) -> str:
    """The first word of a header line; an empty or undecodable name is an InputError."""
    try:
        text = header.decode("ascii").strip()
    except UnicodeDecodeError:
        raise InputError(f"record #{number}: header is not ASCII text (binary data?)", path) from None
    if not text or not text.split()[0]:
        raise InputError(f"record #{number}: empty record name", path)
    if any(ord(ch) < 32 and ch != "\t" for ch in text):
        raise InputError(f"record #{number}: control characters in the header (binary data?)", path)
    return text.split()[0]


def check_lengths(records: list[Record], k: int, path: str) -> None:
    """Every record must hold at least one word of length k."""
    for record in records:
        if record.codes.size < k:
            raise InputError(f"{record.codes.size} bp is shorter than k = {k}", path, record.name)


__all__ = ["Record", "read_fasta", "read_bytes", "check_lengths", "ENCODE"]
