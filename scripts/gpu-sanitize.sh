#!/usr/bin/env bash
# compute-sanitizer on the GPU machine. Copied into .gpu-bundle/sanitize.sh
# by scripts/gpu-bundle.sh. Two modes:
#
# sanitize.sh [LEVEL]   memcheck over one build level of the corpus (O0, O2,
#   O0lto or O2lto; default O2). Writes ${OUT:-.}/gpu-memcheck-<level>.txt:
#   per executable its exit status and memcheck's error count, and the report
#   lines that name an invalid access or a failing CUDA call, except
#   libomptarget 22's cuFuncGetParamInfo calls, which fail on every kernel it
#   loads and say nothing about the device code.
#
# sanitize.sh --all [--tools memcheck,racecheck,synccheck,initcheck]
#   [--levels O0,O2] [--conformance FILE] [--budget S] [--timeout S]
#   [--jobs N] [--shard I/N]
#   every tool over every corpus executable of those levels (but the
#   programs expected to fail, *.expected-failure) and every conformance
#   test that passed (FILE: the folders conformance.sh listed in
#   conformance-passing.txt; tests whose RUN lines expect a failure, `not`,
#   are left out), --jobs at a time, none started after --budget seconds
#   (default 300), each run at most --timeout seconds (default 120).
#   --shard I/N takes every Nth (tool, executable) pair from the Ith, so that
#   several GPU sessions can share the work. CUDA API errors are not
#   counted (--report-api-errors no: libomptarget 22's cuFuncGetParamInfo
#   calls fail on every kernel): the counts are the device code's.
#   Writes ${OUT:-.}/sanitize-<tool>.txt (per executable: exit status, errors,
#   the first report lines) and ${OUT:-.}/sanitizers.txt (per tool: run, not
#   run, with errors, errors), also when stopped or out of budget.
#
# Without a GPU or the sanitizer it says so and exits 0.
set -uo pipefail
ulimit -c 0
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}
# gpu_missing, unpack_bundle: unpack.sh in the bundle, gpu-unpack.sh in scripts/
if [ -f "$here/unpack.sh" ]; then . "$here/unpack.sh"; else . "$here/gpu-unpack.sh"; fi
cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null || true)}

# --one LOGDIR DEADLINE TIMEOUT TOOL KIND PATH: one run (xargs calls back).
if [ "${1:-}" = --one ]; then
    logdir=$2 deadline=$3 timeout_s=$4 tool=$5 kind=$6 path=$7
    name=$(echo "$path" | sed 's|.*/corpus/||; s|.*/conformance/||; s|/|:|g')
    base="$logdir/$tool/$name"
    if [ "$(date +%s)" -ge "$deadline" ]; then echo budget >"$base.rc"; exit 0; fi
    mkdir -p "$(dirname "$base")"
    if [ "$kind" = exe ]; then
        (cd "$(dirname "$path")" && timeout -k 5 "$timeout_s" "$cs" --tool "$tool" --report-api-errors no --print-limit 10 \
            --log-file "$base.%p.log" "$path" >"$base.out" 2>&1)
    else
        timeout -k 5 "$timeout_s" "$cs" --tool "$tool" --report-api-errors no --print-limit 10 --target-processes all \
            --log-file "$base.%p.log" bash "$path/gpu.sh" >"$base.out" 2>&1
    fi
    echo $? >"$base.rc"
    exit 0
fi

if [ "${1:-}" != --all ]; then
    level=${1:-O2}
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
    exit 0
fi

shift
tools=memcheck,racecheck,synccheck,initcheck
levels=O0,O2
passing=""
budget=300
timeout_s=120
jobs=$(( $(nproc) < 4 ? $(nproc) : 4 ))
shard=0/1
while [ $# -gt 0 ]; do
    case "$1" in
        --tools) tools=$2 ;;
        --levels) levels=$2 ;;
        --conformance) passing=$2 ;;
        --budget) budget=$2 ;;
        --timeout) timeout_s=$2 ;;
        --jobs) jobs=$2 ;;
        --shard) shard=$2 ;;
        *) echo "sanitize.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift 2
done
if gpu_missing || [ -z "$cs" ]; then
    echo "omprt: no NVIDIA GPU or compute-sanitizer found: skipping the sanitizers"
    exit 0
