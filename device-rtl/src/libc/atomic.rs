//! libatomic's generic entry points, which clang and flang call for an
//! atomic operation on an object no instruction covers: `#pragma omp
//! atomic` on a `double _Complex`, `!$omp atomic` on a COMPLEX(8) (16
//! bytes, aligned to 8). Like libatomic, each object is guarded by a lock
//! chosen by its address from a table in device memory, and every access
//! to the object through these functions holds it. An object is only ever
//! accessed under one lock at a time, so no thread waits while holding one.
//!
//! The table is a device static: one per device image with
//! `-foffload-lto` and for flang (the runtime comes from the archive at the
//! device link), one per source file in the default C/C++ build, where each
//! file's device code links its own copy of the runtime. An object updated
//! atomically from kernels of two C files at the same time is therefore
//! not guarded against itself (`docs/abi.md`, "C library and extensions").

use crate::arch;
use core::sync::atomic::{AtomicU32, Ordering};

/// Locks in the table: 1 KiB of device memory.
const LOCKS: usize = 256;

arch::device_static! {
    /// Each word is 1 while a thread holds that lock.
    static LOCK_TABLE: [AtomicU32; LOCKS] = [const { AtomicU32::new(0) }; LOCKS];
}

/// The lock of the object at `address`: by its 16-byte line, so the
/// objects these calls serve (16 bytes and smaller) each have one.
fn lock_of(address: usize) -> &'static AtomicU32 {
    &LOCK_TABLE.get()[(address >> 4) % LOCKS]
}

/// Runs `f` holding the lock of the object at `address`: acquired before,
/// released after, so `f` sees every change made under the lock before.
pub fn with_lock<R>(address: usize, f: impl FnOnce() -> R) -> R {
    let lock = lock_of(address);
    while lock.compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed).is_err() {
        core::hint::spin_loop();
    }
    let result = f();
    lock.store(0, Ordering::Release);
    result
}

/// Copies `size` bytes from `from` to `to` (a `memcpy`, which LLVM
/// expands in place for clang's constant size).
///
/// # Safety
/// `from` and `to` are valid for `size` bytes and do not overlap.
#[inline(always)]
pub unsafe fn copy(from: *const u8, to: *mut u8, size: usize) {
    // SAFETY: as the caller vouches.
    unsafe { core::ptr::copy_nonoverlapping(from, to, size) }
}

/// Whether the `size` bytes at `left` and `right` are equal: 8 and 16
/// bytes (a `double _Complex`) as whole words, without a loop and without
/// assuming alignment, so that after inlining clang's temporaries stay in
/// registers; other sizes byte by byte.
///
/// # Safety
/// `left` and `right` are readable for `size` bytes.
#[inline(always)]
pub unsafe fn equal(left: *const u8, right: *const u8, size: usize) -> bool {
    // SAFETY: within the `size` bytes the caller vouches for.
    unsafe {
        match size {
            8 => left.cast::<u64>().read_unaligned() == right.cast::<u64>().read_unaligned(),
            16 => left.cast::<[u64; 2]>().read_unaligned() == right.cast::<[u64; 2]>().read_unaligned(),
            _ => super::compare_bytes(left, right, size) == 0,
        }
    }
}
