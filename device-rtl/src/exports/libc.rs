//! The C library functions of [`crate::libc`]. On the GPU they are weak, so
//! that a C library the user links (LLVM's for the GPU, say) takes
//! precedence; in the host simulation they keep Rust names, which would
//! otherwise replace the test process's own C library.

use super::*;
use crate::libc;
use crate::libc::atomic;

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn __assert_fail(expr: *const u8, file: *const u8, line: u32, function: *const u8) -> ! {
    // SAFETY: glibc's `assert` passes its strings (the function's may be null).
    unsafe { libc::fail_assertion(expr, file, line, function) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn abort() -> ! {
    libc::abort()
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn puts(s: *const u8) -> i32 {
    // SAFETY: C's contract: a NUL-terminated string.
    unsafe { libc::put_line(s) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn memcmp(left: *const c_void, right: *const c_void, count: usize) -> i32 {
    // SAFETY: C's contract: both readable for `count` bytes.
    unsafe { libc::compare_bytes(left.cast(), right.cast(), count) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strlen(s: *const u8) -> usize {
    // SAFETY: C's contract: a NUL-terminated string.
    unsafe { libc::string_length(s) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strcmp(left: *const u8, right: *const u8) -> i32 {
    // SAFETY: C's contract: NUL-terminated strings.
    unsafe { libc::compare_strings(left, right, usize::MAX) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strncmp(left: *const u8, right: *const u8, limit: usize) -> i32 {
    // SAFETY: C's contract: NUL-terminated or `limit` bytes long.
    unsafe { libc::compare_strings(left, right, limit) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn exit(_status: i32) -> ! {
    libc::exit()
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn _Exit(_status: i32) -> ! {
    libc::exit()
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn clock() -> i64 {
    libc::clock()
}

// <string.h>'s copying and searching (`libc::string`), under C's contract
// for each: NUL-terminated strings, room for what is written.

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strcpy(dest: *mut u8, src: *const u8) -> *mut u8 {
    // SAFETY: C's contract.
    unsafe { libc::string::copy(dest, src) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strncpy(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: C's contract.
    unsafe { libc::string::copy_n(dest, src, n) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strcat(dest: *mut u8, src: *const u8) -> *mut u8 {
    // SAFETY: C's contract.
    unsafe { libc::string::append(dest, src) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strncat(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: C's contract.
    unsafe { libc::string::append_n(dest, src, n) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strchr(s: *const u8, c: i32) -> *mut u8 {
    // SAFETY: C's contract.
    unsafe { libc::string::find(s, c) }.cast_mut()
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strrchr(s: *const u8, c: i32) -> *mut u8 {
    // SAFETY: C's contract.
    unsafe { libc::string::find_last(s, c) }.cast_mut()
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strstr(haystack: *const u8, needle: *const u8) -> *mut u8 {
    // SAFETY: C's contract.
    unsafe { libc::string::find_string(haystack, needle) }.cast_mut()
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn memchr(s: *const c_void, c: i32, n: usize) -> *mut c_void {
    // SAFETY: C's contract.
    unsafe { libc::string::find_in(s.cast(), c, n) }.cast_mut().cast()
}

// <stdlib.h>'s conversions of strings to integers (`libc::number`); `long`
// is 64 bits on the device, as on the host.

/// Parses `s` in `base` and stores where the number ended in `end` (the
/// string itself when there was none), as `strtol` and `strtoul` do.
///
/// # Safety
/// `s` is NUL-terminated; `end` is null or writable.
unsafe fn parse_to_end(s: *const u8, end: *mut *mut u8, base: i32) -> libc::number::Parsed {
    // SAFETY: forwarded from the caller; `consumed` bytes of `s` exist.
    unsafe {
        let p = libc::number::parse(s, base);
        if !end.is_null() {
            *end = s.add(p.consumed).cast_mut();
        }
        p
    }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strtol(s: *const u8, end: *mut *mut u8, base: i32) -> i64 {
    // SAFETY: C's contract: a NUL-terminated string, `end` null or writable.
    libc::number::signed(unsafe { parse_to_end(s, end, base) })
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strtoll(s: *const u8, end: *mut *mut u8, base: i32) -> i64 {
    // SAFETY: C's contract.
    unsafe { strtol(s, end, base) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strtoul(s: *const u8, end: *mut *mut u8, base: i32) -> u64 {
    // SAFETY: C's contract: a NUL-terminated string, `end` null or writable.
    libc::number::unsigned(unsafe { parse_to_end(s, end, base) })
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn strtoull(s: *const u8, end: *mut *mut u8, base: i32) -> u64 {
    // SAFETY: C's contract.
    unsafe { strtoul(s, end, base) }
}

/// `atoi`: `atol`, truncated to `int`.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn atoi(s: *const u8) -> i32 {
    // SAFETY: C's contract: a NUL-terminated string.
    unsafe { atol(s) as i32 }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn atol(s: *const u8) -> i64 {
    // SAFETY: C's contract: a NUL-terminated string.
    unsafe { libc::number::signed(libc::number::parse(s, 10)) }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn atoll(s: *const u8) -> i64 {
    // SAFETY: C's contract: a NUL-terminated string.
    unsafe { atol(s) }
}

// libatomic's generic operations (`libc::atomic`): `size` bytes at the
// object, under its lock; the memory orders are met by the lock's acquire
// and release. The caller vouches for the memory, as libatomic's does.

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn __atomic_load(size: usize, object: *const c_void, result: *mut c_void, _order: i32) {
    // SAFETY: `size` bytes at each, apart.
    atomic::with_lock(object as usize, || unsafe { atomic::copy(object.cast(), result.cast(), size) })
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn __atomic_store(size: usize, object: *mut c_void, value: *const c_void, _order: i32) {
    // SAFETY: `size` bytes at each, apart.
    atomic::with_lock(object as usize, || unsafe { atomic::copy(value.cast(), object.cast(), size) })
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn __atomic_exchange(size: usize, object: *mut c_void, value: *const c_void, result: *mut c_void, _order: i32) {
    atomic::with_lock(object as usize, || {
        // SAFETY: `size` bytes at each, apart.
        unsafe {
            atomic::copy(object.cast(), result.cast(), size);
            atomic::copy(value.cast(), object.cast(), size);
        }
    })
}

/// Replaces the object with `desired` if it equals `expected`; otherwise
/// copies it to `expected`.
#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn __atomic_compare_exchange(
    size: usize,
    object: *mut c_void,
    expected: *mut c_void,
    desired: *const c_void,
    _success_order: i32,
    _failure_order: i32,
) -> bool {
    atomic::with_lock(object as usize, || {
        // SAFETY: `size` bytes at each, apart.
        unsafe {
            if atomic::equal(object.cast(), expected.cast(), size) {
                atomic::copy(desired.cast(), object.cast(), size);
                true
            } else {
                atomic::copy(object.cast(), expected.cast(), size);
                false
            }
        }
    })
}
