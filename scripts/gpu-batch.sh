#!/usr/bin/env bash
# Many graphs (issue 23 item 3), on the GPU machine from the repository root with a bundle
# (`scripts/gpu-run.sh batch [N V]` calls this):
#   scripts/gpu-batch.sh [N V]
# 1. N (10000) graphs of V (128) vertices, 5V edges: `host apsp-batch --peak --json` with every
#    register kernel of V's size class (--kernel, REPS runs each, default 3; KERNELS= skips
#    them): aggregate compute vs apsp-peak in the same process, file to file; then the default
#    kernel FREPS times (default 3), each from a flushed (and where allowed dropped) page cache
#    and followed by `sync` (file to file including the flush to disk).
# 2. The disk, in the same run: dd of a file the size of the outputs, buffered and with
#    conv=fdatasync, and read back (page cache dropped first where allowed).
# 3. The batched blocked classes: NB (1000) graphs each of V = 256 and V = 512 (BLOCKED).
# JSON to $OUT/batch_*.json, a summary line per run on stdout, the SM clock to
# $OUT/clock_batch.csv. BUNDLE names the bundle (default .device/bundle), APSP_TMP the scratch
# directory (default /tmp/apsp).
set -u
B=${BUNDLE:-.device/bundle}
HOST=$B/host
OUT_DIR=${OUT:-gpu-out}
mkdir -p "$OUT_DIR"
n=${1:-10000}
v=${2:-128}
reps=${REPS:-3}
nb=${NB:-1000}
tmp=${APSP_TMP:-/tmp/apsp}/batch
status=0
run() { echo "+ $*" >&2; "$@" || { echo "FAILED ($?): $*"; status=1; }; }

# Course-format graphs: V, E, then E (src, dst, w) int32 little-endian; no self-loops.
gen() {
    python3 - "$1" "$2" "$3" <<'PY'
import array, os, random, sys
d, n, v = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(d, exist_ok=True)
rng = random.Random(1)
r = rng.random
e = 5 * v
for g in range(n):
    a = array.array("i", [v, e])
    for _ in range(e):
        s = int(r() * v)
        t = (s + 1 + int(r() * (v - 1))) % v
        a.extend((s, t, int(r() * 1001)))
    with open(f"{d}/g{g:05d}.in", "wb") as f:
        a.tofile(f)
PY
}

summary() {
    python3 - "$@" <<'PY'
import json, sys
path, label = sys.argv[1], sys.argv[2]
r = json.load(open(path))["results"]
t = r["times"]
print(f'{label}: {r["written"]}/{r["inputs"]} graphs: compute {t["compute_s"]:.4f} s, '
      f'{r["updates_per_s"]:.3e} updates/s = {r["percent_of_peak"]:.1f}% of apsp-peak '
      f'({r["addmin_peak"]["updates_per_s"]:.3e}); launches {t["launches"]} + blocked '
      f'{t["blocked_launches"]}, single {t["single"]}; file to file {r["total_s"]:.3f} s '
      f'(read {r["read_s"]:.3f} s, write {r["write_s"]:.3f} s busy)')
PY
}

rm -rf "$tmp" && mkdir -p "$tmp"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv -lms 200 > "$OUT_DIR/clock_batch.csv" &
smi=$!
gen "$tmp/in" "$n" "$v"
sync
cls=128
[ "$v" -le 64 ] && cls=64
[ "$v" -le 32 ] && cls=32
kernels=${KERNELS-$("$HOST" info | sed -n "s/^  \(apsp_batch_n${cls}\(_[a-z0-9]*\)\?\) .*/\1/p")}
echo "kernels of class $cls: $kernels"
for k in $kernels; do
    for r in $(seq 1 "$reps"); do
        rm -rf "$tmp/out"
        run "$HOST" apsp-batch "$tmp/in" -o "$tmp/out" --peak --json --kernel "$k" > "$OUT_DIR/batch_${n}_${v}_${k}_$r.json"
        summary "$OUT_DIR/batch_${n}_${v}_${k}_$r.json" "$k run $r"
    done
done
# The default kernel, file to file with the flush to disk in the time: FREPS (3) runs, each
# from a flushed page cache (dropped where allowed).
cat /proc/sys/vm/dirty_background_bytes /proc/sys/vm/dirty_background_ratio /proc/sys/vm/dirty_bytes /proc/sys/vm/dirty_ratio 2>/dev/null | tr '\n' ' ' | sed 's/^/vm dirty_background_bytes, _ratio, dirty_bytes, _ratio: /'; echo
now() { date +%s.%N; }
for r in $(seq 1 "${FREPS:-3}"); do
    rm -rf "$tmp/out"
    sync
    echo 3 > /proc/sys/vm/drop_caches 2>/dev/null && dropped=dropped || dropped="not dropped"
    start=$(now)
    run "$HOST" apsp-batch "$tmp/in" -o "$tmp/out" --peak --json > "$OUT_DIR/batch_${n}_${v}_f$r.json"
    mid=$(now)
    sync
    end=$(now)
    summary "$OUT_DIR/batch_${n}_${v}_f$r.json" "default run $r (page cache $dropped before)"
    python3 -c "import sys; s, m, e = map(float, sys.argv[1:]); print(f'  process {m - s:.3f} s with start-up, then sync {e - m:.3f} s: {e - s:.3f} s to the disk')" "$start" "$mid" "$end"
done
cp "$OUT_DIR/batch_${n}_${v}_f1.json" "$OUT_DIR/batch_${n}_${v}.json"
inb=$(du -sb "$tmp/in" | cut -f1)
outb=$(du -sb "$tmp/out" | cut -f1)
echo "in $inb bytes, out $outb bytes, $(ls "$tmp/out" | wc -l) files"
df -h "$tmp" | tail -1
# The disk: a file the size of the outputs.
mb=$((outb / 1048576 + 1))
rm -rf "$tmp/out"
sync
echo "dd write, buffered (page cache):"
dd if=/dev/zero of="$tmp/dd" bs=1M count="$mb" 2>&1 | tail -1
rm -f "$tmp/dd"; sync
echo "dd write, conv=fdatasync (to the disk):"
dd if=/dev/zero of="$tmp/dd" bs=1M count="$mb" conv=fdatasync 2>&1 | tail -1
if sync && echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then
    echo "dd read (page cache dropped):"
else
    echo "dd read (page cache NOT dropped: not allowed):"
fi
dd if="$tmp/dd" of=/dev/null bs=1M 2>&1 | tail -1
rm -f "$tmp/dd"
rm -rf "$tmp/in"
# The batched blocked algorithm.
for bv in ${BLOCKED:-256 512}; do
    gen "$tmp/in$bv" "$nb" "$bv"
    run "$HOST" apsp-batch "$tmp/in$bv" -o "$tmp/out$bv" --peak --json > "$OUT_DIR/batch_${nb}_$bv.json"
    summary "$OUT_DIR/batch_${nb}_$bv.json" "blocked V=$bv"
    rm -rf "$tmp/in$bv" "$tmp/out$bv"
done
kill "$smi"
rm -rf "$tmp"
exit $status
