#!/usr/bin/env bash
# Session 18, call 5: compute-sanitizer memcheck and racecheck of the library's TF32 call with A
# and B row-major (the in-place kernel wgmma_tf32_kn_256x128x32_s4w1) at an aligned and an odd
# shape, and with stream-K forced (wgmma_inplace_skl) at the odd one.
set -u
O=$OUT/w; mkdir -p $O
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt
for tool in memcheck racecheck; do
  for shape in "--m 512 --n 512 --k 512" "--m 777 --n 1000 --k 520"; do
    s=$(date +%s)
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $B/host matmul $shape --precision tf32 --reps 1 --no-cublas --json > $O/$tool.$(echo $shape | tr -d ' -').json 2>> $O/$tool.log
    echo "$tool $shape rc $? s $(( $(date +%s) - s ))" >> $O/log.txt
  done
done
cd $OUT && tar cJf s18_call5.tar.xz w && rm -rf w
tar xJOf s18_call5.tar.xz w/log.txt
tar xJOf s18_call5.tar.xz w/memcheck.log | grep -i "error summary\|ERROR SUMMARY" | head
tar xJOf s18_call5.tar.xz w/racecheck.log | grep -i "hazard\|RACECHECK SUMMARY\|error summary" | head
tar xJOf s18_call5.tar.xz w/memcheck.m777n1000k520.json | grep -o '"kernel": "[a-z0-9_]*"\|"failures": [0-9]*' | head
