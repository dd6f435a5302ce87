// `ordered`: `target parallel for ordered` with schedule(dynamic,1),
// schedule(static), schedule(static,3) and schedule(guided) (a partial warp of
// 45 threads in one), and a generic-mode `target` region with
// `parallel for ordered schedule(dynamic,2)`. Each iteration does some
// unordered work, then appends its index through a shared position inside
// `#pragma omp ordered`; the array must read 0..N-1 in order.
#include <stdio.h>

#define N 512

static int order[N], work[N];
static int failures;

static void reset(void) {
  for (int i = 0; i < N; ++i)
    order[i] = -1, work[i] = 0;
}

static void check(const char *what, int pos) {
  int bad = 0, first = -1;
  for (int i = 0; i < N; ++i)
    if (order[i] != i || work[i] != i * (i % 5)) {
      if (first < 0)
        first = i;
      ++bad;
    }
  if (bad || pos != N) {
    printf("%s: pos=%d, %d entries out of order (first at %d: %d)\n", what, pos, bad, first,
           first < 0 ? 0 : order[first]);
    ++failures;
  }
}

// Unordered work before the ordered block, uneven across iterations.
static inline int busy(int i) {
  int acc = 0;
  for (int k = 0; k < i % 5; ++k)
    acc += i;
  return acc;
}

int main(void) {
  int pos;

  reset();
  pos = 0;
#pragma omp target parallel for ordered schedule(dynamic, 1) map(tofrom : order, work, pos)
  for (int i = 0; i < N; ++i) {
    work[i] = busy(i);
#pragma omp ordered
    order[pos++] = i;
  }
  check("ordered schedule(dynamic,1)", pos);

  reset();
  pos = 0;
#pragma omp target parallel for ordered schedule(static) map(tofrom : order, work, pos)
  for (int i = 0; i < N; ++i) {
    work[i] = busy(i);
#pragma omp ordered
    {
      order[pos] = i;
      pos += 1;
    }
  }
  check("ordered schedule(static)", pos);

  reset();
  pos = 0;
#pragma omp target parallel for ordered schedule(static, 3) num_threads(45) map(tofrom : order, work, pos)
  for (int i = 0; i < N; ++i) {
    work[i] = busy(i);
#pragma omp ordered
    order[pos++] = i;
  }
  check("ordered schedule(static,3) num_threads(45)", pos);

  reset();
  pos = 0;
#pragma omp target parallel for ordered schedule(guided) map(tofrom : order, work, pos)
  for (int i = 0; i < N; ++i) {
    work[i] = busy(i);
#pragma omp ordered
    order[pos++] = i;
  }
  check("ordered schedule(guided)", pos);

  reset();
  pos = 0;
#pragma omp target map(tofrom : order, work, pos)
  {
    int start = pos;
#pragma omp parallel for ordered schedule(dynamic, 2)
    for (int i = start; i < N; ++i) {
      work[i] = busy(i);
#pragma omp ordered
      order[pos++] = i;
    }
  }
  check("generic target + parallel for ordered schedule(dynamic,2)", pos);

  printf("ordered ok=%d\n", failures == 0);
  return failures != 0;
}
