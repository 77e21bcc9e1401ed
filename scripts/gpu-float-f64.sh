#!/usr/bin/env bash
# Issue 24's float64 min-plus kernels against their own ceiling (session 10):
# scripts/gpu-float-f64.sh [V [ROUNDS [REPS]]] (defaults 30000 32 3), from the repository root on
# the GPU machine, bundle in BUNDLE (default .device/bundle). As scripts/gpu-float.sh, f64 only:
#   1. the float GPU tests (every tile shape of `for_each_fw_float!` equal to the CPU reference;
#      TESTS=0 skips them);
#   2. the f64 tile shapes VARIANTS_F64 (comma-separated, the default first; default `all`)
#      timed on the first ROUNDS rounds at V (REPS timed reps after an untimed pass, variants
#      interleaved) against `apsp_addmin_peak_f64` in the same process;
#   3. full solves at V (all rounds, REPS reps, interleaved) of the default and of the sweep's
#      FULL_TOP (default 2) fastest (of those named in FULL_FROM, if set), or of FULL_F64
#      (comma-separated) if set, again against the ceiling in the same process; ROUNDS=0
#      skips the sweep (then FULL_F64, default `default`). With SUSTAINED other than 0 (the
#      default) also against the ceiling timed under the solves' load (`--sustained-ceiling`).
# The SM clock before and after each step goes to $OUT/f64_clock.csv; the JSON, stderr and the
# summary (also printed) into $OUT/f64.tar.gz. FULL_TIMEOUT (seconds, default 100) bounds step 3.
set -uo pipefail
B=${BUNDLE:-.device/bundle}
HOST=$B/host
v=${1:-30000}
rounds=${2:-32}
reps=${3:-3}
out=${OUT:-gpu-out}
work=$(mktemp -d)
mkdir -p "$out"
# Full solves also time the ceiling kernel under their load (`--sustained-ceiling`); SUSTAINED=0 skips it.
sustained=$([ "${SUSTAINED:-1}" != 0 ] && echo --sustained-ceiling)
clock() { nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | sed "s/^/$1,/" >> "$out/f64_clock.csv"; }
show() { # JSON: one line per variant
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d.get("results", d):
    c = r["ceiling"]
    print(f'{r["weight"]} ceiling {c["updates_per_s"]:.4e}/s ({c["per_sm_per_clock"]:.2f}/SM/clk)')
    s = r.get("sustained_ceiling")
    if s:
        print(f'{r["weight"]} sustained ceiling {s["updates_per_s"]:.4e}/s (median {s["median_s"]:.4f} s of {[round(x, 4) for x in s["runs_s"]]})')
    for t in r["variants"]:
        runs = [round(x, 4) for x in t["runs_s"]]
        print(f'  {t["variant"]:<30} {t["rounds_timed"]} rounds median {t["median_s"]:.4f} s {runs} {t["percent_of_ceiling"]:.2f}%')
        if t.get("percent_of_sustained_ceiling") is not None:
            print(f'  {"":<26} {t["percent_of_sustained_ceiling"]:.2f}% of the sustained ceiling')
PY
}
best() { # JSON: the names of the FULL_TOP fastest variants other than the default (of those in
    # FULL_FROM, comma-separated, if set), comma-separated
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d.get("results",d)
ok=[x for x in sys.argv[3].split(",") if x]
v=[t for t in r[0]["variants"][1:] if not ok or t["variant"] in ok]
v=sorted(v, key=lambda t: t["median_s"])[:int(sys.argv[2])]
print(",".join(t["variant"] for t in v))' "$1" "${FULL_TOP:-2}" "${FULL_FROM:-}"
}
{
    echo "commit $(cat "$B/COMMIT" 2>/dev/null)"; date -u
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader
    clock start
    if [ "${TESTS:-1}" != 0 ]; then
        REQUIRE_GPU=1 timeout 60 "$B/tests/gpu_apsp_float" --test-threads=1 2>&1 | grep -E "^test |test result|panicked|SKIPPED"
    fi
    full=${FULL_F64:-}
    if [ "$rounds" != 0 ]; then
        t0=$SECONDS
        timeout 90 "$HOST" apsp-float "$v" --weight f64 --variants "${VARIANTS_F64:-all}" --rounds "$rounds" --reps "$reps" --json \
            > "$work/sweep_f64.json" 2> "$work/sweep_f64.err"
        echo "f64 sweep rc=$? $((SECONDS - t0)) s"; show "$work/sweep_f64.json"; clock sweep_f64
        if [ -z "$full" ]; then
            k=$(best "$work/sweep_f64.json")
            full="default${k:+,$k}"
        fi
    fi
    full=${full:-default}
    t0=$SECONDS
    timeout "${FULL_TIMEOUT:-100}" "$HOST" apsp-float "$v" --weight f64 --variants "$full" --reps "$reps" $sustained --json \
        > "$work/full_f64.json" 2> "$work/full_f64.err"
    echo "f64 full ($full) rc=$? $((SECONDS - t0)) s"; show "$work/full_f64.json"; clock full_f64
} 2>&1 | tee "$work/summary.txt"
tar czf "$out/f64.tar.gz" -C "$work" .
