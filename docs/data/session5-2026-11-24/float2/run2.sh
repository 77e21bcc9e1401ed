#!/usr/bin/env bash
# float2 (issue 24), device call 2: where the float phase 3 loses to its ceiling. ncu (V = 12000,
# 2 rounds, one phase-3 launch after 3) of f64 r8c4_k32_a2_r128 and r8c4_k32, of f32 t8x8_k64,
# and of the two ceiling kernels: warp-stall breakdown per issued instruction, pipe utilisation.
set -u
OUT0=${OUT:-/tmp/out}; D=.device-h/float
W=/tmp/w; mkdir -p "$OUT0" $W
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
echo "commit $(cat $B/COMMIT)"; date -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
M='regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,regex:sm__inst_executed_pipe_.*\.avg\.pct_of_peak_sustained_active,regex:sm__pipe_.*_cycles_active\.avg\.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum'
prof() { # name weight variant kernel skip
  T0=$SECONDS
  timeout 25 ncu --clock-control none --kernel-name "$4" --launch-skip $5 --launch-count 1 \
    --section WarpStateStats --section SchedulerStats --section Occupancy --metrics "$M" \
    $H apsp-float 12000 --weight $2 --variants $3 --rounds 2 --reps 1 > $W/ncu_$1.txt 2>&1
  echo "== $1 $4 rc=$? $((SECONDS-T0)) s"
  grep -E "issue_stalled|pipe_.*(fp64|fma|alu|lsu|fmaheavy|fp16)|issue_active|No Eligible|Eligible Warps|Active Warps Per Sch|Warp Cycles Per Issued|gpu__time_duration|cycles_elapsed" $W/ncu_$1.txt | awk '$NF+0 > 0.05 || /No Elig|Warps|Warp Cyc|duration|elapsed/' | head -40
}
prof f64_a2r128 f64 r8c4_k32_a2_r128 fwf64f_phase3_b64 3
prof f64_k32 f64 r8c4_k32 fwf64d_phase3_b64 3
prof f64_peak f64 r8c4_k32 apsp_addmin_peak_f64 2
prof f32_k64 f32 t8x8_k64 fwf32_phase3_b64 3
prof f32_peak f32 t8x8_k64 apsp_addmin_peak_f32 2
tar czf "$OUT0/ncu2.tar.gz" -C $W .
