# float (issue 24), session 8: the float GPU tests (every tile shape equal to the CPU reference,
# the persistent phase 3 also on grids of 1-3 blocks), the sweep of the tile shapes that decide
# (V = 30000, first 48 rounds, 3 reps) against each type's ceiling, full solves of the default
# and the sweep's 2 fastest per type.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/float
tar xJf $D/bundle.tar.xz || exit 1
mkdir -p "$OUT0"
export VARIANTS_F32=default,t8x8_k64_lean,t8x8_k32_pair_u2_ps,t8x8_k16_pair_u2_ps,t8x8_k32_pair_ps,t8x8_k32_u2_ps
export VARIANTS_F64=default,r8c4_k16_a2_ps
export FULL_TOP=2 FULL_TIMEOUT_F32=40 FULL_TIMEOUT_F64=75
OUT=$OUT0 bash $D/gpu-float.sh 30000 48 3
