set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/mma
mkdir -p "$OUT0/r2"; R=$OUT0/r2
tar xJf $D/bundle.tar.xz || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv | tee "$R/gpu.txt"
cat .device/bundle/COMMIT >> "$R/gpu.txt" 2>/dev/null
export CUBLAS_LIBRARY=${CUBLAS_LIBRARY:-$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)}
H=.device/bundle/host
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
# 1. the lean kernels below 4096 (where the library switches tile size), BF16 row-major vs cuBLAS
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$R/clock.csv" &
smi=$!
for n in 1000 2048; do
  $H matmul $n --precision bf16 --kernel tc_bf16_rr_s4,tc_bf16_rr_w64_s4,tc_bf16_rr_w64l_s4,tc_bf16_rr_t256l_s4,tc_bf16_rr_t128l_s4 --reps 20 --verify sample --json > "$R/size_bf16_$n.json" || echo "FAILED size $n"
done
kill $smi
python3 - "$R" <<'PY' | tee "$R/summary.txt"
import json, sys, glob, os
for f in sorted(glob.glob(f"{sys.argv[1]}/size_*.json")):
    for r in json.load(open(f))["results"]:
        print(f'{os.path.basename(f):<20} {r["m"]:>5} {r["kernel"]:<24} {r["median_ms"]:>8.3f} ms {r["tflops"]:>7.1f} TFLOP/s {(r["percent_of_cublas"] or 0):>6.1f}% cuBLAS failures {r["failures"]}')
PY
awk -F', ' 'NR > 1 { sub(/ MHz/, "", $2); if ($2 + 0 > max) max = $2 + 0; s += $2; n++ } END { if (n) printf "SM clock: mean %.0f MHz, max %d MHz (%d samples)\n", s / n, max, n }' "$R/clock.csv" | tee -a "$R/summary.txt"
# 2. ncu of the lean kernel at 4096: warp states, scheduler, per-SASS-instruction stall samples
$NCU --clock-control none --section WarpStateStats --section SchedulerStats --section SourceCounters --section Occupancy --section LaunchStats \
  -k "regex:^tc_bf16_rr_w64l_s4\$" --launch-skip 1 --launch-count 1 -o "$R/w64l" -f \
  $H matmul 4096 --precision bf16 --kernel tc_bf16_rr_w64l_s4 --reps 1 --no-cublas --verify none > "$R/ncu_run.log" 2>&1 || echo "FAILED ncu"
$NCU -i "$R/w64l.ncu-rep" --page details > "$R/ncu_w64l_details.txt" 2>&1
$NCU -i "$R/w64l.ncu-rep" --page source --print-source sass --csv > "$R/ncu_w64l_sass.csv" 2>&1
gzip -f "$R/ncu_w64l_sass.csv"
grep -E "Stall|Warp Cycles|Eligible|Issued Warp|No Eligible|Active Warps|Registers|Theoretical|Achieved" "$R/ncu_w64l_details.txt" | head -40
# tensor-pipe activity and instructions of the three lean tiles
$NCU --clock-control none --csv --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__inst_executed_pipe_tensor_op_hmma.sum,launch__registers_per_thread,sm__warps_active.avg.per_cycle_active,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio \
  -k "regex:^tc_bf16_rr_(w64l|t256l|t128l)_s4\$" --launch-count 6 \
  $H matmul 4096 --precision bf16 --kernel tc_bf16_rr_w64l_s4,tc_bf16_rr_t256l_s4,tc_bf16_rr_t128l_s4 --reps 1 --no-cublas --verify none > "$R/ncu_metrics.csv" 2>&1 || echo "FAILED ncu metrics"
grep -o '"tc_bf16[^"]*".*"[a-z_.]*","[^"]*","[^"]*"$' "$R/ncu_metrics.csv" | awk -F'","' '{print $1, $(NF-2), $NF}' | sort -u | head -40
# 3. compute-sanitizer on the lean kernels call 1 did not cover (FP16, B or A column-major)
for tool in memcheck racecheck; do
  for k in tc_fp16_rc_w64l_s4:--trans-b tc_fp16_cr_w64l_s4:--trans-a "tc_fp16_cc_w64l_s4:--trans-a --trans-b"; do
    kn=${k%%:*}; fl=${k#*:}
    odd="--m 17 --n 40 --k 24"
    case "$fl" in --trans-a) odd="--m 24 --n 40 --k 17";; "--trans-a --trans-b") odd="--m 24 --n 40 --k 24";; esac
    for s in "--m 256 --n 512 --k 256" "--m 256 --n 512 --k 104" "$odd"; do
      # shellcheck disable=SC2086
      o=$($CS --tool $tool --error-exitcode 9 $H matmul $s --precision fp16 $fl --kernel $kn --reps 1 --no-cublas 2>&1); rc=$?
      echo "$tool $kn $fl $s: rc $rc $(echo "$o" | grep -E "SUMMARY|rror" | tail -2 | tr '\n' ' ')"
    done
  done
done > "$R/sanitize.log" 2>&1
cat "$R/sanitize.log"
ls -la "$R"; rm -f "$R/w64l.ncu-rep"
tar czf "$OUT0/r2.tar.gz" -C "$OUT0" r2 && rm -rf "$R"
echo "total ${SECONDS}s"
