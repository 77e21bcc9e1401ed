# Session 11, lead call 7: small N,N problems on the 8-warp 64x64 twin, one to three blocks per SM
# (RGK_SGEMM_WAVE_BLOCKS), three interleaved processes each (host matmul, the library's pick, 20 reps;
# printed as GFLOP/s: the plain table's ms have three decimals).
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead11
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$PWD/$B/host
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/c7; cd $OUT0/c7
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 200 > clock.csv 2>/dev/null &
smi=$!
for i in 1 2 3; do
  for shp in "333 555 777" "333 777 555" "300 600 700" "350 500 800" "448 448 1500"; do
    set -- $shp
    for w in 1 2 3; do
      echo "== $1x$2x$3 wave $w run $i" >> t.txt
      RGK_SGEMM_WAVE_BLOCKS=$w timeout 30 $H matmul --m $1 --n $2 --k $3 --reps 20 >> t.txt 2>&1
    done
  done
done
kill $smi
python3 - <<'PY'
import collections,statistics as st
d=collections.defaultdict(list); c=collections.defaultdict(list); cur=None
for l in open('t.txt'):
    if l.startswith('=='): p=l.split(); cur=(p[1], p[3]); continue
    p=l.split()
    if len(p)>3 and p[0].startswith('sgemm'): d[cur].append(float(p[3]))
    if len(p)>3 and p[0].startswith('cublas'): c[cur].append(float(p[3]))
for k in sorted(set(x[0] for x in d)):
    print(k, ' | '.join(f"w{w}: {' '.join(f'{x:.0f}' for x in d[(k,w)])}" for w in '123'), '| cuBLAS', ' '.join(f'{x:.0f}' for x in c[(k,'1')]+c[(k,'2')]+c[(k,'3')]))
PY
cd $OUT0 && tar czf out7.tar.gz c7 && rm -rf c7
