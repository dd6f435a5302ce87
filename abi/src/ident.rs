//! `ident_t`: the source-location record clang passes as the first argument of
//! most `__kmpc_*` calls. The runtime only reads it for diagnostics.

use static_assertions::{const_assert_eq, assert_eq_size};

/// `%struct.ident_t = { i32, i32, i32, i32, ptr }`, 24 bytes.
#[doc(alias = "ident_t")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Ident {
    pub reserved_1: i32,
    /// `IdentFlags` bits.
    pub flags: i32,
    pub reserved_2: i32,
    /// Length of `psource` without its NUL (clang 22 fills it in).
    pub reserved_3: i32,
    /// `";file;function;line;column;;"`.
    pub psource: *const u8,
}

assert_eq_size!(Ident, [u8; 24]);
const_assert_eq!(core::mem::offset_of!(Ident, psource), 16);

bitflags::bitflags! {
    /// `OMP_IDENT_FLAG_*` as clang 22 sets them. The runtime may ignore all of them.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct IdentFlags: i32 {
        const KMPC = 0x02;
        const BARRIER_EXPL = 0x20;
        const BARRIER_IMPL = 0x40;
        const BARRIER_IMPL_SECTIONS = 0xC0;
        const BARRIER_IMPL_SINGLE = 0x140;
        const WORK_LOOP = 0x200;
        const WORK_SECTIONS = 0x400;
        const WORK_DISTRIBUTE = 0x800;
    }
}
