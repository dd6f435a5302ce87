//! Types that cross the boundary between clang 22's OpenMP offload code, the
//! omprt device runtime and the host side, and (`fortran`) the descriptors
//! and type descriptions flang 22's code passes to its Fortran runtime.
//!
//! Every layout here is fixed by what clang 22 emits (see `docs/abi.md`).
//! Sizes and offsets are pinned with
//! `static_assertions` in each module, and `tests/clang_layout.rs` checks them
//! against the struct types in IR that clang 22 really emits. Field order is
//! append-only: changing it breaks every compiled OpenMP program.
#![no_std]

pub mod alloc;
pub mod environment;
pub mod exec_mode;
pub mod fortran;
pub mod host;
pub mod ident;
pub mod reduction;
pub mod sched;
pub mod symbols;
pub mod task;

/// The most captured variables a parallel region may pass to the
/// out-of-line `__kmpc_parallel_60` of `libompdevice.a`'s LTO member, which
/// clang's calls reach at `-O0 -foffload-lto` (its link inlines nothing);
/// elsewhere clang's calls are inlined and take any count it emits. flang
/// passes one block or none. More traps with a message. The limit keeps
/// that copy's caller of the region (about 4.5 registers per argument) within
/// `__kmpc_parallel_60`'s own registers, which flang's kernels take.
pub const MAX_OUT_OF_LINE_REGION_ARGS: i64 = 11;

pub use environment::{
    ConfigurationEnvironment, DeviceDebugKind, DeviceEnvironment, DynamicEnvironment,
    KernelEnvironment, KernelLaunchEnvironment, KLE_NONE,
};
pub use exec_mode::ExecMode;
pub use ident::{Ident, IdentFlags};
pub use sched::Schedule;
