import json, sys
d = json.load(open(sys.argv[1]))
res = d.get("results", d)
for r in res:
    c = r["ceiling"]
    print(f'{r["weight"]} ceiling {c["updates_per_s"]:.4e}/s ({c["per_sm_per_clock"]:.2f}/SM/clk)')
    for t in r["variants"]:
        print(f'  {t["variant"]:<12} {t["rounds_timed"]} rounds median {t["median_s"]:.4f} s {[round(x,4) for x in t["runs_s"]]} {t["percent_of_ceiling"]:.1f}%')
