#!/usr/bin/env python3
"""The CPU matmul ladder under the microscope: cache misses per variant (valgrind cachegrind) and
static against work-stealing scheduling of the threaded packed kernel (timings).

usage: scripts/cpu-profile.py cache [--size N] [--variants a,b,…] [--jobs J] [--no-docs]
       scripts/cpu-profile.py sched [--sizes a,b,…] [--runs R] [--reps K] [--no-docs]

cache: builds `host` (release), then runs `host matmul-cpu --once --variant V --sizes N` under
  cachegrind for every variant, plus one `--inputs-only` run (process start and inputs) whose
  counts are subtracted from each variant's. Each variant runs twice: with the machine's own L1d
  and last-level cache (L3), and with the L2 as the simulated last level, because cachegrind
  models only two levels and at N = 1000 the three matrices (12 MB) fit in the L3. Cache sizes
  come from sysfs. Installs valgrind (Debian package) if it is missing.
  Writes docs/data/cpu_profile.json, docs/logs/DATE-cpu-profile.log (every run's raw summary)
  and the table in docs/cpu-ladder.md between its `cpu-profile cache` markers.
sched: `host matmul-cpu --variant simd_avx2,threaded_static,threaded_rayon --reps K` in R separate
  processes (order of the two threaded variants alternating), the median per process, then the
  median over processes. Writes docs/data/cpu_sched.json, docs/logs/DATE-cpu-sched.log and the
  table between the `cpu-profile sched` markers.

Standard library only; run from anywhere in the repository.
"""
import argparse, concurrent.futures, datetime, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOST = os.path.join(ROOT, "target", "release", "host")
# The host binary links libcuda.so.1; on a machine with no NVIDIA driver this runner puts the
# project's stub on the loader path (and changes nothing where a driver exists). Every command
# goes through it, valgrind included (valgrind then passes the environment on).
RUNNER = [os.path.join(ROOT, "scripts", "with-cuda-env")]

# What the cache table covers by default: the steps plus the single-thread packed kernel
# the threaded ones are built on. nalgebra is left out for time (52 s of CPU per simulation
# here); add it with --variants.
PROFILE_VARIANTS = [
    "naive_ijk", "reorder_ikj", "blocked16", "blocked32", "blocked64",
    "simd_avx2", "threaded_static", "threaded_rayon",
]
# CPU seconds one cachegrind run of each variant took at N = 1000 on the 2-core AMD EPYC VM
# (docs/logs/2026-11-22-cpu-profile.log), i.e. its time on an idle core: only for the estimate
# printed before starting, scaled by (N / 1000)^3. valgrind emulates FMA with helper calls, so
# the AVX2+FMA kernels are the slow ones, not naive.
EST_S = {
    "naive_ijk": 43, "reorder_ikj": 5, "blocked16": 5, "blocked32": 4, "blocked64": 4,
    "simd_avx2": 54, "threaded_static": 57, "threaded_rayon": 55, "nalgebra": 52,
}
EST_BASE_S = 1

SCHED_VARIANTS = ["simd_avx2", "threaded_static", "threaded_rayon"]
# 1000: 14 row blocks of 72 rows over 2 threads, 7 each. 1024: 15 blocks, 8 against 7 under the
# static split (12% above an even share). 512 and 2048 for the trend.
SCHED_SIZES = [512, 1000, 1024, 2048]


def die(msg):
    print(f"error: {msg}", file=sys.stderr)
    sys.exit(1)


def sh(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, cwd=ROOT, **kw).stdout


def log(msg):
    print(msg, flush=True)


# ---- machine ----

