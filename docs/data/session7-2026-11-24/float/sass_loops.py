"""Per float phase-3 kernel and ceiling kernel of a cubin's `nvdisasm -c -hex` listing: the
instructions of the whole kernel and of its k loop (the backward-branch loop with the most FP
instructions, the shortest of those: the innermost), the FP
instructions of an add-min in it (f32 FADD + FMNMX; f64 DADD + DSETP + FSEL), what else it
issues, and the sum of the control codes' stall counts (the cycles one warp alone needs).
usage: python3 sass_loops.py listing.sass [kernel-substring ...]"""
import collections, re, sys

FP = {"FADD", "FMNMX", "DADD", "DSETP", "FSEL"}


def functions(path):
    fn, out = None, collections.OrderedDict()
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"//-+ \.text\.(\S+)", lines[i])
        if m:
            fn = m.group(1)
            out[fn] = []
        m = re.search(r"/\*([0-9a-f]{4,})\*/\s+(.*?);\s+/\* (0x[0-9a-f]{16}) \*/", lines[i])
        if fn and m and i + 1 < len(lines):
            hi = re.search(r"/\* (0x[0-9a-f]{16}) \*/", lines[i + 1])
            h = int(hi.group(1), 16) if hi else 0
            text = m.group(2).strip()
            op = re.sub(r"^@!?U?P\w+\s+", "", text).split()[0]
            tgt = re.search(r"`\(\.(L_x_\d+)\)", text)
            out[fn].append((int(m.group(1), 16), op, (h >> 41) & 0xF, text, tgt.group(1) if tgt else None))
            i += 2
            continue
        m = re.match(r"\.(L_x_\d+):", lines[i].strip())
        if fn and m:
            out[fn].append((None, "LABEL", 0, m.group(1), None))
        i += 1
    return out


def main():
    fns = functions(sys.argv[1])
    keys = sys.argv[2:] or ["phase3", "addmin_peak_f"]
    for name, ins in fns.items():
        if not any(k in name for k in keys) or not name.startswith(("fwf", "apsp_addmin_peak_f")):
            continue
        labels = {x[3]: n for n, x in enumerate(ins) if x[1] == "LABEL"}
        best, best_key = None, None
        for n, x in enumerate(ins):
            if x[1] == "BRA" and x[4] in labels and labels[x[4]] < n:
                body = [y for y in ins[labels[x[4]]:n + 1] if y[1] != "LABEL"]
                nfp = sum(1 for y in body if y[1].split(".")[0] in FP)
                key = (nfp, -len(body))
                if nfp and (best is None or key > best_key):
                    best, best_key = body, key
        allins = [y for y in ins if y[1] != "LABEL"]
        c = collections.Counter(y[1].split(".")[0] if y[1] not in ("LDS.128",) else y[1] for y in best or [])
        fp = sum(v for k, v in c.items() if k in FP)
        other = {k: v for k, v in c.items() if k not in FP}
        upd = c.get("FMNMX", 0) or c.get("DSETP", 0)
        print(f"{name}: {len(allins)} instructions; k loop {len(best or [])} "
              f"({upd} add-mins, {fp} FP, {len(best or []) - fp} other: "
              + ", ".join(f"{k} {v}" for k, v in sorted(other.items(), key=lambda kv: -kv[1]))
              + f"), stall-count sum {sum(y[2] for y in best or [])} cycles")


main()
