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
