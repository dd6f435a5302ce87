//! flang's Fortran runtime (flang-rt) for the device: the `_FortranA*`
//! entry points flang 22 calls from target regions, written here from
//! flang-rt's documented semantics, over flang's descriptors
//! (`omprt_abi::fortran`).
//!
//! flang links no runtime bitcode into the device code it compiles, so these
//! are out-of-line functions with flang-rt's exact signatures
//! (`exports::fortran`), in a member of `libompdevice.a` of their own (the
//! Fortran runtime member, built with the `fortran` feature): nvlink takes
//! it only for a program that calls one of them, and a kernel that calls
//! none pays nothing. They keep no per-team state, so their member needs
//! none of the OpenMP runtime's.
//!
//! Which entry points exist, which trap and why: `docs/fortran-runtime.md`.
//! All memory access goes through [`memory`]; everything else here is safe
//! code over descriptors ([`descriptor::Desc`]) and type descriptions
//! ([`type_info::TypeInfo`]).

pub mod allocatable;
pub mod array_constructor;
pub mod assign;
pub mod character;
pub mod decimal;
pub mod derived;
pub mod descriptor;
pub mod edit;
pub mod float;
pub mod format;
pub mod inquiry;
pub mod kinds;
pub mod memory;
pub mod numeric;
pub mod output;
pub mod random;
pub mod reduction;
pub mod terminator;
pub mod time;
pub mod transformational;
pub mod type_info;
pub mod work;
