#!/usr/bin/env bash
# Summarises an `nvidia-smi --query-gpu=timestamp,clocks.sm,... --format=csv -lms N` log (the SM clock
# in its second column): mean, min and max over its samples, the line the docs quote beside every
# timing. One place for it, and numeric comparisons (a string compare once printed "min 1005 MHz"
# for a run at 1980 MHz: "1005" < "990" as text).
# Usage: scripts/clock-summary.sh CLOCK.csv
set -u
awk -F', ' 'NR > 1 { v = $2; sub(/ MHz/, "", v); v += 0; s += v; n++
                     if (n == 1 || v < min) min = v; if (v > max) max = v }
            END { if (n) printf "SM clock during the run: mean %.0f MHz, min %d, max %d MHz over %d samples\n", s / n, min, max, n }' "$1"
