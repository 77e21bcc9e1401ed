# Session 11, lead call 8: the 8-warp 64x64 twin against the 4-warp kernel over K (where the
# twin stops paying: small::small_twin's bound), three interleaved processes, GFLOP/s.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/lead11
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle; H=$PWD/$B/host
cat $B/COMMIT; date -u; nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv,noheader
mkdir -p $OUT0/c8; cd $OUT0/c8
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 200 > clock.csv 2>/dev/null &
smi=$!
for i in 1 2 3; do
  for k in 700 1000 1250 1500 1750 2000 3000; do
    echo "== 448x448x$k run $i" >> t.txt
    timeout 30 $H matmul --m 448 --n 448 --k $k --reps 20 --kernel sgemm_64x64x16_s4_8x4,sgemm_64x64x16_s4_4x4 >> t.txt 2>&1
  done
  for k in 1100 1500 1900; do
    echo "== 333x555x$k run $i" >> t.txt
    timeout 30 $H matmul --m 333 --n 555 --k $k --reps 20 --kernel sgemm_64x64x16_s4_8x4_u,sgemm_64x64x16_s4_4x4_u >> t.txt 2>&1
  done
done
kill $smi
python3 - <<'PY'
import collections,statistics as st
d=collections.defaultdict(list); cur=None; order=[]
for l in open('t.txt'):
    if l.startswith('=='): cur=l.split()[1]; order.append(cur) if cur not in order else None; continue
    p=l.split()
    if len(p)>3 and (p[0].startswith('sgemm') or p[0].startswith('cublas')): d[(cur,p[0][:20] if p[0].startswith('cublas') else ('8warp' if '_4x4' in p[0] else '4warp'))].append(float(p[3]))
for k in order:
    a=d[(k,'4warp')]; b=d[(k,'8warp')]; c=d[(k,'cublas_sgemm')]
    print(f"{k:14s} 4-warp {' '.join(f'{x:.0f}' for x in a)} | 8-warp {' '.join(f'{x:.0f}' for x in b)} | cuBLAS {' '.join(f'{x:.0f}' for x in c)} | 8/4 {st.median(b)/st.median(a):.3f}")
PY
cd $OUT0 && tar czf out8.tar.gz c8 && rm -rf c8
