#!/usr/bin/env bash
# Builds the benchmarks of tests-gpu/bench/ four ways and packs what a GPU
# machine without compilers needs to run them into .bench-bundle/ (git-ignored,
# carried on its own: it stays under the 64 MiB a device call carries):
#   bin/<program>.omprt   clang 22 -O2 + omprt (target/omprt/lib, or $OMPRT_LIB_DIR)
#   bin/<program>.omprtlto  the same with -foffload-lto
#   bin/<program>.llvm19  clang 19 -O2 -foffload-lto + LLVM 19's DeviceRTL
#                         (.toolchain/llvm19), device image made whole-program by
#                         ptxas 12.9 instead of CUDA 13's nvlink (see below)
#   bin/<program>.gcc     gcc 12 -O2 -foffload=nvptx-none (-misa=sm_80)
#   bin/launch.cuda       launch.c's empty kernels as a CUDA program (clang 22
#                         -x cuda, libcudart linked statically)
#   bin/babelstream.<rt>  BabelStream's OpenMP model (src/omp/) built the four
#                         ways above at -O3 (BabelStream's release flags), a
#                         fifth as babelstream.omprtwp (omprtlto with a
#                         whole-program device image, see whole_program_cuda),
#                         and
#                         its CUDA model (src/cuda/) as babelstream.cuda, from
#                         $BABELSTREAM_DIR (default ../shared/bench/babelstream
#                         next to the checkout; never copied into the project).
#                         The CUDA model links NVML (the driver's
#                         libnvidia-ml.so.1 on the GPU machine) through a link
#                         stub made here, which is not carried.
#   lib/nvml-fallback/libnvidia-ml.so.1  stands in for NVML only where the
#                         driver's fails (run.sh says so in its results):
#                         BabelStream's CUDA model reads the memory clock for
#                         its banner and exits on an NVML error.
#   libs.tar.xz  the host runtimes and what they load beyond glibc/libstdc++/
#                libgcc_s/libcuda: lib/omprt (Debian's libomptarget.so.22.1,
#                libomp.so.5, libLLVM.so.22.1; on bookworm libomp-22-dev's
#                libomp.so.5 is libomp5-19's), lib/llvm19 (libomptarget.so.19.1,
#                libomp.so.5, libLLVM.so.19.1: libomp5-19, which clang-19
#                brings), lib/gcc (libgomp.so.1 and its nvptx plugin),
#                lib/common (shared dependencies). libz3.so.4 and libxml2.so.2
#                are replaced by stubs that define the symbols libLLVM imports
#                and abort if one is ever called (libLLVM needs them only for
#                the static analyzer's Z3 solver and Windows manifests), which
#                keeps libicudata/libicuuc/liblzma out: the real ones would
#                not fit in 64 MiB next to two libLLVMs.
#   BUILD.txt    compilers, flags, runtime provenance, what did not build
#   run.sh       (scripts/bench-run.sh) runs every benchmark with every runtime,
#                interleaved, and writes the table to $OUT/bench.txt
# Usage: bash scripts/bench-bundle.sh [--builds-only]   (after 'cargo xtask build-device')
#   --builds-only: the executables and BUILD.txt, without packing the host
#   libraries (minutes of xz): checks the builds (scripts/test.sh does not).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib.sh"
bundle="$root/.bench-bundle"
src="$root/tests-gpu/bench"
programs=(stream reduce sched generic launch grid)
arch=sm_90
builds_only=0
case "${1:-}" in
    --builds-only) builds_only=1 ;;
    "") ;;
    *) die "unknown option '$1' (usage: bash scripts/bench-bundle.sh [--builds-only])" ;;
esac
babelstream=${BABELSTREAM_DIR:-$root/../shared/bench/babelstream}

