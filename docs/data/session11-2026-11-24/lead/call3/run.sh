# Session 11, lead call 3: the `_ub_fl` T,N kernels (A in 16-byte pieces, B in 4-byte ones):
# tests, side by side at the unaligned T,N problems, compute-sanitizer, the suite x3, two outside lists.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead11
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/c3
PARTS="tests unaligned sanitize_u suite outside" SUITE_RUNS=3 U_RUNS=3 \
  SAN_U_KERNELS="sgemm_tn_64x64x16_s4_8x4_ub_fl sgemm_tn_64x128x16_s3_8x8_ub_fl" \
  timeout 560 bash scripts/gpu-shapes-tsingle.sh $B $OUT0/c3 host/data/tsingle/outside.txt host/data/mid/outside.txt \
  > $OUT0/c3/stdout.txt 2>&1
echo "tsingle rc=$?"
grep -hE "test result|FAILED|panicked|ERROR SUMMARY|RACECHECK SUMMARY" $OUT0/c3/*.log | sort | uniq -c
grep -h "geometric" $OUT0/c3/suite_*.txt $OUT0/c3/outside_*.txt
grep -h "1000x777x1025" $OUT0/c3/suite_*.txt
grep -A5 "tn1000_" $OUT0/c3/unaligned.txt | head -40
cd $OUT0 && tar czf out3.tar.gz c3 && rm -rf c3
