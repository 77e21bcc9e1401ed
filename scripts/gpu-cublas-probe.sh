#!/usr/bin/env bash
# What cuBLAS launches for the issue-21 squares (docs/sm90.md "What cuBLAS runs at 4096"): one
# torch matmul per precision and size under Nsight Compute, LaunchStats only (kernel name, grid,
# block, cluster, registers, shared memory, waves per SM). Run on the GPU machine, ~60 s.
#   SIZES="4096" scripts/gpu-cublas-probe.sh   (default 4096 and 8192) ncu's CSV to $OUT/cublas_probe.csv, its log beside it
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
cat > "$OUT/cublas_probe.py" <<'PY'
import sys, torch
# The first matmul of each kind warms cuBLAS's heuristics and handles; ncu sees every launch
# and the report keeps them all (the table takes the last of each kind).
for n in [int(x) for x in sys.argv[1:]] or (4096, 8192):
    for dt, tf32 in ((torch.bfloat16, False), (torch.float16, False), (torch.float32, True), (torch.float32, False)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.randn(n, n, device="cuda").to(dt)
        b = torch.randn(n, n, device="cuda").to(dt)
        for _ in range(2):
            torch.matmul(a, b)
        torch.cuda.synchronize()
        print(n, dt, "tf32" if tf32 else "", file=sys.stderr)
PY
nvidia-smi --query-gpu=name,clocks.sm,driver_version --format=csv > "$OUT/cublas_probe_gpu.csv"
timeout 150 ncu --section LaunchStats --section Occupancy --csv \
    --kernel-name-base demangled -k 'regex:gemm|Kernel|sm90|cutlass|nvjet' \
    python3 "$OUT/cublas_probe.py" ${SIZES:-} > "$OUT/cublas_probe.csv" 2> "$OUT/cublas_probe.log"
echo "ncu rc $?" >> "$OUT/cublas_probe.log"
