#!/bin/bash
# First-run cost of `host apsp` (V = 100) and `host matmul 1024`: the binary with embedded SASS
# (new) against the PTX-only binary (old), each with the CUDA JIT cache disabled (cold) and warm.
# Usage (device machine, repository root): bash .device-c/measure.sh   ($OUT collects the data)
set -u
D=$PWD/.device-c
NEW=$D/host-new
OLD=$D/host-old
W=/tmp/jitw
mkdir -p $W
chmod +x $NEW $OLD $D/gpu_occupancy 2>/dev/null
exec > >(tee $OUT/log.txt) 2>&1
CSV=$OUT/runs.csv
echo "binary,command,cache,loading,run,wall_s,rc" > $CSV

echo "== machine"
date -u +%Y-%m-%dT%H:%M:%SZ
uname -r
nvidia-smi --query-gpu=name,driver_version,pci.bus_id,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv
nvidia-smi | head -15
nproc
for b in $NEW $OLD; do sha256sum $b; cat $b > /dev/null; done

cd $W
$NEW apsp-gen 100 1000 -o g.in || echo "apsp-gen failed"

# run BIN LABEL CACHE LOADING N ARGS...: N timed runs; the first run's output is kept.
run() {
    local bin=$1 label=$2 cache=$3 loading=$4 n=$5
    shift 5
    local envs=()
    case $cache in
        cold) envs+=(CUDA_CACHE_DISABLE=1) ;;
        warm) envs+=(CUDA_CACHE_PATH=$W/cache-$label) ;;
    esac
    [ "$loading" != default ] && envs+=(CUDA_MODULE_LOADING=$loading)
    local cmd="$1"
    for i in $(seq 1 $n); do
        local s e rc
        s=$(date +%s.%N)
        env "${envs[@]}" $bin "$@" > $W/out.txt 2>&1
        rc=$?
        e=$(date +%s.%N)
        local wall
        wall=$(awk "BEGIN{printf \"%.3f\", $e - $s}")
        echo "$label,$cmd,$cache,$loading,$i,$wall,$rc" | tee -a $CSV
        if [ $i = 1 ] || [ $rc != 0 ]; then
            echo "--- output of $label $* ($cache, $loading, run $i)"
            cat $W/out.txt
            echo "---"
        fi
    done
}

echo "== new binary: SASS embedded"
run $NEW new cold default 7 apsp g.in -o g.new.out
run $NEW new cold default 7 matmul 1024
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader
run $NEW new cold EAGER 5 apsp g.in -o g.new.out
run $NEW new cold EAGER 5 matmul 1024
mkdir -p $W/cache-new
run $NEW new warm default 6 apsp g.in -o g.new.out
run $NEW new warm default 6 matmul 1024
echo "== new binary: GPU tests of the loaded kernels"
REQUIRE_GPU=1 $D/gpu_occupancy --test-threads=1 2>&1 | tail -15
$NEW info | grep -E 'fw|Compute|PTX' | head -20
echo "== new binary: flagship throughput (SASS from ptxas) at 4096"
$NEW matmul 4096 2>&1 | tail -8
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader

echo "== old binary: PTX JIT-compiled by the driver"
mkdir -p $W/cache-old
# The first warm-cache run fills the cache: it is a cold run, recorded as run 1 of "warm".
run $OLD old warm default 6 apsp g.in -o g.old.out
run $OLD old warm default 6 matmul 1024
echo "== old binary: flagship throughput (driver JIT) at 4096"
$OLD matmul 4096 2>&1 | tail -8
cmp g.new.out g.old.out && echo "apsp outputs of old and new are identical"
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader
run $OLD old cold default 5 apsp g.in -o g.old.out
run $OLD old cold default 5 matmul 1024
nvidia-smi --query-gpu=clocks.sm,clocks.max.sm --format=csv
date -u +%Y-%m-%dT%H:%M:%SZ
echo "== done"
