set -u; OUT0=${OUT:-/tmp/out}; D=.device-h/paths
mkdir -p "$OUT0"
tar xJf $D/bundle.tar.xz || exit 1
B=.device/bundle
cat $B/COMMIT; echo
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
# The path kernels' GPU tests (equal to the CPU restatement, valid paths), both prefetch settings.
export HOST_BIN=$B/host
for pf in 0 1; do
  RGK_PATHS_PREFETCH=$pf timeout 30 $B/tests/gpu_apsp_paths > "$OUT0/tests_pf$pf.log" 2>&1; echo "tests prefetch=$pf rc=$?"
  grep -E "^test result|FAILED|panicked" "$OUT0/tests_pf$pf.log" | head -5
done
OUT=$OUT0 timeout 170 bash $D/gpu-paths.sh 30000 2
