# Sourced by the GPU bundle's run.sh and sanitize.sh (copied into
# .gpu-bundle/unpack.sh by scripts/gpu-bundle.sh), with `here` set to the
# bundle's folder.

# Whether this machine has no usable NVIDIA GPU.
gpu_missing() {
    ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1
}

# Unpacks the host runtime's libraries and the executables: sets `corpus`
# (the folder of executables and expected outputs), LD_LIBRARY_PATH and
# OMP_TARGET_OFFLOAD=MANDATORY.
unpack_bundle() {
    local libs unpacked
    libs=$(mktemp -d)
    tar -C "$libs" -xJf "$here/libs.tar.xz"
    # The executables come packed (corpus.tar.xz); an unpacked corpus/ also works.
    corpus="$here/corpus"
    if [ -f "$here/corpus.tar.xz" ]; then
        unpacked=$(mktemp -d)
        tar -C "$unpacked" -xJf "$here/corpus.tar.xz"
        corpus="$unpacked/corpus"
    fi
    export LD_LIBRARY_PATH="$libs/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    export OMP_TARGET_OFFLOAD=MANDATORY
}

# Unpacks the conformance tests (conformance.tar.xz, from `cargo xtask
# conformance`) and LLVM 22's FileCheck and not (tools.tar.xz): sets `conf`
# (the folder with manifest.tsv) and puts the tools first on PATH. From a
# checkout (scripts/), it takes target/omprt/conformance and LLVM 22's own
# tools instead, to test the scripts without a bundle.
unpack_conformance() {
    local unpacked tools
    if [ -f "$here/conformance.tar.xz" ]; then
        unpacked=$(mktemp -d)
        tar -C "$unpacked" -xJf "$here/conformance.tar.xz"
        conf="$unpacked/conformance"
        tools=$(mktemp -d)
        tar -C "$tools" -xJf "$here/tools.tar.xz"
        export PATH="$tools/bin:$PATH"
    else
        conf="${CONFORMANCE_DIR:-$here/../target/omprt/conformance}"
        export PATH="/usr/lib/llvm-22/bin:$PATH"
    fi
    [ -f "$conf/manifest.tsv" ] || { echo "omprt: no conformance tests in $conf: run 'cargo xtask conformance' and 'bash scripts/gpu-bundle.sh'" >&2; return 1; }
}
