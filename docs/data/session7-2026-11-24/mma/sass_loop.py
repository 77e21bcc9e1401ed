# Main loop of each kernel in a `cuobjdump --dump-sass` file (the longest span closed by a
# backward branch): opcode counts and the stall counts of the control codes (bits 41-44 of each
# instruction's second 64-bit word, the cycles the warp waits before its next instruction).
import collections, gzip, re, sys
text = gzip.open(sys.argv[1], "rt").read().split("\n")
funcs, fn = collections.OrderedDict(), None
for i, l in enumerate(text):
    m = re.search(r"Function : (\S+)", l)
    if m:
        fn = m.group(1); funcs[fn] = []; continue
    m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(.*?);\s*/\* (0x[0-9a-f]+) \*/", l)
    if fn and m:
        hi = int(re.search(r"/\* (0x[0-9a-f]+) \*/", text[i + 1]).group(1), 16)
        funcs[fn].append((int(m.group(1), 16), m.group(2).strip(), (hi >> 41) & 0xF))
for fn, ins in funcs.items():
    best = None
    for a, op, _ in ins:
        m = re.search(r"(0x[0-9a-f]+)", op) if "BRA" in op else None
        if m and int(m.group(1), 16) < a and (best is None or a - int(m.group(1), 16) > best[1] - best[0]):
            best = (int(m.group(1), 16), a)
    body = [x for x in ins if best[0] <= x[0] <= best[1]]
    op = lambda s: (s.split()[1] if s.startswith("@") else s.split()[0]).split(".")[0]
    c, st = collections.Counter(op(o) for _, o, _ in body), collections.Counter()
    for _, o, s in body:
        st[op(o)] += s
    print(f"{fn}: main loop {len(body)} instructions: " + ", ".join(f"{k} {v}" for k, v in c.most_common(12)))
    print(f"  stall cycles in the control codes: total {sum(st.values())}, " + ", ".join(f"{k} {v}" for k, v in st.most_common(6)))
    print("  HMMA stall counts:", dict(collections.Counter(s for _, o, s in body if "HMMA" in o)))
