# f64 (issue 24), session 10, call 2: kernels JIT-loaded from a PTX: the float kernels of a build
# with the row below, plus the removed rows' kernels of c40d2c0, so that the c40d2c0 test binary finds every
# row it names) JIT-loaded by the c40d2c0 host/test binaries through GPU_KERNELS_PTX: there the
# row r8c4_k32_a4_r128_lean32x names the kernels fwf64y_*, which the final commit builds as
# r8c4_k32_a4_r128_lean32 (4-k A loads, lean32, 2-k loads in phase 2; its phase 3 spills 16 B
# under the cap, so the final commit drops it). The float GPU tests, the f64 sweep (first 48
# rounds, 3 reps) and full solves (all 469 rounds, 3 reps) of the three.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/f64
tar xJf $D/bundle.tar.xz || exit 1
xz -dc $D/final_float.ptx.xz > /tmp/final_float.ptx || exit 1
export GPU_KERNELS_PTX=/tmp/final_float.ptx
mkdir -p "$OUT0"
export VARIANTS_F64=default,r8c4_k32_a2_r128_lean32x,r8c4_k32_a4_r128_lean32x
export FULL_TOP=2 FULL_TIMEOUT=95
OUT=$OUT0 bash $D/gpu-float-f64.sh 30000 48 3 > "$OUT0/summary.txt" 2>&1; cat "$OUT0/summary.txt"
