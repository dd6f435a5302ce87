! Numeric intrinsics, random numbers, STOP and PRINT through flang's
! runtime in target regions (omprt's device library of flang-rt's entry
! points): EXPONENT, FRACTION, SPACING, RRSPACING, SCALE, SET_EXPONENT,
! NEAREST (whose edge cases raise IEEE flags through the runtime), real MOD
! and MODULO, numeric inquiry and conversion (folded by flang),
! RANDOM_NUMBER. The STOP, ERROR STOP and PRINT statements are reached only
! with a value the program does not pass (each ends the kernel on the
! device: STOP and ERROR STOP print their code and trap, PRINT traps naming
! the I/O entry point). NINT is avoided: flang 22 makes it llvm.lround,
! which the NVPTX back end cannot select.
module fn_work
  implicit none
contains
  subroutine numeric(x, y, out, r)
    !$omp declare target
    real(8), intent(in) :: x
    real(4), intent(in) :: y
    integer(8), intent(out) :: out(12)
    real(8), intent(out) :: r(12)
    integer :: k
    k = -7
    out(1) = exponent(x)
    out(2) = exponent(y)
    out(3) = mod(k, 3)
    out(4) = modulo(k, 3)
    out(5) = modulo(int(k, 8), 5_8)
    out(6) = huge(k) / 1000000
    out(7) = digits(x) * 100 + digits(y)
    out(8) = range(x) * 100 + precision(y)
    out(9) = int(anint(x)) + ceiling(-x) * 10 + floor(-x) * 100
    out(10) = int(y) + int(anint(y * 2))
    out(11) = maxexponent(x) + minexponent(y)
    out(12) = selected_real_kind(12) * 10 + kind(y)
    r(1) = fraction(x)
    r(2) = spacing(x)
    r(3) = rrspacing(x)
    r(4) = scale(x, 3)
    r(5) = set_exponent(x, 2)
    r(6) = nearest(x, 1d0) - x
    r(7) = mod(x, 1.25d0)
    r(8) = modulo(-x, 1.25d0)
    r(9) = fraction(y) + spacing(y) + scale(y, -1) + set_exponent(y, 1) + nearest(y, -1.0) + modulo(y, 0.75)
    r(10) = epsilon(x) / epsilon(y)
    r(11) = sign(x, -1d0) + abs(-x) + aint(x) + anint(-x) + dim(x, 1d0)
    r(12) = real(huge(y), 8) / 1d38
  end subroutine

  subroutine randoms(n, stats)
    !$omp declare target
    integer, intent(in) :: n
    integer, intent(out) :: stats(3)
    real(8), allocatable :: u(:)
    real(4) :: one
    allocate(u(n))
    call random_number(u)
    call random_number(one)
    stats(1) = count(u >= 0d0 .and. u < 1d0)
    stats(2) = merge(1, 0, abs(sum(u) / n - 0.5d0) < 0.05d0)
    stats(3) = merge(1, 0, one >= 0 .and. one < 1)
  end subroutine

  subroutine check(v)
    !$omp declare target
    integer, intent(in) :: v
    if (v < 0) error stop 'fortran_numeric: negative check value'
    if (v > 1000) stop 4
    if (v == 999) error stop 7
    if (v == 998) stop 'unreachable'
    if (v == 997) print *, 'unreachable', v, 1.5d0
  end subroutine
end module

program fortran_numeric
  use fn_work
  implicit none
  real(8) :: x, r(12)
  real(4) :: y
  integer(8) :: out(12)
  integer :: stats(3), i
  x = 6.75d0
  y = 2.375
  !$omp target map(to: x, y) map(from: out, r, stats)
  call numeric(x, y, out, r)
  call randoms(1000, stats)
  call check(stats(1))
  !$omp end target
  print '(a, 12i12)', 'ints:', out
  do i = 1, 12
    print '(a, i3, es24.15)', 'real', i, r(i)
  end do
  print '(a, 3i6)', 'random:', stats
end program
