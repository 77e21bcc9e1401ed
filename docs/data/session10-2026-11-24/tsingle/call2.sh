set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/tsingle
T0=$SECONDS
tar xJf $D/bundle2.tar.xz || exit 1
B=.device/bundle
echo "commit $(cat $B/COMMIT)"; date -u
if [ -z "${CUBLAS_LIBRARY:-}" ]; then
    CUBLAS_LIBRARY=$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1); export CUBLAS_LIBRARY
fi
W=/tmp/wts2; mkdir -p $W/a $W/b $W/c
left() { local l=$(( ${1} - (SECONDS - T0) )); [ $l -lt 1 ] && l=1; echo $l; }
PARTS="tests check before" T_TEST=30 REPS=20 \
  timeout $(left 95) bash $D/gpu-shapes-tsingle.sh $B $W/a > $W/a/run.log 2>&1; echo "rc a $? at $((SECONDS - T0)) s"
PARTS="suite" SUITE_RUNS=1 T_SUITE=$(left 150) \
  timeout $(left 152) bash $D/gpu-shapes-tsingle.sh $B $W/b > $W/b/run.log 2>&1; echo "rc b $? at $((SECONDS - T0)) s"
PARTS="outside" T_OUT=$(left 170) \
  timeout $(left 172) bash $D/gpu-shapes-tsingle.sh $B $W/c $D/outside_tsingle.txt > $W/c/run.log 2>&1; echo "rc c $? at $((SECONDS - T0)) s"
date -u
grep -E "SM clock|FAILED|test result|geometric" $W/*/run.log | cut -c1-400
tar czf "$OUT0/out.tar.gz" -C $W .
{ grep -E "^==|^cublas|^sgemm|^route" $W/a/check.txt | awk '{print substr($0,1,72)}'; grep -vE "^==" $W/a/before.txt | awk '{print substr($0,1,60)}'; } > $OUT0/summary.txt
