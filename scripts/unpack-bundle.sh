#!/usr/bin/env bash
# The bundle travels packed (`cargo xtask gpu-bundle`, carry .device/pack): unpacks it into
# .device/bundle once, where bundle $1 (default .device/bundle) has no host yet. Called by
# scripts/gpu-run.sh and scripts/gpu-cands.sh from the repository root.
B=${1:-.device/bundle}
if [ ! -x "$B/host" ] && [ -f .device/pack/bundle.tar.xz ]; then
    tar -C .device -xJf .device/pack/bundle.tar.xz || { echo "unpacking .device/pack/bundle.tar.xz failed"; exit 1; }
fi
