# Session 11, lead call 9: aligned single T,N (and T,T) problems: the library's pick against the tuned
# body direct (now on 3 stream-K slots), three interleaved processes (host matmul, 20 reps).
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead11
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$PWD/$B/host
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/c9; cd $OUT0/c9
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 200 > clock.csv 2>/dev/null &
smi=$!
T64=sgemm_tn_64x64x16_s4_8x4_fl; T128=sgemm_tn_64x128x16_s3_8x8_fl
for i in 1 2 3; do
  for shp in "900 800 1100" "1100 900 1000" "1000 780 1025" "1200 700 900" "1024 1024 1024" "768 1280 1536" "512 512 512" "1500 1000 800"; do
    set -- $shp
    echo "== $1x$2x$3 TN run $i" >> t.txt
    timeout 30 $H matmul --m $1 --n $2 --k $3 --trans-a --reps 20 --kernel sgemm,$T64,$T128 >> t.txt 2>&1
  done
done
kill $smi
python3 - <<'PY'
import collections,statistics as st
d=collections.defaultdict(list); cur=None; order=[]
for l in open('t.txt'):
    if l.startswith('=='): cur=l.split()[1]; order.append(cur) if cur not in order else None; continue
    p=l.split()
    if len(p)>3 and (p[0].startswith('sgemm') or p[0].startswith('cublas')): d[(cur,p[0])].append(float(p[1]))
for k in order:
    print(k, ' | '.join(f"{n.replace('sgemm_tn_','')}: {' '.join(f'{x:.4f}' for x in d[(k,n)])}" for n in ['cublasSgemm','sgemm','sgemm_tn_64x64x16_s4_8x4_fl','sgemm_tn_64x128x16_s3_8x8_fl']))
PY
cd $OUT0 && tar czf out9.tar.gz c9 && rm -rf c9
