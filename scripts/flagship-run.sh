#!/usr/bin/env bash
# The flagship SGEMM's GPU runs (issue #9), on the GPU machine, from a folder holding the bundle
# that `cargo xtask gpu-bundle` built (host, tests/, cubin, COMMIT) and this scripts/ folder:
#
#   scripts/flagship-run.sh MODE…   with MODE one of
#     tune       every flagship kernel and cuBLAS at the target shapes (median of 20)
#     group      the default kernel (or $GROUP_KERNELS, comma-separated) at 4096 and 8192 under
#                rasterization groups $GROUPS_TRIED (default 1 4 8 16)
#     autotune   `host tune --json` (timed), writing the cache $RGK_SGEMM_TUNE (default:
#                $OUT/sgemm-tune.json, which the modes after it then use)
#     final      `host matmul SHAPE --reps 30` (default kernel: the flagship) at the target shapes
#     default    as final, with the tuning cache off (the per-architecture default picks)
#     repeat     `host matmul 4096` and `8192 --reps 30`, $REPEAT (default 3) times each
#     schedule   the library's kernel at the target shapes under each schedule
#                (RGK_SGEMM_SCHEDULE data-parallel, stream-k), alternated $REPEAT times
#     test       the GPU test binaries (SGEMM, matmul, occupancy) and `host occupancy`
#     sanitize   compute-sanitizer memcheck and racecheck on every flagship kernel (or those
#                in $SANITIZE_KERNELS), at an aligned (2176x4352x64) and an odd (1100x4100x37)
#                shape, both with stream-K (docs/stream-k.md)
#     ncu        cuBLAS and $NCU_KERNEL at 4096 under ncu (kernel names, scheduler, warp states)
#     ptxvar     $VAR_KERNELS from each ptxvar/*.ptx (other builds, loaded with --ptx) at $VAR_SIZES
#     sass       instruction counts per flagship kernel from the cubin
#
# Everything goes to $OUT (the device tool returns it) as at most 8 files: run.log, one JSON
# Lines file per timing mode, clock.csv (SM clock every 200 ms), sass.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-gpu-out}
mkdir -p "$OUT_DIR"
export REQUIRE_GPU=1
export RGK_SGEMM_TUNE=${RGK_SGEMM_TUNE:-$OUT_DIR/sgemm-tune.json}
if [ -z "${CUBLAS_LIBRARY:-}" ]; then
    CUBLAS_LIBRARY=$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)
    export CUBLAS_LIBRARY
fi
HOST=./host
LOG="$OUT_DIR/run.log"
status=0
run() { echo "+ $*" | tee -a "$LOG" >&2; "$@" 2>&1 | tee -a "$LOG"; local rc=${PIPESTATUS[0]}; [ "$rc" = 0 ] || { echo "FAILED ($rc): $*" | tee -a "$LOG"; status=1; }; }

SHAPES=("1024" "2048" "4096" "8192" "--m 4097 --n 4095 --k 1023")
{
    echo "commit $(cat COMMIT 2>/dev/null)  date $(date -u +%FT%TZ)"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu --format=csv
} | tee -a "$LOG"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
CLOCK_PID=$!

# One JSON record per line: host matmul's JSON, flattened, with the mode and shape added.
matmul_jsonl() {
    local file=$1; shift
    "$HOST" matmul "$@" --json > /tmp/m.json 2>>"$LOG" || { echo "FAILED: matmul $*" | tee -a "$LOG"; status=1; }
    python3 - "$file" "$*" <<'PY' | tee -a "$LOG"
import json, sys, os
d = json.load(open("/tmp/m.json"))
with open(sys.argv[1], "a") as f:
    for r in d["results"]:
        r["args"] = sys.argv[2]; r["group"] = os.environ.get("RGK_SGEMM_GROUP", "default")
        f.write(json.dumps(r) + "\n")
        sch = f'{r.get("schedule", "-")}/{r.get("stream_k_blocks", "-")}'
        print(f'{r["m"]:>5}x{r["n"]:<5}x{r["k"]:<5} {r["kernel"]:<30} {sch:<17} {r["median_ms"]:>8.3f} ms {r["gflops"]/1e3:>6.2f} TF/s {(r["percent_of_cublas"] or 0):>6.1f}% cuBLAS  fail {r["failures"]} err {r["max_scaled_error"]}')
PY
}

