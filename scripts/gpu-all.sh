#!/usr/bin/env bash
# One GPU session's work, in one command (copied into .gpu-bundle/all.sh by
# scripts/gpu-bundle.sh): the corpus (run.sh), the conformance tests
# (conformance.sh, where the bundle has them), then compute-sanitizer's four
# tools over the corpus and the passing conformance tests at -O0 and -O2
# (sanitize.sh --all) with the time left. Each stage has its own time limit
# and writes its results into ${OUT:-.} as it ends, so a stage cut short
# still leaves the others' files.
#
# Usage: bash all.sh [BUDGET_SECONDS] [sanitize.sh --all options ...]
#   BUDGET_SECONDS (default 480) is the whole run's; the corpus gets at most
#   150 s, the conformance run at most half of what is left, and the
#   sanitizers what remains then, less 20 s to write the results.
#   SANITIZE=0 leaves the sanitizers out.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export OUT=${OUT:-$here}
budget=${1:-480}
[ $# -gt 0 ] && shift
start=$(date +%s)
left() { echo $((budget - ($(date +%s) - start))); }
# gpu_missing: unpack.sh in the bundle, gpu-unpack.sh in scripts/
if [ -f "$here/unpack.sh" ]; then . "$here/unpack.sh"; else . "$here/gpu-unpack.sh"; fi
if gpu_missing; then
    echo "omprt: no NVIDIA GPU found: nothing to run"
    exit 0
fi
run=$here/run.sh; [ -f "$run" ] || run=$here/gpu-run.sh
conformance=$here/conformance.sh; [ -f "$conformance" ] || conformance=$here/gpu-conformance.sh
sanitize=$here/sanitize.sh; [ -f "$sanitize" ] || sanitize=$here/gpu-sanitize.sh

echo "== corpus ($(left) s left)"
timeout -k 5 150 bash "$run" >"$OUT/all-corpus.log" 2>&1
tail -n 1 "$OUT/gpu-summary.txt" 2>/dev/null

if [ -f "$here/conformance.tar.xz" ] || [ ! -f "$here/unpack.sh" ]; then
    share=$(( $(left) / 2 ))
    echo "== conformance ($(left) s left, ${share} s for it)"
    # No test starts in the last 70 s and none runs past 60 s, so the
    # script ends and writes its results within its share (the outer
    # timeout is a safety net).
    timeout -k 5 "$share" bash "$conformance" --timeout 60 --budget $((share - 70 > 10 ? share - 70 : 10)) \
        >"$OUT/all-conformance.log" 2>&1
    tail -n 1 "$OUT/conformance.txt" 2>/dev/null
fi

if [ "${SANITIZE:-1}" != 0 ]; then
    rest=$(( $(left) - 20 ))
    if [ "$rest" -gt 120 ]; then
        echo "== sanitizers ($rest s)"
        # As above: nothing starts in the last 100 s, no run lasts past 90 s.
        timeout -k 5 "$rest" bash "$sanitize" --all --timeout 90 --budget $((rest - 100)) \
            --conformance "$OUT/conformance-passing.txt" "$@" >"$OUT/all-sanitize.log" 2>&1
        grep -E '^(memcheck|racecheck|synccheck|initcheck):' "$OUT/sanitizers.txt" 2>/dev/null
    else
        echo "== sanitizers: no time left"
    fi
fi
echo "== done in $(( $(date +%s) - start )) s; results in $OUT"