fi
[ -f "$here/libs.tar.xz" ] && unpack_bundle
start=$(date +%s)
deadline=$((start + budget))
logdir=$(mktemp -d)

# The executables: corpus files of the levels (not those expected to fail),
# then the passing conformance folders of the levels whose RUN lines do not
# expect a failure.
items=()
for level in ${levels//,/ }; do
    for exe in "${corpus:-/nonexistent}"/*."$level"; do
        [ -f "$exe" ] || continue
        stem=$(basename "$exe"); stem=${stem%.*}
        [ -f "$corpus/$stem.expected-failure" ] && continue
        items+=("exe $exe")
    done
done
if [ -n "$passing" ] && [ -f "$passing" ]; then
    while IFS= read -r dir; do
        level=$(basename "$(dirname "$dir")")
        [[ ",$levels," == *",$level,"* ]] || continue
        grep -qE '(^|[ ({;&|])not ' "$dir/gpu.sh" && continue
        items+=("dir $dir")
    done <"$passing"
fi
pairs=()
for item in "${items[@]}"; do
    for tool in ${tools//,/ }; do pairs+=("$tool $item"); done
done
mine=()
i=0
for p in "${pairs[@]}"; do
    [ $((i % ${shard#*/})) -eq "${shard%/*}" ] && mine+=("$p")
    i=$((i + 1))
done

finished=0
finish() {
    [ "$finished" = 1 ] && return
    finished=1
    local summary="$out/sanitizers.txt" tool p kind path name base rc errors lines ran notrun flagged total timeouts
    {
        echo "# compute-sanitizer over the corpus and the passing conformance tests"
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
        echo "sanitizer: $("$cs" --version 2>/dev/null | grep -m1 -i version)"
        echo "levels: $levels; shard $shard; ${#mine[@]} of ${#pairs[@]} (tool, executable) pairs; budget ${budget}s; took $(( $(date +%s) - start ))s"
    } >"$summary"
    for tool in ${tools//,/ }; do
        local report="$out/sanitize-$tool.txt"
        : >"$report"
        ran=0 notrun=0 flagged=0 total=0 timeouts=0
        for p in "${mine[@]}"; do
            read -r t kind path <<<"$p"
            [ "$t" = "$tool" ] || continue
            name=$(echo "$path" | sed 's|.*/corpus/||; s|.*/conformance/||; s|/|:|g')
            base="$logdir/$tool/$name"
            rc=$(cat "$base.rc" 2>/dev/null || echo none)
            if [ "$rc" = budget ] || [ "$rc" = none ]; then
                notrun=$((notrun + 1))
                echo "== $name not run (budget)" >>"$report"
                continue
            fi
            ran=$((ran + 1))
            [ "$rc" = 124 ] && timeouts=$((timeouts + 1))
            errors=$(cat "$base".*.log 2>/dev/null | grep -o 'ERROR SUMMARY: [0-9]*' | awk '{s += $3} END {print s + 0}')
            total=$((total + errors))
            echo "== $name exit $rc, errors $errors" >>"$report"
            if [ "$errors" -gt 0 ]; then
                flagged=$((flagged + 1))
                cat "$base".*.log | grep -E '^========= ' | grep -vE 'ERROR SUMMARY|COMPUTE-SANITIZER|^========= *$' | head -8 >>"$report"
            fi
        done
        echo "$tool: $ran run, $notrun not run (budget), $flagged with reports, $total errors, $timeouts timed out (sanitize-$tool.txt)" >>"$summary"
    done
    cat "$summary"
}
trap finish EXIT
# As in conformance.sh: xargs in the background, so that a TERM is handled at once.
runner=""
trap '[ -n "$runner" ] && kill "$runner" 2>/dev/null; exit 130' INT TERM
echo "omprt: ${#mine[@]} sanitizer runs, $jobs at a time (budget ${budget}s)" >&2
printf '%s\n' "${mine[@]}" | while read -r tool kind path; do printf '%s\0%s\0%s\0' "$tool" "$kind" "$path"; done |
    xargs -0 -n 3 -P "$jobs" bash "$0" --one "$logdir" "$deadline" "$timeout_s" &
runner=$!
wait "$runner"
