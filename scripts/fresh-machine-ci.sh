#!/usr/bin/env bash
# Runs the README's test command, `CI=true bash .ci/run`, as a fresh machine would: a fresh
# `git clone` of one commit, a separate RUSTUP_HOME and CARGO_HOME holding only a stable toolchain
# (RUSTUP_AUTO_INSTALL=0, as on many CI runners), an empty HOME (so an empty project cache
# ~/.cache/rust-gpu-kernels, no pip cache, no LLVM 7), optionally with ../shared beside the clone.
# Logs the machine facts, every line of the run and the time taken.
#
# Usage: scripts/fresh-machine-ci.sh [--commit REV] [--shared DIR] [--dir DIR] [--log FILE] [--setup-only]
#   --commit REV   the commit to test (default HEAD of this checkout; it must be committed)
#   --shared DIR   put DIR (e.g. ../shared, with toolchains/ and testdata/) beside the clone as
#                  ../shared; without it nothing is beside the clone
#   --dir DIR      scratch directory, emptied first (default /tmp/fresh-machine-ci)
#   --log FILE     the log (default DIR/fresh-machine-ci.log); copy it to docs/logs/ to commit it
#   --setup-only   stop after .ci/run's toolchain install and `cargo xtask setup` (minutes, not an hour)
#
# Not fresh, because a script cannot undo them: system packages (apt) and the machine itself.
# Carried over because they are machine settings, not toolchains: git's url.*.insteadOf
# redirects (e.g. the rust-cuda source to a local mirror) and ~/.cargo/config.toml
# (e.g. `[net] git-fetch-with-cli = true`), both of which the README tells users to set.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
commit=HEAD
shared=
dir=/tmp/fresh-machine-ci
log=
setup_only=
while [[ $# -gt 0 ]]; do
    case $1 in
    --commit) commit=$2; shift 2 ;;
    --shared) shared=$(cd "$2" && pwd); shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --log) log=$2; shift 2 ;;
    --setup-only) setup_only=1; shift ;;
    -h | --help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "fresh-machine-ci.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
done
rev=$(git -C "$repo" rev-parse --verify "$commit^{commit}")
case $dir in /|"$HOME"|"$repo") echo "refusing to empty $dir" >&2; exit 2 ;; esac
rm -rf "$dir"
mkdir -p "$dir/home" "$dir/work"
dir=$(cd "$dir" && pwd)
log=${log:-$dir/fresh-machine-ci.log}

# Read from this machine before HOME changes.
rustup_bin=$(command -v rustup)
git_redirects=$(git config --global --get-regexp '^url\..*\.insteadof$' || true)
cargo_config=${CARGO_HOME:-$HOME/.cargo}/config.toml

export HOME=$dir/home
export RUSTUP_HOME=$HOME/.rustup CARGO_HOME=$HOME/.cargo
export RUSTUP_AUTO_INSTALL=0 CI=true
unset RUSTUP_TOOLCHAIN XDG_CACHE_HOME GPU_KERNELS_CACHE LLVM_CONFIG CUDA_PATH CUDA_ROOT \
    CUDA_TOOLKIT_ROOT_DIR LIBCLANG_PATH CARGO_TARGET_DIR RUSTC_WRAPPER RUSTFLAGS
# The old toolchains' bin directory leaves PATH; the fresh one comes first.
PATH=$(tr ':' '\n' <<<"$PATH" | grep -v -e '/\.cargo/bin$' -e '/\.rustup/' | paste -sd:)
export PATH=$CARGO_HOME/bin:$PATH

exec > >(tee "$log") 2>&1
echo "# fresh-machine CI: CI=true bash .ci/run on a fresh clone"
echo "date:     $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "commit:   $rev ($(git -C "$repo" log -1 --format=%s "$rev"))"
echo "machine:  $(uname -srm), nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
free -h | sed 's/^/          /'
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg)"
echo "shared:   ${shared:-none beside the clone}"
echo "command:  scripts/fresh-machine-ci.sh --commit $commit${shared:+ --shared $shared} --dir $dir${setup_only:+ --setup-only}"
echo

start=$(date +%s)
step() { echo "== [$(($(date +%s) - start)) s] $*"; }

step "stable toolchain into the fresh RUSTUP_HOME=$RUSTUP_HOME (rustup-init from $rustup_bin)"
ln -s "$rustup_bin" "$dir/rustup-init"
"$dir/rustup-init" -y --no-modify-path --default-toolchain stable --profile minimal 2>&1 |
    grep -E 'installed|error' || true
rustup --version 2>/dev/null
rustup toolchain list

step "machine settings carried over"
if [[ -n $git_redirects ]]; then
    while read -r key value; do
        git config --global "$key" "$value"
        echo "git config --global $key $value"
    done <<<"$git_redirects"
fi
if [[ -f $cargo_config ]]; then
    cp "$cargo_config" "$CARGO_HOME/config.toml"
    echo "$CARGO_HOME/config.toml:"
    sed 's/^/    /' "$CARGO_HOME/config.toml"
fi

step "git clone, checkout $rev"
git clone --quiet "$repo" "$dir/work/rust-gpu-kernels"
git -C "$dir/work/rust-gpu-kernels" checkout --quiet --detach "$rev"
if [[ -n $shared ]]; then
    ln -s "$shared" "$dir/work/shared"
fi
echo "llvm-config on PATH: $(command -v llvm-config || echo none) ($(llvm-config --version 2>/dev/null || echo -))"

cd "$dir/work/rust-gpu-kernels"
set +e
if [[ -n $setup_only ]]; then
    step "CI=true RUSTUP_AUTO_INSTALL=0: .ci/run's first two commands only (--setup-only)"
    rustup toolchain install && nice -n "${NICE:-10}" cargo xtask setup
else
    step "CI=true RUSTUP_AUTO_INSTALL=0 bash .ci/run"
    nice -n "${NICE:-10}" bash .ci/run
fi
rc=$?
set -e
end=$(($(date +%s) - start))
echo
step "done: exit status $rc after $((end / 60)) min $((end % 60)) s in all"
exit "$rc"
