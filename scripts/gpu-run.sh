#!/usr/bin/env bash
# Runs on the GPU machine, which has CUDA but no Rust, from the repository root, using the
# bundle that `cargo xtask gpu-bundle` built and packed here (carry `.device/pack` with the call;
# it is unpacked into .device/bundle on first use).
#
#   scripts/gpu-run.sh check       host info, every GPU test, occupancy cross-check; ends with one
#                                  summary line: tests passed, failed, skipped (e.g. a multi-GPU
#                                  test on a machine with fewer GPUs), ignored; log in $OUT/tests.log
#   scripts/gpu-run.sh sass        cuobjdump the cubin: instruction counts per kernel (VIADDMNMX, LDS.128, …)
#   scripts/gpu-run.sh sanitize [matmul|apsp|sm90]   compute-sanitizer memcheck/racecheck (SGEMM,
#                                  and the Hopper GEMM on a 9.0 GPU), memcheck/racecheck/synccheck
#                                  (APSP); every family by default
#   scripts/gpu-run.sh sm90 [N…]   the Hopper wgmma GEMM (BF16, FP16; B row-major and transposed)
#                                  against cuBLAS GemmEx of the same precision at N (default 4096
#                                  8192), after the edge-shape checks; JSON to $OUT/sm90.json, the
#                                  SM clock during the run to $OUT/sm90_clock.csv (H100/H200 only)
#   scripts/gpu-run.sh tf32 [N…]   TF32 and 3xTF32 on wgmma vs cuBLAS TF32 / FP32 (scripts/gpu-tf32.sh)
#   scripts/gpu-run.sh sm90-rounds  issue 21's Hopper targets: ours and cuBLAS alternating in
#                                  rounds, 4096 and 8192 (scripts/gpu-sm90-rounds.sh, ~150 s)
#   scripts/gpu-run.sh sm90-tf32   TF32 with B row-major: loaded vs split pass vs cuBLAS TF32 in
#                                  rounds, 4096 and 8192, after its GPU tests
#                                  (scripts/gpu-sm90-tf32.sh, ~60 s; SAN=1 adds compute-sanitizer)
#   scripts/gpu-run.sh wgmma [N…]  the Hopper GEMM's ladder of schedules (wait depth, persistent,
#                                  tile group), 16-bit and TF32, vs cuBLAS (scripts/gpu-wgmma.sh)
#   scripts/gpu-run.sh shapes-p    issue 20's skinny, deep-K and thin shapes: host matmul (the library's
#                                  choice, its shape class, cuBLAS in the same process, 20 reps) per
#                                  shape, JSON to $OUT/shapes_p_MxNxK.json, SM clock to $OUT/clock.csv,
#                                  one summary table (scripts/gpu-shapes-p.sh)
#   scripts/gpu-run.sh shapes-route  issue 20's SGEMM routes (pre-pass, split-K): per problem cuBLAS,
#                                  the direct route, the model's pick and every candidate route with
#                                  the model's estimate, then the routes' GPU tests; to
#                                  $OUT/route_timings.txt, route_tests.log (scripts/gpu-shapes-route.sh)
#   scripts/gpu-run.sh shapes-s6 [FILE]  issue 20's single problems (session 6): route timings of the
#                                  problems below 90 % (in-kernel split included), the suite and the
#                                  problems outside it (FILE, default docs/data/session6-2026-11-24/
#                                  shapes/outside.txt) to $OUT (scripts/gpu-shapes-s6.sh)
#   scripts/gpu-run.sh shapes-s7 [FILE…]  issue 20, session 7: the skinny GPU tests, old vs new row
#                                  kernels, the suite, the problems outside it (FILEs, default
#                                  session 7's and 6's outside.txt and the skinny list) and
#                                  compute-sanitizer on the pipelined row kernels to $OUT
#                                  (scripts/gpu-shapes-s7.sh)
#   scripts/gpu-run.sh shapes-s8 [FILE…]  issue 20, session 8: the batched flagship's GPU tests,
#                                  variant vs batched flagship on N,N batches, deep K old vs new,
#                                  the suite and the problems outside it (FILEs, default session 8's
#                                  outside.txt) to $OUT; PARTS="… sanitize" adds compute-sanitizer
#                                  (scripts/gpu-shapes-s8.sh)
#   scripts/gpu-run.sh shapes-mid [FILE…]  issue 20, session 9: the non-batched problems below 90 %
#                                  under each competing route and grid, the suite twice, the
#                                  outside lists (FILEs) and GEMV variance to $OUT; PARTS picks
#                                  (scripts/gpu-shapes-mid.sh)
#   scripts/gpu-run.sh shapes-gemv [FILE…]  issue 20, session 10: the one-launch matrix–vector
#                                  kernels against the old column kernel and cuBLAS, their splits,
#                                  the small odd problems' routes, compute-sanitizer, the suite and
#                                  the outside lists (FILEs); PARTS picks (scripts/gpu-shapes-gemv.sh)
#   scripts/gpu-run.sh shapes-bops issue 20, session 9: the batched flagship with transposed
#                                  operations against the variants and cuBLAS, the suite's and the
#                                  outside lists' batched rows, compute-sanitizer, its GPU tests
#                                  (PARTS there; scripts/gpu-shapes-bops.sh)
#   scripts/gpu-run.sh shapes-tsingle [FILE…]  issue 20, session 10: one problem with a
#                                  transposed operand on the tuned body (candidates side by side,
#                                  the lists before/after, GPU tests, compute-sanitizer, suite,
#                                  outside lists; PARTS there: scripts/gpu-shapes-tsingle.sh)
#   scripts/gpu-run.sh route-s12 [FILE…]  issue 20, session 12: the route model's moved picks
#                                  (new pick against the old route forced, 3 interleaved
#                                  processes), their neighbours, gpu_tsingle/gpu_route, the suite
#                                  once, the outside lists (FILEs); under 8 minutes; PARTS there
#                                  (scripts/gpu-route-s12.sh)
#   scripts/gpu-run.sh tc [N…]     tensor cores (docs/tensor-cores.md): host matmul N --precision P for
#                                  P in fp32 tf32 3xtf32 bf16 fp16 (cuBLAS of P in-process), N default
#                                  4096 8192, and the BF16 ladder; JSON to $OUT, SM clock to
#                                  $OUT/tc_clock.csv, 3xTF32-vs-FP32 error distribution printed
#   scripts/gpu-run.sh mma [N…]    the mma.sync path against its register-only ceiling and cuBLAS
#                                  BF16 (every BF16 row-major variant, FP16, layouts), SASS counts,
#                                  one ncu launch per kernel; to $OUT/mma.tar.gz (scripts/gpu-mma.sh)
#   scripts/gpu-run.sh matmul N…   host matmul for each size (all kernels + cuBLAS), JSON to $OUT
#   scripts/gpu-run.sh apsp V…     apsp-gen V 40V, then host apsp per block factor (BLOCKS, default
#                                  64 32 16), JSON to $OUT; logs the SM clock to $OUT/clock.csv
#   scripts/gpu-run.sh small [V…]  one graph of V = 1000 1500 2000 3000 (default) under every schedule of
#                                  the rounds (host apsp-small: launches, CUDA graph, persistent, flow
#                                  and pull kernels): compute ms, % of apsp-peak measured in the same
#                                  process, plain and with the stream held (--hold-us), identical to
#                                  the launches, each phase of a round of launches alone (round_costs);
#                                  first the schedules' GPU test and identity at awkward V
#                                  (scripts/gpu-small.sh); JSON to $OUT, SM clock to $OUT/clock_small.csv
#   scripts/gpu-run.sh batch [N V] N (10000) graphs of V (128) vertices, 5V edges: host apsp-batch
#                                  --peak with every register kernel of the class, aggregate compute
#                                  vs apsp-peak, file to file against dd of the disk, and the batched
#                                  blocked classes V = 256, 512 (scripts/gpu-batch.sh); JSON to $OUT
#   scripts/gpu-run.sh shapes [FILE]  host bench sgemm-shapes (the committed suite, or FILE): per
#                                  problem the library vs cuBLAS's matching call, geometric mean;
#                                  JSON Lines to $OUT/sgemm_shapes.jsonl, table to $OUT/sgemm_shapes.txt,
#                                  the SM clock during the run to $OUT/clock.csv
#   scripts/gpu-run.sh skinny      issue 20's skinny classes (scripts/gpu-skinny.sh): the suite and
#                                  host/data/sgemm-shapes-skinny.txt through bench sgemm-shapes,
#                                  then host matmul with named tile and row kernels on thin shapes;
#                                  JSON/tables to $OUT/{suite,extra,variants}, SM clock $OUT/clock.csv
#   scripts/gpu-run.sh sgemm-batch [PART…]  issue 20's batches and thin shapes (scripts/gpu-sgemm-batch.sh):
#                                  GPU tests of the batched class kernels and thin split-K, the
#                                  suite and host/data/sgemm-shapes-skinny.txt (default parts), or
#                                  the timing parts thin, tiny, medium; to $OUT/<part>, clock.csv
#   scripts/gpu-run.sh peak        host apsp-peak (int32 add-min ceiling), JSON to $OUT
#   scripts/gpu-run.sh stats V…    apsp-gen V 40V, then host apsp --stats alone (no distance file),
#                                  JSON to $OUT; prints (compute + statistics) / compute
#   scripts/gpu-run.sh paths V…    apsp-gen V 40V, then host apsp distance-only and with --paths
#                                  (successors, predecessors), block 64, JSON to $OUT; prints the
#                                  compute ratio paths / distance-only (CUDA events); SM clock in
#                                  $OUT/clock_paths.csv
#   scripts/gpu-run.sh paths-variants [V [REPS]]  the same with every path-kernel variant, REPS
#                                  times (scripts/gpu-paths.sh; default 30000 3), $OUT/paths.tar.gz
#   scripts/gpu-run.sh archcmp     the embedded compute_80 PTX against a compute_90 build (bundle's
#                                  gpu_kernels.compute_90.ptx): SGEMM at 4096, APSP at V=10000, SASS counts
#   scripts/gpu-run.sh ooc [V [LIMIT…]]  out of core against in core (scripts/gpu-scale.sh)
#   scripts/gpu-run.sh dist [V]    1 GPU, --gpus 2 and 2 ranks (scripts/gpu-scale.sh; 2 GPUs)
#   scripts/gpu-run.sh bench       the benchmark sweeps (host bench matmul|apsp|threads) as JSON Lines
#                                  and the ncu profile (scripts/gpu-profile.sh): the data of
#                                  docs/RESULTS.md, rendered here by `host report` (see docs/README.md)
#   scripts/gpu-run.sh float [V [ROUNDS [REPS]]]  issue 24's float min-plus kernels (scripts/gpu-float.sh):
#                                  GPU tests, every tile shape on the first ROUNDS rounds at V against
#                                  its ceiling, full solves of the default and the fastest; $OUT/float.tar.gz
#   scripts/gpu-run.sh float-f64 [V [ROUNDS [REPS]]]  the same for f64 only (scripts/gpu-float-f64.sh):
#                                  VARIANTS_F64, FULL_TOP (default 2), FULL_FROM; $OUT/f64.tar.gz
#   scripts/gpu-run.sh float-f32 [V [ROUNDS [REPS]]]  issue 24's float32 kernels only
#                                  (scripts/gpu-float-f32.sh): GPU tests, the f32 sweep of VARIANTS_F32,
#                                  full solves of the default and the 2 fastest; $OUT/float_f32.tar.gz
#   scripts/gpu-run.sh python [quick|matmul]  the Python package (scripts/gpu-python.sh): the wheel in WHEEL_DIR
#                                  (default .whl) into a fresh venv, its GPU tests, its benchmarks
#
# Logs and JSON go to $OUT when it is set (the device tool returns that folder), else ./gpu-out.
# BUNDLE names another bundle directory (default .device/bundle).
set -uo pipefail
B=${BUNDLE:-.device/bundle}
bash "$(dirname "$0")/unpack-bundle.sh" "$B" || exit 1
OUT_DIR=${OUT:-gpu-out}
mkdir -p "$OUT_DIR"
export REQUIRE_GPU=1   # a GPU test that cannot find the GPU or its course data fails here instead of skipping
export APSP_TESTDATA=$B/testdata/apsp
export HOST_BIN=$B/host  # tests that start the binary run it from the bundle, not from target/
if [ -z "${CUBLAS_LIBRARY:-}" ]; then
    CUBLAS_LIBRARY=$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)
    [ -n "$CUBLAS_LIBRARY" ] || CUBLAS_LIBRARY=$(find / -xdev -name 'libcublas.so.13' 2>/dev/null | head -1)
    export CUBLAS_LIBRARY
