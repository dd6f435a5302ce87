! COMPLEX reductions and MATMUL through flang's runtime in a target region
! (omprt's device library of flang-rt's entry points): SUM and PRODUCT of
! COMPLEX(4) and COMPLEX(8) with MASK= and DIM=, DOT_PRODUCT (its first
! argument conjugated, also with a REAL operand), MATMUL of complex and of
! mixed real, integer and complex operands, FINDLOC of a complex value, over
! arrays with lower bounds other than 1 and a strided section. The region
! computes each result again with loops and counts the disagreements; the
! host prints the parts of the results as integers (every value is exact in
! any order of evaluation). flang 22 cannot compile complex division, ABS or
! the elementary functions of a complex argument for the device ("not yet
! implemented: handle complex argument types"), so none appears here.
module fc_work
  implicit none
contains
  subroutine reduce(z, f, out, loc, bad)
    !$omp declare target
    complex(8), intent(in) :: z(0:, -1:)
    complex(4), intent(in) :: f(:)
    complex(8), intent(out) :: out(14)
    integer, intent(out) :: loc(9)
    integer, intent(inout) :: bad
    logical :: m(0:size(z, 1) - 1, -1:size(z, 2) - 2)
    complex(8) :: ref, refs(4), col(size(z, 2)), row(size(z, 1))
    complex(4) :: ref4
    real(8) :: r(size(z, 1))
    integer :: i, j, loc2(2), l1(size(z, 2))
    m = real(z) >= 0
    do i = 0, size(z, 1) - 1
      r(i + 1) = i - 1.5d0
    end do
    out(1) = sum(z)
    out(2) = sum(z, mask=m)
    out(3) = product(z(1:2, :))
    out(4) = product(z, mask=m)
    refs = 0
    refs(3:4) = 1
    do j = -1, ubound(z, 2)
      do i = 0, ubound(z, 1)
        refs(1) = refs(1) + z(i, j)
        if (m(i, j)) refs(2) = refs(2) + z(i, j)
        if (i >= 1 .and. i <= 2) refs(3) = refs(3) * z(i, j)
        if (m(i, j)) refs(4) = refs(4) * z(i, j)
      end do
    end do
    bad = bad + count(out(1:4) /= refs)
    out(5) = sum(f)
    out(6) = product(f)
    ref = 0
    ref4 = 1
    do i = 1, size(f)
      ref = ref + f(i)
      ref4 = ref4 * f(i)
    end do
    if (out(5) /= ref) bad = bad + 1
    if (out(6) /= ref4) bad = bad + 1
    col = sum(z, dim=1)
    row = product(z, dim=2, mask=m)
    out(7) = col(1)
    out(8) = col(size(z, 2))
    out(9) = row(2)
    do j = 1, size(z, 2)
      if (col(j) /= sum(z(:, j - 2))) bad = bad + 1
    end do
    do i = 1, size(z, 1)
      ref = 1
      do j = -1, ubound(z, 2)
        if (m(i - 1, j)) ref = ref * z(i - 1, j)
      end do
      if (row(i) /= ref) bad = bad + 1
    end do
    out(10) = dot_product(z(:, -1), z(:, 0))
    out(11) = dot_product(f, f)
    out(12) = dot_product(r, z(:, 1))
    out(13) = dot_product(z(:, 1), r)
    out(14) = dot_product(z(:, 0), z(:, -1))
    refs = 0
    do i = 0, ubound(z, 1)
      refs(1) = refs(1) + conjg(z(i, -1)) * z(i, 0)
      refs(3) = refs(3) + r(i + 1) * z(i, 1)
      refs(4) = refs(4) + conjg(z(i, 1)) * r(i + 1)
    end do
    ref4 = 0
    do i = 1, size(f)
      ref4 = ref4 + conjg(f(i)) * f(i)
    end do
    refs(2) = ref4
    bad = bad + count(out(10:13) /= refs)
    if (out(14) /= conjg(out(10))) bad = bad + 1
    loc2 = findloc(z, z(2, -1))
    loc(1:2) = loc2
    loc2 = findloc(z, z(2, -1), back=.true.)
    loc(3:4) = loc2
    loc2 = findloc(z, z(2, -1), mask=real(z) > 1000)
    loc(5:6) = loc2
    l1 = findloc(z, z(2, -1), dim=1)
    loc(7:9) = l1
  end subroutine

  subroutine multiply(z, f, out, bad)
    !$omp declare target
    complex(8), intent(in) :: z(:, :)
    complex(4), intent(in) :: f(:)
    complex(8), intent(out) :: out(12)
    integer, intent(inout) :: bad
    complex(8) :: c(size(z, 2), 2), p(size(z, 1), 2), v(size(z, 2)), w(size(z, 1)), u(size(z, 2))
    complex(8) :: q(2, size(z, 2)), k(2, 2)
    complex(4) :: g(2, 2), h(2, 2)
    real(8) :: rm(2, size(z, 1))
    integer :: im(2, 2), i, j, l
    do j = 1, 2
      do i = 1, size(z, 2)
        c(i, j) = cmplx(i - j, i + j - 3, 8)
      end do
      do i = 1, size(z, 1)
        rm(j, i) = i * j - 2
      end do
    end do
    im = reshape([1, -2, 3, 0], [2, 2])
    g = reshape(f(1:4), [2, 2])
    v = c(:, 1)
    p = matmul(z, c)
    w = matmul(z, v)
    u = matmul(w, z)
    q = matmul(rm, z)
    k = matmul(c(1:2, :), im)
    h = matmul(g, g)
    out(1:2) = p(1, :)
    out(3:4) = p(size(z, 1), :)
    out(5) = w(2)
    out(6) = u(size(z, 2))
    out(7:8) = q(:, 1)
    out(9:10) = k(2, :)
    out(11) = h(1, 2)
    out(12) = h(2, 1)
    do j = 1, 2
      do i = 1, size(z, 1)
        if (p(i, j) /= sum(z(i, :) * c(:, j))) bad = bad + 1
      end do
    end do
    do i = 1, size(z, 1)
      if (w(i) /= sum(z(i, :) * v)) bad = bad + 1
    end do
    do j = 1, size(z, 2)
      if (u(j) /= sum(w * z(:, j))) bad = bad + 1
      do i = 1, 2
        if (q(i, j) /= sum(rm(i, :) * z(:, j))) bad = bad + 1
      end do
    end do
    do j = 1, 2
      do i = 1, 2
        if (k(i, j) /= sum(c(i, :) * im(:, j))) bad = bad + 1
        if (h(i, j) /= sum(g(i, :) * g(:, j))) bad = bad + 1
      end do
    end do
  end subroutine
end module

program fortran_complex
  use fc_work
  implicit none
  complex(8) :: z(4, 3), red(14), mul(12)
  complex(4) :: f(9)
  integer :: loc(9), i, j, bad
  do j = 1, 3
    do i = 1, 4
      z(i, j) = cmplx(mod(i * 3 + j * 5, 7) - 3, mod(i * 5 + j, 5) - 2, 8)
    end do
  end do
  z(3, 3) = z(3, 1)
  do i = 1, 9
    f(i) = cmplx(mod(i, 3) + 1, mod(i, 2) * 2 - 1, 4)
  end do
  bad = 0
  !$omp target map(to: z, f) map(from: red, mul, loc) map(tofrom: bad)
  call reduce(z, f(1:9:2), red, loc, bad)
  call multiply(z, f(2:9), mul, bad)
  !$omp end target
  print '(a, 14i6)', 're:', nint(real(red))
  print '(a, 14i6)', 'im:', nint(aimag(red))
  print '(a, 12i6)', 're:', nint(real(mul))
  print '(a, 12i6)', 'im:', nint(aimag(mul))
  print '(a, 9i4)', 'findloc:', loc
  print '(a, i4)', 'disagreements:', bad
end program
