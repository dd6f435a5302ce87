// `detach`: a task completes when its event is fulfilled, and the tasks that
// depend on it wait until then. omprt runs tasks when they are created, and
// keeps a task that depends on an incomplete detached sibling for a later
// wait; the results are any valid schedule's (the host gives them too).
#include <omp.h>
#include <stdio.h>

#define THREADS 64

int main(void) {
  int after_fulfil = 0, independent_at_once = 0, group_ok = 0, own_ok = 0;
#pragma omp target map(tofrom : after_fulfil, independent_at_once, group_ok, own_ok)
  {
    omp_event_handle_t ev;
    int x = 0, y = 0, fulfilled = 0, seen = -1;
#pragma omp task detach(ev) depend(out : x) shared(x)
    x = 1;
#pragma omp task depend(in : x) shared(x, fulfilled, seen)
    seen = fulfilled * 10 + x; // 11 only if it waited for the event
#pragma omp task depend(out : y) shared(y)
    y = 2;
    independent_at_once = y == 2 || seen == -1; // on the host, either may hold
    fulfilled = 1;
    omp_fulfill_event(ev);
#pragma omp taskwait
    after_fulfil = seen == 11;

    // A taskgroup waits for a detached task and its dependent.
    int z = 0, w = 0;
    omp_event_handle_t ev2;
#pragma omp taskgroup
    {
#pragma omp task detach(ev2) depend(out : z) shared(z)
      z = 3;
#pragma omp task depend(in : z) shared(z, w)
      w = z + 1;
      omp_fulfill_event(ev2);
    }
    group_ok = w == 4;

    // A task that fulfils its own event completes with its body.
    omp_event_handle_t ev3;
    int v = 0;
#pragma omp task detach(ev3) depend(out : v) shared(v, ev3)
    {
      v = 5;
      omp_fulfill_event(ev3);
    }
#pragma omp task depend(inout : v) shared(v)
    v *= 2;
#pragma omp taskwait
    own_ok = v == 10;
  }

  // Each thread's event is fulfilled by its neighbour; the barrier completes
  // the tasks, the dependent ones included.
  int seen[THREADS], ready[THREADS], done[THREADS];
  omp_event_handle_t events[THREADS];
  for (int t = 0; t < THREADS; ++t)
    seen[t] = ready[t] = done[t] = 0;
#pragma omp target parallel num_threads(THREADS) map(tofrom : seen) map(to : ready, done) map(alloc : events)
  {
    int t = omp_get_thread_num(), n = omp_get_num_threads();
    int mine = 0;
    omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : mine) shared(mine)
    mine = 1;
    events[t] = ev;
#pragma omp task depend(in : mine) shared(mine, seen, done) firstprivate(t)
    {
      int d;
#pragma omp atomic read
      d = done[t];
#pragma omp flush
      seen[t] = mine + d; // 2 once the neighbour has fulfilled the event
    }
#pragma omp flush
#pragma omp atomic write
    ready[t] = 1;
    int u = (t + 1) % n, r = 0;
    while (!r) {
#pragma omp atomic read
      r = ready[u];
    }
#pragma omp flush
#pragma omp atomic write
    done[u] = 1;
    omp_fulfill_event(events[u]);
#pragma omp barrier
  }
  int threads_ok = 0;
  for (int t = 0; t < THREADS; ++t)
    threads_ok += seen[t] == 2;

  printf("detach after_fulfil=%d independent=%d group_ok=%d own_ok=%d threads_ok=%d\n", after_fulfil, independent_at_once,
         group_ok, own_ok, threads_ok);
  return !(after_fulfil && independent_at_once && group_ok && own_ok && threads_ok == THREADS);
}
