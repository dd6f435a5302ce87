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
#
# BENCH_PARTS (default "core launch grid babelstream") picks the parts:
#   core         the benchmarks above, with ncu's kernel times
#   grid         grid.c's Triad under num_teams/thread_limit clauses, in the
#                same table (wall time per rep only)
#   launch       launch.c's empty SPMD and generic kernels with each runtime
#                and launch.cu's empty CUDA kernel: time per launch from the
#                host, and the kernel's own with ncu
#   babelstream  BabelStream's OpenMP model with each runtime and its CUDA
#                model, interleaved, doubles and floats (BABELSTREAM_ROUNDS,
#                default 3; BABELSTREAM_REPS, default 100, BabelStream's own
#                -n): GB/s per kernel, the ratio to CUDA, and the
#                machine-readable lines
#                  babelstream <build>/cuda: copy R mul R add R triad R dot R
#                (builds omprt, omprt-lto, llvm19, gcc12; doubles; the float
#                lines start "babelstream-float") and
#                  babelstream-gbs <double|float> <build>: copy X ... dot X
#                (GB/s, for `cargo xtask plot`); then the grid variants
#                (environment variables of libomptarget 22, BENCH_GRID_ROUNDS
#                rounds, default 2), each with the grid libomptarget printed.
#                Each run's own output is kept under $OUT/babelstream*/.
# Each part's wall time is in the summary.
#
# bash run.sh --babelstream-report DIR prints the BabelStream part of the
# summary from a folder of BabelStream outputs named <build>.<double|float>.
# <anything>.out (a <same>.rc file holding a non-zero exit status marks a
# failed run); it needs no GPU (the tests feed it BabelStream's real output).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# The median of a space-separated list, for the tables' awk programs.
awk_median='
function median(list,   a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; ++i) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; --j) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'

# One BabelStream run's --csv output (stdin) as lines "build precision
# Kernel GB/s": the column max_<unit>_per_sec (BabelStream's best rep) in
# GB/s. A run without that header or a unit it does not know gives nothing.
babelstream_parse() { # build precision
    awk -F, -v rt="$1" -v prec="$2" '
        $1 == "function" {
            for (i = 1; i <= NF; ++i) if ($i ~ /^max_.*_per_sec$/) { col = i; unit = $i; sub(/^max_/, "", unit); sub(/_per_sec$/, "", unit) }
            scale = unit == "MB" ? 1e-3 : unit == "GB" ? 1 : unit == "TB" ? 1e3 : unit == "MiB" ? 1048576e-9 : unit == "GiB" ? 1073741824e-9 : unit == "TiB" ? 1099511627776e-9 : 0
            next
        }
        col && scale > 0 && NF >= col && $1 ~ /^(Copy|Mul|Add|Triad|Dot|Nstream)$/ && $col ~ /^[0-9.e+]+$/ { printf "%s %s %s %.6f\n", rt, prec, $1, $col * scale }'
}

