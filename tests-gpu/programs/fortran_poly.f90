! Polymorphism through flang's runtime in target regions: ALLOCATE of a
! CLASS(base) allocatable with a type spec and with MOLD=, SELECT TYPE
! (TYPE IS and CLASS IS guards), EXTENDS_TYPE_OF and SAME_TYPE_AS
! (unallocated CLASS(*) objects too), a CLASS(*) allocatable with SOURCE=
! and MOVE_ALLOC, a polymorphic pointer ALLOCATE(MOLD=), DEALLOCATE and
! NULLIFY, TRANSFER of a scalar, of arrays and with SIZE=, C_F_POINTER with
! a shape, SELECT RANK of an assumed-rank dummy (a scalar, arrays of rank 1
! and 2, an assumed-size array) and its SIZE, SHAPE, LBOUND and UBOUND.
! Integer results only.
module fp_types
  use iso_c_binding
  implicit none
  type :: base
    integer :: id = 0
  end type
  type, extends(base) :: child
    real(8) :: v = 1
  end type
  type, extends(child) :: grandchild
    integer :: k = 7
  end type
contains
  integer function kind_of(x)
    !$omp declare target
    class(base), intent(in) :: x
    select type (x)
    type is (grandchild)
      kind_of = 3
    class is (child)
      kind_of = 2
    class default
      kind_of = 1
    end select
  end function

  integer function rank_of(x)
    !$omp declare target
    real(8), intent(in) :: x(..)
    select rank (x)
    rank (0)
      rank_of = 100
    rank (1)
      rank_of = 10 + size(x) + lbound(x, 1)
    rank (2)
      rank_of = 20 + size(x, 2)
    rank (*)
      rank_of = 90 + rank(x)
    rank default
      rank_of = -rank(x)
    end select
  end function

  integer function shape_code(x)
    !$omp declare target
    real(8), intent(in) :: x(..)
    integer :: s(15), l(15), u(15), r
    r = rank(x)
    s(1:r) = shape(x)
    l(1:r) = lbound(x)
    u(1:r) = ubound(x)
    shape_code = size(x) * 1000 + size(x, r) * 100 + lbound(x, 1) * 10 + u(r) + s(1) + l(r)
  end function

  integer function of_assumed_size(x)
    !$omp declare target
    real(8), intent(in) :: x(2, *)
    of_assumed_size = rank_of(x)
  end function

  subroutine work(out, n)
    !$omp declare target
    integer, intent(out) :: out(26)
    integer, intent(in) :: n
    class(base), allocatable :: b, m(:)
    class(base), pointer :: p
    class(*), allocatable :: u, u2
    type(child) :: c
    type(grandchild), target :: g
    real(8) :: r(4), q(2)
    integer(8) :: bits
    integer :: i, w(8)
    integer, pointer :: ip(:,:)
    integer, target :: arr(6)
    allocate(child :: b)
    select type (b)
    type is (child)
      b%v = 3
      out(1) = int(b%v)
    class default
      out(1) = -1
    end select
    out(2) = merge(1, 0, extends_type_of(b, c))
    out(3) = merge(1, 0, same_type_as(b, c))
    out(4) = merge(1, 0, extends_type_of(c, g))
    out(5) = merge(1, 0, extends_type_of(b, u))
    out(6) = merge(1, 0, extends_type_of(u, b))
    out(7) = kind_of(b)
    deallocate(b)
    out(8) = merge(1, 0, same_type_as(b, c))
    allocate(u, source=n)
    select type (u)
    type is (integer)
      out(9) = u
    class default
      out(9) = -1
    end select
    call move_alloc(u, u2)
    out(10) = merge(1, 0, allocated(u2)) + merge(2, 0, allocated(u))
    allocate(p, mold=g)
    out(11) = kind_of(p)
    select type (p)
    type is (grandchild)
      out(12) = p%k
    end select
    deallocate(p)
    p => g
    out(20) = kind_of(p)
    nullify(p)
    out(21) = merge(1, 0, associated(p))
    allocate(m(2:4), mold=[g, g, g])
    out(13) = lbound(m, 1) * 10 + size(m)
    out(14) = kind_of(m(3))
    r = [1d0, 2d0, 3d0, 4d0]
    bits = transfer(r(n - 3), bits)
    out(15) = int(ishft(bits, -52))
    q = transfer(r(3:4), q)
    out(16) = int(q(2))
    out(17) = size(transfer(r(1:n:2), [0_4]))
    w = -1
    w(1:n) = transfer(r(2), [0_4], n)
    out(18) = count(w == 0)
    do i = 1, 6
      arr(i) = n * 10 + i
    end do
    call c_f_pointer(c_loc(arr), ip, [2, 3])
    out(19) = ip(2, 3)
    out(22) = rank_of(r) * 1000 + rank_of(q(1))
    out(23) = rank_of(reshape(r, [2, 2]))
    out(24) = of_assumed_size(r)
    out(25) = shape_code(r)
    out(26) = shape_code(reshape(r, [2, 2]))
  end subroutine
end module

program fortran_poly
  use fp_types
  implicit none
  integer :: out(26), n
  n = 4
  out = 0
  !$omp target map(from: out) map(to: n)
  call work(out, n)
  !$omp end target
  print '(a, 10i6)', 'types:', out(1:10)
  print '(a, 11i6)', 'molds:', out(11:21)
  print '(a, 3i6)', 'ranks:', out(22:24)
  print '(a, 2i6)', 'shapes:', out(25:26)
end program
