"""The sketch's oracle: a genome's sites and periodic 32-mers, one base at a time (plain Python), as
gpu_kernels/workflow/sketch.py defines them."""
from __future__ import annotations

from collections import Counter

MASK = (1 << 64) - 1
SALT20, SALT32 = 0x9E3779B97F4A7C15, 0x632BE59BD9B4E019
CODE = {"A": 0, "C": 1, "G": 2, "T": 3}


def mix64(x: int) -> int:
    x ^= x >> 33
    x = (x * 0xFF51AFD7ED558CCD) & MASK
    x ^= x >> 33
    x = (x * 0xC4CEB9FE1A85EC53) & MASK
    return x ^ (x >> 33)


def pack(word: str) -> int:
    value = 0
    for base in word:
        value = value * 4 + CODE[base]
    return value


def reverse_complement(word: str) -> str:
    return word[::-1].translate(str.maketrans("ACGT", "TGCA"))


def canonical(word: str) -> int:
    return min(pack(word), pack(reverse_complement(word)))


def periodic(word: str) -> bool:
    """A unit of at most 8 bases repeated (the last copy cut short or not)."""
    return any(word[p:] == word[:-p] for p in range(1, 9))


def oracle_sketch(records: list[str], shift: int) -> tuple[list[tuple], Counter]:
    """(sites as (h20, h32, pos, rec, flags), canonical periodic 32-mer -> count) of the records' bases
    (any case; anything but ACGT breaks a word). A site is a 20-mer at pos whose hash is below
    2^(64 - shift), with the 32-mer from pos - 6 (h32 0 where that is not 32 bases of ACGT); the last
    6 20-mers of a record, whose 32-mer would end past it, are no sites."""
    sites, tandem = [], Counter()
    for rec, text in enumerate(records):
        seq = text.upper()
        for i in range(len(seq) - 31):
            word = seq[i:i + 32]
            if set(word) <= set("ACGT") and periodic(word):
                tandem[canonical(word)] += 1
        for pos in range(len(seq) - 25):
            word = seq[pos:pos + 20]
            if not set(word) <= set("ACGT"):
                continue
            h20 = mix64(canonical(word) ^ SALT20)
            if shift and h20 >> (64 - shift):
                continue
            around = seq[pos - 6:pos + 26] if pos >= 6 else ""
            whole = len(around) == 32 and set(around) <= set("ACGT")
            h32 = mix64(canonical(around) ^ SALT32) if whole else 0
            flags = int(pack(word) <= pack(reverse_complement(word))) | (2 if whole and periodic(around) else 0)
            sites.append((h20, h32, pos, rec, flags))
    return sites, tandem
