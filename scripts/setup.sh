#!/usr/bin/env bash
# Installs everything omprt needs on a fresh Debian 12 machine, idempotently.
# Quiet when all is in place. Run as root (CI and the project machines are).
#
#   apt:   clang-22, llvm-22 tools (llvm-link, llvm-as, FileCheck, opt, ...),
#          llvm-22-dev (OMPKinds.def), liboffload-22{,-dev} (host libomptarget),
#          libomp-22-dev (omp.h, libomp), flang-22 (the corpus's Fortran
#          programs, which flang lowers through the OpenMPIRBuilder)
#   rustup: the `rust-src` component of the pinned nightly (for -Zbuild-std)
#   anchor: clang-19 (apt) and LLVM 19's DeviceRTL bitcode, extracted from
#          libomp-19-dev into .toolchain/llvm19 (installing that package would
#          remove libomp-22-dev: they conflict)
#   PyPI:  a CUDA folder for `--cuda-path` under .toolchain/cuda, built from
#          NVIDIA's wheels: ptxas + libdevice + headers from CUDA 12.9 (they
#          cover sm_70), nvlink + fatbinary from CUDA 13.0 (no cu12 wheel
#          ships them), libnvJitLink from CUDA 12.9 (nvidia-nvjitlink-cu12);
#          for BabelStream's CUDA model (scripts/bench-bundle.sh) also the
#          curand, CCCL <nv/...> and NVML headers and libcudart_static.a
#          (CUDA 12.9 wheels), added to the folder without replacing files
#   cargo: the folder's bin/nvlink is omprt-nvlink (nvlink/): CUDA 13's nvlink
#          (kept as bin/nvlink-nvidia) for the archs it links, libnvJitLink
#          for sm_70/sm_72, which CUDA 13's nvlink does not link
#   bench: gcc-12-offload-nvptx (apt), GCC's nvptx offloading, the third
#          runtime scripts/bench-bundle.sh compares with (a warning, not an
#          error, if it cannot be installed)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib.sh"

APT_PACKAGES=(clang-22 llvm-22 llvm-22-dev llvm-22-tools liboffload-22 liboffload-22-dev libomp-22-dev flang-22 clang-19)
CUDA12_NVCC=nvidia-cuda-nvcc-cu12==12.9.86
CUDA12_RT=nvidia-cuda-runtime-cu12==12.9.79
CUDA13_NVCC=nvidia-cuda-nvcc==13.0.88
CUDA12_NVJITLINK=nvidia-nvjitlink-cu12==12.9.86
CUDA12_CURAND=nvidia-curand-cu12==10.3.10.19
CUDA12_CCCL=nvidia-cuda-cccl-cu12==12.9.27
CUDA12_NVML=nvidia-nvml-dev-cu12==12.9.79

need_root() {
    if [ "$(id -u)" != 0 ]; then
        die "installing $* needs root: run 'sudo bash scripts/setup.sh'"
    fi
}

missing=()
for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    need_root "${missing[*]}"
    say "installing apt packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -qq "${missing[@]}" >/tmp/omprt-apt.log 2>&1; then
        apt-get update -qq >/tmp/omprt-apt.log 2>&1 || true
        apt-get install -y -qq "${missing[@]}" >>/tmp/omprt-apt.log 2>&1 \
            || die "apt-get install ${missing[*]} failed; see /tmp/omprt-apt.log (clang-22 comes from bookworm-security)"
    fi
fi

command -v rustup >/dev/null || die "rustup not found: install Rust with https://rustup.rs, then run 'rustup toolchain install nightly'"
rustup toolchain list | grep -q '^nightly' || die "the nightly toolchain is missing: run 'rustup toolchain install nightly --component rust-src'"
if ! rustup +nightly component list --installed 2>/dev/null | grep -q '^rust-src'; then
    say "installing rust-src for nightly"
    rustup component add rust-src --toolchain nightly >/dev/null 2>&1 \
        || die "'rustup component add rust-src --toolchain nightly' failed"
fi

