//! Host-side records clang 22 emits: the kernel-argument block passed to
//! `__tgt_target_kernel` and the offload entries (docs/abi.md#host-side-records).

use core::ffi::c_void;
use core::mem::offset_of;
use static_assertions::{assert_eq_size, const_assert_eq};

/// `OMP_KERNEL_ARG_VERSION` of clang 22.
pub const KERNEL_ARGS_VERSION: u32 = 3;

/// `__tgt_kernel_arguments` (`KernelArgsTy`), version 3, 104 bytes.
#[doc(alias = "KernelArgsTy")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct KernelArgs {
    pub version: u32,
    /// Kernel arguments, not counting the launch-environment slot.
    pub num_args: u32,
    pub arg_base_ptrs: *mut *mut c_void,
    pub arg_ptrs: *mut *mut c_void,
    pub arg_sizes: *mut i64,
    pub arg_types: *mut i64,
    pub arg_names: *mut *mut c_void,
    pub arg_mappers: *mut *mut c_void,
    /// Trip count of the distribute loop, 0 otherwise.
    pub tripcount: u64,
    /// `KernelArgsFlags` bits.
    pub flags: u64,
    pub num_teams: [u32; 3],
    pub thread_limit: [u32; 3],
    /// Bytes of dynamic shared memory (`ompx_dyn_cgroup_mem`, `dyn_groupprivate`).
    pub dyn_cgroup_mem: u32,
}

bitflags::bitflags! {
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct KernelArgsFlags: u64 {
        const NO_WAIT = 1;
        const IS_CUDA = 2;
        /// Two bits: dyn_groupprivate fallback (0 abort, 1 null, 2 default_mem).
        const DYN_CGROUP_MEM_FALLBACK = 0b1100;
    }
}

/// `__tgt_offload_entry` in section `llvm_offload_entries`, 56 bytes.
#[doc(alias = "__tgt_offload_entry")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct OffloadEntry {
    pub reserved: u64,
    pub version: u16,
    /// 1 = OpenMP.
    pub kind: u16,
    /// `OffloadEntryFlags`.
    pub flags: u32,
    pub address: *mut c_void,
    pub symbol_name: *const u8,
    pub size: u64,
    pub data: u64,
    pub aux_addr: *mut c_void,
}

bitflags::bitflags! {
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct OffloadEntryFlags: u32 {
        /// `declare target link`: the address is a reference pointer.
        const LINK = 1;
        /// `declare target indirect` function.
        const INDIRECT = 8;
    }
}

bitflags::bitflags! {
    /// `OMP_TGT_MAPTYPE_*` bits in `KernelArgs::arg_types`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct MapType: u64 {
        const TO = 0x001;
        const FROM = 0x002;
        const ALWAYS = 0x004;
        const DELETE = 0x008;
        const PTR_AND_OBJ = 0x010;
        const TARGET_PARAM = 0x020;
        const RETURN_PARAM = 0x040;
        const PRIVATE = 0x080;
        const LITERAL = 0x100;
        const IMPLICIT = 0x200;
        const CLOSE = 0x400;
        const PRESENT = 0x1000;
        const OMPX_HOLD = 0x2000;
        const NON_CONTIG = 0x100000000000;
        const MEMBER_OF = 0xffff000000000000;
    }
}

assert_eq_size!(KernelArgs, [u8; 104]);
const_assert_eq!(offset_of!(KernelArgs, tripcount), 56);
const_assert_eq!(offset_of!(KernelArgs, flags), 64);
const_assert_eq!(offset_of!(KernelArgs, num_teams), 72);
const_assert_eq!(offset_of!(KernelArgs, thread_limit), 84);
const_assert_eq!(offset_of!(KernelArgs, dyn_cgroup_mem), 96);
assert_eq_size!(OffloadEntry, [u8; 56]);
const_assert_eq!(offset_of!(OffloadEntry, address), 16);
const_assert_eq!(offset_of!(OffloadEntry, aux_addr), 48);
