"""The sketch's oracle: a genome's sites and periodic 32-mers, one base at a time (plain Python), as
gpu_kernels/workflow/sketch.py defines them."""
from __future__ import annotations

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


def period(word: str) -> int:
    """The smallest p <= 8 such that the word is a unit of p bases repeated (the last copy cut short or
    not), 0 where there is none."""
    return next((p for p in range(1, 9) if word[p:] == word[:-p]), 0)


def family(word: str, p: int) -> int:
    """A periodic word's family: its period, and the least rotation of its unit read on either strand."""
    unit, back = word[:p], reverse_complement(word[:p])
    return (p << 16) | min(pack(u[r:] + u[:r]) for u in (unit, back) for r in range(p))


def oracle_sketch(records: list[str], shift: int) -> tuple[list[tuple], list[tuple]]:
    """(sites as (h20, h32, pos, rec, flags), runs as (family, bases)) of the records' bases (any case;
    anything but ACGT breaks a word). A site is a 20-mer at pos whose hash is below 2^(64 - shift), with
    the 32-mer from pos - 6 (h32 0 where that is not 32 bases of ACGT); the last 6 20-mers of a record,
    whose 32-mer would end past it, are no sites. A run is the periodic 32-mers of one family, each at
    most 40 bases after the one before, in file order."""
    sites, runs = [], []
    for rec, text in enumerate(records):
        seq = text.upper()
        run = None  # [family, first start, last start]
        for i in range(len(seq) - 31):
            word = seq[i:i + 32]
            p = period(word) if set(word) <= set("ACGT") else 0
            if not p:
                continue
            kind = family(word, p)
            if run and run[0] == kind and i - run[2] <= 40:
                run[2] = i
                continue
            if run:
                runs.append((run[0], run[2] - run[1] + 32))
            run = [kind, i, i]
        if run:
            runs.append((run[0], run[2] - run[1] + 32))
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
            flags = int(pack(word) <= pack(reverse_complement(word))) | (2 if whole and period(around) else 0)
            sites.append((h20, h32, pos, rec, flags))
    return sites, runs
