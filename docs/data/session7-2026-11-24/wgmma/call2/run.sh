# wgmma helper, session 7, call 2: the library schedule's GPU tests (the many-waves test's
# message), the pair kernels (clusters of 2, B multicast: `wgmma_c2`) checked and timed against
# whole tiles and the default, interleaved with cuBLAS; all output in one tarball.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/wgmma
W=/tmp/w2; mkdir -p "$OUT0" $W
tar xJf $D/bundle.tar.xz || exit 1
H=.device/bundle/host; T=.device/bundle/tests/gpu_sm90
cat .device/bundle/COMMIT > $W/commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 250 > $W/clock.csv 2>/dev/null &
smi=$!
t0=$(date +%s)
r() { local name=$1 lim=$2; shift 2; echo "+ [$(( $(date +%s) - t0 ))s] $*" >> $W/log.txt;
      timeout "$lim" "$@" > $W/$name.json 2> $W/$name.err; echo "rc=$? [$(( $(date +%s) - t0 ))s]" >> $W/log.txt; }
t() { local name=$1 lim=$2; shift 2; echo "+ [$(( $(date +%s) - t0 ))s] tests $*" >> $W/log.txt;
      timeout "$lim" $T --test-threads 1 "$@" > $W/$name.txt 2>&1; echo "rc=$? [$(( $(date +%s) - t0 ))s]" >> $W/log.txt; }
t tests_library 40 the_library
r check_c2 25 $H sm90 --check --no-timing --schedules wgmma_c2,wgmma_p_c2_g1
r t4096 30 $H sm90 --inputs bf16,fp16 --b n,k --rounds 7 --reps 20 --check-rows 2 \
   --schedules wgmma,wgmma_c2 4096
r t8192 40 $H sm90 --inputs bf16,fp16 --b n,k --rounds 5 --reps 10 --check-rows 2 \
   --schedules wgmma,wgmma_w0_p_dp,wgmma_c2 8192
r t4224 15 $H sm90 --inputs bf16 --b n --rounds 5 --reps 20 --check-rows 2 \
   --schedules wgmma,wgmma_c2 4224x4096x4096
t tests_all 45 --skip the_library
kill $smi 2>/dev/null
echo "total $(( $(date +%s) - t0 ))s" >> $W/log.txt
tar czf "$OUT0/call2.tar.gz" -C $W .
cat $W/log.txt; grep -h "FAILED\|panicked\|failed\|error" $W/*.txt $W/check_c2.err | head -30
grep -h "test result\|^test " $W/tests_*.txt | head -40; cat $W/t*.err | tail -40
