#!/usr/bin/env bash
# Packs what the GPU machine needs to run the lowering corpus into
# .gpu-bundle/ (git-ignored, under the 64 MiB a device call carries):
#   corpus.tar.xz  the executables built by `cargo xtask corpus` (-O0, -O2, and
#             both with -foffload-lto) and expected outputs (packed: unpacked,
#             the executables take the bundle past 64 MiB)
#   libs.tar.xz  Debian's host offload runtime (libomptarget.so.22.1) and the
#             shared libraries it needs beyond glibc/libstdc++ (libLLVM.so.22.1 …)
#   run.sh    runs every program with OMP_TARGET_OFFLOAD=MANDATORY on the GPU,
#             compares with the expected output, writes a summary
#   sanitize.sh  runs one build level's programs under compute-sanitizer memcheck
#   unpack.sh the GPU test and unpacking both scripts source
# Usage: bash scripts/gpu-bundle.sh   (after scripts/test.sh or cargo xtask corpus)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib.sh"
corpus="$root/target/omprt/corpus"
bundle="$root/.gpu-bundle"
ls "$corpus"/*.O2 >/dev/null 2>&1 || die "no corpus executables in $corpus: run 'cargo xtask corpus' first"

rm -rf "$bundle" && mkdir -p "$bundle/corpus" "$bundle/lib"
progress gpu-bundle 1 4 "executables"
for exe in "$corpus"/*.O0 "$corpus"/*.O2 "$corpus"/*.O0lto "$corpus"/*.O2lto; do cp "$exe" "$bundle/corpus/"; done
cp "$root"/tests-gpu/programs/*.expected "$bundle/corpus/"

progress gpu-bundle 2 4 "host libraries"
# Everything the host runtime loads except the C/C++ runtime the GPU machine has.
skip='^(linux-vdso|libc\.so|libm\.so|libstdc\+\+|libgcc_s|ld-linux|libpthread|libdl|librt)'
lib=/usr/lib/llvm-22/lib/libomptarget.so.22.1
[ -f "$lib" ] || die "$lib is missing: run 'bash scripts/setup.sh'"
cp -L "$lib" "$bundle/lib/"
# The executables' own needs too (flang's link libatomic.so.1).
for needy in "$lib" "$corpus"/*.O2; do
    ldd "$needy" | awk '{print $1, $3}' | while read -r name path; do
        if [[ ! "$name" =~ $skip ]] && [ -n "$path" ] && [ -f "$path" ] && [ ! -f "$bundle/lib/$name" ]; then
            cp -L "$path" "$bundle/lib/$name"
        fi
    done
done
progress gpu-bundle 3 4 "packing libs.tar.xz"
tar -C "$bundle" -cJf "$bundle/libs.tar.xz" lib
rm -rf "$bundle/lib"
progress gpu-bundle 4 4 "packing corpus.tar.xz"
tar -C "$bundle" -cJf "$bundle/corpus.tar.xz" corpus
rm -rf "$bundle/corpus"
cp "$root/scripts/gpu-run.sh" "$bundle/run.sh"
cp "$root/scripts/gpu-sanitize.sh" "$bundle/sanitize.sh"
cp "$root/scripts/gpu-unpack.sh" "$bundle/unpack.sh"
progress_done
say "bundle ready: $(du -sh "$bundle" | cut -f1) in .gpu-bundle"
