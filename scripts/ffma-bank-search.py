#!/usr/bin/env python3
"""Register-bank conflicts of one flagship kernel's FFMAs under other FMA orders, offline.

Extracts KERNEL from the committed PTX, permutes the 128 independent FMAs of every k-step (the
regions of `fma.rn.f32` / `mov.b32 %f, %r` lines holding RM*RN FMAs) into each candidate order,
compiles with ptxas for sm_90, disassembles with nvdisasm and counts FFMAs with two distinct
source registers of equal parity not served by the operand reuse cache (as the `sass` mode of
scripts/flagship-run.sh counts them on the GPU machine). docs/matmul.md has the results.

    PTXAS=.cuda/bin/ptxas NVDISASM=/path/to/nvdisasm scripts/ffma-bank-search.py [SECONDS [OUT.json]]

Environment: KERNEL (default sgemm_128x256x8_s4_16x8, built with FMA order 0), RM and RN (its
thread tile, default 16 and 8), PTXFILE (default the committed PTX), SEED (a JSON order to
start the hill-climb from, skipping the structured orders; default order 0), RSEED (the random
seed). Many processes with different RSEEDs search in parallel (as on the GPU machine's 16 cores
for docs/matmul.md).

The best order of the hill-climb goes to OUT.json (default ffma-order.json) as a list of
[row, column] pairs, in the order the FMAs of a k-step should be issued.

nvdisasm is not in this repository's CUDA link; the `nvidia-cuda-nvdisasm` wheel has it.
"""
import json, os, random, re, subprocess, sys, tempfile, time

KERNEL = os.environ.get("KERNEL", "sgemm_128x256x8_s4_16x8")
RM, RN = int(os.environ.get("RM", "16")), int(os.environ.get("RN", "8"))
PTXAS = os.environ.get("PTXAS", ".cuda/bin/ptxas")
NVDISASM = os.environ.get("NVDISASM", "nvdisasm")
FMA = re.compile(r"\s*fma\.rn\.f32\s+(%f\d+),\s*(%f\d+),\s*(%f\d+),\s*(%f\d+);")
MOV = re.compile(r"\s*mov\.b32\s+%f\d+,\s*%r\d+;")
# The last k-step of a slice hands each new accumulator to the next iteration as `mov %r, %f`.
MOVBACK = re.compile(r"\s*mov\.b32\s+%r\d+,\s*(%f\d+);")
FFMA = re.compile(r"FFMA\S*\s+R(\d+),\s*(-?R\d+(?:\.reuse)?),\s*(-?R\d+(?:\.reuse)?),\s*(-?R\d+(?:\.reuse)?)")


def kernel_ptx():
    s = open(os.environ.get("PTXFILE", "gpu-kernels/ptx/gpu_kernels.ptx")).read()
    i = s.index(f".visible .entry {KERNEL}(")
    body = s[i : s.index("\n}\n", i) + 3]
    head = ".version 9.0\n.target sm_80\n.address_size 64\n"
    head += ".extern .shared .align 16 .b8 _Zcuda_std_dyn_shared[16];\n"
    return (head + body).split("\n")


SRC = kernel_ptx()


def order0(l):
    """The kernel's own order (flagship.rs `ffma_order` 0): columns in serpentine."""
    c, r = l // RM, l % RM
    return (r if c % 2 == 0 else RM - 1 - r, c)


def regions():
    """The k-steps: runs of FMAs, fragment moves and hand-back moves holding RM*RN FMAs."""
    out, cur = [], []
    for n, line in enumerate(SRC):
        if FMA.match(line) or MOV.match(line) or MOVBACK.match(line):
            cur.append(n)
        elif cur:
            out.append(cur)
            cur = []
    return [r for r in out if sum(1 for n in r if FMA.match(SRC[n])) == RM * RN]


REGIONS = regions()


