//! Kernel, launch and device environments (docs/abi.md#kernel-environment,
//! #launch-environment, #execution-modes, #device-environment).
//!
//! clang 22 emits `<kernel>_kernel_environment` as a constant
//! `KernelEnvironment` and passes its address, with the launch environment
//! pointer it received as kernel parameter 0, to `__kmpc_target_init`.

use crate::exec_mode::ExecMode;
use crate::ident::Ident;
use static_assertions::{assert_eq_align, assert_eq_size, const_assert_eq};
use core::mem::offset_of;

/// `ConfigurationEnvironmentTy`: `{ i8, i8, i8, i32, i32, i32, i32, i32, i32 }`.
#[doc(alias = "ConfigurationEnvironmentTy")]
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConfigurationEnvironment {
    /// 1: non-main threads run the runtime's worker loop inside `__kmpc_target_init`.
    pub use_generic_state_machine: u8,
    /// 0 when openmp-opt proved no nested parallel region is reachable.
    pub may_use_nested_parallelism: u8,
    /// `ExecMode` bits.
    pub exec_mode: u8,
    pub min_threads: i32,
    /// Constant thread limit, 128 by default, 0 when only known at run time.
    pub max_threads: i32,
    pub min_teams: i32,
    /// -1 for a plain `target`, 0 when unknown.
    pub max_teams: i32,
    /// Bytes of one team's record in the teams-reduction buffer, else 0.
    pub reduction_data_size: i32,
    /// Records in the teams-reduction buffer (1024 with clang 22), else 0.
    pub reduction_buffer_length: i32,
}

impl ConfigurationEnvironment {
    pub const fn mode(&self) -> ExecMode {
        ExecMode::from_bits_retain(self.exec_mode)
    }
    /// Whether the host allocated a launch environment for this kernel.
    pub const fn has_teams_reduction(&self) -> bool {
        self.reduction_data_size != 0 && self.reduction_buffer_length != 0
    }
}

/// `DynamicEnvironmentTy`: `{ i16 }`, only used by upstream's tracing mode.
#[doc(alias = "DynamicEnvironmentTy")]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct DynamicEnvironment {
    pub debug_indention_level: u16,
}

/// `KernelEnvironmentTy`: `{ ConfigurationEnvironmentTy, ptr, ptr }`, 48 bytes.
#[doc(alias = "KernelEnvironmentTy")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct KernelEnvironment {
    pub configuration: ConfigurationEnvironment,
    pub ident: *const Ident,
    pub dynamic_env: *mut DynamicEnvironment,
}

/// `KernelLaunchEnvironmentTy` as LLVM 22's host plugin allocates it: 16 bytes.
/// Only kernels with a teams reduction get one; see [`KLE_NONE`].
#[doc(alias = "KernelLaunchEnvironmentTy")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct KernelLaunchEnvironment {
    /// Teams that finished the current reduction window.
    pub reduction_cnt: u32,
    /// Base team index of the current window.
    pub reduction_iter_cnt: u32,
    /// `reduction_data_size * reduction_buffer_length` bytes of device memory.
    pub reduction_buffer: *mut u8,
}

/// The launch-environment pointer LLVM 22's plugin passes to kernels without a
/// teams reduction: all ones. Never dereference it (docs/abi.md#launch-environment).
pub const KLE_NONE: usize = usize::MAX;

/// `DeviceEnvironmentTy`, the global `__omp_rtl_device_environment` that the
/// host plugin writes into every loaded image.
#[doc(alias = "DeviceEnvironmentTy")]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceEnvironment {
    /// `LIBOMPTARGET_DEVICE_RTL_DEBUG`, ANDed with `__omp_rtl_debug_kind`.
    pub device_debug_kind: u32,
    pub num_devices: u32,
    pub device_num: u32,
    /// Bytes of dynamic shared memory (`LIBOMPTARGET_SHARED_MEMORY_SIZE`).
    pub dynamic_mem_size: u32,
    /// Ticks per second of the clock behind `omp_get_wtime`.
    pub clock_frequency: u64,
    /// Address of a `{ host_ptr, device_ptr }` table sorted by host pointer.
    pub indirect_call_table: u64,
    pub indirect_call_table_size: u64,
    /// Value of `omp_get_num_procs()`.
    pub hardware_parallelism: u64,
}

bitflags::bitflags! {
    /// `DeviceDebugKind` bits of `__omp_rtl_debug_kind` and the device environment.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct DeviceDebugKind: u32 {
        const ASSERTION = 1;
        const FUNCTION_TRACING = 2;
        const COMMON_ISSUES = 4;
        const ALLOCATION_TRACKER = 8;
        const PGO_DUMP = 16;
    }
}

assert_eq_size!(ConfigurationEnvironment, [u8; 28]);
assert_eq_align!(ConfigurationEnvironment, u32);
const_assert_eq!(offset_of!(ConfigurationEnvironment, exec_mode), 2);
const_assert_eq!(offset_of!(ConfigurationEnvironment, min_threads), 4);
const_assert_eq!(offset_of!(ConfigurationEnvironment, max_threads), 8);
const_assert_eq!(offset_of!(ConfigurationEnvironment, min_teams), 12);
const_assert_eq!(offset_of!(ConfigurationEnvironment, max_teams), 16);
const_assert_eq!(offset_of!(ConfigurationEnvironment, reduction_data_size), 20);
const_assert_eq!(offset_of!(ConfigurationEnvironment, reduction_buffer_length), 24);
assert_eq_size!(DynamicEnvironment, [u8; 2]);
assert_eq_size!(KernelEnvironment, [u8; 48]);
const_assert_eq!(offset_of!(KernelEnvironment, ident), 32);
const_assert_eq!(offset_of!(KernelEnvironment, dynamic_env), 40);
assert_eq_size!(KernelLaunchEnvironment, [u8; 16]);
const_assert_eq!(offset_of!(KernelLaunchEnvironment, reduction_buffer), 8);
assert_eq_size!(DeviceEnvironment, [u8; 48]);
const_assert_eq!(offset_of!(DeviceEnvironment, clock_frequency), 16);
const_assert_eq!(offset_of!(DeviceEnvironment, hardware_parallelism), 40);
