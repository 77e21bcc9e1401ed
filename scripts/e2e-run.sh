#!/usr/bin/env bash
# Issue 10, end to end: file-to-file timings of `host apsp` on the GPU machine, quiet disk and
# right after two other outputs of the same size, in both output modes; the disk's own
# bandwidth (dd) in the same run; the GPU tests. Run from the repository root with the bundle
# (BUNDLE, default .device/bundle) carrying this script:
#   BUNDLE=.device/e2e .device/e2e/e2e-run.sh [tests] [disk] [variants] [prefault] [sanitize] [V...]
# Everything goes to $OUT: env.log, tests.log, disk.log, run.log (one line per run),
# runs.jsonl (each run's --json report plus label and the process's wall time), clock.csv,
# sanitize.log.
set -uo pipefail
B=${BUNDLE:-.device/bundle}
H=$B/host
O=${OUT:-gpu-out}
T=${E2E_TMP:-/tmp/e2e}
mkdir -p "$T" "$O"
export REQUIRE_GPU=1 APSP_TESTDATA=$B/testdata/apsp HOST_BIN=$H
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 500 > "$O/clock.csv" &
smi=$!
{
    echo "date $(date -u +%FT%TZ) commit $(cat "$B/COMMIT")"
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
    uname -r; df -hT "$T"; findmnt -T "$T"; lsblk -o NAME,SIZE,ROTA,TYPE,MODEL 2>/dev/null | head -20; free -g; nproc
    for k in dirty_ratio dirty_background_ratio dirty_bytes dirty_background_bytes dirty_expire_centisecs; do
        echo "vm.$k = $(cat /proc/sys/vm/$k)"
    done
} > "$O/env.log" 2>&1

# label, then host apsp arguments: appends the JSON report (+ label, process wall time) to runs.jsonl
timed() {
    local label=$1; shift
    local t0 t1
    t0=$(date +%s.%N)
    "$H" apsp "$@" --json > "$T/rep.json" 2> "$T/rep.err"
    local rc=$?
    t1=$(date +%s.%N)
    python3 - "$T/rep.json" "$label" "$t0" "$t1" "$rc" "$T/rep.err" >> "$O/runs.jsonl" 2>> "$O/run.log" <<'PY'
import json, sys
f, label, t0, t1, rc, err = sys.argv[1:]
try:
    d = json.load(open(f))
    d = {**d["results"], "commit": d["commit"], "device": d["device"]}  # the envelope (docs/json.md)
except Exception:
    d = {"error": open(err).read()}
d["label"], d["process_wall_s"], d["rc"] = label, float(t1) - float(t0), int(rc)
print(json.dumps(d))
s = d.get("split", {}); st = d.get("stream", {})
line = (f'{label:<34} rc {rc} process {d["process_wall_s"]:.3f} s  total {d.get("total_s", 0):.3f} s  '
        f'compute {s.get("compute_s", 0):.3f} s ({d.get("percent_of_peak", 0):.1f}% of peak)  '
        f'read {s.get("read_s", 0):.3f} fill {s.get("fill_s", 0):.4f} h2d {s.get("host_to_device_s", 0):.4f} '
        f'prepare {d.get("prepare_s", 0):.3f} d2h {s.get("device_to_host_s", 0):.3f} write {s.get("write_s", 0):.3f} '
        f'stream {st.get("wall_s", 0):.3f} overlapped {d.get("overlapped_s", 0):.3f}  '
        f'{st.get("mode", "?")} x{st.get("writers", 0)}  RSS {(d.get("peak_rss_bytes") or 0) / 2**20:.0f} MiB')
print(line, file=sys.stderr)
PY
    [ "$rc" = 0 ] || cat "$T/rep.err" >> "$O/run.log"
}

