#!/usr/bin/env bash
# float (issue 24), device call 1: SASS of the float kernels and their ceilings; every tile
# shape of the f32/f64 Floyd–Warshall timed at V = 30000 (first 48 / 24 rounds, 3 reps,
# interleaved); full V = 30000 solves (3 reps) of the default and the sweep's best of each type;
# ncu warp-state stats of both defaults' phase 3 at V = 12000.
set -u
OUT0=${OUT:-/tmp/out}; D=.device-h/float
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv | tee "$OUT0/clock0.csv"
cuobjdump --dump-sass $B/gpu_kernels.sm_90.cubin > /tmp/sass.txt
python3 $D/sass.py /tmp/sass.txt "$OUT0" | tee "$OUT0/sass_counts.txt"
T0=$SECONDS
REQUIRE_GPU=1 timeout 25 $B/tests/gpu_apsp_float --test-threads=1 2>&1 | grep -E "^test |test result|panicked" | tee "$OUT0/gpu_apsp_float.log"; echo "tests $((SECONDS-T0)) s"
T0=$SECONDS
timeout 40 $H apsp-float 30000 --weight f32 --variants all --rounds 48 --reps 3 --json > "$OUT0/sweep_f32.json" 2> "$OUT0/sweep_f32.err"; echo "f32 sweep rc=$? $((SECONDS-T0)) s"
python3 $D/show.py "$OUT0/sweep_f32.json"
T0=$SECONDS
timeout 45 $H apsp-float 30000 --weight f64 --variants all --rounds 24 --reps 3 --json > "$OUT0/sweep_f64.json" 2> "$OUT0/sweep_f64.err"; echo "f64 sweep rc=$? $((SECONDS-T0)) s"
python3 $D/show.py "$OUT0/sweep_f64.json"
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | tee -a "$OUT0/clock1.csv"
B32=$(python3 $D/best.py "$OUT0/sweep_f32.json"); B64=$(python3 $D/best.py "$OUT0/sweep_f64.json")
echo "best: f32 $B32, f64 $B64"
T0=$SECONDS
timeout 40 $H apsp-float 30000 --weight f32 --variants default,$B32 --reps 3 --json > "$OUT0/full_f32.json" 2> "$OUT0/full_f32.err"; echo "f32 full rc=$? $((SECONDS-T0)) s"
python3 $D/show.py "$OUT0/full_f32.json"
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | tee -a "$OUT0/clock1.csv"
T0=$SECONDS
timeout 60 $H apsp-float 30000 --weight f64 --variants $B64 --reps 3 --json > "$OUT0/full_f64.json" 2> "$OUT0/full_f64.err"; echo "f64 full rc=$? $((SECONDS-T0)) s"
python3 $D/show.py "$OUT0/full_f64.json"
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | tee -a "$OUT0/clock1.csv"
for w in f64 f32; do
  [ $SECONDS -gt 165 ] && break
  T0=$SECONDS
  timeout 25 ncu --clock-control none --kernel-name regex:"fw${w}_phase3" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy \
    $H apsp-float 12000 --weight $w --rounds 2 --reps 1 > "$OUT0/ncu_$w.txt" 2>&1; echo "ncu $w rc=$? $((SECONDS-T0)) s"
  grep -E "Duration|SM Frequency|Issue Slots Busy|Issued Ipc|No Eligible|Stall|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Block Limit|Eligible Warps|Active Warps" "$OUT0/ncu_$w.txt" | head -30
done
