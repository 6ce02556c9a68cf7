#!/usr/bin/env bash
# Device calls for the engine, the HSP path and the workflow on GPU machines (one call a mode; logs
# go to $OUT so that a run cut off still returns them):
#   bash bench/device_hsp.sh engine     # GPU tests, the command line on the heavy 150 Mbp pair, stage tables
#   bash bench/device_hsp.sh final      # GPU tests; the HSP path: fresh kernel cache, ROUNDS warm runs, PAF; the
#                                       # workflow on 2 x 3 x 30 Mbp heavy genomes (issue 11's table)
#   bash bench/device_hsp.sh warm       # all GPU tests; warm runs in variants taken in turn, what a warm process pays
#                                       # for CuPy's kernels, a command line's timeline, the Parquet write's timeline
#   bash bench/device_hsp.sh exit       # GPU tests, warm runs with and without the early context, a command line's
#                                       # log against its start and end (TEARDOWN=1: what an exit costs)
#   bash bench/device_hsp.sh coldlist   # each kernel a fresh machine compiles, and its caller; the HSP path
#   bash bench/device_hsp.sh matches    # GPU tests with the CPU kernels' suite, mems/mums on the heavy pairs
#   bash bench/device_hsp.sh workflow   # the workflow on 2 x 3 x 30 Mbp heavy genomes, backend cupy
#   bash bench/device_hsp.sh multi      # bench/multi_gpu.sh 8 200 (on a machine of several GPUs), then the GPU tests
#   bash bench/device_hsp.sh genome     # the workflow on every GPU, 2 heavy genomes of 8 x 50 Mbp, its split by rule
#   bash bench/device_hsp.sh layout     # GPU tests; the CPU Parquet write beside OLD_ROOT's; compare --hsps on the
#                                       # heavy 150 Mbp pair, this checkout and OLD_ROOT's taken in turn
#   bash bench/device_hsp.sh chains     # GPU tests with the chain and format suites; compare on the heavy 150 Mbp
#                                       # pair with and without chains (FASTA -> HSP table + chains table + chain PAF);
#                                       # TESTS=0: no tests, TESTS=chains: the GPU chain tests, ROUNDS=N: rounds of the pair of runs (2),
#                                       # TIMELINE=1: a timeline of the command line with chains (bench/studies/process_timeline.py),
#                                       # OLD_ROOT=DIR: that checkout's pair of runs after this one's, each round
#   bash bench/device_hsp.sh align      # GPU alignment tests; align on the heavy 150 Mbp pair (FASTA -> alignment
#                                       # table + PAF with CIGAR), ROUNDS warm runs, minimap2 -x asm20 -c -t 16 beside
#                                       # it (.whl/bin/minimap2), both PAFs' query coverage (bench/paf_coverage.py);
#                                       # TESTS=all: every GPU suite; WORKFLOW=1: the workflow on 2 x 3 x 30 Mbp instead;
#                                       # SAME=1: numpy and cupy outputs of a heavy 20 Mbp pair compared instead (alignments, chains)
#   bash bench/device_hsp.sh probes     # GPU exact-match tests; seed 002's probe workload (bench/probes.py: 2,097,152
#                                       # probes of 1,024 against 10 Mbp), mems -l 1024 cupy (ROUNDS runs) and numpy, compared
#                                       # (OLD_ROOT=DIR: that checkout's cupy runs, then this one's again;
#                                       # TIMELINE=1: the command line's log against its start, its imports' times)
#   bash bench/device_hsp.sh gpumem     # GPU exact-match tests; seed 000's sizes (bench/gpumem_pair.py: 196 x 243 Mbp,
#                                       # mems -l 30, 50, 100, ROUNDS runs each, cupy), numpy == cupy on a 10 Mbp cut
#   bash bench/device_hsp.sh longreads  # GPU exact-match tests; seed 001's workload (bench/long_reads.py: 25,249 reads of
#                                       # about 7 kb against a 3.1 Gbp genome, mems -l 20, cupy), then its 1 % check with mummer
#                                       # (YOUNG=1: a genome of young repeat copies instead, 30 % of it: hundreds of millions of
#                                       # MEMs, the batches cut by their matches; CHECK=0: no mummer check)
#   bash bench/device_hsp.sh post       # that run up to its merge, then the coverage and plots rules timed apart
#                                       # (bench/post_compare.py; PROFILE=1: under py-spy, stacks in $OUT/profile;
#                                       # OLD_ROOT=DIR: another checkout timed in turn with this one)
set -uo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # usage: the comment above
    echo "usage: $(sed -n '2,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//')"; exit 0
