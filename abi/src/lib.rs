//! Types that cross the boundary between clang 22's OpenMP offload code, the
//! omprt device runtime and the host side.
//!
//! Every layout here is fixed by what clang 22 emits (see
//! `shared/docs/ABI-CONTRACT.md`, section 2). Sizes and offsets are pinned with
//! `static_assertions` in each module, and `tests/clang_layout.rs` checks them
//! against the struct types in IR that clang 22 really emits. Field order is
//! append-only: changing it breaks every compiled OpenMP program.
#![no_std]

pub mod alloc;
pub mod environment;
pub mod exec_mode;
pub mod host;
pub mod ident;
pub mod reduction;
pub mod sched;
pub mod symbols;
pub mod task;

pub use environment::{
    ConfigurationEnvironment, DeviceDebugKind, DeviceEnvironment, DynamicEnvironment,
    KernelEnvironment, KernelLaunchEnvironment, KLE_NONE,
};
pub use exec_mode::ExecMode;
pub use ident::{Ident, IdentFlags};
pub use sched::Schedule;
