//! The memory-allocator values of clang 22's `omp.h` (OpenMP 5.2 section 6):
//! allocator and memory-space handles, and the traits `omp_init_allocator`
//! takes.

use core::mem::offset_of;
use static_assertions::{assert_eq_size, const_assert_eq};

/// Predefined `omp_allocator_handle_t` values.
pub mod allocator {
    pub const NULL: u64 = 0;
    pub const DEFAULT_MEM: u64 = 1;
    pub const LARGE_CAP_MEM: u64 = 2;
    pub const CONST_MEM: u64 = 3;
    pub const HIGH_BW_MEM: u64 = 4;
    pub const LOW_LAT_MEM: u64 = 5;
    pub const CGROUP_MEM: u64 = 6;
    pub const PTEAM_MEM: u64 = 7;
    pub const THREAD_MEM: u64 = 8;
    pub const LLVM_TARGET_HOST_MEM: u64 = 100;
    pub const LLVM_TARGET_SHARED_MEM: u64 = 101;
    pub const LLVM_TARGET_DEVICE_MEM: u64 = 102;
}

/// Predefined `omp_memspace_handle_t` values.
pub mod memspace {
    pub const NULL: u64 = 0;
    pub const DEFAULT: u64 = 99;
    pub const LARGE_CAP: u64 = 1;
    pub const CONST: u64 = 2;
    pub const HIGH_BW: u64 = 3;
    pub const LOW_LAT: u64 = 4;
    pub const LLVM_TARGET_HOST: u64 = 100;
    pub const LLVM_TARGET_SHARED: u64 = 101;
    pub const LLVM_TARGET_DEVICE: u64 = 102;
}

/// `omp_alloctrait_key_t`.
pub mod key {
    pub const SYNC_HINT: i32 = 1;
    pub const ALIGNMENT: i32 = 2;
    pub const ACCESS: i32 = 3;
    pub const POOL_SIZE: i32 = 4;
    pub const FALLBACK: i32 = 5;
    pub const FB_DATA: i32 = 6;
    pub const PINNED: i32 = 7;
    pub const PARTITION: i32 = 8;
    /// The OpenMP 6 keys `omp.h` also declares run up to this one.
    pub const PART_SIZE: i32 = 14;
}

/// `omp_alloctrait_value_t`, and `omp_atv_default`.
pub mod value {
    pub const DEFAULT: u64 = u64::MAX;
    pub const FALSE: u64 = 0;
    pub const TRUE: u64 = 1;
    pub const CONTENDED: u64 = 3;
    pub const UNCONTENDED: u64 = 4;
    pub const SERIALIZED: u64 = 5;
    pub const PRIVATE: u64 = 6;
    pub const DEVICE: u64 = 7;
    pub const THREAD: u64 = 8;
    pub const PTEAM: u64 = 9;
    pub const CGROUP: u64 = 10;
    pub const DEFAULT_MEM_FB: u64 = 11;
    pub const NULL_FB: u64 = 12;
    pub const ABORT_FB: u64 = 13;
    pub const ALLOCATOR_FB: u64 = 14;
    pub const ENVIRONMENT: u64 = 15;
    pub const NEAREST: u64 = 16;
    pub const BLOCKED: u64 = 17;
    pub const INTERLEAVED: u64 = 18;
    pub const ALL: u64 = 19;
}

/// `omp_alloctrait_t`: an `int`-sized key, then an `omp_uintptr_t` value.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocTrait {
    pub key: i32,
    pub value: u64,
}

assert_eq_size!(AllocTrait, [u8; 16]);
const_assert_eq!(offset_of!(AllocTrait, value), 8);
