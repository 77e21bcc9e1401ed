# Session 10, lead call A: the merged main's GPU tests, sanitizers and shape measurements.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/ts $OUT0/gv
# tsingle: GPU tests (gpu_tsingle, gpu_mid, gpu_flagship_batched, gpu_route), T,N unaligned, its sanitizer, one suite run, outside lists
PARTS="tests unaligned sanitize_u suite outside" SUITE_RUNS=1 U_RUNS=3 timeout 400 bash scripts/gpu-shapes-tsingle.sh $B $OUT0/ts \
  docs/data/session8-2026-11-24/shapes/outside.txt host/data/mid/outside.txt host/data/tsingle/outside.txt \
  host/data/gemv/outside.txt docs/data/session9-2026-11-24/bops/outside_bops.txt > $OUT0/ts/stdout.txt 2>&1
echo "tsingle rc=$?"
# gemv: gpu_skinny + gpu_sgemm, sanitizer on the new kernels
PARTS="tests sanitize" timeout 120 bash scripts/gpu-shapes-gemv.sh $B $OUT0/gv > $OUT0/gv/stdout.txt 2>&1
echo "gemv rc=$?"
grep -hE "test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY" $OUT0/ts/*.log $OUT0/gv/*.log | sort | uniq -c
grep -h "geomean\|geometric" $OUT0/ts/*.txt | head
cd $OUT0 && tar czf out.tar.gz ts gv && rm -rf ts gv
