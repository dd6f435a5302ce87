// Loop schedules: `target teams distribute parallel for` and `target parallel
// for` with static (unchunked, 1, 7), dynamic (unchunked, 1, 5), guided
// (unchunked, 3), auto, runtime, nonmonotonic:dynamic,4 and monotonic:dynamic;
// int, unsigned, long and unsigned long long induction variables (the four
// dispatch widths); a negative stride; two dynamic loops in one region (the
// first `nowait`) to exercise re-entrance; a generic-mode `target` region with
// `parallel for schedule(dynamic,2)`; `distribute` with dist_schedule. Every
// loop checks each iteration ran exactly once (atomic counts) and that a
// `lastprivate` variable holds the sequentially last iteration's value --
// except `teams distribute parallel for`, whose lastprivate is checked in
// lastprivate_combined.c (it failed on a GPU until a runtime fix, see that file).
#include <stdio.h>

#define N 1000
#define PRAGMA(...) _Pragma(#__VA_ARGS__)

static int cnt[N], cnt2[N];
// The expected lastprivate of a `teams distribute parallel for`: not checked.
#define COMBINED (-0x7fffffffffffffffLL)
static int failures;

static void reset(int *c) {
  for (int i = 0; i < N; ++i)
    c[i] = 0;
}

// Each of the n entries of c must be 1 and last must equal expect_last.
static void check(const char *what, const int *c, int n, long long last, long long expect_last) {
  if (expect_last == COMBINED)
    expect_last = last; // lastprivate_combined.c checks these

  int bad = 0;
  for (int i = 0; i < n; ++i)
    bad += c[i] != 1;
  if (bad || last != expect_last) {
    printf("%s: %d wrong counts, lastprivate %lld (expected %lld)\n", what, bad, last, expect_last);
    ++failures;
  }
}

