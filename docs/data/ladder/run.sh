#!/usr/bin/env bash
# The issue-9 ladder's GPU run, from the bundle directory: ladder timing at 4096 (twice), the
# GPU tests, compute-sanitizer on every ladder kernel, and an ncu pass over the ladder at 2048.
# Run for docs/matmul.md on 2026-11-22 (commit a582218, NVIDIA H200) from a copy of the bundle
# of `cargo xtask gpu-bundle`: `cd <bundle> && OUT=<dir> bash run.sh`. ncu_2048.csv beside this
# file keeps only ncu's CSV lines (the host's own table, which ncu's stdout interleaves, is cut).
set -uo pipefail
O=${OUT:-out}; mkdir -p "$O"
export CUBLAS_LIBRARY=$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)
export REQUIRE_GPU=1
nvidia-smi --query-gpu=clocks.sm --format=csv -lms 200 > "$O/clock.csv" &
CLK=$!
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv; } > "$O/env.txt"
step() { echo "== $(date -u +%T) $*" | tee -a "$O/env.txt"; }
step "ladder 4096 (table, sampled check)"
./host matmul 4096 --kernel ladder --reps 20 --verify sample 2>&1 | tee "$O/ladder_4096.txt"
step "ladder 4096 again (json, no check)"
./host matmul 4096 --kernel ladder --reps 20 --verify none --json > "$O/ladder_4096_repeat.json" 2>&1
python3 -c "
import json,sys; d=json.load(open('$O/ladder_4096_repeat.json'))
for r in d['results']: print(f\"{r['kernel']:<42} {r['gflops']:>9.1f} {(r['percent_of_cublas'] or 0):>6.1f}%\")"
step "GPU tests"
for t in tests/gpu_matmul tests/gpu_occupancy; do
  echo "+ $t" >> "$O/tests.log"; timeout 240 "$t" --test-threads=1 >> "$O/tests.log" 2>&1 || echo "FAILED $t" | tee -a "$O/tests.log"
done
grep -E "^test |test result|FAILED|panicked" "$O/tests.log"
step "compute-sanitizer"
for tool in memcheck racecheck; do
  for shape in "256" "--m 17 --n 33 --k 5"; do
    echo "+ $tool $shape" >> "$O/sanitize.log"
    compute-sanitizer --tool $tool --error-exitcode 9 ./host matmul $shape --kernel ladder --reps 1 --no-cublas >> "$O/sanitize.log" 2>&1; echo "rc=$?" >> "$O/sanitize.log"
  done
done
grep -E "^\+|SUMMARY|rc=" "$O/sanitize.log"
step "ncu 2048"
M=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__time_duration.sum
timeout 120 ncu --clock-control none --metrics $M --csv -k regex:^matmul_ ./host matmul 2048 --kernel ladder --reps 1 --no-cublas --verify none > "$O/ncu_2048.csv" 2> "$O/ncu_2048.err"; echo "ncu rc=$?"
step done
kill $CLK
