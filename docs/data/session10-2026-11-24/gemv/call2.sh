set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/gemv
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle
echo "commit $(cat $B/COMMIT 2>/dev/null)"; date -u
W=/tmp/wgemv; mkdir -p $W
cp $D/gpu-shapes-gemv.sh scripts/ 2>/dev/null; mkdir -p host/data/gemv; cp $D/outside_gemv.txt host/data/gemv/outside.txt 2>/dev/null
PARTS="smallcand suite outside tests" SMALL_SHAPES="64 64 64 -;128 128 128 -;256 256 256 -;512 512 512 -;333 555 777 _u" SMALL_WAVES=- \
  REPS=20 UNTIL=150 T_SUITE=90 T_OUT=35 \
  timeout 172 bash $D/gpu-shapes-gemv.sh $B $W host/data/gemv/outside.txt host/data/mid/outside.txt > $W/run.log 2>&1; echo "rc $?"
date -u
tar czf "$OUT0/out.tar.gz" -C $W .
grep -E "FAILED|SM clock|geometric|test result|skipped" $W/run.log | cut -c1-300 > $OUT0/summary.txt
