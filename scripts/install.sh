#!/usr/bin/env bash
# Installs omprt into clang 22's own lib directory so that plain
#   clang-22 -fopenmp --offload-arch=sm_90 prog.c
# offloads with no runtime flags. Copies libomptarget-nvptx.bc and
# libompdevice.a into /usr/lib/llvm-22/lib/nvptx64-nvidia-cuda/ (both places
# clang 22 looks, docs/abi.md#how-clang-finds-the-runtime), and, if /usr/local/cuda does not exist,
# points it at the CUDA folder of .toolchain/cuda (clang's default --cuda-path).
# Run as root after `cargo xtask build-device`. Undo: scripts/install.sh --uninstall
# The Debian package (cargo xtask package) installs the same two files: while
# it is installed this script leaves them alone (dpkg owns them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib.sh"
dest=/usr/lib/llvm-22/lib/nvptx64-nvidia-cuda
rt="$root/target/omprt/lib"
[ "$(id -u)" = 0 ] || die "installing into $dest needs root: run 'sudo bash scripts/install.sh'"
if owner=$(dpkg-query -S "$dest/libomptarget-nvptx.bc" 2>/dev/null); then
    die "$dest/libomptarget-nvptx.bc belongs to the Debian package '${owner%%:*}': remove it first ('sudo apt remove ${owner%%:*}'), or keep using it"
fi
if [ "${1:-}" = --uninstall ]; then
    rm -f "$dest/libomptarget-nvptx.bc" "$dest/libompdevice.a"
    rmdir "$dest" 2>/dev/null || true
    if [ -L /usr/local/cuda ] && [ "$(readlink /usr/local/cuda)" = "$root/.toolchain/cuda" ]; then rm /usr/local/cuda; fi
    say "uninstalled"
    exit 0
fi
[ -f "$rt/libomptarget-nvptx.bc" ] || die "no runtime in $rt: run 'cargo xtask build-device' first"
mkdir -p "$dest"
install -m 0644 "$rt/libomptarget-nvptx.bc" "$rt/libompdevice.a" "$dest/"
# Replace a link an earlier install left to a checkout that is gone.
if [ -L /usr/local/cuda ] && [ ! -e /usr/local/cuda ]; then rm /usr/local/cuda; fi
if [ ! -e /usr/local/cuda ]; then
    ln -s "$root/.toolchain/cuda" /usr/local/cuda
    say "linked /usr/local/cuda -> $root/.toolchain/cuda"
fi
say "installed omprt into $dest"
