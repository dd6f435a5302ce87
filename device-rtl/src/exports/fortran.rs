//! The C ABI of flang's Fortran runtime on the device: each `_FortranA*`
//! entry point with flang-rt's exact signature (flang 22's
//! `flang/Runtime/*.h`, as flang declares them in device IR), a one-line
//! delegate into [`crate::fortran`]. flang's pointers become addresses here
//! ([`Addr::from_flang`]), under flang's contract: descriptors describe
//! memory the program owns, strings have the lengths passed with them,
//! source files are NUL-terminated or null.
//!
//! Built into the Fortran runtime member of `libompdevice.a` only (the
//! `fortran` feature); always in the host simulation.

use super::*;
use crate::fortran::allocatable;
use crate::fortran::array_constructor;
use crate::fortran::assign;
use crate::fortran::character::{self, Chars};
use crate::fortran::derived;
use crate::fortran::inquiry;
use crate::fortran::descriptor::{self, Desc};
use crate::fortran::decimal::Format;
use crate::fortran::kinds;
use crate::fortran::output;
use crate::fortran::memory::{self, Addr, Logical};
use crate::fortran::numeric;
use crate::fortran::random;
use crate::fortran::reduction::{
    self as red, Bitwise, Complex, ComplexProduct, ComplexSum, Extremum, IntProduct, IntSum, Norm2, RealProduct, RealSum,
};
use crate::fortran::terminator::{self, Site};
use crate::fortran::time;
use crate::fortran::transformational as tf;
use crate::fortran::type_info::TypeInfo;

/// The descriptor flang passes at `p`.
///
/// # Safety
/// `p` is a descriptor of flang's (module docs).
#[inline(always)]
unsafe fn desc(p: *const c_void) -> Desc {
    // SAFETY: forwarded from the caller.
    Desc(unsafe { Addr::from_flang(p) })
}

/// An optional descriptor argument (`MASK=`, `PAD=`, ...): null when absent.
///
/// # Safety
/// `p` is null or a descriptor of flang's.
#[inline(always)]
unsafe fn optional(p: *const c_void) -> Option<Desc> {
    // SAFETY: forwarded from the caller.
    if p.is_null() { None } else { Some(unsafe { desc(p) }) }
}

/// The source position flang passes (`sourceFile`, `sourceLine`).
///
/// # Safety
/// `file` is null or a NUL-terminated string of flang's.
#[inline(always)]
unsafe fn site(file: *const c_void, line: i32) -> Site {
    // SAFETY: forwarded from the caller.
    Site { file: unsafe { Addr::from_flang(file) }, line }
}

/// A type description flang passes (never null).
///
/// # Safety
/// `p` is flang's description of a derived type.
#[inline(always)]
unsafe fn type_info(p: *const c_void) -> TypeInfo {
    // SAFETY: forwarded from the caller.
    TypeInfo::at(unsafe { Addr::from_flang(p) }).unwrap_or_else(|| terminator::crash_with(Site::UNKNOWN, b"a null derived type description"))
}

/// A string argument of `len` characters of one byte.
///
/// # Safety
/// `p` points to `len` bytes of flang's.
#[inline(always)]
unsafe fn chars1(p: *const c_void, len: i64) -> Chars {
    // SAFETY: forwarded from the caller.
    Chars::kind1(unsafe { Addr::from_flang(p) }, len.max(0) as usize)
}