# The BabelStream tables and machine-readable lines from a folder of runs
# (<build>.<precision>.<tag>.out, and <same>.rc with the exit status).
babelstream_report() { # dir
    local f base rt prec rc
    for f in "$1"/*.out; do
        [ -e "$f" ] || continue
        base=${f##*/}
        rt=${base%%.*}
        prec=${base#*.}
        prec=${prec%%.*}
        case "$rt" in omprt | omprtlto | llvm19 | gcc | cuda) ;; *) continue ;; esac
        case "$prec" in double | float) ;; *) continue ;; esac
        rc=$(cat "${f%.out}.rc" 2>/dev/null || echo 0)
        if [ "$rc" != 0 ]; then
            echo "$rt $prec FAIL $rc"
        elif ! babelstream_parse "$rt" "$prec" <"$f" | grep .; then
            echo "$rt $prec FAIL no-result"
        fi
    done | awk "$awk_median"'
        $3 == "FAIL" { fails[$1 " " $2] = fails[$1 " " $2] " " $4; next }
        { v[$1 " " $2 " " $3] = v[$1 " " $2 " " $3] " " $4 }
        function gbs(rt, prec, k,   key) { key = rt " " prec " " k; return v[key] == "" ? -1 : median(v[key]) }
        function cell(x) { return x < 0 ? "-" : sprintf("%.1f", x) }
        function ratio(a, b) { return (a < 0 || b <= 0) ? "-" : sprintf("%.3f", a / b) }
        END {
            nr = split("omprt omprtlto llvm19 gcc cuda", R, " ")
            split("omprt omprt-lto llvm19 gcc12 cuda", L, " ")
            nk = split("Copy Mul Add Triad Dot", K, " ")
            np = split("double float", P, " ")
            print "BabelStream: GB/s per kernel (median over rounds of each run'"'"'s best rep, BabelStream'"'"'s own figure); ratio: to the CUDA model'"'"'s GB/s"
            for (p = 1; p <= np; ++p) {
                printf "%-7s %9s %9s %9s %9s %9s %11s %9s %12s %9s\n", P[p], "omprt", "LTO", "LLVM19", "GCC", "CUDA", "omprt/CUDA", "LTO/CUDA", "LLVM19/CUDA", "GCC/CUDA"
                for (k = 1; k <= nk; ++k) {
                    line = sprintf("%-7s", K[k])
                    for (r = 1; r <= nr; ++r) line = line sprintf(" %9s", cell(gbs(R[r], P[p], K[k])))
                    c = gbs("cuda", P[p], K[k])
                    line = line sprintf(" %11s %9s %12s %9s", ratio(gbs("omprt", P[p], K[k]), c), ratio(gbs("omprtlto", P[p], K[k]), c), ratio(gbs("llvm19", P[p], K[k]), c), ratio(gbs("gcc", P[p], K[k]), c))
                    print line
                }
            }
            for (key in fails) print "FAILED BabelStream runs " key ":" fails[key]
            for (p = 1; p <= np; ++p)
                for (r = 1; r < nr; ++r) {
                    line = sprintf("babelstream%s %s/cuda:", P[p] == "double" ? "" : "-float", L[r])
                    for (k = 1; k <= nk; ++k) line = line " " tolower(K[k]) " " ratio(gbs(R[r], P[p], K[k]), gbs("cuda", P[p], K[k]))
                    print line
                }
            for (p = 1; p <= np; ++p)
                for (r = 1; r <= nr; ++r) {
                    line = sprintf("babelstream-gbs %s %s:", P[p], L[r])
                    for (k = 1; k <= nk; ++k) line = line " " tolower(K[k]) " " cell(gbs(R[r], P[p], K[k]))
                    print line
                }
        }'
}

if [ "${1:-}" = --babelstream-report ]; then
    [ -d "${2:-}" ] || { echo "omprt bench: --babelstream-report needs a folder of BabelStream outputs" >&2; exit 2; }
    babelstream_report "$2"
    exit 0
fi
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
parts=" ${BENCH_PARTS:-core launch grid babelstream} "
part() { [[ "$parts" == *" $1 "* ]]; }
core_benches="stream:copy stream:dot reduce:minmax reduce:teams_sum sched:dynamic1_uneven sched:guided_uneven sched:static_uneven sched:scale_static1 sched:scale_static generic:generic_scale generic:generic_scale_few"
grid_benches="grid:triad grid:triad_teams_max grid:triad_teams_cuda grid:triad_threads_256 grid:triad_threads_1024"
benches=
ncu_benches=
if part core; then benches="$core_benches"; ncu_benches="$core_benches"; fi
if part grid; then benches="$benches $grid_benches"; fi
launch_benches="launch:empty_spmd launch:empty_generic"
runtimes="omprt omprtlto llvm19 gcc"
raw="$out/bench-raw.txt"
: >"$raw"
timings=
part_start=$SECONDS
part_done() { timings="$timings $1 $((SECONDS - part_start)) s;"; part_start=$SECONDS; }

