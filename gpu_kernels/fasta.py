"""FASTA reading (plain or gzip, multi-record), with one clear error per kind of bad input.

Records are encoded on the host's cores, each written once at its place (fasta.c), for both backends: the
CuPy backend copies the codes to the device. Decoding there with CuPy array operations was a tenth of a
second faster on a 150 Mbp file, but cost 26 kernels, over 3 s of compilation, on a fresh machine. The
exact-match modes' read or probe set on the GPU is the exception (load_fasta's backend): its bytes go to
the device while the host lays the file out, and fasta.cu's four prebuilt kernels encode them there
(encode_fasta_cupy), so a probe set's 2.4 GB of codes are never written or copied by the host.
"""
from __future__ import annotations

import gzip
import logging
import os
import re
import stat
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np

from .encode import BORDER, ENCODE, GAP, N_CODE, check_nucleotides
from .errors import InputError
from .letters import iupac_letters, soft_masked
from .seqset import SeqSet, seqset_of

N_BYTE = bytes([N_CODE])

log = logging.getLogger(__name__)


@dataclass
class Record:
    """One FASTA record: its name and its encoded sequence."""

    name: str
    codes: np.ndarray


PARALLEL_READ = 1 << 26  # files of this size or more are read on all cores (fasta.c)


def read_bytes(path: str) -> bytes:
    """The file's bytes, gunzipped when it is gzip; a missing or unreadable file is an InputError."""
    if not os.path.exists(path):
        raise InputError("no such file", path)
    info = os.stat(path)
    mode, size = info.st_mode, info.st_size
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISSOCK(mode):  # /dev/zero would be read until memory ran out
        raise InputError("is a device or socket, not a FASTA file (a regular file, a pipe or <(...) are read)", path)
    try:
        if stat.S_ISREG(mode) and size >= PARALLEL_READ:
            from . import native

            data = native.cpu().read_file(path, size, native.threads())
        else:
            with open(path, "rb") as handle:
                data = handle.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except (OSError, EOFError, gzip.BadGzipFile) as error:
        raise InputError(f"cannot read: {error}", path) from None
    if data[:3] == b"\xef\xbb\xbf":  # a UTF-8 byte order mark, as some editors write
        data = data[3:]
    if not holds(data, b"\n") and holds(data, b"\r"):
        raise InputError("line breaks are CR only (old Mac text): convert them to LF", path)
    check_nucleotides(data, path)
    return data



def holds(data: bytes, byte: bytes) -> bool:
    """Whether data holds the byte: a large file searched on all cores (fasta.c), one core's search of
    2 GB taking 0.15 s."""
    if len(data) < PARALLEL_READ:
        return byte in data
    from . import native

    return native.cpu().holds_byte(data, byte[0], native.threads())


# bytes.translate applies this table and deletes line breaks in one C pass: far faster than a
# NumPy lookup on genome-sized records.
CODE_TABLE = bytes(ENCODE.tolist())
WHITESPACE = b" \t\r\n"
BLANK_TABLE = np.isin(np.arange(256), list(WHITESPACE)).astype(np.uint8)  # count_in_spans': a body's blanks


def layout(data: bytes, path: str) -> list[tuple[str, int, int]]:
    """(name, body start, body end) of every record, header checks done; bodies still hold line breaks."""
    if holds(data, b"\x00"):
        raise InputError("binary data (NUL bytes), not FASTA", path)
    start = re.match(rb"\s*", data).end()
    if start == len(data):
        raise InputError("empty file, no FASTA records", path)
    if data[start:start + 1] != b">":
        raise InputError("sequence data before the first '>' header line", path)
    records: list[tuple[str, int, int]] = []
    seen: dict[str, int] = {}
    head = start
    while head >= 0:
        line_end = data.find(b"\n", head)
        line_end = len(data) if line_end < 0 else line_end
        following = _next_header(data, line_end)
        body_end = len(data) if following < 0 else following
        number = len(records) + 1
        name = _record_name(data[head + 1:line_end], number, path)
        if name in seen:
            raise InputError(f"duplicate record name (records #{seen[name]} and #{number})", path, name)
        seen[name] = number
        records.append((name, line_end + 1, body_end))
        head = following + 1 if following >= 0 else -1
    return records


FAST_LAYOUT_RECORDS = 1000  # files of more records are laid out by fasta.c


