#!/usr/bin/env bash
# Runs on the GPU machine: Nsight Compute on each main kernel at one representative size, one
# launch each, clocks left alone (--clock-control none). Writes $OUT/ncu_<kernel>.csv and a
# table ($OUT/ncu_summary.md) of the metrics docs/RESULTS.md compares with the project's own
# theoretical numbers (`host occupancy`). Uses the bundle from `cargo xtask gpu-bundle`.
set -uo pipefail
B=.device/bundle
OUT_DIR=${OUT:-gpu-out}
mkdir -p "$OUT_DIR"
HOST=$B/host
NCU=${NCU:-ncu}
METRICS=sm__warps_active.avg.pct_of_peak_sustained_active,sm__maximum_warps_per_active_cycle_pct,launch__registers_per_thread,launch__shared_mem_per_block_static,launch__block_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__average_warp_latency_per_inst_issued.ratio,gpu__time_duration.sum

N=${MATMUL_N:-4096}
V=${APSP_V:-8192}
tmp=$(mktemp -d)
"$HOST" apsp-gen "$V" $((V * 40)) --seed 1 -o "$tmp/g.in" >/dev/null

profile() { # name, then the command
    local name=$1
    shift
    echo "+ ncu $name"
    "$NCU" --clock-control none --metrics "$METRICS" --csv -k "regex:^${name}\$" --launch-skip 1 --launch-count 1 "$@" \
        > "$OUT_DIR/ncu_$name.csv" 2> "$OUT_DIR/ncu_$name.err" || echo "FAILED: $name (see ncu_$name.err)"
}

for k in ${MATMUL_KERNELS:-matmul_tiled_t16 matmul_tiled_t32 matmul_vec_b16x16_i4x4_k32 matmul_vec_b16x4_i4x16_k32 matmul_vec_b32x4_i2x16_k32}; do
    profile "$k" "$HOST" matmul "$N" --kernel "$k" --reps 1 --no-cublas --verify none
done
for b in 16 32 64; do
    for p in 1 2 3; do
        k=fw_phase${p}_b$b
        profile "$k" "$HOST" apsp "$tmp/g.in" "$tmp/g.out" --block "$b"
    done
done

"$HOST" occupancy --json > "$OUT_DIR/occupancy.json"
python3 scripts/ncu-table.py "$OUT_DIR" | tee "$OUT_DIR/ncu_summary.md"
