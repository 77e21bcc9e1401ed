#!/usr/bin/env bash
# Issue 20, batches and thin shapes (session 6): the batched small-matrix kernels by class, split-K
# for thin problems (M or N of 17-64), the medium batches' tiles. Called by
# `scripts/gpu-run.sh sgemm-batch [PART…]`; arguments: the host binary, the output folder, then
# the parts (default: tests suite outside):
#   tests    the GPU tests of the new kernels and route (TESTS: folder of test binaries,
#            default the host binary's folder/tests) -> tests.log
#   suite    host bench sgemm-shapes on the committed suite -> suite/sgemm_shapes.{jsonl,txt}
#   outside  the same on host/data/sgemm-shapes-skinny.txt -> outside/…
#   thin     thin problems under RGK_SGEMM_ROUTE: direct and split-K with the 64x64 tile (3) in
#            4, 8, 16 splits and the 64x128 tile (2) in 8 -> thin/<route>/…
#   thin-pick  the same problems (and a few with fewer tiles) through the library's own route
#            (`skinny_split::thin_route`) -> thin/pick/…
#   tiny     host matmul of tiny batches with every batched kernel that holds them -> tiny.txt
#   medium   host matmul of the medium batches (256³ x 512 N,N N,T T,T, 512³ x 128) with each
#            RGK_SGEMM_OPS_TILE 0-2 -> medium.txt
# Every timing is the median of 20 after a warm-up, cuBLAS's matching call in the same process;
# the SM clock every 200 ms goes to $OUT_DIR/clock.csv.
set -uo pipefail
HOST=$1
OUT_DIR=$2
shift 2
PARTS=${*:-tests suite outside}
TESTS=${TESTS:-$(dirname "$HOST")/tests}
status=0
mkdir -p "$OUT_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 200 > "$OUT_DIR/clock.csv" &
smi=$!
run() { echo "+ $*" >&2; "$@" || { echo "FAILED ($?): $*"; status=1; }; }

bench() { # name file [env…]
    local name=$1 file=$2
    shift 2
    mkdir -p "$OUT_DIR/$name"
    echo "+ $* $HOST bench sgemm-shapes --suite $file" >&2
    env "$@" "$HOST" bench -o "$OUT_DIR/$name/sgemm_shapes.jsonl" sgemm-shapes --suite "$file" \
        > /dev/null 2> "$OUT_DIR/$name/sgemm_shapes.txt" || { echo "FAILED: $name"; status=1; }
    echo "== $name ($*)"
    cat "$OUT_DIR/$name/sgemm_shapes.txt"
}

matmul() { # label env… -- args…
    local label=$1
    shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    echo "== $label ${envs[*]} host matmul $*"
    env "${envs[@]}" "$HOST" matmul "$@" --reps 20 2>&1 | grep -vE '^\s*$' | tail -8 \
        || { echo "FAILED: $label"; status=1; }
}

for part in $PARTS; do
    case "$part" in
    tests)
        for t in gpu_batched_small gpu_skinny_split gpu_blas; do
            echo "+ $TESTS/$t"
            REQUIRE_GPU=1 timeout 60 "$TESTS/$t" --test-threads=1 2>&1 | tail -12
        done > "$OUT_DIR/tests.log" 2>&1
        grep -E "test result|FAILED|panicked" "$OUT_DIR/tests.log" ;;
    suite) bench suite host/data/sgemm-shapes.txt ;;
    outside) bench outside host/data/sgemm-shapes-skinny.txt ;;
    thin | thin-pick)
        f=$(mktemp)
        printf '%s\n' "8192 16 8192 NN 1" "8192 32 8192 NN 1" "8192 48 8192 NN 1" \
            "32 8192 8192 NN 1" "16384 64 4096 NN 1" "64 16384 4096 NN 1" \
            "16384 12 3000 NN 1" "2048 40 2048 NN 1" "5000 7 5000 NN 1" > "$f"
        if [ "$part" = thin-pick ]; then
            printf '%s\n' "1024 24 8192 NN 1" "48 2048 4096 NN 1" "2048 64 2048 TN 1" \
                "3000 33 1000 NT 1" >> "$f"
            bench thin/pick "$f"
            continue
        fi
        bench thin/direct "$f" RGK_SGEMM_ROUTE=direct
        for s in 4 8 16; do
            bench "thin/t3s$s" "$f" "RGK_SGEMM_ROUTE=a=K,b=K,tile=3,splits=$s"
        done
        bench thin/t2s8 "$f" "RGK_SGEMM_ROUTE=a=K,b=K,tile=2,splits=8" ;;
    tiny)
        {
            for v in 32x32x32x8192 24x24x24x8192 32x32x128x4096 16x16x16x16384 8x8x8x65535 \
                12x12x12x16384; do
                IFS=x read -r m n k b <<< "$v"
                ks=sgemm_batched_32,sgemm_batched_a32
                [ "$m" -le 16 ] && ks=$ks,sgemm_batched_a16
                [ "$m" -le 8 ] && ks=$ks,sgemm_batched_a8
                matmul "$v" -- --m "$m" --n "$n" --k "$k" --batch "$b" --kernel "$ks"
            done
        } > "$OUT_DIR/tiny.txt" 2>&1
        cat "$OUT_DIR/tiny.txt" ;;
    medium)
        {
            for t in 0 1 2; do
                for ops in "" "--trans-b" "--trans-a --trans-b"; do
                    # shellcheck disable=SC2086
                    matmul "256^3x512 $ops tile $t" RGK_SGEMM_OPS_TILE=$t -- --m 256 --n 256 --k 256 $ops --batch 512
                done
                matmul "512^3x128 tile $t" RGK_SGEMM_OPS_TILE=$t -- --m 512 --n 512 --k 512 --batch 128
            done
        } > "$OUT_DIR/medium.txt" 2>&1
        cat "$OUT_DIR/medium.txt" ;;
    *) echo "unknown part $part"; status=1 ;;
    esac
done
kill "$smi"
awk -F', ' 'NR > 1 { gsub(/ MHz/, "", $2); s += $2; n++; if (min == "" || $2 < min) min = $2 }
            END { if (n) printf "SM clock during the run: mean %.0f MHz, min %d MHz over %d samples\n", s / n, min, n }' "$OUT_DIR/clock.csv"
exit $status
