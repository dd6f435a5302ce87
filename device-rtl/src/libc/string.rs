//! The copying and searching functions of `<string.h>` a target region may
//! call: `strcpy`, `strncpy`, `strcat`, `strncat`, `strchr`, `strrchr`,
//! `strstr` and `memchr`, as C defines them. They read and write through
//! raw pointers as C's do: the caller vouches for the memory.
#![allow(unsafe_code)]

use super::string_length;

/// `strcpy`: `src` with its NUL copied to `dest`; returns `dest`.
///
/// # Safety
/// `src` is NUL-terminated; `dest` has room for it and does not overlap it.
pub unsafe fn copy(dest: *mut u8, src: *const u8) -> *mut u8 {
    // SAFETY: forwarded from the caller; the length includes the NUL.
    unsafe { core::ptr::copy_nonoverlapping(src, dest, string_length(src) + 1) };
    dest
}

/// `strncpy`: at most `n` bytes of `src`, the rest of the `n` filled with
/// NULs (no NUL is added when `src` is `n` bytes or longer); returns `dest`.
///
/// # Safety
/// `src` is NUL-terminated or `n` bytes long; `dest` has room for `n`
/// bytes and does not overlap it.
pub unsafe fn copy_n(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    let mut i = 0;
    // SAFETY: byte `i` of `src` exists while no NUL came before it.
    while i < n && unsafe { *src.add(i) } != 0 {
        // SAFETY: within the `n` bytes of `dest`.
        unsafe { *dest.add(i) = *src.add(i) };
        i += 1;
    }
    // SAFETY: within the `n` bytes of `dest`.
    unsafe { core::ptr::write_bytes(dest.add(i), 0, n - i) };
    dest
}

/// `strcat`: `src` with its NUL copied after `dest`'s string; returns `dest`.
///
/// # Safety
/// Both are NUL-terminated; `dest` has room for both strings.
pub unsafe fn append(dest: *mut u8, src: *const u8) -> *mut u8 {
    // SAFETY: forwarded from the caller.
    unsafe { copy(dest.add(string_length(dest)), src) };
    dest
}

/// `strncat`: at most `n` bytes of `src` after `dest`'s string, then a
/// NUL; returns `dest`.
///
/// # Safety
/// `dest` is NUL-terminated with room for `n + 1` more bytes; `src` is
/// NUL-terminated or `n` bytes long.
pub unsafe fn append_n(dest: *mut u8, src: *const u8, n: usize) -> *mut u8 {
    // SAFETY: forwarded from the caller.
    unsafe {
        let end = dest.add(string_length(dest));
        let mut i = 0;
        while i < n && *src.add(i) != 0 {
            *end.add(i) = *src.add(i);
            i += 1;
        }
        *end.add(i) = 0;
    }
    dest
}

/// `strchr`: the first `c` (as a byte) in `s`, its NUL included; null when
/// there is none.
///
/// # Safety
/// `s` is NUL-terminated.
pub unsafe fn find(s: *const u8, c: i32) -> *const u8 {
    let c = c as u8;
    let mut p = s;
    loop {
        // SAFETY: up to and including the NUL.
        let b = unsafe { *p };
        if b == c {
            return p;
        }
        if b == 0 {
            return core::ptr::null();
        }
        // SAFETY: `p` was not at the NUL.
        p = unsafe { p.add(1) };
    }
}

/// `strrchr`: the last `c` (as a byte) in `s`, its NUL included; null
/// when there is none.
///
/// # Safety
/// `s` is NUL-terminated.
pub unsafe fn find_last(s: *const u8, c: i32) -> *const u8 {
    let c = c as u8;
    // SAFETY: forwarded from the caller.
    let length = unsafe { string_length(s) };
    // SAFETY: bytes `0..=length` exist.
    (0..=length).rev().map(|i| unsafe { s.add(i) }).find(|&p| unsafe { *p } == c).unwrap_or(core::ptr::null())
}

/// `strstr`: the first occurrence of `needle` in `haystack` (`haystack`
/// itself for an empty needle); null when there is none.
///
/// # Safety
/// Both are NUL-terminated.
pub unsafe fn find_string(haystack: *const u8, needle: *const u8) -> *const u8 {
    // SAFETY: forwarded from the caller.
    let (h, n) = unsafe { (string_length(haystack), string_length(needle)) };
    if n > h {
        return core::ptr::null();
    }
    // SAFETY: each start leaves `n` bytes of `haystack` to compare.
    (0..=h - n)
        .map(|i| unsafe { haystack.add(i) })
        .find(|&p| unsafe { super::compare_bytes(p, needle, n) } == 0)
        .unwrap_or(core::ptr::null())
}

/// `memchr`: the first `c` (as a byte) in the `n` bytes at `s`; null when
/// there is none.
///
/// # Safety
/// `s` is readable for `n` bytes.
pub unsafe fn find_in(s: *const u8, c: i32, n: usize) -> *const u8 {
    let c = c as u8;
    // SAFETY: within the `n` bytes.
    (0..n).map(|i| unsafe { s.add(i) }).find(|&p| unsafe { *p } == c).unwrap_or(core::ptr::null())
}
