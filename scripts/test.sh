#!/usr/bin/env bash
# Command 2 of the README: every test. Sets up (idempotent), builds the device
# runtime, checks that the Rust comments state what holds (cargo xtask prose:
# no date, revision, 'a -> b' figure or file outside the repository), runs the
# Rust tests (host simulation, ABI layouts, IR rewrite, ABI-table conformance,
# lowering corpus with clang 22, flang 22 + ptxas, the static-cost bars and
# the generated lowering report), builds LLVM's offload
# tests against the runtime where ../shared/conformance/llvm-offload exists
# (cargo xtask conformance, docs/conformance.md), and, under CI, the install
# step and the Debian package (scripts/package-check.sh). GPU runs are
# separate: see docs/testing.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib.sh"
cd "$root"
bash scripts/setup.sh
say "building the device runtime"
cargo xtask build-device
say "checking the comments (cargo xtask prose)"
cargo xtask prose
say "running the test suite"
log=$(mktemp)
cargo test --workspace 2>&1 | tee "$log"
# One closing line for the whole run (cargo prints one per test binary).
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "cargo tests: %d passed, %d failed\n", p, f }' "$log"
suite="$root/../shared/conformance/llvm-offload"
if [ -d "$suite" ]; then
    say "building LLVM's offload tests against omprt at O0, O2, O2lto (cargo xtask conformance)"
    cargo xtask conformance
else
    say "conformance: no suite at $suite: skipped (docs/conformance.md)"
fi
if [ "${CI:-}" = true ]; then
    say "CI: checking the install step"
    bash scripts/install.sh
    tmp=$(mktemp -d)
    clang-22 -O2 -fopenmp --offload-arch=sm_90 tests-gpu/programs/saxpy.c -o "$tmp/saxpy"
    say "plain 'clang-22 -fopenmp --offload-arch=sm_90' links against the installed omprt"
    # -O0 with `use omp_lib`: the archive's Fortran member defines its constants.
    flang-22 -O0 -fopenmp --offload-arch=sm_90 tests-gpu/programs/fortran_regions.f90 -o "$tmp/fortran_regions"
    # Array assignment, derived types, finalization: flang-rt's entry points
    # from the archive's Fortran runtime member (the program's .mod files go to $tmp).
    flang-22 -O0 -fopenmp --offload-arch=sm_90 -J "$tmp" tests-gpu/programs/fortran_assign.f90 -o "$tmp/fortran_assign"
    say "plain 'flang-22 -fopenmp --offload-arch=sm_90' links against the installed omprt"
    # The package over install.sh's files: they come back after its removal.
    bash scripts/package-check.sh
    bash scripts/install.sh --uninstall
fi
