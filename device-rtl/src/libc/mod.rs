//! The C library functions a target region calls that nothing else on the
//! device defines (clang 22 links no C library for nvptx; nvlink resolves
//! only CUDA's `malloc`, `free` and `vprintf`): `__assert_fail`, `abort`,
//! `exit`, `puts`, `clock`, the comparisons of `<string.h>`, its copying
//! and searching functions ([`string`]), `<stdlib.h>`'s conversions of
//! strings to integers ([`number`]), and LLVM's lookup of `declare
//! target indirect` functions ([`indirect_call`]), and libatomic's generic
//! operations on objects no atomic instruction covers ([`atomic`]). `memcpy`
//! & co. are LLVM intrinsics, expanded in place. The comparisons read
//! through raw pointers as C's do: the caller vouches for the memory.
#![allow(unsafe_code)]

pub mod atomic;
pub mod indirect_call;
pub mod number;
pub mod string;
use crate::arch;

/// `memcmp`: the sign of the first differing byte pair, compared unsigned.
///
/// # Safety
/// `left` and `right` are readable for `count` bytes.
pub unsafe fn compare_bytes(left: *const u8, right: *const u8, count: usize) -> i32 {
    for i in 0..count {
        // SAFETY: within the `count` bytes the caller vouches for.
        let (l, r) = unsafe { (*left.add(i), *right.add(i)) };
        if l != r {
            return i32::from(l) - i32::from(r);
        }
    }
    0
}

/// `strlen`.
///
/// # Safety
/// `s` is a NUL-terminated string.
pub unsafe fn string_length(s: *const u8) -> usize {
    let mut n = 0;
    // SAFETY: up to and including the terminating NUL.
    while unsafe { *s.add(n) } != 0 {
        n += 1;
    }
    n
}

/// `strncmp` (and `strcmp`, with `limit` `usize::MAX`): compares up to
/// `limit` bytes, stopping after the first NUL or difference.
///
/// # Safety
/// `left` and `right` are NUL-terminated or readable for `limit` bytes.
pub unsafe fn compare_strings(left: *const u8, right: *const u8, limit: usize) -> i32 {
    for i in 0..limit {
        // SAFETY: byte `i` of each exists: no NUL came before it.
        let (l, r) = unsafe { (*left.add(i), *right.add(i)) };
        if l != r || l == 0 {
            return i32::from(l) - i32::from(r);
        }
    }
    0
}

/// `puts`: the string and a newline on the device's output; a non-negative
/// number, or `EOF` (-1) where the device printf failed.
///
/// # Safety
/// `s` is a NUL-terminated string.
pub unsafe fn put_line(s: *const u8) -> i32 {
    // SAFETY: forwarded from the caller.
    if unsafe { arch::print_line(s) } < 0 { -1 } else { 0 }
}

/// `__assert_fail`, which glibc's `assert` calls: glibc's message (without
/// the program's name), then a trap, which ends the kernel with an error.
///
/// # Safety
/// `expr` and `file` are NUL-terminated strings; `function` is one or null.
#[inline(always)]
pub unsafe fn fail_assertion(expr: *const u8, file: *const u8, line: u32, function: *const u8) -> ! {
    // SAFETY: forwarded from the caller.
    unsafe { arch::trap_assertion(expr, file, line, function) }
}

/// `abort`: a trap, with a message, since a GPU thread cannot signal its
/// process. A constant message, without the location, team and thread of
/// `debug::fatal`'s reports: `abort` is weak, so its callers cannot see
/// through it, and any store in its body keeps openmp-opt from folding the
/// ICV queries of the parallel regions that may call it (device_libc.c's
/// region: its kernel's registers and shared memory double).
pub fn abort() -> ! {
    arch::trap_with_message(b"omprt: abort() called on the device\n\0")
}

/// `exit` and `_Exit`: a trap with a message, since a GPU thread cannot end
/// its process; the status is not printed, for the reason [`abort`] gives.
/// Inlined: a call left in a kernel costs it the registers of a call.
#[inline(always)]
pub fn exit() -> ! {
    arch::trap_with_message(b"omprt: exit() called on the device\n\0")
}

/// `clock`: microseconds (glibc's `CLOCKS_PER_SEC` is 10^6) of the GPU's
/// global timer, the clock `omp_get_wtime` reads; a GPU thread has no
/// processor time of its own.
pub fn clock() -> i64 {
    (arch::global_timer_ns() / 1000) as i64
}
