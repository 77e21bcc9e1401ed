set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/gemv
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle
echo "commit $(cat $B/COMMIT 2>/dev/null)"; date -u
W=/tmp/wgemv; mkdir -p $W
cp $D/gpu-shapes-gemv.sh scripts/ 2>/dev/null; mkdir -p host/data/gemv; cp $D/outside_gemv.txt host/data/gemv/outside.txt 2>/dev/null
PARTS="${PARTS:-candidates smallcand splits tests sanitize small}" REPS=20 UNTIL=${UNTIL:-140} \
  timeout 170 bash $D/gpu-shapes-gemv.sh $B $W host/data/gemv/outside.txt host/data/mid/outside.txt > $W/run.log 2>&1; echo "rc $?"
date -u
tar czf "$OUT0/out.tar.gz" -C $W .
grep -E "FAILED|SM clock|geometric|test result|ERROR SUMMARY|RACECHECK SUMMARY" $W/run.log | cut -c1-250 > $OUT0/summary.txt
grep -E "^==|^[0-9]|^sgemm|^sgemv|^cublas" $W/candidates.txt $W/splits.txt $W/small.txt 2>/dev/null | cut -c1-120 >> $OUT0/summary.txt
