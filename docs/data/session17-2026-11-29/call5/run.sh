#!/usr/bin/env bash
# Session 17, call 5: the TF32 split pass on 64 x 64 tiles with 16-byte accesses (was 32 x 32,
# 4-byte): TF32 with B row-major (the split pass) against B transposed (no pass) and cuBLAS TF32,
# 3xTF32 (two operands split, hi and lo) against cuBLAS FP32, the TF32/3xTF32 GPU tests.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
g() { # name timeout args...
  local n=$1 t=$2; shift 2; local s=$(date +%s)
  timeout $t "$@" > $O/$n.json 2> $O/$n.err; echo "$n rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
}
g guard32 15 $B/host sm90 --inputs tf32 --b n,k --rounds 1 --reps 2 --check-rows 4 --schedules wgmma 256 300x520x200
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 100 > $O/clock.csv 2>/dev/null &
smi=$!
if grep -q "guard32 rc 0" $O/log.txt; then
  g t4096 120 $B/host sm90 --inputs tf32 --b n,k --rounds 7 --reps 10 --check-rows 2 --schedules wgmma,wgmma_inplace 4096
  g t8192 120 $B/host sm90 --inputs tf32 --b n,k --rounds 5 --reps 10 --check-rows 2 --schedules wgmma 8192
  g x3_8192 60 $B/host matmul 8192 --precision 3xtf32 --reps 10 --verify sample --json
  g x3_4096 60 $B/host matmul 4096 --precision 3xtf32 --reps 20 --verify sample --json
fi
kill $smi
g tests_tf32 120 $B/tests/gpu_sm90_tf32 --test-threads 4
g tests_tc 170 $B/tests/gpu_tc --test-threads 4
g tests_sm90 170 $B/tests/gpu_sm90 --test-threads 4
cd $OUT && tar cJf s17_call5.tar.xz w && rm -rf w
tar xJOf s17_call5.tar.xz w/log.txt
for t in tests_tf32 tests_tc tests_sm90; do tar xJOf s17_call5.tar.xz w/$t.json | grep "test result\|FAILED\|panicked" | head -5; done
for f in guard32 t4096 t8192; do tar xJOf s17_call5.tar.xz w/$f.err | grep -v "^grid"; done
mkdir -p /tmp/x5 && tar -C /tmp/x5 -xJf s17_call5.tar.xz
python3 - <<'PY'
import json
for f in ('x3_4096','x3_8192'):
    try: r = json.load(open(f'/tmp/x5/w/{f}.json'))["results"]
    except Exception as e: print(f, "unreadable", e); continue
    for x in r: print(f, x["kernel"], round(x["tflops"],1), round(x.get("percent_of_cublas",0),1), x.get("failures"), x.get("error",{}).get("mean"))
PY
