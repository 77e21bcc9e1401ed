# float32 (issue 24), session 10, device call 1: the float GPU tests (every tile shape equal to the
# CPU reference, the A-transposed ones included), the f32 sweep of the A-transposed shapes against
# the default (V = 30000, first 48 rounds, 3 reps, interleaved) with the ceiling in the same
# process, full solves of the default and the sweep's 2 fastest, then the driver's blocks per SM
# and ncu (stall reasons) of one phase-3 launch of the default and of an A-transposed shape.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/f32; H=.device/bundle/host
tar xJf $D/bundle.tar.xz || exit 1
mkdir -p "$OUT0"; W=$(mktemp -d)
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader
export VARIANTS_F32=default,t8x8_k64_pair_at_r128,t8x8_k64_pair_at_u2_r128,t8x8_k64_pair_at_r168,t8x8_k32_pair_at_r96,t8x8_k64_lean
export FULL_TOP=2 FULL_TIMEOUT=60
OUT=$OUT0 bash $D/gpu-float-f32.sh 30000 48 3 > "$OUT0/summary.txt" 2>&1; cat "$OUT0/summary.txt"
timeout 20 $H occupancy > $W/occupancy.txt 2>&1; echo "occupancy rc=$?"
grep -E "fwf32(w|ta|tb|tc|td)_phase(2|3)" $W/occupancy.txt
for spec in "t8x8_k64_pair_u2_o32 fwf32w_phase3_b64" "t8x8_k64_pair_at_r128 fwf32ta_phase3_b64" "t8x8_k32_pair_at_r96 fwf32td_phase3_b64"; do
  set -- $spec
  T0=$SECONDS
  timeout 35 ncu --clock-control none --kernel-name $2 --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio \
    $H apsp-float 12000 --weight f32 --variants $1 --rounds 2 --reps 1 > $W/ncu_$1.txt 2>&1; echo "ncu $1 rc=$? $((SECONDS-T0)) s"
  grep -E "Duration|Registers Per|No Eligible|Active Warps Per Sch|Eligible Warps|Warp Cycles Per Issued|Block Limit Reg|Achieved Active|Compute \(SM\) Thr" $W/ncu_$1.txt | head -12
  grep -E "issue_stalled" $W/ncu_$1.txt | awk '$NF+0 >= 0.03' | sed 's/smsp__average_warps_issue_stalled_//'
done
cp $OUT0/float_clock.csv $W/ 2>/dev/null
tar czf "$OUT0/extra.tar.gz" -C $W .
