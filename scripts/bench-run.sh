#!/usr/bin/env bash
# Runs the benchmark bundle on a GPU machine (no compiler needed there).
# Copied into .bench-bundle/run.sh by scripts/bench-bundle.sh.
#
# For BENCH_ROUNDS rounds (default 3), runs every benchmark with every runtime
# in turn (omprt, omprt with -foffload-lto, LLVM 19, GCC: interleaved, so
# drift hits all alike), each in its own process with
# OMP_TARGET_OFFLOAD=MANDATORY; then prints the median time per rep of each,
# the ratios omprt/LLVM19, omprt-LTO/LLVM19 (LLVM 19 is built with LTO too)
# and omprt/GCC (above 1: omprt is slower), GB/s where a benchmark moves a
# known number of bytes, and validity. Writes the table to ${OUT:-bundle}/bench.txt and the raw lines to
# bench-raw.txt. Where CUDA's ncu is found (PATH or /usr/local/cuda/bin), it
# adds each kernel's own time per runtime (BENCH_NCU=0: not). BENCH_REPS /
# BENCH_WARMUP go to the programs; BENCH_TIMEOUT (default 300) bounds each run
# in seconds.
# Without a GPU it says so and exits 0; BENCH_HOST_FALLBACK=1 runs the host
# fallback instead (small sizes; tests the plumbing, measures no GPU runtime).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}
mkdir -p "$out"
rounds=${BENCH_ROUNDS:-3}
limit=${BENCH_TIMEOUT:-300}
host_fallback=0
if ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L >/dev/null 2>&1; then
    if [ "${BENCH_HOST_FALLBACK:-0}" != 1 ]; then
        echo "omprt bench: no NVIDIA GPU found: skipping the benchmarks"
        exit 0
    fi
    host_fallback=1
    export BENCH_SHRINK=${BENCH_SHRINK:-6} BENCH_REPS=${BENCH_REPS:-3} BENCH_WARMUP=${BENCH_WARMUP:-1}
    rounds=${BENCH_ROUNDS:-1}
fi

libs=$(mktemp -d)
trap 'rm -rf "$libs"' EXIT
tar -C "$libs" -xJf "$here/libs.tar.xz" || { echo "omprt bench: cannot unpack libs.tar.xz"; exit 1; }
benches="stream:copy stream:dot reduce:minmax reduce:teams_sum sched:dynamic1_uneven sched:guided_uneven sched:static_uneven sched:scale_static1 sched:scale_static generic:generic_scale generic:generic_scale_few"
runtimes="omprt omprtlto llvm19 gcc"
raw="$out/bench-raw.txt"
: >"$raw"

# LLVM 19's dispatch allocates a record per thread from the device heap: with
# CUDA's default 8 MiB, sched.c's dynamic and guided kernels (262144 threads)
# run out, and the record write faults (compute-sanitizer: a write to 0x28).
llvm19_heap=$((1 << 30))
heap_for() { [ "$1" = llvm19 ] && echo "LIBOMPTARGET_HEAP_SIZE=$llvm19_heap"; }
# The host libraries of a runtime's build: both omprt builds run on clang 22's.
host_libs_of() { echo "$libs/lib/${1%lto}:$libs/lib/common"; }

run_one() { # runtime program bench -> appends "rt bench seconds valid bytes rc" to $raw
    local rt=$1 prog=$2 name=$3 exe="$here/bin/$2.$1" output rc line
    local host_libs
    host_libs=$(host_libs_of "$rt")
    if [ ! -x "$exe" ]; then
        echo "$rt $name - - - notbuilt" >>"$raw"; return
    fi
    if [ $host_fallback = 1 ]; then
        output=$(env -u OMP_TARGET_OFFLOAD LD_LIBRARY_PATH="$host_libs" timeout "$limit" "$exe" "$name" 2>&1); rc=$?
    else
        output=$(env $(heap_for "$rt") OMP_TARGET_OFFLOAD=MANDATORY LD_LIBRARY_PATH="$host_libs" timeout "$limit" "$exe" "$name" 2>&1); rc=$?
    fi
    line=$(echo "$output" | awk -v n="$name" '$1 == "bench" && $2 == n {print $3, $4, $5; exit}')
    if [ $rc -eq 0 ] && [ -n "$line" ]; then
        echo "$rt $name $line 0" >>"$raw"
    else
        echo "$rt $name - 0 - $rc" >>"$raw"
        echo "# $rt $name exit $rc: $(echo "$output" | grep -v '^bench ' | head -c 300 | tr '\n' '|')" >>"$raw"
    fi
}

for r in $(seq "$rounds"); do
    for b in $benches; do
        for rt in $runtimes; do
            run_one "$rt" "${b%%:*}" "${b##*:}"
        done
    done
done

# The median of a space-separated list, for both tables' awk programs.
awk_median='
function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; ++i) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; --j) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'

