#!/usr/bin/env bash
# `host apsp --gpus N` on a machine with several GPUs (docs/apsp-multigpu.md): the multi-GPU tests,
# then compute and file-to-file times with 1 and N GPUs at V = 20000 and 40000 (E = 40V, 3 runs
# each, interleaved), byte comparison of the outputs, and weak scaling (V1 = 22973 on 1 GPU,
# V2 = 28979 on 2), then the text report once. Logs to $OUT (env.log, tests.log, runs.log,
# text.log, clock.csv).
#   BUNDLE=.device/bundle scripts/gpu-multi.sh [N]     (N: default 2)
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0): the project's GPU machines must not use it.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export NCCL_DEBUG=${NCCL_DEBUG:-WARN}
set -uo pipefail
B=${BUNDLE:-.device/bundle}
O=${OUT:-gpu-out}
N=${1:-2}
H=$B/host
D=${TMPDIR:-/tmp}/apsp-multi
mkdir -p "$O" "$D"
export REQUIRE_GPU=1 APSP_TESTDATA=$B/testdata/apsp HOST_BIN=$H  # tests that start the binary use the bundle's
{
    date -u
    echo "commit $(cat "$B/COMMIT")"
    nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
    nvidia-smi topo -m
    ls -l /usr/lib/x86_64-linux-gnu/libnccl* 2>&1
    "$H" info | head -5
} > "$O/env.log" 2>&1
nvidia-smi --query-gpu=timestamp,index,clocks.sm --format=csv -lms 500 > "$O/clock.csv" &
clock=$!
trap 'kill $clock 2>/dev/null' EXIT

timeout 200 "$B/tests/gpu_apsp_multi" --test-threads=1 > "$O/tests.log" 2>&1
multi_rc=$?
echo "gpu_apsp_multi rc=$multi_rc" >> "$O/tests.log"
timeout 120 "$B/tests/gpu_apsp" --test-threads=1 >> "$O/tests.log" 2>&1
echo "gpu_apsp rc=$?" >> "$O/tests.log"

for V in 20000 40000 22973 28979; do
    "$H" apsp-gen "$V" $((40 * V)) -o "$D/g$V.in" > /dev/null || exit 1
done
one() { # V GPUS REP
    echo "### V=$1 gpus=$2 rep=$3 $(date -u +%T)"
    timeout 90 "$H" apsp "$D/g$1.in" "$D/g$1.n$2.out" --gpus "$2" --json
    echo "rc=$?"
}
if [ "$multi_rc" != 0 ]; then
    # Something is wrong: one short run to see how far it gets, no sweep.
    one 20000 "$N" 1 > "$O/runs.log" 2>&1
    exit 1
fi
{
    for V in 20000 40000; do
        for rep in 1 2 3; do
            one "$V" 1 "$rep"
            one "$V" "$N" "$rep"
        done
        cmp "$D/g$V.n1.out" "$D/g$V.n$N.out" && echo "cmp V=$V: 1 and $N GPUs byte-identical"
        rm -f "$D/g$V".n*.out
    done
    for rep in 1 2 3; do
        one 22973 1 "$rep"
        one 28979 "$N" "$rep"
        rm -f "$D"/g*.out
    done
} > "$O/runs.log" 2>&1
# The human-readable report once (per-GPU memory and time split), with every visible GPU.
{
    "$H" apsp "$D/g20000.in" "$D/g20000.all.out" --gpus all
    echo "rc=$?"
    rm -f "$D"/g*.out
} > "$O/text.log" 2>&1
