#!/usr/bin/env bash
# Session 23, call 6: the Python wheel of the session's code commit (maturin --release,
# RGK_SASS_ONLY=90), re-zipped here from its unpacked files, installed with pip into a fresh
# virtual environment: the package's GPU test suite and bench.py quick (scripts/gpu-python.sh
# quick).
set -u
O=$OUT/w; mkdir -p $O/py
date -u > $O/date.txt; cat .device/whl/COMMIT > $O/wheel_commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 250 > $O/clock.csv 2>/dev/null &
smi=$!
mkdir -p .device/unz .whl && tar -C .device/unz -xJf .device/whl/wheel.tar.xz
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
OUT=$O/py timeout 420 bash scripts/gpu-python.sh quick > $O/py/run.txt 2>&1; echo "python rc $?" >> $O/log.txt
kill $smi
cd $OUT && tar cJf s23_call6.tar.xz w && rm -rf w
