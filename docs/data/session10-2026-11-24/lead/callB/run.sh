# Session 10, lead call B: two more suite runs, the float kernels (clock sampled every 100 ms), what cuBLAS launches.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; export BUNDLE=$B
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/mid $OUT0/f32 $OUT0/f64 $OUT0/probe
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 100 > $OUT0/clock_b.csv 2>/dev/null &
smi=$!
step() { echo "$(date -u +%H:%M:%S.%N) $*" >> $OUT0/steps.txt; }
step suite-start
PARTS="suite" SUITE_RUNS=2 timeout 200 bash scripts/gpu-shapes-mid.sh $B $OUT0/mid > $OUT0/mid/stdout.txt 2>&1; echo "suite rc=$?"
step f32-start
OUT=$OUT0/f32 FULL_TOP=2 timeout 120 bash scripts/gpu-float-f32.sh 30000 48 3 > $OUT0/f32/stdout.txt 2>&1; echo "f32 rc=$?"
step f64-start
OUT=$OUT0/f64 TESTS=0 VARIANTS_F64=default,r8c4_k32_a2_r128_lean32 FULL_TOP=1 timeout 130 bash scripts/gpu-float-f64.sh 30000 48 3 > $OUT0/f64/stdout.txt 2>&1; echo "f64 rc=$?"
step probe-start
OUT=$OUT0/probe SIZES=4096 timeout 150 bash scripts/gpu-cublas-probe.sh; echo "probe rc=$?"
step end
kill $smi
grep -h "%\|rc=" $OUT0/f32/stdout.txt $OUT0/f64/stdout.txt | tail -30
grep -h "geomean\|geometric" $OUT0/mid/*.txt | head
cd $OUT0 && tar czf out.tar.gz mid f32 f64 probe clock_b.csv steps.txt && rm -rf mid f32 f64 probe
