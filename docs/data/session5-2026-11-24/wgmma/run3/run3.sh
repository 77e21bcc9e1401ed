set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/wgmma; O=/tmp/o3; mkdir -p $O "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
H=.device/bundle/host
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader > $O/gpu.txt; date -u >> $O/gpu.txt; cat .device/bundle/COMMIT >> $O/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv -lms 200 > $O/clock.csv 2>/dev/null &
smi=$!
r() { echo "+ $*" >> $O/run3.log; timeout 90 "$@" 2>>$O/run3.log; }
r $H sm90 --reps 20 --schedules wgmma_w0_np,wgmma_w0_p,wgmma_w1_p 8192 > $O/sm90_8192.json
for n in 4096 8192; do
r $H matmul $n --precision tf32 --reps 20 --json --verify sample --kernel wgmma_rn_w0_np,wgmma_rn_w0_p,wgmma_rn_w1_p > $O/tf32_$n.json
r $H matmul $n --precision bf16 --reps 20 --json --verify sample --kernel sgemm > $O/bf16_lib_$n.json
done
kill $smi
echo "SM clock (MHz): $(awk -F', ' 'NR>1{sub(/ MHz/, "", $2); s+=$2; n++} END{if(n) printf "%.0f mean of %d samples", s/n, n}' $O/clock.csv)" | tee -a $O/run3.log
tar czf "$OUT0/run3.tar.gz" -C $O .
grep -h "rust\|rror\|SM clock" $O/run3.log | head -30