fi
HOST=$B/host
status=0
run() { echo "+ $*" >&2; "$@" || { echo "FAILED ($?): $*"; status=1; }; }
# One line of totals over the libtest output in LOG. libtest counts a skipped test as passed; each
# skipped test printed one `SKIPPED <test>: <why>` line (core/src/testdata.rs), which moves it.
summarize() { # LOG
    awk '/^test result:/ { for (i = 2; i <= NF; i++) {
             if ($i ~ /^passed;?$/) p += $(i - 1)
             if ($i ~ /^failed;?$/) f += $(i - 1)
             if ($i ~ /^ignored;?$/) ig += $(i - 1) } }
         /SKIPPED [^ :]+: / { s++ }
         /^FAILED \([0-9]+\): / { b++ }
         END { printf "summary: %d passed, %d failed, %d skipped, %d ignored; %d test binaries exited non-zero\n",
                      p - s, f, s, ig, b }' "$1"
}

mode=${1:-check}
shift || true
case "$mode" in
check)
    run nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
    run "$HOST" info
    log=$OUT_DIR/tests.log
    : > "$log"
    for t in "$B"/tests/*; do
        echo "+ $t --test-threads=1" >&2
        # A hung kernel (a grid barrier that never opens) must not eat the whole device call.
        timeout "${TEST_TIMEOUT:-240}" "$t" --test-threads=1 2>&1 | tee -a "$log"
        rc=${PIPESTATUS[0]}
        # A binary that dies before its "test result" line (a crash) is counted here.
        [ "$rc" = 0 ] || { echo "FAILED ($rc): $t" | tee -a "$log"; status=1; }
    done
    run "$HOST" occupancy
    "$HOST" occupancy --json > "$OUT_DIR/occupancy.json"
    summarize "$log" | tee -a "$log"
    ;;
sass)
    cuobjdump --dump-sass "$B"/gpu_kernels.sm_90.cubin > "$OUT_DIR/sass.txt" || status=1
    python3 - "$OUT_DIR/sass.txt" <<'PY'
import re, sys, collections
fn, counts = None, collections.OrderedDict()
pats = ["VIADDMNMX", "IMNMX", "VIMNMX", "VIMNMX3", "FMNMX", "FADD", "IADD3", "FFMA", "LDS.128", "LDS.64", "LDS ", "STS.128", "STS ", "LDG.E.128", "LDG.E.64", "LDG.E ", "STG.E.128", "STG.E.64", "STG.E ", "LDL", "STL", "BAR.SYNC"]
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        fn = m.group(1); counts[fn] = collections.Counter(); continue
    if fn and re.search(r"/\*[0-9a-f]{4}\*/", line):
        for p in pats:
            if re.search(r"\b" + re.escape(p.strip()) + (r"\b" if not p.endswith(" ") else r"\s"), line):
                counts[fn][p.strip()] += 1
