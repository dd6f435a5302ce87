// Heap exhaustion: a kernel takes every block CUDA's malloc will give, then
// each thread of a parallel region needs a block past the 512-byte shared
// stack (an array shared with a nested region, which clang allocates with
// __kmpc_alloc_shared). omprt must trap with its message (the device heap
// is exhausted; raise LIBOMPTARGET_HEAP_SIZE), not compute a wrong answer
// or fault without a word: the GPU run expects this program to fail with
// that message (heap_exhaustion.expected-failure).
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#pragma omp declare target
static long nested_part(int l) {
  int part[300];
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < 300; ++i)
    part[i] = i + l;
  long bad = 0;
  for (int i = 0; i < 300; ++i)
    bad += part[i] != i + l;
  return bad;
}
#pragma omp end declare target

int main(void) {
  long blocks = 0, bad = 0;
#pragma omp target map(tofrom : blocks, bad)
  {
    void *head = NULL;
    for (unsigned long size = 1 << 20; size >= 16;) {
      void **p = (void **)malloc(size);
      if (!p) {
        size /= 2;
        continue;
      }
      *p = head;
      head = p;
      ++blocks;
    }
#pragma omp parallel num_threads(32) reduction(+ : bad)
    bad += nested_part(omp_get_thread_num());
    while (head) {
      void *next = *(void **)head;
      free(head);
      head = next;
    }
  }
  printf("heap exhaustion: not trapped after %ld blocks (bad %ld)\n", blocks, bad);
  return 0;
}
