#!/usr/bin/env bash
# Installs omprt from its tarball (cargo xtask package), on a machine with
# clang-22 or flang-22 and without Debian's package tools. Shipped in the
# tarball as install.sh.
#
#   ./install.sh [--prefix DIR] [--runtime-dir DIR]      install
#   ./install.sh --uninstall [--prefix DIR]              remove what it installed
#
# --prefix (default /usr/local): bin/omprt, share/man/man1/omprt.1.gz,
#   share/doc/omprt/, and share/omprt/installed-files (the files and the
#   folders it made, which --uninstall removes).
# --runtime-dir (default: where clang-22 looks, <clang-22's lib>/nvptx64-
#   nvidia-cuda, i.e. /usr/lib/llvm-22/lib/nvptx64-nvidia-cuda): the two
#   runtime files. Elsewhere, pass clang-22 --libomptarget-nvptx-bc-path=DIR/
#   libomptarget-nvptx.bc -Xoffload-linker -LDIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
say() { printf 'omprt: %s\n' "$*" >&2; }
die() { printf 'omprt: error: %s\n' "$*" >&2; exit 1; }

prefix=/usr/local
runtime_dir=
uninstall=0
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) [ $# -ge 2 ] || die "--prefix needs a folder"; prefix=$2; shift 2 ;;
        --prefix=*) prefix=${1#--prefix=}; shift ;;
        --runtime-dir) [ $# -ge 2 ] || die "--runtime-dir needs a folder"; runtime_dir=$2; shift 2 ;;
        --runtime-dir=*) runtime_dir=${1#--runtime-dir=}; shift ;;
        --uninstall) uninstall=1; shift ;;
        -h|--help) sed -n '2,/^set /{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
done
case "$prefix" in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
manifest="$prefix/share/omprt/installed-files"

if [ $uninstall = 1 ]; then
    [ -f "$manifest" ] || die "nothing to uninstall: $manifest is missing (was omprt installed with --prefix $prefix?)"
    # Files first, then the folders install.sh made, deepest first, if empty.
    grep '^file ' "$manifest" | cut -c6- | while IFS= read -r f; do rm -f "$f"; done
    dirs=$(grep '^dir ' "$manifest" | cut -c5- | awk '{ print length($0) " " $0 }' | sort -rn | cut -d' ' -f2-)
    rm -f "$manifest"
    while IFS= read -r d; do [ -z "$d" ] || rmdir "$d" 2>/dev/null || true; done <<<"$dirs"
    say "uninstalled omprt from $prefix"
    exit 0
fi

if [ -z "$runtime_dir" ]; then
    clang=$(command -v clang-22 || true)
    [ -n "$clang" ] || die "clang-22 not found: install it (Debian 12: apt-get install clang-22), or pass --runtime-dir DIR"
    resource=$("$clang" -print-resource-dir)
    runtime_dir=$(cd "$resource/../.." && pwd)/nvptx64-nvidia-cuda
fi
# The Debian package owns these paths when it is installed: use one or the other.
if command -v dpkg-query >/dev/null 2>&1 && dpkg-query -S "$runtime_dir/libomptarget-nvptx.bc" >/dev/null 2>&1; then
    die "$runtime_dir/libomptarget-nvptx.bc belongs to a Debian package ($(dpkg-query -S "$runtime_dir/libomptarget-nvptx.bc" | cut -d: -f1)): remove it first (apt remove omprt)"
fi
installed=()
made() { # records the folders of $1 that do not exist yet
    local d=$1
    while [ ! -e "$d" ]; do installed+=("dir $d"); d=$(dirname "$d"); done
}
put() { # source destination mode
    made "$(dirname "$2")"
    install -D -m "$3" "$1" "$2" 2>/dev/null || die "cannot write $2: run as root (sudo), or choose --prefix/--runtime-dir"
    installed+=("file $2")
}
made "$(dirname "$manifest")"
mkdir -p "$(dirname "$manifest")" 2>/dev/null || die "cannot create $(dirname "$manifest"): run as root (sudo), or choose --prefix"
for f in libomptarget-nvptx.bc libompdevice.a; do put "$here/lib/nvptx64-nvidia-cuda/$f" "$runtime_dir/$f" 0644; done
put "$here/bin/omprt" "$prefix/bin/omprt" 0755
while IFS= read -r f; do put "$here/share/$f" "$prefix/share/$f" 0644; done < <(cd "$here/share" && find . -type f | sed 's|^\./||' | sort)
printf '%s\n' "${installed[@]}" >"$manifest"
say "installed omprt: runtime in $runtime_dir, omprt in $prefix/bin ('omprt doctor' checks the setup)"
