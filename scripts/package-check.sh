#!/usr/bin/env bash
# Builds omprt's Debian package and tarball (cargo xtask package) and checks
# them on this machine, as root:
#   1. contents (dpkg-deb -c) and metadata (dpkg-deb -I), lintian clean;
#   2. apt install ./omprt_<version>_amd64.deb; plain `clang-22 -fopenmp
#      --offload-arch=sm_70|sm_80|sm_90 saxpy.c` and `flang-22 -fopenmp
#      --offload-arch=sm_90` link, the latter also with `-mllvm
#      -math-runtime=precise` and math in a target region (fortran_math.f90);
#      the installed `omprt doctor` exits 0;
#   3. apt remove, then purge: every file of the package is gone, and the
#      runtime files scripts/install.sh had put there (if any) come back;
#   4. the tarball's install.sh into a scratch prefix, and --uninstall.
# plain clang-22 finds CUDA at /usr/local/cuda: where nothing is there, this
# links the project's CUDA folder there for the check, and removes the link.
# scripts/test.sh runs it under CI=true (about 2 minutes).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/lib.sh"
cd "$root"
[ "$(id -u)" = 0 ] || die "the package check installs and removes a package: run it as root"
dest=/usr/lib/llvm-22/lib/nvptx64-nvidia-cuda
version=$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
deb="target/omprt/omprt_${version}_amd64.deb"
tarball="target/omprt/omprt-${version}-x86_64-linux.tar.gz"

# The check's own tools (not setup.sh's: only packaging needs them).
need=()
command -v lintian >/dev/null || need+=(lintian)
command -v dpkg-shlibdeps >/dev/null || need+=(dpkg-dev)
if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]} for the package check"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/tmp/omprt-apt-package.log 2>&1 \
        || die "apt-get install ${need[*]} failed; see /tmp/omprt-apt-package.log"
fi
if dpkg-query -W -f='${Status}' omprt 2>/dev/null | grep -q "install ok installed"; then
    die "the omprt package is installed already: 'apt remove omprt' first, so that the check starts from a system without it"
fi

say "building the package and the tarball"
cargo xtask package >/dev/null
[ -f "$deb" ] && [ -f "$tarball" ] || die "cargo xtask package made no $deb / $tarball"

say "checking contents and metadata"
contents=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' | grep -v '/$' | sort)
expected=$(printf '%s\n' "$dest/libomptarget-nvptx.bc" "$dest/libompdevice.a" /usr/bin/omprt \
    /usr/share/doc/omprt/changelog.gz /usr/share/doc/omprt/copyright /usr/share/lintian/overrides/omprt \
    /usr/share/man/man1/omprt.1.gz | sort)
[ "$contents" = "$expected" ] || die "the package holds
$contents
expected
$expected"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = omprt ] && [ "$(field Version)" = "$version" ] && [ "$(field Architecture)" = amd64 ] \
    || die "Package/Version/Architecture: $(field Package) $(field Version) $(field Architecture)"
case "$(field Depends)" in "clang-22 | flang-22, "*liboffload-22-dev*) ;; *) die "Depends: $(field Depends)" ;; esac
[ -n "$(field Recommends)" ] && [ -n "$(field Maintainer)" ] && [ -n "$(field Installed-Size)" ] || die "Recommends/Maintainer/Installed-Size missing"
# Read whole first: grep -q stops early, and pipefail takes dpkg-deb's SIGPIPE for a failure.
info=$(dpkg-deb -I "$deb")
grep -q ' md5sums ' <<<"$info" || die "no md5sums in the control archive"
say "lintian"
lintian --fail-on error,warning "$deb" 2>&1 | grep -v "^running with root privileges" || true
lintian --fail-on error,warning "$deb" >/dev/null 2>&1 || die "lintian reports errors or warnings (above)"

# What scripts/install.sh put where the package installs: kept aside, restored after.
saved=$(mktemp -d)
scratch=$(mktemp -d)
cuda_link=
cleanup() {
    if dpkg-query -W omprt >/dev/null 2>&1; then dpkg --purge omprt >/dev/null 2>&1 || true; fi
    for f in libomptarget-nvptx.bc libompdevice.a; do
        if [ -f "$saved/$f" ]; then mkdir -p "$dest" && cp -p "$saved/$f" "$dest/$f"; fi
    done
    if [ -n "$cuda_link" ]; then rm -f /usr/local/cuda; fi
    rm -rf "$saved" "$scratch"
}
trap cleanup EXIT
for f in libomptarget-nvptx.bc libompdevice.a; do
    if [ -f "$dest/$f" ]; then cp -p "$dest/$f" "$saved/$f"; rm "$dest/$f"; fi
