//! `__llvm_omp_indirect_call_lookup`: the device address of a function the
//! host knows by its host address, for calls through pointers to `declare
//! target indirect` functions. clang 22 emits no call of it; user code makes
//! the call, as LLVM's own tests of `indirect` do.
//!
//! LLVM's host runtime (libomptarget) builds the table at image load from
//! the image's offload entries flagged indirect, sorted by host address,
//! and writes its address and length into the device environment.
#![allow(unsafe_code)]

use crate::config;

/// One row of the table, as libomptarget writes it.
#[repr(C)]
pub struct Entry {
    pub host: *const u8,
    pub device: *const u8,
}

/// The device function for `host`, or `host` itself where the table does
/// not hold it (it is then taken for a device address already, as LLVM's
/// runtime does). Null stays null.
#[allow(clippy::not_unsafe_ptr_arg_deref, reason = "`host` is compared, never dereferenced")]
pub fn lookup(host: *const u8) -> *const u8 {
    let env = config::device_environment();
    // SAFETY: the host wrote the table's address and length together, and
    // the table lives as long as the image.
    unsafe { lookup_in(env.indirect_call_table as *const Entry, env.indirect_call_table_size as usize, host) }
}

/// [`lookup`] in a given table: a binary search.
///
/// # Safety
/// `table` is null or holds `len` entries sorted by host address.
pub unsafe fn lookup_in(table: *const Entry, len: usize, host: *const u8) -> *const u8 {
    if table.is_null() || host.is_null() {
        return host;
    }
    // Rows `lo..hi` are those left that may hold `host`.
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // SAFETY: `mid < len`.
        let row = unsafe { &*table.add(mid) };
        match row.host.cmp(&host) {
            core::cmp::Ordering::Equal => return row.device,
            core::cmp::Ordering::Less => lo = mid + 1,
            core::cmp::Ordering::Greater => hi = mid,
        }
    }
    host
}
