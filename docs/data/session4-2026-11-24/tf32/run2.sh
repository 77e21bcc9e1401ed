set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/tf32
[ -x .device/bundle/host ] || tar xJf $D/bundle.tar.xz || exit 1
H=.device/bundle/host; R=$OUT0/r; mkdir -p $R
nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 200 > $R/tf32_clock2.csv 2>/dev/null & smi=$!
cat .device/bundle/COMMIT > $R/commit.txt 2>/dev/null
run() { echo "+ $*" >> $R/tf32_2.log; "$@" 2>>$R/tf32_2.log; }
run $H matmul --m 256 --n 256 --k 4096 --precision 3xtf32 --reps 5 --verify full --json --kernel wgmma_f1,wgmma_f2,wgmma_f4,wgmma_f16,tc_tf32x3_rr_s3 > $R/tf32_acc_3x.json
for n in 4096 8192; do
  run $H matmul $n --precision tf32 --reps 20 --json --kernel wgmma,wgmma_rn,tc_tf32_rr_s3 > $R/tf32_tf32_$n.json
  run $H matmul $n --precision tf32 --reps 20 --json --trans-b --kernel wgmma,wgmma_rn > $R/tf32_tf32_bt_$n.json
done
kill $smi
awk -F', ' 'NR>1{s+=$2; n++} END{if(n) printf "SM clock %.0f MHz mean of %d samples\n", s/n, n}' $R/tf32_clock2.csv | tee -a $R/tf32_2.log
tar czf $OUT0/run2.tar.gz -C $OUT0 r && rm -rf $R
python3 - <<'PY' || true
import json,tarfile,io,os
t=tarfile.open(os.environ.get('OUT','/tmp/out')+'/run2.tar.gz')
for m in t.getmembers():
    if not m.name.endswith('.json'): continue
    s=t.extractfile(m).read().decode(); s=s[s.find('{'):]
    if not s: print(m.name,'EMPTY'); continue
    d=json.loads(s); print(m.name)
    for r in d['results']:
        e=r.get('error') or {}
        print('  %-22s %8.3f ms %7.1f TF %6.1f%% fail %d mean %.2e p99 %.2e'%(r['kernel'],r['median_ms'],r['tflops'],r['percent_of_cublas'] or 0,r['failures'],e.get('mean',0),e.get('p99',0)))
PY
