#!/usr/bin/env bash
# Issue 20, session 12 (helper "route"): the route model's change of route/tuned_grid.rs (one
# aligned T,N problem on the tuned body: 64x64 where 64x128 would spread one wave over every
# slot; its stream-K priced on the grid it launches) measured in ONE device call of under
# 8 minutes. Parts (PARTS, default "changed neighbours tests suite outside"), in this order:
#   changed     every problem whose pick the change moved (host/src/matmul/picks/mod.rs), the
#               new pick (`sgemm`) against the old route forced (`route:…`, or the old direct
#               kernel by name, which runs the same balanced grid) and the tuned kernels by name,
#               in one `host matmul` process per problem; RUNS (3) interleaved rounds -> changed.txt:
#                 1100x900x1000 TN   direct 64x64 (new)   vs route:tile=3+splits=3 (old)
#                 1500x1000x800 TN   direct 64x64 (new)   vs sgemm_tn_64x128x16_s3_8x8_fl (old)
#                 1536x1536x1536 TN  direct 64x128 (new, never measured) vs route:tile=2+splits=4 (old)
#   neighbours  the problems whose pick the change kept although the model's prices moved
#               (900x800x1100, 1024³, 768x1280x1536 TN: split kept; 1000x777x1025 and 999x1111x1023
#               TN: the unaligned body's estimate moved), and the next session's candidates
#               (999x1111x1023 TN on 64x64 `_u_fl`; 384³ x100 TT on 64x128 and 64x64 by name),
#               the pick against the alternatives, RUNS interleaved rounds -> neighbours.txt
#   tests       gpu_tsingle and gpu_route (the new shapes through the library) -> tests.log
#   suite       the committed suite once -> suite_1.{txt,jsonl}
#   outside     the outside lists (arguments; default every committed one with problems the
#               route model prices: host/data/{tsingle,s11,mid,gemv}, sessions 8, 9 (bops) and 6)
#               -> outside_N.{txt,jsonl}
# A part that would start after DEADLINE seconds (default 400) is skipped with a line saying so,
# so the call ends before 8 minutes whatever the machine's speed. SM clock every 200 ms ->
# clock.csv, its summary printed at the end. Arguments: the bundle folder, the output folder,
# then the outside lists. Called by `scripts/gpu-run.sh route-s12`; on the device:
#   bash scripts/gpu-run.sh route-s12      (the bundle of `cargo xtask gpu-bundle`, carry .device)
set -uo pipefail
B=$1
OUT_DIR=$2
shift 2
[ $# -gt 0 ] || set -- host/data/tsingle/outside.txt host/data/s11/outside.txt \
    host/data/mid/outside.txt host/data/gemv/outside.txt \
    docs/data/session8-2026-11-24/shapes/outside.txt docs/data/session9-2026-11-24/bops/outside_bops.txt \
    docs/data/session6-2026-11-24/shapes/outside.txt
H="$B/host"
PARTS=${PARTS:-changed neighbours tests suite outside}
REPS=${REPS:-20}
RUNS=${RUNS:-3}
DEADLINE=${DEADLINE:-400}
mkdir -p "$OUT_DIR"
has() { [[ " $PARTS " == *" $1 "* ]]; }
# Whether part $1 may still start (SECONDS counts from this script's start).
late() {
    if [ "$SECONDS" -gt "$DEADLINE" ]; then
        echo "SKIPPED $1: ${SECONDS}s past the ${DEADLINE}s deadline"
        return 0
    fi
    return 1
}
status=0
date -u
[ -f "$B/COMMIT" ] && cat "$B/COMMIT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
smi=$!
flags() { # OPS -> --trans-a/--trans-b
    case $1 in TN) echo "--trans-a" ;; NT) echo "--trans-b" ;; TT) echo "--trans-a --trans-b" ;; *) echo "" ;; esac
}
# One `host matmul` process: label, environment assignment (or "-"), "M N K OPS [BATCH]",
# runners (`sgemm` the library's pick, `route:…` the library forced to a route with `+` for its
# commas, a kernel name that kernel on the balanced grid), cuBLAS's matching call in the same
# process, median of REPS.
cand() {
    local label=$1 env=$2 shape=$3 runners=$4 m n k ops batch verify=sample
    read -r m n k ops batch <<< "$shape"
    batch=${batch:-1}
    echo "== $label | $env | $shape"
    # shellcheck disable=SC2046
    env ${env/#-/RGK_NOTHING=1} timeout 30 "$H" matmul --m "$m" --n "$n" --k "$k" $(flags "$ops") \
        --batch "$batch" --kernel "$runners" --reps "$REPS" --verify "$verify" 2>&1 \
        | grep -E "^(cublas|sgemm|route)|FAILED|rror" || echo "FAILED: $label $shape"
}
T64=sgemm_tn_64x64x16_s4_8x4_fl
T128=sgemm_tn_64x128x16_s3_8x8_fl
# Each runner's medians per problem, one per round of a `cand` log, side by side (the rounds
# are separate processes; compare within a column).
table() { # LOG
    awk '/^== / { split($0, f, " [|] "); sub(/^== /, "", f[1]); p = f[1]; sub(/_[0-9]+$/, "", p);
                  if (!(p in seen)) { seen[p] = 1; order[++np] = p }; next }
         /^(sgemm|route|cublas)/ { k = p SUBSEP $1; v[k] = v[k] " " $2;
                                   if (!((p, $1) in rs)) { rs[p, $1] = 1; names[p] = names[p] " " $1 } }
         END { for (i = 1; i <= np; i++) { q = order[i]; n = split(names[q], nm, " ");
                   printf "%s\n", q; for (j = 1; j <= n; j++) printf "    %-34s %s\n", nm[j], v[q SUBSEP nm[j]] } }' "$1"
}
if has changed && ! late changed; then
    {
        for i in $(seq "$RUNS"); do
            cand "tn1100_$i" - "1100 900 1000 TN" "sgemm,route:tile=3+splits=3,$T64,$T128"
            cand "tn1500_$i" - "1500 1000 800 TN" "sgemm,$T128,$T64,route:tile=2+splits=2"
            cand "tn1536_$i" - "1536 1536 1536 TN" "sgemm,route:tile=2+splits=4,$T128,$T64"
        done
    } > "$OUT_DIR/changed.txt" 2>&1
    table "$OUT_DIR/changed.txt"