def caches():
    """{'L1d': {...}, 'L1i': ..., 'L2': ..., 'L3': ...} for cpu0 from sysfs."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    if not os.path.isdir(base):
        die(f"{base} is missing, so the cache sizes to simulate are unknown")
    out = {}
    for idx in sorted(os.listdir(base)):
        d = os.path.join(base, idx)
        if not idx.startswith("index"):
            continue
        read = lambda f: open(os.path.join(d, f)).read().strip()
        level, kind = int(read("level")), read("type")
        name = f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")
        size = read("size")
        size_b = int(size[:-1]) * {"K": 1024, "M": 1024 ** 2}[size[-1]] if size[-1] in "KM" else int(size)
        out[name] = {
            "size_bytes": size_b,
            "ways": int(read("ways_of_associativity")),
            "line_bytes": int(read("coherency_line_size")),
            "shared_cpu_list": read("shared_cpu_list"),
        }
    for need in ("L1d", "L1i"):
        if need not in out:
            die(f"sysfs lists no {need} cache for cpu0")
    return out


def cg_spec(c):
    return f"{c['size_bytes']},{c['ways']},{c['line_bytes']}"


def human(b):
    return f"{b // 1024 ** 2} MiB" if b >= 1024 ** 2 else f"{b // 1024} KiB"


def machine():
    lscpu = sh(["lscpu"])
    model = re.search(r"^Model name:\s*(.+)$", lscpu, re.M)
    return {
        "cpu_model": model.group(1).strip() if model else "unknown",
        "cpus": os.cpu_count(),
        "lscpu_caches": [l.strip() for l in lscpu.splitlines() if re.match(r"\s*L\d\w? cache:", l)],
        "caches": caches(),
    }


def provenance(cmdline):
    commit = sh(["git", "describe", "--always", "--dirty", "--abbrev=7"]).strip()
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit,
        "command": cmdline,
        "load_before": loadavg(),
    }


def loadavg():
    return [float(x) for x in open("/proc/loadavg").read().split()[:3]]


def build():
    log("+ cargo build --release -p host")
    r = subprocess.run(["cargo", "build", "--release", "-p", "host"], cwd=ROOT)
    if r.returncode != 0:
        die("`cargo build --release -p host` failed")


def ensure_valgrind():
    if shutil.which("valgrind"):
        return
    log("valgrind is missing: installing the Debian package (apt-get install -y valgrind)")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    install = sudo + ["apt-get", "install", "-y", "valgrind"]
    if subprocess.run(install).returncode != 0:
        subprocess.run(sudo + ["apt-get", "update"])
        if subprocess.run(install).returncode != 0:
            die("could not install valgrind with apt-get; install it and run again")


# ---- cache profile ----

SUMMARY = {
    "d_refs": r"D\s+refs:\s+([\d,]+)",
    "d1_misses": r"D1\s+misses:\s+([\d,]+)",
    "lld_misses": r"LLd\s+misses:\s+([\d,]+)",
}


def parse_summary(stderr):
    out = {}
    for key, pat in SUMMARY.items():
        m = re.search(r"^==\d+== " + pat, stderr, re.M)
        if not m:
            raise ValueError(f"no `{pat}` line in cachegrind's summary")
        out[key] = int(m.group(1).replace(",", ""))
    return out


def cachegrind(sim, d1, ll, args):
    cmd = RUNNER + [
        "valgrind", "--tool=cachegrind", "--cache-sim=yes",
        f"--I1={d1['i']}", f"--D1={d1['d']}", f"--LL={ll}",
        "--cachegrind-out-file=/dev/null",
        HOST, "matmul-cpu", "--once", *args,
    ]
    t = time.monotonic()
    # Output to files and os.wait4 rather than subprocess.run: the child's own CPU time (valgrind
    # is single-threaded) is what the run would take on an idle core, whatever the load now.
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        p = subprocess.Popen(cmd, cwd=ROOT, text=True, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    wall = time.monotonic() - t
    shown = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)
    if p.returncode != 0:
        die(f"`{shown}` failed (exit {p.returncode}): {stderr.strip().splitlines()[-1:]}")
    return {"sim": sim, "args": args, "command": shown, "wall_s": round(wall, 1),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "counts": parse_summary(stderr), "raw": stdout + stderr}


def cache_profile(opts):
    variants = opts.variants.split(",") if opts.variants else PROFILE_VARIANTS
    ensure_valgrind()
    build()
    # The host checks the names and the size (one sentence, exit != 0) on a 1x1 problem first,
    # so that a typo does not surface minutes into the runs.
    check = subprocess.run(RUNNER + [HOST, "matmul-cpu", "--once", "--variant", ",".join(variants),
                                     "--sizes", "1"], cwd=ROOT, text=True, capture_output=True)
    if check.returncode != 0 or opts.size < 1 or opts.size > 8192:
        die(check.stderr.strip().splitlines()[0].removeprefix("error: ") if check.returncode
            else f"size {opts.size} is out of range (1..=8192)")
    m = machine()
    c = m["caches"]
    d1 = {"d": cg_spec(c["L1d"]), "i": cg_spec(c["L1i"])}
    levels = sorted(k for k in c if k[1:].isdigit())
    last = levels[-1]
    sims = {"ll": (last, cg_spec(c[last]))}
    if "L2" in c and last != "L2":
        sims["l2"] = ("L2", cg_spec(c["L2"]))

    jobs = [(s, ["--inputs-only", "--sizes", str(opts.size)]) for s in sims]
    jobs += [(s, ["--variant", v, "--sizes", str(opts.size)]) for s in sims for v in variants]
    scale = (opts.size / 1000) ** 3
    est = lambda j: EST_BASE_S if j[1][0] == "--inputs-only" else EST_S.get(j[1][1], 60) * scale
    jobs.sort(key=est, reverse=True)  # longest first packs the workers best
    total = sum(map(est, jobs))
    log(f"cachegrind: {len(jobs)} runs at N = {opts.size} ({', '.join(variants)}, plus the "
        f"--inputs-only baseline), each with L1d {human(c['L1d']['size_bytes'])} and LL = "
        + " / ".join(f"{lvl} {human(c[lvl]['size_bytes'])}" for lvl, _ in sims.values())
        + f"; {opts.jobs} at a time. valgrind runs the program 20-100x slower: expect about "
        f"{total / opts.jobs / 60:.0f} min if {opts.jobs} cores are free, longer when other work "
        f"shares them (load average now {loadavg()[0]:.1f}).")
    prov = provenance("scripts/cpu-profile.py " + " ".join(sys.argv[1:]))
    prov["valgrind"] = sh(["valgrind", "--version"]).strip()
    t0 = time.monotonic()
    runs = []
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        futs = {pool.submit(cachegrind, s, d1, sims[s][1], a): (s, a) for s, a in jobs}
        for f in concurrent.futures.as_completed(futs):
            r = f.result()
            runs.append(r)
            log(f"  {r['sim']:>2} {' '.join(r['args']):<40} {r['wall_s']:7.1f} s ({r['cpu_s']:.1f} s CPU)  "
                + "  ".join(f"{k} {v:,}" for k, v in r["counts"].items()))
    prov["wall_s"] = round(time.monotonic() - t0, 1)
    prov["cpu_s"] = round(sum(r["cpu_s"] for r in runs), 1)
    prov["load_after"] = loadavg()

    def find(sim, variant):
        key = ["--inputs-only"] if variant is None else ["--variant", variant]
        return next(r for r in runs if r["sim"] == sim and r["args"][: len(key)] == key)

    rows = []
    for v in variants:
        row = {"variant": v, "size": opts.size}
        for s in sims:
            got, base = find(s, v)["counts"], find(s, None)["counts"]
            net = {k: got[k] - base[k] for k in got}
            row[s] = {**net, "d1_miss_rate": net["d1_misses"] / net["d_refs"],
                      "lld_miss_rate": net["lld_misses"] / net["d_refs"], "raw": got}
        rows.append(row)
    result = {
        **prov, "machine": m, "size": opts.size,
        "simulations": {s: {"d1": c["L1d"], "ll_level": lvl, "ll": c[lvl]} for s, (lvl, _) in sims.items()},
        "baseline": {s: find(s, None)["counts"] for s in sims},
        "rows": rows,
        "note": "counts are the variant's process minus the --inputs-only process (same "
                "simulation); miss rates are misses / data refs, as cachegrind defines them",
    }
    table = cache_table(result)
    log("\n" + table)
    if opts.no_docs:
        return
    day = prov["date"][:10]
    write("docs/data/cpu_profile.json", json.dumps(result, indent=2) + "\n")
    raw = [header(prov, m)] + [
        f"\n### sim {r['sim']} ({sims[r['sim']][0]} as LL): {r['command']}  "
        f"({r['wall_s']} s, {r['cpu_s']} s CPU)\n{r['raw']}"
        for r in sorted(runs, key=lambda r: (r["sim"], r["args"]))]
    write(f"docs/logs/{day}-cpu-profile.log", "\n".join(raw) + "\n\n" + table + "\n")
    splice("cache", doc_header(prov, m, f"docs/logs/{day}-cpu-profile.log", "data/cpu_profile.json") + table)


def cache_table(res):
    sims = res["simulations"]
    ll, l2 = sims["ll"], sims.get("l2")
    head = ["variant", "D refs", "D1 misses", "D1 miss rate",
            f"LLd misses ({ll['ll_level']} {human(ll['ll']['size_bytes'])})", "LLd miss rate"]
    if l2:
        head += [f"misses past L2 ({human(l2['ll']['size_bytes'])}, simulated as LL)", "rate"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in res["rows"]:
        a = r["ll"]
        cells = [r["variant"], f"{a['d_refs']:,}", f"{a['d1_misses']:,}", f"{100 * a['d1_miss_rate']:.2f}%",
                 f"{a['lld_misses']:,}", f"{100 * a['lld_miss_rate']:.3f}%"]
        if l2:
            b = r["l2"]
            cells += [f"{b['lld_misses']:,}", f"{100 * b['lld_miss_rate']:.2f}%"]
        lines.append("| " + " | ".join(cells) + " |")
    b = res["baseline"]["ll"]
    lines.append(f"| *subtracted baseline (`--inputs-only`)* | {b['d_refs']:,} | {b['d1_misses']:,} | | "
                 f"{b['lld_misses']:,} | |" + (f" {res['baseline']['l2']['lld_misses']:,} | |" if l2 else ""))
    return "\n".join(lines) + "\n"


# ---- scheduling ----

def sched(opts):
    sizes = [int(s) for s in opts.sizes.split(",")] if opts.sizes else SCHED_SIZES
    if opts.runs < 1 or opts.reps < 1:
        die("--runs and --reps must be at least 1")
    build()
    m = machine()
    prov = provenance("scripts/cpu-profile.py " + " ".join(sys.argv[1:]))
    per = {}  # (variant, size) -> one median per process
    raw = []
    for run in range(opts.runs):
        order = list(SCHED_VARIANTS)
        if run % 2:  # the two threaded variants swap places every other process
            order[1], order[2] = order[2], order[1]
        cmd = RUNNER + [HOST, "matmul-cpu", "--variant", ",".join(order), "--sizes",
                        ",".join(map(str, sizes)), "--reps", str(opts.reps), "--json"]
        load = loadavg()
        out = sh(cmd)
        shown = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)
        raw.append(f"\n### run {run + 1}/{opts.runs}, load {load}: {shown}\n{out}")
        for row in json.loads(out)["results"]:
            per.setdefault((row["variant"], row["size"]), []).append(row["median_s"])
        log(f"  run {run + 1}/{opts.runs} done (load {load[0]:.2f})")
    prov["load_after"] = loadavg()
    rows = [{"variant": v, "size": s, "median_ms": 1e3 * statistics.median(per[v, s]),
             "min_ms": 1e3 * min(per[v, s]), "max_ms": 1e3 * max(per[v, s]),
             "gflops": 2 * s ** 3 / statistics.median(per[v, s]) / 1e9,
             "per_process_median_ms": [1e3 * x for x in per[v, s]]}
            for s in sizes for v in SCHED_VARIANTS]
    result = {**prov, "machine": m, "runs": opts.runs, "reps": opts.reps, "rows": rows,
              "note": "median_ms: median over processes of each process's median of --reps timed "
                      "runs (after one warm-up); min/max: over the processes' medians"}
    table = sched_table(result)
    log("\n" + table)
    if opts.no_docs:
        return
    day = prov["date"][:10]
    write("docs/data/cpu_sched.json", json.dumps(result, indent=2) + "\n")
    write(f"docs/logs/{day}-cpu-sched.log", header(prov, m) + "".join(raw) + "\n" + table)
    splice("sched", doc_header(prov, m, f"docs/logs/{day}-cpu-sched.log", "data/cpu_sched.json") + table)


def sched_table(res):
    lines = ["| size | variant | median ms | min–max ms | GFLOP/s | vs simd_avx2 |", "|---|---|---|---|---|---|"]
    by = {(r["variant"], r["size"]): r for r in res["rows"]}
    for r in res["rows"]:
        one = by["simd_avx2", r["size"]]["median_ms"]
        lines.append(f"| {r['size']} | {r['variant']} | {r['median_ms']:.2f} | {r['min_ms']:.2f}–{r['max_ms']:.2f} | "
                     f"{r['gflops']:.1f} | {one / r['median_ms']:.2f}x |")
    return "\n".join(lines) + "\n"


# ---- output ----

def header(prov, m):
    return "\n".join([
        f"date: {prov['date']}", f"commit: {prov['commit']}", f"command: {prov['command']}",
        f"cpu: {m['cpu_model']}, {m['cpus']} cpus", *[f"lscpu: {l}" for l in m["lscpu_caches"]],
        *[f"sysfs {k}: {human(v['size_bytes'])}, {v['ways']}-way, {v['line_bytes']} B lines, cpus {v['shared_cpu_list']}"
          for k, v in m["caches"].items()],
        f"load before: {prov['load_before']}, after: {prov.get('load_after')}",
        *([f"valgrind: {prov['valgrind']}",
           f"wall: {prov['wall_s']} s; CPU: {prov['cpu_s']} s in all valgrind runs"] if "valgrind" in prov else []),
    ]) + "\n"


def doc_header(prov, m, log_path, data_path):
    c = m["caches"]
    cache_line = "; ".join(
        f"{k} {human(v['size_bytes'])} {v['ways']}-way" + (" per core" if "," not in v["shared_cpu_list"]
                                                             and "-" not in v["shared_cpu_list"] else " shared")
        for k, v in c.items() if k != "L1i")
    lines = [
        f"- **Run:** {prov['date']}, commit `{prov['commit']}`, `{prov['command']}`"
        + (f" ({prov['valgrind']}; {prov['wall_s'] / 60:.1f} min here, {prov['cpu_s'] / 60:.1f} min of "
           f"CPU time in all, so about {prov['cpu_s'] / 60 / m['cpus']:.1f} min on {m['cpus']} idle cores)"
           if "valgrind" in prov else ""),
        f"- **Machine:** {m['cpu_model']}, {m['cpus']} CPUs; caches (sysfs): {cache_line}; "
        f"{c['L1d']['line_bytes']} B lines. Load average {prov['load_before'][0]:.1f} before, "
        f"{prov['load_after'][0]:.1f} after.",
        f"- **Raw output:** [{log_path[5:]}]({log_path[5:]}), [{data_path}]({data_path}).",
        "",
    ]
    return "\n".join(lines) + "\n"


def write(rel, text):
    path = os.path.join(ROOT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    log(f"wrote {rel}")


def splice(name, body):
    """Replaces the text between the `cpu-profile NAME` markers of docs/cpu-ladder.md."""
    path = os.path.join(ROOT, "docs", "cpu-ladder.md")
    begin = f"<!-- cpu-profile {name}: written by scripts/cpu-profile.py {name} -->"
    end = f"<!-- end cpu-profile {name} -->"
    doc = open(path).read()
    if begin not in doc or end not in doc:
        die(f"docs/cpu-ladder.md lacks the markers `{begin}` and `{end}`")
    i, j = doc.index(begin) + len(begin), doc.index(end)
    write("docs/cpu-ladder.md", doc[:i] + "\n" + body + doc[j:])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    c = sub.add_parser("cache", help="cachegrind miss table per variant")
    c.add_argument("--size", type=int, default=1000)
    c.add_argument("--variants", help="comma-separated (default: %s)" % ",".join(PROFILE_VARIANTS))
    c.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="valgrind runs at a time (default: CPUs)")
    c.add_argument("--no-docs", action="store_true", help="print the table, write nothing")
    s = sub.add_parser("sched", help="static split against rayon work stealing, timed")
    s.add_argument("--sizes", help="comma-separated (default: %s)" % ",".join(map(str, SCHED_SIZES)))
    s.add_argument("--runs", type=int, default=7, help="separate processes (default: 7)")
    s.add_argument("--reps", type=int, default=5, help="timed runs per process (default: 5)")
    s.add_argument("--no-docs", action="store_true", help="print the table, write nothing")
    opts = p.parse_args()
    if getattr(opts, "jobs", 1) < 1:
        die("--jobs must be at least 1")
    {"cache": cache_profile, "sched": sched}[opts.what](opts)


if __name__ == "__main__":
    main()
