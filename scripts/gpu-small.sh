#!/usr/bin/env bash
# Issue 23 item 3, one graph of small V: every schedule of the rounds (`host apsp-small`:
# launches, CUDA graph, persistent, flow and pull kernels) against apsp-peak in the same process,
# plain and with the stream held before the start event (--hold-us: the events then time the
# GPU's work alone, not the CPU's launch calls), on `apsp-gen V 40V --seed 1` graphs.
# Called by `scripts/gpu-run.sh small [V…]`; arguments: the host binary, the output folder, then
# the V (default 1000 1500 2000 3000). Environment: REPS (10), HOLD_US (3000), CHECK (1: then
# the GPU tests of every schedule against the CPU and every schedule identical to the launches
# at V = 31 64 65 200 1000 2100 with B = 32 and 64), SANITIZE (0; 1: compute-sanitizer memcheck
# and racecheck on the pull and strip kernels at V = 200), PROBE (0; 1: also `--probe`, the chain's item
# probes and traced solves, printed per V), TESTS (the bundle's test folder).
# Writes $OUT_DIR/small_V.json, identical.log, tests.log, sanitize.log, the SM clock every 200 ms
# to $OUT_DIR/clock_small.csv, and prints one line per V and schedule.
set -uo pipefail
HOST=$1
OUT_DIR=$2
shift 2
REPS=${REPS:-10}
HOLD_US=${HOLD_US:-3000}
PROBE_ARG=()
[ "${PROBE:-0}" = 1 ] && PROBE_ARG=(--probe)
status=0
tmp=${APSP_TMP:-/tmp/apsp-small}
mkdir -p "$tmp" "$OUT_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock_small.csv" &
smi=$!
for v in ${@:-1000 1500 2000 3000}; do
    "$HOST" apsp-gen "$v" $((v * 40)) --seed 1 -o "$tmp/s$v.in" >/dev/null
    echo "+ $HOST apsp-small s$v.in --reps $REPS --hold-us $HOLD_US ${PROBE_ARG[*]} --json" >&2
    timeout 120 "$HOST" apsp-small "$tmp/s$v.in" --reps "$REPS" --hold-us "$HOLD_US" "${PROBE_ARG[@]}" --json > "$OUT_DIR/small_$v.json" \
        || { echo "FAILED: apsp-small V = $v"; status=1; }
    python3 - "$OUT_DIR/small_$v.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
for x in r["runs"]:
    held = x.get("held_compute") or {}
    print(f'V={r["vertices"]:>5} {x["schedule"]:<13} median {x["compute"]["median_ms"]:>8.4f} ms '
          f'{x["percent_of_peak"]:>5.1f}%  held {held.get("median_ms", 0):>8.4f} ms '
          f'{x.get("held_percent_of_peak") or 0:>5.1f}% of apsp-peak  identical={x["identical"]}  '
          f'(default {r["default_schedule"]})')
for p in r.get("probe_items", []):
    print(f'V={r["vertices"]:>5} probe {p["kernel"]:<22} closure {p["closure_cycles"]:>7.0f} cycles '
          f'({p["cycles_per_step"]:.1f}/step), product {p["product_cycles"]:>6.0f}, load {p["load_cycles"]:>6.0f}, '
          f'item {p["item_us"]:.2f} us, correct={p["correct"]}')
for t in r.get("traces", []):
    c, p2, b = t["close_items"], t["chain_phase2"], t["bulk"]
    print(f'V={r["vertices"]:>5} trace {t["kernel"]:<22} {t["compute"]["median_ms"]:.4f} ms, chain {t["chain_round_us"]:.2f} us/round (closing deps met {t.get("pivot_to_close_deps_us", float("nan")):.2f} us after the pivot); '
          f'closing: wait {c["wait_us"]:.2f} load {c["load_us"]:.2f} product {c["product_us"]:.2f} closure {c["closure_us"]:.2f} '
          f'publish {c["publish_us"]:.2f}; phase 2: wait {p2["wait_us"]:.2f} load {p2["load_us"]:.2f} product {p2["product_us"]:.2f} '
          f'publish {p2["publish_us"]:.2f}; bulk product {b["product_us"]:.2f}; hand-offs {t["close_to_phase2_us"]:.2f} / '
          f'{t["phase2_to_close_us"]:.2f} us; identical={t["identical"]}')
PY
    rm -f "$tmp/s$v.in"
done
if [ "${CHECK:-1}" = 1 ]; then
    t=${TESTS:-$(dirname "$HOST")/tests}/gpu_apsp_batch
    if [ -x "$t" ]; then
        echo "+ $t --test-threads 1 (every schedule vs the CPU)" >&2
        # The tests of the one-graph schedules only (not the batch tests of the same binary).
        REQUIRE_GPU=1 timeout 120 "$t" --test-threads 1 schedule held persistent > "$OUT_DIR/tests.log" 2>&1 \
            || { echo "FAILED: gpu_apsp_batch"; status=1; }
        grep -E "^test |test result" "$OUT_DIR/tests.log"
    fi
    for v in 31 64 65 200 1000 2100; do
        "$HOST" apsp-gen "$v" $((v * 6)) --seed "$v" -o "$tmp/i$v.in" >/dev/null
        for b in 32 64; do
            echo "V = $v, B = $b:" >> "$OUT_DIR/identical.log"
            timeout 30 "$HOST" apsp-small "$tmp/i$v.in" --block "$b" --reps 1 >> "$OUT_DIR/identical.log" 2>&1 \
                || { echo "FAILED: identical V = $v B = $b"; status=1; }
        done
        rm -f "$tmp/i$v.in"
    done
    echo "identical: $(grep -c ' identical$' "$OUT_DIR/identical.log") lines, DIFFERENT: $(grep -c DIFFERENT "$OUT_DIR/identical.log")"
fi
if [ "${SANITIZE:-0}" = 1 ]; then
    CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null | head -1)
    "$HOST" apsp-gen 200 1200 --seed 7 -o "$tmp/z.in" >/dev/null
    for tool in memcheck racecheck; do
        for s in pull32 pull64 pull64x8 strips2 strips4 strips4c; do
            echo "+ $tool $s" >> "$OUT_DIR/sanitize.log"
            timeout 60 "$CS" --tool "$tool" --error-exitcode 9 "$HOST" apsp-small "$tmp/z.in" --schedule "$s" --reps 1 \
                >> "$OUT_DIR/sanitize.log" 2>&1 || { echo "FAILED: $tool $s"; status=1; }
        done
    done
    grep -E "ERROR SUMMARY|RACECHECK SUMMARY|FAILED" "$OUT_DIR/sanitize.log"
fi
kill "$smi"
python3 -c "import csv,sys; c=[int(r[' clocks.current.sm [MHz]'].split()[0]) for r in csv.DictReader(open(sys.argv[1]))]; print(f'SM clock MHz: min {min(c)} max {max(c)} over {len(c)} samples')" "$OUT_DIR/clock_small.csv" || true
exit $status
