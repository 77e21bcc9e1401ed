# Session 11, lead call 5: the merged state (the `_ub_fl` kernels, 3 stream-K slots for the tuned
# transposed body): tests, side by side, sanitizer, before/after (RGK_SGEMM_SK_SLOTS=5), the suite x3,
# five outside lists.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead11
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/c5
PARTS="tests unaligned sanitize_u before suite outside" SUITE_RUNS=3 U_RUNS=2 BEFORE_ENV=RGK_SGEMM_SK_SLOTS=5 \
  SAN_U_KERNELS="sgemm_tn_64x64x16_s4_8x4_ub_fl sgemm_tn_64x128x16_s3_8x8_ub_fl" \
  timeout 580 bash scripts/gpu-shapes-tsingle.sh $B $OUT0/c5 \
  docs/data/session8-2026-11-24/shapes/outside.txt host/data/mid/outside.txt host/data/tsingle/outside.txt \
  host/data/gemv/outside.txt docs/data/session9-2026-11-24/bops/outside_bops.txt > $OUT0/c5/stdout.txt 2>&1
echo "tsingle rc=$?"
grep -hE "test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY" $OUT0/c5/*.log | sort | uniq -c
grep -h "geometric" $OUT0/c5/suite_*.txt $OUT0/c5/outside_*.txt $OUT0/c5/before.txt
grep -h "1000x777x1025\|333x555x777 NN\|4096x4096x4096 NN\|1x4096x4096" $OUT0/c5/suite_*.txt
cd $OUT0 && tar czf out5.tar.gz c5 && rm -rf c5
