#!/bin/bash
# session 14 probe: compile addmin3.cu for sm_90, count the loop's SASS, time the kernels
set -x
cd "$(dirname "$0")"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw --format=csv
nvcc -O3 -arch=sm_90 -o addmin3 addmin3.cu 2>&1
cuobjdump -sass addmin3 > $OUT/addmin3.sass
for k in k_int2 k_int3 k_f32 k_f32x2 k_f32pos3; do
  echo "== $k"; awk "/Function : .*$k/{f=1} f&&/Function : /&&!/$k/{f=0} f" $OUT/addmin3.sass | grep -oE "^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+" | awk '{print $2}' | sort | uniq -c | sort -rn | head -8
done
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader -lms 200 > $OUT/clock.csv & CP=$!
./addmin3 | tee $OUT/addmin3.txt
kill $CP
