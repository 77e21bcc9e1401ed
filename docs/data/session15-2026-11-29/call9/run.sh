#!/usr/bin/env bash
# Session 15, call 9: the Python matmul rows from session 14's tree (b8e74f5) and from this
# session's (d4334d6), each wheel in its own fresh virtual environment, alternating in one call:
# (the session-14 wheel alone: the device tool carries 64 MiB) is the tensor-core path slower from Python (call 7-8) because of this session's code?
set -u
O=$OUT
W=$O/w; mkdir -p $W
date -u > $W/date.txt
for t in 14; do
  f=.device/w14/wheel14.tar.xz
  mkdir -p .device/unz$t .whl$t && tar -C .device/unz$t -xJf $f
  python3 - "$t" <<'PY'
import os, sys, zipfile
t = sys.argv[1]
src = f'.device/unz{t}'
name = f'.whl{t}/rust_gpu_kernels-0.1.0-cp39-abi3-manylinux_2_34_x86_64.whl'
with zipfile.ZipFile(name, 'w', zipfile.ZIP_DEFLATED) as z:
    for root, _, files in os.walk(src):
        for f in files:
            p = os.path.join(root, f)
            z.write(p, os.path.relpath(p, src))
PY
done
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv -lms 250 > $W/clock.csv 2>/dev/null &
smi=$!
for run in 14a 14b; do
  t=${run%?}
  mkdir -p $W/$run; WHEEL_DIR=.whl$t OUT=$W/$run timeout 120 bash scripts/gpu-python.sh matmul > $W/$run/run.txt 2>&1; echo "rc $?" >> $W/$run/run.txt
done
kill $smi
cd $O && tar cJf s15_call9.tar.xz w && rm -rf w
for run in 14a 14b; do echo "== $run"; tar xJOf s15_call9.tar.xz w/$run/python_bench.md | grep -E "^\| (tf32|bf16|fp16|square)"; done
