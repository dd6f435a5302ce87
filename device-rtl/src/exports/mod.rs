//! The C ABI: every device-relevant runtime function of LLVM 22's
//! `OMPKinds.def`, plus the `omp_*`/`ompx_*` API user code calls.
//!
//! One file per domain; each function is a short delegate into the
//! target-independent modules. What omprt does not implement yet is defined
//! by [`not_yet!`] with its exact type and traps with a message naming it.
//!
//! The functions use the `C-unwind` ABI: the same calling convention as `C`
//! (clang sees identical types), but a trap in the host simulation, which is a
//! panic, may unwind out of them to the test that expects it.
#![allow(unsafe_code, non_snake_case, clippy::not_unsafe_ptr_arg_deref)]

use core::ffi::c_void;

pub mod api;
#[cfg(any(feature = "fortran", not(target_arch = "nvptx64")))]
pub mod fenv;
#[cfg(any(feature = "fortran", not(target_arch = "nvptx64")))]
pub mod fortran;
pub mod kernel;
pub mod libc;
#[cfg(any(feature = "fortran", not(target_arch = "nvptx64")))]
pub mod libm;
pub mod misc;
pub mod ompx;
pub mod parallel;
pub mod sync;
pub mod task;
pub mod workshare;

/// Opaque pointer types in the ABI (all `ptr` in LLVM IR).
pub type IdentPtr = *const omprt_abi::Ident;
pub type VoidPtr = *mut c_void;
pub type FnPtr = *mut c_void;
/// `int32_t (*)[8]`, the lock word array of `critical`/`reduce`.
pub type CriticalNamePtr = *mut [i32; 8];

/// Defines entry points that trap with "omprt: not implemented yet: <name>".
macro_rules! not_yet {
    ($( fn $name:ident($($arg:ty),* $(,)?) $(-> $ret:ty)?; )*) => {
        $(
            #[unsafe(no_mangle)]
            #[cold]
            pub unsafe extern "C-unwind" fn $name($(_: $arg),*) $(-> $ret)? {
                crate::debug::fatal(crate::debug::message!("not implemented yet: ", stringify!($name)))
            }
        )*
    };
}
pub(crate) use not_yet;
