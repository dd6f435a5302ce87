#!/usr/bin/env bash
# Runs the packed corpus on a GPU machine (no clang needed there). Copied into
# .gpu-bundle/run.sh by scripts/gpu-bundle.sh. Writes the summary to
# ${OUT:-.}/gpu-summary.txt. Without a GPU it says so and exits 0.
# A program passes when it exits 0 with its expected output (name.expected,
# or name.<level>.expected for one level), or, where name.expected-failure
# exists, when it fails (a non-zero exit) and its output holds each line of
# that file (the message omprt traps with).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$here}
# gpu_missing, unpack_bundle: unpack.sh in the bundle, gpu-unpack.sh in scripts/
if [ -f "$here/unpack.sh" ]; then . "$here/unpack.sh"; else . "$here/gpu-unpack.sh"; fi
if gpu_missing; then
    echo "omprt: no NVIDIA GPU found: skipping the on-GPU corpus run"
    exit 0
fi
unpack_bundle
device=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
summary="$out/gpu-summary.txt"
{
    echo "# omprt on-GPU corpus run"
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "device: $device"
    echo "host runtime: Debian libomptarget.so.22.1; device runtime: omprt"
} >"$summary"
pass=0; fail=0
for exe in "$corpus"/*.O0 "$corpus"/*.O2 "$corpus"/*.O0lto "$corpus"/*.O2lto; do
    name=$(basename "$exe")
    # A build level's own expected output (name.O0.expected) comes first.
    expected="$corpus/$name.expected"
    [ -f "$expected" ] || expected="$corpus/${name%.*}.expected"
    failure="$corpus/${name%.*}.expected-failure"
    actual=$(timeout 120 "$exe" 2>&1); rc=$?
    if [ -f "$failure" ]; then
        ok=$([ $rc -ne 0 ] && [ $rc -ne 124 ] && echo 1 || echo 0)
        while IFS= read -r want; do
            [ -z "$want" ] || grep -qF -- "$want" <<<"$actual" || ok=0
        done <"$failure"
        if [ "$ok" = 1 ]; then
            echo "PASS $name (fails as expected, exit $rc: $(grep -m1 -F -- "$(head -1 "$failure")" <<<"$actual"))" >>"$summary"; pass=$((pass + 1))
        else
            echo "FAIL $name (expected a failure with: $(tr '\n' '|' <"$failure"); exit $rc): $(echo "$actual" | head -c 600 | tr '\n' '|')" >>"$summary"; fail=$((fail + 1))
        fi
        continue
    fi
    if [ $rc -eq 0 ] && [ "$actual" = "$(cat "$expected")" ]; then
        echo "PASS $name" >>"$summary"; pass=$((pass + 1))
    else
        echo "FAIL $name (exit $rc): $(echo "$actual" | head -c 600 | tr '\n' '|')" >>"$summary"; fail=$((fail + 1))
    fi
done
echo "$pass passed, $fail failed" >>"$summary"
cat "$summary"
