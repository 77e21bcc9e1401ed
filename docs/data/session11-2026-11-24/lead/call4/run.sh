# Session 11, lead call 4: the stream-K slots and the grid of the T,N `_ub_fl` kernel at 1000x777x1025.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead11
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$PWD/$B/host
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/c4; cd $OUT0/c4
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 200 > clock.csv 2>/dev/null &
smi=$!
UB=sgemm_tn_64x64x16_s4_8x4_ub_fl
for i in 1 2 3; do
  for env in RGK_NOTHING=1 RGK_SGEMM_SK_SLOTS=4 RGK_SGEMM_SK_SLOTS=3 RGK_SGEMM_SK_SLOTS=2 RGK_SGEMM_SCHEDULE=data-parallel RGK_SGEMM_GROUP=4 RGK_SGEMM_GROUP=16; do
    echo "== $env run $i" >> tn.txt
    env $env timeout 30 $H matmul --m 1000 --n 777 --k 1025 --trans-a --reps 20 --kernel sgemm,$UB >> tn.txt 2>&1
    echo "== $env run $i" >> nn333.txt
    env $env timeout 30 $H matmul --m 333 --n 555 --k 777 --reps 20 --kernel sgemm >> nn333.txt 2>&1
  done
done
kill $smi
python3 - <<'PY'
import collections
for f in ('tn.txt','nn333.txt'):
    d=collections.defaultdict(list); cur=None
    for l in open(f):
        if l.startswith('=='): cur=l.split()[1]; continue
        p=l.split()
        if len(p)>3 and (p[0].startswith('sgemm') or p[0].startswith('cublas')): d[(cur,p[0])].append(p[1]+('/'+p[3] if p[3]!='-' else ''))
    for k,v in d.items(): print(f, k[0], k[1], ' '.join(v))
PY
cd $OUT0 && tar czf out4.tar.gz c4 && rm -rf c4
