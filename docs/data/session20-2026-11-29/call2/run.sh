#!/usr/bin/env bash
# Session 20, call 2: the `interleave` kernels (`_w64i_s4`, CUTLASS's sm_80 loop order) against
# `_w64l_s4` and cuBLAS in the same processes (three processes per size, every layout at 4096),
# the CUTLASS probe once more, the tensor-core GPU tests, compute-sanitizer on the new kernel,
# ncu metrics of both at 4096.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
export CUBLAS_LIBRARY=$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)
export LD_LIBRARY_PATH=$(dirname $CUBLAS_LIBRARY):${LD_LIBRARY_PATH:-}
g() { # name timeout cmd...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.out 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 50 > $O/clock.csv 2>/dev/null &
smi=$!
for p in 1 2 3; do
  for n in 4096 8192; do
    g bf16_${n}_p$p 120 $B/host matmul $n --precision bf16 --kernel tc_bf16_rr_w64l_s4,tc_bf16_rr_w64i_s4 --reps 20 --verify sample --json
  done
done
g fp16_4096 90 $B/host matmul 4096 --precision fp16 --kernel tc_fp16_rr_w64l_s4,tc_fp16_rr_w64i_s4 --reps 20 --verify sample --json
g fp16_8192 120 $B/host matmul 8192 --precision fp16 --kernel tc_fp16_rr_w64l_s4,tc_fp16_rr_w64i_s4 --reps 20 --verify sample --json
for t in "--trans-b:rc" "--trans-a:cr" "--trans-a --trans-b:cc"; do
  flags=${t%:*} lay=${t#*:}
  for p in bf16 fp16; do
    g layouts_${p}_$lay 90 $B/host matmul 4096 --precision $p $flags --kernel tc_${p}_${lay}_w64l_s4,tc_${p}_${lay}_w64i_s4 --reps 20 --verify sample --json
  done
done
g probe 120 .device/mma/probe 4096 8192
kill $smi
g tests_tc 300 $B/tests/gpu_tc --test-threads 4
for tool in memcheck racecheck; do
  for shape in "--m 256 --n 512 --k 256" "--m 300 --n 520 --k 200" "--m 17 --n 40 --k 24"; do
    s=$(date +%s)
    timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 $B/host matmul $shape --precision bf16 --kernel tc_bf16_rr_w64i_s4 --reps 1 --no-cublas --json > $O/$tool.$(echo $shape | tr -d ' -').json 2>> $O/$tool.log
    echo "$tool $shape rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
  done
done
M=sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__inst_executed_pipe_tensor_op_hmma.sum,smsp__inst_executed_op_ldsm.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.per_cycle_active,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum
g ncu 120 ncu --clock-control none --csv --metrics $M -k "regex:tc_bf16_rr_w64[il]_s4" -c 2 $B/host matmul 4096 --precision bf16 --kernel tc_bf16_rr_w64l_s4,tc_bf16_rr_w64i_s4 --reps 1 --no-cublas --verify none
tar -cJf $OUT/s20_call2.tar.xz -C $OUT w && rm -rf $O
