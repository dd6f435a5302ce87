# Shared helpers for the scripts; sourced, not run.
say() { printf 'omprt: %s\n' "$*" >&2; }
die() { printf 'omprt: error: %s\n' "$*" >&2; exit 1; }
