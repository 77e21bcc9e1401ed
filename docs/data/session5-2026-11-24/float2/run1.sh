#!/usr/bin/env bash
# float2 (issue 24), session 5 device call: GPU tests; every float tile shape (with the new
# 2-k A loads and register caps) timed at V = 30000 (first 48 rounds, 3 reps, interleaved)
# against its ceiling; full V = 30000 solves (3 reps) of the default and the sweep's best of
# each type; ncu warp-state stats of each type's best phase 3 at V = 12000.
set -u
OUT0=${OUT:-/tmp/out}; D=.device-h/float
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv | tee "$OUT0/clock0.csv"
T0=$SECONDS
REQUIRE_GPU=1 timeout 25 $B/tests/gpu_apsp_float --test-threads=1 2>&1 | grep -E "^test |test result|panicked" | tee "$OUT0/gpu_apsp_float.log"; echo "tests $((SECONDS-T0)) s"
for w in f32 f64; do
  T0=$SECONDS
  timeout 50 $H apsp-float 30000 --weight $w --variants all --rounds 48 --reps 3 --json > "$OUT0/sweep_$w.json" 2> "$OUT0/sweep_$w.err"; echo "$w sweep rc=$? $((SECONDS-T0)) s"
  python3 $D/show.py "$OUT0/sweep_$w.json"
done
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | tee -a "$OUT0/clock1.csv"
B32=$(python3 $D/best.py "$OUT0/sweep_f32.json"); B64=$(python3 $D/best.py "$OUT0/sweep_f64.json")
echo "best: f32 $B32, f64 $B64"
for w in f32 f64; do
  if [ $w = f32 ]; then K=$B32; L=30; else K=$B64; L=75; fi
  T0=$SECONDS
  timeout $L $H apsp-float 30000 --weight $w --variants default,$K --reps 3 --json > "$OUT0/full_$w.json" 2> "$OUT0/full_$w.err"; echo "$w full rc=$? $((SECONDS-T0)) s"
  python3 $D/show.py "$OUT0/full_$w.json"
  nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | tee -a "$OUT0/clock1.csv"
done
for w in f64 f32; do
  [ $SECONDS -gt 170 ] && break
  if [ $w = f32 ]; then K=$B32; else K=$B64; fi
  P3=$(python3 -c "import json,sys; d=json.load(open('$OUT0/sweep_$w.json')); r=d.get('results',d); print([t['phase3'] for t in r[0]['variants'] if t['variant']=='$K'][0])")
  T0=$SECONDS
  timeout 12 ncu --clock-control none --kernel-name "$P3" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy \
    $H apsp-float 12000 --weight $w --variants $K --rounds 2 --reps 1 > "$OUT0/ncu_$w.txt" 2>&1; echo "ncu $w $P3 rc=$? $((SECONDS-T0)) s"
  grep -E "Duration|Registers Per|No Eligible|Active Warps Per Sch|Eligible Warps|Warp Cycles Per Issued|Block Limit Reg|Block Limit Shared|Theoretical Active|Achieved Active" "$OUT0/ncu_$w.txt" | head -14
done