for fn, c in counts.items():
    print(fn + ": " + ", ".join(f"{k} {v}" for k, v in c.items() if v))
PY
    ;;
sanitize)
    CS=${COMPUTE_SANITIZER:-compute-sanitizer}
    family=${1:-all}
    [ "$family" = apsp ] || for tool in memcheck racecheck; do
        # every SGEMM kernel of the embedded PTX, as `host info` lists them
        for k in $("$HOST" info | sed -n 's/^  \(matmul_[a-z0-9_]*\) .*/\1/p'); do
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul 256 --kernel "$k" --reps 1 --no-cublas
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul --m 17 --n 33 --k 5 --kernel "$k" --reps 1 --no-cublas
        done
        # the skinny kernels (tiny N or M) with their split-K reduction: aligned, odd, and split
        for k in $("$HOST" info | sed -n 's/^  \(sgemm_\(rows\|cols\)_[a-z0-9_]*\) .*/\1/p'); do
            for shape in "--m 256 --n 256 --k 256" "--m 17 --n 33 --k 5" "--m 33 --n 17 --k 4099" "--m 3 --n 1029 --k 3001"; do
                run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul $shape --kernel "$k" --reps 1 --no-cublas
            done
        done
        # The flagship's transposing and batched variants (flagship_ops): each kernel at an
        # aligned and an odd shape, then the library's choice for every operation pair in a
        # strided batch with odd strides.
        for k in $("$HOST" info | sed -n 's/^  \(sgemm_[nt][nt]_[a-z0-9_]*\) .*/\1/p'); do
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul 256 --kernel "$k" --reps 1 --no-cublas
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul --m 17 --n 33 --k 5 --kernel "$k" --reps 1 --no-cublas
        done
        for t in "" --trans-a --trans-b "--trans-a --trans-b"; do
            # shellcheck disable=SC2086
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul --m 67 --n 45 --k 33 $t --batch 3 --stride-a 3001 --stride-b 2003 --stride-c 3100 --reps 1 --no-cublas
        done
        # The batched small-matrix kernels (sgemm_batched_*) at an aligned and an odd batch, and
        # split-K for a thin problem (the library's route, the sum kernel's tail included).
        for k in $("$HOST" info | sed -n 's/^  \(sgemm_batched_[a-z0-9_]*\) .*/\1/p'); do
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul --m 8 --n 8 --k 8 --batch 67 --kernel "$k" --reps 1 --no-cublas
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul --m 7 --n 5 --k 19 --batch 70 --stride-a 140 --stride-b 101 --stride-c 37 --kernel "$k" --reps 1 --no-cublas
        done
        run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul --m 1000 --n 24 --k 4097 --reps 1 --no-cublas
        # every tensor-core kernel (tc_<kind>_<layouts>_…), at an aligned and an odd shape
        for k in $("$HOST" info | sed -n 's/^  \(tc_[a-z0-9_]*\) .*/\1/p'); do
            p=$(echo "$k" | sed 's/^tc_\(bf16\|fp16\|tf32x3\|tf32\)_.*/\1/; s/tf32x3/3xtf32/')
            case "$k" in *_rr_*) ;; *) continue ;; esac  # the CLI runs row-major operands
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul 256 --precision "$p" --kernel "$k" --reps 1 --no-cublas
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" matmul --m 17 --n 40 --k 24 --precision "$p" --kernel "$k" --reps 1 --no-cublas
        done
    done
    # The Hopper kernels at an aligned and odd shapes (`host sm90 --check`), the one-block
    # default and the pair kernels (clusters of 2), on 9.0 GPUs only.
    if [ "$family" = all ] || [ "$family" = sm90 ]; then
        if nvidia-smi --query-gpu=compute_cap --format=csv,noheader | grep -q '^9\.0'; then
            for tool in memcheck racecheck; do
                run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" sm90 --check --no-timing --schedules wgmma,wgmma_c2
            done
        else
            echo "sanitize sm90: not a compute capability 9.0 GPU, skipped"
        fi
    fi
    [ "$family" = sm90 ] && { exit $status; }
    tmp=$(mktemp -d)
    [ "$family" = matmul ] || for v in 65 1000; do
        "$HOST" apsp-gen "$v" $((v * 8)) --seed 7 -o "$tmp/g$v.in" >/dev/null
        for tool in memcheck racecheck synccheck; do
            for b in ${BLOCKS:-16 32 64}; do
                run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" apsp "$tmp/g$v.in" "$tmp/g$v.out" --block "$b" --no-peak
            done
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" apsp "$tmp/g$v.in" --stats "$tmp/g$v.csv" --no-peak
            # Every schedule of the rounds (the persistent kernels fw_small_b32/b64 included).
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" apsp-small "$tmp/g$v.in" --reps 1
            for kind in successors predecessors; do
                run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" apsp "$tmp/g$v.in" -o "$tmp/g$v.out" --paths "$tmp/g$v.paths" --path-kind "$kind"
            done
        done
    done
    # The batch kernels (every size class, every variant), the batched blocked kernels (V = 130,
    # 300) and a graph above them (600).
    [ "$family" = matmul ] || {
        mkdir -p "$tmp/batch"
        for v in 1 17 32 50 64 100 128 130 300 600; do
            "$HOST" apsp-gen "$v" $((v * (v - 1) < 4 * v ? v * (v - 1) : 4 * v)) --seed "$v" -o "$tmp/batch/g$v.in" >/dev/null
        done
        for tool in memcheck racecheck synccheck; do
            run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" apsp-batch "$tmp/batch" -o "$tmp/batch_out" --quiet
            for k in $("$HOST" info | sed -n 's/^  \(apsp_batch_n[0-9]*_[a-z0-9]*\) .*/\1/p'); do
                run "$CS" --tool "$tool" --error-exitcode 9 "$HOST" apsp-batch "$tmp/batch" -o "$tmp/batch_out" --quiet --kernel "$k"
            done
        done
    }
    ;;
