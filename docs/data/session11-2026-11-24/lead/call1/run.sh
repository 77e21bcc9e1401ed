# Session 11, lead call 1: why 1000x777x1025 T,N is below 90 % and why 1x4096x4096 is bimodal.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead11
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$B/host
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/c1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 200 > $OUT0/c1/clock.csv 2>/dev/null &
smi=$!
cd $OUT0/c1
step() { echo "$(date -u +%H:%M:%S) $*" >> steps.txt; }
# 1. Candidates side by side, host matmul, 20 reps, three processes each.
for i in 1 2 3; do
  step "tn $i"
  timeout 40 $OLDPWD/$H matmul --m 1000 --n 777 --k 1025 --trans-a --reps 20 --kernel \
    sgemm,sgemm_tn_64x64x16_s4_8x4_u_fl,sgemm_tn_64x128x16_s3_8x8_u_fl,route:a=T,route:b=R,route:b=R+tile=3+flagship=2,route:a=T+tile=3+flagship=2,route:b=R+tile=2+flagship=2 >> tn.txt 2>&1
  timeout 40 $OLDPWD/$H matmul --m 1000 --n 777 --k 1025 --reps 20 --kernel \
    sgemm,sgemm_64x64x16_s4_8x4_u,sgemm_64x64x16_s4_4x4_u,sgemm_64x128x16_s3_8x8_u,sgemm_128x128x8_s4_16x8_u >> nn.txt 2>&1
  timeout 40 $OLDPWD/$H matmul --m 1000 --n 780 --k 1025 --trans-a --reps 20 --kernel \
    sgemm,sgemm_tn_64x64x16_s4_8x4_fl,sgemm_tn_64x128x16_s3_8x8_fl,sgemm_tn_64x64x16_s4_8x4_u_fl >> tn780.txt 2>&1
done
# 2. Kernel durations under ncu (no cache flush, no clock lock): cuBLAS's kernels and ours.
printf '1000 777 1025 TN 1\n1000 777 1025 NN 1\n1000 780 1025 TN 1\n1 4096 4096 NN 1\n' > probe.txt
step ncu
timeout 90 ncu --cache-control none --clock-control none --csv --kernel-name-base demangled \
  --metrics gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__cluster_dim_x \
  $OLDPWD/$H bench sgemm-shapes --suite probe.txt --reps 5 > ncu.csv 2> ncu.log; echo "ncu rc $?" >> ncu.log
# 3. 1x4096x4096: eight processes of the one problem, 50 reps each, and the suite's neighbours.
printf '1 4096 4096 NN 1\n' > gemv.txt
printf '1000 1000 1000 NN 1\n1 8192 8192 NN 1\n1 4096 4096 NN 1\n4096 1 4096 NN 1\n' > gemv_ctx.txt
for i in 1 2 3 4 5 6 7 8; do
  step "gemv $i"
  timeout 20 $OLDPWD/$H bench -o gemv_$i.jsonl sgemm-shapes --suite gemv.txt --reps 50 2>> gemv.txt.out >/dev/null
  timeout 20 $OLDPWD/$H bench -o gemvctx_$i.jsonl sgemm-shapes --suite gemv_ctx.txt --reps 20 2>> gemv_ctx.out >/dev/null
done
step end
kill $smi
cd $OLDPWD
grep -h "cublas\|^sgemm\|^route\|^sgemm_" $OUT0/c1/tn.txt | head -30
grep -h "1x4096" $OUT0/c1/gemv.txt.out $OUT0/c1/gemv_ctx.out
tail -3 $OUT0/c1/ncu.log
cd $OUT0 && tar czf out1.tar.gz c1 && rm -rf c1
