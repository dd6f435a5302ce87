! Reductions, location intrinsics and array transformations through
! flang's runtime in target regions (omprt's device library of flang-rt's
! entry points): SUM, PRODUCT, MAXVAL, MINVAL, MAXLOC, MINLOC, FINDLOC,
! COUNT, ANY, ALL, IALL, IANY, IPARITY, NORM2, DOT_PRODUCT over arrays of
! rank 1 and 2, with DIM=, MASK= and BACK=, of integer and real kinds, and
! MATMUL (also of mixed INTEGER and REAL kinds, and of LOGICAL), TRANSPOSE,
! RESHAPE, PACK, UNPACK, SPREAD, CSHIFT and EOSHIFT (also along DIM=, with
! an array SHIFT= and BOUNDARY=). Values exact in any order of evaluation
! (but MATMUL's single-precision sums in PRECISION), printed as integers
! (NINT is avoided: flang 22 makes it llvm.lround, which the NVPTX back end
! cannot select).
module fr_work
  implicit none
contains
  subroutine reduce_all(a, r, out)
    !$omp declare target
    integer, intent(in) :: a(:, :)
    real(8), intent(in) :: r(:, :)
    integer(8), intent(out) :: out(24)
    integer :: loc2(2)
    logical :: m(size(a, 1), size(a, 2))
    real(4) :: r4(size(r, 1))
    integer(8) :: a8(size(a, 1))
    m = mod(a, 3) == 0
    out(1) = sum(a)
    out(2) = sum(a, mask=m)
    out(3) = product(a(1:3, 1))
    out(4) = maxval(a)
    out(5) = minval(a, mask=a > 20)
    loc2 = maxloc(a)
    out(6) = loc2(1) * 100 + loc2(2)
    loc2 = minloc(a, mask=m)
    out(7) = loc2(1) * 100 + loc2(2)
    out(8) = count(m)
    out(9) = merge(1, 0, any(a > 60)) + 2 * merge(1, 0, all(a > 0))
    out(10) = int(anint(sum(r) * 100))
    out(11) = int(anint(product(r(:, 1)) * 1000))
    out(12) = int(anint(maxval(r) * 10)) + int(anint(minval(r) * 10)) * 1000
    loc2 = maxloc(r, back=.true.)
    out(13) = loc2(1) * 100 + loc2(2)
    r4 = real(r(:, 2), 4)
    out(14) = int(anint(sum(r4) * 10))
    out(15) = int(anint(dot_product(r(:, 1), r(:, 2)) * 100))
    out(16) = dot_product(a(:, 1), a(:, 2))
    a8 = a(:, 3)
    out(17) = sum(a8) + maxval(a8) * 1000
    out(18) = int(anint(maxval(r4) * 10))
    loc2 = findloc(a, 23)
    out(19) = loc2(1) * 100 + loc2(2)
    out(20) = iall(a(:, 1)) + 100 * iany(a(:, 1)) + 10000 * iparity(a(:, 1))
    out(21) = norm2(r(:, 1)) * 1000
    out(22) = count(m, kind=8) * 10
    out(23) = maxloc(a(:, 2), dim=1)
    out(24) = minloc(r(2, :), dim=1)
  end subroutine

  subroutine reduce_dim(a, r, out)
    !$omp declare target
    integer, intent(in) :: a(:, :)
    real(8), intent(in) :: r(:, :)
    integer, intent(out) :: out(8, 4)
    logical :: m(size(a, 1), size(a, 2))
    m = a > 25
    out = 0
    out(1:size(a, 2), 1) = sum(a, dim=1)
    out(1:size(a, 1), 2) = maxval(a, dim=2, mask=m)
    out(1:size(a, 2), 3) = count(m, dim=1)
    out(1:size(a, 1), 4) = merge(1, 0, any(m, dim=2)) + 2 * merge(1, 0, all(m, dim=2))
    out(5:8, 1) = minloc(a, dim=1)
    out(6:8, 2) = int(anint(product(r, dim=2) * 10))
    out(5:8, 3) = maxloc(r, dim=1, mask=r < 4d0)
    out(5:7, 4) = int(anint(minval(r, dim=2)))
  end subroutine

  subroutine transform(a, r, out)
    !$omp declare target
    integer, intent(in) :: a(:, :)
    real(8), intent(in) :: r(:, :)
    integer, intent(out) :: out(10)
    real(8) :: c(size(r, 1), size(r, 1)), t(size(r, 2), size(r, 1)), v(size(r, 2))
    integer :: ia(size(a, 2), size(a, 1)), re(4, 6)
    c = matmul(r, transpose(r))
    t = transpose(r)
    ia = transpose(a)
    v = matmul(r(:, 1), r)
    re = reshape(a, [4, 6])
    out(1) = int(anint(sum(c)))
    out(2) = int(anint(c(2, 1) * 10))
    out(3) = int(anint(t(3, 1) * 10))
    out(4) = ia(2, 5)
    out(5) = int(anint(sum(v)))
    out(6) = re(4, 6) + re(1, 2) * 100
    out(7) = sum(matmul(a, transpose(a)))
    out(8) = sum(pack(a, a > 40))
    out(9) = sum(spread(a(:, 1), 2, 3))
    out(10) = sum(cshift(a(:, 1), 2) * [1, 2, 3, 4, 5, 6])
  end subroutine

  ! CSHIFT and EOSHIFT of a matrix along each dimension, by a scalar and by
  ! a per-line shift, EOSHIFT of a vector and with BOUNDARY=, UNPACK with
  ! a scalar and an array FIELD=.
  subroutine shifts(a, out)
    !$omp declare target
    integer, intent(in) :: a(:, :)
    integer, intent(out) :: out(10)
    integer :: c(size(a, 1), size(a, 2)), e(size(a, 1), size(a, 2)), sh(size(a, 1)), u(2, 3), v(size(a, 1))
    logical :: mask(2, 3)
    integer :: i
    do i = 1, size(a, 1)
      sh(i) = i - 3
    end do
    c = cshift(a, 1, dim=2)
    out(1) = sum(c(:, 1) * [1, 2, 3, 4, 5, 6]) + c(6, 4)
    c = cshift(a, sh, dim=2)
    out(2) = sum(c(:, 1) * [1, 2, 3, 4, 5, 6]) + c(1, 4)
    c = cshift(a, -2, dim=1)
    out(3) = c(1, 1) * 1000 + c(3, 2)
    e = eoshift(a, 2, dim=1)
    out(4) = sum(e(:, 1) * [1, 2, 3, 4, 5, 6]) + sum(e)
    e = eoshift(a, -1, boundary=-5, dim=2)
    out(5) = sum(e(:, 1)) + e(2, 2)
    e = eoshift(a, sh(1:4), boundary=sh(3:6), dim=1)
    out(6) = sum(e(:, 1) * [1, 2, 3, 4, 5, 6]) + sum(e)
    v = eoshift(a(:, 2), -3)
    out(7) = sum(v * [1, 2, 3, 4, 5, 6])
    v = eoshift(a(:, 3), 4, boundary=99)
    out(8) = sum(v * [1, 2, 3, 4, 5, 6])
    mask = reshape([.true., .false., .false., .true., .true., .false.], [2, 3])
    u = unpack(a(1:3, 1), mask, 0)
    out(9) = sum(u * reshape([1, 2, 3, 4, 5, 6], [2, 3]))
    u = unpack(a(:, 4), .not. mask, a(1:2, 2:4))
    out(10) = sum(u * reshape([1, 2, 3, 4, 5, 6], [2, 3]))
  end subroutine

  ! MATMUL of REAL(4) sums 1e8 + 1 - 1e8 as flang-rt does: in single
  ! precision (0) where both operands' columns are contiguous, in double (1
  ! per row) where the rows are strided. At -O2 flang inlines MATMUL and
  ! sums in single precision throughout (fortran_reduce.O0.expected holds
  ! the runtime's result).
  subroutine precision(out)
    !$omp declare target
    integer, intent(out) :: out(2)
    real(4) :: x(4, 3), y(3, 1), p(1, 1), q(2, 1)
    integer :: j
    do j = 1, 3
      y(j, 1) = 1.0
    end do
    x(:, 1) = [1e8, 0.0, 1e8, 0.0]
    x(:, 2) = [1.0, 0.0, 1.0, 0.0]
    x(:, 3) = -x(:, 1)
    p = matmul(x(1:1, :), y)
    q = matmul(x(1:3:2, :), y)
    out(1) = int(p(1, 1))
    out(2) = int(q(1, 1) + q(2, 1))
  end subroutine

  ! MATMUL of operands of different types and kinds, whose result takes the
  ! wider type (REAL over INTEGER, the greater kind), and of LOGICALs.
  subroutine mixed(a, r, out)
    !$omp declare target
    integer, intent(in) :: a(:, :)
    real(8), intent(in) :: r(:, :)
    integer, intent(out) :: out(8)
    integer(8) :: a8(size(a, 2), 2)
    real(4) :: r4(size(r, 2), 2)
    logical :: la(size(a, 1), size(a, 2)), lb(size(a, 2), 3)
    logical(1) :: lc(size(a, 2), 3), ld(size(a, 1), 3)
    integer(8) :: ia8(size(a, 1), 2)
    real(8) :: ir(size(a, 1), 2)
    real(4) :: rr(size(r, 1), 2)
    integer :: i, j
    do j = 1, 2
      do i = 1, size(a, 2)
        a8(i, j) = i * j - 3
        r4(i, j) = 0.5 * (i + j)
      end do
    end do
    la = mod(a, 3) == 0
    lb = reshape([(mod(i, 4) == 1, i = 1, 3 * size(a, 2))], shape(lb))
    lc = lb
    ia8 = matmul(a, a8)
    ir = matmul(a, real(r4, 8))
    rr = matmul(real(r, 4), a8)
    ld = matmul(la, lc)
    out(1) = int(sum(ia8))
    out(2) = int(anint(sum(ir) * 2))
    out(3) = int(anint(sum(matmul(r, a8)) * 4))
    out(4) = int(anint(sum(rr) * 4))
    out(5) = int(anint(sum(matmul(a, r4)) * 2))
    out(6) = count(matmul(la, lb))
    out(7) = count(ld)
    out(8) = count(matmul(la(1, :), lc))
  end subroutine
end module

program fortran_reduce
  use fr_work
  implicit none
  integer :: a(6, 4), i, j, dims(8, 4), t(10), m(8), sh(10), pr(2)
  real(8) :: r(3, 4)
  integer(8) :: all(24)
  do j = 1, 4
    do i = 1, 6
      a(i, j) = mod(i * 7 + j * 13, 29) + 10 * j
    end do
  end do
  do j = 1, 4
    do i = 1, 3
      r(i, j) = 0.5d0 * i + 0.25d0 * j
    end do
  end do
  !$omp target map(to: a, r) map(from: all, dims, t, m, sh, pr)
  call reduce_all(a, r, all)
  call reduce_dim(a, r, dims)
  call transform(a, r, t)
  call mixed(a, r, m)
  call shifts(a, sh)
  call precision(pr)
  !$omp end target
  print '(a, 12i8)', 'all:', all(1:12)
  print '(a, 12i8)', 'all:', all(13:24)
  do j = 1, 4
    print '(a, 8i6)', 'dim:', dims(:, j)
  end do
  print '(a, 10i8)', 'transform:', t
  print '(a, 8i8)', 'mixed:', m
  print '(a, 10i8)', 'shifts:', sh
  print '(a, 2i8)', 'precision:', pr
end program
