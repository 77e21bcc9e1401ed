#!/usr/bin/env bash
# Session 7, lead device call 3 (nvidia-h200): the Python package's wheel (built from the merged
# main) installed into a fresh virtual environment, the GPU test suite, then the matmul rows of
# the benchmark (scripts/gpu-run.sh python matmul).
set -u
OUT0=${OUT:-/tmp/out}
mkdir -p .whl && cp .device-w/*.whl .whl/
date -u
W=/tmp/w3; mkdir -p $W/python
OUT=$W/python timeout 170 scripts/gpu-run.sh python matmul > $W/python.log 2>&1; echo "python rc $?"
grep -E "passed|failed|error" $W/python.log | tail -5; tail -30 $W/python.log
tar czf "$OUT0/s7run3.tar.gz" -C $W .
