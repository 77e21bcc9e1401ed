set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/wgmma
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
H=.device/bundle/host
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT0/gpu.txt"
date -u >> "$OUT0/gpu.txt"; cat .device/bundle/COMMIT >> "$OUT0/gpu.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv -lms 200 > "$OUT0/clock.csv" 2>/dev/null &
smi=$!
r() { echo "+ $*" >> "$OUT0/run2.log"; timeout 60 "$@" 2>>"$OUT0/run2.log"; }
r $H sm90 --reps 20 --schedules wgmma_w0_np,wgmma_w1_np,wgmma_w0_p,wgmma_w1_p 8192 > "$OUT0/sm90_8192.json"
for n in 4096 8192; do for t in "" --trans-b; do
r $H matmul $n --precision tf32 --reps 20 --json --verify sample $t --kernel wgmma_rn_w0_np,wgmma_rn_w1_np,wgmma_rn_w0_p,wgmma_rn_w1_p > "$OUT0/tf32${t}_$n.json"
done; done
r $H matmul 4096 --precision bf16 --reps 20 --json --verify sample --kernel sgemm,wgmma_w0_np,wgmma_w0_p > "$OUT0/bf16_4096.json"
r $H matmul 8192 --precision 3xtf32 --reps 10 --json --verify sample --kernel wgmma_f2_w0_np,wgmma_f2_p > "$OUT0/3xtf32_8192.json"
kill $smi
echo "SM clock (MHz): $(awk -F', ' 'NR>1{sub(/ MHz/, "", $2); s+=$2; n++} END{if(n) printf "%.0f mean of %d samples", s/n, n}' "$OUT0/clock.csv")" | tee -a "$OUT0/run2.log"
gzip -f "$OUT0/clock.csv"
grep -h "rust\|FAIL\|rror" "$OUT0/run2.log" | head -30
