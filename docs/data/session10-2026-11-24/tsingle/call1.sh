set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/tsingle
T0=$SECONDS
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle
echo "commit $(cat $B/COMMIT)"; date -u
if [ -z "${CUBLAS_LIBRARY:-}" ]; then
    CUBLAS_LIBRARY=$(ls /usr/local/cuda/lib64/libcublas.so.* 2>/dev/null | head -1); export CUBLAS_LIBRARY
fi
W=/tmp/wts; mkdir -p $W/a $W/b
left() { echo $(( ${1} - (SECONDS - T0) )); }
PARTS="candidates" REPS=20 CAND_RUNS=3 CAND_UNTIL=80 \
  timeout $(left 100) bash $D/gpu-shapes-tsingle.sh $B $W/a > $W/a/run.log 2>&1; echo "rc a $?"
PARTS="tests sanitize" T_TEST=30 T_SAN=25 \
  timeout $(left 150) bash $D/gpu-shapes-tsingle.sh $B $W/b > $W/b/run.log 2>&1; echo "rc b $?"
mkdir -p $W/c
PARTS="before" REPS=20 timeout $(left 172) bash $D/gpu-shapes-tsingle.sh $B $W/c > $W/c/run.log 2>&1; echo "rc c $?"
date -u
grep -E "SM clock|FAILED|test result|SUMMARY" $W/*/run.log | cut -c1-300
tar czf "$OUT0/out.tar.gz" -C $W .
grep -E "^==|^cublas|^sgemm|^route" $W/a/candidates.txt | awk '{print substr($0,1,80)}' > $OUT0/summary.txt
