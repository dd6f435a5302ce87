# Shared helpers for the scripts; sourced, not run.
say() { printf 'omprt: %s\n' "$*" >&2; }
die() { printf 'omprt: error: %s\n' "$*" >&2; exit 1; }
# progress LABEL N M ITEM: shows "LABEL N/M: ITEM" in place of the last such
# line when stderr is a terminal and CI is unset (xtask/src/progress.rs does
# the same for cargo xtask); prints nothing in a log. progress_done clears it.
progress() { if [ -t 2 ] && [ -z "${CI:-}" ]; then printf '\r\033[K%s %s/%s: %s' "$1" "$2" "$3" "$4" >&2; fi; }
progress_done() { if [ -t 2 ] && [ -z "${CI:-}" ]; then printf '\r\033[K' >&2; fi; }
