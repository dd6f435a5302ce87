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