fi
if has neighbours && ! late neighbours; then
    {
        for i in $(seq "$RUNS"); do
            cand "tn900_$i" - "900 800 1100 TN" "sgemm,$T64,route:direct"
            cand "tn1024_$i" - "1024 1024 1024 TN" "sgemm,$T64,$T128"
            cand "tn768_$i" - "768 1280 1536 TN" "sgemm,$T64,$T128"
            cand "tn1000_$i" - "1000 777 1025 TN" "sgemm,route:b=R,route:a=T"
            cand "tn999_$i" - "999 1111 1023 TN" "sgemm,sgemm_tn_64x64x16_s4_8x4_u_fl,sgemm_tn_64x128x16_s3_8x8_u_fl"
            cand "tt384b_$i" - "384 384 384 TT 100" "sgemm,sgemm_tt_64x128x16_s3_8x8_fl,sgemm_tt_64x64x16_s4_8x4_fl"
        done
    } > "$OUT_DIR/neighbours.txt" 2>&1
    table "$OUT_DIR/neighbours.txt"
fi
if has tests && ! late tests; then
    for t in gpu_tsingle gpu_route; do
        [ -x "$B/tests/$t" ] || { echo "no $B/tests/$t in the bundle"; continue; }
        timeout "${T_TEST:-90}" "$B/tests/$t" --test-threads 1 >> "$OUT_DIR/tests.log" 2>&1 \
            || { echo "FAILED: $t"; status=1; }
    done
    grep -E "^test |test result|panicked|SKIPPED" "$OUT_DIR/tests.log"
fi
if has suite && ! late suite; then
    timeout "${T_SUITE:-100}" "$H" bench -o "$OUT_DIR/suite_1.jsonl" sgemm-shapes > /dev/null 2> "$OUT_DIR/suite_1.txt" \
        || { echo "FAILED: sgemm-shapes"; status=1; }
    grep -E "geometric" "$OUT_DIR/suite_1.txt"
fi
if has outside; then
    i=0
    for f in "$@"; do
        i=$((i + 1))
        late "outside $f" && continue
        echo "== outside_$i: $f"
        timeout "${T_OUT:-45}" "$H" bench -o "$OUT_DIR/outside_$i.jsonl" sgemm-shapes --suite "$f" > /dev/null 2> "$OUT_DIR/outside_$i.txt" \
            || { echo "FAILED: outside $f"; status=1; }
        grep -E "geometric" "$OUT_DIR/outside_$i.txt"
    done
fi
kill "$smi"
bash scripts/clock-summary.sh "$OUT_DIR/clock.csv"
echo "elapsed ${SECONDS}s"
exit $status
