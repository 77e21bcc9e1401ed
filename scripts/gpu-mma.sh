#!/usr/bin/env bash
# The mma.sync path against its own ceiling and cuBLAS BF16 (docs/tensor-cores.md, "The
# mma.sync ceiling on Hopper"): runs on the GPU machine from the repository root with the bundle
# of `cargo xtask gpu-bundle` (BUNDLE, default .device/bundle).
#
#   scripts/gpu-mma.sh [N…]      N default 4096 8192; with MMA_NCU=0 no ncu, MMA_SASS=0 no SASS,
#                                MMA_PEAK="bf16" the ceilings timed (default bf16 fp16 tf32),
#                                MMA_LADDER=0 no full BF16 ladder (only the kernels below),
#                                MMA_NEW="k1 k2 …" the BF16 row-major kernels compared (default
#                                session 8's lean 64 x 32 warp-tile kernels), MMA_NCU_KERNELS the
#                                ones ncu measures (default those and tc_bf16_rr_w64l_s4)
#
# Writes $OUT/mma.tar.gz (default gpu-out/), the folder mma/ with:
#   peak_<p>_<N>.json    host matmul N --precision p --kernel peak: cuBLAS of p and the register-only
#                        mma.sync ceiling kernel (tc_mma_peak_*) in the same process
#   ladder_<N>.json      every BF16 row-major kernel (the ladder and every session's variants) vs
#                        cuBLAS BF16 (MMA_LADDER=0: bf16_<N>.json, the library kernels and MMA_NEW)
#   fp16_<N>.json        the FP16 library kernels and the _w64l / _l / _w32l variants vs cuBLAS FP16
#   layouts_4096_<p>_<l>.json  the other layouts' _w64l / _l / _w32l kernels (BF16, FP16; 4096)
#   sass_counts.txt      HMMA / LDSM / LDGSTS / BAR per kernel and in its main loop (cuobjdump),
#                        with the stall cycles of the main loop's control codes (HMMA's apart)
#   sass_new.txt.gz      the SASS of tc_bf16_rr_w64l_s4 and the MMA_NEW kernels
#   ncu_metrics.csv      Nsight Compute, two launches each at 4096 (--clock-control none): tensor
#                        pipe, instructions, registers, warps, stall reasons (per-instruction ratios)
#   clock.csv            nvidia-smi every 200 ms during the timings; summary.txt the table
set -uo pipefail
B=${BUNDLE:-.device/bundle}
ROOT=${OUT:-gpu-out}
D=$ROOT/mma
mkdir -p "$D"
HOST=$B/host
if [ -z "${CUBLAS_LIBRARY:-}" ]; then
    CUBLAS_LIBRARY=$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1)
    export CUBLAS_LIBRARY
fi
status=0
run() { echo "+ $*" >&2; "$@" || { echo "FAILED ($?): $*"; status=1; }; }
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(4096 8192)
NEW=${MMA_NEW:-tc_bf16_rr_l_s4 tc_bf16_rr_w32l_s4 tc_bf16_rr_l_k64_s3 tc_bf16_rr_w32l_k64_s3}
NCU_KERNELS=${MMA_NCU_KERNELS:-tc_bf16_rr_w64l_s4 $NEW}
comma() { echo "$*" | tr ' ' ','; }

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$D/clock.csv" &
smi=$!
for n in "${sizes[@]}"; do
    for p in ${MMA_PEAK:-bf16 fp16 tf32}; do
        run "$HOST" matmul "$n" --precision "$p" --kernel peak --reps 20 --verify none --json > "$D/peak_${p}_$n.json"
    done
    if [ "${MMA_LADDER:-1}" != 0 ]; then
        run "$HOST" matmul "$n" --precision bf16 --kernel ladder --reps 20 --verify sample --json > "$D/ladder_$n.json"
    else
        run "$HOST" matmul "$n" --precision bf16 --kernel "$(comma tc_bf16_rr_s4 tc_bf16_rr_w64l_s4 tc_bf16_rr_t256l_s4 $NEW)" --reps 20 --verify sample --json > "$D/bf16_$n.json"
    fi
    run "$HOST" matmul "$n" --precision fp16 --kernel tc_fp16_rr_s4,tc_fp16_rr_w64l_s4,tc_fp16_rr_l_s4,tc_fp16_rr_w32l_s4 --reps 20 --verify sample --json > "$D/fp16_$n.json"
