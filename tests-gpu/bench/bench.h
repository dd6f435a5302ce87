// Shared by the benchmark programs (stream.c, reduce.c, sched.c, generic.c): which
// benchmark to run, sizes and repetitions from the environment, timing, and
// the machine-readable result line
//
//   bench <name> <seconds_per_rep> <valid 0/1> <bytes_per_rep>
//
// (bytes_per_rep is 0 where a bandwidth makes no sense). Each benchmark runs
// its kernel BENCH_WARMUP times (default 3), then BENCH_REPS times (default
// 20) timed with omp_get_wtime on the host, then validates the result.
// The same sources build with clang 22 + omprt, clang 19 + LLVM 19's device
// runtime and GCC 12 (nvptx offloading); see scripts/bench-bundle.sh.
#ifndef BENCH_H
#define BENCH_H
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bench_env(const char *name, int dflt) {
  const char *s = getenv(name);
  return s && *s ? atoi(s) : dflt;
}

static int bench_reps(void) { return bench_env("BENCH_REPS", 20); }
static int bench_warmup(void) { return bench_env("BENCH_WARMUP", 3); }
// Problem sizes are powers of two; BENCH_SHRINK (default 0) divides every
// size by 2^BENCH_SHRINK for a quick host-fallback check.
static long bench_size(int log2) {
  int shrink = bench_env("BENCH_SHRINK", 0);
  return 1L << (log2 > shrink + 6 ? log2 - shrink : 6);
}

// Without an argument every benchmark of the program runs; otherwise only
// the one named (run.sh runs one at a time so that a kernel that traps loses
// only its own line).
static int bench_wanted(int argc, char **argv, const char *name) {
  return argc < 2 || strcmp(argv[1], "all") == 0 || strcmp(argv[1], name) == 0;
}

static void bench_report(const char *name, double seconds_per_rep, int valid, double bytes_per_rep) {
  printf("bench %s %.9f %d %.0f\n", name, seconds_per_rep, valid, bytes_per_rep);
  fflush(stdout);
}

// Runs STMT warmup times, then reps times; sets *SECONDS to the time per rep.
#define BENCH_TIME(SECONDS, STMT)                                                                                 \
  do {                                                                                                            \
    int bench_w_ = bench_warmup(), bench_r_ = bench_reps();                                                       \
    for (int bench_i_ = 0; bench_i_ < bench_w_; ++bench_i_) {                                                     \
      STMT;                                                                                                       \
    }                                                                                                             \
    double bench_t0_ = omp_get_wtime();                                                                           \
    for (int bench_i_ = 0; bench_i_ < bench_r_; ++bench_i_) {                                                     \
      STMT;                                                                                                       \
    }                                                                                                             \
    *(SECONDS) = (omp_get_wtime() - bench_t0_) / (bench_r_ > 0 ? bench_r_ : 1);                                   \
  } while (0)

static void *bench_alloc(size_t bytes) {
  void *p = malloc(bytes);
  if (!p) {
    fprintf(stderr, "bench: cannot allocate %zu bytes\n", bytes);
    exit(2);
  }
  return p;
}

#endif
