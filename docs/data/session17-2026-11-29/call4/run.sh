#!/usr/bin/env bash
# Session 17, call 4: (1) the tree with the non-aligned named barrier in stream-K and the
# mma.sync store moved to tc/tile.rs: sm90, TF32 and mma.sync GPU tests, the 16-bit rounds again
# (third process), the mma.sync kernels against cuBLAS BF16; (2) an experiment, host only: the
# small-graph persistent kernels with fewer blocks per SM (RGK_SMALL_PER_SM caps them), so that
# the pivot chain's items have an SM (nearly) to themselves.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
g() { # name timeout args...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.json 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
g guard16 15 $B/host sm90 --inputs bf16 --b n --rounds 1 --reps 2 --check-rows 4 --schedules wgmma,wgmma_skl 256
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
if grep -q "guard16 rc 0" $O/log.txt; then
  g r4096 120 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 7 --reps 20 --check-rows 2 --schedules wgmma,wgmma_ds 4096
  g r8192 120 $B/host sm90 --inputs bf16,fp16 --b n,k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma 8192
  g mma4096 60 $B/host matmul 4096 --precision bf16 --kernel tc_bf16_rr_w64l_s4 --reps 20 --verify sample --json
  g mma8192 60 $B/host matmul 8192 --precision bf16 --kernel tc_bf16_rr_w64l_s4 --reps 20 --verify sample --json
fi
tmp=/tmp/s17small; mkdir -p $tmp
for v in 1000 2000; do
  $B/host apsp-gen $v $((v * 40)) --seed 1 -o $tmp/s$v.in > /dev/null
  for ps in 0 1 2 3; do
    if [ $ps = 0 ]; then
      g small${v}_all 60 $B/host apsp-small $tmp/s$v.in --reps 10 --json
    else
      RGK_SMALL_PER_SM=$ps g small${v}_ps$ps 60 $B/host apsp-small $tmp/s$v.in --reps 10 --json
    fi
  done
done
kill $smi
g tests_sm90 170 $B/tests/gpu_sm90 --test-threads 4
g tests_tf32 120 $B/tests/gpu_sm90_tf32 --test-threads 4
g tests_tc 170 $B/tests/gpu_tc --test-threads 4
cd $OUT && tar cJf s17_call4.tar.xz w && rm -rf w
tar xJOf s17_call4.tar.xz w/log.txt
for t in tests_sm90 tests_tf32 tests_tc; do tar xJOf s17_call4.tar.xz w/$t.json | grep "test result"; done
for f in r4096 r8192; do tar xJOf s17_call4.tar.xz w/$f.err | grep -v "^grid"; done
for f in mma4096 mma8192; do tar xJOf s17_call4.tar.xz w/$f.err | tail -3; done
mkdir -p /tmp/x && tar -C /tmp/x -xJf s17_call4.tar.xz
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob('/tmp/x/w/small*.json')):
    try: r = json.load(open(f))["results"]
    except Exception as e: print(f, "unreadable", e); continue
    print(f.split('/')[-1], ' '.join(f'{x["schedule"]}={x["percent_of_peak"]:.1f}' for x in r["runs"]))
PY
grep -h "blocks per SM" /tmp/x/w/small*_ps*.err | sort | uniq -c | head -20
