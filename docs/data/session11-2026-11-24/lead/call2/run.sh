# Session 11, lead call 2: T,N single problems, the tuned bodies under stream-K and data-parallel grids.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead11
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$PWD/$B/host
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/c2; cd $OUT0/c2
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 200 > clock.csv 2>/dev/null &
smi=$!
step() { echo "$(date -u +%H:%M:%S) $*" >> steps.txt; }
U=sgemm,sgemm_tn_64x64x16_s4_8x4_u_fl,sgemm_tn_64x128x16_s3_8x8_u_fl
A=sgemm,sgemm_tn_64x64x16_s4_8x4_fl,sgemm_tn_64x128x16_s3_8x8_fl,sgemm_tn_128x128x8_s4_16x8_fl,sgemm_tn_64x128x16_s3_8x8_u_fl
for i in 1 2 3; do
  for sch in stream-k data-parallel; do
    step "$i $sch"
    for shp in "1000 777 1025 $U" "999 1111 1023 $U" "1000 780 1025 $A" "1100 900 1000 $A" "2000 777 1025 $U" "1000 777 2049 $U"; do
      set -- $shp
      echo "== $1x$2x$3 TN $sch run $i" >> tn.txt
      RGK_SGEMM_SCHEDULE=$sch timeout 40 $H matmul --m $1 --n $2 --k $3 --trans-a --reps 20 --kernel $4 >> tn.txt 2>&1
    done
  done
done
step ncu
for sch in stream-k data-parallel; do
  RGK_SGEMM_SCHEDULE=$sch timeout 60 ncu --cache-control none --clock-control none --csv --kernel-name-base demangled \
    --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread \
    $H matmul --m 1000 --n 777 --k 1025 --trans-a --reps 3 --kernel $U > ncu_$sch.csv 2> ncu_$sch.log
  RGK_SGEMM_SCHEDULE=$sch timeout 60 ncu --cache-control none --clock-control none --csv --kernel-name-base demangled \
    --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread \
    $H matmul --m 1100 --n 900 --k 1000 --trans-a --reps 3 --kernel $A > ncu1100_$sch.csv 2>> ncu_$sch.log
done
step end
kill $smi
grep -h "==\|cublas\|^sgemm" tn.txt | awk '/^==/{h=$0; next} {print h" | "$1" "$2" "$4}' | sort | head -150 > summary.txt
cd $OUT0 && tar czf out2.tar.gz c2 && rm -rf c2
