"""Where `mems -l 1024` spends its time on seed 002's probe set (bench/probes.py), stage by stage, in
one process (warm rounds after the first), on the chosen backends.

    python bench/studies/probes_profile.py /tmp/pr/probes_probes.fa /tmp/pr/probes_reference.fa --backends numpy cupy
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

import numpy as np  # noqa: E402

from gpu_kernels import fasta, matches  # noqa: E402
from gpu_kernels.backend import get_backend  # noqa: E402
from gpu_kernels.formats import mummer_parts, write_parts  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("probes")
    parser.add_argument("reference")
    parser.add_argument("--length", type=int, default=1024)
    parser.add_argument("--backends", nargs="+", default=["numpy"])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    for name in args.backends:
        backend = get_backend(name)
        for round_ in range(args.rounds):
            times = {}
            mark = time.perf_counter()

            def lap(stage):
                nonlocal mark
                backend.synchronize()
                now = time.perf_counter()
                times[stage] = now - mark
                mark = now

            data = fasta.read_bytes(args.probes)
            lap("read")
            spans = fasta.fast_layout(data, args.probes)
            lap("layout")
            query = fasta.encode_fasta(data, spans, args.probes, True)
            del data
            lap("encode")
            reference = fasta.load_fasta(args.reference)
            lap("reference")
            query = matches.skip_unmatchable(query, args.length)
            whole = matches.whole_records(query, args.length)
            lap("skip, whole")
            rcodes = backend.to_device(reference.codes)
            index = backend.whole_index(rcodes, args.length)
            lap("index")
            qcodes = backend.to_device(query.codes)
            lap("query to device")
            starts = np.asarray(query.starts)[whole]
            hits = 0
            for strand in (0, 1):
                rec, rs = backend.whole_record_matches(qcodes, starts, rcodes, index, args.length, strand)
                hits += int(backend.to_host(rs).size)
            lap("lookups")
            found = matches.find_matches(query, reference, args.length, False, backend)
            lap("find_matches (all)")
            write_parts("/tmp/probes_profile.txt", mummer_parts(found, query.names, query.lengths, reference.names))
            lap("text")
            print(f"{name} round {round_ + 1}: {hits:,} hits; " + ", ".join(f"{k} {v:.2f} s" for k, v in times.items()),
                  flush=True)
            del qcodes, rcodes, index


if __name__ == "__main__":
    main()