shapes-p)
    run scripts/gpu-shapes-p.sh "$HOST" "$OUT_DIR" "$@"
    ;;
shapes-route)
    run scripts/gpu-shapes-route.sh "$B" "$OUT_DIR"
    ;;
shapes-s6)
    # Issue 20, session 6's single problems: scripts/gpu-shapes-s6.sh [OUTSIDE-FILE].
    bash scripts/gpu-shapes-s6.sh "$B" "$OUT_DIR" "$@" || status=1
    ;;
shapes-s7)
    # Issue 20, session 7: scripts/gpu-shapes-s7.sh [OUTSIDE-FILE…].
    bash scripts/gpu-shapes-s7.sh "$B" "$OUT_DIR" "$@" || status=1
    ;;
shapes-s8)
    # Issue 20, session 8: scripts/gpu-shapes-s8.sh [OUTSIDE-FILE…] (PARTS there).
    bash scripts/gpu-shapes-s8.sh "$B" "$OUT_DIR" "$@" || status=1
    ;;
shapes-mid)
    # Issue 20, session 9: scripts/gpu-shapes-mid.sh [OUTSIDE-FILE…] (PARTS there).
    bash scripts/gpu-shapes-mid.sh "$B" "$OUT_DIR" "$@" || status=1
    ;;