done
for t in "--trans-b:rc" "--trans-a:cr" "--trans-a --trans-b:cc"; do
    flags=${t%:*} lay=${t#*:}
    for p in bf16 fp16; do
        # shellcheck disable=SC2086
        run "$HOST" matmul 4096 --precision $p $flags --kernel "tc_${p}_${lay}_w64l_s4,tc_${p}_${lay}_l_s4,tc_${p}_${lay}_w32l_s4" --reps 20 --verify sample --json > "$D/layouts_4096_${p}_$lay.json"
    done
done
kill "$smi" 2>/dev/null

if [ "${MMA_SASS:-1}" != 0 ]; then
    cuobjdump --dump-sass "$B"/gpu_kernels.sm_90.cubin > "$D/sass_all.txt" 2>&1 || status=1
    python3 - "$D/sass_all.txt" "$D/sass_new.txt" "tc_bf16_rr_w64l_s4 $NEW" > "$D/sass_counts.txt" <<'PY'
# Per tc_* kernel: instruction counts in the whole function and in its main loop (the longest
# span closed by a backward branch), which is what the steady state issues per k-slice, and the
# stall counts of the loop's control codes (bits 41-44 of each instruction's second 64-bit
# word: the cycles the warp waits before its next instruction).
import re, sys, collections
funcs, fn = collections.OrderedDict(), None
keep, kept = open(sys.argv[2], "w"), sys.argv[3].split()  # the SASS of these kernels alone
lines = open(sys.argv[1]).read().split("\n")
for i, line in enumerate(lines):
    m = re.search(r"Function : (\S+)", line)
    if m:
        fn = m.group(1); funcs[fn] = []
    if fn in kept:
        keep.write(line + "\n")
    if m:
        continue
    m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(.*?);\s*/\* (0x[0-9a-f]+) \*/", line)
    if fn and m:
        hi = re.search(r"/\* (0x[0-9a-f]+) \*/", lines[i + 1]) if i + 1 < len(lines) else None
        stall = (int(hi.group(1), 16) >> 41) & 0xF if hi else 0
        funcs[fn].append((int(m.group(1), 16), m.group(2), stall))
pats = ["HMMA", "LDSM", "LDGSTS", "BAR", "LDS", "STG", "LDL", "STL", "DEPBAR"]
def count(ins):
    c = collections.Counter()
    for _, op, _ in ins:
        for p in pats:
            if re.search(r"\b" + p + r"\b", op.split(" ")[0] if not op.startswith("@") else op.split(" ")[1]):
                c[p] += 1
    return c
for fn, ins in funcs.items():
    if not fn.startswith("tc_"):
        continue
    loop = []
    for i, (addr, op, _) in enumerate(ins):
        m = re.search(r"BRA(?:\.\S+)?\s+(?:!?U?P\d,\s*)?(0x[0-9a-f]+)", op)
        if m and int(m.group(1), 16) < addr:
            body = [x for x in ins if int(m.group(1), 16) <= x[0] <= addr]
            if len(body) > len(loop):
                loop = body
    tot, lc = count(ins), count(loop)
    print(f"{fn}: {len(ins)} instructions; " + ", ".join(f"{p} {tot[p]}" for p in pats if tot[p]))
    print(f"  main loop ({len(loop)} instructions): " + ", ".join(f"{p} {lc[p]}" for p in pats if lc[p])
          + (f"; HMMA per LDSM {lc['HMMA'] / lc['LDSM']:.2f}" if lc['LDSM'] else ""))
    hm = [st for _, op, st in loop if "HMMA" in op]
    print(f"  main loop stall cycles: {sum(st for *_, st in loop)} (HMMA {sum(hm)}); HMMA stall counts "
          + str(dict(sorted(collections.Counter(hm).items()))))
PY
    grep -A2 -E "^tc_(bf16|fp16)_" "$D/sass_counts.txt"
    rm -f "$D/sass_all.txt"
    gzip -f "$D/sass_new.txt"
fi

if [ "${MMA_NCU:-1}" != 0 ]; then
    NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
    # Tensor-pipe activity, instructions (per HMMA), registers, warps per SM and the stall
    # reasons (cycles per issued instruction) of each kernel, its two launches at 4096 (a metric
    # a driver lacks fails this run alone).
    echo "+ ncu metrics" >&2
    set -- $NCU_KERNELS
    "$NCU" --clock-control none --csv \
        --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__inst_executed_pipe_tensor_op_hmma.sum,smsp__inst_executed_op_ldsm.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.per_cycle_active,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_math_pipe_throttle.ratio,smsp__average_warp_latency_issue_stalled_mio_throttle.ratio,smsp__average_warp_latency_issue_stalled_not_selected.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second \
        -k "regex:^($(echo "$NCU_KERNELS" | tr ' ' '|'))\$" --launch-count $((2 * $#)) \
        "$HOST" matmul 4096 --precision bf16 --kernel "$(comma $NCU_KERNELS)" --reps 1 --no-cublas --verify none > "$D/ncu_metrics.csv" 2>&1 \
        || echo "FAILED: ncu metrics (see ncu_metrics.csv)"
    grep -o '"tc_bf16[^"]*".*"[a-z_.]*","[^"]*","[^"]*"$' "$D/ncu_metrics.csv" | awk -F'","' '{print $1, $(NF-2), $NF}' | sort -u
fi

python3 - "$D" <<'PY' | tee "$D/summary.txt"
import json, sys, glob, os
d = sys.argv[1]
for f in sorted(glob.glob(f"{d}/*.json")):
    try:
        env = json.load(open(f))
    except Exception as e:
        print(f"{os.path.basename(f)}: unreadable ({e})"); continue
    for r in env["results"]:
        print(f'{os.path.basename(f):<22} {r["m"]:>5} {r["kernel"]:<26} {r["precision"]:>5} {r["median_ms"]:>8.3f} ms '
              f'{r["tflops"]:>7.1f} TFLOP/s {(r["percent_of_cublas"] or 0):>6.1f}% cuBLAS  '
              f'checked {r["checked_cells"]} failures {r["failures"]} err/bound {r["max_scaled_error"]}')
PY
awk -F', ' 'NR > 1 { sub(/ MHz/, "", $2); if ($2 + 0 > max) max = $2 + 0; s += $2; n++ }
    END { if (n) printf "SM clock during the timings: mean %.0f MHz, max %d MHz (%d samples)\n", s / n, max, n }' "$D/clock.csv" | tee -a "$D/summary.txt"
# One archive instead of ~20 files (the device tool returns only a few files per call).
tar czf "$ROOT/mma.tar.gz" -C "$ROOT" mma && rm -rf "$D"
exit $status
