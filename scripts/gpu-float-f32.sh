#!/usr/bin/env bash
# Issue 24's float32 min-plus kernels against their own ceiling, f32 only (scripts/gpu-float.sh
# times both types): scripts/gpu-float-f32.sh [V [ROUNDS [REPS]]] (defaults 30000 48 3), from the
# repository root on the GPU machine, bundle in BUNDLE (default .device/bundle). In order:
#   1. the float GPU tests (every tile shape of `for_each_fw_float!` equal to the CPU reference;
#      TESTS=0 skips them);
#   2. the f32 tile shapes VARIANTS_F32 (comma-separated, the default first; default: the
#      default, the previous default, the other A-transposed shapes and t8x8_k64_lean) timed on
#      the first ROUNDS rounds at V (REPS timed reps after an untimed pass, variants
#      interleaved) against the f32 ceiling `apsp_addmin_peak_f32` in the same process
#      (ROUNDS=0 skips the sweep);
#   3. full solves at V (all rounds, REPS reps, interleaved, the ceiling in the same process) of
#      FULL_F32 if set (comma-separated), else of the default and the sweep's FULL_TOP (default
#      2) fastest (the default alone with ROUNDS=0); with SUSTAINED other than 0 (the default) also against the ceiling timed
#      under the solves' load (`--sustained-ceiling`).
# The SM clock before and after each step goes to $OUT/float_clock.csv, every JSON and the summary
# (also printed) into $OUT/float_f32.tar.gz. FULL_TIMEOUT (seconds, default 60) bounds step 3.
set -uo pipefail
B=${BUNDLE:-.device/bundle}
HOST=$B/host
v=${1:-30000}
rounds=${2:-48}
reps=${3:-3}
out=${OUT:-gpu-out}
work=$(mktemp -d)
mkdir -p "$out"
sel=${VARIANTS_F32:-default,t8x8_k64_pair_u2_o32,t8x8_k64_pair_at_r128,t8x8_k64_pair_at_r168,t8x8_k64_lean}
# Full solves also time the ceiling kernel under their load (`--sustained-ceiling`); SUSTAINED=0 skips it.
sustained=$([ "${SUSTAINED:-1}" != 0 ] && echo --sustained-ceiling)
clock() { nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | sed "s/^/$1,/" >> "$out/float_clock.csv"; }
show() { # JSON: one line per variant
    python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d.get("results", d):
    for k in r.get("ceilings") or [{"peak": "", "ceiling": r["ceiling"], "sustained_ceiling": r.get("sustained_ceiling")}]:
        c = k["ceiling"]
        print(f'{r["weight"]} ceiling {k["peak"]} {c["updates_per_s"]:.4e}/s ({c["per_sm_per_clock"]:.2f}/SM/clk)')
        s = k.get("sustained_ceiling")
        if s:
            print(f'{r["weight"]} sustained ceiling {k["peak"]} {s["updates_per_s"]:.4e}/s (median {s["median_s"]:.4f} s of {[round(x, 4) for x in s["runs_s"]]})')
    for t in r["variants"]:
        runs = [round(x, 4) for x in t["runs_s"]]
        print(f'  {t["variant"]:<30} {t["rounds_timed"]} rounds median {t["median_s"]:.4f} s {runs} {t["percent_of_ceiling"]:.1f}% of {t.get("peak", "the ceiling")}')
        if t.get("percent_of_sustained_ceiling") is not None:
            print(f'  {"":<30} {t["percent_of_sustained_ceiling"]:.2f}% of the sustained ceiling')
PY
}
best() { # JSON: the names of the FULL_TOP fastest variants other than the first, comma-separated
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d.get("results",d)
v=sorted(r[0]["variants"][1:], key=lambda t: t["median_s"])[:int(sys.argv[2])]
print(",".join(t["variant"] for t in v))' "$1" "${FULL_TOP:-2}"
}
{
    echo "commit $(cat "$B/COMMIT" 2>/dev/null)"; date -u
    nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader
    clock start
    if [ "${TESTS:-1}" != 0 ]; then
        REQUIRE_GPU=1 timeout 90 "$B/tests/gpu_apsp_float" --test-threads=1 2>&1 | grep -E "^test |test result|panicked|SKIPPED"
        clock tests
    fi
    full=${FULL_F32:-}
    if [ "$rounds" != 0 ]; then
        t0=$SECONDS
        timeout 90 "$HOST" apsp-float "$v" --weight f32 --variants "$sel" --rounds "$rounds" --reps "$reps" --json \
            > "$work/sweep_f32.json" 2> "$work/sweep_f32.err"
        echo "f32 sweep rc=$? $((SECONDS - t0)) s"; show "$work/sweep_f32.json"; clock sweep_f32
        if [ -z "$full" ]; then
            full="default,$(best "$work/sweep_f32.json")"
        fi
    fi
    full=${full:-default}
    t0=$SECONDS
    timeout "${FULL_TIMEOUT:-60}" "$HOST" apsp-float "$v" --weight f32 --variants "$full" --reps "$reps" $sustained --json \
        > "$work/full_f32.json" 2> "$work/full_f32.err"
    echo "f32 full ($full) rc=$? $((SECONDS - t0)) s"; show "$work/full_f32.json"; clock full_f32
} 2>&1 | tee "$work/summary.txt"
tar czf "$out/float_f32.tar.gz" -C "$work" .
