#!/usr/bin/env bash
# Runs the conformance tests that `cargo xtask conformance` built (LLVM's
# offload tests by default) on a GPU machine: for each test and level its
# RUN lines (gpu.sh: the build steps replaced by their results), with LLVM
# 22's FileCheck and not from the bundle. Copied into
# .gpu-bundle/conformance.sh by scripts/gpu-bundle.sh; docs/conformance.md.
#
# Writes ${OUT:-.}/conformance.txt: one line per test and level
#   PASS <test> <level>
#   FAIL omprt: <test> <level>: <RUN line, first lines of its output>
#   FAIL other: <test> <level>: <whose>: <evidence> (<output>)   (known.tsv)
#   N/A: <test> <level>: <reason>
#   NOT RUN: <test> <level>: the time budget ran out (or: stopped before it finished)
# then a line per level and `summary: P of A applicable tests pass; omprt
# failures F (levels ...)`. The file is written even when the script is
# stopped (TERM, INT) or the budget runs out.
#
# Options: --jobs N (tests at once; default min(8, cores)), --timeout S (per
# test and level; default 120), --budget S (no test starts after S seconds;
# default 360), --levels O0,O2,O2lto, --mandatory (OMP_TARGET_OFFLOAD=
# MANDATORY for every test; by default it is unset, as under lit, and the
# tests that set it themselves do so).
# Without a GPU it says so and exits 0; CONFORMANCE_HOST_FALLBACK=1 runs the
# tests anyway (the host fallback: to test this script, not omprt).
set -uo pipefail
ulimit -c 0 # the tests that crash on purpose (not --crash) leave no core files
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}
jobs=$(( $(nproc) < 8 ? $(nproc) : 8 ))
timeout_s=120
budget=360
levels=O0,O2,O2lto
mandatory=0
while [ $# -gt 0 ]; do
    case "$1" in
        --jobs) jobs=$2; shift 2 ;;
        --timeout) timeout_s=$2; shift 2 ;;
        --budget) budget=$2; shift 2 ;;
        --levels) levels=$2; shift 2 ;;
        --mandatory) mandatory=1; shift ;;
        --one) # internal: run one test folder (xargs calls back)
            dir=$2 deadline=$3
            if [ "$(date +%s)" -ge "$deadline" ]; then echo budget >"$dir/run.rc"; exit 0; fi
            timeout -k 5 "$timeout_s" bash "$dir/gpu.sh" >"$dir/run.log" 2>&1
            echo $? >"$dir/run.rc"
            exit 0 ;;
        *) echo "conformance.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
# gpu_missing, unpack_bundle, unpack_conformance: unpack.sh in the bundle, gpu-unpack.sh in scripts/
if [ -f "$here/unpack.sh" ]; then . "$here/unpack.sh"; else . "$here/gpu-unpack.sh"; fi
if gpu_missing && [ "${CONFORMANCE_HOST_FALLBACK:-0}" != 1 ]; then
    echo "omprt: no NVIDIA GPU found: skipping the conformance run"
    exit 0