for mode in "$@"; do
    echo "=== $mode" | tee -a "$LOG"
    case "$mode" in
    tune)
        for s in "${SHAPES[@]}"; do
            # shellcheck disable=SC2086
            matmul_jsonl "$OUT_DIR/tune.jsonl" $s --kernel flagship --reps 20 --verify sample
        done
        ;;
    group)
        for g in ${GROUPS_TRIED:-1 4 8 16}; do
            for s in 4096 8192; do
                RGK_SGEMM_GROUP=$g matmul_jsonl "$OUT_DIR/group.jsonl" "$s" --reps 20 --verify none \
                    --kernel "${GROUP_KERNELS:-sgemm}"
            done
        done
        ;;
    autotune)
        start=$(date +%s%N)
        "$HOST" tune --json > "$OUT_DIR/tune.json" 2>>"$LOG" || { echo "FAILED: tune" | tee -a "$LOG"; status=1; }
        echo "host tune took $(( ($(date +%s%N) - start) / 1000000 )) ms (wall, whole process)" | tee -a "$LOG"
        python3 - "$OUT_DIR/tune.json" <<'PY' | tee -a "$LOG"
import json, sys
d = json.load(open(sys.argv[1]))["results"]["cache"]  # inside the envelope (docs/json.md)
print(d["gpu"], f'sweep {d["seconds"]:.1f} s')
for w in d["winners"]:
    print(f'{w["class"]:<8} vec_b={w["vec_b"]!s:<5} {w["kernel"]:<28} group {w["group"]:>2} {w["gflops"]/1e3:6.2f} TF/s {w["percent_of_cublas"] or 0:6.1f}% cuBLAS')
