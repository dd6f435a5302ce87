#!/usr/bin/env bash
# Command 1 of the README: set up, build the runtime, compile the saxpy example
# with clang 22 against it, check it with ptxas, and run it (on the GPU when
# there is one; otherwise through the host fallback, which says nothing about
# the device runtime).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib.sh"
cd "$root"
bash scripts/setup.sh
say "building the device runtime"
cargo xtask build-device
rt="$root/target/omprt/lib"
cuda="$root/.toolchain/cuda"
out="$root/target/omprt/quickstart"
mkdir -p "$out"
say "compiling tests-gpu/programs/saxpy.c with clang 22 for sm_90"
clang-22 -O2 -fopenmp --offload-arch=sm_90 --cuda-path="$cuda" \
    --libomptarget-nvptx-bc-path="$rt/libomptarget-nvptx.bc" -Xoffload-linker -L"$rt" \
    tests-gpu/programs/saxpy.c -o "$out/saxpy"
for arch in sm_70 sm_80 sm_90; do
    clang-22 -O2 -fopenmp --offload-arch=$arch --cuda-path="$cuda" \
        --libomptarget-nvptx-bc-path="$rt/libomptarget-nvptx.bc" \
        --offload-device-only -c tests-gpu/programs/saxpy.c -o "$out/saxpy.$arch.cubin"
done
say "ptxas accepted the device code for sm_70, sm_80 and sm_90"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    say "running on the GPU (OMP_TARGET_OFFLOAD=MANDATORY)"
    OMP_TARGET_OFFLOAD=MANDATORY "$out/saxpy"
else
    say "no NVIDIA GPU found: running through the host fallback (this does not exercise omprt)"
    "$out/saxpy"
fi
say "done: the runtime is in $rt (see README for the flags)"
