"""Sequence codes: A=0 C=1 G=2 T=3, any other letter 4, and 5 for the border between records.

Code 5 (BORDER) never occurs inside a record: extension stops on it, words never span it.
Records laid end to end are separated by GAP border codes (see seqset.py).
"""
from __future__ import annotations

import numpy as np

# The codes the kernels test for, and the border width: in kernels.py, which setup.py reads without NumPy.
from .errors import InputError
from .kernels import BORDER, GAP, N_CODE

__all__ = ["BORDER", "GAP", "N_CODE", "ENCODE", "COMPLEMENT", "encode", "check_nucleotides"]

# Byte -> code; 255 marks a byte that may not appear in a sequence line.
ENCODE = np.full(256, 255, dtype=np.uint8)
for _byte in b"ABCDEFGHIJKLMNOPQRSTUVWXYZ" + b"abcdefghijklmnopqrstuvwxyz" + b"-.*":
    ENCODE[_byte] = N_CODE
for _letters, _code in ((b"Aa", 0), (b"Cc", 1), (b"Gg", 2), (b"TtUu", 3)):
    for _byte in _letters:
        ENCODE[_byte] = _code

# Code -> complementary code (N and BORDER map to themselves).
COMPLEMENT = np.array([3, 2, 1, 0, N_CODE, BORDER], dtype=np.uint8)


def encode(seq: bytes) -> np.ndarray:
    """Encode sequence bytes (no line breaks) to codes; bytes that are not sequence give 255."""
    return ENCODE[np.frombuffer(seq, dtype=np.uint8)]


# letters of amino acids that no nucleotide code (IUPAC) uses; X is left out: some tools mask DNA with it
PROTEIN_ONLY = np.frombuffer(b"EFIJLOPQZefijlopqz*", dtype=np.uint8)
NUCLEOTIDES = np.frombuffer(b"ACGTUNacgtun", dtype=np.uint8)


def check_nucleotides(data: bytes, path: str, sample: int = 1 << 22) -> None:
    """A FASTA file of protein sequences is refused in one line (it would be compared as all N, in
    silence): in the sequence lines of its first `sample` bytes, letters only amino acids use make up
    a tenth or more, and A, C, G, T, U and N under half."""
    head = data[:sample]  # a slice: a genome's bytes are never copied whole here
    if head.lstrip()[:1] != b">":
        return
    lines = head.split(b"\n")
    letters = np.frombuffer(b"".join(line for line in lines if not line.startswith(b">")), dtype=np.uint8)
    counts = np.bincount(letters, minlength=256)
    total = int(counts[65:91].sum() + counts[97:123].sum())
    if total and counts[PROTEIN_ONLY].sum() * 10 >= total and counts[NUCLEOTIDES].sum() * 2 < total:
        raise InputError("holds protein sequences, not nucleotides: this compares DNA (or RNA) genomes", path)