# Kernel time alone (no host runtime's launch cost), when CUDA's profiler is
# there (BENCH_NCU=0 skips it): ncu's gpu__time_duration of each launch of
# one process per benchmark and runtime (1 warm-up + 10 reps), median.
ncu_table="$out/bench-ncu.txt"
: >"$ncu_table"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
if [ $host_fallback = 0 ] && [ "${BENCH_NCU:-1}" != 0 ] && [ -n "$ncu" ]; then
    ncu_raw="$out/bench-ncu-raw.txt"
    : >"$ncu_raw"
    for b in $benches; do
        for rt in $runtimes; do
            exe="$here/bin/${b%%:*}.$rt"
            [ -x "$exe" ] || continue
            env $(heap_for "$rt") BENCH_REPS=10 BENCH_WARMUP=1 OMP_TARGET_OFFLOAD=MANDATORY \
                LD_LIBRARY_PATH="$(host_libs_of "$rt")" timeout "$limit" \
                "$ncu" --metrics gpu__time_duration.sum --csv --print-units base "$exe" "${b##*:}" 2>/dev/null \
                | awk -F'","' -v rt="$rt" -v b="${b##*:}" '$13 == "gpu__time_duration.sum" { v = $15; gsub(/[",]/, "", v); print rt, b, v }' >>"$ncu_raw"
        done
    done
    awk -v benches="$benches" "$awk_median"'
        { t[$1 " " $2] = t[$1 " " $2] " " $3 }
        function us(k) { return t[k] == "" ? "-" : sprintf("%.1f", median(t[k]) / 1000) }
        function ratio(a, b) { return (t[a] != "" && t[b] != "") ? sprintf("%.4g", median(t[a]) / median(t[b])) : "-" }
        END {
            print "kernel time (ncu gpu__time_duration, median of the launches of one run: 1 warm-up + 10 reps)"
            printf "%-17s %9s %9s %9s %9s %12s %12s %10s\n", "benchmark", "omprt us", "LTO us", "LLVM19 us", "GCC us", "omprt/LLVM19", "LTO/LLVM19", "omprt/GCC"
            nb = split(benches, B, " ")
            for (i = 1; i <= nb; ++i) {
                b = B[i]; sub(/.*:/, "", b)
                printf "%-17s %9s %9s %9s %9s %12s %12s %10s\n", b, us("omprt " b), us("omprtlto " b), us("llvm19 " b), us("gcc " b), ratio("omprt " b, "llvm19 " b), ratio("omprtlto " b, "llvm19 " b), ratio("omprt " b, "gcc " b)
            }
        }' "$ncu_raw" >"$ncu_table"
fi

if [ $host_fallback = 1 ]; then
    device="none (HOST FALLBACK: these times measure the host, not any GPU runtime)"
else
    device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
fi
summary="$out/bench.txt"
{
    echo "# omprt benchmarks: clang 22 + omprt (LTO: with -foffload-lto) vs clang 19 + LLVM 19 DeviceRTL (-foffload-lto) vs GCC 12 (nvptx)"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "device: $device"
    echo "rounds: $rounds (interleaved; median shown), reps per run: ${BENCH_REPS:-20}, warm-up: ${BENCH_WARMUP:-3}${BENCH_SHRINK:+, sizes / 2^$BENCH_SHRINK}"
    echo "LLVM 19 runs with LIBOMPTARGET_HEAP_SIZE=$llvm19_heap (its dynamic/guided loops fault with the default device heap)"
    sed 's/^/build: /' "$here/BUILD.txt" | grep -v '^build: carried'
    echo
    awk -v benches="$benches" -v runtimes="$runtimes" "$awk_median"'
        /^#/ { next }
        {
            key = $1 " " $2
            if ($6 == "notbuilt") { state[key] = "not built"; next }
            if ($6 != 0) { state[key] = "FAIL(" $6 ")"; next }
            times[key] = times[key] " " $3
            bytes[$2] = $5
            if ($4 != 1 && state[key] == "") state[key] = "INVALID"
        }
        function cell(rt, b,   key) {
            key = rt " " b
            if (state[key] != "" && times[key] == "") return state[key]
            if (times[key] == "") return "-"
            med[key] = median(times[key])
            return sprintf("%.3f", med[key] * 1000) (state[key] != "" ? "!" : "")
        }
        function ratio(a, b) { return (a > 0 && b > 0) ? sprintf("%.2f", a / b) : "-" }
        function valid(rt, b,   key) { key = rt " " b; return state[key] == "" && times[key] != "" ? "ok" : (state[key] == "" ? "-" : state[key]) }
        BEGIN { }
        END {
            nb = split(benches, B, " "); nr = split(runtimes, R, " ")
            printf "%-17s %9s %9s %9s %9s %12s %12s %10s   %s\n", "benchmark", "omprt ms", "LTO ms", "LLVM19 ms", "GCC ms", "omprt/LLVM19", "LTO/LLVM19", "omprt/GCC", "valid (omprt LTO LLVM19 GCC)"
            for (i = 1; i <= nb; ++i) {
                b = B[i]; sub(/.*:/, "", b)
                o = cell("omprt", b); t = cell("omprtlto", b); l = cell("llvm19", b); g = cell("gcc", b)
                printf "%-17s %9s %9s %9s %9s %12s %12s %10s   %s %s %s %s\n", b, o, t, l, g, ratio(med["omprt " b], med["llvm19 " b]), ratio(med["omprtlto " b], med["llvm19 " b]), ratio(med["omprt " b], med["gcc " b]), valid("omprt", b), valid("omprtlto", b), valid("llvm19", b), valid("gcc", b)
            }
            printf "\n%-17s %12s %12s %12s %12s\n", "bandwidth", "omprt GB/s", "LTO GB/s", "LLVM19 GB/s", "GCC GB/s"
            for (i = 1; i <= nb; ++i) {
                b = B[i]; sub(/.*:/, "", b)
                if (bytes[b] + 0 <= 0) continue
                line = sprintf("%-17s", b)
                for (j = 1; j <= nr; ++j) {
                    k = R[j] " " b
                    line = line sprintf(" %12s", med[k] > 0 ? sprintf("%.1f", bytes[b] / med[k] / 1e9) : "-")
                }
                print line
            }
        }' "$raw"
    echo
    echo "ms: median time per rep; !: some rounds invalid; FAIL(n): exit status n (124: timeout); failures:"
    grep '^#' "$raw" | sort -u | head -40
    [ -s "$ncu_table" ] && { echo; cat "$ncu_table"; }
} >"$summary"
cat "$summary"