# LLVM 19's dispatch allocates a record per thread from the device heap: with
# CUDA's default 8 MiB, sched.c's dynamic and guided kernels (262144 threads)
# run out, and the record write faults (compute-sanitizer: a write to 0x28).
llvm19_heap=$((1 << 30))
heap_for() { [ "$1" = llvm19 ] && echo "LIBOMPTARGET_HEAP_SIZE=$llvm19_heap"; }
# The host libraries of a runtime's build: both omprt builds run on clang
# 22's; the CUDA programs need none of them.
host_libs_of() {
    case "$1" in
        omprt*) echo "$libs/lib/omprt:$libs/lib/common" ;;
        llvm19*) echo "$libs/lib/llvm19:$libs/lib/common" ;;
        gcc*) echo "$libs/lib/gcc:$libs/lib/common" ;;
        *) echo "$libs/lib/common" ;;
    esac
}

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
[ -n "$benches" ] && part_done "core+grid (wall)"

if part launch; then
    for r in $(seq "$rounds"); do
        for b in $launch_benches; do
            for rt in $runtimes cuda; do
                run_one "$rt" "${b%%:*}" "${b##*:}"
            done
        done
    done
    part_done "launch (wall)"
fi

# BabelStream: every build in turn, doubles then floats, BABELSTREAM_ROUNDS
# times; each run's output is kept in $out/babelstream/.
bs_dir="$out/babelstream"
bs_grid_dir="$out/babelstream-grid"
bs_reps=${BABELSTREAM_REPS:-100}
bs_size=()
[ $host_fallback = 1 ] && bs_size=(-s $((1 << 19)))
run_babelstream() { # build precision tag dir [VAR=VALUE...] -> dir/build.precision.tag.{out,err,rc}
    local rt=$1 prec=$2 tag=$3 dir=$4 exe="$here/bin/babelstream.$1" float=()
    shift 4
    [ -x "$exe" ] || return 0
    [ "$prec" = float ] && float=(--float)
    local base="$dir/$rt.$prec.$tag" offload=(OMP_TARGET_OFFLOAD=MANDATORY)
    [ $host_fallback = 1 ] && offload=()
    env $(heap_for "$rt") "${offload[@]}" LD_LIBRARY_PATH="$(host_libs_of "$rt")" "$@" timeout "$limit" \
        "$exe" --csv -n "$bs_reps" "${bs_size[@]}" "${float[@]}" >"$base.out" 2>"$base.err"
    echo $? >"$base.rc"
    # BabelStream's CUDA model exits on an NVML error (it reads the memory
    # clock for its banner): once more with the bundle's NVML stand-in.
    if [ "$rt" = cuda ] && [ "$(cat "$base.rc")" != 0 ] && grep -q 'NVML Error' "$base.err" "$base.out"; then
        echo "note: the driver's NVML failed ($(grep -m1 -h 'NVML Error' "$base.err" "$base.out")); run again with lib/nvml-fallback" >>"$dir/notes.txt"
        env LD_LIBRARY_PATH="$here/lib/nvml-fallback" "$@" timeout "$limit" \
            "$exe" --csv -n "$bs_reps" "${bs_size[@]}" "${float[@]}" >"$base.out" 2>"$base.err"
        echo $? >"$base.rc"
    fi
}
# libomptarget 22's knobs of the grid (docs/performance-babelstream.md, "The
# grid"): build|name|VAR=VALUE..., doubles; the default first. The names go
# into file names: letters, digits and underscores only.
bs_grid_variants="omprt|default|
omprt|omp_num_teams_1056|OMP_NUM_TEAMS=1056
omprt|omp_num_teams_65536|OMP_NUM_TEAMS=65536
omprt|omp_teams_thread_limit_64|OMP_TEAMS_THREAD_LIMIT=64
omprt|omp_teams_thread_limit_1024|OMP_TEAMS_THREAD_LIMIT=1024
omprt|reuse_blocks_false|LIBOMPTARGET_REUSE_BLOCKS_FOR_HIGH_TRIP_COUNT=false
omprtlto|reuse_blocks_false|LIBOMPTARGET_REUSE_BLOCKS_FOR_HIGH_TRIP_COUNT=false
omprtwp|default|
omprtwp|reuse_blocks_false|LIBOMPTARGET_REUSE_BLOCKS_FOR_HIGH_TRIP_COUNT=false
llvm19|default|
llvm19|reuse_blocks_false|LIBOMPTARGET_REUSE_BLOCKS_FOR_HIGH_TRIP_COUNT=false"
if part babelstream; then
    mkdir -p "$bs_dir" "$bs_grid_dir"
    for r in $(seq "${BABELSTREAM_ROUNDS:-$rounds}"); do
        for prec in double float; do
            for rt in omprt omprtlto llvm19 gcc cuda; do
                run_babelstream "$rt" "$prec" "r$r" "$bs_dir"
            done
        done
    done
    part_done "babelstream"
    for r in $(seq "${BENCH_GRID_ROUNDS:-2}"); do
        while IFS='|' read -r rt name vars; do
            # shellcheck disable=SC2086 # VAR=VALUE words
            run_babelstream "$rt" double "$name.r$r" "$bs_grid_dir" $vars
        done <<<"$bs_grid_variants"
    done
    # The grid libomptarget chose, from its own report (LIBOMPTARGET_INFO=16)
    # of one short run per variant.
    while IFS='|' read -r rt name vars; do
        exe="$here/bin/babelstream.$rt"
        [ -x "$exe" ] && [ $host_fallback = 0 ] || continue
        # shellcheck disable=SC2086 # VAR=VALUE words
        grid=$(env $(heap_for "$rt") OMP_TARGET_OFFLOAD=MANDATORY LIBOMPTARGET_INFO=16 LD_LIBRARY_PATH="$(host_libs_of "$rt")" $vars \
            timeout "$limit" "$exe" --csv -n 2 --only Copy 2>&1 | grep -m1 -o 'Launching kernel .*copy.* with .*' | sed 's/.* with /with /')
        echo "$rt $name ${grid:-(no launch report)}" >>"$bs_grid_dir/grids.txt"
    done <<<"$bs_grid_variants"
    part_done "babelstream grid variants"
