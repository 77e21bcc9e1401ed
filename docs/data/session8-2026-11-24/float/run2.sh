# float (issue 24), session 8, device call 2 (same bundle): why the persistent phase 3 is slower.
# The driver's blocks per SM of the phase-3 kernels (`host occupancy`), then ncu of one phase-3
# launch at V = 12000 of the default (grid), two persistent f32 shapes and the f64 one.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/float; H=.device/bundle/host
tar xJf $D/bundle.tar.xz || exit 1
mkdir -p "$OUT0"; W=$(mktemp -d)
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader
timeout 20 $H occupancy > $W/occupancy.txt 2>&1; echo "occupancy rc=$?"
grep -E "fwf32(r|s|v)_phase3|fwf64(f|t)_phase3" $W/occupancy.txt
for spec in "f32 t8x8_k64_pair_u2 fwf32r_phase3_b64" "f32 t8x8_k32_pair_u2_ps fwf32s_phase3_b64" "f32 t8x8_k32_u2_ps fwf32v_phase3_b64" "f64 r8c4_k16_a2_ps fwf64t_phase3_b64"; do
  set -- $spec
  T0=$SECONDS
  timeout 30 ncu --clock-control none --kernel-name $3 --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section SchedulerStats --section WarpStateStats --section Occupancy --section LaunchStats \
    $H apsp-float 12000 --weight $1 --variants $2 --rounds 2 --reps 1 > $W/ncu_$2.txt 2>&1; echo "ncu $2 rc=$? $((SECONDS-T0)) s"
  grep -E "Duration|Registers Per|Grid Size|Block Size|Waves Per|No Eligible|Active Warps Per Sch|Eligible Warps|Warp Cycles Per Issued|Block Limit|Theoretical Occ|Achieved Occ|Achieved Active|Compute \(SM\) Thr|Issue Slots" $W/ncu_$2.txt | head -24
done
tar czf "$OUT0/ncu.tar.gz" -C $W .
