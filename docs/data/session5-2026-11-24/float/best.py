import json, sys
d = json.load(open(sys.argv[1]))
res = d.get("results", d)
print(min(res[0]["variants"], key=lambda t: t["median_s"])["variant"])
