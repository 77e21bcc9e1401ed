#!/usr/bin/env bash
# float (issue 24), session 5 device call: SASS counts of the float kernels; GPU tests; every
# tile shape of f32/f64 timed at V = 30000 (first 48 / 32 rounds, 3 reps, interleaved) against
# its ceiling; full V = 30000 solves (3 reps) of the old default and the sweep's best of each
# type; ncu warp-state stats of the best phase 3 of each type at V = 12000.
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
timeout 40 $H apsp-float 30000 --weight f64 --variants all --rounds 32 --reps 3 --json > "$OUT0/sweep_f64.json" 2> "$OUT0/sweep_f64.err"; echo "f64 sweep rc=$? $((SECONDS-T0)) s"
python3 $D/show.py "$OUT0/sweep_f64.json"
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | tee -a "$OUT0/clock1.csv"
B32=$(python3 $D/best.py "$OUT0/sweep_f32.json"); B64=$(python3 $D/best.py "$OUT0/sweep_f64.json")
echo "best: f32 $B32, f64 $B64"
T0=$SECONDS
timeout 40 $H apsp-float 30000 --weight f32 --variants default,$B32 --reps 3 --json > "$OUT0/full_f32.json" 2> "$OUT0/full_f32.err"; echo "f32 full rc=$? $((SECONDS-T0)) s"
python3 $D/show.py "$OUT0/full_f32.json"
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | tee -a "$OUT0/clock1.csv"
T0=$SECONDS
timeout 85 $H apsp-float 30000 --weight f64 --variants default,$B64 --reps 3 --json > "$OUT0/full_f64.json" 2> "$OUT0/full_f64.err"; echo "f64 full rc=$? $((SECONDS-T0)) s"
python3 $D/show.py "$OUT0/full_f64.json"
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader | tee -a "$OUT0/clock1.csv"
for w in f32 f64; do
  [ $SECONDS -gt 150 ] && break
  if [ $w = f32 ]; then K=$B32; else K=$B64; fi
  P3=$(python3 -c "import json,sys; d=json.load(open('$OUT0/sweep_$w.json')); r=d.get('results',d); print([t['phase3'] for t in r[0]['variants'] if t['variant']=='$K'][0])")
  T0=$SECONDS
  timeout 18 ncu --clock-control none --kernel-name "$P3" --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy \
    $H apsp-float 12000 --weight $w --variants $K --rounds 2 --reps 1 > "$OUT0/ncu_$w.txt" 2>&1; echo "ncu $w $P3 rc=$? $((SECONDS-T0)) s"
  grep -E "Duration|SM Frequency|Issue Slots Busy|Issued Ipc|No Eligible|Stall|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Block Limit|Eligible Warps|Active Warps" "$OUT0/ncu_$w.txt" | head -30
done

python3 - <<'PY' > "$OUT0/sass_float_loops.txt"
import re
fn=None; keep=False
for line in open('/tmp/sass.txt'):
    m=re.search(r"Function : (\S+)", line)
    if m: fn=m.group(1); keep=('phase3' in fn and 'fwf' in fn) or 'addmin_peak_f64' in fn
    if keep: print(line.rstrip())
PY
gzip "$OUT0/sass_float_loops.txt"
