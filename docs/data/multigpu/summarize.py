#!/usr/bin/env python3
"""Summarizes runs.log of scripts/gpu-multi.sh: one line per run, then medians per (V, GPUs)."""
import json, re, statistics, sys

txt = open(sys.argv[1]).read()
runs = []
for p in re.split(r'^### ', txt, flags=re.M)[1:]:
    head, body = p.split('\n', 1)
    m = re.search(r'^\{.*?^\}$', body, flags=re.M | re.S)
    v, g = (int(x) for x in re.match(r'V=(\d+) gpus=(\d+)', head).groups())
    d = json.loads(m.group(0))
    d = d.get('results', d)  # the JSON envelope (docs/json.md) since the CLI conventions of #12
    runs.append((v, g, d))
    s = d['split']
    pg = ' | '.join(f"gpu{x['ordinal']} compute {x['compute_s']:.4f} wait {x['wait_s']:.4f} send {x['send_s']:.4f}"
                    for x in d.get('per_gpu') or [])
    print(f"{head:36s} compute {s['compute_s']:.4f} total {d['total_s']:.3f} (read {s['read_s']:.3f} fill {s['fill_s']:.3f} "
          f"h2d {s['host_to_device_s']:.3f} d2h {s['device_to_host_s']:.3f} write {s['write_s']:.3f}) "
          f"{d.get('percent_of_peak', 0):.1f}% {pg}")
print()
keys = sorted({(v, g) for v, g, _ in runs})
for v, g in keys:
    ds = [d for vv, gg, d in runs if (vv, gg) == (v, g)]
    med = lambda f: statistics.median(f(d) for d in ds)
    line = (f"V={v} gpus={g} runs={len(ds)} median compute {med(lambda d: d['split']['compute_s']):.4f} "
            f"total {med(lambda d: d['total_s']):.3f} d2h {med(lambda d: d['split']['device_to_host_s']):.3f} "
            f"write {med(lambda d: d['split']['write_s']):.3f} peak% {med(lambda d: d.get('percent_of_peak', 0)):.1f}")
    if ds[0].get('per_gpu'):
        for i in range(len(ds[0]['per_gpu'])):
            line += (f" | gpu{i} compute {med(lambda d: d['per_gpu'][i]['compute_s']):.4f} wait {med(lambda d: d['per_gpu'][i]['wait_s']):.4f}"
                     f" send {med(lambda d: d['per_gpu'][i]['send_s']):.4f} GiB {ds[0]['per_gpu'][i]['bytes'] / 2**30:.2f}")
    print(line)
