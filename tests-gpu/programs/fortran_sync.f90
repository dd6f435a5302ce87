! Schedules, synchronisation and tasks as flang 22 lowers them for the
! device: dynamic, guided and runtime schedules (flang makes each a static
! __kmpc_*_static_loop_* call), atomic, single, masked, barrier, a parallel
! reduction inside a target region with lastprivate, collapse(2), explicit
! tasks, sections, do simd, taskgroup, taskloop and teams loop. Integer
! results only. At -O0 the parallel regions inside `target` run as a team
! of one (flang builds their captured variables on the main thread's stack;
! fortran_sync.O0.expected). Not here: `ordered` (the static
! loop has no ordered schedule, so omprt traps in __kmpc_ordered) and
! `critical` (flang 22 names its lock `.gomp_critical_user_.var`, which
! ptxas rejects).
program fortran_sync
  use omp_lib
  implicit none
  integer, parameter :: n = 5000
  integer :: hits(n), i, j, twos, atom, singles, masked, lastv
  integer :: psum, pmax, grid(40, 30), tsum, after_barrier(64), negs

  hits = 0
  !$omp target teams distribute parallel do schedule(dynamic, 3) map(tofrom: hits)
  do i = 1, n
    hits(i) = hits(i) + 1
  end do
  !$omp target teams distribute parallel do schedule(guided) map(tofrom: hits)
  do i = 1, n
    hits(i) = hits(i) + 10
  end do
  !$omp target parallel do schedule(runtime) map(tofrom: hits)
  do i = 1, n
    hits(i) = hits(i) + 100
  end do
  print '(a, 2i10)', 'dispatch:', count(hits == 111), sum(hits)

  twos = 0
  atom = 0
  singles = 0
  masked = 0
  after_barrier = 0
  !$omp target parallel num_threads(64) map(tofrom: twos, atom, singles, masked, after_barrier)
  !$omp atomic
  twos = twos + 2
  !$omp atomic
  atom = atom + 3
  !$omp single
  singles = singles + 1
  !$omp end single
  !$omp masked
  masked = masked + 1
  !$omp end masked
  !$omp barrier
  !$omp atomic read
  after_barrier(omp_get_thread_num() + 1) = atom
  !$omp end target parallel
  print '(a, 4i8, i8)', 'sync:', twos, atom, singles, masked, count(after_barrier == 3 * 64)

  ! a parallel reduction inside a target region, and a lastprivate value
  psum = 0
  pmax = -huge(0)
  lastv = -1
  !$omp target map(tofrom: psum, pmax, lastv)
  !$omp parallel do reduction(+: psum) reduction(max: pmax) lastprivate(lastv)
  do i = 1, n
    psum = psum + mod(i, 97)
    pmax = max(pmax, mod(i * 31, 1009))
    lastv = i * 2
  end do
  !$omp end target
  print '(a, 3i10)', 'parallel reduction:', psum, pmax, lastv

  ! collapse(2)
  grid = 0
  !$omp target teams distribute parallel do collapse(2) map(tofrom: grid)
  do j = 1, 30
    do i = 1, 40
      grid(i, j) = i + 100 * j
    end do
  end do
  print '(a, i10)', 'collapse:', sum(grid)

  ! explicit tasks, each run where it is created
  tsum = 0
  !$omp target map(tofrom: tsum)
  !$omp parallel num_threads(8)
  !$omp single
  do i = 1, 20
    !$omp task firstprivate(i) shared(tsum)
    !$omp atomic
    tsum = tsum + i
    !$omp end task
  end do
  !$omp taskwait
  !$omp end single
  !$omp end parallel
  !$omp end target
  print '(a, i8)', 'tasks:', tsum

  ! sections (a static loop over the sections), do simd, a taskgroup with
  ! a task per thread, a taskloop under single, and teams loop
  grid = 0
  tsum = 0
  twos = 0
  negs = 0
  lastv = 0
  !$omp target map(tofrom: grid, tsum, twos, negs, lastv)
  !$omp parallel num_threads(32)
  !$omp sections
  !$omp section
  grid(1, 1) = 7
  !$omp section
  grid(2, 1) = 9
  !$omp end sections
  !$omp do simd
  do i = 3, 40
    grid(i, 1) = i
  end do
  !$omp end do simd
  !$omp taskgroup
  !$omp task shared(tsum)
  !$omp atomic
  tsum = tsum + 1
  !$omp end task
  !$omp end taskgroup
  !$omp single
  !$omp taskloop
  do i = 1, 10
    !$omp atomic
    twos = twos + i
  end do
  !$omp end taskloop
  ! bounds that are negative, a negative step and lastprivate (flang
  ! passes the bounds as written, in the block of shared variables)
  !$omp taskloop lastprivate(lastv)
  do i = 10, -5, -3
    !$omp atomic
    negs = negs + i
    lastv = i
  end do
  !$omp end taskloop
  !$omp end single
  !$omp end parallel
  !$omp end target
  !$omp target teams loop map(tofrom: grid)
  do j = 2, 30
    grid(1, j) = j
  end do
  print '(a, 5i8)', 'sections, taskgroup, taskloops:', sum(grid), tsum, twos, negs, lastv
end program
