! Assignment through flang's runtime in target regions (flang-rt's
! _FortranAAssign and its relatives, as omprt's device library provides
! them): whole arrays and sections, overlapping sections, allocatable
! left-hand sides (re)allocated by assignment, array constructors of
! run-time size, derived types with allocatable components (deep copies),
! default initialization, finalization on DEALLOCATE, structure
! constructors, MOVE_ALLOC, copy-in/copy-out of a discontiguous actual
! argument, pointers and ASSOCIATED(P, T), SIZE/SHAPE/LBOUND/UBOUND on
! descriptors, character arrays, ALLOCATE and DEALLOCATE of pointers (with
! bounds, STAT=, SOURCE=), ALLOCATE(SOURCE=) of allocatables. Integer
! results only.
module fa_types
  implicit none
  type :: point
    integer :: x, y
    real(8) :: w
  end type
  type :: bag
    integer :: id
    real(8), allocatable :: v(:)
    type(point), allocatable :: pts(:)
    character(len=:), allocatable :: label
  end type
  type :: nest
    type(bag) :: inner
    integer, allocatable :: extra(:)
  end type
  type :: tracked
    integer :: id = 0
  contains
    final :: finish
  end type
  integer :: finals = 0
  !$omp declare target(finals)
contains
  subroutine finish(t)
    !$omp declare target
    type(tracked), intent(inout) :: t
    finals = finals + t%id
  end subroutine
end module

module fa_work
  use fa_types
  implicit none
contains
  subroutine grow(out, n)
    !$omp declare target
    integer, intent(out) :: out(4)
    integer, intent(in) :: n
    real(8), allocatable :: al(:), bl(:)
    integer :: i
    allocate(al(n))
    do i = 1, n
      al(i) = i
    end do
    bl = al            ! unallocated left-hand side: allocated like al
    bl = al(2:n:2)     ! reallocated to half the size
    out(1) = size(bl)
    bl = [bl, 100d0]   ! array constructor of run-time size
    out(2) = size(bl)
    out(3) = int(sum(bl))
    al(2:n) = al(1:n-1)  ! overlapping sections
    out(4) = int(al(n))
  end subroutine

  subroutine deep(out)
    !$omp declare target
    integer, intent(out) :: out(8)
    type(bag) :: a, b, c(2)
    type(nest) :: m, k
    a%id = 1
    allocate(a%v(3))
    a%v = [1d0, 2d0, 3d0]
    allocate(a%pts(2))
    a%pts(1) = point(1, 2, 0.5d0)
    a%pts(2) = point(3, 4, 1.5d0)
    a%label = 'first'
    b = a              ! deep copy
    b%v(1) = 99
    b%pts(2)%x = 77
    out(1) = int(a%v(1))
    out(2) = a%pts(2)%x
    out(3) = int(b%v(1)) + b%pts(2)%x
    out(4) = len(b%label)
    m%inner = a
    allocate(m%extra(5))
    m%extra = 7
    k = m
    m%extra(1) = 0
    out(5) = sum(k%extra)
    out(6) = int(sum(k%inner%v))
    c = bag(3, [4d0, 5d0], null(), 'ctor')   ! structure constructor
    out(7) = int(sum(c(2)%v)) + len(c(1)%label) * 100
    call move_alloc(a%v, c(1)%v)
    out(8) = size(c(1)%v) + merge(10, 0, allocated(a%v))
  end subroutine

  subroutine twice(x, n)
    !$omp declare target
    integer, intent(in) :: n
    real(8), intent(inout) :: x(n)
    x = 2 * x
  end subroutine

  subroutine sections(a, out)
    !$omp declare target
    integer, intent(inout) :: a(:, :)
    integer, intent(out) :: out(10)
    integer, pointer :: p(:, :)
    integer, target, allocatable :: t(:, :)
    real(8) :: r(9)
    character(len=:), allocatable :: s
    integer :: i
    allocate(t(0:size(a, 1) - 1, 5:4 + size(a, 2)))
    t = a
    p => t(::2, :)
    out(1) = size(p)
    out(2:3) = shape(p)
    out(4:5) = lbound(t)
    out(6) = ubound(t, 2)
    out(7) = merge(1, 0, associated(p, t(::2, :))) + merge(2, 0, associated(p, t))
    a(:, 1) = a(:, size(a, 2))
    do i = 1, 9
      r(i) = i
    end do
    call twice(r(1:9:2), 5)   ! a discontiguous actual argument: copy-in/copy-out
    out(8) = int(sum(r))
    s = 'abc'
    s = s // s
    out(9) = len(s)
    out(10) = merge(1, 0, is_contiguous(r(1:9:2))) + merge(2, 0, is_contiguous(r(2:4)))
  end subroutine

  subroutine pointers(n, out)
    !$omp declare target
    integer, intent(in) :: n
    integer, intent(out) :: out(6)
    real(8), pointer :: p(:), q(:, :)
    integer, pointer :: k(:)
    integer, allocatable :: m(:)
    real(8), target :: t(4)
    integer :: st, i
    allocate(p(n))
    do i = 1, n
      p(i) = i
    end do
    out(1) = int(sum(p)) * 10 + size(p)
    deallocate(p)
    out(2) = merge(1, 0, associated(p))
    allocate(q(-1:n, 2:3), stat=st)
    q = 2
    out(3) = st * 1000 + lbound(q, 1) * 100 + ubound(q, 2) * 10 + int(sum(q))
    deallocate(q, stat=st)
    t = 1
    p => t
    deallocate(p, stat=st)    ! not what ALLOCATE gave: an error status
    out(4) = st
    allocate(k(2:n), source=7)
    allocate(m, source=k)
    out(5) = sum(k) * 100 + lbound(m, 1) * 10 + size(m)
    deallocate(k)
    allocate(k, source=[(i * i, i = 1, n)])
    out(6) = sum(k)
    deallocate(k)
  end subroutine

  subroutine final_scope(out)
    !$omp declare target
    integer, intent(out) :: out
    type(tracked), allocatable :: t
    allocate(t)
    out = t%id          ! default initialization
    t%id = 5
    deallocate(t)       ! finalized
    out = out + finals
  end subroutine
end module

program fortran_assign
  use fa_work
  implicit none
  integer :: g(4), d(8), s(10), grid(6, 4), f, i, j, pt(6)
  character(len=6) :: names(3), copies(3)
  do j = 1, 4
    do i = 1, 6
      grid(i, j) = 10 * i + j
    end do
  end do
  names = ['alpha ', 'beta  ', 'gamma ']
  !$omp target map(from: g, d, s, f, copies, pt) map(tofrom: grid) map(to: names)
  call grow(g, 9)
  call deep(d)
  call sections(grid, s)
  call final_scope(f)
  call pointers(5, pt)
  copies = names
  !$omp end target
  print '(a, 4i6)', 'grow:', g
  print '(a, 8i6)', 'deep:', d
  print '(a, 10i6)', 'sections:', s
  print '(a, 6i6)', 'grid:', grid(:, 1)
  print '(a, i6)', 'finals:', f
  print '(3a7)', copies
  print '(a, 6i6)', 'pointers:', pt
end program
