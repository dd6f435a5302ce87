! List-directed output in target regions: PRINT * and WRITE(*,*) of every
! intrinsic type, arrays and sections, a record longer than a line, WRITE
! to a character variable (and IOSTAT= for one that overruns), and a line
! from each of 64 threads at once, which must arrive whole. The expected
! output is what flang's host runtime prints for the same statements.
program fortran_print
  implicit none
  integer :: i, ios
  integer :: a(6)
  real(8) :: m(2, 3)
  real :: r
  real(8) :: x
  complex :: c
  character(len=16) :: buf
  character(len=4) :: small
  a = [(i * i, i = 1, 6)]
  m = reshape([(i * 0.5d0, i = 1, 6)], [2, 3])
  !$omp target map(to: a, m) map(from: ios)
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
  !$omp end target
  !$omp target teams distribute parallel do num_teams(2) thread_limit(32)
  do i = 1, 64
    print *, 'every thread prints one whole line:', 12345, 0.25d0
  end do
end program fortran_print
