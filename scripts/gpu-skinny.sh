#!/usr/bin/env bash
# Issue 20, the skinny classes (tall-thin and short-wide N or M <= 64, matrix-vector, batches of
# small matrices): the committed shape suite and host/data/sgemm-shapes-skinny.txt (problems
# outside it) through `host bench sgemm-shapes`, then `host matmul` with named kernels against
# cuBLAS on the shapes whose default choice was decided by measurement (tile vs row kernel).
# Called by `scripts/gpu-run.sh skinny`; arguments: the host binary, the output folder.
# Writes $OUT_DIR/{suite,extra}/sgemm_shapes.{jsonl,txt}, $OUT_DIR/variants.tar.gz (one JSON
# per shape; one archive, as the device tool returns few files), the SM clock
# every 200 ms to $OUT_DIR/clock.csv, and prints the tables.
set -uo pipefail
HOST=$1
OUT_DIR=$2
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
smi=$!
for s in suite extra; do
    mkdir -p "$OUT_DIR/$s"
    file=host/data/sgemm-shapes.txt; [ $s = extra ] && file=host/data/sgemm-shapes-skinny.txt
    echo "+ $HOST bench sgemm-shapes --suite $file" >&2
    "$HOST" bench -o "$OUT_DIR/$s/sgemm_shapes.jsonl" sgemm-shapes --suite "$file" > /dev/null 2> "$OUT_DIR/$s/sgemm_shapes.txt" \
        || { echo "FAILED: sgemm-shapes $file"; status=1; }
    cat "$OUT_DIR/$s/sgemm_shapes.txt"
done
mkdir -p "$OUT_DIR/variants"
F=sgemm_64x64x16_s4_8x4,sgemm_64x128x16_s3_8x8,sgemm_128x128x8_s4_16x8
for v in \
    16384x64x4096:$F,sgemm_128x256x8_s4_8x16 \
    64x16384x4096:$F \
    8192x16x8192:sgemm_rows_n16,sgemm_64x64x16_s4_8x4 \
    8192x32x8192:sgemm_rows_n16,sgemm_64x64x16_s4_8x4 \
    8192x48x8192:sgemm_64x64x16_s4_8x4,sgemm_64x128x16_s3_8x8 \
    32x8192x8192:sgemm_cols_m16,sgemm_64x64x16_s4_8x4,sgemm_64x128x16_s3_8x8; do
    s=${v%%:*}; kernels=${v#*:}
    IFS=x read -r m n k <<< "$s"
    echo "+ $HOST matmul --m $m --n $n --k $k --kernel $kernels --reps 20" >&2
    "$HOST" matmul --m "$m" --n "$n" --k "$k" --kernel "$kernels" --reps 20 --json > "$OUT_DIR/variants/$s.json" \
        || { echo "FAILED: $s"; status=1; }
    python3 - "$OUT_DIR/variants/$s.json" "$s" <<'PY' || head -c 600 "$OUT_DIR/variants/$s.json"
import json, sys
def rows(x):
    if isinstance(x, dict):
        if "kernel" in x and "median_ms" in x:
            yield x
        for v in x.values():
            yield from rows(v)
    elif isinstance(x, list):
        for v in x:
            yield from rows(v)
for r in rows(json.load(open(sys.argv[1]))):
    pct = r.get("percent_of_cublas")
    print(f"{sys.argv[2]:>16} {r['kernel']:<28} {r['median_ms']:9.4f} ms  "
          f"{'' if pct is None else f'{pct:6.1f} %'}  failures {r.get('failures')}")
PY
done
kill "$smi"
tar czf "$OUT_DIR/variants.tar.gz" -C "$OUT_DIR" variants && rm -r "$OUT_DIR/variants"
awk -F', ' 'NR > 1 { gsub(/ MHz/, "", $2); s += $2; n++; if (min == "" || $2 < min) min = $2 }
            END { if (n) printf "SM clock during the run: mean %.0f MHz, min %d MHz over %d samples\n", s / n, min, n }' "$OUT_DIR/clock.csv"
exit $status