// ---------------------------------------------------------------------------
// Assignment (assign.h)

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAssign(to: VoidPtr, from: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: flang's descriptors and source position.
    unsafe { assign::assign_entry(desc(to), desc(from), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAssignTemporary(to: VoidPtr, from: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: as above.
    unsafe { assign::assign_temporary(desc(to), desc(from), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranACopyInAssign(temp: VoidPtr, var: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: as above.
    unsafe { assign::copy_in_assign(desc(temp), desc(var), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranACopyOutAssign(var: VoidPtr, temp: VoidPtr, file: *const c_void, line: i32) {
    // SAFETY: as above; `var` may be null.
    unsafe { assign::copy_out_assign(optional(var), desc(temp), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAssignExplicitLengthCharacter(to: VoidPtr, from: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: as above.
    unsafe { assign::assign_explicit_length_character(desc(to), desc(from), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAssignPolymorphic(to: VoidPtr, from: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: as above.
    unsafe { assign::assign_polymorphic(desc(to), desc(from), site(file, line)) }
}

// ---------------------------------------------------------------------------
// Derived types (derived-api.h)

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAInitialize(d: *const c_void, _file: *const c_void, _line: i32) {
    // SAFETY: flang's descriptor.
    let d = unsafe { desc(d) };
    if let Some(t) = d.derived_type().filter(|t| !t.no_initialization_needed()) {
        derived::initialize(d, t);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranADestroy(d: *const c_void) {
    // SAFETY: flang's descriptor.
    let d = unsafe { desc(d) };
    if let Some(t) = d.derived_type() {
        derived::destroy(d, true, t);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranADestroyWithoutFinalization(d: *const c_void) {
    // SAFETY: flang's descriptor.
    let d = unsafe { desc(d) };
    if let Some(t) = d.derived_type() {
        derived::destroy(d, false, t);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAFinalize(d: *const c_void, _file: *const c_void, _line: i32) {
    // SAFETY: flang's descriptor.
    let d = unsafe { desc(d) };
    if let Some(t) = d.derived_type() {
        derived::finalize(d, t);
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAClassIs(d: *const c_void, derived_type: *const c_void) -> bool {
    // SAFETY: flang's descriptor and type description.
    unsafe { derived::class_is(desc(d), type_info(derived_type)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranASameTypeAs(a: *const c_void, b: *const c_void) -> bool {
    // SAFETY: flang's descriptors.
    unsafe { derived::same_type_as(desc(a), desc(b)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAExtendsTypeOf(a: *const c_void, mold: *const c_void) -> bool {
    // SAFETY: flang's descriptors.
    unsafe { derived::extends_type_of(desc(a), desc(mold)) }
}

// ---------------------------------------------------------------------------
// Allocatables and pointers (allocatable.h, pointer.h, misc)

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAllocatableSetBounds(d: VoidPtr, zero_based_dim: i32, lower: i64, upper: i64) {
    // SAFETY: flang's descriptor; the dimension is within its rank.
    unsafe { allocatable::set_bounds(desc(d), zero_based_dim as usize, lower, upper) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAllocatableAllocate(
    d: VoidPtr,
    _async_object: *mut i64,
    has_stat: bool,
    errmsg: *const c_void,
    file: *const c_void,
    line: i32,
    _memcpy: *const c_void,
) -> i32 {
    // SAFETY: flang's descriptors (ERRMSG= may be null). The asynchronous
    // stream and copy function are CUDA Fortran's: the device heap needs neither.
    unsafe { allocatable::allocate(desc(d), has_stat, optional(errmsg), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAllocatableDeallocate(
    d: VoidPtr,
    has_stat: bool,
    errmsg: *const c_void,
    file: *const c_void,
    line: i32,
) -> i32 {
    // SAFETY: as above.
    unsafe { allocatable::deallocate(desc(d), has_stat, optional(errmsg), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAllocatableAllocateSource(
    d: VoidPtr,
    source: *const c_void,
    has_stat: bool,
    errmsg: *const c_void,
    file: *const c_void,
    line: i32,
) -> i32 {
    // SAFETY: flang's descriptors (ERRMSG= may be null).
    unsafe { allocatable::allocate_source(desc(d), desc(source), has_stat, optional(errmsg), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAPointerSetBounds(d: VoidPtr, zero_based_dim: i32, lower: i64, upper: i64) {
    // SAFETY: flang's descriptor; the dimension is within its rank.
    unsafe { allocatable::pointer_set_bounds(desc(d), zero_based_dim as usize, lower, upper) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAPointerAllocate(
    d: VoidPtr,
    has_stat: bool,
    errmsg: *const c_void,
    file: *const c_void,
    line: i32,
    _memcpy: *const c_void,
) -> i32 {
    // SAFETY: flang's descriptors (ERRMSG= may be null). The copy function
    // is CUDA Fortran's: the device heap needs none.
    unsafe { allocatable::pointer_allocate(desc(d), has_stat, optional(errmsg), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAPointerAllocateSource(
    d: VoidPtr,
    source: *const c_void,
    has_stat: bool,
    errmsg: *const c_void,
    file: *const c_void,
    line: i32,
) -> i32 {
    // SAFETY: flang's descriptors (ERRMSG= may be null).
    unsafe { allocatable::pointer_allocate_source(desc(d), desc(source), has_stat, optional(errmsg), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAPointerDeallocate(
    d: VoidPtr,
    has_stat: bool,
    errmsg: *const c_void,
    file: *const c_void,
    line: i32,
) -> i32 {
    // SAFETY: as above.
    unsafe { allocatable::pointer_deallocate(desc(d), has_stat, optional(errmsg), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAMoveAlloc(
    to: VoidPtr,
    from: VoidPtr,
    from_type: *const c_void,
    has_stat: bool,
    errmsg: *const c_void,
    file: *const c_void,
    line: i32,
) -> i32 {
    // SAFETY: flang's descriptors, and its type description of FROM (or null).
    unsafe { allocatable::move_alloc(desc(to), desc(from), Addr::from_flang(from_type), has_stat, optional(errmsg), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAllocatableApplyMold(d: VoidPtr, mold: *const c_void, rank: i32) {
    // SAFETY: flang's descriptors; `d` has room for `rank` dimensions.
    unsafe { allocatable::apply_mold_allocatable(desc(d), desc(mold), rank as usize) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAPointerApplyMold(d: VoidPtr, mold: *const c_void, rank: i32) {
    // SAFETY: as above.
    unsafe { allocatable::apply_mold_pointer(desc(d), desc(mold), rank as usize) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAllocatableInitDerivedForAllocate(d: VoidPtr, derived_type: *const c_void, rank: i32, corank: i32) {
    // SAFETY: flang's descriptor, with room for `rank` dimensions and an
    // addendum, and its type description.
    unsafe { allocatable::init_derived_for_allocate(desc(d), type_info(derived_type), rank as usize, corank) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAPointerNullifyDerived(d: VoidPtr, derived_type: *const c_void, rank: i32, corank: i32) {
    // SAFETY: as above.
    unsafe { allocatable::nullify_derived(desc(d), type_info(derived_type), rank as usize, corank) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAllocatableDeallocatePolymorphic(
    d: VoidPtr,
    declared_type: *const c_void,
    has_stat: bool,
    errmsg: *const c_void,
    file: *const c_void,
    line: i32,
) -> i32 {
    // SAFETY: flang's descriptors (ERRMSG= may be null) and its type
    // description of the declared type (null: unlimited polymorphic).
    unsafe {
        let declared = TypeInfo::at(Addr::from_flang(declared_type));
        allocatable::deallocate_polymorphic(desc(d), declared, has_stat, optional(errmsg), site(file, line))
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAPointerDeallocatePolymorphic(
    d: VoidPtr,
    declared_type: *const c_void,
    has_stat: bool,
    errmsg: *const c_void,
    file: *const c_void,
    line: i32,
) -> i32 {
    // SAFETY: as above.
    unsafe {
        let declared = TypeInfo::at(Addr::from_flang(declared_type));
        allocatable::pointer_deallocate_polymorphic(desc(d), declared, has_stat, optional(errmsg), site(file, line))
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAIsContiguous(d: *const c_void) -> bool {
    // SAFETY: flang's descriptor.
    unsafe { desc(d) }.is_contiguous()
}

// Shape inquiry of an assumed-rank array (inquiry.h).

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranASize(array: *const c_void, _file: *const c_void, _line: i32) -> i64 {
    // SAFETY: flang's descriptor.
    inquiry::size(unsafe { desc(array) })
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranASizeDim(array: *const c_void, dim: i32, file: *const c_void, line: i32) -> i64 {
    // SAFETY: flang's descriptor and source position.
    unsafe { inquiry::size_dim(desc(array), dim, site(file, line)) }
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranALboundDim(array: *const c_void, dim: i32, file: *const c_void, line: i32) -> i64 {
    // SAFETY: flang's descriptor and source position.
    unsafe { inquiry::lbound_dim(desc(array), dim, site(file, line)) }
}
/// `result` holds one INTEGER(`kind`) per dimension of `array`, as for
/// `Lbound` and `Ubound`.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAShape(result: VoidPtr, array: *const c_void, kind: i32, file: *const c_void, line: i32) {
    // SAFETY: flang's result buffer, descriptor and source position.
    unsafe { inquiry::store_per_dimension(Addr::from_flang(result), desc(array), inquiry::PerDimension::Extent, kind, site(file, line)) }
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranALbound(result: VoidPtr, array: *const c_void, kind: i32, file: *const c_void, line: i32) {
    // SAFETY: flang's result buffer, descriptor and source position.
    unsafe { inquiry::store_per_dimension(Addr::from_flang(result), desc(array), inquiry::PerDimension::Lower, kind, site(file, line)) }
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAUbound(result: VoidPtr, array: *const c_void, kind: i32, file: *const c_void, line: i32) {
    // SAFETY: flang's result buffer, descriptor and source position.
    unsafe { inquiry::store_per_dimension(Addr::from_flang(result), desc(array), inquiry::PerDimension::Upper, kind, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAIsAssumedSize(d: *const c_void) -> bool {
    // SAFETY: flang's descriptor.
    unsafe { desc(d) }.is_assumed_size()
}

/// `new_type` is null to keep `from`'s dynamic type.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranACopyAndUpdateDescriptor(
    to: VoidPtr,
    from: *const c_void,
    new_type: *const c_void,
    attribute: u8,
    lower_bounds: i32,
) {
    // SAFETY: flang's descriptors and an optional type description.
    unsafe { descriptor::copy_and_update(desc(to), desc(from), TypeInfo::at(Addr::from_flang(new_type)), attribute, lower_bounds) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAPointerIsAssociatedWith(pointer: *const c_void, target: *const c_void) -> bool {
    // SAFETY: flang's descriptors (the target may be null).
    unsafe { allocatable::is_associated_with(desc(pointer), optional(target)) }
}

// ---------------------------------------------------------------------------
// Array constructors (array-constructor-consts.h)

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAInitArrayConstructorVector(
    vector: VoidPtr,
    to: VoidPtr,
    use_value_length: bool,
    file: *const c_void,
    line: i32,
) {
    // SAFETY: flang's storage of MaxArrayConstructorVectorSizeInBytes for the
    // runtime's record, and its result descriptor.
    unsafe { array_constructor::init(Addr::from_flang(vector), desc(to), use_value_length, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAPushArrayConstructorValue(vector: VoidPtr, from: *const c_void) {
    // SAFETY: the record `_FortranAInitArrayConstructorVector` filled in, and flang's descriptor.
    unsafe { array_constructor::push_value(Addr::from_flang(vector), desc(from)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAPushArrayConstructorSimpleScalar(vector: VoidPtr, from: VoidPtr) {
    // SAFETY: as above; `from` is one element of the constructor's type.
    unsafe { array_constructor::push_simple_scalar(Addr::from_flang(vector), Addr::from_flang(from)) }
}

// ---------------------------------------------------------------------------
// Reductions (reduction.h, complex-reduction.h)

/// `<Name><Type>(array, source, line, dim, mask) -> T` for each type.
macro_rules! total_reductions {
    ($($name:ident: $fold:ident<$t:ty> = $intrinsic:literal;)*) => {$(
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $name(x: *const c_void, file: *const c_void, line: i32, dim: i32, mask: *const c_void) -> $t {
            // SAFETY: flang's descriptors (MASK= may be null) and source position.
            unsafe { red::total::<$fold<$t>>(desc(x), dim, optional(mask), $intrinsic, site(file, line)) }
        }
    )*};
}

total_reductions! {
    _FortranASumInteger1: IntSum<i8> = b"SUM";
    _FortranASumInteger2: IntSum<i16> = b"SUM";
    _FortranASumInteger4: IntSum<i32> = b"SUM";
    _FortranASumInteger8: IntSum<i64> = b"SUM";
    _FortranASumReal4: RealSum<f32> = b"SUM";
    _FortranASumReal8: RealSum<f64> = b"SUM";
    _FortranAProductInteger1: IntProduct<i8> = b"PRODUCT";
    _FortranAProductInteger2: IntProduct<i16> = b"PRODUCT";
    _FortranAProductInteger4: IntProduct<i32> = b"PRODUCT";
    _FortranAProductInteger8: IntProduct<i64> = b"PRODUCT";
    _FortranAProductReal4: RealProduct<f32> = b"PRODUCT";
    _FortranAProductReal8: RealProduct<f64> = b"PRODUCT";
    _FortranAMaxvalInteger1: Max<i8> = b"MAXVAL";
    _FortranAMaxvalInteger2: Max<i16> = b"MAXVAL";
    _FortranAMaxvalInteger4: Max<i32> = b"MAXVAL";
    _FortranAMaxvalInteger8: Max<i64> = b"MAXVAL";
    _FortranAMaxvalReal4: Max<f32> = b"MAXVAL";
    _FortranAMaxvalReal8: Max<f64> = b"MAXVAL";
    _FortranAMinvalInteger1: Min<i8> = b"MINVAL";
    _FortranAMinvalInteger2: Min<i16> = b"MINVAL";
    _FortranAMinvalInteger4: Min<i32> = b"MINVAL";
    _FortranAMinvalInteger8: Min<i64> = b"MINVAL";
    _FortranAMinvalReal4: Min<f32> = b"MINVAL";
    _FortranAMinvalReal8: Min<f64> = b"MINVAL";
    _FortranAIAll1: IAll<i8> = b"IALL";
    _FortranAIAll2: IAll<i16> = b"IALL";
    _FortranAIAll4: IAll<i32> = b"IALL";
    _FortranAIAll8: IAll<i64> = b"IALL";
    _FortranAIAny1: IAny<i8> = b"IANY";
    _FortranAIAny2: IAny<i16> = b"IANY";
    _FortranAIAny4: IAny<i32> = b"IANY";
    _FortranAIAny8: IAny<i64> = b"IANY";
    _FortranAIParity1: IParity<i8> = b"IPARITY";
    _FortranAIParity2: IParity<i16> = b"IPARITY";
    _FortranAIParity4: IParity<i32> = b"IPARITY";
    _FortranAIParity8: IParity<i64> = b"IPARITY";
}

/// `Cpp<Name>Complex<k>(result, array, source, line, dim, mask)`: the
/// complex value through `result`.
macro_rules! complex_total_reductions {
    ($($name:ident: $fold:ident<$t:ty> = $intrinsic:literal;)*) => {$(
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $name(result: VoidPtr, x: *const c_void, file: *const c_void, line: i32, dim: i32, mask: *const c_void) {
            // SAFETY: flang's storage for a complex of the kind, its
            // descriptors (MASK= may be null) and source position.
            unsafe { Addr::from_flang(result).store(red::total::<$fold<$t>>(desc(x), dim, optional(mask), $intrinsic, site(file, line))) }
        }
    )*};
}

complex_total_reductions! {
    _FortranACppSumComplex4: ComplexSum<f32> = b"SUM";
    _FortranACppSumComplex8: ComplexSum<f64> = b"SUM";
    _FortranACppProductComplex4: ComplexProduct<f32> = b"PRODUCT";
    _FortranACppProductComplex8: ComplexProduct<f64> = b"PRODUCT";
}

type Max<T> = Extremum<T, true>;
type Min<T> = Extremum<T, false>;
type IAll<T> = Bitwise<T, 0>;
type IAny<T> = Bitwise<T, 1>;
type IParity<T> = Bitwise<T, 2>;

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranANorm2_4(x: *const c_void, file: *const c_void, line: i32, dim: i32) -> f32 {
    // SAFETY: flang's descriptor and source position.
    unsafe { red::total::<Norm2<f32>>(desc(x), dim, None, b"NORM2", site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranANorm2_8(x: *const c_void, file: *const c_void, line: i32, dim: i32) -> f64 {
    // SAFETY: as above.
    unsafe { red::total::<Norm2<f64>>(desc(x), dim, None, b"NORM2", site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranANorm2Dim(result: VoidPtr, x: *const c_void, dim: i32, file: *const c_void, line: i32) {
    // SAFETY: flang's result descriptor (storage for rank - 1 dimensions) and array.
    unsafe { red::norm2_dim(desc(result), desc(x), dim, site(file, line)) }
}

/// `<Name>Dim(result, array, dim, source, line, mask)`.
macro_rules! dim_reductions {
    ($($name:ident => $body:expr;)*) => {$(
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $name(result: VoidPtr, x: *const c_void, dim: i32, file: *const c_void, line: i32, mask: *const c_void) {
            // SAFETY: flang's result descriptor (storage for rank - 1
            // dimensions), array and mask (or null), and source position.
            let (result, x, mask, s) = unsafe { (desc(result), desc(x), optional(mask), site(file, line)) };
            let f: fn(Desc, Desc, i32, Option<Desc>, Site) = $body;
            f(result, x, dim, mask, s)
        }
    )*};
}

dim_reductions! {
    _FortranASumDim => red::sum_dim;
    _FortranAProductDim => red::product_dim;
    _FortranAMaxvalDim => |r, x, d, m, s| red::extremum_dim(r, x, d, m, true, s);
    _FortranAMinvalDim => |r, x, d, m, s| red::extremum_dim(r, x, d, m, false, s);
    _FortranAIAllDim => |r, x, d, m, s| red::bitwise_dim::<0>(r, x, d, m, b"IALL", s);
    _FortranAIAnyDim => |r, x, d, m, s| red::bitwise_dim::<1>(r, x, d, m, b"IANY", s);
    _FortranAIParityDim => |r, x, d, m, s| red::bitwise_dim::<2>(r, x, d, m, b"IPARITY", s);
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAMaxvalCharacter(result: VoidPtr, x: *const c_void, file: *const c_void, line: i32, mask: *const c_void) {
    // SAFETY: flang's result descriptor (a scalar's), array and mask (or null).
    unsafe { red::character_extremum(desc(result), desc(x), 0, optional(mask), true, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAMinvalCharacter(result: VoidPtr, x: *const c_void, file: *const c_void, line: i32, mask: *const c_void) {
    // SAFETY: as above.
    unsafe { red::character_extremum(desc(result), desc(x), 0, optional(mask), false, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranACount(mask: *const c_void, file: *const c_void, line: i32, dim: i32) -> i64 {
    // SAFETY: flang's descriptor and source position.
    unsafe { red::count(desc(mask), dim, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranACountDim(result: VoidPtr, mask: *const c_void, dim: i32, kind: i32, file: *const c_void, line: i32) {
    // SAFETY: flang's result descriptor and mask.
    unsafe { red::count_dim(desc(result), desc(mask), dim, kind, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAll(mask: *const c_void, file: *const c_void, line: i32, _dim: i32) -> bool {
    // SAFETY: flang's descriptor and source position.
    unsafe { red::all_any(desc(mask), true, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAny(mask: *const c_void, file: *const c_void, line: i32, _dim: i32) -> bool {
    // SAFETY: as above.
    unsafe { red::all_any(desc(mask), false, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAllDim(result: VoidPtr, mask: *const c_void, dim: i32, file: *const c_void, line: i32) {
    // SAFETY: flang's result descriptor and mask.
    unsafe { red::all_any_dim(desc(result), desc(mask), dim, true, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAnyDim(result: VoidPtr, mask: *const c_void, dim: i32, file: *const c_void, line: i32) {
    // SAFETY: as above.
    unsafe { red::all_any_dim(desc(result), desc(mask), dim, false, site(file, line)) }
}

/// `Maxloc<Type>`/`Minloc<Type>(result, array, kind, source, line, mask, back)`.
macro_rules! locations {
    ($($name:ident: $t:ty, $max:literal;)*) => {$(
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $name(result: VoidPtr, x: *const c_void, kind: i32, file: *const c_void, line: i32, mask: *const c_void, back: bool) {
            // SAFETY: flang's result descriptor (a vector's), array, mask (or
            // null) and source position.
            unsafe { red::extremum_location::<$t>(desc(result), desc(x), kind, optional(mask), back, $max, site(file, line)) }
        }
    )*};
}

locations! {
    _FortranAMaxlocInteger1: i8, true;
    _FortranAMaxlocInteger2: i16, true;
    _FortranAMaxlocInteger4: i32, true;
    _FortranAMaxlocInteger8: i64, true;
    _FortranAMaxlocReal4: f32, true;
    _FortranAMaxlocReal8: f64, true;
    _FortranAMinlocInteger1: i8, false;
    _FortranAMinlocInteger2: i16, false;
    _FortranAMinlocInteger4: i32, false;
    _FortranAMinlocInteger8: i64, false;
    _FortranAMinlocReal4: f32, false;
    _FortranAMinlocReal8: f64, false;
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAMaxlocCharacter(
    result: VoidPtr,
    x: *const c_void,
    kind: i32,
    file: *const c_void,
    line: i32,
    mask: *const c_void,
    back: bool,
) {
    // SAFETY: as for the numeric locations.
    unsafe { red::character_location(desc(result), desc(x), kind, optional(mask), back, true, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAMinlocCharacter(
    result: VoidPtr,
    x: *const c_void,
    kind: i32,
    file: *const c_void,
    line: i32,
    mask: *const c_void,
    back: bool,
) {
    // SAFETY: as above.
    unsafe { red::character_location(desc(result), desc(x), kind, optional(mask), back, false, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAMaxlocDim(
    result: VoidPtr,
    x: *const c_void,
    kind: i32,
    dim: i32,
    file: *const c_void,
    line: i32,
    mask: *const c_void,
    back: bool,
) {
    // SAFETY: flang's result descriptor, array, mask (or null) and source position.
    unsafe { red::extremum_location_dim(desc(result), desc(x), kind, dim, optional(mask), back, true, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAMinlocDim(
    result: VoidPtr,
    x: *const c_void,
    kind: i32,
    dim: i32,
    file: *const c_void,
    line: i32,
    mask: *const c_void,
    back: bool,
) {
    // SAFETY: as above.
    unsafe { red::extremum_location_dim(desc(result), desc(x), kind, dim, optional(mask), back, false, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAFindloc(
    result: VoidPtr,
    x: *const c_void,
    target: *const c_void,
    kind: i32,
    file: *const c_void,
    line: i32,
    mask: *const c_void,
    back: bool,
) {
    // SAFETY: flang's result descriptor, array, VALUE= (a scalar's
    // descriptor), mask (or null) and source position.
    unsafe { red::findloc(desc(result), desc(x), desc(target), kind, optional(mask), back, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAFindlocDim(
    result: VoidPtr,
    x: *const c_void,
    target: *const c_void,
    kind: i32,
    dim: i32,
    file: *const c_void,
    line: i32,
    mask: *const c_void,
    back: bool,
) {
    // SAFETY: as above.
    unsafe { red::findloc_dim(desc(result), desc(x), desc(target), kind, dim, optional(mask), back, site(file, line)) }
}

/// `DotProduct<Type>(x, y, source, line) -> T`.
macro_rules! dot_products {
    ($($name:ident -> $t:ty = $body:expr;)*) => {$(
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $name(x: *const c_void, y: *const c_void, file: *const c_void, line: i32) -> $t {
            // SAFETY: flang's descriptors and source position.
            let (x, y, s) = unsafe { (desc(x), desc(y), site(file, line)) };
            let f: fn(Desc, Desc, Site) -> $t = $body;
            f(x, y, s)
        }
    )*};
}

dot_products! {
    _FortranADotProductInteger1 -> i8 = red::dot_product_int::<i8>;
    _FortranADotProductInteger2 -> i16 = red::dot_product_int::<i16>;
    _FortranADotProductInteger4 -> i32 = red::dot_product_int::<i32>;
    _FortranADotProductInteger8 -> i64 = red::dot_product_int::<i64>;
    _FortranADotProductReal4 -> f32 = |x, y, s| red::dot_product_real(x, y, s) as f32;
    _FortranADotProductReal8 -> f64 = red::dot_product_real;
    _FortranADotProductLogical -> bool = red::dot_product_logical;
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranACppDotProductComplex4(result: VoidPtr, x: *const c_void, y: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: flang's storage for a COMPLEX(4), its descriptors and source position.
    let (result, x, y, s) = unsafe { (Addr::from_flang(result), desc(x), desc(y), site(file, line)) };
    let z = red::dot_product_complex(x, y, s);
    result.store(Complex { re: z.re as f32, im: z.im as f32 });
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranACppDotProductComplex8(result: VoidPtr, x: *const c_void, y: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: flang's storage for a COMPLEX(8), its descriptors and source position.
    let (result, x, y, s) = unsafe { (Addr::from_flang(result), desc(x), desc(y), site(file, line)) };
    result.store(red::dot_product_complex(x, y, s));
}

// ---------------------------------------------------------------------------
// Array transformations (matmul.h, transformational.h)

/// `Matmul<A><B>(result, x, y, source, line)`.
macro_rules! matmuls {
    ($($name:ident($x:ty, $y:ty) -> $t:ty;)*) => {$(
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $name(result: VoidPtr, x: *const c_void, y: *const c_void, file: *const c_void, line: i32) {
            // SAFETY: flang's result descriptor, operands and source position.
            unsafe { tf::matmul::<$x, $y, $t>(desc(result), desc(x), desc(y), site(file, line)) }
        }
    )*};
}

matmuls! {
    _FortranAMatmulInteger1Integer1(i8, i8) -> i8;
    _FortranAMatmulInteger2Integer2(i16, i16) -> i16;
    _FortranAMatmulInteger4Integer4(i32, i32) -> i32;
    _FortranAMatmulInteger8Integer8(i64, i64) -> i64;
    _FortranAMatmulReal4Real4(f32, f32) -> f32;
    _FortranAMatmulReal8Real8(f64, f64) -> f64;
    // Mixed INTEGER and REAL kinds: REAL of the greater REAL kind when either
    // operand is REAL, else INTEGER of the greater kind.
    _FortranAMatmulInteger1Integer2(i8, i16) -> i16;
    _FortranAMatmulInteger1Integer4(i8, i32) -> i32;
    _FortranAMatmulInteger1Integer8(i8, i64) -> i64;
    _FortranAMatmulInteger1Real4(i8, f32) -> f32;
    _FortranAMatmulInteger1Real8(i8, f64) -> f64;
    _FortranAMatmulInteger2Integer1(i16, i8) -> i16;
    _FortranAMatmulInteger2Integer4(i16, i32) -> i32;
    _FortranAMatmulInteger2Integer8(i16, i64) -> i64;
    _FortranAMatmulInteger2Real4(i16, f32) -> f32;
    _FortranAMatmulInteger2Real8(i16, f64) -> f64;
    _FortranAMatmulInteger4Integer1(i32, i8) -> i32;
    _FortranAMatmulInteger4Integer2(i32, i16) -> i32;
    _FortranAMatmulInteger4Integer8(i32, i64) -> i64;
    _FortranAMatmulInteger4Real4(i32, f32) -> f32;
    _FortranAMatmulInteger4Real8(i32, f64) -> f64;
    _FortranAMatmulInteger8Integer1(i64, i8) -> i64;
    _FortranAMatmulInteger8Integer2(i64, i16) -> i64;
    _FortranAMatmulInteger8Integer4(i64, i32) -> i64;
    _FortranAMatmulInteger8Real4(i64, f32) -> f32;
    _FortranAMatmulInteger8Real8(i64, f64) -> f64;
    _FortranAMatmulReal4Integer1(f32, i8) -> f32;
    _FortranAMatmulReal4Integer2(f32, i16) -> f32;
    _FortranAMatmulReal4Integer4(f32, i32) -> f32;
    _FortranAMatmulReal4Integer8(f32, i64) -> f32;
    _FortranAMatmulReal4Real8(f32, f64) -> f64;
    _FortranAMatmulReal8Integer1(f64, i8) -> f64;
    _FortranAMatmulReal8Integer2(f64, i16) -> f64;
    _FortranAMatmulReal8Integer4(f64, i32) -> f64;
    _FortranAMatmulReal8Integer8(f64, i64) -> f64;
    _FortranAMatmulReal8Real4(f64, f32) -> f64;
    // LOGICAL: LOGICAL of the greater kind, `ANY(x(i, :) .AND. y(:, j))`.
    _FortranAMatmulLogical1Logical1(Logical<u8>, Logical<u8>) -> Logical<u8>;
    _FortranAMatmulLogical1Logical2(Logical<u8>, Logical<u16>) -> Logical<u16>;
    _FortranAMatmulLogical1Logical4(Logical<u8>, Logical<u32>) -> Logical<u32>;
    _FortranAMatmulLogical1Logical8(Logical<u8>, Logical<u64>) -> Logical<u64>;
    _FortranAMatmulLogical2Logical1(Logical<u16>, Logical<u8>) -> Logical<u16>;
    _FortranAMatmulLogical2Logical2(Logical<u16>, Logical<u16>) -> Logical<u16>;
    _FortranAMatmulLogical2Logical4(Logical<u16>, Logical<u32>) -> Logical<u32>;
    _FortranAMatmulLogical2Logical8(Logical<u16>, Logical<u64>) -> Logical<u64>;
    _FortranAMatmulLogical4Logical1(Logical<u32>, Logical<u8>) -> Logical<u32>;
    _FortranAMatmulLogical4Logical2(Logical<u32>, Logical<u16>) -> Logical<u32>;
    _FortranAMatmulLogical4Logical4(Logical<u32>, Logical<u32>) -> Logical<u32>;
    _FortranAMatmulLogical4Logical8(Logical<u32>, Logical<u64>) -> Logical<u64>;
    _FortranAMatmulLogical8Logical1(Logical<u64>, Logical<u8>) -> Logical<u64>;
    _FortranAMatmulLogical8Logical2(Logical<u64>, Logical<u16>) -> Logical<u64>;
    _FortranAMatmulLogical8Logical4(Logical<u64>, Logical<u32>) -> Logical<u64>;
    _FortranAMatmulLogical8Logical8(Logical<u64>, Logical<u64>) -> Logical<u64>;
    // Either operand COMPLEX: a COMPLEX result of the greater real or
    // complex kind, the plain product (no conjugation).
    _FortranAMatmulInteger1Complex4(i8, Complex<f32>) -> Complex<f32>;
    _FortranAMatmulInteger1Complex8(i8, Complex<f64>) -> Complex<f64>;
    _FortranAMatmulInteger2Complex4(i16, Complex<f32>) -> Complex<f32>;
    _FortranAMatmulInteger2Complex8(i16, Complex<f64>) -> Complex<f64>;
    _FortranAMatmulInteger4Complex4(i32, Complex<f32>) -> Complex<f32>;
    _FortranAMatmulInteger4Complex8(i32, Complex<f64>) -> Complex<f64>;
    _FortranAMatmulInteger8Complex4(i64, Complex<f32>) -> Complex<f32>;
    _FortranAMatmulInteger8Complex8(i64, Complex<f64>) -> Complex<f64>;
    _FortranAMatmulReal4Complex4(f32, Complex<f32>) -> Complex<f32>;
    _FortranAMatmulReal4Complex8(f32, Complex<f64>) -> Complex<f64>;
    _FortranAMatmulReal8Complex4(f64, Complex<f32>) -> Complex<f64>;
    _FortranAMatmulReal8Complex8(f64, Complex<f64>) -> Complex<f64>;
    _FortranAMatmulComplex4Integer1(Complex<f32>, i8) -> Complex<f32>;
    _FortranAMatmulComplex4Integer2(Complex<f32>, i16) -> Complex<f32>;
    _FortranAMatmulComplex4Integer4(Complex<f32>, i32) -> Complex<f32>;
    _FortranAMatmulComplex4Integer8(Complex<f32>, i64) -> Complex<f32>;
    _FortranAMatmulComplex4Real4(Complex<f32>, f32) -> Complex<f32>;
    _FortranAMatmulComplex4Real8(Complex<f32>, f64) -> Complex<f64>;
    _FortranAMatmulComplex4Complex4(Complex<f32>, Complex<f32>) -> Complex<f32>;
    _FortranAMatmulComplex4Complex8(Complex<f32>, Complex<f64>) -> Complex<f64>;
    _FortranAMatmulComplex8Integer1(Complex<f64>, i8) -> Complex<f64>;
    _FortranAMatmulComplex8Integer2(Complex<f64>, i16) -> Complex<f64>;
    _FortranAMatmulComplex8Integer4(Complex<f64>, i32) -> Complex<f64>;
    _FortranAMatmulComplex8Integer8(Complex<f64>, i64) -> Complex<f64>;
    _FortranAMatmulComplex8Real4(Complex<f64>, f32) -> Complex<f64>;
    _FortranAMatmulComplex8Real8(Complex<f64>, f64) -> Complex<f64>;
    _FortranAMatmulComplex8Complex4(Complex<f64>, Complex<f32>) -> Complex<f64>;
    _FortranAMatmulComplex8Complex8(Complex<f64>, Complex<f64>) -> Complex<f64>;
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranATranspose(result: VoidPtr, matrix: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: flang's descriptors and source position.
    unsafe { tf::transpose(desc(result), desc(matrix), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAReshape(
    result: VoidPtr,
    source: *const c_void,
    shape: *const c_void,
    pad: *const c_void,
    order: *const c_void,
    file: *const c_void,
    line: i32,
) {
    // SAFETY: flang's descriptors (PAD= and ORDER= may be null).
    unsafe { tf::reshape(desc(result), desc(source), desc(shape), optional(pad), optional(order), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranATransfer(result: VoidPtr, source: *const c_void, mold: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: flang's descriptors and source position.
    unsafe { tf::transfer(desc(result), desc(source), desc(mold), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranATransferSize(
    result: VoidPtr,
    source: *const c_void,
    mold: *const c_void,
    file: *const c_void,
    line: i32,
    size: i64,
) {
    // SAFETY: as above.
    unsafe { tf::transfer_size(desc(result), desc(source), desc(mold), size, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAPack(
    result: VoidPtr,
    source: *const c_void,
    mask: *const c_void,
    vector: *const c_void,
    file: *const c_void,
    line: i32,
) {
    // SAFETY: flang's descriptors (VECTOR= may be null).
    unsafe { tf::pack(desc(result), desc(source), desc(mask), optional(vector), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranASpread(result: VoidPtr, source: *const c_void, dim: i32, ncopies: i64, file: *const c_void, line: i32) {
    // SAFETY: flang's descriptors and source position.
    unsafe { tf::spread(desc(result), desc(source), dim, ncopies, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranACshiftVector(result: VoidPtr, source: *const c_void, shift: i64, file: *const c_void, line: i32) {
    // SAFETY: as above.
    unsafe { tf::cshift_vector(desc(result), desc(source), shift, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranACshift(
    result: VoidPtr,
    source: *const c_void,
    shift: *const c_void,
    dim: i32,
    file: *const c_void,
    line: i32,
) {
    // SAFETY: as above.
    unsafe { tf::cshift(desc(result), desc(source), desc(shift), dim, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAEoshift(
    result: VoidPtr,
    source: *const c_void,
    shift: *const c_void,
    boundary: *const c_void,
    dim: i32,
    file: *const c_void,
    line: i32,
) {
    // SAFETY: flang's descriptors (BOUNDARY= may be null) and source position.
    unsafe { tf::eoshift(desc(result), desc(source), tf::Shift::Array(desc(shift)), optional(boundary), dim, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAEoshiftVector(
    result: VoidPtr,
    source: *const c_void,
    shift: i64,
    boundary: *const c_void,
    file: *const c_void,
    line: i32,
) {
    // SAFETY: as above.
    unsafe { tf::eoshift(desc(result), desc(source), tf::Shift::Scalar(shift), optional(boundary), 1, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAUnpack(
    result: VoidPtr,
    vector: *const c_void,
    mask: *const c_void,
    field: *const c_void,
    file: *const c_void,
    line: i32,
) {
    // SAFETY: flang's descriptors and source position.
    unsafe { tf::unpack(desc(result), desc(vector), desc(mask), desc(field), site(file, line)) }
}

// ---------------------------------------------------------------------------
// Characters (character.h)

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranARepeat(result: VoidPtr, string: *const c_void, ncopies: i64, file: *const c_void, line: i32) {
    // SAFETY: flang's result descriptor (a scalar's) and string descriptor.
    unsafe { character::repeat(desc(result), desc(string), ncopies, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranATrim(result: VoidPtr, string: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: flang's result descriptor (a scalar's) and string descriptor.
    unsafe { character::trim(desc(result), desc(string), site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAdjustl(result: VoidPtr, string: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: flang's result descriptor (of the string's rank) and string descriptor.
    unsafe { character::adjust(desc(result), desc(string), false, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAAdjustr(result: VoidPtr, string: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: as above.
    unsafe { character::adjust(desc(result), desc(string), true, site(file, line)) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAIndex1(string: *const c_void, len: i64, substring: *const c_void, sublen: i64, back: bool) -> i64 {
    // SAFETY: flang's strings of the lengths given.
    unsafe { character::index(chars1(string, len), chars1(substring, sublen), back) as i64 }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAScan1(string: *const c_void, len: i64, set: *const c_void, setlen: i64, back: bool) -> i64 {
    // SAFETY: as above.
    unsafe { character::scan_verify(chars1(string, len), chars1(set, setlen), back, false) as i64 }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAVerify1(string: *const c_void, len: i64, set: *const c_void, setlen: i64, back: bool) -> i64 {
    // SAFETY: as above.
    unsafe { character::scan_verify(chars1(string, len), chars1(set, setlen), back, true) as i64 }
}

/// `INDEX`, `SCAN` and `VERIFY` of CHARACTER(KIND=2) and (KIND=4): lengths
/// in characters.
macro_rules! wide_string_search {
    ($($index:ident, $scan:ident, $verify:ident = $bytes:literal;)*) => {$(
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $index(string: *const c_void, len: i64, substring: *const c_void, sublen: i64, back: bool) -> i64 {
            // SAFETY: flang's strings of the lengths given.
            let (x, y) = unsafe { (Addr::from_flang(string), Addr::from_flang(substring)) };
            character::index(Chars::of_kind(x, len.max(0) as usize, $bytes), Chars::of_kind(y, sublen.max(0) as usize, $bytes), back) as i64
        }
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $scan(string: *const c_void, len: i64, set: *const c_void, setlen: i64, back: bool) -> i64 {
            // SAFETY: as above.
            let (x, y) = unsafe { (Addr::from_flang(string), Addr::from_flang(set)) };
            character::scan_verify(Chars::of_kind(x, len.max(0) as usize, $bytes), Chars::of_kind(y, setlen.max(0) as usize, $bytes), back, false) as i64
        }
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $verify(string: *const c_void, len: i64, set: *const c_void, setlen: i64, back: bool) -> i64 {
            // SAFETY: as above.
            let (x, y) = unsafe { (Addr::from_flang(string), Addr::from_flang(set)) };
            character::scan_verify(Chars::of_kind(x, len.max(0) as usize, $bytes), Chars::of_kind(y, setlen.max(0) as usize, $bytes), back, true) as i64
        }
    )*};
}
wide_string_search! {
    _FortranAIndex2, _FortranAScan2, _FortranAVerify2 = 2;
    _FortranAIndex4, _FortranAScan4, _FortranAVerify4 = 4;
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranACharacterCompareScalar1(x: *const c_void, y: *const c_void, xlen: i64, ylen: i64) -> i32 {
    // SAFETY: as above.
    unsafe { character::compare(chars1(x, xlen), chars1(y, ylen)) }
}

// ---------------------------------------------------------------------------
// Numeric intrinsics (numeric.h), IEEE exceptions (exceptions.h), random numbers

/// `x ** n`, REAL(4) and REAL(8) `x`, INTEGER(4) (`i`) and INTEGER(8) (`k`) `n`.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAFPow4i(x: f32, n: i32) -> f32 {
    numeric::real_power(x, n.into())
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAFPow4k(x: f32, n: i64) -> f32 {
    numeric::real_power(x, n)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAFPow8i(x: f64, n: i32) -> f64 {
    numeric::real_power(x, n.into())
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAFPow8k(x: f64, n: i64) -> f64 {
    numeric::real_power(x, n)
}
/// `ERFC_SCALED`; REAL(4) computed in double precision and rounded once.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAErfcScaled4(x: f32) -> f32 {
    numeric::erfc_scaled(x.into()) as f32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAErfcScaled8(x: f64) -> f64 {
    numeric::erfc_scaled(x)
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAExponent4_4(x: f32) -> i32 {
    numeric::exponent4(x)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAExponent4_8(x: f32) -> i64 {
    numeric::exponent(x)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAExponent8_4(x: f64) -> i32 {
    numeric::exponent4(x)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAExponent8_8(x: f64) -> i64 {
    numeric::exponent(x)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAFraction4(x: f32) -> f32 {
    numeric::fraction(x)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAFraction8(x: f64) -> f64 {
    numeric::fraction(x)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranASpacing4(x: f32) -> f32 {
    numeric::spacing(x)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranASpacing8(x: f64) -> f64 {
    numeric::spacing(x)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranARRSpacing4(x: f32) -> f32 {
    numeric::rrspacing(x)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranARRSpacing8(x: f64) -> f64 {
    numeric::rrspacing(x)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAScale4(x: f32, p: i64) -> f32 {
    numeric::scale(x, p)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAScale8(x: f64, p: i64) -> f64 {
    numeric::scale(x, p)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranASetExponent4(x: f32, p: i64) -> f32 {
    numeric::set_exponent(x, p)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranASetExponent8(x: f64, p: i64) -> f64 {
    numeric::set_exponent(x, p)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAModReal4(a: f32, p: f32, file: *const c_void, line: i32) -> f32 {
    // SAFETY: flang's source position.
    numeric::real_mod(a, p, false, unsafe { site(file, line) })
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAModReal8(a: f64, p: f64, file: *const c_void, line: i32) -> f64 {
    // SAFETY: as above.
    numeric::real_mod(a, p, false, unsafe { site(file, line) })
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAModuloReal4(a: f32, p: f32, file: *const c_void, line: i32) -> f32 {
    // SAFETY: as above.
    numeric::real_mod(a, p, true, unsafe { site(file, line) })
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAModuloReal8(a: f64, p: f64, file: *const c_void, line: i32) -> f64 {
    // SAFETY: as above.
    numeric::real_mod(a, p, true, unsafe { site(file, line) })
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAMapException(excepts: u32) -> u32 {
    numeric::map_exception(excepts)
}

// The GPU keeps no floating-point exception flags and cannot halt on an
// exception: raising or clearing a flag leaves nothing to change, no
// exception halts, and asking which flags are raised, or to halt, traps.

/// `feraiseexcept` for the flags flang's code raises (`NEAREST` at the
/// edges of the range, `IEEE_SET_FLAG(flag, .TRUE.)`): nothing to raise.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAferaiseexcept(_excepts: u32) {}
/// `IEEE_SET_FLAG(flag, .FALSE.)`: no flag is ever set.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAfeclearexcept(_excepts: u32) {}
/// `IEEE_GET_FLAG`: which flags are set, which the GPU does not record.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAfetestexcept(_excepts: u32) -> u32 {
    terminator::unsupported(b"_FortranAfetestexcept", b"IEEE_GET_FLAG: the GPU keeps no floating-point exception flags")
}
/// `IEEE_GET_HALTING_MODE`: the exceptions that halt, none on the GPU.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAfegetexcept() -> u32 {
    0
}
/// `IEEE_SET_HALTING_MODE(flag, .FALSE.)`: no exception halts already.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAfedisableexcept(_excepts: u32) {}
/// `IEEE_SET_HALTING_MODE(flag, .TRUE.)`: the GPU cannot halt on one.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAfeenableexcept(_excepts: u32) {
    terminator::unsupported(b"_FortranAfeenableexcept", b"IEEE_SET_HALTING_MODE: the GPU cannot halt on floating-point exceptions")
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranARandomNumber(harvest: VoidPtr, file: *const c_void, line: i32) {
    // SAFETY: flang's descriptor and source position.
    unsafe { random::random_number(desc(harvest), site(file, line)) }
}

/// `RANDOM_SEED(SIZE=)`; each seed argument is a descriptor, null or
/// without data when absent, as for `PUT=` and `GET=`.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranARandomSeedSize(size: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: flang's optional descriptor and source position.
    unsafe { random::seed_size(optional(size), site(file, line)) }
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranARandomSeedPut(put: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: flang's optional descriptor and source position.
    unsafe { random::seed_put(optional(put), site(file, line)) }
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranARandomSeedGet(get: *const c_void, file: *const c_void, line: i32) {
    // SAFETY: flang's optional descriptor and source position.
    unsafe { random::seed_get(optional(get), site(file, line)) }
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranARandomSeedDefaultPut() {
    random::seed_default()
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranARandomSeed(
    size: *const c_void,
    put: *const c_void,
    get: *const c_void,
    file: *const c_void,
    line: i32,
) {
    // SAFETY: flang's optional descriptors and source position.
    unsafe { random::seed(optional(size), optional(put), optional(get), site(file, line)) }
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranARandomInit(repeatable: bool, _image_distinct: bool) {
    random::init(repeatable)
}

// ---------------------------------------------------------------------------
// Kind inquiry with arguments flang cannot fold (numeric.h): each argument
// is the address of an integer of the kind beside it, null when absent.

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranASelectedIntKind(file: *const c_void, line: i32, r: *const c_void, r_kind: i32) -> i32 {
    // SAFETY: flang's source position and argument.
    let (site, r) = unsafe { (site(file, line), Addr::from_flang(r)) };
    kinds::selected_int_kind(kinds::int_argument(r, r_kind, 0, site))
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranASelectedLogicalKind(file: *const c_void, line: i32, bits: *const c_void, bits_kind: i32) -> i32 {
    // SAFETY: flang's source position and argument.
    let (site, bits) = unsafe { (site(file, line), Addr::from_flang(bits)) };
    kinds::selected_logical_kind(kinds::int_argument(bits, bits_kind, 0, site))
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranASelectedRealKind(
    file: *const c_void,
    line: i32,
    p: *const c_void,
    p_kind: i32,
    r: *const c_void,
    r_kind: i32,
    radix: *const c_void,
    radix_kind: i32,
) -> i32 {
    // SAFETY: flang's source position and arguments.
    let (site, p, r, radix) = unsafe { (site(file, line), Addr::from_flang(p), Addr::from_flang(r), Addr::from_flang(radix)) };
    kinds::selected_real_kind(
        kinds::int_argument(p, p_kind, 0, site),
        kinds::int_argument(r, r_kind, 0, site),
        kinds::int_argument(radix, radix_kind, 2, site),
    )
}

// ---------------------------------------------------------------------------
// Time (time-intrinsic.h)

#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranACpuTime() -> f64 {
    time::cpu_time()
}
/// `SYSTEM_CLOCK(COUNT=)`; `kind` is COUNT's, as for the rate and the maximum.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranASystemClockCount(kind: i32) -> i64 {
    time::clock_count_now(kind)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranASystemClockCountRate(kind: i32) -> i64 {
    time::clock_rate(kind)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranASystemClockCountMax(kind: i32) -> i64 {
    time::clock_max(kind)
}
/// Each string is null when absent; `values` is a descriptor or null.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranADateAndTime(
    date: *mut c_void,
    date_chars: usize,
    time_of_day: *mut c_void,
    time_chars: usize,
    zone: *mut c_void,
    zone_chars: usize,
    file: *const c_void,
    line: i32,
    values: *const c_void,
) {
    // SAFETY: flang's strings of the lengths given, its source position and
    // an optional descriptor.
    unsafe {
        let strings = [(Addr::from_flang(date), date_chars), (Addr::from_flang(time_of_day), time_chars), (Addr::from_flang(zone), zone_chars)];
        time::date_and_time_unavailable(strings, optional(values), site(file, line))
    }
}

// ---------------------------------------------------------------------------
// STOP, ERROR STOP, fatal errors (stop.h)

#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAExit(status: i32) -> ! {
    terminator::exit(status)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAAbort() -> ! {
    terminator::abort()
}
/// The GNU extension `CALL FLUSH(unit)`: the device has no units, so there
/// is nothing to flush (flang-rt does nothing for a unit that is not open).
#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAFlush(_unit: i32) {}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn _FortranAStopStatement(code: i32, is_error_stop: bool, quiet: bool) -> ! {
    terminator::stop(code, is_error_stop, quiet)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAStopStatementText(text: *const c_void, length: i64, is_error_stop: bool, quiet: bool) -> ! {
    // SAFETY: flang's string of `length` characters.
    terminator::stop_text(unsafe { Addr::from_flang(text) }, length.max(0) as usize, is_error_stop, quiet)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAReportFatalUserError(message: *const c_void, file: *const c_void, line: i32) -> ! {
    // SAFETY: flang's NUL-terminated message and source position.
    let (message, s) = unsafe { (Addr::from_flang(message), site(file, line)) };
    terminator::crash(s, |m| {
        m.c_string(message);
    })
}

// ---------------------------------------------------------------------------
// I/O (io-api.h): output statements work, list-directed and formatted
// (`fortran::output`). `READ` traps at its first call naming itself, so a
// program with input on a path a kernel never takes links and runs; its
// item calls, never reached then, are defined for the link and trap the
// same way.

/// The statement behind a cookie.
///
/// # Safety
/// `cookie` is what one of the `_FortranAioBegin...Output` entry points
/// returned, and the statement has not ended (flang passes each
/// statement's cookie to its items and its end).
#[inline(always)]
unsafe fn statement<'a>(cookie: VoidPtr) -> &'a mut output::Statement {
    // SAFETY: forwarded from the caller; a block of `memory::boxed`.
    unsafe { memory::boxed_mut(Addr::from_flang(cookie)) }
}

/// A format as flang passes it: its text and length, or a descriptor of a
/// character scalar holding it.
///
/// # Safety
/// `text` points to `length` bytes of flang's, or `descriptor` is flang's.
unsafe fn format_text(text: *const c_void, length: i64, descriptor: *const c_void) -> output::FormatText {
    // SAFETY: forwarded from the caller.
    unsafe {
        if text.is_null() && !descriptor.is_null() {
            let d = desc(descriptor);
            if d.rank() != 0 {
                terminator::unsupported(b"_FortranAioBeginExternalFormattedOutput", b"a format in a CHARACTER array");
            }
            return Some((d.base(), d.elem_len()));
        }
        Some((Addr::from_flang(text), length.max(0) as usize))
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioBeginExternalListOutput(unit: i32, file: *const c_void, line: i32) -> VoidPtr {
    // SAFETY: flang's source position.
    output::begin_external(unit, None, unsafe { site(file, line) }).as_ptr()
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioBeginExternalFormattedOutput(
    format: *const c_void,
    format_length: i64,
    format_descriptor: *const c_void,
    unit: i32,
    file: *const c_void,
    line: i32,
) -> VoidPtr {
    // SAFETY: flang's format and source position.
    unsafe { output::begin_external(unit, format_text(format, format_length, format_descriptor), site(file, line)).as_ptr() }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioBeginInternalListOutput(
    string: VoidPtr,
    length: usize,
    _scratch: VoidPtr,
    _scratch_bytes: usize,
    file: *const c_void,
    line: i32,
) -> VoidPtr {
    // SAFETY: flang's character variable of `length` bytes, its position.
    let (string, s) = unsafe { (Addr::from_flang(string), site(file, line)) };
    output::begin_internal(string, length, None, s).as_ptr()
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioBeginInternalFormattedOutput(
    string: VoidPtr,
    length: usize,
    format: *const c_void,
    format_length: i64,
    format_descriptor: *const c_void,
    _scratch: VoidPtr,
    _scratch_bytes: usize,
    file: *const c_void,
    line: i32,
) -> VoidPtr {
    // SAFETY: flang's character variable of `length` bytes, its format and
    // source position.
    unsafe {
        let f = format_text(format, format_length, format_descriptor);
        output::begin_internal(Addr::from_flang(string), length, f, site(file, line)).as_ptr()
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputAscii(cookie: VoidPtr, chars: *const c_void, length: usize) -> bool {
    // SAFETY: a live statement's cookie; flang's `length` characters.
    unsafe { output::character(statement(cookie), Addr::from_flang(chars), length) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputInteger8(cookie: VoidPtr, n: i8) -> bool {
    // SAFETY: a live statement's cookie.
    output::integer(unsafe { statement(cookie) }, n.into(), 1)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputInteger16(cookie: VoidPtr, n: i16) -> bool {
    // SAFETY: a live statement's cookie.
    output::integer(unsafe { statement(cookie) }, n.into(), 2)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputInteger32(cookie: VoidPtr, n: i32) -> bool {
    // SAFETY: a live statement's cookie.
    output::integer(unsafe { statement(cookie) }, n.into(), 4)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputInteger64(cookie: VoidPtr, n: i64) -> bool {
    // SAFETY: a live statement's cookie.
    output::integer(unsafe { statement(cookie) }, n.into(), 8)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputInteger128(cookie: VoidPtr, n: i128) -> bool {
    // SAFETY: a live statement's cookie.
    output::integer(unsafe { statement(cookie) }, n, 16)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputReal32(cookie: VoidPtr, x: f32) -> bool {
    // SAFETY: a live statement's cookie.
    output::real(unsafe { statement(cookie) }, x.to_bits().into(), Format::Single)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputReal64(cookie: VoidPtr, x: f64) -> bool {
    // SAFETY: a live statement's cookie.
    output::real(unsafe { statement(cookie) }, x.to_bits(), Format::Double)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputComplex32(cookie: VoidPtr, re: f32, im: f32) -> bool {
    // SAFETY: a live statement's cookie.
    output::complex(unsafe { statement(cookie) }, re.to_bits().into(), im.to_bits().into(), Format::Single)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputComplex64(cookie: VoidPtr, re: f64, im: f64) -> bool {
    // SAFETY: a live statement's cookie.
    output::complex(unsafe { statement(cookie) }, re.to_bits(), im.to_bits(), Format::Double)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputLogical(cookie: VoidPtr, truth: bool) -> bool {
    // SAFETY: a live statement's cookie.
    output::logical(unsafe { statement(cookie) }, truth)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputDescriptor(cookie: VoidPtr, item: *const c_void) -> bool {
    // SAFETY: a live statement's cookie; flang's descriptor of the item.
    unsafe { output::descriptor(statement(cookie), desc(item)) }
}

/// `NonTbpDefinedIoTable`: the defined I/O procedures flang passes with a
/// derived-type item (`items` of them).
#[repr(C)]
struct DefinedIoTable {
    items: usize,
    item: *const c_void,
    ignore_non_tbp_entries: bool,
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioOutputDerivedType(cookie: VoidPtr, item: *const c_void, table: *const c_void) -> bool {
    // SAFETY: a live statement's cookie; flang's descriptor of the item and
    // its table of defined I/O procedures, or null.
    unsafe {
        let table = table.cast::<DefinedIoTable>();
        let defined_io = !table.is_null() && (*table).items > 0;
        output::derived(statement(cookie), desc(item), defined_io)
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioEnableHandlers(cookie: VoidPtr, iostat: bool, err: bool, _end: bool, _eor: bool, _iomsg: bool) {
    // SAFETY: a live statement's cookie.
    output::enable_handlers(unsafe { statement(cookie) }, iostat, err)
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioGetIoMsg(cookie: VoidPtr, message: VoidPtr, length: usize) {
    // SAFETY: a live statement's cookie; flang's variable of `length` bytes.
    unsafe { output::get_io_msg(statement(cookie), Addr::from_flang(message), length) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn _FortranAioEndIoStatement(cookie: VoidPtr) -> i32 {
    // SAFETY: a live statement's cookie, used for the last time here.
    unsafe {
        let status = output::end(statement(cookie));
        memory::unbox::<output::Statement>(Addr::from_flang(cookie));
        status
    }
}

/// The reasons input statements and non-advancing output trap with.
const NO_ADVANCE: &[u8] = b"ADVANCE='NO' in a target region (each output statement ends its record)";
const NO_INPUT: &[u8] = b"READ in a target region (no device input)";
const NO_INTERNAL_INPUT: &[u8] = b"READ from a character variable in a target region (no device input)";

/// One trapping entry point per line: `name(parameter types) -> result: reason;`.
macro_rules! io_traps {
    ($($name:ident($($t:ty),*) $(-> $r:ty)?: $why:expr;)*) => {$(
        #[unsafe(no_mangle)]
        pub unsafe extern "C-unwind" fn $name($(_: $t),*) $(-> $r)? {
            terminator::unsupported(stringify!($name).as_bytes(), $why)
        }
    )*};
}

io_traps! {
    _FortranAioBeginExternalListInput(i32, *const c_void, i32) -> VoidPtr: NO_INPUT;
    _FortranAioBeginExternalFormattedInput(*const c_void, i64, *const c_void, i32, *const c_void, i32) -> VoidPtr: NO_INPUT;
    _FortranAioBeginInternalListInput(*const c_void, i64, VoidPtr, i64, *const c_void, i32) -> VoidPtr: NO_INTERNAL_INPUT;
    _FortranAioBeginInternalFormattedInput(*const c_void, i64, *const c_void, i64, *const c_void, VoidPtr, i64, *const c_void, i32) -> VoidPtr: NO_INTERNAL_INPUT;
    _FortranAioInputAscii(VoidPtr, VoidPtr, i64) -> bool: NO_INPUT;
    _FortranAioInputInteger(VoidPtr, VoidPtr, i32) -> bool: NO_INPUT;
    _FortranAioInputReal32(VoidPtr, VoidPtr) -> bool: NO_INPUT;
    _FortranAioInputReal64(VoidPtr, VoidPtr) -> bool: NO_INPUT;
    _FortranAioInputComplex32(VoidPtr, VoidPtr) -> bool: NO_INPUT;
    _FortranAioInputComplex64(VoidPtr, VoidPtr) -> bool: NO_INPUT;
    _FortranAioInputLogical(VoidPtr, VoidPtr) -> bool: NO_INPUT;
    _FortranAioInputDescriptor(VoidPtr, *const c_void) -> bool: NO_INPUT;
    _FortranAioSetAdvance(VoidPtr, *const c_void, i64) -> bool: NO_ADVANCE;
}
