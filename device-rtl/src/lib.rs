//! omprt's OpenMP device runtime.
//!
//! Built two ways from the same source:
//! * for `nvptx64-nvidia-cuda` (no_std) into `libomptarget-nvptx.bc`, the
//!   bitcode clang 22 links into every OpenMP target region;
//! * for the host, where [`arch`] is a simulation of a GPU grid (threads as OS
//!   threads, block barriers, warp rendezvous, per-team shared storage), so
//!   `cargo test` exercises the same runtime logic without a GPU.
//!
//! Only [`arch`] knows which of the two it is; the C ABI lives in [`exports`]
//! as one-line delegates into the target-independent modules.
#![cfg_attr(target_arch = "nvptx64", no_std)]
#![cfg_attr(target_arch = "nvptx64", feature(link_llvm_intrinsics, core_intrinsics, asm_experimental_arch, linkage), allow(internal_features))]
#![feature(c_variadic)]
#![deny(unsafe_code, unsafe_op_in_unsafe_fn)]
#![allow(clippy::missing_safety_doc)]

/// Defines a function that stays out of line when the user compiles at -O0
/// and is left to clang's inliner when the user optimises: rustc must not
/// inline it (`inline(never)`), and the section tells xtask's IR rewrite to
/// trade `noinline` for `inlinehint` (`INLINE_WHEN_OPTIMIZING_SECTION`). At
/// -O0 clang inlines only `alwaysinline`, ptxas -O0 gives a function about as
/// many registers as it has code, and a kernel takes the registers of the
/// largest function it reaches (`unoptimised_dispatched_loops_stay_small`).
/// Call such a function last where possible, and give it what it writes: at
/// -O0 a value live across a call costs the caller stack.
macro_rules! out_of_line_at_o0 {
    ($(#[$meta:meta])* $vis:vis fn $($rest:tt)*) => {
        $(#[$meta])*
        #[allow(unsafe_code, reason = "the section only marks the function for the IR rewrite")]
        #[cfg_attr(target_arch = "nvptx64", inline(never), unsafe(link_section = ".omprt.inline_when_optimizing"))]
        $vis fn $($rest)*
    };
    ($(#[$meta:meta])* $vis:vis unsafe fn $($rest:tt)*) => {
        $(#[$meta])*
        #[allow(unsafe_code, reason = "the section only marks the function for the IR rewrite")]
        #[cfg_attr(target_arch = "nvptx64", inline(never), unsafe(link_section = ".omprt.inline_when_optimizing"))]
        $vis unsafe fn $($rest)*
    };
}

pub mod arch;
pub mod config;
pub mod debug;
pub mod execution;
pub mod exports;
#[cfg(any(feature = "fortran", not(target_arch = "nvptx64")))]
pub mod fortran;
pub mod libc;
pub mod memory;
pub mod reduction;
pub mod sync;
pub mod tasks;
pub mod workshare;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // Formatting the message would pull core::fmt into every kernel.
    arch::trap_with_message(b"omprt: runtime panic\n\0")
}
