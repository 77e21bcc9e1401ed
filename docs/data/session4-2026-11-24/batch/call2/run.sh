set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/batch
W=/tmp/batch_out2; rm -rf $W; mkdir -p $W "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
H=.device/bundle/host
{
date -u; cat .device/bundle/COMMIT; echo
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv
nproc; df -h /tmp | tail -1; mount | grep " / "
} > "$W/env.txt" 2>&1
cat "$W/env.txt"
# The default kernel only (the variants were measured in call 1), file to file 3 times from a
# flushed page cache, the disk by dd, the blocked classes with 2000 graphs each.
KERNELS= NB=2000 BUNDLE=.device/bundle OUT=$W timeout 150 bash $D/gpu-batch.sh 10000 128 > "$W/batch.log" 2>&1
echo "batch rc=$?"; grep -v "^+ " "$W/batch.log"
tar czf "$OUT0/call2.tar.gz" -C $W .
