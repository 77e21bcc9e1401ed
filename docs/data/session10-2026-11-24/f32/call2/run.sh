# float32 (issue 24), session 10, device call 2 (the bundle of call 1): the float GPU tests, the f32
# sweep of the A-transposed shapes against the default (V = 30000, first 48 rounds, 3 reps,
# interleaved) with the ceiling in the same process, full solves of the default and the sweep's 2
# fastest (all 469 rounds, median of 3), the driver's blocks per SM of the compared kernels.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/f32; H=.device/bundle/host
tar xJf $D/bundle.tar.xz || exit 1
mkdir -p "$OUT0"; W=$(mktemp -d)
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader
export VARIANTS_F32=default,t8x8_k64_pair_at_r128,t8x8_k64_pair_at_u2_r128,t8x8_k64_pair_at_r168,t8x8_k64_pair_u2,t8x8_k64_lean
export FULL_TOP=2 FULL_TIMEOUT=60
OUT=$OUT0 bash $D/gpu-float-f32.sh 30000 48 3 > "$OUT0/summary.txt" 2>&1; cat "$OUT0/summary.txt"
timeout 20 $H occupancy > $W/occupancy.txt 2>&1; echo "occupancy rc=$?"
grep -E "fwf32(w|r|n|ta|tb|tc)_phase(2|3)" $W/occupancy.txt
tar czf "$OUT0/extra.tar.gz" -C $W .
