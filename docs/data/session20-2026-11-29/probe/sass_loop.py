# Main loop (longest backward-branch span) of one function of nvdisasm -hex -c output: every
# instruction with its stall count (bits 41-44 of the second 64-bit word), and a summary.
import re, sys, collections
path, want = sys.argv[1], sys.argv[2]
fn, funcs, labels, pending, lines = None, {}, {}, [], open(path).read().split("\n")
for i, line in enumerate(lines):
    m = re.match(r"\.text\.(\S+):", line)
    if m:
        fn = m.group(1) if re.search(want, m.group(1)) else None
        if fn: funcs[fn] = []; labels[fn] = {}
        continue
    if not fn: continue
    m = re.match(r"(\.L_x_\d+):", line.strip())
    if m: pending.append(m.group(1)); continue
    m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s*/\* (0x[0-9a-f]+) \*/", line)
    if m:
        a = int(m.group(1), 16)
        hi = re.search(r"/\* (0x[0-9a-f]+) \*/", lines[i + 1])
        stall = (int(hi.group(1), 16) >> 41) & 0xF if hi else 0
        for l in pending: labels[fn][l] = a
        pending = []
        funcs[fn].append((a, m.group(2).strip(), stall))
for fn, ins in funcs.items():
    loop = []
    for a, s, _ in ins:
        m = re.search(r"BRA.*`\((\.L_x_\d+)\)", s)
        if m and labels[fn].get(m.group(1), 1 << 30) < a:
            t = labels[fn][m.group(1)]
            body = [x for x in ins if t <= x[0] <= a]
            if len(body) > len(loop): loop = body
    op = lambda s: (s.split()[1] if s.split()[0].startswith("@") else s.split()[0]).split(".")[0]
    c = collections.Counter(op(s) for _, s, _ in loop)
    hm = [st for _, s, st in loop if op(s) == "HMMA"]
    print(f"== {fn[:60]}: {len(ins)} instr, loop {len(loop)}: " + ", ".join(f"{k} {v}" for k, v in c.most_common(14)))
    print(f"   loop stall cycles {sum(st for *_, st in loop)} (HMMA {sum(hm)}), HMMA stalls {dict(sorted(collections.Counter(hm).items()))}")
    if len(sys.argv) > 3:
        for a, s, st in loop: print(f"   {a:05x} {st:2d} {s}")
