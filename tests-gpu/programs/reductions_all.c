// Reductions with every operator clang emits (+, *, min, max, &, |, ^, &&, ||)
// on int, long, float and double (the bitwise ones on the integer types only),
// in `target teams distribute parallel for num_teams(64)` (the teams
// reduction across many teams) and in `target parallel for num_threads(45)`
// (a partial warp), one kernel per type. Checked against the same loop run
// sequentially on the host: exactly for integers, to a relative 1e-9 for
// double and 1e-4 for float. The data make every operator depend on a few
// specific iterations (a single zero for &&, a single nonzero for ||, a few
// cleared/set bits), so a lost partial result changes the answer.
#include <math.h>
#include <stdio.h>

#define N 10000
#define PRAGMA(...) _Pragma(#__VA_ARGS__)

static int failures;

// Inputs, a function of the iteration only.
static inline unsigned mix(int i) { return (unsigned)i * 7919u % 2001u; }
static inline int i_val(int i) { return (int)mix(i) - 1000; }
static inline int i_fac(int i) { return i % 1000 == 17 ? 2 : (i % 3 == 0 ? -1 : 1); }
static inline int i_and(int i) { return i % 997 == 0 ? ~(1 << (i % 29)) : ~0; }
static inline int i_or(int i) { return i % 1009 == 5 ? 1 << (i % 31) : 0; }
static inline int i_xor(int i) { return (int)((unsigned)i * 2654435761u); }
static inline long l_val(int i) { return (long)mix(i) * 3000000007L - 3000000000000L; }
static inline long l_fac(int i) { return i % 500 == 7 ? 3 : (i % 4 == 1 ? -1 : 1); }
static inline long l_and(int i) { return i % 997 == 0 ? ~(1L << (i % 61)) : ~0L; }
static inline long l_or(int i) { return i % 1009 == 5 ? 1L << (i % 63) : 0L; }
static inline long l_xor(int i) { return (long)((unsigned long)i * 0x9E3779B97F4A7C15ul); }
// Multiples of 1/1024: every partial sum is exact in float, whatever the order.
static inline float f_val(int i) { return (float)(i % 1000) / 1024.0f - 0.25f; }
// 100 factors other than 1, so the float product's rounding stays far below 1e-4.
static inline float f_fac(int i) { return i % 100 == 3 ? 1.0f + (float)((i / 100) % 11 - 5) / 64.0f : 1.0f; }
static inline float f_ext(int i) { return (float)mix(i) * 0.5f - 500.25f; }
static inline double d_val(int i) { return 1e-3 * (double)(i % 997) - 0.25; }
static inline double d_fac(int i) { return 1.0 + (double)((i % 13) - 6) * 1e-6; }
static inline double d_ext(int i) { return (double)mix(i) * 0.25 - 250.125; }

// The nine (integer) or six (floating) results of one reduction kernel.
typedef struct {
  long long v[9];
} ires;
typedef struct {
  double v[6];
} fres;

// Integer kernel: the loop under `construct` (empty for the host reference).
#define INT_KERNEL(fn, T, P, ...)                                                                                 \
  static ires fn(void) {                                                                                          \
    T s = 5, p = 3, mn = (T)1000000, mx = (T)-1000000, an = ~(T)0, o = 0, x = 0, la = 1, lo = 0;                  \
    __VA_ARGS__                                                                                                   \
    for (int i = 0; i < N; ++i) {                                                                                 \
      s += P##_val(i);                                                                                            \
      p *= P##_fac(i);                                                                                            \
      mn = P##_val(i) < mn ? P##_val(i) : mn;                                                                     \
      mx = P##_val(i) > mx ? P##_val(i) : mx;                                                                     \
      an &= P##_and(i);                                                                                           \
      o |= P##_or(i);                                                                                             \
      x ^= P##_xor(i);                                                                                            \
      la = la && (i != 7331);                                                                                     \
      lo = lo || (i == 4242);                                                                                     \
    }                                                                                                             \
    ires r = {{s, p, mn, mx, an, o, x, la, lo}};                                                                  \
    return r;                                                                                                     \
  }

