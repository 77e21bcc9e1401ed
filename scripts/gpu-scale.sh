#!/usr/bin/env bash
# The measurements of docs/apsp-scale.md, from scripts/gpu-run.sh (same bundle, same $OUT):
#   scripts/gpu-run.sh ooc [V [LIMITS…]]   in core, then --device-memory-limit each LIMIT (default
#                                          V=60000, limits 2GiB 4GiB 8GiB 12GiB: its matrix takes
#                                          13.4 GiB, a larger limit runs in core), after a quick
#                                          check at V=3001 under 16MiB (byte-identical to in core);
#                                          updates/s and the ratio to in core; JSON and SM clock
#   scripts/gpu-run.sh dist [V]            (2 GPUs) V=40000: 1 GPU, --gpus 2, 2 ranks through
#                                          scripts/apsp-launch.sh; outputs compared byte for byte
set -uo pipefail
B=${BUNDLE:-.device/bundle}
O=${OUT:-gpu-out}
H=$B/host
T=${APSP_TMP:-/tmp/apsp-scale}
mkdir -p "$O" "$T"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
status=0
run() { echo "+ $*" >&2; "$@" || { echo "FAILED ($?): $*"; status=1; }; }
{
    date -u
    echo "commit $(cat "$B/COMMIT" 2>/dev/null)"
    nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
    free -g
} > "$O/scale_env.log" 2>&1
nvidia-smi --query-gpu=timestamp,index,clocks.sm,clocks.mem,power.draw --format=csv -lms 500 > "$O/scale_clock.csv" &
clock=$!
trap 'kill $clock 2>/dev/null' EXIT
rate() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"]["updates_per_s"])' "$1"; }
mode=$1
shift
case "$mode" in
ooc)
    V=${1:-60000}
    shift || true
    limits=("$@")
    [ ${#limits[@]} -gt 0 ] || limits=(2GiB 4GiB 8GiB 12GiB)
    # Quick check: several super-blocks per side, byte-identical to in core.
    "$H" apsp-gen 3001 120040 --seed 3 -o "$T/q.in" > /dev/null
    run "$H" apsp "$T/q.in" -o "$T/q_in.out" --no-peak
    run "$H" apsp "$T/q.in" -o "$T/q_ooc.out" --no-peak --device-memory-limit 16MiB --json > "$O/ooc_quick.json"
    run cmp "$T/q_in.out" "$T/q_ooc.out"
    "$H" apsp-gen "$V" $((40 * V)) --seed 1 -o "$T/g.in" > /dev/null || exit 1
    run "$H" apsp "$T/g.in" -o "$T/in.out" --json > "$O/ooc_${V}_incore.json"
    base=$(rate "$O/ooc_${V}_incore.json")
    echo "V=$V in core: $base updates/s"
    for L in "${limits[@]}"; do
        run "$H" apsp "$T/g.in" -o "$T/ooc.out" --device-memory-limit "$L" --json > "$O/ooc_${V}_$L.json"
        python3 - "$O/ooc_${V}_$L.json" "$base" "$L" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
o = r.get("out_of_core")
how = f'{o["rounds"]} super-blocks a side of {o["side"]}, {o["bytes_in"] / 1e9:.0f} GB in' if o else "IN CORE"
print(f'V={r["vertices"]} limit {sys.argv[3]}: {r["updates_per_s"]:.4e} updates/s, '
      f'{100 * r["updates_per_s"] / float(sys.argv[2]):.1f}% of in core ({how})')
PY
        run cmp "$T/in.out" "$T/ooc.out"
        rm -f "$T/ooc.out"
    done
    ;;
dist)
    V=${1:-40000}
    "$H" apsp-gen "$V" $((40 * V)) --seed 1 -o "$T/g.in" > /dev/null || exit 1
    run "$H" apsp "$T/g.in" -o "$T/one.out" --json > "$O/dist_${V}_1gpu.json"
    run "$H" apsp "$T/g.in" -o "$T/gpus2.out" --gpus 2 --json > "$O/dist_${V}_gpus2.json"
    run env HOST="$H" scripts/apsp-launch.sh 2 "$T/g.in" "$T/ranks2.out" --json > "$O/dist_${V}_ranks2.json"
    run cmp "$T/one.out" "$T/gpus2.out"
    run cmp "$T/one.out" "$T/ranks2.out"
    one=$(rate "$O/dist_${V}_1gpu.json")
    for f in gpus2 ranks2; do
        r=$(rate "$O/dist_${V}_$f.json")
        python3 -c 'import sys; o, r = map(float, sys.argv[1:3]); print(f"{sys.argv[3]}: {r:.4e} updates/s, {r / o:.3f}x one GPU")' "$one" "$r" "$f"
    done
    # A killed rank: rank 1 is killed (by its pid) mid-solve; rank 0 must exit 1 with one
    # sentence and leave no output.
    (
        export WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=29517
        RANK=0 LOCAL_RANK=0 "$H" apsp "$T/g.in" -o "$T/kill.out" --distributed > "$O/dist_kill_rank0.log" 2>&1 &
        r0=$!
        RANK=1 LOCAL_RANK=1 "$H" apsp "$T/g.in" -o "$T/kill.out" --distributed > "$O/dist_kill_rank1.log" 2>&1 &
        r1=$!
        sleep "${KILL_AFTER_S:-3}"
        kill -KILL "$r1"
        wait "$r0"
        echo "rank 0 exit $? after rank 1 was killed; output left: $(ls "$T"/kill.out* 2>/dev/null || echo none)"
    ) | tee "$O/dist_kill.log"
    ;;
*)
    echo "unknown mode $mode" >&2
    exit 2
    ;;
esac
exit $status
