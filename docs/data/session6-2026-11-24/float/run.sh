# float (issue 24), session 6: the float GPU tests, every tile shape's sweep at V = 30000 (first
# 48 rounds, 3 reps) against its ceiling, full solves of the default and the fastest per type.
set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/float
tar xJf $D/bundle.tar.xz || exit 1
mkdir -p "$OUT0"
OUT=$OUT0 bash $D/gpu-float.sh 30000 48 3
