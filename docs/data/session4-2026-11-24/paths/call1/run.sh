set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/paths
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee "$OUT0/gpu.txt"
# The path kernels' GPU tests (equal to the CPU restatement, valid paths) first.
export HOST_BIN=$B/host
for t in $B/tests/gpu_apsp_paths; do
  [ -x "$t" ] || continue
  timeout 40 "$t"  > "$OUT0/tests_$(basename "$t").log" 2>&1; echo "$(basename "$t") rc=$?"
  grep -E "^test result|FAILED|panicked" "$OUT0/tests_$(basename "$t").log" | head -5
done
for n in 1 2 3; do
  mkdir -p "$OUT0/run$n"
  OUT="$OUT0/run$n" timeout 40 bash scripts/gpu-run.sh paths 30000 > "$OUT0/run$n/stdout.txt" 2>&1
  grep ratio "$OUT0/run$n/stdout.txt"
done