for what in "$@"; do
    case "$what" in
    tests)
        for t in "$B"/tests/gpu_apsp; do
            "$t" --test-threads=1 2>&1 | tee -a "$O/tests.log" | tail -3
        done
        ;;
    disk)
        {
            sync
            echo "dd 3.6 GB oflag=direct, bs 16M:"; dd if=/dev/zero of="$T/dd.bin" bs=16M count=215 oflag=direct 2>&1 | tail -1
            rm -f "$T/dd.bin"; sync
            echo "dd 3.6 GB buffered (no sync), bs 16M:"; dd if=/dev/zero of="$T/dd.bin" bs=16M count=215 2>&1 | tail -1
            echo "then sync:"; t0=$(date +%s.%N); sync; t1=$(date +%s.%N); python3 -c "print(f'{$t1 - $t0:.2f} s')"
            rm -f "$T/dd.bin"; sync
        } >> "$O/disk.log" 2>&1
        ;;
    variants)
        # V = 30000, quiet disk, page cache: writer threads and chunk sizes, and the default thrice
        v=30000
        "$H" apsp-gen $v $((v * 40)) --seed 1 -o "$T/g$v.in" > /dev/null
        for opt in "" "--write-threads 1" "--write-threads 2" "--write-threads 4" "--write-threads 16" "--chunk-mib 4" "--chunk-mib 64" "" ""; do
            sync; sleep 1
            # shellcheck disable=SC2086
            timed "V=$v quiet buffered ${opt:-default}" "$T/g$v.in" "$T/q.out" $opt
            rm -f "$T/q.out"
        done
        rm -f "$T/g$v.in"; sync
        ;;
    prefault)
        # V = 30000, quiet disk: the placeholder written during compute against none, alternated
        v=30000
        "$H" apsp-gen $v $((v * 40)) --seed 1 -o "$T/g$v.in" > /dev/null
        for rep in 1 2 3; do
            for opt in "" "--no-prefault"; do
                sync; sleep 1
                # shellcheck disable=SC2086
                timed "V=$v quiet buffered ${opt:-prefault} #$rep" "$T/g$v.in" "$T/q.out" $opt
                rm -f "$T/q.out"
            done
        done
        rm -f "$T/g$v.in"; sync
        ;;
    sanitize)
        # compute-sanitizer on the whole GPU path (init and scatter kernels, phases, streaming)
        for v in 65 1000; do
            "$H" apsp-gen "$v" $((v * 8)) --seed 7 -o "$T/s$v.in" > /dev/null
            for tool in memcheck racecheck synccheck; do
                echo "+ $tool V=$v" >> "$O/sanitize.log"
                compute-sanitizer --tool "$tool" --error-exitcode 9 "$H" apsp "$T/s$v.in" "$T/s$v.out" --no-peak >> "$O/sanitize.log" 2>&1
                echo "rc=$?" >> "$O/sanitize.log"
            done
        done
        ;;
    *)
        # MODES: output modes timed quiet and right after two outputs of their own mode;
        # AFTER_BUFFERED: modes timed right after two outputs through the page cache.
        v=$what
        "$H" apsp-gen "$v" $((v * 40)) --seed 1 -o "$T/g$v.in" > /dev/null
        for io in ${MODES:-buffered direct}; do
            sync; sleep 1
            timed "V=$v quiet $io" "$T/g$v.in" "$T/q.out" --io "$io"
            rm -f "$T/q.out"; sync; sleep 1
            "$H" apsp "$T/g$v.in" "$T/a.out" --no-peak --io "$io" > /dev/null
            "$H" apsp "$T/g$v.in" "$T/b.out" --no-peak --io "$io" > /dev/null
            timed "V=$v after 2 writes ($io) $io" "$T/g$v.in" "$T/c.out" --io "$io"
            rm -f "$T/a.out" "$T/b.out" "$T/c.out"
        done
        for io in ${AFTER_BUFFERED:-}; do
            sync; sleep 1
            "$H" apsp "$T/g$v.in" "$T/a.out" --no-peak --io buffered > /dev/null
            "$H" apsp "$T/g$v.in" "$T/b.out" --no-peak --io buffered > /dev/null
            timed "V=$v after 2 writes (buffered) $io" "$T/g$v.in" "$T/c.out" --io "$io"
            rm -f "$T/a.out" "$T/b.out" "$T/c.out"
        done
        rm -f "$T/g$v.in"; sync
        ;;
    esac
done
kill $smi
