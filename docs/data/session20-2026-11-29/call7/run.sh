#!/usr/bin/env bash
# Session 20, call 7: the Python package of a8d360b (the code of 322c902: TcOrder::Interleaved; maturin
# --release), re-zipped here from its unpacked files, installed with pip into a fresh virtual
# environment; the GPU test suite and bench.py quick (scripts/gpu-python.sh quick).
set -u
O=$OUT
W=$O/w; mkdir -p $W/py
date -u > $W/date.txt
mkdir -p .device/unz .whl && tar -C .device/unz -xJf .device/whl/wheel.tar.xz
cat .device/whl/COMMIT > $W/commit.txt
python3 - <<'PY'
import os, zipfile
src = '.device/unz'
name = '.whl/' + open('.device/whl/NAME').read().strip()
with zipfile.ZipFile(name, 'w', zipfile.ZIP_DEFLATED) as z:
    for root, _, files in os.walk(src):
        for f in files:
            p = os.path.join(root, f)
            z.write(p, os.path.relpath(p, src))
PY
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 250 > $W/clock.csv 2>/dev/null &
smi=$!
OUT=$W/py timeout 420 bash scripts/gpu-python.sh quick > $W/py/run.txt 2>&1; echo "rc $?" >> $W/py/run.txt
kill $smi
cd $O && tar cJf s20_call7.tar.xz w && rm -rf w
tar xJOf s20_call7.tar.xz w/py/run.txt | tail -30
