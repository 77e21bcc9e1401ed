# Session 11, lead call 6: three or five stream-K slots for the tuned transposed body, per pair,
# three processes each, interleaved (host matmul, the library's pick, 20 reps).
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead11
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$PWD/$B/host
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/c6; cd $OUT0/c6
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 200 > clock.csv 2>/dev/null &
smi=$!
for i in 1 2 3; do
  for shp in "1000 777 1025 TN" "1000 777 1025 NT" "1000 777 1025 TT" "900 800 1100 NT" "900 800 1100 TT" "1200 700 900 TN" "1200 700 900 NT" "1024 1024 1024 TT" "512 512 512 NT"; do
    set -- $shp
    case $4 in TN) f="--trans-a";; NT) f="--trans-b";; TT) f="--trans-a --trans-b";; esac
    for s in 3 5; do
      echo "== $1x$2x$3 $4 slots $s run $i" >> t.txt
      RGK_SGEMM_SK_SLOTS=$s timeout 30 $H matmul --m $1 --n $2 --k $3 $f --reps 20 --kernel sgemm >> t.txt 2>&1
    done
  done
done
kill $smi
python3 - <<'PY'
import collections,statistics as st
d=collections.defaultdict(list); cur=None
for l in open('t.txt'):
    if l.startswith('=='): p=l.split(); cur=(p[1]+' '+p[2], p[4]); continue
    p=l.split()
    if len(p)>3 and p[0]=='sgemm': d[cur].append(float(p[1]))
for k in sorted(set(x[0] for x in d)):
    a=d[(k,'3')]; b=d[(k,'5')]
    print(f"{k:20s} 3 slots {' '.join(f'{x:.4f}' for x in a)} | 5 slots {' '.join(f'{x:.4f}' for x in b)} | median ratio {st.median(a)/st.median(b):.3f}")
PY
cd $OUT0 && tar czf out6.tar.gz c6 && rm -rf c6
