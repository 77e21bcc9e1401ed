# float (issue 24), session 7: the float GPU tests (every tile shape equal to the CPU
# reference), the sweep of the tile shapes that decide (V = 30000, first 48 rounds, 3 reps)
# against each type's ceiling, full solves of the default and the sweep's 2 fastest per type.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/float
tar xJf $D/bundle.tar.xz || exit 1
mkdir -p "$OUT0"
export TESTS=0 VARIANTS_F32=default,t8x8_k64_lean,t8x8_k64_lean_u2,t8x8_k64_pair,t8x8_k64_pair_u2,t8x8_k32_a2_r128
export VARIANTS_F64=default,r8c4_k32_a2_r128_pair,r8c4_k32
export FULL_TOP=2 FULL_TIMEOUT_F32=45 FULL_TIMEOUT_F64=85
OUT=$OUT0 bash $D/gpu-float.sh 30000 48 3