fi
if [ -f "$here/libs.tar.xz" ]; then unpack_bundle; fi
unpack_conformance || exit 1
if [ "$mandatory" = 1 ]; then export OMP_TARGET_OFFLOAD=MANDATORY; else unset OMP_TARGET_OFFLOAD; fi
start=$(date +%s)
deadline=$((start + budget))
results="$out/conformance.txt"
device=$( (nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no GPU (host fallback)") | head -1)

wanted_level() { [[ ",$levels," == *",$1,"* ]]; }

# The manifest's rows for the levels asked for: level test folder status xfail detail.
rows=()
while IFS= read -r line; do
    [[ "$line" == \#* || -z "$line" ]] && continue
    IFS=$'\t' read -r level _ <<<"$line"
    wanted_level "$level" && rows+=("$line")
done <"$conf/manifest.tsv"

# First lines of a failed run that say why (errors, omprt's and
# libomptarget's messages, FileCheck's complaint), on one line.
why() {
    local log=$1 picked
    picked=$(grep -m4 -E 'error|Error|omprt:|fatal|Assertion|CHECK|not found|Segmentation|Aborted|omptarget|failed' "$log" | grep -v '^omprt-conformance:')
    [ -n "$picked" ] || picked=$(tail -n 3 "$log")
    echo "$picked" | tr '\n\t' '  ' | cut -c1-400
}

# The known.tsv entry for a run failure: "whose: evidence", or nothing.
known_run_failure() {
    local test=$1 level=$2 log=$3 ktest klevels kstage kmatch kwhose kevidence
    while IFS=$'\t' read -r ktest klevels kstage kmatch kwhose kevidence; do
        [[ "$ktest" == \#* || "$kstage" != run ]] && continue
        if [[ "$ktest" == *'*' ]]; then [[ "$test" == "${ktest%\*}"* ]] || continue; else [ "$test" = "$ktest" ] || continue; fi
        [[ " $klevels " == *" $level "* ]] || continue
        grep -qF -- "$kmatch" "$log" || continue
        echo "$kwhose: $kevidence"
        return 0
    done <"$conf/known.tsv"
    return 1
}

finished=0
finish() {
    [ "$finished" = 1 ] && return
    finished=1
    local line level test dir status xfail detail rc log runline verdict known
    local -A pass=() app=() ours=() other=() notrun=()
    {
        echo "# omprt conformance run: $(head -1 "$conf/suite.txt" 2>/dev/null || echo "lit suite")"
        echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "device: $device"
        echo "host runtime: Debian libomptarget.so.22.1; device runtime: omprt; OMP_TARGET_OFFLOAD=${OMP_TARGET_OFFLOAD:-unset}"
        echo "levels: $levels; jobs $jobs; per-test timeout ${timeout_s}s; budget ${budget}s; took $(( $(date +%s) - start ))s"
    } >"$results"
    for line in "${rows[@]}"; do
        IFS=$'\t' read -r level test dir status xfail detail <<<"$line"
        rc=$(cat "$conf/$dir/run.rc" 2>/dev/null || echo none)
        log="$conf/$dir/run.log"
        if [ "$status" = na ]; then
            echo "N/A: $test $level: $detail"
            continue
        fi
        if [ "$xfail" != - ]; then
            case "$status:$rc" in
                run:0) verdict="ran: passes (XPASS)" ;;
                run:budget|run:none) verdict="not run (budget)" ;;
                run:*) verdict="ran: fails as expected ($(why "$log"))" ;;
                *) verdict="did not build: $detail" ;;
            esac
            echo "N/A: $test $level: XFAIL: $xfail (upstream expects it to fail here); $verdict"
            continue
        fi
        app[$level]=$(( ${app[$level]:-0} + 1 ))
        case "$status" in
            fail-omprt) echo "FAIL omprt: $test $level: did not build: $detail"; ours[$level]=$(( ${ours[$level]:-0} + 1 )); continue ;;
            fail-other) echo "FAIL other: $test $level: did not build: $detail"; other[$level]=$(( ${other[$level]:-0} + 1 )); continue ;;
        esac
        case "$rc" in
            0) echo "PASS $test $level"; pass[$level]=$(( ${pass[$level]:-0} + 1 )) ;;
            budget) echo "NOT RUN: $test $level: the time budget ran out"; notrun[$level]=$(( ${notrun[$level]:-0} + 1 )) ;;
            none) echo "NOT RUN: $test $level: stopped before it finished"; notrun[$level]=$(( ${notrun[$level]:-0} + 1 )) ;;
            *)
                runline=$(grep -m1 -o 'RUN line [0-9]* (line [0-9]* of the test)' "$log" 2>/dev/null)
                [ "$rc" = 124 ] && runline="timed out after ${timeout_s}s${runline:+ in $runline}"
                if known=$(known_run_failure "$test" "$level" "$log"); then
                    echo "FAIL other: $test $level: $known (${runline:-exit $rc}: $(why "$log"))"
                    other[$level]=$(( ${other[$level]:-0} + 1 ))
                else
                    echo "FAIL omprt: $test $level: ${runline:-exit $rc}, exit $rc: $(why "$log")"
                    ours[$level]=$(( ${ours[$level]:-0} + 1 ))
                fi ;;
        esac
    done >>"$results"
    local p=0 a=0 f=0 n=0 flevels=()
    for level in ${levels//,/ }; do
        echo "level $level: ${pass[$level]:-0} of ${app[$level]:-0} applicable pass; omprt failures ${ours[$level]:-0}, other failures ${other[$level]:-0}, not run ${notrun[$level]:-0}" >>"$results"
        p=$((p + ${pass[$level]:-0})); a=$((a + ${app[$level]:-0})); f=$((f + ${ours[$level]:-0})); n=$((n + ${notrun[$level]:-0}))
        [ "${ours[$level]:-0}" -gt 0 ] && flevels+=("$level")
    done
    local where=""
    [ ${#flevels[@]} -gt 0 ] && where=" (levels ${flevels[*]})"
    local unrun=""
    [ "$n" -gt 0 ] && unrun="; not run (budget or stopped) $n"
    echo "summary: $p of $a applicable tests pass; omprt failures $f$where$unrun" >>"$results"
    # The passing tests at each level, for the sanitizer stage (gpu-sanitize.sh --conformance).
    for line in "${rows[@]}"; do
        IFS=$'\t' read -r level test dir status xfail detail <<<"$line"
        [ "$status" = run ] && [ "$xfail" = - ] && [ "$(cat "$conf/$dir/run.rc" 2>/dev/null)" = 0 ] && echo "$conf/$dir"
    done >"$out/conformance-passing.txt"
    cat "$results"
}
trap finish EXIT
# xargs runs in the background so that a TERM (an outer timeout) is handled
# at once: stop starting tests, write the results from what has finished.
runner=""
trap '[ -n "$runner" ] && kill "$runner" 2>/dev/null; exit 130' INT TERM

dirs=()
for line in "${rows[@]}"; do
    IFS=$'\t' read -r level test dir status xfail detail <<<"$line"
    [ "$status" = run ] || continue
    dirs+=("$conf/$dir")
    rm -f "$conf/$dir/run.rc" "$conf/$dir/run.log"
done
echo "omprt: running ${#dirs[@]} conformance builds, $jobs at a time (budget ${budget}s)" >&2
printf '%s\n' "${dirs[@]}" | xargs -P "$jobs" -I{} bash "$0" --timeout "$timeout_s" --one {} "$deadline" &
runner=$!
wait "$runner"