omprt_lib=${OMPRT_LIB_DIR:-$root/target/omprt/lib}
cuda="$root/.toolchain/cuda"
llvm19="$root/.toolchain/llvm19/usr/lib/llvm-19/lib"
[ -f "$omprt_lib/libomptarget-nvptx.bc" ] && [ -f "$omprt_lib/libompdevice.a" ] \
    || die "no omprt runtime in $omprt_lib: run 'cargo xtask build-device' first"
[ -x "$cuda/bin/ptxas" ] || die "$cuda is missing: run 'bash scripts/setup.sh'"
command -v clang-22 >/dev/null || die "clang-22 not found: run 'bash scripts/setup.sh'"

rm -rf "$bundle" && mkdir -p "$bundle/bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
build_log="$bundle/BUILD.txt"
{
    echo "# benchmark bundle built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
    echo "omprt: commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$root" diff --quiet HEAD -- device-rtl xtask abi 2>/dev/null || echo ' + uncommitted runtime changes'), runtime $omprt_lib (sha256 $(sha256sum "$omprt_lib/libomptarget-nvptx.bc" | cut -c1-12))"
} >"$build_log"

# One build per runtime; a failure is recorded and the others go on.
# `built` counts them (and the builds of a runtime that is not available)
# for the progress line.
built=0
builds=$((${#programs[@]} * 4))
build() { # runtime program cmd...
    local rt=$1 prog=$2; shift 2
    built=$((built + 1))
    progress bench-bundle $built $builds "$prog.$rt"
    if "$@" >"$work/$prog.$rt.log" 2>&1; then
        echo "built $prog.$rt" >>"$build_log"
    else
        echo "NOT BUILT $prog.$rt: $(grep -m1 -iE 'error|fatal' "$work/$prog.$rt.log" || tail -1 "$work/$prog.$rt.log")" >>"$build_log"
        say "$prog.$rt did not build (see .bench-bundle/BUILD.txt)"
        rm -f "$bundle/bin/$prog.$rt"
    fi
}

# A CUDA folder whose device link is whole-program where it can be: a
# ptxas shim also compiles the PTX of each relocatable object (-c)
# whole-program (CUDA 12.9's ptxas, an executable cubin of ELF ABI v7) and
# files it under the relocatable object's hash; an nvlink shim passes that
# executable through when it links that object alone (-foffload-lto, where
# the device image is one module), and calls nvlink otherwise.
whole_program_cuda() { # dir
    local dir=$1 d
    mkdir -p "$dir/bin"
    for d in nvvm include lib64; do
        if [ -e "$cuda/$d" ]; then ln -s "$cuda/$d" "$dir/$d"; fi
    done
    cat >"$dir/bin/ptxas" <<'SHIM'
#!/usr/bin/env bash
# Runs ptxas as asked; when asked for a relocatable object (-c), also
# compiles the same PTX whole-program and files that cubin under the
# relocatable object's hash for the nvlink shim.
"@CUDA@/bin/ptxas" "$@" || exit
args=(); out=; prev=; rel=0
for a in "$@"; do
    if [ "$a" = -c ]; then rel=1; elif [ "$prev" = --output-file ] || [ "$prev" = -o ]; then out=$a; args+=("$out.whole"); else args+=("$a"); fi
    prev=$a
done
if [ $rel = 1 ] && [ -n "$out" ] && "@CUDA@/bin/ptxas" "${args[@]}" >/dev/null 2>&1; then
    mkdir -p "@CACHE@" && mv "$out.whole" "@CACHE@/$(sha256sum <"$out" | cut -c1-32)"
fi
rm -f "$out.whole"
exit 0
SHIM
    cat >"$dir/bin/nvlink" <<'SHIM'
#!/usr/bin/env bash
# One input with a whole-program cubin from the ptxas shim: that cubin is
# the linked image. Anything else: CUDA 13's nvlink.
out=; inputs=(); prev=
for a in "$@"; do
    if [ "$prev" = -o ]; then out=$a; elif [[ "$a" == *.cubin || "$a" == *.o ]]; then inputs+=("$a"); fi
    prev=$a
done
if [ -n "$out" ] && [ ${#inputs[@]} -eq 1 ]; then
    whole="@CACHE@/$(sha256sum <"${inputs[0]}" | cut -c1-32)"
    if [ -f "$whole" ]; then exec cp "$whole" "$out"; fi
fi
exec "@CUDA@/bin/nvlink" "$@"
SHIM
    sed -i "s|@CUDA@|$cuda|g; s|@CACHE@|$dir/cache|g" "$dir/bin/ptxas" "$dir/bin/nvlink"
    chmod +x "$dir/bin/ptxas" "$dir/bin/nvlink"
}

# (a) clang 22 + omprt, the flags of README.md.
omprt_flags=(-fopenmp --offload-arch=$arch "--cuda-path=$cuda" "--libomptarget-nvptx-bc-path=$omprt_lib/libomptarget-nvptx.bc"
    -Xoffload-linker "-L$omprt_lib")
echo "omprt:  $(clang-22 --version | sed -n 1p); clang-22 -O2 ${omprt_flags[*]}" >>"$build_log"
for p in "${programs[@]}"; do
    build omprt "$p" clang-22 -O2 "${omprt_flags[@]}" "$src/$p.c" -o "$bundle/bin/$p.omprt" -lm
done
# (a') the same with -foffload-lto: LLVM 19 below is built with LTO too.
echo "omprtlto: clang-22 -O2 -foffload-lto ${omprt_flags[*]}" >>"$build_log"
for p in "${programs[@]}"; do
    build omprtlto "$p" clang-22 -O2 -foffload-lto "${omprt_flags[@]}" "$src/$p.c" -o "$bundle/bin/$p.omprtlto" -lm
done

have_llvm19=0
have_gcc=0
# (b) clang 19 + LLVM 19's DeviceRTL (as xtask/src/static_cost.rs builds it);
# the host link needs unversioned names for Debian's libomp5-19 files.
clang19=/usr/lib/llvm-19/bin/clang
if [ -x "$clang19" ] && [ -f "$llvm19/libomptarget-nvptx-$arch.bc" ] && [ -f /usr/lib/llvm-19/lib/libomptarget.so.19.1 ]; then
    mkdir -p "$work/h19"
    ln -s /usr/lib/llvm-19/lib/libomptarget.so.19.1 "$work/h19/libomptarget.so"
    ln -s /usr/lib/llvm-19/lib/libomp.so.5 "$work/h19/libomp.so"
    # LLVM 19's CUDA plugin reads the sm_ number from the low byte of the
    # cubin's e_flags (ELF ABI v7). .toolchain/cuda's nvlink is CUDA 13's,
    # whose output (ABI v8) has it in bits 8..15, so libomptarget 19 finds "no
    # images compatible with the installed hardware". Lacking a CUDA 12
    # nvlink, the device code goes through LTO (-foffload-lto: one module with
    # the DeviceRTL) and whole_program_cuda's shims make that module the image.
    cuda19="$work/cuda19"
    whole_program_cuda "$cuda19"
    llvm19_flags=(-fopenmp -foffload-lto --offload-arch=$arch "--cuda-path=$cuda19" "--libomptarget-nvptx-bc-path=$llvm19/libomptarget-nvptx-$arch.bc"
        "-I$llvm19/clang/19/include" "-L$llvm19" "-L$work/h19")
    echo "llvm19: $($clang19 --version | sed -n 1p); clang -O2 -fopenmp --offload-arch=$arch + libomptarget-nvptx-$arch.bc from libomp-19-dev; -foffload-lto, device code compiled whole-program by ptxas 12.9, no nvlink (CUDA 13 cubins are ELF ABI v8, which libomptarget 19 rejects)" >>"$build_log"
    for p in "${programs[@]}"; do
        build llvm19 "$p" "$clang19" -O2 "${llvm19_flags[@]}" "$src/$p.c" -o "$bundle/bin/$p.llvm19" -lm
    done
    have_llvm19=1
else
    built=$((built + ${#programs[@]}))
    echo "NOT BUILT llvm19: clang-19, LLVM 19's DeviceRTL or libomp5-19 missing (run 'bash scripts/setup.sh')" >>"$build_log"
    say "the LLVM 19 anchor is not available: skipped"
fi

# (c) GCC 12 offloading to nvptx. -latomic: GCC combines two double
# reductions (min+max) with a 16-byte compare-and-swap from libatomic.
gcc_flags=(-fopenmp -no-pie -foffload=nvptx-none "-foffload-options=nvptx-none=-misa=sm_80 -latomic")
if command -v gcc-12 >/dev/null && [ -x /usr/lib/gcc/x86_64-linux-gnu/12/accel/nvptx-none/mkoffload ]; then
    echo "gcc:    $(gcc-12 --version | sed -n 1p); gcc-12 -O2 ${gcc_flags[*]}" >>"$build_log"
    for p in "${programs[@]}"; do
        build gcc "$p" gcc-12 -O2 "${gcc_flags[@]}" "$src/$p.c" -o "$bundle/bin/$p.gcc" -lm
    done
    have_gcc=1
else
    built=$((built + ${#programs[@]}))
    echo "NOT BUILT gcc: gcc-12 or gcc-12-offload-nvptx missing (run 'bash scripts/setup.sh')" >>"$build_log"
    say "the GCC anchor is not available: skipped"
fi

# (d) The native anchor: CUDA programs, clang 22 -x cuda against the CUDA
# folder (its curand, CCCL and NVML headers and libcudart_static.a come from
# scripts/setup.sh), so the GPU machine needs only the driver.
cuda_ok=1
for f in include/curand_mtgp32_kernel.h include/nv/target include/nvml.h lib64/libcudart_static.a; do
    [ -e "$cuda/$f" ] || cuda_ok=0
done
cuda_flags=(-O3 -std=c++17 -x cuda "--cuda-gpu-arch=$arch" "--cuda-path=$cuda" -Wno-unknown-cuda-version)
cuda_libs=("-L$cuda/lib64" -lcudart_static -ldl -lrt -lpthread)
if [ $cuda_ok = 1 ]; then
    echo "cuda:   clang++-22 ${cuda_flags[*]}, linked with ${cuda_libs[*]}" >>"$build_log"
    build cuda launch clang++-22 "${cuda_flags[@]}" "$src/launch.cu" -o "$bundle/bin/launch.cuda" "${cuda_libs[@]}"
else
    echo "NOT BUILT cuda: $cuda lacks the curand/CCCL/NVML headers or libcudart_static.a (run 'bash scripts/setup.sh')" >>"$build_log"
    say "the CUDA anchor is not available: skipped"
fi

# (e) BabelStream, built from its own checkout with its own flags: -O3
# -std=c++17 (its CMake release flags), -DDEFAULT (memory mode); OpenMP:
# -DOMP -DOMP_TARGET_GPU; CUDA: -DCUDA -DGRID_STRIDE -DUNROLL_FACTOR=4
# (its model.cmake defaults), main.cpp compiled as host C++.
bs_omp=(-O3 -std=c++17 -DOMP -DOMP_TARGET_GPU -DDEFAULT -w "-I$babelstream/src" "-I$babelstream/src/omp" "$babelstream/src/main.cpp" "$babelstream/src/omp/OMPStream.cpp")
build_babelstream_cuda() { # out
    local o="$work/bs-cuda"
    mkdir -p "$o"
    clang++-22 "${cuda_flags[@]}" -DCUDA -DDEFAULT -DGRID_STRIDE -DUNROLL_FACTOR=4 -w "-I$babelstream/src" "-I$babelstream/src/cuda" \
        -c "$babelstream/src/cuda/CUDAStream.cu" -o "$o/CUDAStream.o" || return
    clang++-22 -O3 -std=c++17 -DCUDA -DDEFAULT -w "-I$babelstream/src" "-I$babelstream/src/cuda" -c "$babelstream/src/main.cpp" -o "$o/main.o" || return
    # NVML link stub: the symbols the model imports, under the driver
    # library's soname; the driver's own libnvidia-ml.so.1 serves them.
    nm -u "$o/CUDAStream.o" | awk '$2 ~ /^nvml/ { printf "void %s(void) {}\n", $2 }' >"$o/nvml-stub.c"
    gcc -shared -fPIC -o "$o/libnvidia-ml.so" -Wl,-soname,libnvidia-ml.so.1 "$o/nvml-stub.c" || return
    clang++-22 "$o/main.o" "$o/CUDAStream.o" -o "$1" "-L$o" -lnvidia-ml "${cuda_libs[@]}"
}
if [ -f "$babelstream/src/main.cpp" ] && [ -f "$babelstream/src/omp/OMPStream.cpp" ] && [ -f "$babelstream/src/cuda/CUDAStream.cu" ]; then
    echo "babelstream: $(cd "$babelstream" && pwd) ($(sed -n 's/^Source: //p' "$babelstream/README.md" 2>/dev/null | head -1)); OpenMP model: the flags of each runtime above with -O3 -std=c++17 -DOMP -DOMP_TARGET_GPU -DDEFAULT; CUDA model: -DCUDA -DDEFAULT -DGRID_STRIDE -DUNROLL_FACTOR=4" >>"$build_log"
    build omprt babelstream clang++-22 "${omprt_flags[@]}" "${bs_omp[@]}" -o "$bundle/bin/babelstream.omprt"
    build omprtlto babelstream clang++-22 -foffload-lto "${omprt_flags[@]}" "${bs_omp[@]}" -o "$bundle/bin/babelstream.omprtlto"
    # omprt's LTO build with a whole-program device image (whole_program_cuda):
    # what a whole-program link buys, run by bench-run.sh as a grid variant.
    whole_program_cuda "$work/cuda-wp"
    wp_flags=("${omprt_flags[@]/#--cuda-path=*/--cuda-path=$work/cuda-wp}")
    echo "omprtwp: babelstream only; the omprtlto flags with --cuda-path=<whole_program_cuda of $cuda>" >>"$build_log"
    build omprtwp babelstream clang++-22 -foffload-lto "${wp_flags[@]}" "${bs_omp[@]}" -o "$bundle/bin/babelstream.omprtwp"
    if [ $have_llvm19 = 1 ]; then
        build llvm19 babelstream "$clang19++" "${llvm19_flags[@]}" "${bs_omp[@]}" -o "$bundle/bin/babelstream.llvm19"
    fi
    if [ $have_gcc = 1 ]; then
        if command -v g++-12 >/dev/null; then
            build gcc babelstream g++-12 "${gcc_flags[@]}" "${bs_omp[@]}" -o "$bundle/bin/babelstream.gcc"
        else
            echo "NOT BUILT babelstream.gcc: g++-12 missing (run 'apt-get install g++-12')" >>"$build_log"
        fi
    fi
    if [ $cuda_ok = 1 ]; then
        build cuda babelstream build_babelstream_cuda "$bundle/bin/babelstream.cuda"
    fi
else
    echo "NOT BUILT babelstream: no BabelStream sources (src/main.cpp, src/omp/, src/cuda/) in $babelstream; set BABELSTREAM_DIR to a BabelStream checkout" >>"$build_log"
    say "BabelStream not found in $babelstream (set BABELSTREAM_DIR): skipped"
fi

# NVML stand-in, used by run.sh only if BabelStream's CUDA model fails on
# the driver's NVML: success for the three calls the model makes, memory
# clock 0 (the model prints it, nothing else reads it).
mkdir -p "$bundle/lib/nvml-fallback"
cat >"$work/nvml-fallback.c" <<'NVML'
int nvmlInit_v2(void) { return 0; }
int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **device) { (void)bus; *device = 0; return 0; }
int nvmlDeviceGetClockInfo(void *device, int type, unsigned *clock) { (void)device; (void)type; *clock = 0; return 0; }
const char *nvmlErrorString(int result) { (void)result; return "NVML stand-in of the bench bundle"; }
NVML
gcc -shared -fPIC -O1 -s -o "$bundle/lib/nvml-fallback/libnvidia-ml.so.1" -Wl,-soname,libnvidia-ml.so.1 "$work/nvml-fallback.c"

if [ $builds_only = 1 ]; then
    chmod +x "$bundle"/bin/* 2>/dev/null || true
    grep -E '^NOT BUILT' "$build_log" >&2 || true
    say "builds ready (no host libraries packed: --builds-only): $(ls "$bundle/bin" | wc -l) executables in .bench-bundle/bin"
    exit 0
fi

# Host libraries. Roots per runtime; their DT_NEEDED closure is resolved with
# that runtime's folder first, then the system's (ldconfig).
skip='^(linux-vdso|libc\.so|libm\.so|libstdc\+\+\.so|libgcc_s\.so|ld-linux|libpthread\.so|libdl\.so|librt\.so|libcuda\.so)'
stubbed='^(libz3\.so\.4|libxml2\.so\.2)$'
mkdir -p "$work/lib/omprt" "$work/lib/llvm19" "$work/lib/gcc" "$work/lib/common"
declare -A prefer=([omprt]=/usr/lib/llvm-22/lib [llvm19]=/usr/lib/llvm-19/lib [gcc]=/usr/lib/x86_64-linux-gnu)
declare -A roots=(
    [omprt]="/usr/lib/llvm-22/lib/libomptarget.so.22.1 /usr/lib/llvm-22/lib/libomp.so.5"
    [llvm19]="/usr/lib/llvm-19/lib/libomptarget.so.19.1 /usr/lib/llvm-19/lib/libomp.so.5"
    [gcc]="/usr/lib/x86_64-linux-gnu/libgomp.so.1 /usr/lib/x86_64-linux-gnu/libgomp-plugin-nvptx.so.1")
runtime_specific='^(libomp\.so|libomptarget\.so|libLLVM\.so|libgomp)'
resolve() { # name preferred-dir
    if [ -e "$2/$1" ]; then echo "$2/$1"; return; fi
    ldconfig -p | awk -v n="$1" '$1 == n && /x86-64/ && !found {print $NF; found = 1}'
}
carried=()
for rt in omprt llvm19 gcc; do
    ls "$bundle"/bin/*."$rt" >/dev/null 2>&1 || continue
    queue=(${roots[$rt]})
    declare -A seen=()
    while [ ${#queue[@]} -gt 0 ]; do
        path=${queue[0]}; queue=("${queue[@]:1}")
        [ -e "$path" ] || die "$path is missing (for $rt): run 'bash scripts/setup.sh'"
        name=$(basename "$path")
        [ -n "${seen[$name]:-}" ] && continue
        seen[$name]=1
        if [[ "$name" =~ $runtime_specific ]]; then dest="$work/lib/$rt/$name"; else dest="$work/lib/common/$name"; fi
        if [[ "$name" =~ $stubbed ]]; then
            echo "$path" >>"$work/stub-$name"
            continue
        fi
        [ -e "$dest" ] || { cp -L "$path" "$dest"; carried+=("$dest"); }
        for dep in $(readelf -d "$path" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            [[ "$dep" =~ $skip ]] && continue
            dpath=$(resolve "$dep" "${prefer[$rt]}")
            [ -n "$dpath" ] || die "cannot find $dep (needed by $path)"
            queue+=("$dpath")
        done
    done
    unset seen
done

# Stubs: every symbol a carried object imports that the real library defines,
# with the symbol versions the importers ask for.
for stub in "$work"/stub-*; do
    [ -e "$stub" ] || continue
    name=${stub##*/stub-}
    real=$(head -1 "$stub")
    python3 - "$name" "$real" "$work/$name.c" "$work/$name.map" "${carried[@]}" <<'EOF'
import subprocess, sys, re
name, real, c_out, map_out, importers = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
defined = set()
for line in subprocess.run(["nm", "-D", "--defined-only", real], capture_output=True, text=True, check=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3:
        defined.add(parts[2].split("@")[0])
wanted = {}  # symbol -> (version or None, is_object)
for obj in importers:
    out = subprocess.run(["objdump", "-T", "-w", obj], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if "*UND*" not in line:
            continue
        toks = line.split()
        sym, ver = toks[-1], toks[-2]
        if sym not in defined:
            continue
        ver = ver.strip("()")
        ver = None if ver in ("Base", "") or re.fullmatch(r"[0-9a-f]+", ver) else ver
        wanted[sym] = (ver, " DO " in f" {line} ")
with open(c_out, "w") as c:
    c.write("#include <stdio.h>\n#include <stdlib.h>\n")
    c.write(f'static void stub(void) {{ fputs("bench bundle: a function of the stubbed {name} was called\\n", stderr); abort(); }}\n')
    for sym, (ver, obj) in sorted(wanted.items()):
        if obj:
            c.write(f"void *{sym} = (void *)stub;\n")
        else:
            c.write(f'void {sym}(void) __attribute__((alias("stub")));\n')
versions = {}
for sym, (ver, _) in wanted.items():
    versions.setdefault(ver, []).append(sym)
with open(map_out, "w") as m:
    named = sorted(v for v in versions if v)
    if not named:
        m.write("{ global: *; };\n")
    for i, v in enumerate(named):
        syms = sorted(versions[v] + (versions.get(None, []) if i == 0 else []))
        m.write(f"{v} {{ global: {'; '.join(syms)}; {'local: *; ' if i == 0 else ''}}};\n")
print(f"{name}: {len(wanted)} symbols stubbed", file=sys.stderr)
EOF
    gcc -shared -fPIC -O1 -s -o "$work/lib/common/$name" -Wl,-soname,"$name" -Wl,--version-script="$work/$name.map" "$work/$name.c"
    echo "stub $name: $(grep -c '^void' "$work/$name.c") symbols that $(basename "$real") defines and carried libraries import; calling one aborts" >>"$build_log"
done

# libomptarget dlopens "libomp.so": point it at the copy already loaded, or
# it finds another (a system libomp) and libomp aborts on the duplicate.
for rt in omprt llvm19; do
    if [ -e "$work/lib/$rt/libomp.so.5" ]; then ln -sf libomp.so.5 "$work/lib/$rt/libomp.so"; fi
done

# libLLVM.so.22.1 and .19.1 share much of their text: one xz stream with a
# dictionary that spans both packs them ~5 MB smaller than two.
(cd "$work" && find lib \( -type f -o -type l \) | sort | awk '/libLLVM/ {print; next} {rest[++n] = $0} END {for (i = 1; i <= n; ++i) print rest[i]}' >files)
progress_done
say "packing host libraries (xz, a few minutes)"
tar -C "$work" -cf - -T "$work/files" | xz --lzma2=preset=9,dict=256MiB -T1 >"$bundle/libs.tar.xz"
(cd "$work" && du -b $(find lib -type f | sort) | awk '{printf "carried %s (%d bytes)\n", $2, $1}') >>"$build_log"
cp "$root/scripts/bench-run.sh" "$bundle/run.sh"
chmod +x "$bundle/run.sh" "$bundle"/bin/* 2>/dev/null || true
cat "$build_log" | grep -E '^(NOT BUILT|stub)' >&2 || true
say "benchmark bundle ready: $(du -sh "$bundle" | cut -f1) in .bench-bundle ($(ls "$bundle/bin" | wc -l) executables)"
