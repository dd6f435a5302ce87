! Numeric intrinsics, random numbers, clocks, STOP and PRINT through
! flang's runtime in target regions (omprt's device library of flang-rt's
! entry points): EXPONENT, FRACTION, SPACING, RRSPACING, SCALE,
! SET_EXPONENT, NEAREST (whose edge cases raise IEEE flags through the
! runtime), real MOD and MODULO, numeric inquiry and conversion (folded by
! flang), RANDOM_NUMBER, RANDOM_SEED and RANDOM_INIT (a seed of 2 integers
! on the device), CPU_TIME, SYSTEM_CLOCK, DATE_AND_TIME (the device knows
! no date: blanks and -HUGE), SELECTED_*_KIND of values flang cannot fold
! (the device's kinds: no REAL(10) or REAL(16)), and IEEE_EXCEPTIONS'
! flags and halting modes (the GPU keeps no flags and never halts; asking
! for a flag traps, on a path not taken here). The STOP, ERROR STOP,
! PRINT, and the GNU extensions ABORT, EXIT and FLUSH are reached only with
! a value the program does not pass (STOP, ERROR STOP, ABORT and EXIT print
! their code and end the kernel on the device; fortran_print runs PRINT).
! NINT is avoided:
! flang 22 makes it llvm.lround, which the NVPTX back end cannot select.
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
    integer, intent(out) :: stats(4)
    real(8), allocatable :: u(:)
    real(8) :: first(4), again(4)
    real(4) :: one
    integer :: seed_size, seed(2)
    allocate(u(n))
    call random_number(u)
    call random_number(one)
    stats(1) = count(u >= 0d0 .and. u < 1d0)
    stats(2) = merge(1, 0, abs(sum(u) / n - 0.5d0) < 0.05d0)
    stats(3) = merge(1, 0, one >= 0 .and. one < 1)
    call random_seed(size=seed_size)
    call random_seed(get=seed)
    call random_number(first)
    call random_seed(put=seed)
    call random_number(again)
    stats(4) = seed_size * 10 + merge(1, 0, all(first == again))
    call random_init(.true., .false.)
    call random_number(first)
    call random_init(.true., .false.)
    call random_number(again)
    stats(4) = stats(4) + merge(100, 0, all(first == again))
  end subroutine

  subroutine clocks(n, out)
    !$omp declare target
    integer, intent(in) :: n
    integer(8), intent(out) :: out(12)
    integer(8) :: c1, c2, rate8, max8
    integer :: c4, rate4, max4, v(8), i
    integer(2) :: c2k, rate2
    real(8) :: t1, t2, s
    character(len=8) :: date
    character(len=10) :: hms
    call cpu_time(t1)
    call system_clock(c1, rate8, max8)
    s = 0
    do i = 1, n * 1000
      s = s + sqrt(real(i, 8))
    end do
    call system_clock(c2)
    call cpu_time(t2)
    call system_clock(c4, rate4, max4)
    call system_clock(c2k, rate2)
    out(1) = rate8
    out(2) = max8 / 1000000000000_8
    out(3) = rate4
    out(4) = max4
    out(5) = merge(1, 0, c2 >= c1 .and. t2 >= t1 .and. s > 0)
    out(6) = merge(1, 0, c4 >= 0 .and. c4 <= max4 .and. c2k >= 0)
    out(7) = rate2
    call date_and_time(date, hms, values=v)
    out(8) = merge(1, 0, date == ' ' .and. hms == ' ' .and. all(v == -huge(v)))
    out(9) = selected_int_kind(n)
    out(10) = selected_int_kind(4 * n)
    out(11) = selected_real_kind(n, 4 * n) * 10 + selected_logical_kind(8 * n)
    out(12) = selected_real_kind(3 * n) * 100 + selected_real_kind(n, 80 * n)
  end subroutine

  subroutine flags(v, out)
    !$omp declare target
    use, intrinsic :: ieee_exceptions
    integer, intent(in) :: v
    integer(8), intent(out) :: out
    logical :: halting, raised
    call ieee_set_flag(ieee_all, .false.)
    call ieee_set_flag(ieee_inexact, .true.)
    call ieee_set_halting_mode(ieee_invalid, .false.)
    call ieee_get_halting_mode(ieee_overflow, halting)
    out = merge(1, 0, .not. halting)
    if (v == 996) then
      call ieee_get_flag(ieee_overflow, raised)
      if (raised) out = 2
    end if
  end subroutine

  subroutine check(v)
    !$omp declare target
    integer, intent(in) :: v
    if (v < 0) error stop 'fortran_numeric: negative check value'
    if (v > 1000) stop 4
    if (v == 999) error stop 7
    if (v == 998) stop 'unreachable'
    if (v == 997) print *, 'unreachable', v, 1.5d0
    if (v == 995) call abort()
    if (v == 994) call exit(2)
    if (v == 993) call flush(6)
  end subroutine
end module

program fortran_numeric
  use fn_work
  implicit none
  real(8) :: x, r(12)
  real(4) :: y
  integer(8) :: out(12), times(12), ieee
  integer :: stats(4), i
  x = 6.75d0
  y = 2.375
  !$omp target map(to: x, y) map(from: out, r, stats, times, ieee)
  call numeric(x, y, out, r)
  call randoms(1000, stats)
  call clocks(5, times)
  call flags(stats(1), ieee)
  call check(stats(1))
  !$omp end target
  print '(a, 12i12)', 'ints:', out
  do i = 1, 12
    print '(a, i3, es24.15)', 'real', i, r(i)
  end do
  print '(a, 4i6)', 'random:', stats
  print '(a, 12i12)', 'clocks:', times
  print '(a, i2)', 'ieee:', ieee
end program