// One test per schedule: the same int loop under both combined constructs.
#define SCHEDULE_TEST(fn, ...)                                                                                    \
  static void fn(void) {                                                                                          \
    int last = -1;                                                                                                \
    reset(cnt);                                                                                                   \
    PRAGMA(omp target teams distribute parallel for schedule(__VA_ARGS__) lastprivate(last)                    \
               map(tofrom : cnt, last))                                                                                 \
    for (int i = 0; i < N; ++i) {                                                                                 \
      PRAGMA(omp atomic update)                                                                                   \
      cnt[i] += 1;                                                                                                \
      last = i;                                                                                                   \
    }                                                                                                             \
    check("teams distribute parallel for schedule(" #__VA_ARGS__ ")", cnt, N, last, COMBINED);                     \
    last = -1;                                                                                                    \
    reset(cnt);                                                                                                   \
    PRAGMA(omp target parallel for schedule(__VA_ARGS__) lastprivate(last) map(tofrom : cnt, last))             \
    for (int i = 0; i < N; ++i) {                                                                                 \
      PRAGMA(omp atomic update)                                                                                   \
      cnt[i] += 1;                                                                                                \
      last = i;                                                                                                   \
    }                                                                                                             \
    check("parallel for schedule(" #__VA_ARGS__ ")", cnt, N, last, N - 1);                                      \
  }

SCHEDULE_TEST(static_unchunked, static)
SCHEDULE_TEST(static_1, static, 1)
SCHEDULE_TEST(static_7, static, 7)
SCHEDULE_TEST(dynamic_unchunked, dynamic)
SCHEDULE_TEST(dynamic_1, dynamic, 1)
SCHEDULE_TEST(dynamic_5, dynamic, 5)
SCHEDULE_TEST(guided_unchunked, guided)
SCHEDULE_TEST(guided_3, guided, 3)
SCHEDULE_TEST(auto_, auto)
SCHEDULE_TEST(runtime_, runtime)
SCHEDULE_TEST(nonmonotonic_dynamic_4, nonmonotonic : dynamic, 4)
SCHEDULE_TEST(monotonic_dynamic, monotonic : dynamic)

// The other induction-variable widths and a negative stride.
static void widths_and_strides(void) {
  long long last = -1;
  reset(cnt);
#pragma omp target teams distribute parallel for schedule(dynamic, 3) lastprivate(last) map(tofrom : cnt, last)
  for (unsigned u = 5; u < N + 5; ++u) {
#pragma omp atomic update
    cnt[u - 5] += 1;
    last = u;
  }
  check("unsigned dynamic,3", cnt, N, last, COMBINED);

  long llast = -1;
  reset(cnt);
#pragma omp target parallel for schedule(dynamic) lastprivate(llast) map(tofrom : cnt, llast)
  for (long i = -3000000000L; i < -3000000000L + 3 * N; i += 3) {
#pragma omp atomic update
    cnt[(i + 3000000000L) / 3] += 1;
    llast = i;
  }
  check("long dynamic", cnt, N, llast, -3000000000L + 3 * (N - 1));

  unsigned long long ulast = 0;
  const unsigned long long base = 1ULL << 40;
  reset(cnt);
#pragma omp target teams distribute parallel for schedule(guided) lastprivate(ulast) map(tofrom : cnt, ulast)
  for (unsigned long long u = base; u < base + N; ++u) {
#pragma omp atomic update
    cnt[u - base] += 1;
    ulast = u;
  }
  check("unsigned long long guided", cnt, N, (long long)(ulast - base), COMBINED);

  reset(cnt);
  ulast = 0;
#pragma omp target parallel for schedule(static, 7) lastprivate(ulast) map(tofrom : cnt, ulast)
  for (unsigned long long u = base; u < base + N; ++u) {
#pragma omp atomic update
    cnt[u - base] += 1;
    ulast = u;
  }
  check("unsigned long long static,7", cnt, N, (long long)(ulast - base), N - 1);

  // Negative stride: i = N-1, N-3, ..., 1 (the last iteration is i == 1).
  int nlast = -1;
  reset(cnt);
#pragma omp target teams distribute parallel for schedule(dynamic, 3) lastprivate(nlast) map(tofrom : cnt, nlast)
  for (int i = N - 1; i >= 0; i -= 2) {
#pragma omp atomic update
    cnt[i / 2] += 1;
    nlast = i;
  }
  check("negative stride dynamic,3", cnt, N / 2, nlast, COMBINED);

  nlast = -1;
  reset(cnt);
#pragma omp target parallel for schedule(guided, 2) lastprivate(nlast) map(tofrom : cnt, nlast)
  for (int i = N - 1; i >= 0; i -= 2) {
#pragma omp atomic update
    cnt[i / 2] += 1;
    nlast = i;
  }
  check("negative stride guided,2", cnt, N / 2, nlast, 1);

  nlast = -1;
  reset(cnt);
#pragma omp target parallel for schedule(static) lastprivate(nlast) map(tofrom : cnt, nlast)
  for (int i = N - 1; i >= 0; i -= 2) {
#pragma omp atomic update
    cnt[i / 2] += 1;
    nlast = i;
  }
  check("negative stride static", cnt, N / 2, nlast, 1);
}

// Two dynamic loops in one parallel region, the first without its barrier:
// threads enter the second dispatch while others still drain the first.
static void reentrance(void) {
  int last1 = -1, last2 = -1;
  reset(cnt);
  reset(cnt2);
#pragma omp target parallel map(tofrom : cnt, cnt2, last1, last2)
  {
#pragma omp for schedule(dynamic, 3) nowait lastprivate(last1)
    for (int i = 0; i < N; ++i) {
#pragma omp atomic update
      cnt[i] += 1;
      last1 = i;
    }
#pragma omp for schedule(dynamic, 5) lastprivate(last2)
    for (int i = 0; i < N; ++i) {
#pragma omp atomic update
      cnt2[i] += 1;
      last2 = i;
    }
  }
  check("first of two dynamic loops (nowait)", cnt, N, last1, N - 1);
  check("second of two dynamic loops", cnt2, N, last2, N - 1);

  // The same inside teams: each team runs both loops over its own rows.
  reset(cnt);
  reset(cnt2);
#pragma omp target teams num_teams(4) map(tofrom : cnt, cnt2)
  {
#pragma omp distribute
    for (int row = 0; row < 10; ++row) {
#pragma omp parallel
      {
#pragma omp for schedule(dynamic, 1) nowait
        for (int i = row * (N / 10); i < (row + 1) * (N / 10); ++i) {
#pragma omp atomic update
          cnt[i] += 1;
        }
#pragma omp for schedule(guided)
        for (int i = row * (N / 10); i < (row + 1) * (N / 10); ++i) {
#pragma omp atomic update
          cnt2[i] += 1;
        }
      }
    }
  }
  check("teams: first of two dynamic loops (nowait)", cnt, N, 0, 0);
  check("teams: second of two loops (guided)", cnt2, N, 0, 0);
}

// Generic mode: sequential code around a dynamically scheduled parallel for.
static void generic_dynamic(void) {
  int last = -1, before = 0, after = 0;
  reset(cnt);
#pragma omp target map(tofrom : cnt, last, before, after)
  {
    before = 7;
#pragma omp parallel for schedule(dynamic, 2) lastprivate(last)
    for (int i = 0; i < N; ++i) {
#pragma omp atomic update
      cnt[i] += 1;
      last = i;
    }
    after = last + before;
  }
  check("generic target + parallel for schedule(dynamic,2)", cnt, N, last, N - 1);
  if (after != N - 1 + 7) {
    printf("generic: after=%d\n", after);
    ++failures;
  }
}

// distribute alone with dist_schedule, and combined with a for schedule.
static void distribute(void) {
  int last = -1;
  reset(cnt);
#pragma omp target teams distribute dist_schedule(static, 3) num_teams(8) lastprivate(last) map(tofrom : cnt, last)
  for (int i = 0; i < N; ++i) {
#pragma omp atomic update
    cnt[i] += 1;
    last = i;
  }
  check("teams distribute dist_schedule(static,3)", cnt, N, last, N - 1);

  last = -1;
  reset(cnt);
#pragma omp target teams distribute dist_schedule(static, 2) lastprivate(last) map(tofrom : cnt, last)
  for (int i = 0; i < N; ++i) {
#pragma omp atomic update
    cnt[i] += 1;
    last = i;
  }
  check("teams distribute dist_schedule(static,2)", cnt, N, last, N - 1);

  last = -1;
  reset(cnt);
#pragma omp target teams distribute parallel for dist_schedule(static, 2) schedule(static, 3) lastprivate(last) \
    map(tofrom : cnt, last)
  for (int i = 0; i < N; ++i) {
#pragma omp atomic update
    cnt[i] += 1;
    last = i;
  }
  check("teams distribute parallel for dist_schedule(static,2) schedule(static,3)", cnt, N, last, COMBINED);

  last = -1;
  reset(cnt);
#pragma omp target teams distribute parallel for dist_schedule(static, 64) schedule(dynamic, 4) lastprivate(last) \
    map(tofrom : cnt, last)
  for (int i = 0; i < N; ++i) {
#pragma omp atomic update
    cnt[i] += 1;
    last = i;
  }
  check("teams distribute parallel for dist_schedule(static,64) schedule(dynamic,4)", cnt, N, last, COMBINED);
}

int main(void) {
  static_unchunked();
  static_1();
  static_7();
  dynamic_unchunked();
  dynamic_1();
  dynamic_5();
  guided_unchunked();
  guided_3();
  auto_();
  runtime_();
  nonmonotonic_dynamic_4();
  monotonic_dynamic();
  widths_and_strides();
  reentrance();
  generic_dynamic();
  distribute();
  printf("schedules ok=%d\n", failures == 0);
  return failures != 0;
}