cuda="$root/.toolchain/cuda"
if [ ! -x "$cuda/bin/ptxas" ] || { [ ! -x "$cuda/bin/nvlink" ] && [ ! -x "$cuda/bin/nvlink-nvidia" ]; } || [ ! -f "$cuda/nvvm/libdevice/libdevice.10.bc" ] || [ ! -f "$cuda/include/cuda.h" ]; then
    command -v python3 >/dev/null || die "python3 not found: run 'apt-get install python3-pip'"
    python3 -m pip --version >/dev/null 2>&1 || die "pip not found: run 'apt-get install python3-pip'"
    say "assembling a CUDA folder from PyPI wheels in .toolchain/cuda"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmp/w" \
        "$CUDA12_NVCC" "$CUDA12_RT" "$CUDA13_NVCC" >/tmp/omprt-pip.log 2>&1 \
        || die "downloading CUDA wheels failed; see /tmp/omprt-pip.log"
    for w in "$tmp"/w/*.whl; do python3 -m zipfile -e "$w" "$tmp/x" ; done
    rm -rf "$cuda.new" && mkdir -p "$cuda.new/bin" "$cuda.new/nvvm" "$cuda.new/lib64"
    cp "$tmp/x/nvidia/cuda_nvcc/bin/ptxas" "$cuda.new/bin/"
    cp -r "$tmp/x/nvidia/cuda_nvcc/nvvm/libdevice" "$cuda.new/nvvm/"
    cp -r "$tmp/x/nvidia/cuda_runtime/include" "$cuda.new/include"
    cp -r "$tmp/x/nvidia/cuda_nvcc/include/." "$cuda.new/include/" 2>/dev/null || true
    cp "$tmp/x/nvidia/cu13/bin/nvlink" "$tmp/x/nvidia/cu13/bin/fatbinary" "$cuda.new/bin/"
    chmod +x "$cuda.new"/bin/*
    echo "ptxas/libdevice/headers: CUDA 12.9 ($CUDA12_NVCC, $CUDA12_RT); nvlink/fatbinary: $CUDA13_NVCC" > "$cuda.new/SOURCES"
    rm -rf "$cuda" && mv "$cuda.new" "$cuda"
fi

# sm_70 and sm_72: CUDA 13's nvlink does not link them, and no CUDA 12 wheel ships
# an nvlink; libnvJitLink 12.9 links what ptxas 12.9 compiles. The folder's
# bin/nvlink becomes omprt-nvlink, which runs NVIDIA's nvlink (moved to
# bin/nvlink-nvidia) for the archs that one lists and libnvJitLink for the
# rest (docs/install.md, "Toolkit per architecture").
if [ ! -f "$cuda/lib64/libnvJitLink.so.12" ]; then
    say "adding libnvJitLink ($CUDA12_NVJITLINK) to .toolchain/cuda/lib64"
    tmpj=$(mktemp -d)
    python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmpj" "$CUDA12_NVJITLINK" >/tmp/omprt-pip.log 2>&1 \
        || die "downloading $CUDA12_NVJITLINK failed; see /tmp/omprt-pip.log"
    python3 -m zipfile -e "$tmpj"/*.whl "$tmpj/x"
    mkdir -p "$cuda/lib64"
    cp "$tmpj/x/nvidia/nvjitlink/lib/libnvJitLink.so.12" "$cuda/lib64/.libnvJitLink.so.12.new"
    mv "$cuda/lib64/.libnvJitLink.so.12.new" "$cuda/lib64/libnvJitLink.so.12"
    echo "libnvJitLink: $CUDA12_NVJITLINK" >>"$cuda/SOURCES"
    rm -rf "$tmpj"
fi
if [ ! -x "$cuda/bin/nvlink-nvidia" ]; then
    "$cuda/bin/nvlink" --version 2>/dev/null | grep -q "Cuda compilation tools" \
        || die "$cuda/bin/nvlink is not NVIDIA's nvlink: remove $cuda and run 'bash scripts/setup.sh' again"
    mv "$cuda/bin/nvlink" "$cuda/bin/nvlink-nvidia"
fi
# Rebuilt when nvlink/ changes (cargo is quiet when nothing did).
cargo build -q --release -p omprt-nvlink --manifest-path "$root/Cargo.toml" \
    || die "'cargo build --release -p omprt-nvlink' failed"
if ! cmp -s "$root/target/release/omprt-nvlink" "$cuda/bin/nvlink"; then
    say "installing omprt-nvlink as .toolchain/cuda/bin/nvlink"
    cp "$root/target/release/omprt-nvlink" "$cuda/bin/.nvlink.new"
    mv "$cuda/bin/.nvlink.new" "$cuda/bin/nvlink"
fi

# BabelStream's CUDA model (scripts/bench-bundle.sh): clang's CUDA wrapper
# headers include curand_mtgp32_kernel.h, which includes CCCL's <nv/target>;
# the model includes nvml.h and links CUDA's runtime (libcudart_static.a, so
# the GPU machine needs no libcudart). All from the CUDA 12.9 wheels that
# match the headers above. Added to .toolchain/cuda file by file, never
# replacing a file that is there (the folder may be shared between
# checkouts); the SOURCES line is written last and marks it complete.
cuda_extra_stamp="curand/cccl/nvml headers, libcudart_static.a"
if ! grep -qF "$cuda_extra_stamp" "$cuda/SOURCES" 2>/dev/null; then
    command -v python3 >/dev/null || die "python3 not found: run 'apt-get install python3-pip'"
    python3 -m pip --version >/dev/null 2>&1 || die "pip not found: run 'apt-get install python3-pip'"
    say "adding curand, CCCL and NVML headers and libcudart_static.a to .toolchain/cuda"
    tmpx=$(mktemp -d)
    python3 -m pip download -q --no-deps --only-binary=:all: -d "$tmpx/w" \
        "$CUDA12_RT" "$CUDA12_CURAND" "$CUDA12_CCCL" "$CUDA12_NVML" >/tmp/omprt-pip-extra.log 2>&1 \
        || { rm -rf "$tmpx"; die "downloading CUDA wheels failed; see /tmp/omprt-pip-extra.log"; }
    # Only what is needed: the curand wheel is mostly libcurand.so (160 MB).
    python3 - "$tmpx" <<'EOF' || { rm -rf "$tmpx"; die "unpacking the CUDA wheels in $tmpx failed"; }
import glob, os, sys, zipfile
tmp = sys.argv[1]
wanted = {
    "nvidia/curand/include/": "include/",
    "nvidia/cuda_cccl/include/nv/": "include/nv/",
    "nvidia/nvml_dev/include/nvml.h": "include/nvml.h",
    "nvidia/cuda_runtime/lib/libcudart_static.a": "lib64/libcudart_static.a",
}
for whl in glob.glob(os.path.join(tmp, "w", "*.whl")):
    with zipfile.ZipFile(whl) as z:
        for name in z.namelist():
            for src, dst in wanted.items():
                if name.startswith(src) and not name.endswith(("/", "__init__.py")):
                    out = os.path.join(tmp, "x", dst + name[len(src):])
                    os.makedirs(os.path.dirname(out), exist_ok=True)
                    with z.open(name) as f, open(out, "wb") as o:
                        o.write(f.read())
for need in ["include/curand_mtgp32_kernel.h", "include/nv/target", "include/nvml.h", "lib64/libcudart_static.a"]:
    if not os.path.isfile(os.path.join(tmp, "x", need)):
        sys.exit(f"{need} is in none of the wheels")
EOF
    mkdir -p "$cuda/include" "$cuda/lib64"
    cp -rn "$tmpx/x/." "$cuda/"
    rm -rf "$tmpx"
    echo "$cuda_extra_stamp: $CUDA12_CURAND, $CUDA12_CCCL, $CUDA12_NVML, $CUDA12_RT (added without replacing files)" >>"$cuda/SOURCES"
fi

llvm19="$root/.toolchain/llvm19"
if [ ! -f "$llvm19/usr/lib/llvm-19/lib/libomptarget-nvptx-sm_90.bc" ]; then
    say "extracting LLVM 19's device runtime (libomp-19-dev) into .toolchain/llvm19"
    tmp19=$(mktemp -d)
    (cd "$tmp19" && apt-get download libomp-19-dev >/tmp/omprt-apt19.log 2>&1) \
        || die "apt-get download libomp-19-dev failed; see /tmp/omprt-apt19.log"
    rm -rf "$llvm19" && mkdir -p "$llvm19"
    dpkg-deb -x "$tmp19"/libomp-19-dev_*.deb "$llvm19"
    rm -rf "$tmp19"
fi

# Benchmark anchor: GCC 12 offloading to nvptx (scripts/bench-bundle.sh).
if ! dpkg-query -W -f='${Status}' gcc-12-offload-nvptx 2>/dev/null | grep -q "install ok installed"; then
    if [ "$(id -u)" != 0 ]; then
        say "warning: gcc-12-offload-nvptx is missing and installing it needs root; the benchmarks will skip GCC"
    else
        say "installing gcc-12-offload-nvptx (GCC anchor of the benchmarks)"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc-12-offload-nvptx >/tmp/omprt-apt-gcc.log 2>&1 \
            || say "warning: apt-get install gcc-12-offload-nvptx failed (see /tmp/omprt-apt-gcc.log); the benchmarks will skip GCC"
    fi
fi
