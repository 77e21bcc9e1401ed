import re, sys, collections
fn, counts, keep = None, collections.OrderedDict(), {}
ops = ["FADD", "FMNMX", "DADD", "DMNMX", "DSETP", "FSEL", "SEL", "FSETP", "MOV", "IMAD", "IADD3", "LDS.128", "LDS.64", "LDS", "LDG.E.128", "STG.E.128", "LDGSTS", "BAR.SYNC", "LDL", "STL", "BRA", "ISETP"]
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        fn = m.group(1); counts[fn] = collections.Counter(); continue
    if fn and ("fwf" in fn or "addmin_peak" in fn):
        if "addmin_peak_f" in fn:
            keep.setdefault(fn, []).append(line)
        m = re.search(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_.]+)", line)
        if m:
            op = m.group(2)
            base = op.split(".")[0]
            counts[fn][base] += 1
            if op.startswith("LDS.128") or op.startswith("LDG.E.128") or op.startswith("STG.E.128"):
                counts[fn][op[:9]] += 1
for fn, c in counts.items():
    if "fwf" in fn or "addmin_peak" in fn:
        print(fn + ": " + ", ".join(f"{k} {v}" for k, v in c.most_common(16)))
for fn, lines in keep.items():
    open(f"{sys.argv[2]}/sass_{fn}.txt", "w").writelines(lines)
