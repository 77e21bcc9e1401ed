#!/usr/bin/env bash
# Issue 20, helper P's shapes: the library's kernel choice (`host matmul`, default `--kernel
# sgemm`) against cuBLAS FP32 in the same process, median of 20 launches, for matrix–vector,
# tiny-N/M, deep-K and thin problems. Called by `scripts/gpu-run.sh shapes-p`; arguments: the
# host binary, the output folder, then optionally shapes as MxNxK (default: the list below).
# Writes $OUT_DIR/shapes_p_MxNxK.json per shape, the SM clock every 200 ms to
# $OUT_DIR/clock.csv, and prints one table (shape, class, kernel, ms, GFLOP/s, GB/s of the
# operands, % of cuBLAS).
set -uo pipefail
HOST=$1
OUT_DIR=$2
shift 2
shapes=("$@")
[ ${#shapes[@]} -gt 0 ] || shapes=(
    256x256x16384 1024x1024x16384 512x512x16384
    5000x7x5000 7x5000x5000
    1x8192x8192 8192x1x8192 1x16384x16384 16384x1x16384
    12288x128x12288 128x12288x12288
    4096x16x4096 16x4096x4096 4096x4x4096 8192x64x8192
)
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
smi=$!
for s in "${shapes[@]}"; do
    IFS=x read -r m n k <<< "$s"
    echo "+ $HOST matmul --m $m --n $n --k $k --reps 20 --json" >&2
    "$HOST" matmul --m "$m" --n "$n" --k "$k" --reps 20 --json > "$OUT_DIR/shapes_p_$s.json" \
        || { echo "FAILED: $s"; status=1; }
done
kill "$smi"
python3 - "$OUT_DIR" "${shapes[@]}" <<'PY'
import json, sys
out, shapes = sys.argv[1], sys.argv[2:]
print(f'{"shape":<18} {"class":<14} {"kernel":<28} {"ms":>9} {"GFLOP/s":>9} {"GB/s":>8} {"% cuBLAS":>9} {"err/bound":>10}')
for s in shapes:
    try:
        d = json.load(open(f"{out}/shapes_p_{s}.json"))
    except Exception as e:
        print(f"{s:<18} no result ({e})")
        continue
    for r in d["results"]:
        m, n, k = r["m"], r["n"], r["k"]
        gbs = 4 * (m * k + k * n + m * n) / (r["median_ms"] * 1e-3) / 1e9
        pct = r.get("percent_of_cublas")
        print(f'{s:<18} {r.get("shape_class", "-"):<14} {r["kernel"]:<28} {r["median_ms"]:>9.4f} '
              f'{r["gflops"]:>9.1f} {gbs:>8.0f} {(pct or 0):>9.1f} {str(r["max_scaled_error"]):>10}')
PY
clocks=$(awk -F', ' 'NR > 1 { print $2 }' "$OUT_DIR/clock.csv" | sort | uniq -c | sort -rn | head -3 | tr '\n' ';')
echo "SM clock during the run (count MHz): $clocks"
exit $status
