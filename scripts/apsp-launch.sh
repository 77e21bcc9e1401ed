#!/usr/bin/env bash
# Starts N ranks of `host apsp --distributed` on this host, one per GPU, with the variables
# torchrun would set (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT), and waits for
# them. The first rank that fails stops the others; the exit status is the first failure's.
#   scripts/apsp-launch.sh N GRAPH DIST [host apsp options…]
# HOST names the binary (default: target/release/host, then target/debug/host); MASTER_PORT the
# rendezvous port (default 29500). Several hosts: see docs/apsp-scale.md (one launch per host
# with its own RANK range, a shared file system, NCCL_SOCKET_IFNAME).
set -uo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 N GRAPH DIST [host apsp options…]" >&2
    exit 2
fi
N=$1 G=$2 D=$3
shift 3
case "$N" in '' | *[!0-9]* | 0) echo "$0: N must be a number of ranks (1 or more), not '$N'" >&2; exit 2 ;; esac
HOST=${HOST:-}
if [ -z "$HOST" ]; then
    for h in target/release/host target/debug/host; do
        [ -x "$h" ] && { HOST=$h; break; }
    done
fi
[ -n "$HOST" ] && [ -x "$HOST" ] || { echo "$0: no host binary: build it or set HOST=path/to/host" >&2; exit 2; }
export WORLD_SIZE=$N MASTER_ADDR=${MASTER_ADDR:-127.0.0.1} MASTER_PORT=${MASTER_PORT:-29500}
# NVLink multicast stays off on the project's machines (KINDS.md).
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
pids=()
for ((r = 0; r < N; r++)); do
    RANK=$r LOCAL_RANK=$r "$HOST" apsp "$G" -o "$D" --distributed "$@" &
    pids+=($!)
done
status=0
# Wait for every rank; the first failure kills the rest (they would also stop on their own, once
# their watchdog sees the lost connection).
while [ ${#pids[@]} -gt 0 ]; do
    for i in "${!pids[@]}"; do
        p=${pids[$i]}
        kill -0 "$p" 2>/dev/null && continue
        wait "$p"
        rc=$?
        unset "pids[$i]"
        if [ "$rc" != 0 ] && [ "$status" = 0 ]; then
            status=$rc
            for q in "${pids[@]}"; do kill "$q" 2>/dev/null; done
        fi
    done
    sleep 0.2
done
exit $status
