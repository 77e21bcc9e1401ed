#!/usr/bin/env bash
# The Python package on the GPU machine (no Rust there): installs the wheel built here
# (`maturin build --release -m python/Cargo.toml --out .whl`, carried as .whl) into a fresh
# virtual environment that also sees the machine's torch, scipy, numpy and pytest, runs the
# package's test suite with the GPU required, then its benchmarks (python/bench/bench.py) to
# $OUT/python_bench.json and a Markdown table to $OUT/python_bench.md.
#
#   scripts/gpu-python.sh [quick|matmul]   quick: V = 1000 and 2000 only, no V = 30000 kernel
#                                          runs; matmul: the matmul benchmark rows only (the
#                                          tests are the whole suite in every mode)
#
# SRC: the tree whose python/tests and python/bench run (default: this one), for a wheel built
# from a branch whose tests the machine's copy of the tree does not have yet.
set -uo pipefail
WHEEL_DIR=${WHEEL_DIR:-.whl}
SRC=$(cd "${SRC:-.}" && pwd)
OUT_DIR=${OUT:-gpu-out}
mkdir -p "$OUT_DIR"
status=0
wheel=$(ls "$WHEEL_DIR"/rust_gpu_kernels-*.whl 2>/dev/null | head -1)
[ -n "$wheel" ] || { echo "no wheel in $WHEEL_DIR (build it with maturin and carry it)"; exit 2; }
venv=$(mktemp -d)/venv
python3 -m venv --system-site-packages "$venv"
# The machine's python3 is itself a virtual environment (torch, scipy and numpy live in its
# site-packages, not the base interpreter's): a .pth file makes them visible to the fresh one.
base_site=$(python3 -c 'import site; print(site.getsitepackages()[0])')
venv_site=$("$venv/bin/python" -c 'import site; print(site.getsitepackages()[0])')
echo "$base_site" > "$venv_site/_machine_site.pth"
# --no-deps --no-index: nothing can be fetched there; numpy comes from the system site.
"$venv/bin/python" -m pip install --no-deps --no-index "$wheel" 2>&1 | tail -2
"$venv/bin/python" -c 'import rust_gpu_kernels as r, torch, scipy; print(r.__file__, r.device_name(), "torch", torch.__version__, "scipy", scipy.__version__)' \
    || exit 1
# The tests import the installed package, not the source tree (run from the tests' folder).
(cd "$SRC/python/tests" && RGK_TEST_DEVICE=gpu "$venv/bin/python" -m pytest -q -p no:cacheprovider -rs . 2>&1) \
    | tee "$OUT_DIR/python_tests.log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
"$venv/bin/python" "$SRC/python/bench/bench.py" ${1:-full} --json "$OUT_DIR/python_bench.json" \
    --md "$OUT_DIR/python_bench.md" 2>&1 | tee "$OUT_DIR/python_bench.log"
[ "${PIPESTATUS[0]}" = 0 ] || status=1
exit $status