#define FLOAT_KERNEL(fn, T, P, ...)                                                                               \
  static fres fn(void) {                                                                                          \
    T s = 5, p = 3, mn = (T)1e6, mx = (T)-1e6, la = 1, lo = 0;                                                    \
    __VA_ARGS__                                                                                                   \
    for (int i = 0; i < N; ++i) {                                                                                 \
      s += P##_val(i);                                                                                            \
      p *= P##_fac(i);                                                                                            \
      mn = P##_ext(i) < mn ? P##_ext(i) : mn;                                                                     \
      mx = P##_ext(i) > mx ? P##_ext(i) : mx;                                                                     \
      la = la && (i == 7331 ? (T)0 : (T)0.5);                                                                     \
      lo = lo || (i == 4242 ? (T)0.25 : (T)0);                                                                    \
    }                                                                                                             \
    fres r = {{s, p, mn, mx, la, lo}};                                                                            \
    return r;                                                                                                     \
  }

#define INT_REDUCTIONS                                                                                            \
  reduction(+ : s) reduction(* : p) reduction(min : mn) reduction(max : mx) reduction(& : an) reduction(| : o)    \
      reduction(^ : x) reduction(&& : la) reduction(|| : lo)
#define FLOAT_REDUCTIONS                                                                                          \
  reduction(+ : s) reduction(* : p) reduction(min : mn) reduction(max : mx) reduction(&& : la) reduction(|| : lo)

#define TEAMS(R) PRAGMA(omp target teams distribute parallel for num_teams(64) R)
#define PARALLEL(R) PRAGMA(omp target parallel for num_threads(45) R)

INT_KERNEL(int_host, int, i, )
INT_KERNEL(int_teams, int, i, TEAMS(INT_REDUCTIONS))
INT_KERNEL(int_parallel, int, i, PARALLEL(INT_REDUCTIONS))
INT_KERNEL(long_host, long, l, )
INT_KERNEL(long_teams, long, l, TEAMS(INT_REDUCTIONS))
INT_KERNEL(long_parallel, long, l, PARALLEL(INT_REDUCTIONS))
FLOAT_KERNEL(float_host, float, f, )
FLOAT_KERNEL(float_teams, float, f, TEAMS(FLOAT_REDUCTIONS))
FLOAT_KERNEL(float_parallel, float, f, PARALLEL(FLOAT_REDUCTIONS))
FLOAT_KERNEL(double_host, double, d, )
FLOAT_KERNEL(double_teams, double, d, TEAMS(FLOAT_REDUCTIONS))
FLOAT_KERNEL(double_parallel, double, d, PARALLEL(FLOAT_REDUCTIONS))

static const char *const int_ops[9] = {"+", "*", "min", "max", "&", "|", "^", "&&", "||"};
static const char *const float_ops[6] = {"+", "*", "min", "max", "&&", "||"};

static void check_int(const char *what, ires got, ires want) {
  for (int k = 0; k < 9; ++k)
    if (got.v[k] != want.v[k]) {
      printf("%s %s: %lld, expected %lld\n", what, int_ops[k], got.v[k], want.v[k]);
      ++failures;
    }
}

static void check_float(const char *what, fres got, fres want, double tol) {
  for (int k = 0; k < 6; ++k) {
    double scale = fabs(want.v[k]) > 1e-30 ? fabs(want.v[k]) : 1.0;
    if (!(fabs(got.v[k] - want.v[k]) <= tol * scale)) {
      printf("%s %s: %.17g, expected %.17g\n", what, float_ops[k], got.v[k], want.v[k]);
      ++failures;
    }
  }
}

int main(void) {
  ires ih = int_host(), lh = long_host();
  fres fh = float_host(), dh = double_host();
  check_int("int teams", int_teams(), ih);
  check_int("int parallel", int_parallel(), ih);
  check_int("long teams", long_teams(), lh);
  check_int("long parallel", long_parallel(), lh);
  check_float("float teams", float_teams(), fh, 1e-4);
  check_float("float parallel", float_parallel(), fh, 1e-4);
  check_float("double teams", double_teams(), dh, 1e-9);
  check_float("double parallel", double_parallel(), dh, 1e-9);
  // The data must make the operators discriminate (a constant result would not).
  if (ih.v[7] != 0 || ih.v[8] != 1 || ih.v[1] == 3 || ih.v[4] == -1 || ih.v[5] == 0 || dh.v[4] != 0 || dh.v[5] != 1) {
    printf("host reference is degenerate\n");
    ++failures;
  }
  printf("reductions_all ok=%d\n", failures == 0);
  return failures != 0;
}
