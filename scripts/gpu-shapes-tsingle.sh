#!/usr/bin/env bash
# Issue 20, session 10 (helper "tsingle": one problem with a transposed operand on the tuned
# flagship body, `route::single_t`). Parts (PARTS, default "tests candidates sanitize"):
#   candidates  each listed problem's candidates side by side in one `host matmul` process
#               (`--kernel sgemm,route:…,<kernel>`: the library's pick, a forced route, a named
#               kernel; cuBLAS's matching call in the same process, median of REPS), the key
#               problems in CAND_RUNS processes -> candidates.txt
#   before      the problems whose route or kernel the rule changes, and the listed ones, through
#               `host bench sgemm-shapes` twice: the default, then BEFORE_ENV (default RGK_SGEMM_TSINGLE=0, what ran
#               before session 10), one process each -> before.txt
#   check       the final rules' unmeasured changes against the route that ran before them, side
#               by side in one `host matmul` process each (as candidates) -> check.txt
#   tests       the GPU tests: gpu_tsingle, gpu_mid, gpu_flagship_batched, gpu_route -> tests.log
#   sanitize    compute-sanitizer memcheck and racecheck on a tuned transposed kernel running one
#               problem under stream-K, an aligned and an odd shape -> sanitize.log
#   unaligned   (helper "tsingle2") T,N with unaligned B on the tuned body with 4-byte copies
#               (`sgemm_tn_<tile>_u_fl`): the library's pick against the route that ran before
#               (A transposed, `route:a=T`) and the kernels by name, U_RUNS processes each of
#               1000x777x1025, 999x1111x1023, 1100x900x1000 (aligned: unchanged), and other
#               problems the rule moves (3001x2999x1001, 333x555x777, 2047x2049x2047) -> unaligned.txt
#   sanitize_u  compute-sanitizer memcheck and racecheck on the kernels of SAN_U_KERNELS (default
#               sgemm_tn_64x64x16_s4_8x4_u_fl) under stream-K, an aligned (256x256x256) and an odd
#               (333x555x129; 332x555x129 for the `_ub_fl` kernels) shape -> sanitize_u.log
#   suite       the committed suite, SUITE_RUNS times in separate processes -> suite_N.{txt,jsonl}
#   outside     the outside lists (arguments; default session 8's, mid's, and this helper's)
#               -> outside_N.{txt,jsonl}
# SM clock every 200 ms -> clock.csv, its summary printed. Arguments: the bundle folder, the
# output folder, then the outside lists. Called by `scripts/gpu-run.sh shapes-tsingle`.
set -uo pipefail
B=$1
OUT_DIR=$2
shift 2
[ $# -gt 0 ] || set -- docs/data/session8-2026-11-24/shapes/outside.txt host/data/mid/outside.txt \
    host/data/tsingle/outside.txt
H="$B/host"
PARTS=${PARTS:-tests candidates sanitize}
REPS=${REPS:-20}
has() { [[ " $PARTS " == *" $1 "* ]]; }
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
smi=$!
flags() { # OPS -> --trans-a/--trans-b
    case $1 in TN) echo "--trans-a" ;; NT) echo "--trans-b" ;; TT) echo "--trans-a --trans-b" ;; *) echo "" ;; esac
}
# One `host matmul` process: label, environment assignment (or "-"), "M N K OPS", runners.
cand() {
    local label=$1 env=$2 shape=$3 runners=$4 m n k ops verify=sample
    read -r m n k ops <<< "$shape"
    [ "$m" -ge 4096 ] && verify=none
    if [ "$SECONDS" -gt "${CAND_UNTIL:-100000}" ]; then echo "== $label | $env: skipped (time)"; return; fi
    echo "== $label | $env | $shape"
    # shellcheck disable=SC2046
    env ${env/#-/RGK_NOTHING=1} timeout 30 "$H" matmul --m "$m" --n "$n" --k "$k" $(flags "$ops") \
        --kernel "$runners" --reps "$REPS" --verify "$verify" 2>&1 \
        | grep -E "^(cublas|sgemm|route)|FAILED|rror" || echo "FAILED: $label $shape"
}
if has candidates; then
    {
        for i in $(seq "${CAND_RUNS:-3}"); do
            cand "tn$i" - "1000 777 1025 TN" "sgemm,route:a=T,route:b=R,route:a=T+b=R"
            cand "tt$i" - "1000 777 1025 TT" "sgemm,route:a=T+b=T,sgemm_tt_64x128x16_s3_8x8_fl,route:b=T"
        done
        for i in 1 2; do
            cand "nt$i" - "1000 777 1025 NT" "sgemm,route:b=T,sgemm_nt_64x128x16_s3_8x8_fl"
            cand "tn999_$i" - "999 1111 1023 TN" "sgemm,route:a=T,route:a=R+b=R,route:a=T+b=R"
            cand "tt999_$i" - "999 1111 1023 TT" "sgemm,route:a=T+b=T,route:a=R,route:a=T"
            cand "nt999_$i" - "999 1111 1023 NT" "sgemm,route:b=T,sgemm_nt_64x128x16_s3_8x8_fl"
            cand "tn900_$i" - "900 800 1100 TN" "sgemm,route:tile=3+splits=2"
            cand "nt900_$i" - "900 800 1100 NT" "sgemm,route:b=T"
            cand "tt900_$i" - "900 800 1100 TT" "sgemm,route:b=T+tile=3+splits=2,route:a=T+b=T"
        done
        # Split-K's batch on the tuned body instead of the variant (RGK_SGEMM_TSPLIT=1).
        cand tn900_tsplit RGK_SGEMM_TSPLIT=1 "900 800 1100 TN" "sgemm,route:tile=3+splits=2,route:tile=2+splits=2"
        cand tt900_tsplit RGK_SGEMM_TSPLIT=1 "900 800 1100 TT" "sgemm,route:b=T+tile=3+splits=2,route:tile=3+splits=2"
        cand tn_tsplit RGK_SGEMM_TSPLIT=1 "1000 777 1025 TN" "sgemm,route:b=R+tile=3+splits=2"
        # The tuned T,N body on 64x128 after B's re-pitch.
        cand tn_tile2 RGK_SGEMM_OPS_TILE=2 "1000 777 1025 TN" "sgemm,route:b=R"
        cand tn1200 - "1200 700 900 TN" "sgemm,sgemm_tn_64x64x16_s4_8x4"
        cand nt1200 - "1200 700 900 NT" "sgemm,route:b=T"
        cand tt1200 - "1200 700 900 TT" "sgemm,route:a=T+b=T"
        for i in 1 2; do
            cand "tn4096_$i" - "4096 4096 4096 TN" "sgemm,route:a=T"
            cand "tt4096_$i" - "4096 4096 4096 TT" "sgemm,route:a=T+b=T,sgemm_tt_128x128x8_s4_16x8_fl"
        done
    } > "$OUT_DIR/candidates.txt" 2>&1
    cat "$OUT_DIR/candidates.txt"
fi
if has unaligned; then
    {
        U=sgemm_tn_64x64x16_s4_8x4_u_fl
        U2=sgemm_tn_64x128x16_s3_8x8_u_fl
        # Their twins with A in 16-byte pieces (session 11; A's rows aligned only).
        UB=sgemm_tn_64x64x16_s4_8x4_ub_fl
        UB2=sgemm_tn_64x128x16_s3_8x8_ub_fl
        for i in $(seq "${U_RUNS:-3}"); do
            cand "tn1000_$i" - "1000 777 1025 TN" "sgemm,route:a=T,$U,$UB"
            cand "tn1000w_$i" - "1000 1111 1023 TN" "sgemm,$U2,$UB2"
            cand "tn999_$i" - "999 1111 1023 TN" "sgemm,route:a=T,$U,$U2"
            cand "tn1100_$i" - "1100 900 1000 TN" "sgemm,route:a=T,$U,sgemm_tn_64x64x16_s4_8x4_fl"
        done
        # Other unaligned T,N problems whose pick the rule changes (the cost model, on the CPU).
        for i in 1 2; do
            cand "tn3001_$i" - "3001 2999 1001 TN" "sgemm,route:a=T+b=R"
            cand "tn333_$i" - "333 555 777 TN" "sgemm,route:a=T"
        done
        cand tn2047 - "2047 2049 2047 TN" "sgemm,route:a=T+b=R,route:a=T"
    } > "$OUT_DIR/unaligned.txt" 2>&1
    cat "$OUT_DIR/unaligned.txt"
fi
# One bench process: label, environment assignment (or "-"), problem lines.
bench() {
    local label=$1 env=$2 list=$3 f
    f=$(mktemp)
    printf '%b' "$list" > "$f"
    echo "== $label | $env"
    env ${env/#-/RGK_NOTHING=1} timeout 40 "$H" bench sgemm-shapes --reps "$REPS" --suite "$f" 2>&1 >/dev/null \
        | grep -E "^[0-9]|geometric" || echo "FAILED: $label $env"
    rm -f "$f"
}
if has before; then
    P='1000 777 1025 TN 1\n1000 777 1025 NT 1\n1000 777 1025 TT 1\n999 1111 1023 TN 1\n999 1111 1023 NT 1\n999 1111 1023 TT 1\n'
    P+='900 800 1100 TN 1\n900 800 1100 NT 1\n900 800 1100 TT 1\n1200 700 900 TN 1\n1200 700 900 NT 1\n1200 700 900 TT 1\n'
    P+='512 512 512 TN 1\n512 512 512 NT 1\n512 512 512 TT 1\n1024 1024 1024 TN 1\n1024 1024 1024 TT 1\n2048 2048 2048 TN 1\n2048 2048 2048 TT 1\n'
    P+='2000 1500 700 TT 1\n1100 900 1000 TN 1\n1100 900 1000 TT 1\n640 480 2000 TT 1\n768 1280 1536 TN 1\n'
    P+='333 555 777 TT 1\n64 16384 4096 TN 1\n16384 64 4096 NT 1\n3001 2999 1001 TT 1\n'
    {
        for i in $(seq "${BEFORE_RUNS:-1}"); do
            for r in - ${BEFORE_ENV:-RGK_SGEMM_TSINGLE=0}; do
                bench "outside $i" "$r" "$P"
            done
        done
    } > "$OUT_DIR/before.txt" 2>&1
    cat "$OUT_DIR/before.txt"
fi
if has check; then
    {
        for i in 1 2; do
            cand "tt4096_$i" - "4096 4096 4096 TT" "sgemm,route:a=T+b=T"
            cand "tt2048_$i" - "2048 2048 2048 TT" "sgemm,route:a=T+b=T"
            cand "tt2000_$i" - "2000 1500 700 TT" "sgemm,route:a=T+b=T"
            cand "tn1200_$i" - "1200 700 900 TN" "sgemm,sgemm_tn_64x64x16_s4_8x4"
            cand "tt1000_$i" - "1000 777 1025 TT" "sgemm,route:a=T+b=T"
        done
    } > "$OUT_DIR/check.txt" 2>&1
    cat "$OUT_DIR/check.txt"
fi
if has tests; then
    for t in gpu_tsingle gpu_mid gpu_flagship_batched gpu_route; do
        [ -x "$B/tests/$t" ] || continue
        timeout "${T_TEST:-60}" "$B/tests/$t" --test-threads 1 >> "$OUT_DIR/tests.log" 2>&1 \
            || { echo "FAILED: $t"; status=1; }
    done
    grep -E "^test |test result|panicked" "$OUT_DIR/tests.log"
fi
if has suite; then
    for i in $(seq "${SUITE_RUNS:-1}"); do
        timeout "${T_SUITE:-90}" "$H" bench -o "$OUT_DIR/suite_$i.jsonl" sgemm-shapes > /dev/null 2> "$OUT_DIR/suite_$i.txt" \
            || { echo "FAILED: sgemm-shapes $i"; status=1; }
        grep -E "geometric" "$OUT_DIR/suite_$i.txt"
    done
fi
if has outside; then
    i=0
    for f in "$@"; do
        i=$((i + 1))
        timeout "${T_OUT:-40}" "$H" bench -o "$OUT_DIR/outside_$i.jsonl" sgemm-shapes --suite "$f" > /dev/null 2> "$OUT_DIR/outside_$i.txt" \
            || { echo "FAILED: outside $f"; status=1; }
        grep -E "geometric" "$OUT_DIR/outside_$i.txt"
    done
fi
kill "$smi"
awk -F', ' 'NR > 1 { gsub(/ MHz/, "", $2); v = $2 + 0; s += v; n++; if (min == "" || v < min) min = v }
            END { if (n) printf "SM clock: mean %.0f MHz, min %d MHz over %d samples\n", s / n, min, n }' "$OUT_DIR/clock.csv"
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
if has sanitize && command -v "$CS" > /dev/null; then
    for tool in memcheck racecheck; do
        # One problem each under stream-K on the balanced grid: 256³ T,T (16 tiles of 64x64, one
        # wave of 132 blocks sharing them), 68x133x37 N,T (odd, K below three slices), 300x260x90
        # T,N on 64x128 (K below six slices; M and N multiples of 4, as its 16-byte copies need).
        for ks in "sgemm_tt_64x64x16_s4_8x4_fl --m 256 --n 256 --k 256 --trans-a --trans-b" \
                  "sgemm_nt_64x64x16_s4_8x4_fl --m 68 --n 133 --k 37 --trans-b" \
                  "sgemm_tn_64x128x16_s3_8x8_fl --m 300 --n 260 --k 90 --trans-a"; do
            read -r k shape <<< "$ks"
            echo "== $tool $k $shape" >> "$OUT_DIR/sanitize.log"
            # shellcheck disable=SC2086
            timeout "${T_SAN:-40}" "$CS" --tool "$tool" --error-exitcode 9 "$H" matmul $shape --kernel "$k" --reps 1 --no-cublas \
                >> "$OUT_DIR/sanitize.log" 2>&1 || { echo "FAILED: $tool $k $shape"; status=1; }
        done
    done
    grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY" "$OUT_DIR/sanitize.log"
fi
if has sanitize_u && command -v "$CS" > /dev/null; then
    # The `_ub_fl` kernels copy A in 16-byte pieces: their odd shape keeps A's rows aligned (M 332).
    for kern in ${SAN_U_KERNELS:-sgemm_tn_64x64x16_s4_8x4_u_fl}; do
        odd="--m 333 --n 555 --k 129 --trans-a"
        [[ $kern == *_ub_fl ]] && odd="--m 332 --n 555 --k 129 --trans-a"
        for tool in memcheck racecheck; do
            for shape in "--m 256 --n 256 --k 256 --trans-a" "$odd"; do
                echo "== $tool $kern $shape" >> "$OUT_DIR/sanitize_u.log"
                # shellcheck disable=SC2086
                timeout "${T_SAN:-40}" "$CS" --tool "$tool" --error-exitcode 9 "$H" matmul $shape \
                    --kernel "$kern" --reps 1 --no-cublas \
                    >> "$OUT_DIR/sanitize_u.log" 2>&1 || { echo "FAILED: $tool $kern $shape"; status=1; }
            done
        done
    done
    grep -E "^== |ERROR SUMMARY|RACECHECK SUMMARY" "$OUT_DIR/sanitize_u.log"
fi
exit $status