def build(order):
    """The kernel with every k-step's FMAs in `order` (fragment moves first, each hand-back
    move right after its FMA)."""
    lines = list(SRC)
    for reg in REGIONS:
        fmas = [n for n in reg if FMA.match(SRC[n])]
        movs = [n for n in reg if MOV.match(SRC[n])]
        back = {MOVBACK.match(SRC[n]).group(1): n for n in reg if MOVBACK.match(SRC[n])}
        at = {order0(l): fmas[l] for l in range(len(fmas))}
        new = [SRC[n] for n in movs]
        for rc in order:
            new.append(SRC[at[rc]])
            dst = FMA.match(SRC[at[rc]]).group(1)
            if dst in back:
                new.append(SRC[back[dst]])
        assert len(new) == len(reg)
        for n, text in zip(reg, new):
            lines[n] = text
    return "\n".join(lines)


def conflicts(ptx):
    with tempfile.TemporaryDirectory() as d:
        open(f"{d}/k.ptx", "w").write(ptx)
        subprocess.run([PTXAS, "-arch=sm_90", "-O3", f"{d}/k.ptx", "-o", f"{d}/k.cubin"],
                       check=True, capture_output=True)
        sass = subprocess.run([NVDISASM, f"{d}/k.cubin"], check=True, capture_output=True,
                              text=True).stdout
    total = bad = 0
    prev = None
    for line in sass.split("\n"):
        m = FFMA.search(line)
        if not m:
            continue
        srcs = [m.group(i).lstrip("-") for i in (2, 3, 4)]
        regs = [int(x.split(".")[0][1:]) for x in srcs]
        cached = [prev is not None and prev[i][1] and prev[i][0] == regs[i] for i in range(3)]
        live = [r for i, r in enumerate(regs) if not cached[i]]
        total += 1
        bad += any(live[a] != live[b] and live[a] % 2 == live[b] % 2
                   for a in range(len(live)) for b in range(a + 1, len(live)))
        prev = [(regs[i], srcs[i].endswith(".reuse")) for i in range(3)]
    return total, bad


def serpentine(rows, cols, snake):
    out = []
    for i, c in enumerate(cols):
        out += [(r, c) for r in (rows if i % 2 == 0 or not snake else rows[::-1])]
    return out


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 300
    out = sys.argv[2] if len(sys.argv) > 2 else "ffma-order.json"
    ident = list(range(RM))
    rowsets = {
        "id": ident,
        "evenodd": ident[0::2] + ident[1::2],
        "bitrev": sorted(ident, key=lambda r: int(f"{r:04b}"[::-1], 2)),
        "groups4": [g * 4 + i for i in range(4) for g in range(4)],
        "pairs": [x for p in range(RM // 2) for x in (p, p + RM // 2)],
    }
    colsets = {
        "id": list(range(RN)), "evenodd": [0, 2, 4, 6, 1, 3, 5, 7], "rev": list(range(RN))[::-1],
        "half": [0, 4, 1, 5, 2, 6, 3, 7], "pairs": [0, 1, 4, 5, 2, 3, 6, 7],
        "odd1": [1, 0, 3, 2, 5, 4, 7, 6],
    }
    print(f"{KERNEL}: {len(REGIONS)} k-steps permuted")
    for rn, rows in rowsets.items() if not os.environ.get("SEED") else []:
        for cn, cols in colsets.items():
            for snake in (True, False):
                print(conflicts(build(serpentine(rows, cols, snake)))[1], rn, cn, snake, flush=True)
    cur = [order0(l) for l in range(RM * RN)]
    if os.environ.get("SEED"):
        cur = [tuple(x) for x in json.load(open(os.environ["SEED"]))]
    random.seed(int(os.environ.get("RSEED", "1")))
    best = conflicts(build(cur))[1]
    start, tried = time.time(), 0
    while time.time() - start < seconds:
        cand = list(cur)
        i, j = sorted(random.sample(range(len(cand)), 2))
        move = random.random()
        if move < 0.4:
            cand[i], cand[j] = cand[j], cand[i]
        elif move < 0.7:
            cand[i : j + 1] = cand[i : j + 1][::-1]
        else:
            cand.insert(j, cand.pop(i))
        k = conflicts(build(cand))[1]
        tried += 1
        if k <= best:
            if k < best:
                print(f"hill-climb: {k} after {tried} candidates", flush=True)
                json.dump(cand, open(out, "w"))
            best, cur = k, cand
    print(f"hill-climb: best {best} after {tried} candidates")


if __name__ == "__main__":
    main()
