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
//! Registers: nvlink gives a kernel the registers of the largest function
//! it may call, so the runtime's largest function sets the count of every
//! kernel that may reach it, a `PRINT` on a path never taken included. In a
//! function that calls others, ptxas keeps what lives across the calls in
//! callee-saved registers and numbers its other values above them: a
//! function that holds many values around its calls takes many. The
//! runtime keeps its steps functions of their own, `#[inline(never)]` where
//! the optimiser would merge them (a walk's carry into the next dimension,
//! the digits of a conversion, the pass over a derived type's components).
//! The output code and the reductions without `DIM=` take no more registers
//! than `__kmpc_parallel_60`, which every flang kernel with a parallel
//! region pays already (lowering test
//! `fortran_output_and_total_reductions_take_no_more_registers_than_a_region_call`);
//! `docs/fortran-runtime.md` ("Cost") gives the others' figures.
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