def fast_layout(data: bytes, path: str):
    """(names, bodies: int64 (start, end) a record, the names as a string table) of a file of many records, its headers found on
    all cores (fasta.c), as layout gives them; None where the file has few records, or where a header
    needs layout's reading (an empty name, a control or non-ASCII byte, a repeated name): layout then
    reads it and says what is wrong."""
    from . import native

    if data.count(b">", 0, 1 << 20) < FAST_LAYOUT_RECORDS:
        return None
    start = re.match(rb"\s*", data).end()
    if data[start:start + 1] != b">":
        return None
    cpu, threads = native.cpu(), native.threads()
    begun = time.perf_counter()
    found, nul = cpu.fasta_heads(data, threads)
    if nul:
        return None
    heads = np.frombuffer(found, dtype=np.int64)
    if not heads.size or heads[0] != start:  # leading blanks: the first header is not at a line's start
        return None
    fields = np.empty((heads.size, 5), dtype=np.int64)
    cpu.fasta_fields(data, heads, fields, threads)
    if fields[:, 4].any():
        return None
    lengths = fields[:, 1] - fields[:, 0]
    ends = np.cumsum(lengths + 1)  # each name and a line break after it
    text, hashes = np.empty(int(ends[-1]), dtype=np.uint8), np.empty(heads.size, dtype=np.uint64)
    packed = bytearray(int(ends[-1]) - heads.size)
    cpu.fasta_names(data, fields, ends - lengths - 1, text, packed, hashes, threads)
    named = time.perf_counter()
    names = text[:-1].tobytes().decode("ascii").split("\n")
    split = time.perf_counter()
    cpu.sort_pairs(hashes, None, 64, threads)
    if (hashes[1:] == hashes[:-1]).any() and len(set(names)) < len(names):  # a hash repeated: names compared
        return None
    offsets = np.zeros(heads.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    log.debug("%s: %d headers found in %.2f s, their names split in %.2f s, checked in %.2f s", path, heads.size,
              named - begun, split - named, time.perf_counter() - split)
    return names, np.ascontiguousarray(fields[:, 2:4]), (bytes(packed), offsets)  # formats.rows.name_table's form


def _next_header(data: bytes, at: int) -> int:
    """Index of the line break before the next header line at or after at, or -1. Found by a search
    for '>' (memchr: no sequence letter is a '>'), about ten times faster than one for b"\\n>"."""
    while True:
        at = data.find(b">", at)
        if at <= 0 or data[at - 1] == 10:
            return at - 1 if at > 0 else -1
        at += 1


def bad_character(body: bytes, index: int, path: str, name: str) -> InputError:
    """The error for the index-th sequence character of a record body (line breaks not counted)."""
    byte = body.translate(None, WHITESPACE)[index]
    shown = chr(byte) if 32 < byte < 127 else f"byte 0x{byte:02x}"
    return InputError(f"unexpected character {shown!r} in the sequence", path, name)


def check_record(seq: bytes, body: bytes, path: str, name: str, reads: bool = False) -> None:
    """A translated record must be non-empty, hold only sequence characters, and hold some ACGT (not
    so in a read or probe set, `reads`: the exact-match modes skip such a record)."""
    if not seq:
        raise InputError("empty record, no sequence", path, name)
    bad = seq.find(b"\xff")
    if bad >= 0:
        raise bad_character(body, bad, path, name)
    if not reads and seq.count(N_BYTE) == len(seq):
        raise InputError("no A, C, G or T in the sequence (all N)", path, name)


def read_fastq(data: bytes, path: str, reads: bool = False) -> list[Record]:
    """Records of FASTQ data (4 lines a record: @name, sequence, +, qualities), checked and encoded."""
    lines = data.split(b"\n")
    while lines and not lines[-1].strip():
        lines.pop()
    if len(lines) % 4:
        raise InputError(f"{len(lines)} lines is not a multiple of 4: truncated FASTQ", path)
    records: list[Record] = []
    seen: dict[str, int] = {}
    for number in range(1, len(lines) // 4 + 1):
        head, seq, plus, qual = lines[4 * number - 4:4 * number]
        if not head.startswith(b"@") or not plus.startswith(b"+"):
            raise InputError(f"record #{number}: not a FASTQ record (no '@' or '+' line)", path)
        name = _record_name(head[1:], number, path)
        if name in seen:
            raise InputError(f"duplicate record name (records #{seen[name]} and #{number})", path, name)
        seen[name] = number
        codes = seq.translate(CODE_TABLE, WHITESPACE)
        check_record(codes, seq, path, name, reads)
        if len(qual.rstrip(b"\r")) != len(seq.rstrip(b"\r")):
            raise InputError("quality line and sequence differ in length", path, name)
        records.append(Record(name, np.frombuffer(codes, dtype=np.uint8)))
    return records


def read_fasta(path: str, reads: bool = False) -> list[Record]:
    """All records of a FASTA (or FASTQ, when the file starts with '@') file, in file order, checked and
    encoded (reads: records of no ACGT taken, check_record)."""
    seqset = load_fasta(path, reads)
    codes = np.asarray(seqset.codes)
    return [Record(name, codes[start:start + length])
            for name, start, length in zip(seqset.names, seqset.starts.tolist(), seqset.lengths.tolist())]


# The compiled encoder's table (fasta.c): the code of each byte, SKIP for a byte dropped (line
# breaks, blanks), 255 for a byte that is no sequence letter.
SKIP = 0xFE
COMPILED_TABLE = ENCODE.copy()
COMPILED_TABLE[list(WHITESPACE)] = SKIP
COMPILED_TABLE = COMPILED_TABLE.tobytes()


def names_and_bodies(spans) -> tuple[list, np.ndarray]:
    """The names and bodies (int64 (start, end) a record) of layout's records or fast_layout's tuple."""
    if isinstance(spans, tuple):  # (names, bodies, name table) of fast_layout
        return spans[0], spans[1]
    names = [name for name, _, _ in spans]
    return names, np.array([(start, end) for _, start, end in spans], dtype=np.int64).reshape(-1, 2)


def checked_starts(data: bytes, names, bodies, lengths, bad, acgt, reads: bool, path: str) -> np.ndarray:
    """Where each record's codes start (GAP borders before each and at the end), once every record is
    checked: the first one that is empty, holds a bad byte (bad: bool a record) or no ACGT outside a
    read set (check_record) is an InputError, the bad byte's found again here to be named."""
    wrong = np.flatnonzero((lengths == 0) | bad | ((acgt == 0) & (not reads)))
    if wrong.size:
        i = int(wrong[0])
        name, (start, end) = names[i], bodies[i].tolist()
        if lengths[i] == 0:
            raise InputError("empty record, no sequence", path, name)
        if bad[i]:
            body = data[start:end]
            raise bad_character(body, body.translate(CODE_TABLE, WHITESPACE).find(b"\xff"), path, name)
        raise InputError("no A, C, G or T in the sequence (all N)", path, name)
    return GAP + np.concatenate(([0], np.cumsum(lengths + GAP)[:-1])).astype(np.int64)


def encode_fasta(data: bytes, spans, path: str, reads: bool = False, on_device=None) -> SeqSet:
    """The records of layout(data) (or of fast_layout: names and bodies) checked, encoded and laid end to end on all cores (fasta.c): their
    symbols counted first, so that each is written once, at its place. reads: records of no ACGT are
    taken (a read or probe set; check_record). on_device: unused (encode_fasta_cupy's copy of data)."""
    from . import native

    cpu, threads = native.cpu(), native.threads()
    names, bodies = names_and_bodies(spans)
    stats = np.empty((len(names), 4), dtype=np.int64)
    cpu.encode_counts(data, bodies, COMPILED_TABLE, stats, threads)
    lengths, acgt = stats[:, 0].copy(), stats[:, 2]
    starts = checked_starts(data, names, bodies, lengths, stats[:, 1] >= 0, acgt, reads, path)
    codes = np.empty(int(GAP + lengths.sum() + GAP * len(names)), dtype=np.uint8)  # every byte written there
    cpu.encode_records(data, bodies, COMPILED_TABLE, codes, starts, stats, threads)
    return _encoded(spans, names, lengths, starts, codes, acgt)


def _encoded(spans, names, lengths, starts, codes, acgt) -> SeqSet:
    """The SeqSet of an encoder, with what the encoding knows already: which records hold ACGT and,
    from fast_layout, the names as a string table."""
    seqset = SeqSet(list(names), lengths, starts, codes)
    seqset.__dict__["has_acgt"] = acgt > 0
    if isinstance(spans, tuple) and len(spans) > 2:
        seqset.__dict__["name_table"] = spans[2]
    return seqset


DEVICE_PIECE = 1 << 14  # bytes of a body a warp of fasta.cu encodes: a genome's long records in thousands of pieces


def body_pieces(bodies: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(pieces, first): the bodies (int64 (start, end) a record) cut into pieces of at most DEVICE_PIECE
    bytes, at least one a record (an empty body's is empty), and the index of each record's first
    piece (records + 1 entries)."""
    size = bodies[:, 1] - bodies[:, 0]
    count = np.maximum(1, -(-size // DEVICE_PIECE))
    first = np.zeros(bodies.shape[0] + 1, dtype=np.int64)
    np.cumsum(count, out=first[1:])
    if first[-1] == bodies.shape[0]:  # a probe or read set: a piece a record
        return np.ascontiguousarray(bodies, dtype=np.int64), first
    record = np.repeat(np.arange(bodies.shape[0], dtype=np.int64), count)
    lo = bodies[record, 0] + (np.arange(record.size, dtype=np.int64) - first[record]) * DEVICE_PIECE
    return np.stack([lo, np.minimum(lo + DEVICE_PIECE, bodies[record, 1])], axis=1), first


def encode_fasta_cupy(data: bytes, spans, path: str, reads: bool = False, on_device=None) -> SeqSet:
    """encode_fasta on the device (fasta.cu): the file's bytes copied there, the bodies counted and
    written by warps, a piece of DEVICE_PIECE bytes each. The same records, lengths, starts and
    errors; the SeqSet's codes are a CuPy array (its names, lengths and starts stay on the host).
    on_device: the same bytes already on the device as a CuPy uint8 array, or a future of one (a
    copy started while the file was laid out). A file whose bytes and codes do not fit the device is
    encoded on the host (encode_fasta), its codes then a NumPy array."""
    from .arrays import cupy

    cp = cupy()
    try:
        return _encode_on_device(data, spans, path, reads, on_device)
    except cp.cuda.memory.OutOfMemoryError:
        cp.get_default_memory_pool().free_all_blocks()
        log.info("%s: no room on the device for its bytes and codes: encoded on the host", path)
        return encode_fasta(data, spans, path, reads)


def _encode_on_device(data: bytes, spans, path: str, reads: bool, on_device) -> SeqSet:
    """encode_fasta_cupy's work, which may run out of device memory."""
    from .arrays import BLOCK, blocks, cupy, kernel, to_device, to_host

    cp = cupy()
    names, bodies = names_and_bodies(spans)
    start = time.perf_counter()
    if on_device is None:
        on_device = to_device(np.frombuffer(data, dtype=np.uint8), cp)
    elif not isinstance(on_device, cp.ndarray):
        on_device = on_device.result()
    copied = time.perf_counter()
    pieces, first = body_pieces(bodies)
    n, records = pieces.shape[0], len(names)
    table = cp.asarray(np.frombuffer(COMPILED_TABLE, dtype=np.uint8))
    pieces_d, first_d = cp.asarray(pieces), cp.asarray(first)
    per_piece = cp.empty((3, n), dtype=cp.int64)  # symbols (then places), ACGT, first bad byte
    warps = blocks(n * 32)
    kernel("fasta.cu", "count_pieces")((warps,), (BLOCK,), (on_device, pieces_d, cp.int64(n), table, per_piece[0],
                                                             per_piece[1], per_piece[2]))
    stats = cp.empty((3, records), dtype=cp.int64)  # lengths, ACGT, first bad byte
    kernel("fasta.cu", "record_counts")((blocks(records),), (BLOCK,), (first_d, cp.int64(records), per_piece[0],
                                                                       per_piece[1], per_piece[2], stats[0], stats[1],
                                                                       stats[2]))
    lengths, acgt, bad = to_host(stats)
    starts = checked_starts(data, names, bodies, lengths, bad >= 0, acgt, reads, path)
    kernel("fasta.cu", "place_pieces")((blocks(records),), (BLOCK,), (first_d, cp.int64(records), cp.asarray(starts),
                                                                      per_piece[0]))
    codes = cp.empty(int(GAP + lengths.sum() + GAP * records), dtype=cp.uint8)
    cp.cuda.runtime.memsetAsync(codes.data.ptr, BORDER, codes.nbytes, cp.cuda.get_current_stream().ptr)
    kernel("fasta.cu", "write_pieces")((warps,), (BLOCK,), (on_device, pieces_d, cp.int64(n), table, per_piece[0],
                                                             codes))
    del on_device, per_piece, pieces_d
    if log.isEnabledFor(logging.DEBUG):
        cp.cuda.Device().synchronize()
        log.debug("%s: bytes on the device %.2f s after the layout, encoded there in %.2f s", path, copied - start,
                  time.perf_counter() - copied)
    return _encoded(spans, names, lengths, starts, codes, acgt)


def _record_name(header: bytes, number: int, path: str) -> str:
    """The first word of a header line (UTF-8, as NCBI descriptions may be); an empty or undecodable
    name is an InputError."""
    try:
        text = header.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise InputError(f"record #{number}: header is not UTF-8 text (binary data?)", path) from None
    if not text or not text.split()[0]:
        raise InputError(f"record #{number}: empty record name", path)
    if any(ord(ch) < 32 and ch != "\t" for ch in text):
        raise InputError(f"record #{number}: control characters in the header (binary data?)", path)
    return text.split()[0]


def check_lengths(names: list[str], lengths, k: int, path: str) -> int:
    """Records shorter than k hold no word, so no HSP: each is said in the log (it stays in the tables,
    aligned nowhere), as nucmer and minimap2 take such contigs. Returns how many there are."""
    short = np.flatnonzero(np.asarray(lengths) < k)
    for at in short[:10]:
        log.info("%s: record '%s': %d bp is shorter than k = %d: no HSP can hold it", path, names[at],
                 int(lengths[at]), k)
    if short.size > 10:
        log.info("%s: %d records in all are shorter than k = %d", path, short.size, k)
    return int(short.size)



def load_fasta(path: str, reads: bool = False, backend=None, soft: bool = False) -> SeqSet:
    """A FASTA (or FASTQ) file's records, checked, encoded and laid end to end (reads: records of no
    ACGT taken, check_record). backend: a FASTA file's codes made where it computes (its
    encode_fasta twin; the bytes' copy there started before the layout), or a future of the backend
    (the file read while it is made); the host's by default. soft: also `seqset.soft`, the
    soft-masked (lowercase) bases (soft_masked; a FASTQ file's none)."""
    start = time.perf_counter()
    data = read_bytes(path)
    read = time.perf_counter()
    if data.lstrip()[:1] == b"@":
        return seqset_of(read_fastq(data.lstrip(), path, reads))
    on_device = _copy_soon(backend, data) if backend is not None else None
    spans = fast_layout(data, path) or layout(data, path)
    laid = time.perf_counter()
    if isinstance(backend, Future):
        backend = backend.result()
    seqset = (backend.encode_fasta if backend is not None else encode_fasta)(data, spans, path, reads, on_device)
    seqset.letters = iupac_letters(data, names_and_bodies(spans)[1], seqset.starts, COMPILED_TABLE)
    if soft:
        seqset.soft = soft_masked(data, names_and_bodies(spans)[1], seqset, COMPILED_TABLE)
    log.debug("%s: %d bytes read in %.2f s, laid out in %.2f s, encoded in %.2f s", path, len(data), read - start,
              laid - read, time.perf_counter() - laid)
    return seqset


def _copy_soon(backend, data: bytes):
    """backend.copy_soon(data) (a future of the bytes on its device, or None); for a future of a
    backend, a future of that, waited for on a thread so that the layout starts at once."""
    if not isinstance(backend, Future):
        return backend.copy_soon(data)
    chained: Future = Future()

    def wait() -> None:
        try:
            copy = backend.result().copy_soon(data)
            chained.set_result(None if copy is None else copy.result())
        except BaseException as error:  # the backend's own error (no device) is raised where it is waited for
            chained.set_exception(error)
    threading.Thread(target=wait, name="copy", daemon=True).start()
    return chained


def load_pair(first: str, second: str, check=None, reads: bool = False, backend=None,
              soft: bool = False) -> tuple[SeqSet, SeqSet]:
    """Two files loaded at once on two threads (file reads and fasta.c run without the GIL). check(seqset,
    path), if given, runs on each in turn: every problem of the first file is raised before any of the
    second's, as when they are read one after the other. reads: the first is a read or probe set
    (records of no ACGT taken). backend: the first's codes made where it computes (load_fasta). soft:
    each one's soft-masked bases too (load_fasta)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        futures = [pool.submit(load_fasta, path, reads and n == 0, backend if n == 0 else None, soft)
                   for n, path in enumerate((first, second))]
        out = []
        for future, path in zip(futures, (first, second)):
            seqset = future.result()
            if check is not None:
                check(seqset, path)
            out.append(seqset)
        return out[0], out[1]
