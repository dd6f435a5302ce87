! Output in target regions: PRINT * and WRITE(*,*) of every intrinsic
! type, arrays and sections, a record longer than a line, WRITE to a
! character variable (and IOSTAT= for one that overruns), formatted PRINT
! and WRITE (integer, real, logical and character edit descriptors,
! positioning, reversion, a format in a variable), derived types and
! INTEGER(16), and a line from each of 64 threads at once, which must
! arrive whole. The expected output is what flang's host runtime prints
! for the same statements.
module fp_types
  implicit none
  type inner
    integer :: k
    character(len=3) :: c
  end type
  type outer
    real(8) :: x
    integer(2) :: v(3)
    type(inner) :: in
    logical :: flag
  end type
end module fp_types

program fortran_print
  use fp_types
  implicit none
  integer :: i, ios
  integer :: a(6)
  real(8) :: m(2, 3)
  real :: r
  real(8) :: x
  complex :: c
  character(len=16) :: buf
  character(len=4) :: small
  character(len=12) :: fmt
  type(outer) :: o(2)
  integer(16) :: big
  a = [(i * i, i = 1, 6)]
  m = reshape([(i * 0.5d0, i = 1, 6)], [2, 3])
  o(1) = outer(2.5d0, [1_2, 2_2, 3_2], inner(7, 'abc'), .true.)
  o(2) = outer(-1.5d0, [4_2, 5_2, 6_2], inner(-8, 'de '), .false.)
  big = 12345678901234567890123456789_16
  !$omp target map(to: a, m, o, big) map(from: ios)
  r = 1.0 / 3.0
  x = 1.0d0 / 3.0d0
  c = (1.5, -2.0)
  print *, 'scalars:', 42, -7_8, r, x, c, .true., .false.
  print *, 'reals:', 1.0, 0.5, 0.05, 1e7, 100.0, 1d15, 1d16, huge(1.0), tiny(1d0)
  print *, 'array:', a
  print *, 'section:', a(2:6:2)
  write(*, *) 'matrix:', m
  print *, 'long:', (i * 1.5, i = 1, 30)
  write(buf, *) 'n =', 12
  print *, '[', buf, ']'
  write(small, *, iostat=ios) 123456
  print *, 'overrun:', ios, '[', small, ']'
  print *
  print '(A,I5,A,F8.3,A,ES12.4,A,L2)', 'fmt:', 42, '|', x, '|', x, '|', .true.
  write(*, '(3(I3,:,","))') a(1:3)
  write(*, '(2F8.3)') m
  write(*, '(A,G0,A,G0.4,A,EN12.3)') 'g: ', x, ' ', r, ' ', 12345.678d0
  write(buf, '(I0,"/",I0)') 3, 4
  print '(3A)', '[', buf, ']'
  write(*, '(A,Z8,1X,B8.8,1X,O6)') 'bits:', 255, 5, 64
  write(*, '(T5,A,TL3,A)') 'abcd', 'X'
  fmt = '(A,F6.2)'
  write(*, fmt) 'variable format:', 2.5d0
  print *, 'derived:', o
  print '(A,F5.1,3I2,I3,A4,L2)', 'derived:', o(2)
  print *, 'integer(16):', big, -big
  !$omp end target
  !$omp target teams distribute parallel do num_teams(2) thread_limit(32)
  do i = 1, 64
    print *, 'every thread prints one whole line:', 12345, 0.25d0
  end do
end program fortran_print
