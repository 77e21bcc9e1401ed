#!/usr/bin/env bash
# Session 20, call 1: the mma.sync target (#21) against the best public mma.sync GEMM. A probe
# (CUDA C++, not project code) times CUTLASS 2.x sm80 tensor-op BF16 GEMMs (A, B row-major, f32
# C) of eleven tile configurations against cuBLAS BF16 in the same process, twice; the project's
# lean kernel and its mma.sync ceiling with cuBLAS in the same call (host matmul); ncu metrics
# (the metric list of scripts/gpu-mma.sh) of three CUTLASS configurations and of ours at 4096.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt; nvidia-smi > $O/smi.txt
export CUBLAS_LIBRARY=$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)
export LD_LIBRARY_PATH=$(dirname $CUBLAS_LIBRARY):${LD_LIBRARY_PATH:-}
g() { # name timeout cmd...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.out 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
g probe1 120 .device/mma/probe 4096 8192
g host_peak4096 60 $B/host matmul 4096 --precision bf16 --kernel peak --reps 20 --verify none --json
g host_lean4096 60 $B/host matmul 4096 --precision bf16 --kernel tc_bf16_rr_w64l_s4 --reps 20 --verify sample --json
g host_lean8192 90 $B/host matmul 8192 --precision bf16 --kernel tc_bf16_rr_w64l_s4 --reps 20 --verify sample --json
g probe2 120 .device/mma/probe 4096 8192
kill $smi
M=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__inst_executed_pipe_tensor_op_hmma.sum,smsp__inst_executed_op_ldsm.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.per_cycle_active,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,launch__shared_mem_per_block_dynamic,launch__block_size,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,gpu__time_duration.sum
for c in 128x256x64_w64x64_s3 128x256x32_w64x64_s3 256x128x64_w64x64_s3 128x128x64_w64x64_s4; do
  PROBE_ONLY=$c g ncu_$c 120 ncu --clock-control none --csv --metrics $M -k regex:Kernel -c 1 .device/mma/probe 4096
done
g ncu_ours 120 ncu --clock-control none --csv --metrics $M -k regex:tc_bf16_rr_w64l_s4 -c 1 $B/host matmul 4096 --precision bf16 --kernel tc_bf16_rr_w64l_s4 --reps 1 --no-cublas --verify none
# The best CUTLASS configuration of probe1 at 4096, once more with full ncu sections and SASS stall samples.
best=$(grep '^n=4096 [0-9]' $O/probe1.out | sort -k3,3g | head -1 | awk '{print $2}')
echo "best $best" >> $O/log.txt
PROBE_ONLY=$best g ncu_best_full 200 ncu --clock-control none --set full --import-source no -k regex:Kernel -c 1 -o $O/best .device/mma/probe 4096
ncu --import $O/best.ncu-rep --page details > $O/best_details.txt 2>&1
ncu --import $O/best.ncu-rep --page source --csv --print-source sass > $O/best_sass.csv 2>&1
xz -9 $O/best_sass.csv; rm -f $O/best.ncu-rep
tar -cJf $OUT/s20_call1.tar.xz -C $OUT w && rm -rf $O
