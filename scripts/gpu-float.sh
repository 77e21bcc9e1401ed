#!/usr/bin/env bash
# Issue 24's float min-plus kernels against their own ceilings: scripts/gpu-float.sh [V [ROUNDS
# [REPS]]] (defaults 30000 48 3), from the repository root on the GPU machine, bundle in BUNDLE
# (default .device/bundle). In order:
#   1. the float GPU tests (every tile shape of `for_each_fw_float!` equal to the CPU reference);
#   2. per weight type, every tile shape timed on the first ROUNDS rounds at V (REPS timed reps
#      after an untimed pass, variants interleaved) against the ceiling in the same process;
#   3. full solves at V (all rounds, REPS reps) of the default and of the sweep's fastest.
# The SM clock before and after each step goes to $OUT/float_clock.csv, every JSON and the
# summary (also printed) into $OUT/float.tar.gz (one file: the device tool returns few).
# FULL_TIMEOUT_F32 / FULL_TIMEOUT_F64 (seconds, default 40 / 90) bound the full solves.
# VARIANTS_F32 / VARIANTS_F64 (default `all`) name the tile shapes swept (comma-separated, the
# default first); FULL_TOP (default 1) is how many of the sweep's fastest get a full solve
# beside the default; TESTS=0 skips step 1.
set -uo pipefail
B=${BUNDLE:-.device/bundle}
HOST=$B/host
v=${1:-30000}
rounds=${2:-48}
reps=${3:-3}
out=${OUT:-gpu-out}
work=$(mktemp -d)
mkdir -p "$out"
clock() { nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | sed "s/^/$1,/" >> "$out/float_clock.csv"; }
show() { # JSON: one line per variant
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d.get("results", d):
    c = r["ceiling"]
    print(f'{r["weight"]} ceiling {c["updates_per_s"]:.4e}/s ({c["per_sm_per_clock"]:.2f}/SM/clk)')
    for t in r["variants"]:
        runs = [round(x, 4) for x in t["runs_s"]]
        print(f'  {t["variant"]:<26} {t["rounds_timed"]} rounds median {t["median_s"]:.4f} s {runs} {t["percent_of_ceiling"]:.1f}%')
PY
}
best() { # JSON: the names of the FULL_TOP fastest variants, comma-separated
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d.get("results",d)
v=sorted(r[0]["variants"], key=lambda t: t["median_s"])[:int(sys.argv[2])]
print(",".join(t["variant"] for t in v))' "$1" "${FULL_TOP:-1}"
}
{
    echo "commit $(cat "$B/COMMIT" 2>/dev/null)"; date -u
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader
    clock start
    if [ "${TESTS:-1}" != 0 ]; then
        REQUIRE_GPU=1 timeout 60 "$B/tests/gpu_apsp_float" --test-threads=1 2>&1 | grep -E "^test |test result|panicked|SKIPPED"
    fi
    for w in f32 f64; do
        t0=$SECONDS
        if [ $w = f32 ]; then sel=${VARIANTS_F32:-all}; else sel=${VARIANTS_F64:-all}; fi
        timeout 90 "$HOST" apsp-float "$v" --weight $w --variants "$sel" --rounds "$rounds" --reps "$reps" --json \
            > "$work/sweep_$w.json" 2> "$work/sweep_$w.err"
        echo "$w sweep rc=$? $((SECONDS - t0)) s"; show "$work/sweep_$w.json"; clock "sweep_$w"
    done
    for w in f32 f64; do
        k=$(best "$work/sweep_$w.json")
        if [ $w = f32 ]; then lim=${FULL_TIMEOUT_F32:-40}; else lim=${FULL_TIMEOUT_F64:-90}; fi
        t0=$SECONDS
        timeout "$lim" "$HOST" apsp-float "$v" --weight $w --variants "default,$k" --reps "$reps" --json \
            > "$work/full_$w.json" 2> "$work/full_$w.err"
        echo "$w full (default,$k) rc=$? $((SECONDS - t0)) s"; show "$work/full_$w.json"; clock "full_$w"
    done
} 2>&1 | tee "$work/summary.txt"
tar czf "$out/float.tar.gz" -C "$work" .