shapes-gemv)
    # Issue 20, session 10: scripts/gpu-shapes-gemv.sh [OUTSIDE-FILE…] (PARTS there).
    bash scripts/gpu-shapes-gemv.sh "$B" "$OUT_DIR" "$@" || status=1
    ;;
shapes-bops)
    # Issue 20, session 9: scripts/gpu-shapes-bops.sh (PARTS there).
    bash scripts/gpu-shapes-bops.sh "$B" "$OUT_DIR" || status=1
    ;;
shapes-tsingle)
    # Issue 20, session 10: scripts/gpu-shapes-tsingle.sh [OUTSIDE-FILE…] (PARTS there).
    bash scripts/gpu-shapes-tsingle.sh "$B" "$OUT_DIR" "$@" || status=1
    ;;
route-s12)
    # Issue 20, session 12: scripts/gpu-route-s12.sh [OUTSIDE-FILE…] (PARTS there).
    bash scripts/gpu-route-s12.sh "$B" "$OUT_DIR" "$@" || status=1
    ;;
tf32)
    # The f32 Hopper GEMM (TF32, 3xTF32 on wgmma): scripts/gpu-tf32.sh [N…].
    OUT="$OUT_DIR" BUNDLE="${BUNDLE:-.device/bundle}" bash "$(dirname "$0")/gpu-tf32.sh" "$@"
    exit $?
    ;;
