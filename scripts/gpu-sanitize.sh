#!/usr/bin/env bash
# Runs the packed corpus of one build level (O0, O2, O0lto or O2lto; default O2)
# under compute-sanitizer's memcheck on a GPU machine. Copied into
# .gpu-bundle/sanitize.sh by scripts/gpu-bundle.sh. Writes
# ${OUT:-.}/gpu-memcheck-<level>.txt: per executable its exit status and
# memcheck's error count, and the report lines that name an invalid access or
# a failing CUDA call, except libomptarget 22's cuFuncGetParamInfo calls,
# which fail on every kernel it loads and say nothing about the device code.
# Without a GPU or the sanitizer it says so and exits 0.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}
level=${1:-O2}
# gpu_missing, unpack_bundle: unpack.sh in the bundle, gpu-unpack.sh in scripts/
if [ -f "$here/unpack.sh" ]; then . "$here/unpack.sh"; else . "$here/gpu-unpack.sh"; fi
cs=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)
if gpu_missing || [ -z "$cs" ]; then
    echo "omprt: no NVIDIA GPU or compute-sanitizer found: skipping memcheck"
    exit 0
fi
unpack_bundle
report="$out/gpu-memcheck-$level.txt"
: >"$report"
flagged=0
for exe in "$corpus"/*."$level"; do
    log=$(timeout 120 "$cs" --tool memcheck --print-limit 3 "$exe" 2>&1); rc=$?
    lines=$(echo "$log" | grep -E '^========= (Invalid|Program hit|.*Access to|.*Malloc/Free)' | grep -v cuFuncGetParamInfo | head -6)
    echo "== $(basename "$exe") exit $rc, $(echo "$log" | grep -m1 -o 'ERROR SUMMARY: .*')" >>"$report"
    if [ -n "$lines" ] || [ $rc -ne 0 ]; then
        flagged=$((flagged + 1))
        echo "$lines" >>"$report"
    fi
done
echo "$flagged executables with a device-side report or a failing exit" >>"$report"
cat "$report"
