! Character intrinsics through flang's runtime in target regions (omprt's
! device library of flang-rt's entry points): TRIM, ADJUSTL, ADJUSTR,
! INDEX (also BACK=), SCAN, VERIFY, LEN_TRIM, concatenation into a
! deferred-length allocatable, comparisons (<, ==, LGE), MAXVAL, MINVAL,
! MAXLOC and COUNT over character arrays, REPEAT (also of a run-time count
! into a deferred-length allocatable), ICHAR. An internal WRITE and READ on
! a path no run takes link (READ's entry points trap when they run;
! fortran_print runs WRITE).
module fs_work
  implicit none
contains
  subroutine strings(s, t, out, res)
    !$omp declare target
    character(len=*), intent(in) :: s, t
    integer, intent(out) :: out(16)
    character(len=40), intent(out) :: res(4)
    character(len=:), allocatable :: d
    character(len=12) :: w(3)
    d = trim(s) // '|' // trim(adjustl(t))
    res(1) = d
    res(2) = adjustl(s)
    res(3) = adjustr(t)
    out(1) = len(d)
    out(2) = index(s, 'lo')
    out(3) = index(s, 'l', back=.true.)
    out(4) = scan(s, 'ol')
    out(5) = scan(s, 'ol', back=.true.)
    out(6) = verify(s, ' hel')
    out(7) = verify(s, ' dlrow', back=.true.)
    out(8) = len_trim(s)
    out(9) = merge(1, 0, s < t) + 2 * merge(1, 0, s == s // '   ') + 4 * merge(1, 0, lge(s, t))
    out(10) = len_trim(adjustl(t))
    w = [character(len=12) :: 'pear', 'apple', 'fig']
    out(11) = maxloc(len_trim(w), dim=1)
    out(12) = index(w(2), 'pl') * 10 + scan(w(3), 'gi')
    out(13) = merge(1, 0, maxval(w) == 'pear') + 2 * merge(1, 0, minval(w) == 'apple')
    res(4) = repeat('ab', 3) // '-' // w(3)(1:2)
    out(14) = ichar(s(2:2)) + iachar('A')
    out(15) = len(trim(w(1)) // trim(w(2)))
    out(16) = count(w > 'b')
  end subroutine

  subroutine repeated(s, n, out, res)
    !$omp declare target
    character(len=*), intent(in) :: s
    integer, intent(in) :: n
    integer, intent(out) :: out(2)
    character(len=40), intent(out) :: res
    character(len=:), allocatable :: r
    r = repeat(s(2:4), n)
    res = r
    out(1) = len(r)
    r = repeat(s(2:4), n - n)
    out(2) = len(r)
    if (n < 0) then
      write(res, '(a, i0, f6.2)') 'n = ', n, 1.5
      read(res, *) out(2)
    end if
  end subroutine
end module

program fortran_strings
  use fs_work
  implicit none
  character(len=20) :: s, t
  character(len=40) :: res(4)
  integer :: out(16), i, n, rout(2)
  character(len=40) :: rres
  s = ' hello world'
  t = '    trailing'
  n = 4
  !$omp target map(to: s, t, n) map(from: out, res, rout, rres)
  call strings(s, t, out, res)
  call repeated(s, n, rout, rres)
  !$omp end target
  print '(a, 16i5)', 'ints:', out
  do i = 1, 4
    print '(3a)', '[', trim(res(i)), ']'
  end do
  print '(a, 2i5, 3a)', 'repeat:', rout, ' [', trim(rres), ']'
end program
