// target teams distribute parallel for: the SPMD workhorse.
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const int n = 1 << 20;
  float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) {
    x[i] = (float)i;
    y[i] = 1.0f;
  }
  const float a = 2.0f;
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; ++i)
    y[i] = a * x[i] + y[i];

  long errors = 0;
  for (int i = 0; i < n; ++i)
    if (y[i] != 2.0f * (float)i + 1.0f)
      ++errors;
  printf("saxpy n=%d errors=%ld\n", n, errors);
  free(x);
  free(y);
  return errors != 0;
}