mma)
    # The mma.sync path against its ceiling: scripts/gpu-mma.sh [N…].
    OUT="$OUT_DIR" BUNDLE="${BUNDLE:-.device/bundle}" bash "$(dirname "$0")/gpu-mma.sh" "$@"
    exit $?
    ;;
sm90-rounds)
    # Issue 21's Hopper targets, ours and cuBLAS interleaved in rounds: scripts/gpu-sm90-rounds.sh.
    OUT="$OUT_DIR" BUNDLE="${BUNDLE:-.device/bundle}" bash "$(dirname "$0")/gpu-sm90-rounds.sh"
    exit $?
    ;;
sm90-tf32)
    # Issue 21's TF32 target with B row-major (loaded by the producer vs split pass vs cuBLAS TF32):
    # scripts/gpu-sm90-tf32.sh (SAN=1 adds compute-sanitizer).
    OUT="$OUT_DIR" BUNDLE="${BUNDLE:-.device/bundle}" bash "$(dirname "$0")/gpu-sm90-tf32.sh"
    exit $?
    ;;
wgmma)
    # The Hopper GEMM's schedules, 16-bit and f32: scripts/gpu-wgmma.sh [N…].
    OUT="$OUT_DIR" BUNDLE="${BUNDLE:-.device/bundle}" bash "$(dirname "$0")/gpu-wgmma.sh" "$@"
    exit $?
    ;;
sm90)
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/sm90_clock.csv" &
    smi=$!
    [ $# -gt 0 ] || set -- 4096 8192
    run "$HOST" sm90 --check "$@" > "$OUT_DIR/sm90.json"
    kill "$smi" 2>/dev/null
    bash scripts/clock-summary.sh "$OUT_DIR/sm90_clock.csv"
    ;;
matmul)
    for n in "$@"; do
        run "$HOST" matmul "$n" --reps 20 --json > "$OUT_DIR/matmul_$n.json"
        python3 - "$OUT_DIR/matmul_$n.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    print(f'{r["m"]:>6} {r["kernel"]:<30} {r["median_ms"]:>9.3f} ms {r["gflops"]:>9.1f} GFLOP/s  {(r["percent_of_cublas"] or 0):>5.1f}% cuBLAS  err {r["max_scaled_error"]}')
PY
    done
    ;;
small)
    run scripts/gpu-small.sh "$HOST" "$OUT_DIR" "$@"
    ;;
skinny)
    run scripts/gpu-skinny.sh "$HOST" "$OUT_DIR"
    ;;
