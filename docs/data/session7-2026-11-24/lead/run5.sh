#!/usr/bin/env bash
# Session 7, lead device call 5 (nvidia-h200): the sm90 CLI after the timed_rows mend (commit
# 5b02455, release host binary alone): BF16 and TF32 interleaved rounds at 4096, both B layouts.
set -u
OUT0=${OUT:-/tmp/out}
xz -dc .device-q/host.xz > /tmp/host && chmod +x /tmp/host
date -u; nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader
timeout 60 /tmp/host sm90 --inputs bf16 --b n,k --rounds 3 --reps 10 --check-rows 2 --schedules wgmma 4096 > "$OUT0/bf16.json" 2> "$OUT0/bf16.err"; echo "bf16 rc $?"
timeout 60 /tmp/host sm90 --inputs tf32 --b n,k --rounds 3 --reps 10 --check-rows 2 --schedules wgmma 4096 > "$OUT0/tf32.json" 2> "$OUT0/tf32.err"; echo "tf32 rc $?"
cat "$OUT0/bf16.err" "$OUT0/tf32.err" | cut -c1-300
nvidia-smi --query-gpu=clocks.sm --format=csv,noheader
