# py helper, session 7: the wheel built from s7-a-py, its tests and bench (the machine's tree is main's).
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/py
mkdir -p "$OUT0"
date -u; nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv | tee "$OUT0/gpu.txt"
src=$(mktemp -d); tar xf $D/pysrc.tar -C "$src"
nvidia-smi --query-gpu=timestamp,clocks.current.sm --format=csv -lms 500 > "$OUT0/clock.csv" & smi=$!
SRC=$src WHEEL_DIR=$D/.whl OUT=$OUT0 timeout 185 bash $D/gpu-python.sh matmul; rc=$?
kill $smi
nvidia-smi --query-gpu=name,clocks.sm --format=csv | tee -a "$OUT0/gpu.txt"
echo "exit $rc"
exit $rc
