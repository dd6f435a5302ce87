! Fortran's elemental math functions in a target region. flang 22 lowers
! them to LLVM's math intrinsics, which the NVPTX back end cannot compile;
! built with -mllvm -math-runtime=precise (as the corpus builds every
! Fortran program, docs/fortran-runtime.md) it calls C's math functions by
! name, which omprt's Fortran member provides, and flang-rt's FPow (REAL **
! INTEGER) and ErfcScaled. The same subroutine runs on the device and on the
! host; the host compares the two within a relative 1e-13 (REAL(8)) and
! 1e-5 (REAL(4)) and prints the disagreements, then a few device results
! to 6 decimals. The arguments stay clear of the functions' zeros, where a
! relative comparison would be too strict.
module fm_work
  implicit none
  integer, parameter :: n8 = 44, n4 = 24
contains
  subroutine evaluate(a, n, k, o, g)
    !$omp declare target
    real(8), intent(in) :: a(4)
    integer, intent(in) :: n
    integer(8), intent(in) :: k
    real(8), intent(out) :: o(n8)
    real(4), intent(out) :: g(n4)
    real(4) :: f(4)
    f = real(a)
    o(1) = sin(a(1)); o(2) = cos(a(1)); o(3) = tan(a(1)); o(4) = asin(a(4))
    o(5) = acos(a(4)); o(6) = atan(a(1)); o(7) = exp(a(1)); o(8) = log(a(2))
    o(9) = log10(a(2)); o(10) = sqrt(a(2)); o(11) = a(2) ** a(3); o(12) = cosh(a(1))
    o(13) = tanh(a(1)); o(14) = asinh(a(1)); o(15) = atanh(a(4)); o(16) = sinh(a(1))
    o(17) = atan2(a(1), a(2)); o(18) = acosh(a(2)); o(19) = erf(a(1)); o(20) = erfc(a(1))
    o(21) = gamma(a(2)); o(22) = log_gamma(a(3)); o(23) = hypot(a(1), a(2))
    o(24) = bessel_j0(a(1)); o(25) = bessel_j1(a(1)); o(26) = bessel_jn(2, a(1))
    o(27) = bessel_y0(a(2)); o(28) = bessel_y1(a(3)); o(29) = bessel_yn(2, a(3))
    o(30) = erfc_scaled(a(1)); o(31) = erfc_scaled(5.0d0 * a(2)); o(32) = erfc_scaled(a(1) * 60)
    o(33) = erfc_scaled(-a(1)); o(34) = a(2) ** n; o(35) = a(2) ** (-n); o(36) = a(3) ** k
    o(37) = a(1) ** (-k); o(38) = (-a(2)) ** n; o(39) = a(2) ** 0; o(40) = exp(-a(3) * 20)
    o(41) = log(a(4) * 1d-300); o(42) = sqrt(a(4)) ** 7; o(43) = atan(a(2), -a(1)); o(44) = cos(a(3) * 1d3)
    g(1) = sin(f(1)); g(2) = cos(f(1)); g(3) = tan(f(1)); g(4) = asin(f(4)); g(5) = acos(f(4))
    g(6) = atan(f(1)); g(7) = exp(f(1)); g(8) = log(f(2)); g(9) = log10(f(2)); g(10) = sqrt(f(2))
    g(11) = f(2) ** f(3); g(12) = cosh(f(1)); g(13) = tanh(f(1)); g(14) = asinh(f(1))
    g(15) = atanh(f(4)); g(16) = atan2(f(1), f(2)); g(17) = erf(f(1)); g(18) = erfc(f(1))
    g(19) = gamma(f(2)); g(20) = hypot(f(1), f(2)); g(21) = bessel_j0(f(1))
    g(22) = f(2) ** n; g(23) = f(2) ** (-k); g(24) = erfc_scaled(f(1) * 60)
  end subroutine
end module

program fortran_math
  use fm_work
  implicit none
  real(8) :: a(4), o(n8), ho(n8)
  real(4) :: g(n4), hg(n4)
  integer :: n, i, bad8, bad4
  integer(8) :: k
  a = [0.5d0, 1.5d0, 2.5d0, 0.25d0]
  n = 3
  k = 5
  !$omp target map(to: a, n, k) map(from: o, g)
  call evaluate(a, n, k, o, g)
  !$omp end target
  call evaluate(a, n, k, ho, hg)
  bad8 = 0
  do i = 1, n8
    if (abs(o(i) - ho(i)) > 1d-13 * abs(ho(i))) then
      bad8 = bad8 + 1
      print '(a, i3, 2es26.17)', 'REAL(8) disagrees:', i, o(i), ho(i)
    end if
  end do
  bad4 = 0
  do i = 1, n4
    if (abs(g(i) - hg(i)) > 1e-5 * abs(hg(i))) then
      bad4 = bad4 + 1
      print '(a, i3, 2es17.8)', 'REAL(4) disagrees:', i, g(i), hg(i)
    end if
  end do
  print '(a, 2i4)', 'disagreements:', bad8, bad4
  print '(a, 6f12.6)', 'values:', o(7), o(11), o(21), o(30), o(34), o(35)
  print '(a, 4f12.6)', 'values:', g(7), g(11), g(19), g(22)
end program
