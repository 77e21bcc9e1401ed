set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/mid
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle
echo "commit $(cat $B/COMMIT)"; date -u
W=/tmp/wmid; mkdir -p $W
PARTS="${PARTS:-explore gemv outside}" EXPLORE_UNTIL=${EXPLORE_UNTIL:-110} REPS=20 T_OUT=35 \
  timeout 170 bash $D/gpu-shapes-mid.sh $B $W $D/outside.txt > $W/run.log 2>&1; echo "rc $?"
date -u
grep -E "geometric|SM clock|FAILED|skipped" $W/run.log | cut -c1-250
tar czf "$OUT0/out.tar.gz" -C $W .
grep -E "^==|^[0-9]" $W/explore.txt | cut -c1-100 | head -150 > $OUT0/summary.txt
