//! The runtime's configuration, in three tiers (all read through getters so
//! call sites do not care where a value comes from):
//! * link time: the `__omp_rtl_*` globals clang emits into every device TU
//!   (`weak_odr hidden constant i32`); the bitcode build gives them weak zero
//!   defaults, so reads fold to clang's constants after linking;
//! * load time: `__omp_rtl_device_environment`, written by the host plugin;
//! * launch time: the kernel environment (see `execution::state`).
#![allow(unsafe_code, unused_unsafe, non_upper_case_globals)]

use core::cell::UnsafeCell;
use omprt_abi::{DeviceDebugKind, DeviceEnvironment};

// Declared here, defined (weak, hidden, constant 0) by the bitcode build step
// on nvptx; see xtask/src/device_build.rs. On the host they are plain statics.
#[cfg(target_arch = "nvptx64")]
unsafe extern "C" {
    static __omp_rtl_debug_kind: u32;
    static __omp_rtl_assume_teams_oversubscription: u32;
    static __omp_rtl_assume_threads_oversubscription: u32;
    static __omp_rtl_assume_no_thread_state: u32;
    static __omp_rtl_assume_no_nested_parallelism: u32;
}

#[cfg(not(target_arch = "nvptx64"))]
mod host_defaults {
    // The host simulation runs with every assumption off.
    pub static __omp_rtl_debug_kind: u32 = 0;
    pub static __omp_rtl_assume_teams_oversubscription: u32 = 0;
    pub static __omp_rtl_assume_threads_oversubscription: u32 = 0;
    pub static __omp_rtl_assume_no_thread_state: u32 = 0;
    pub static __omp_rtl_assume_no_nested_parallelism: u32 = 0;
}
#[cfg(not(target_arch = "nvptx64"))]
use host_defaults::*;

/// Written by the host plugin at image load; placed in the constant address
/// space by the bitcode build (section `.omprt.constant`).
#[repr(transparent)]
pub struct DeviceEnvironmentCell(UnsafeCell<DeviceEnvironment>);
// SAFETY: device code only reads it; the host writes it before any kernel runs.
unsafe impl Sync for DeviceEnvironmentCell {}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), unsafe(link_section = ".omprt.constant"))]
#[used]
pub static __omp_rtl_device_environment: DeviceEnvironmentCell = DeviceEnvironmentCell(UnsafeCell::new(DeviceEnvironment {
    device_debug_kind: 0,
    num_devices: 0,
    device_num: 0,
    dynamic_mem_size: 0,
    clock_frequency: 0,
    indirect_call_table: 0,
    indirect_call_table_size: 0,
    hardware_parallelism: 0,
}));

#[inline(always)]
pub fn device_environment() -> DeviceEnvironment {
    // SAFETY: read-only on the device; see the cell's Sync argument.
    unsafe { __omp_rtl_device_environment.0.get().read() }
}

#[inline(always)]
fn read(global: &u32) -> u32 {
    // A volatile read would stop folding; a plain one folds to clang's constant.
    *global
}

#[inline(always)]
pub fn debug_kind() -> DeviceDebugKind {
    // SAFETY: the globals are constants defined by clang or the bitcode build.
    let compile_time = unsafe { read(&__omp_rtl_debug_kind) };
    DeviceDebugKind::from_bits_retain(compile_time & device_environment().device_debug_kind)
}
#[inline(always)]
pub fn assume_teams_oversubscription() -> bool {
    // SAFETY: as above.
    unsafe { read(&__omp_rtl_assume_teams_oversubscription) != 0 }
}
#[inline(always)]
pub fn assume_threads_oversubscription() -> bool {
    // SAFETY: as above.
    unsafe { read(&__omp_rtl_assume_threads_oversubscription) != 0 }
}
#[inline(always)]
pub fn assume_no_thread_state() -> bool {
    // SAFETY: as above.
    unsafe { read(&__omp_rtl_assume_no_thread_state) != 0 }
}
/// Whether this copy of the runtime is the archive's LTO member, the one
/// that serves device code calling the runtime out of line: flang's, whose
/// calls come from the OpenMPIRBuilder (and clang's with `-foffload-lto`).
/// A check only such callers can fail goes behind it, so that it folds away
/// from clang's default compile, where it would cost registers.
#[inline(always)]
pub fn serves_out_of_line_callers() -> bool {
    crate::arch::serves_out_of_line_callers()
}
#[inline(always)]
pub fn assume_no_nested_parallelism() -> bool {
    // SAFETY: as above.
    unsafe { read(&__omp_rtl_assume_no_nested_parallelism) != 0 }
}