PY
        ;;
    final)
        for s in "${SHAPES[@]}"; do
            # shellcheck disable=SC2086
            matmul_jsonl "$OUT_DIR/final.jsonl" $s --reps 30
        done
        ;;
    default)
        for s in "${SHAPES[@]}"; do
            # shellcheck disable=SC2086
            RGK_SGEMM_TUNE=off matmul_jsonl "$OUT_DIR/default.jsonl" $s --reps 30 --verify sample
        done
        ;;
    repeat)
        for _ in $(seq "${REPEAT:-3}"); do
            for s in 4096 8192; do
                matmul_jsonl "$OUT_DIR/repeat.jsonl" "$s" --reps 30 --verify none
            done
        done
        ;;
    schedule)
        for _ in $(seq "${REPEAT:-3}"); do
            for s in "${SHAPES[@]}"; do
                for sch in data-parallel stream-k; do
                    # shellcheck disable=SC2086
                    RGK_SGEMM_SCHEDULE=$sch matmul_jsonl "$OUT_DIR/schedule.jsonl" $s --reps 30 --verify none
                done
            done
        done
        ;;
    ptxvar)
        # The same kernels from other builds of the PTX (e.g. experiment switches), via --ptx.
        for f in ptxvar/*.ptx; do
            for s in ${VAR_SIZES:-4096 8192}; do
                matmul_jsonl "$OUT_DIR/ptxvar.jsonl" "$s" --reps 20 --verify none --ptx "$f" \
                    --kernel "${VAR_KERNELS:-sgemm}"
            done
        done
        ;;
    test)
        for t in tests/gpu_sgemm tests/gpu_matmul tests/gpu_occupancy; do
            [ -x "$t" ] && run "$t" --test-threads=1
        done
        run "$HOST" occupancy
        ;;
    sanitize)
        for k in ${SANITIZE_KERNELS:-$("$HOST" info 2>/dev/null | grep -o 'sgemm_[a-z0-9_]*' | sort -u)}; do
            for tool in memcheck racecheck; do
                # Grids larger than the GPU and not whole waves, so that stream-K runs.
                run compute-sanitizer --tool "$tool" --error-exitcode 9 "$HOST" matmul --m 2176 --n 4352 --k 64 --kernel "$k" --reps 1 --no-cublas
                run compute-sanitizer --tool "$tool" --error-exitcode 9 "$HOST" matmul --m 1100 --n 4100 --k 37 --kernel "$k" --reps 1 --no-cublas
            done
        done
        ;;
    ncu)
        # cuBLAS and $NCU_KERNEL (default: the library's pick) at 4096: kernel names, scheduler
        # and warp-state statistics.
        ncu --clock-control none --section SpeedOfLight --section SchedulerStats --section WarpStateStats \
            --section ComputeWorkloadAnalysis --section InstructionStats --section LaunchStats -k regex:gemm \
            "$HOST" matmul 4096 --reps 1 --verify none --kernel "${NCU_KERNEL:-sgemm}" > "$OUT_DIR/ncu.txt" 2>&1 || status=1
        grep -E "^  [a-z_0-9]+.*\(|Duration|SM Frequency|Executed Ipc A|Issue Slots Busy|No Eligible|Stall|Registers Per|Grid Size|Block Size|Shared Memory Config|Warp Cycles Per Issued" "$OUT_DIR/ncu.txt" | tee -a "$LOG"
        ;;
    sass)
        cuobjdump --dump-sass gpu_kernels.sm_90.cubin > /tmp/sass.txt || status=1
        python3 - /tmp/sass.txt <<'PY' | tee "$OUT_DIR/sass.txt"
import re, sys, collections
keep = ("FFMA", "LDS", "LDGSTS", "LDG", "STG", "LDL", "STL", "BAR", "DEPBAR", "STS")
fn, counts = None, collections.OrderedDict()
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        fn = m.group(1); counts[fn] = collections.Counter(); continue
    m = re.search(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)", line)
    if fn and m and m.group(1).split(".")[0] in keep:
        counts[fn][m.group(1)] += 1
for fn, c in counts.items():
    if fn.startswith("sgemm_"):
        total = sum(c.values())
        print(fn + ": " + ", ".join(f"{k} {v}" for k, v in sorted(c.items())))
# Register-bank conflicts of the FFMAs: two distinct source registers in one bank (reg % 2,
# Volta and later), neither read from the operand reuse cache (.reuse on the earlier use is
# not tracked here; the flag on this instruction's operand marks it for the next one).
fn, stats = None, collections.OrderedDict()
prev = None
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        fn = m.group(1); stats[fn] = [0, 0]; prev = None; continue
    m = re.search(r"FFMA\S*\s+R(\d+),\s*(-?R\d+(?:\.reuse)?),\s*(-?R\d+(?:\.reuse)?),\s*(-?R\d+(?:\.reuse)?)", line)
    if not (fn and m):
        continue
    srcs = [m.group(i).lstrip("-") for i in (2, 3, 4)]
    regs = [int(x.split(".")[0][1:]) for x in srcs]
    cached = [prev is not None and prev[i][1] and prev[i][0] == regs[i] for i in range(3)]
    live = [(r, i) for i, r in enumerate(regs) if not cached[i]]
    conflict = any(live[a][0] != live[b][0] and live[a][0] % 2 == live[b][0] % 2
                   for a in range(len(live)) for b in range(a + 1, len(live)))
    stats[fn][0] += 1; stats[fn][1] += conflict
    prev = [(regs[i], srcs[i].endswith(".reuse")) for i in range(3)]
for fn, (n, k) in stats.items():
    if fn.startswith("sgemm_"):
        print(f"{fn}: FFMA {n}, bank-conflicted {k} ({100 * k / max(n, 1):.1f}%)")
PY
        ;;
    *)
        echo "unknown mode $mode" | tee -a "$LOG"; status=2 ;;
    esac
done
kill "$CLOCK_PID" 2>/dev/null
python3 - "$OUT_DIR/clock.csv" <<'PY' | tee -a "$LOG"
import sys, statistics
v = []
for line in open(sys.argv[1]):
    parts = [p.strip() for p in line.split(",")]
    if len(parts) > 1 and parts[1].endswith("MHz"):
        v.append(int(parts[1].split()[0]))
busy = [x for x in v if x > 1000]
if v:
    print(f"SM clock: {len(v)} samples, min {min(v)} max {max(v)} MHz, median {statistics.median(v)} MHz")
PY
exit $status
