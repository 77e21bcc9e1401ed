set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/mid
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle
echo "commit $(cat $B/COMMIT)"; date -u
W=/tmp/wmid; mkdir -p $W
PARTS="tests check suite outside" REPS=20 T_TEST=35 T_SUITE=60 T_OUT=30 \
  timeout 172 bash $D/gpu-shapes-mid.sh $B $W $D/outside_s8.txt $D/outside.txt > $W/run.log 2>&1; echo "rc $?"
date -u
grep -E "geometric|SM clock|FAILED|test result" $W/run.log | cut -c1-400
tar czf "$OUT0/out.tar.gz" -C $W .
cut -c1-100 $W/check.txt > $OUT0/summary.txt
