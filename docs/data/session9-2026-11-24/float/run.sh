# float (issue 24), session 9: the float GPU tests (every tile shape equal to the CPU reference),
# the sweep of the new tile shapes against the defaults (V = 30000, first 48 rounds, 3 reps)
# with each type's ceiling in the same process, full solves of the default and the sweep's 2
# fastest per type.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/float
tar xJf $D/bundle.tar.xz || exit 1
mkdir -p "$OUT0"
export VARIANTS_F32=default,t8x8_k64_pair_u2_o32,t8x8_k64_pair_a2_o32_r128,t8x8_k32_a2_o32_r128,t8x8_k64_lean,t8x8_k64_lean_o32
export VARIANTS_F64=default,r8c4_k32_a2_r128_lean32,r8c4_k16x3_a2_r128,r8c4_k16x3_a2_r128_o32,r8c4_k16x3_a2_r128_lean32
export FULL_TOP=2 FULL_TIMEOUT_F32=30 FULL_TIMEOUT_F64=70
OUT=$OUT0 bash $D/gpu-float.sh 30000 48 3 > "$OUT0/summary.txt" 2>&1; cat "$OUT0/summary.txt"
