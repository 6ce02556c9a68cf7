"""Shared by the engine tests: sequences as Records, and an engine result as a set of HSP rows."""
from gpu_kernels.backend import NumpyBackend
from gpu_kernels.encode import encode
from gpu_kernels.fasta import Record

from gpu_kernels.schema import HSP

COLUMNS = HSP.names


def records(seqs):
    """Strings as Records named r0, r1, ..."""
    return [Record(f"r{i}", encode(s.encode())) for i, s in enumerate(seqs)]


def hsp_set(result) -> set:
    """The HSP table of a Result as a set of row tuples."""
    return set(zip(*(result.hsps[c].tolist() for c in COLUMNS)))


class TiledNumpyBackend(NumpyBackend):
    """The NumPy backend taking the GPU's way through the seeds (tiles of sorted seed keys, the diagonal
    filter on the keys), so CI checks the tiled path and its tiling parameters without a GPU."""

    seeds_fused = False


TILED = TiledNumpyBackend()
