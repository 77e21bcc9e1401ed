#!/usr/bin/env bash
# Session 21, call 3: the committed reweighting (bdd1c18; REWEIGHT_MIN_V 6144, the test graph
# with weights 10..=30): the float GPU tests from the bundle, then the Python wheel of that tree
# (maturin --release), re-zipped here from its unpacked files, installed with pip into a fresh
# virtual environment: the GPU test suite (with the new V = 6144 signed float32 test) and
# bench.py quick (scripts/gpu-python.sh quick).
set -u
O=$OUT/w; mkdir -p $O/py
B=.device/bundle
bash scripts/unpack-bundle.sh $B > /dev/null || exit 1
date -u > $O/date.txt; cat $B/COMMIT > $O/commit.txt; cat .device/whl/COMMIT > $O/wheel_commit.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 250 > $O/clock.csv 2>/dev/null &
smi=$!
REQUIRE_GPU=1 timeout 200 $B/tests/gpu_apsp_float --test-threads=1 > $O/tests.out 2> $O/tests.err; echo "tests rc $?" >> $O/log.txt
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
cd $OUT && tar cJf s21_call3.tar.xz w && rm -rf w
