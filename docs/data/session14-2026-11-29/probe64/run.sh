#!/bin/bash
# session 14 probe 2: f64 add-min sequences (addmin64.cu): SASS counts, then throughput
cd "$(dirname "$0")"
nvcc -O3 -arch=sm_90 -o addmin64 addmin64.cu 2>&1
cuobjdump -sass addmin64 > $OUT/addmin64.sass
for m in 0 1 2 3 4; do
  echo "== mode $m"; awk "/Function : .*kILi${m}E/{f=1;next} /Function : /{f=0} f" $OUT/addmin64.sass | grep -oE "^\s+/\*[0-9a-f]+\*/\s+[A-Z0-9_.]+" | awk '{print $2}' | sort | uniq -c | sort -rn | head -8
done
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader -lms 200 > $OUT/clock.csv & CP=$!
./addmin64 | tee $OUT/addmin64.txt
kill $CP
