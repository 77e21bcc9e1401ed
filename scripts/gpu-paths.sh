#!/usr/bin/env bash
# `--paths` against distance-only compute (issue 23 item 1), every variant in one process
# sequence: scripts/gpu-paths.sh [V] [REPS]  (defaults 30000 3), from the repository root on the
# GPU machine, bundle in BUNDLE (default .device/bundle). Per repetition: host apsp distance-only,
# then --paths for each kind with RGK_PATHS_PREFETCH=0 and =1 (the own block prefetched to L2);
# JSON of every run, the SM clock (nvidia-smi every 200 ms) and the summary go into
# $OUT/paths.tar.gz (one file: the device tool returns few), the summary to stdout as well.
set -uo pipefail
B=${BUNDLE:-.device/bundle}
HOST=$B/host
v=${1:-30000}
reps=${2:-3}
out=${OUT:-gpu-out}
work=$(mktemp -d)
tmp=${APSP_TMP:-/tmp/apsp}
mkdir -p "$out" "$tmp" "$work/json"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv > "$work/gpu.csv"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$work/clock.csv" &
smi=$!
"$HOST" apsp-gen "$v" $((v * 40)) --seed 1 -o "$tmp/g$v.in" > /dev/null
for r in $(seq 1 "$reps"); do
    "$HOST" apsp "$tmp/g$v.in" -o "$tmp/g$v.out" --block 64 --no-peak --json > "$work/json/r${r}_none.json"
    for pf in 0 1; do
        for kind in successors predecessors; do
            RGK_PATHS_PREFETCH=$pf "$HOST" apsp "$tmp/g$v.in" -o "$tmp/g$v.out" --paths "$tmp/g$v.paths" \
                --path-kind "$kind" --json > "$work/json/r${r}_${kind}_pf$pf.json"
        done
    done
    "$HOST" path "$tmp/g$v.paths" 0 $((v - 1)) --distances "$tmp/g$v.out" > "$work/path_r$r.txt" 2>&1
done
kill "$smi"
python3 - "$work" "$reps" > "$work/summary.txt" <<'PY'
import json, statistics, sys
d, reps = sys.argv[1], int(sys.argv[2])
def compute(name):
    r = json.load(open(f"{d}/json/{name}.json"))["results"]
    return r["split"]["compute_s"] if "split" in r else r["compute_s"]
base = [compute(f"r{r}_none") for r in range(1, reps + 1)]
print(f"distance-only compute: {' '.join(f'{x:.4f}' for x in base)} s (median {statistics.median(base):.4f})")
for pf in (0, 1):
    for kind in ("successors", "predecessors"):
        t = [compute(f"r{r}_{kind}_pf{pf}") for r in range(1, reps + 1)]
        ratios = [x / b for x, b in zip(t, base)]
        print(f"{kind} prefetch={pf}: compute {' '.join(f'{x:.4f}' for x in t)} s, ratio to the same "
              f"repetition's distance-only {' '.join(f'{x:.3f}' for x in ratios)} (median {statistics.median(ratios):.3f})")
clocks = [l.split(",")[1].strip() for l in open(f"{d}/clock.csv").readlines()[1:] if l.count(",") >= 4]
print("SM clock samples:", {c: clocks.count(c) for c in sorted(set(clocks))})
PY
cat "$work/summary.txt" "$work/path_r1.txt"
tar czf "$out/paths.tar.gz" -C "$work" .
rm -rf "$work" "$tmp/g$v.in" "$tmp/g$v.out" "$tmp/g$v.paths"
