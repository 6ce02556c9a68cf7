"""Sequence codes: A=0 C=1 G=2 T=3, any other letter 4, and 5 for the border between records.

Code 5 (BORDER) never occurs inside a record: extension stops on it, words never span it.
"""
from __future__ import annotations

import numpy as np

N_CODE = 4
BORDER = 5

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


def reverse_complement(codes):
    """Reverse complement of a code array (NumPy or CuPy); BORDER and N stay as they are."""
    xp = array_module(codes)
    return xp.asarray(COMPLEMENT)[codes[::-1]]


def array_module(array):
    """NumPy or CuPy, whichever owns the array."""
    module = type(array).__module__
    if module.startswith("cupy"):
        import cupy

        return cupy
    return np
