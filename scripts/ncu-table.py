#!/usr/bin/env python3
"""Joins Nsight Compute CSVs (ncu_<kernel>.csv, from scripts/gpu-profile.sh) with the project's
own theoretical occupancy (occupancy.json, from `host occupancy --json`) into a markdown table.

usage: scripts/ncu-table.py DIR   (prints the table; standard library only)
"""
import csv, glob, json, os, sys

NCU = [
    ("sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occ. %"),
    ("sm__maximum_warps_per_active_cycle_pct", "theor. occ. % (ncu)"),
    ("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory thr. %"),
    ("sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM thr. %"),
    ("l1tex__t_sector_hit_rate.pct", "L1 hit %"),
    ("lts__t_sector_hit_rate.pct", "L2 hit %"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "bank conflicts ld"),
    ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "bank conflicts st"),
    ("smsp__average_warp_latency_per_inst_issued.ratio", "warp cycles / inst."),
    ("gpu__time_duration.sum", "duration"),
]


def main(d):
    occ = {}
    path = os.path.join(d, "occupancy.json")
    if os.path.exists(path):
        d = json.load(open(path))
        d = d.get("results", d)  # the envelope of docs/json.md, or an older bare object
        occ = {r["kernel"]: r for r in d["kernels"]}
    head = ["kernel", "threads", "regs", "smem B", "theor. occ. % (project)", "limited by"] + [h for _, h in NCU]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for f in sorted(glob.glob(os.path.join(d, "ncu_*.csv"))):
        name = os.path.basename(f)[4:-4]
        rows = [l for l in open(f) if l.startswith('"')]
        vals = {r["Metric Name"]: (r["Metric Value"], r.get("Metric Unit", "")) for r in csv.DictReader(rows)}
        if not vals:
            continue
        o = occ.get(name, {})
        cells = [
            name,
            str(o.get("threads", "-")),
            vals.get("launch__registers_per_thread", ("-", ""))[0],
            vals.get("launch__shared_mem_per_block_static", ("-", ""))[0],
            f'{100 * o["occupancy"]:.1f}' if "occupancy" in o else "-",
            o.get("limiter", "-"),
        ]
        for metric, _ in NCU:
            v, unit = vals.get(metric, ("-", ""))
            cells.append(f"{v} {unit}".strip() if metric == "gpu__time_duration.sum" else v)
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