sgemm-batch)
    run scripts/gpu-sgemm-batch.sh "$HOST" "$OUT_DIR" "$@"
    ;;
batch)
    BUNDLE=$B OUT=$OUT_DIR bash scripts/gpu-batch.sh "$@" || status=1
    ;;
shapes)
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
    smi=$!
    run nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
    suite=(); [ -n "${1:-}" ] && suite=(--suite "$1")
    "$HOST" bench -o "$OUT_DIR/sgemm_shapes.jsonl" sgemm-shapes "${suite[@]}" > /dev/null 2> "$OUT_DIR/sgemm_shapes.txt" || { echo "FAILED: sgemm-shapes"; status=1; }
    cat "$OUT_DIR/sgemm_shapes.txt"
    kill "$smi"
    bash scripts/clock-summary.sh "$OUT_DIR/clock.csv" | tee -a "$OUT_DIR/sgemm_shapes.txt"
    ;;
tc)
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/tc_clock.csv" &
    smi=$!
    sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(4096 8192)
    for n in "${sizes[@]}"; do
        for p in fp32 tf32 3xtf32 bf16 fp16; do
            run "$HOST" matmul "$n" --precision "$p" --reps 20 --json > "$OUT_DIR/tc_${p}_$n.json"
        done
        run "$HOST" matmul "$n" --precision bf16 --kernel ladder --reps 20 --json > "$OUT_DIR/tc_ladder_$n.json"
    done
    kill "$smi"
    python3 - "$OUT_DIR" "${sizes[@]}" <<'PY'
import json, sys, glob, os
d = sys.argv[1]
for f in sorted(glob.glob(f"{d}/tc_*.json")):
    try:
        env = json.load(open(f))
    except Exception as e:
        print(f"{os.path.basename(f)}: unreadable ({e})"); continue
    for r in env["results"]:
        tf = r.get("tflops", r.get("gflops", 0) / 1000)
        e = r.get("error") or {}
        print(f'{r["m"]:>6} {r["kernel"]:<26} {r.get("precision", "fp32"):>7} {r["median_ms"]:>9.3f} ms {tf:>7.1f} TFLOP/s '
              f'{(r["percent_of_cublas"] or 0):>6.1f}% cuBLAS  err/bound {r["max_scaled_error"]}  '
              f'rel err p50 {e.get("p50", float("nan")):.2e} p99 {e.get("p99", float("nan")):.2e} max {e.get("max", float("nan")):.2e}')
PY
    bash scripts/clock-summary.sh "$OUT_DIR/tc_clock.csv"
    ;;
peak)
    run "$HOST" apsp-peak --json > "$OUT_DIR/apsp_peak.json"
    cat "$OUT_DIR/apsp_peak.json"
    ;;
apsp)
    tmp=${APSP_TMP:-/tmp/apsp}
    mkdir -p "$tmp"
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
    smi=$!
    for v in "$@"; do
        "$HOST" apsp-gen "$v" $((v * 40)) --seed 1 -o "$tmp/g$v.in"
        for b in ${BLOCKS:-64 32 16}; do
            run "$HOST" apsp "$tmp/g$v.in" -o "$tmp/g$v.out" --block "$b" --json > "$OUT_DIR/apsp_${v}_b$b.json"
            cat "$OUT_DIR/apsp_${v}_b$b.json"
        done
        rm -f "$tmp/g$v.out"
    done
    kill "$smi"
    ;;
stats)
    tmp=${APSP_TMP:-/tmp/apsp}
    mkdir -p "$tmp"
    for v in "$@"; do
        "$HOST" apsp-gen "$v" $((v * 40)) --seed 1 -o "$tmp/g$v.in"
        run "$HOST" apsp "$tmp/g$v.in" --stats "$tmp/g$v.csv" --json > "$OUT_DIR/stats_$v.json"
        python3 - "$OUT_DIR/stats_$v.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
c, t = r["split"]["compute_s"], r["stats"]["times"]
extra = t["reduce_s"] + t["device_to_host_s"] + t["finish_s"]
print(f'V={r["vertices"]}: compute {c:.4f} s, statistics {extra:.4f} s (reduce {t["reduce_s"]:.4f}), '
      f'ratio {(c + extra) / c:.4f}, output {r["output"]}, copied back {r["split"]["device_to_host_s"]} s')
PY
        rm -f "$tmp/g$v.in"
    done
    ;;
