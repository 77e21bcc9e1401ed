#!/usr/bin/env bash
# Side-by-side timings of candidate routes and kernels (issue 20): for each line
# `label | M N K OPS [BATCH] | runner,runner,...` of FILE (runners as `host matmul --kernel`
# takes them: `sgemm` the library's pick, `route:…` a forced route with `+` for its commas, a
# kernel name on the balanced grid), one `host matmul` process with cuBLAS's matching call,
# median of REPS (20) launches each, RUNS (3) interleaved rounds over the file. Raw log to
# $OUT/cands.txt, the table of medians (one column per round) printed and in $OUT/cands_table.txt,
# the SM clock every 200 ms summarised. On the device, after `cargo xtask gpu-bundle`:
#   bash scripts/gpu-cands.sh host/data/s13/nn_mid.txt        (carry .device/pack)
set -uo pipefail
FILE=$1
B=${BUNDLE:-.device/bundle}
bash "$(dirname "$0")/unpack-bundle.sh" "$B" || exit 1
OUT_DIR=${OUT:-gpu-out}
REPS=${REPS:-20}
RUNS=${RUNS:-3}
mkdir -p "$OUT_DIR"
date -u
cat "$B/COMMIT"; echo
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/cands_clock.csv" &
smi=$!
# N,N through the BLAS interface as well (a packed --stride-c selects it), where routes exist.
flags() { case $1 in TN) echo "--trans-a" ;; NT) echo "--trans-b" ;; TT) echo "--trans-a --trans-b" ;;
          *) echo "--stride-c $(($2 * $3))" ;; esac; }
for i in $(seq "$RUNS"); do
    grep -v '^#' "$FILE" | grep -v '^\s*$' | while IFS='|' read -r label shape runners; do
        read -r m n k ops batch <<< "$shape"
        label=$(echo "$label" | xargs); runners=$(echo "$runners" | tr -d ' ')
        echo "== ${label}_$i | $shape"
        # shellcheck disable=SC2046
        timeout 60 "$B/host" matmul --m "$m" --n "$n" --k "$k" $(flags "$ops" "$m" "$n") --batch "${batch:-1}" \
            --kernel "$runners" --reps "$REPS" --verify sample 2>&1 \
            | grep -E "^(cublas|sgemm|route)|FAILED|rror" || echo "FAILED: $label"
    done
done > "$OUT_DIR/cands.txt" 2>&1
kill "$smi"
awk '/^== / { p = $2; sub(/_[0-9]+$/, "", p); if (!(p in seen)) { seen[p] = 1; order[++np] = p }; next }
     /^(sgemm|route|cublas)/ { k = p SUBSEP $1; v[k] = v[k] " " $2;
                               if (!((p, $1) in rs)) { rs[p, $1] = 1; names[p] = names[p] " " $1 } }
     /rror|FAILED/ { print "  " p ": " $0 }
     END { for (i = 1; i <= np; i++) { q = order[i]; n = split(names[q], nm, " "); printf "%s\n", q;
               for (j = 1; j <= n; j++) printf "    %-34s %s\n", nm[j], v[q SUBSEP nm[j]] } }' \
    "$OUT_DIR/cands.txt" | tee "$OUT_DIR/cands_table.txt"
bash scripts/clock-summary.sh "$OUT_DIR/cands_clock.csv"
echo "elapsed ${SECONDS}s"