fi
what=${1:-engine}
case "$what" in
    engine|final|warm|exit|coldlist|matches|workflow|multi|genome|post|layout|chains|align|probes|gpumem|longreads) ;;
    *) echo "device_hsp.sh: no mode $what (see the list at the top)" >&2; exit 2 ;;
esac
. bench/common/device_setup.sh
# fatbins are named by a digest of their source and options: an OLD_ROOT whose sources differ builds its own
if [ -n "${OLD_ROOT:-}" ]; then mkdir -p "$OLD_ROOT/gpu_kernels/cubins" && cp -n gpu_kernels/cubins/* "$OLD_ROOT/gpu_kernels/cubins/"; fi
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
nproc
if [ "$what" = chains ]; then
    [ "${TESTS:-1}" = 1 ] && python3 -m pytest -q -p no:cacheprovider tests/test_gpu*.py tests/test_chains.py \
        tests/test_formats.py tests/test_layout.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -15
    [ "${TESTS:-1}" = chains ] && python3 -m pytest -q -x -p no:cacheprovider tests/test_gpu*.py -k chain 2>&1 | \
        tee "$OUT/gpu_tests.log" | tail -15
    python3 bench/hsp_path.py --size 150 --workdir /tmp/hp --warm-runs 1 --no-paf 2>&1 | tee "$OUT/hsp_path.log" | tail -8
    if [ "${TIMELINE:-0}" = 1 ]; then  # where the chains' time goes: the command line's log against its start
        python3 bench/studies/process_timeline.py /tmp/hp/*_a.fa /tmp/hp/*_b.fa --runs 2 --chains 2>&1 | tee "$OUT/timeline_chains.log" | tail -45
    fi
    for round in $(seq "${ROUNDS:-2}"); do
        for tree in . ${OLD_ROOT:-}; do  # OLD_ROOT: that checkout's pair of runs after this one's, in turn
            for chains in no yes; do
                extra=""
                [ "$chains" = yes ] && extra="--chains-table /tmp/hp/c.parquet --chains /tmp/hp/c.paf"
                label=$chains; [ "$tree" != . ] && label="$chains (OLD_ROOT)"
                (cd "$tree" && python3 - "$label" "$OUT" $extra <<'PY') | tee -a "$OUT/chains.log"
import glob, sys
sys.path.insert(0, "bench")
from common.measure import run
label, out, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
a, b = sorted(glob.glob("/tmp/hp/*_a.fa"))[0], sorted(glob.glob("/tmp/hp/*_b.fa"))[0]
r = run([sys.executable, "-m", "gpu_kernels", "compare", a, b, "--backend", "cupy", "--hsps", "/tmp/hp/x.parquet",
         *extra, "-v"], err=f"{out}/compare_{label.split()[0]}{'_old' if 'OLD' in label else ''}.log")
print(f"chains {label}: {r['wall']:.2f} s wall, {r['cpu']:.1f} CPU s, {r['peak_mb']:.0f} MB peak, rc {r['rc']}")
PY
            done
        done
    done
fi
if [ "$what" = probes ]; then
    [ "${TESTS:-1}" = 1 ] && python3 -m pytest -q -p no:cacheprovider tests/test_gpu*.py -k \
        "whole or exact_matches or tiles or encod or large_host or command_line_same" 2>&1 | \
        tee "$OUT/gpu_tests.log" | tail -5
    mkdir -p /tmp/pr && python3 bench/probes.py --out /tmp/pr/probes | tee -a "$OUT/probes.log"
    python3 bench/studies/probes_profile.py /tmp/pr/probes_probes.fa /tmp/pr/probes_reference.fa --backends cupy numpy \
        2>&1 | tee "$OUT/probes_profile.log"
    if [ "${TIMELINE:-0}" = 1 ]; then  # the command line's log against its start; what its imports cost
        python3 bench/studies/process_timeline.py /tmp/pr/probes_probes.fa /tmp/pr/probes_reference.fa --mems 1024 \
            --runs 2 2>&1 | tee "$OUT/probes_timeline.log"
        python3 -X importtime -m gpu_kernels mems /tmp/pr/probes_probes.fa /tmp/pr/probes_reference.fa -l 1024 \
            --backend cupy -o /tmp/pr/it.txt 2>&1 | sort -t'|' -k2 -n | tail -25 > "$OUT/probes_importtime.log"
    fi
    python3 bench/probes.py --out /tmp/pr/probes --run --backend cupy --runs "${ROUNDS:-3}" 2>&1 | tee -a "$OUT/probes.log"
    cp /tmp/pr/probes_mems.cupy.log "$OUT/"
    if [ -n "${OLD_ROOT:-}" ]; then  # the other checkout's command line, then this one's again, in turn
        (cd "$OLD_ROOT" && echo "OLD_ROOT:" && PYTHONPATH=/tmp/site:$OLD_ROOT python3 bench/probes.py --out /tmp/pr/probes --run \
            --backend cupy --runs "${ROUNDS:-3}") 2>&1 | tee -a "$OUT/probes.log"
        echo "this checkout, again:" | tee -a "$OUT/probes.log"
        python3 bench/probes.py --out /tmp/pr/probes --run --backend cupy --runs "${ROUNDS:-3}" 2>&1 | tee -a "$OUT/probes.log"
    fi
    python3 bench/probes.py --out /tmp/pr/probes --run --backend numpy 2>&1 | tee -a "$OUT/probes.log"
    cp /tmp/pr/probes_mems.numpy.log "$OUT/"
    cmp /tmp/pr/probes_mems.numpy.txt /tmp/pr/probes_mems.cupy.txt && echo "numpy and cupy outputs identical" | tee -a "$OUT/probes.log"
    md5sum /tmp/pr/probes_mems.cupy.txt /tmp/pr/probes_probes.fa /tmp/pr/probes_reference.fa | tee -a "$OUT/probes.log"
fi
if [ "$what" = gpumem ]; then
    [ "${TESTS:-1}" = 1 ] && python3 -m pytest -q -p no:cacheprovider tests/test_gpu*.py -k "whole or exact_matches or tiles" 2>&1 | \
        tee "$OUT/gpu_tests.log" | tail -5
    mkdir -p /tmp/gm && /usr/bin/time -f "pair made: %e s" python3 bench/gpumem_pair.py --out /tmp/gm/pair 2>&1 | tee -a "$OUT/gpumem.log"
    python3 bench/gpumem_pair.py --out /tmp/gm/pair --run --backend cupy --lengths ${LENGTHS:-30 50 100} \
        --runs "${ROUNDS:-2}" ${STEPS:+--steps} 2>&1 | tee -a "$OUT/gpumem.log"
    cp /tmp/gm/pair_l*.cupy.txt.log "$OUT/" 2>/dev/null
    [ "${CUT:-1}" = 1 ] && python3 bench/gpumem_pair.py --out /tmp/gm/pair --cut 10e6 2>&1 | tee -a "$OUT/gpumem.log"
    [ "${NRUNS:-1}" = 1 ] && python3 bench/n_runs.py --backend cupy 2>&1 | tee -a "$OUT/gpumem.log"
fi
if [ "$what" = longreads ]; then
    [ "${TESTS:-1}" = 1 ] && python3 -m pytest -q -p no:cacheprovider tests/test_gpu*.py -k "whole or exact_matches or tiles" 2>&1 | \
        tee "$OUT/gpu_tests.log" | tail -5
    lr=/tmp/lr/lr; made=()
    [ "${YOUNG:-0}" = 1 ] && lr=/tmp/lry/lr && made=(--young-repeats --repeat-fraction 0.30)
    mkdir -p "$(dirname $lr)" && /usr/bin/time -f "made in %e s" python3 bench/long_reads.py --out $lr "${made[@]}" 2>&1 | tee -a "$OUT/longreads.log"
    python3 bench/long_reads.py --out $lr --run --backend cupy 2>&1 | tee -a "$OUT/longreads.log"
    cp ${lr}_mems.cupy.txt.log "$OUT/$(basename $(dirname $lr))_mems.log" 2>/dev/null
    ls -l ${lr}_mems.cupy.txt | tee -a "$OUT/longreads.log"; df -h /tmp | tail -1 | tee -a "$OUT/longreads.log"
    [ "${CHECK:-1}" = 1 ] && python3 bench/long_reads.py --out $lr --check --backend cupy 2>&1 | tee -a "$OUT/longreads.log"
    cp ${lr}_sample_genome.txt.log "$OUT/$(basename $(dirname $lr))_sample.log" 2>/dev/null
    rm -f ${lr}_mems.cupy.txt
fi
if [ "$what" = align ]; then
    [ "${TESTS:-1}" = 1 ] && python3 -m pytest -q -x -p no:cacheprovider tests/test_gpu*.py -k "align" tests/test_align.py 2>&1 | \
        tee "$OUT/gpu_tests.log" | tail -15
    [ "${TESTS:-1}" = all ] && python3 -m pytest -q -p no:cacheprovider tests/test_gpu*.py tests/test_align.py \
        tests/test_chains.py tests/test_formats.py tests/test_layout.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -15
    if [ "${SAME:-0}" = 1 ]; then  # CPU == GPU on a heavy 20 Mbp pair: every alignment output byte for byte
        mkdir -p /tmp/same && python3 bench/simulate.py --model heavy --length 20e6 --out /tmp/same/h20 > /dev/null
        for backend in numpy cupy; do
            /usr/bin/time -f "align --backend $backend: %e s wall, %M KB peak" python3 -m gpu_kernels align /tmp/same/h20_a.fa \
                /tmp/same/h20_b.fa --backend $backend --secondary -o /tmp/same/$backend.paf --delta /tmp/same/$backend.delta \
                --snps /tmp/same/$backend.snps --sam /tmp/same/$backend.sam --chains /tmp/same/$backend.chains.paf \
                --chain-file /tmp/same/$backend.chain --vcf /tmp/same/$backend.vcf 2>&1 | tail -2 | tee -a "$OUT/same.log"
        done
        for kind in paf delta snps chains.paf chain; do
            cmp /tmp/same/numpy.$kind /tmp/same/cupy.$kind && echo "$kind: numpy and cupy identical, $(wc -l < /tmp/same/cupy.$kind) lines" | tee -a "$OUT/same.log"
        done
        # the VCF's and the SAM's headers name the command line (its --backend): their records compared
        cmp <(grep -v '^##' /tmp/same/numpy.vcf) <(grep -v '^##' /tmp/same/cupy.vcf) && \
            echo "vcf records: numpy and cupy identical, $(grep -vc '^#' /tmp/same/cupy.vcf) records" | tee -a "$OUT/same.log"
        cmp <(grep -v '^@PG' /tmp/same/numpy.sam) <(grep -v '^@PG' /tmp/same/cupy.sam) && \
            echo "sam but @PG: numpy and cupy identical, $(grep -vc '^@' /tmp/same/cupy.sam) records" | tee -a "$OUT/same.log"
        exit 0
    fi
    if [ "${WORKFLOW:-0}" = 1 ]; then  # the workflow's default outputs (alignments included) on 2 x 3 x 30 Mbp
        python3 bench/workflow_heavy.py --chromosomes 3 --size 30 --backend cupy --cores 16 -- --resources gpu=1 2>&1 | \
            tee "$OUT/workflow.log" | tail -25
        exit 0
    fi
    python3 bench/hsp_path.py --size 150 --workdir /tmp/hp --warm-runs 1 --no-paf 2>&1 | tee "$OUT/hsp_path.log" | tail -4
    a=$(ls /tmp/hp/*150*_a.fa | head -1); b=$(ls /tmp/hp/*150*_b.fa | head -1)
    for round in $(seq "${ROUNDS:-2}"); do
        python3 - "$OUT" "$a" "$b" "$round" <<'PY' | tee -a "$OUT/align.log"
import sys
sys.path.insert(0, "bench")
from common.measure import run
out, a, b, n = sys.argv[1:]
r = run([sys.executable, "-m", "gpu_kernels", "align", a, b, "--backend", "cupy", "--table", "/tmp/hp/al.parquet",
         "-o", "/tmp/hp/al.paf", "-v"], err=f"{out}/align_{n}.log")
print(f"align round {n}: {r['wall']:.2f} s wall, {r['cpu']:.1f} CPU s, {r['peak_mb']:.0f} MB peak, rc {r['rc']}")
PY
        tail -3 "$OUT/align_$round.log"
    done
    if [ "${PEER:-1}" = 1 ] && command -v minimap2 >/dev/null; then
        /usr/bin/time -f "minimap2 -x asm20 -c -t 16: %e s wall, %U user s, %M KB peak" minimap2 -x asm20 -c -t 16 "$b" "$a" \
            > /tmp/hp/mm2.paf 2> "$OUT/minimap2.log"; tail -1 "$OUT/minimap2.log" | tee -a "$OUT/align.log"
        python3 bench/paf_coverage.py "$a" ours=/tmp/hp/al.paf ours_backbone=/tmp/hp/al.paf+ minimap2=/tmp/hp/mm2.paf \
            2>&1 | tee -a "$OUT/align.log"
    fi
fi
if [ "$what" = layout ]; then
    python3 -m pytest -q -p no:cacheprovider tests/test_gpu*.py tests/test_formats.py tests/test_layout.py \
        tests/test_hsps.py tests/test_coverage.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -15
    python3 bench/parquet_write.py --rows 6e6 --rounds 3 ${OLD_ROOT:+--root "$OLD_ROOT"} 2>&1 | tee "$OUT/parquet_write.log"
    python3 bench/hsp_path.py --size 150 --workdir /tmp/hp --warm-runs 1 --no-paf 2>&1 | tee "$OUT/hsp_path.log" | tail -12
    for round in 1 2 3; do
        for root in . ${OLD_ROOT:-}; do
            t0=$(date +%s.%N)
            (cd "$root" && python3 -m gpu_kernels compare /tmp/hp/*_a.fa /tmp/hp/*_b.fa --backend cupy --hsps /tmp/hp/x.parquet \
                2>>"$OUT/compare.log")
            echo "round $round $root: $(awk "BEGIN {print $(date +%s.%N) - $t0}") s wall" | tee -a "$OUT/compare_side_by_side.log"
        done
    done
fi
if [ "$what" = engine ]; then
    python3 -m pytest -q -x -p no:cacheprovider tests/test_gpu*.py tests/test_formats.py tests/test_layout.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -5
    python3 bench/hsp_path.py --size 150 --workdir /tmp/hp 2>&1 | tee "$OUT/hsp_path.log"
    python3 bench/gpu_pair.py --sizes 5 50 --heavy 150 --runs 2 --workdir /tmp/hp 2>&1 | tee "$OUT/gpu_pair.log" | tail -45
fi
if [ "$what" = final ]; then  # GPU tests, the HSP path, the workflow on 2 x 3 x 30 Mbp
    python3 -m pytest -q -x -p no:cacheprovider tests/test_gpu*.py tests/test_layout.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -30
    python3 bench/hsp_path.py --size 150 --workdir /tmp/hp --warm-runs ${ROUNDS:-5} 2>&1 | tee "$OUT/hsp_path.log"
    python3 bench/workflow_heavy.py --chromosomes 3 --size 30 --backend cupy --cores 16 -- --resources gpu=1 2>&1 | tee "$OUT/workflow.log"
fi
if [ "$what" = warm ]; then  # where a warm command line's last seconds go, and variants of it side by side
    python3 -m pytest -q -p no:cacheprovider tests/test_gpu*.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -15
    python3 bench/hsp_path.py --size 150 --workdir /tmp/hp --warm-runs ${ROUNDS:-3} --no-paf --variants "default=" \
        "no-rehearsal=GPU_KERNELS_REHEARSE=0" "no-prepin=GPU_KERNELS_PREPIN=0" 2>&1 | tee "$OUT/hsp_path.log"
    export CUPY_CACHE_DIR=/tmp/cupy-cache-hits
    python3 bench/cache_hits.py /tmp/hp/heavy_150_a.fa /tmp/hp/heavy_150_b.fa --runs 2 2>&1 | tee "$OUT/cache_hits.log"
    unset CUPY_CACHE_DIR
    python3 bench/process_timeline.py /tmp/hp/heavy_150_a.fa /tmp/hp/heavy_150_b.fa --runs 2 2>&1 | tee "$OUT/timeline.log"
    python3 bench/hsp_profile.py /tmp/hp/heavy_150_a.fa /tmp/hp/heavy_150_b.fa --write-variants 2>&1 | tee "$OUT/write.log"
fi
if [ "$what" = exit ]; then  # a warm command line against its start and end, what an exit costs, variants of the end
    python3 -m pytest -q -p no:cacheprovider tests/test_gpu*.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -15
    python3 bench/hsp_path.py --size 150 --workdir /tmp/hp --warm-runs ${ROUNDS:-5} --no-paf --variants "default=" \
        "no-early-context=GPU_KERNELS_EARLY_CONTEXT=0" 2>&1 | tee "$OUT/hsp_path.log"
    python3 bench/process_timeline.py /tmp/hp/heavy_150_a.fa /tmp/hp/heavy_150_b.fa --runs 3 2>&1 | tee "$OUT/timeline.log"
    [ -n "${TEARDOWN:-}" ] && python3 bench/process_timeline.py --teardown --runs 2 2>&1 | tee -a "$OUT/timeline.log"
fi
if [ "$what" = coldlist ]; then  # each kernel compiled on a fresh machine, with its caller; then the HSP path
    mkdir -p /tmp/hp; python3 bench/simulate.py --model heavy --length 150e6 --seed 11 --out /tmp/hp/heavy_150
    echo "PYTHONDONTWRITEBYTECODE=${PYTHONDONTWRITEBYTECODE:-unset}"
    python3 bench/kernel_compile.py --skip-bundled --pairs /tmp/hp/heavy_150_a.fa /tmp/hp/heavy_150_b.fa 2>&1 | tee "$OUT/compile.log"
    python3 bench/hsp_path.py --size 150 --workdir /tmp/hp 2>&1 | tee "$OUT/hsp_path.log"
fi
if [ "$what" = matches ]; then
    python3 -m pytest -q -x -p no:cacheprovider tests/test_gpu*.py ${MATCH_TESTS:-tests/test_cpu.py tests/test_formats.py \
        tests/test_layout.py} 2>&1 | tee "$OUT/gpu_tests.log" | tail -5
    python3 - <<'PY'
import os, sys
sys.path.insert(0, "bench")
from simulate import heavy_pair, write_fasta
os.makedirs("/tmp/hp", exist_ok=True)
for size in (5, 150):
    first, second, fm, sm = heavy_pair(size * 1_000_000, 1, seed=11)
    write_fasta(f"/tmp/hp/heavy_{size}_a.fa", ["chr1"], first, fm)
    write_fasta(f"/tmp/hp/heavy_{size}_b.fa", ["chr1"], second, sm)
PY
    for mode in mems mums; do
        for backend in numpy cupy; do  # the same output on the 5 Mbp pair
            python3 -m gpu_kernels $mode /tmp/hp/heavy_5_a.fa /tmp/hp/heavy_5_b.fa -l 20 --backend $backend > /tmp/hp/$mode.$backend
        done
        cmp /tmp/hp/$mode.numpy /tmp/hp/$mode.cupy && echo "$mode -l 20, 5 Mbp: numpy and cupy identical, $(wc -l < /tmp/hp/$mode.cupy) lines" | tee -a "$OUT/matches.log"
        for run in 1 2; do  # the first compiles the kernels
            /usr/bin/time -f "$mode -l 50 150 Mbp cupy: %e s wall, %M KB peak" timeout ${MATCH_TIMEOUT:-90} python3 -m gpu_kernels \
                $mode /tmp/hp/heavy_150_a.fa /tmp/hp/heavy_150_b.fa -l 50 --backend cupy -v > /tmp/hp/$mode.150 2>> "$OUT/matches.log"
            tail -1 "$OUT/matches.log"; wc -l < /tmp/hp/$mode.150 | tee -a "$OUT/matches.log"
        done
    done
fi
if [ "$what" = workflow ]; then
    python3 bench/workflow_heavy.py --chromosomes 3 --size 30 --backend cupy --cores 16 -- --resources gpu=1 2>&1 | tee "$OUT/workflow.log"
fi
if [ "$what" = multi ]; then  # the multi-GPU benchmark: 2 genomes of 8 x 25 Mbp, one GPU, all GPUs, one bin pair a job
    bash bench/multi_gpu.sh 8 200 2>&1 | tee "$OUT/multi.log"
    python3 -m pytest -q -p no:cacheprovider tests/test_gpu*.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -30
fi
if [ "$what" = genome ]; then  # a whole-genome run on every GPU: 2 heavy genomes of 8 x 50 Mbp, all-vs-all, default outputs
    # 2.7 G HSPs: their PAF and GECKO CSV (over 200 GB of text) fit on no lent machine's disk, so the
    # run makes every default output but those two
    python3 bench/workflow_heavy.py --chromosomes 8 --size 50 --backend cupy --cores "$(nproc)" --workdir /tmp/genome -- \
        --workflow-profile profiles/multi-gpu --resources gpu="$(nvidia-smi -L | wc -l)" \
        --config 'outputs={paf: False, gecko_csv: False}' 2>&1 | grep -v ' INFO ' | tee "$OUT/genome.log"
    grep -h 'HSPs from' /tmp/genome/results/logs/merge/*/*/*.log; du -sh /tmp/genome/results/*/*_vs_*/*
    python3 -m pytest -q -p no:cacheprovider tests/test_gpu*.py 2>&1 | tee "$OUT/gpu_tests.log" | tail -30
fi
if [ "$what" = post ]; then  # where a whole-genome run's seconds go after its compare jobs
    python3 bench/workflow_heavy.py --chromosomes 8 --size 50 --backend cupy --cores "$(nproc)" --workdir /tmp/genome -- \
        --workflow-profile profiles/multi-gpu --resources gpu="$(nvidia-smi -L | wc -l)" --until merge \
        --config 'outputs={paf: False, gecko_csv: False}' 2>&1 | grep -v ' INFO ' | tee "$OUT/genome.log"
    # OLD_ROOT: another checkout, taken in turn with this one (the first round compiles each one's CuPy kernels)
    for round in 1 2; do
        for root in ${OLD_ROOT:-} .; do
            python3 bench/post_compare.py /tmp/genome/results/default/A_vs_B --backend cupy --threads 8 --root "$root" \
                ${PROFILE:+--profile "$OUT/profile/$round-$(basename "$(realpath "$root")")"} 2>&1 | tee -a "$OUT/post.log"
            md5sum /tmp/genome/results/default/A_vs_B.post_compare/{*.tsv,*.png,pair_dotplots/*} > "$OUT/md5-$round-$(basename "$(realpath "$root")").txt"
        done
    done
fi
