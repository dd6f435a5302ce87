! Loops and reductions as flang 22 lowers them through the OpenMPIRBuilder:
! callback loops (__kmpc_*_static_loop_*) in both widths, with and without
! chunks, and team reductions. Integer arithmetic and small doubles only, so
! the output is exact in any order of execution.
program fortran_loops
  ! The 64-bit kinds by their C names, as Fortran code that talks to C
  ! writes them (at -O0 the device code then declares iso_c_binding's
  ! constants: see fortran_regions.f90).
  use iso_c_binding, only: c_int64_t, c_double
  implicit none
  integer, parameter :: n = 100003
  integer(c_int64_t), parameter :: n8 = 70001_c_int64_t
  integer :: a(n), b(n), c(n), i, isum, imax, imin, iand_all, ior_all, ieor_all, chunked(1000)
  integer(c_int64_t) :: k, l8(n8), ksum
  real(c_double) :: dsum, dprod, dmax, x(n)
  logical :: all_pos, any_big
  integer :: first(64), rows(16, 50), j

  do i = 1, n
    a(i) = mod(i * 7, 1000) - 300
    x(i) = real(mod(i, 5), c_double) * 0.5d0
  end do

  ! target teams distribute parallel do, 32-bit iteration variable
  !$omp target teams distribute parallel do map(to: a) map(from: b)
  do i = 1, n
    b(i) = 2 * a(i) + 1
  end do

  ! 64-bit iteration variable
  !$omp target teams distribute parallel do map(from: l8)
  do k = 1, n8
    l8(k) = k * k
  end do

  ! schedule and dist_schedule chunks
  !$omp target teams distribute parallel do dist_schedule(static, 64) schedule(static, 3) map(to: b) map(from: c)
  do i = 1, n
    c(i) = b(i) - a(i)
  end do

  ! target parallel do inside a target region (one team)
  !$omp target map(from: chunked)
  !$omp parallel do schedule(static, 7)
  do i = 1, 1000
    chunked(i) = i * 3
  end do
  !$omp end target

  ! distribute alone: each team runs whole rows
  !$omp target teams distribute map(from: rows)
  do i = 1, 50
    do j = 1, 16
      rows(j, i) = i * 100 + j
    end do
  end do

  ! a nonzero lower bound and a stride
  first = 0
  !$omp target teams distribute parallel do map(tofrom: first)
  do i = 5, 64, 3
    first(i) = i
  end do

  ! reductions over many teams
  isum = 0
  imax = -huge(imax)
  imin = huge(imin)
  iand_all = -1
  ior_all = 0
  ieor_all = 0
  all_pos = .true.
  any_big = .false.
  ksum = 0
  dsum = 0
  dprod = 1
  dmax = -1
  !$omp target teams distribute parallel do map(to: a, c, x) &
  !$omp&  reduction(+: isum, ksum, dsum) reduction(max: imax, dmax) reduction(min: imin) &
  !$omp&  reduction(iand: iand_all) reduction(ior: ior_all) reduction(ieor: ieor_all) &
  !$omp&  reduction(.and.: all_pos) reduction(.or.: any_big)
  do i = 1, n
    isum = isum + a(i)
    ksum = ksum + int(c(i), c_int64_t) * 100000_c_int64_t
    dsum = dsum + x(i)
    imax = max(imax, a(i))
    dmax = max(dmax, x(i))
    imin = min(imin, a(i))
    iand_all = iand(iand_all, ior(a(i), 1023 * 1024))
    ior_all = ior(ior_all, a(i) + 300)
    ieor_all = ieor(ieor_all, a(i))
    all_pos = all_pos .and. (c(i) + 400 > 0)
    any_big = any_big .or. (a(i) > 698)
  end do
  !$omp target teams distribute parallel do map(to: x) reduction(*: dprod)
  do i = 1, 40
    dprod = dprod * (1.0d0 + x(i))
  end do

  print '(a, 3i12)', 'b:', b(1), b(n / 2), b(n)
  print '(a, 3i22)', 'l8:', l8(1), l8(n8 / 3), l8(n8)
  print '(a, 3i12, i14)', 'c:', c(1), c(777), c(n), sum(c)
  print '(a, 3i12)', 'chunked:', chunked(1), chunked(500), sum(chunked)
  print '(a, 3i12)', 'rows:', rows(1, 1), rows(16, 50), sum(rows)
  print '(a, 64i3)', 'first:', first
  print '(a, 3i12)', 'isum/imax/imin:', isum, imax, imin
  print '(a, 3i12)', 'iand/ior/ieor:', iand_all, ior_all, ieor_all
  print '(a, 2l3)', 'and/or:', all_pos, any_big
  print '(a, i22)', 'ksum:', ksum
  print '(a, 3f20.3)', 'dsum/dmax/dprod:', dsum, dmax, dprod
end program