fi


# Kernel time alone (no host runtime's launch cost), when CUDA's profiler is
# there (BENCH_NCU=0 skips it): ncu's gpu__time_duration of each launch of
# one process per benchmark and runtime (1 warm-up + 10 reps), median.
ncu_table="$out/bench-ncu.txt"
: >"$ncu_table"
ncu=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
ncu_raw="$out/bench-ncu-raw.txt"
ncu_launch_table="$out/bench-ncu-launch.txt"
: >"$ncu_launch_table"
ncu_collect() { # benches runtimes
    local b rt exe
    for b in $1; do
        for rt in $2; do
            exe="$here/bin/${b%%:*}.$rt"
            [ -x "$exe" ] || continue
            env $(heap_for "$rt") BENCH_REPS=10 BENCH_WARMUP=1 OMP_TARGET_OFFLOAD=MANDATORY \
                LD_LIBRARY_PATH="$(host_libs_of "$rt")" timeout "$limit" \
                "$ncu" --metrics gpu__time_duration.sum --csv --print-units base "$exe" "${b##*:}" 2>/dev/null \
                | awk -F'","' -v rt="$rt" -v b="${b##*:}" '$13 == "gpu__time_duration.sum" { v = $15; gsub(/[",]/, "", v); print rt, b, v }' >>"$ncu_raw"
        done
    done
}
if [ $host_fallback = 0 ] && [ "${BENCH_NCU:-1}" != 0 ] && [ -n "$ncu" ]; then
    : >"$ncu_raw"
    ncu_collect "$ncu_benches" "$runtimes"
    if part launch; then ncu_collect "$launch_benches" "$runtimes cuda"; fi
    awk "$awk_median"'
        { t[$1 " " $2] = t[$1 " " $2] " " $3 }
        function us(k) { return t[k] == "" ? "-" : sprintf("%.2f", median(t[k]) / 1000) }
        END {
            print "launch cost, kernel alone (ncu gpu__time_duration, us, median of 1 warm-up + 10 launches; 3200 teams x 128 threads)"
            printf "%-14s %9s %9s %9s %9s %9s\n", "kernel", "omprt", "LTO", "LLVM19", "GCC", "CUDA"
            n = split("empty_spmd empty_generic", B, " ")
            for (i = 1; i <= n; ++i)
                printf "%-14s %9s %9s %9s %9s %9s\n", B[i], us("omprt " B[i]), us("omprtlto " B[i]), us("llvm19 " B[i]), us("gcc " B[i]), us("cuda " B[i])
        }' "$ncu_raw" >"$ncu_launch_table"
    part_done "ncu"
    awk -v benches="$ncu_benches" "$awk_median"'
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
    echo "parts:$parts(wall time:$timings)"
    echo
    [ -n "$benches" ] && awk -v benches="$benches" -v runtimes="$runtimes" "$awk_median"'
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
    if part launch; then
        echo
        awk "$awk_median"'
            /^#/ || $6 != 0 { next }
            $2 ~ /^empty_/ { t[$1 " " $2] = t[$1 " " $2] " " $3 }
            function us(k) { return t[k] == "" ? "-" : sprintf("%.2f", median(t[k]) * 1e6) }
            END {
                print "launch cost, host view (us per launch: launch, kernel and wait, median of the rounds; 3200 teams x 128 threads)"
                printf "%-14s %9s %9s %9s %9s %9s\n", "kernel", "omprt", "LTO", "LLVM19", "GCC", "CUDA"
                n = split("empty_spmd empty_generic", B, " ")
                for (i = 1; i <= n; ++i)
                    printf "%-14s %9s %9s %9s %9s %9s\n", B[i], us("omprt " B[i]), us("omprtlto " B[i]), us("llvm19 " B[i]), us("gcc " B[i]), us("cuda " B[i])
            }' "$raw"
        [ -s "$ncu_launch_table" ] && { echo; cat "$ncu_launch_table"; }
        echo "(CUDA: launch.cu's empty kernel under both names)"
    fi
    if part babelstream && [ -d "$bs_dir" ]; then
        echo
        echo "BabelStream 5.0 ($(sed -n 's/^babelstream: //p' "$here/BUILD.txt" | cut -d';' -f1)), 2^25 elements${bs_size[*]:+ (host fallback: ${bs_size[*]})}, -n $bs_reps, ${BABELSTREAM_ROUNDS:-$rounds} rounds interleaved (omprt LTO LLVM19 GCC CUDA, doubles then floats)"
        babelstream_report "$bs_dir"
        [ -s "$bs_dir/notes.txt" ] && cat "$bs_dir/notes.txt"
        echo
        echo "BabelStream grid variants (doubles, GB/s, median of ${BENCH_GRID_ROUNDS:-2} rounds; grid: libomptarget's LIBOMPTARGET_INFO report for Copy)"
        printf "%-9s %-28s %8s %8s %8s %8s %8s   %s\n" build variant copy mul add triad dot "grid, environment"
        while IFS='|' read -r rt name vars; do
            [ -x "$here/bin/babelstream.$rt" ] || continue
            for f in "$bs_grid_dir/$rt.double.$name".r*.out; do
                [ -e "$f" ] || continue
                if [ "$(cat "${f%.out}.rc" 2>/dev/null)" = 0 ]; then babelstream_parse "$rt" double <"$f"; fi
            done | awk -v rt="$rt" -v name="$name" -v vars="$vars" -v grid="$(awk -v rt="$rt" -v n="$name" '$1 == rt && $2 == n { $1 = ""; $2 = ""; sub(/^ +/, ""); print; exit }' "$bs_grid_dir/grids.txt" 2>/dev/null)" "$awk_median"'
                { v[$3] = v[$3] " " $4 }
                function c(k) { return v[k] == "" ? "FAIL" : sprintf("%.1f", median(v[k])) }
                END { printf "%-9s %-28s %8s %8s %8s %8s %8s   %s\n", rt, name, c("Copy"), c("Mul"), c("Add"), c("Triad"), c("Dot"), (grid == "" ? "-" : grid) (vars == "" ? "" : ", " vars) }'
        done <<<"$bs_grid_variants"
    fi
} >"$summary"
cat "$summary"