done
rmdir "$dest" 2>/dev/null || true
if [ ! -e /usr/local/cuda ]; then
    ln -s "$root/.toolchain/cuda" /usr/local/cuda
    cuda_link=1
fi

say "installing $deb"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "./$deb" >"$scratch/apt.log" 2>&1 || { cat "$scratch/apt.log"; die "apt install ./$deb failed"; }
for arch in sm_70 sm_80 sm_90; do
    clang-22 -O2 -fopenmp --offload-arch=$arch tests-gpu/programs/saxpy.c -o "$scratch/saxpy.$arch" \
        || die "plain clang-22 -fopenmp --offload-arch=$arch saxpy.c does not link with the package"
done
say "plain 'clang-22 -fopenmp --offload-arch=sm_70|sm_80|sm_90 saxpy.c' links with the package"
flang-22 -O0 -fopenmp --offload-arch=sm_90 tests-gpu/programs/fortran_regions.f90 -o "$scratch/fortran_regions" \
    || die "plain flang-22 -fopenmp --offload-arch=sm_90 does not link with the package"
say "plain 'flang-22 -fopenmp --offload-arch=sm_90' links with the package"
flang-22 -O2 -fopenmp --offload-arch=sm_90 -mllvm -math-runtime=precise tests-gpu/programs/fortran_math.f90 \
    -J "$scratch" -o "$scratch/fortran_math" \
    || die "flang-22 -mllvm -math-runtime=precise fortran_math.f90 (C's math functions on the device) does not link with the package"
say "flang-22 -mllvm -math-runtime=precise links Fortran math in a target region with the package"
/usr/bin/omprt doctor >"$scratch/doctor.txt" || { cat "$scratch/doctor.txt"; die "the installed 'omprt doctor' exits non-zero"; }
grep -q "ok    runtime .*(package omprt)" "$scratch/doctor.txt" || { cat "$scratch/doctor.txt"; die "omprt doctor does not see the package's runtime"; }
[ "$(/usr/bin/omprt flags sm_80)" = "-fopenmp --offload-arch=sm_80" ] || die "the installed 'omprt flags' names more than offloading"
man -w omprt >/dev/null || die "man cannot find omprt(1)"

say "removing and purging the package"
apt-get remove -y -qq omprt >/dev/null 2>&1 || die "apt remove omprt failed"
for f in $expected; do [ ! -e "$f" ] || die "$f is still there after apt remove"; done
# apt knows a local .deb only while it is installed: dpkg purges what is left.
dpkg --purge omprt >/dev/null 2>&1 || die "dpkg --purge omprt failed"
! dpkg-query -W omprt >/dev/null 2>&1 || die "dpkg still knows omprt after purge: $(dpkg-query -W omprt)"
[ ! -e "$dest" ] || [ -n "$(ls -A "$dest")" ] || die "$dest is left empty after purge"
say "the package installs, links plain clang-22/flang-22 offload, and leaves nothing behind"

say "checking the tarball's install.sh"
tar -C "$scratch" -xzf "$tarball"
inst="$scratch/omprt-$version/install.sh"
bash "$inst" --prefix "$scratch/prefix" --runtime-dir "$scratch/rt" 2>/dev/null
for f in "$scratch/rt/libomptarget-nvptx.bc" "$scratch/rt/libompdevice.a" "$scratch/prefix/bin/omprt" \
    "$scratch/prefix/share/man/man1/omprt.1.gz" "$scratch/prefix/share/doc/omprt/copyright"; do
    [ -f "$f" ] || die "the tarball's install.sh did not install $f"
done
clang-22 -O2 -fopenmp --offload-arch=sm_90 --libomptarget-nvptx-bc-path="$scratch/rt/libomptarget-nvptx.bc" \
    -Xoffload-linker -L"$scratch/rt" tests-gpu/programs/saxpy.c -o "$scratch/saxpy.tar" \
    || die "saxpy does not link against the tarball's runtime"
bash "$inst" --uninstall --prefix "$scratch/prefix" 2>/dev/null
left=$(find "$scratch/prefix" "$scratch/rt" -type f 2>/dev/null || true)
[ -z "$left" ] || die "the tarball's install.sh --uninstall left $left"
say "the tarball installs into a prefix and uninstalls"
