import re, sys, collections
fn, counts, size = None, collections.OrderedDict(), {}
pats = ["FFMA", "LDS.128", "LDS.64", "LDS", "STS.128", "STS", "LDG.E.128", "LDG.E.CONSTANT", "LDG.E", "STG.E.128", "STG.E", "LDL", "STL", "BAR.SYNC", "BRA"]
for line in open(sys.argv[1]):
    m = re.search(r"^\s*\.text\.(\S+):", line) or re.search(r"Function : (\S+)", line)
    if m:
        fn = m.group(1); counts[fn] = collections.Counter(); size[fn]=0; continue
    if fn and re.search(r"/\*[0-9a-f]{4,}\*/\s+[^;]*;", line):
        size[fn]+=1
        ins = re.search(r"\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if not ins: continue
        op = ins.group(2)
        for p in pats:
            if op == p or op.startswith(p + "."):
                counts[fn][p] += 1; break
want = sys.argv[2] if len(sys.argv) > 2 else "matmul"
for fn, c in counts.items():
    if want in fn:
        print(f"{fn}: instr {size[fn]}, " + ", ".join(f"{k} {v}" for k, v in c.items() if v))
