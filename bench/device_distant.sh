#!/usr/bin/env bash
# Device call for distant genomes (spaced seeds, the distant preset); logs go to $OUT, so that a run cut
# off still returns them:
#   bash bench/device_distant.sh   # the spaced seeds' GPU tests, then simulated heavy pairs of about 82,
#                                  # 77 and 73 % identity (SIZE bases each, default 5e5): align --preset
#                                  # distant on the CPU and on the GPU (ROUNDS runs, default 3), outputs
#                                  # compared byte for byte, both scored against the truth; LASTZ (defaults,
#                                  # carried in .whl/bin) on the same pairs beside, on the host's other cores
# BIG: sizes of further pairs of about 82 % identity whose LASTZ run starts first (default 2e6; none: '');
# BIG_LASTZ=0: those pairs without LASTZ (its 2 Mbp run takes about 10 min).
set -uo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then  # usage: the comment above
    echo "usage: $(sed -n '2,/^set /p' "$0" | sed '$d' | sed 's/^# \{0,1\}//')"; exit 0
fi
. bench/common/device_setup.sh
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
size=${SIZE:-5e5}; rounds=${ROUNDS:-3}
peak() { /usr/bin/time -f "$1: %e s wall, %U user s, %S sys s, %M KB peak" "${@:2}"; }
lastz_run() {  # LASTZ's defaults, its general format with cigarx (bench/score_alignments.py reads it)
    peak "lastz $1" lastz "$2_b.fa" "$2_a.fa" \
        --format=general:name1,start1,end1,name2,start2,end2,strand2,nmatch,nmismatch,cigarx > "$2.general" 2>> "$OUT/lastz.log"
}
pairs=(); big_jobs=(); small_jobs=()
for big in ${BIG-2e6}; do
    python3 bench/simulate.py --model heavy --length "$big" --rates 0.02 0.15 --truth --out "/tmp/big$big" --seed 8 > /dev/null
    pairs+=("/tmp/big$big")
    if [ "${BIG_LASTZ:-1}" = 1 ]; then
        lastz_run "big $big 0.15" "/tmp/big$big" &
        big_jobs+=($!)
    fi
done
for d in 0.15 0.20 0.25; do
    python3 bench/simulate.py --model heavy --length "$size" --rates 0.02 "$d" --truth --out "/tmp/d$d" --seed 7 > /dev/null
    lastz_run "$size $d" "/tmp/d$d" &
    small_jobs+=($!)
done
python3 -m pytest -q -m gpu tests/test_spaced.py 2>&1 | tee "$OUT/tests.log" | tail -4
for prefix in /tmp/d0.15 /tmp/d0.20 /tmp/d0.25 "${pairs[@]}"; do
    name=$(basename "$prefix")
    for backend in numpy cupy; do
        runs=1; [ "$backend" = cupy ] && runs=$rounds
        for r in $(seq "$runs"); do
            peak "$name $backend run $r" python3 -m gpu_kernels align "${prefix}_a.fa" "${prefix}_b.fa" --preset distant \
                --backend "$backend" -o "$prefix.$backend.paf" 2>&1 | tail -1
        done
    done
    cmp "$prefix.numpy.paf" "$prefix.cupy.paf" && echo "$name: CPU and GPU PAF identical"
    cp "$prefix.cupy.paf" "$OUT/$name.paf"
done 2>&1 | tee "$OUT/runs.log"
score() {
    for prefix in "$@"; do
        python3 bench/score_alignments.py --truth "${prefix}_truth.npz" "ours=$prefix.cupy.paf+" "lastz=$prefix.general" | tail -2
    done 2>&1 | tee -a "$OUT/scores.log"
}
wait "${small_jobs[@]}"
score /tmp/d0.15 /tmp/d0.20 /tmp/d0.25
[ ${#big_jobs[@]} -gt 0 ] && wait "${big_jobs[@]}"  # a big pair's LASTZ rows take minutes to score: SCORE_BIG=1
[ "${SCORE_BIG:-0}" = 1 ] && score "${pairs[@]}"
grep "^lastz" "$OUT/lastz.log"
