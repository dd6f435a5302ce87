! Target regions with sequential code around parallel regions, as flang 22
! lowers them: at -O0 generic-mode kernels whose parallel regions come
! without a wrapper function (the OpenMPIRBuilder passes none), at -O2
! kernels openmp-opt turns into generic-SPMD ones. Integer results only.
! At -O0 flang builds a region's captured variables on the main thread's
! stack, which the workers cannot read: there the parallel regions run as
! teams of one, which the first target reports (fortran_regions.O0.expected).
program fortran_regions
  ! At -O0 flang declares every named constant of omp_lib and
  ! omp_lib_kinds in the device code: they come from libompdevice.a's
  ! Fortran member.
  use omp_lib
  implicit none
  integer, parameter :: n = 4096
  integer :: a(n), b(n), team_sizes(2), seen(64), i, j, k, total

  a = 0
  b = 0
  team_sizes = 0
  seen = 0
  !$omp target map(tofrom: a, team_sizes)
  k = 3
  !$omp parallel do
  do i = 1, n
    a(i) = i * k
  end do
  k = k + 2
  !$omp parallel
  !$omp single
  team_sizes(1) = omp_get_num_threads()
  !$omp end single
  !$omp end parallel
  !$omp parallel do schedule(static, 5)
  do i = 1, n
    a(i) = a(i) + k
  end do
  team_sizes(2) = omp_get_level()
  !$omp end target

  ! A region with no captured variables of its own, in each team of a league.
  !$omp target teams num_teams(4) map(tofrom: seen)
  !$omp parallel num_threads(32)
  if (omp_get_thread_num() == 0) seen(omp_get_team_num() + 1) = omp_get_team_num() + 10
  !$omp end parallel
  !$omp end target teams

  ! teams distribute with a nested parallel do.
  !$omp target teams distribute map(tofrom: b)
  do j = 1, 16
    !$omp parallel do
    do i = 1, n / 16
      b((j - 1) * (n / 16) + i) = j * 1000 + i
    end do
  end do

  total = 0
  do i = 1, n
    total = total + mod(b(i), 997)
  end do
  print '(a, 3i10)', 'a:', a(1), a(n), sum(a)
  print '(a, l2, i3)', 'team of more than one, level after:', team_sizes(1) > 1, team_sizes(2)
  print '(a, 4i4)', 'seen:', seen(1:4)
  print '(a, 3i10)', 'b:', b(1), b(n), total
end program
