# Session 11, lead call 10: the route model's T,N change: the library's new pick against A
# transposed first (`route:a=T`, the old pick) and split routes, three interleaved processes;
# tsingle's outside list; gpu_tsingle and gpu_route.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead11
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$PWD/$B/host
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/c10
PARTS="tests outside" timeout 200 bash scripts/gpu-shapes-tsingle.sh $B $OUT0/c10 host/data/tsingle/outside.txt > $OUT0/c10/stdout.txt 2>&1
echo "tsingle rc=$?"
cd $OUT0/c10
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 200 > clock_t.csv 2>/dev/null &
smi=$!
for i in 1 2 3; do
  for shp in "1000 780 1025" "1200 700 900" "1500 1000 800" "900 800 1100" "1000 777 1025"; do
    set -- $shp
    echo "== $1x$2x$3 TN run $i" >> t.txt
    timeout 30 $H matmul --m $1 --n $2 --k $3 --trans-a --reps 20 --kernel sgemm,route:a=T >> t.txt 2>&1
  done
done
kill $smi
python3 - <<'PY'
import collections
d=collections.defaultdict(list); cur=None; order=[]
for l in open('t.txt'):
    if l.startswith('=='): cur=l.split()[1]; order.append(cur) if cur not in order else None; continue
    p=l.split()
    if len(p)>3 and (p[0] in ('sgemm','cublasSgemm') or p[0].startswith('route')): d[(cur,p[0])].append(p[1]+'/'+p[3])
for k in order:
    print(k, ' | '.join(f"{n}: {' '.join(d[(k,n)])}" for n in ['cublasSgemm','sgemm','route:a=T']))
PY
cd $OUT0
grep -hE "test result|FAILED|panicked" c10/tests.log | sort | uniq -c; grep -h geometric c10/outside_*.txt
tar czf out10.tar.gz c10 && rm -rf c10
