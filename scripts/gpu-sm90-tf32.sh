#!/usr/bin/env bash
# Issue 21's TF32 target with B row-major (docs/sm90.md, "Session 8" and "Session 9"), run
# on the GPU machine from the repository root with the bundle of `cargo xtask gpu-bundle`
# (BUNDLE, default .device/bundle): the K-major kernel whose producer threads load a row-major B
# (`load`, session 9), the split-pass path (`split`), the library's choice
# (tc::select::TF32_ROW_MAJOR_B: `wgmma`) and cuBLAS TF32
# (CUBLAS_COMPUTE_32F_FAST_TF32, same layouts) timed alternately in rounds in one process per size
# (`host sm90 --inputs tf32 --rounds`), each with the library's schedule (whole tiles at 4096,
# stream-K `skl` at 8192) and whole tiles (`…_dp`); B transposed (in place, K-major kernel, the
# library's `wgmma`) beside them. First the
# GPU tests of the in-place kernel, and with SAN=1 compute-sanitizer memcheck and racecheck of the
# library's TF32 call at an aligned and an odd shape (SANK="<name> …": of each `--kernel <name>`
# instead, e.g. SANK="wgmma_load wgmma_load_lg2"). About 20 s on an H200 (SAN=1: +10-60 s, skipped when the rest took over
# 110 s). PASSES=N repeats the timing processes, R4096/R8192 set their rounds (9 and 7); S the
# schedules (the in-place kernel of session 8: `wgmma_inplace`).
#   scripts/gpu-sm90-tf32.sh   JSON to $OUT/tf32_*.json, lines to $OUT/tf32_*.err, tests to
#                              $OUT/tf32_tests.txt, SM clock to $OUT/tf32_clock.csv, log
#                              $OUT/tf32.log
set -u
OUT=${OUT:-/tmp/out}
BUNDLE=${BUNDLE:-.device/bundle}
HOST="$BUNDLE/host"
mkdir -p "$OUT"
S=${S:-wgmma_load,wgmma_split,wgmma,wgmma_load_dp,wgmma_split_dp}
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 250 \
    > "$OUT/tf32_clock.csv" 2>/dev/null &
smi=$!
status=0
t0=$(date +%s)
log() { echo "+ [$(($(date +%s) - t0)) s] $*" >> "$OUT/tf32.log"; }
run() {
    local name=$1 limit=$2
    shift 2
    log "$*"
    timeout "$limit" "$@" > "$OUT/tf32_$name.json" 2> "$OUT/tf32_$name.err"
    check $? "$name"
}
check() { [ "$1" = 0 ] || { status=1; log "rc $1 ($2)"; }; }
if [ -x "$BUNDLE/tests/gpu_sm90_tf32" ]; then
    log "gpu_sm90_tf32"
    timeout 45 "$BUNDLE/tests/gpu_sm90_tf32" --test-threads 1 > "$OUT/tf32_tests.txt" 2>&1
    check $? gpu_sm90_tf32
fi
if [ -x "$BUNDLE/tests/gpu_sm90" ]; then
    log "gpu_sm90 the_library_tf32"
    timeout 30 "$BUNDLE/tests/gpu_sm90" --test-threads 1 the_library_tf32 \
        >> "$OUT/tf32_tests.txt" 2>&1
    check $? gpu_sm90
fi
# PASSES processes per size (the spread between processes is part of the verdict).
for pass in $(seq 1 "${PASSES:-1}"); do
    sfx=$([ "$pass" = 1 ] && echo "" || echo "_$pass")
    run "4096$sfx" 30 "$HOST" sm90 --inputs tf32 --b n --rounds "${R4096:-9}" --reps 20 --check-rows 2 \
        --schedules "$S" 4096
    run "8192$sfx" 35 "$HOST" sm90 --inputs tf32 --b n --rounds "${R8192:-7}" --reps 10 --check-rows 2 \
        --schedules "$S" 8192
done
run k 25 "$HOST" sm90 --inputs tf32 --b k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma 4096 8192
# The sanitizer runs only while the command is young enough to finish within ~180 s.
if [ "${SAN:-0}" = 1 ] && [ $(($(date +%s) - t0)) -lt 110 ]; then
    CS=${COMPUTE_SANITIZER:-compute-sanitizer}
    for kern in ${SANK:-library}; do
        kargs=""
        [ "$kern" = library ] || kargs="--kernel $kern"
        for tool in memcheck racecheck; do
            for shape in "--m 512 --n 512 --k 512" "--m 777 --n 1000 --k 520"; do
                # shellcheck disable=SC2086
                log "$CS --tool $tool host matmul $shape --precision tf32 $kargs"
                # shellcheck disable=SC2086
                timeout 15 "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul $shape \
                    --precision tf32 $kargs --reps 1 --no-cublas >> "$OUT/tf32_san.txt" 2>&1
                rc=$?
                echo "rc $rc : $tool $shape $kern" >> "$OUT/tf32_san_summary.txt"
                check $rc "$tool"
            done
        done
    done
fi
kill "$smi" 2>/dev/null
log "total, status $status"
exit $status
