// Doacross loops: `ordered(1)` with depend(sink: i-1)/depend(source) (a
// prefix sum that is only right if each wait sees its post), and `ordered(2)`
// over a 2-D nest with two sinks.
#include <stdio.h>

#define N 2000
#define M 24

int main(void) {
  static long a[N];
  static int g[M][M];
  for (int i = 0; i < N; ++i)
    a[i] = i % 7;
#pragma omp target parallel for ordered(1) map(tofrom : a)
  for (int i = 1; i < N; ++i) {
#pragma omp ordered depend(sink : i - 1)
    a[i] += a[i - 1];
#pragma omp ordered depend(source)
  }
#pragma omp target parallel for ordered(2) map(tofrom : g)
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
      int up = i > 0 ? g[i - 1][j] : 0, left = j > 0 ? g[i][j - 1] : 0;
      g[i][j] = (up > left ? up : left) + 1;
#pragma omp ordered depend(source)
    }
  long expect = 0;
  int ok = 1;
  for (int i = 0; i < N; ++i) {
    expect += i % 7;
    ok &= a[i] == expect;
  }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < M; ++j)
      ok &= g[i][j] == i + j + 1;
  printf("doacross ok=%d\n", ok);
  return !ok;
}
