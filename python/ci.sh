#!/usr/bin/env bash
# The Python package in CI (called by .ci/run after `cargo xtask ci`): maturin from PyPI builds
# the wheel (debug profile: it reuses the workspace's debug build of `host`), which is
# installed into a fresh virtual environment with numpy, scipy and pytest, and the test suite
# runs against the installed package. There is no GPU in CI: floyd_warshall and apsp run on the
# CPU path (with their RuntimeWarning) and the GPU-only tests skip.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/target/python-ci
rm -rf "$work"
mkdir -p "$work"
python3 -m venv "$work/venv"
py=$work/venv/bin/python
"$py" -m pip install --quiet --disable-pip-version-check "maturin>=1.7,<2" numpy scipy pytest
# PYO3_PYTHON: the interpreter the abi3 module is checked against.
PYO3_PYTHON=$py "$work/venv/bin/maturin" build --manifest-path python/Cargo.toml \
    --out "$work/wheels" --interpreter "$py"
"$py" -m pip install --quiet --disable-pip-version-check --no-deps "$work"/wheels/rust_gpu_kernels-*.whl
# From the tests' folder, so that `import rust_gpu_kernels` finds the installed wheel.
cd python/tests
"$py" -m pytest -q -p no:cacheprovider .
