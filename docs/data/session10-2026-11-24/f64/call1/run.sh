# f64 (issue 24), session 10, call 1: the float GPU tests (every tile shape equal to the CPU
# reference), the f64 sweep (V = 30000, first 48 rounds, 3 reps, interleaved) of the new tile
# shapes against the default with the ceiling in the same process, full solves (all 469 rounds,
# 3 reps) of the default and the sweep's 2 fastest of the rows without spills.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/f64
tar xJf $D/bundle.tar.xz || exit 1
mkdir -p "$OUT0"
export VARIANTS_F64=default,r8c4_k32_a2_r128_lean32p,r8c4_k32_a2_r128_lean32x,r8c4_k16x2_a2_r128_lean32x,r8c4_k16x3_a2_r128_lean32x,r8c4_k32_a2_u2_r128_lean32,r8c4_k32_a2_u2_r128_lean32x,r8c4_k32_a4_r128_lean32x,r8c4_k32_a2_r128_lean32_aa,r8c4_k32_a2_r128_lean32x_aa
export FULL_FROM=r8c4_k32_a2_r128_lean32p,r8c4_k32_a2_r128_lean32x,r8c4_k16x2_a2_r128_lean32x,r8c4_k16x3_a2_r128_lean32x
export FULL_TOP=2 FULL_TIMEOUT=75
OUT=$OUT0 bash $D/gpu-float-f64.sh 30000 48 3 > "$OUT0/summary.txt" 2>&1; cat "$OUT0/summary.txt"