paths)
    tmp=${APSP_TMP:-/tmp/apsp}
    mkdir -p "$tmp"
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock_paths.csv" &
    smi=$!
    for v in "$@"; do
        "$HOST" apsp-gen "$v" $((v * 40)) --seed 1 -o "$tmp/g$v.in"
        run "$HOST" apsp "$tmp/g$v.in" -o "$tmp/g$v.out" --block 64 --no-peak --json > "$OUT_DIR/paths_${v}_none.json"
        for kind in successors predecessors; do
            run "$HOST" apsp "$tmp/g$v.in" -o "$tmp/g$v.out" --paths "$tmp/g$v.paths" --path-kind "$kind" --json > "$OUT_DIR/paths_${v}_$kind.json"
            run "$HOST" path "$tmp/g$v.paths" 0 $((v - 1)) --distances "$tmp/g$v.out"
        done
        python3 - "$OUT_DIR" "$v" <<'PY'
import json, sys
d, v = sys.argv[1], sys.argv[2]
base = json.load(open(f"{d}/paths_{v}_none.json"))["results"]["split"]["compute_s"]
for kind in ("successors", "predecessors"):
    r = json.load(open(f"{d}/paths_{v}_{kind}.json"))["results"]
    print(f'V={v} {kind}: compute {r["compute_s"]:.4f} s vs distance-only {base:.4f} s: ratio {r["compute_s"] / base:.3f} '
          f'(write distances {r["write_distances_s"]:.2f} s, paths {r["write_paths_s"]:.2f} s)')
PY
        rm -f "$tmp/g$v.in" "$tmp/g$v.out" "$tmp/g$v.paths"
    done
    kill "$smi"
    ;;
paths-variants)
    # Every variant of the path kernels against distance-only, repeated (scripts/gpu-paths.sh).
    bash scripts/gpu-paths.sh "$@" || status=1
    ;;
archcmp)
    alt=$B/gpu_kernels.compute_90.ptx
    [ -f "$alt" ] || { echo "no $alt: run 'cargo xtask build-ptx --arch compute_90' before gpu-bundle"; exit 1; }
    tmp=$(mktemp -d)
    "$HOST" apsp-gen 10000 400000 --seed 1 -o "$tmp/g.in" >/dev/null
    for variant in embedded compute_90; do
        ptx=(); [ $variant = compute_90 ] && ptx=(--ptx "$alt")
        run "$HOST" matmul 4096 --reps 20 --no-cublas --verify none --json "${ptx[@]}" > "$OUT_DIR/archcmp_matmul_$variant.json"
        run "$HOST" apsp "$tmp/g.in" -o "$tmp/g_$variant.out" --json "${ptx[@]}" > "$OUT_DIR/archcmp_apsp_$variant.json"
    done
    run cmp "$tmp/g_embedded.out" "$tmp/g_compute_90.out"
    python3 - "$OUT_DIR" <<'PY'
import json, sys
d = sys.argv[1]
m = {v: {r["kernel"]: r["gflops"] for r in json.load(open(f"{d}/archcmp_matmul_{v}.json"))["results"]} for v in ("embedded", "compute_90")}
print(f'{"kernel":<32} {"compute_80 GFLOP/s":>19} {"compute_90 GFLOP/s":>19} {"ratio":>6}')
for k in m["embedded"]:
    a, b = m["embedded"][k], m["compute_90"].get(k)
    print(f'{k:<32} {a:>19.1f} {b:>19.1f} {a / b:>6.3f}')
for v in ("embedded", "compute_90"):
    r = json.load(open(f"{d}/archcmp_apsp_{v}.json"))["results"]
    print(f'apsp V=10000 {v:<11} compute {r["split"]["compute_s"]:.3f} s')
PY
    for c in "$B"/gpu_kernels.sm_90.cubin "$B"/gpu_kernels.compute_90.sm_90.cubin; do
        cuobjdump --dump-sass "$c" > "$OUT_DIR/$(basename "$c" .cubin).sass" || status=1
    done
    ;;
ooc | dist)
    scripts/gpu-scale.sh "$mode" "$@" || status=1
    ;;
bench)
    for suite in matmul apsp threads; do
        run "$HOST" bench -o "$OUT_DIR/bench_$suite.jsonl" "$suite" >/dev/null
    done
    run scripts/gpu-profile.sh
    ;;
python)
    run scripts/gpu-python.sh "$@"
    ;;
float)
    run scripts/gpu-float.sh "$@"
    ;;
float-f64)
    run scripts/gpu-float-f64.sh "$@"
    ;;
float-f32)
    run scripts/gpu-float-f32.sh "$@"
    ;;
*)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
exit $status
