#!/usr/bin/env bash
# Session 20, call 6: ncu of the committed `tc_bf16_rr_w64i_s4` at 4096 (the metric list of
# scripts/gpu-mma.sh, then --set full with the SASS stall samples), call 4's bundle.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
g() { # name timeout cmd...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.out 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
M=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__inst_executed_pipe_tensor_op_hmma.sum,smsp__inst_executed_op_ldsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.per_cycle_active,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum
for k in tc_bf16_rr_w64i_s4 tc_bf16_rr_w64l_s4; do
  g ncu_$k 120 ncu --clock-control none --csv --metrics $M -k regex:$k -c 1 $B/host matmul 4096 --precision bf16 --kernel $k --reps 1 --no-cublas --verify none
done
g ncu_full 200 ncu --clock-control none --set full --import-source no -k regex:tc_bf16_rr_w64i_s4 -c 1 -o $O/w64i $B/host matmul 4096 --precision bf16 --kernel tc_bf16_rr_w64i_s4 --reps 1 --no-cublas --verify none
ncu --import $O/w64i.ncu-rep --page details > $O/w64i_details.txt 2>&1
ncu --import $O/w64i.ncu-rep --page source --csv --print-source sass > $O/w64i_sass.csv 2>&1
xz -9 $O/w64i_sass.csv; rm -f $O/w64i.ncu-rep
tar -cJf $OUT/s20_call6.tar.xz -C $OUT w && rm -rf $O
