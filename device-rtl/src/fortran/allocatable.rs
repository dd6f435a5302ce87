//! `ALLOCATE`, `DEALLOCATE` and `MOVE_ALLOC` of allocatables (flang-rt's
//! `allocatable.cpp`), `ALLOCATE` and `DEALLOCATE` of pointers and the
//! pointer inquiries (`pointer.cpp`).

use super::assign::{self, STAT_BAD_POINTER_DEALLOCATION, STAT_INVALID_DESCRIPTOR, STAT_MOVE_ALLOC_SAME, return_error};
use super::derived;
use super::descriptor::{Desc, Walk};
use super::memory::{self, Addr};
use super::terminator::{self, Site};
use super::type_info::TypeInfo;
use omprt_abi::fortran::{attribute, stat, type_code};

/// The storage of `d` comes from the device heap; another allocator (CUDA
/// Fortran's managed or pinned memory) has no device counterpart.
fn check_allocator(d: Desc, name: &[u8]) {
    if d.allocator() != 0 {
        terminator::unsupported(name, b"an allocatable of a non-default allocator (CUDA Fortran memory)");
    }
}

/// `_FortranAAllocatableSetBounds`: the bounds of dimension `dim`
/// (zero-based) before `ALLOCATE`.
pub fn set_bounds(d: Desc, dim: usize, lower: i64, upper: i64) {
    d.set_bounds(dim, lower, upper);
}

/// `_FortranAAllocatableAllocate`: allocates with the bounds set, then
/// default-initializes a derived type. An allocated or non-allocatable
/// descriptor is an error (a status with `STAT=`, else a crash).
pub fn allocate(d: Desc, has_stat: bool, errmsg: Option<Desc>, site: Site) -> i32 {
    check_allocator(d, b"_FortranAAllocatableAllocate");
    if !d.is_allocatable() {
        return return_error(STAT_INVALID_DESCRIPTOR, has_stat, errmsg, site);
    }
    if d.is_allocated() {
        return return_error(stat::BASE_ADDR_NOT_NULL, has_stat, errmsg, site);
    }
    if let Err(s) = d.allocate() {
        return return_error(s, has_stat, errmsg, site);
    }
    if let Some(t) = d.derived_type().filter(|t| !t.no_initialization_needed()) {
        derived::initialize(d, t);
    }
    stat::OK
}

/// `_FortranAAllocatableDeallocate`: finalizes, deallocates the components,
/// then the storage.
pub fn deallocate(d: Desc, has_stat: bool, errmsg: Option<Desc>, site: Site) -> i32 {
    check_allocator(d, b"_FortranAAllocatableDeallocate");
    if !d.is_allocatable() {
        return return_error(STAT_INVALID_DESCRIPTOR, has_stat, errmsg, site);
    }
    if !d.is_allocated() {
        return return_error(stat::BASE_ADDR_NULL, has_stat, errmsg, site);
    }
    let status = derived::destroy_descriptor(d, true, false).err().unwrap_or(stat::OK);
    return_error(status, has_stat, errmsg, site)
}

/// `_FortranAAllocatableAllocateSource` and `_FortranAPointerAllocateSource`
/// after the allocation: `ALLOCATE(..., SOURCE=source)` gives each element
/// of an array `d` the value of a scalar `source`, else assigns `source` to
/// `d` as a whole.
fn assign_source(d: Desc, source: Desc, site: Site) {
    if d.rank() == 0 || source.rank() != 0 {
        return assign::assign(d, source, 0, site);
    }
    let bytes = d.elem_len();
    let mut walk = Walk::new(d);
    match d.derived_type() {
        Some(t) => derived::with_temporary_descriptor(0, d.len_parameters(), |element| {
            for _ in 0..d.elements() {
                assign_source_element(element, t, d, d.base().offset(walk.offset()), source, site);
                walk.advance();
            }
        }),
        None => {
            for _ in 0..d.elements() {
                d.base().offset(walk.offset()).copy_from(source.base(), bytes);
                walk.advance();
            }
        }
    }
}

/// `source` assigned to the element at `at` of `d`, of derived type `t`,
/// through the scalar descriptor `element`. Out of line, so that
/// `assign_source`'s loop keeps few values across its calls (see
/// "Registers" in [`super`]).
#[inline(never)]
fn assign_source_element(element: Desc, t: TypeInfo, d: Desc, at: Addr, source: Desc, site: Site) {
    element.establish_derived(t, at, 0, None, attribute::OTHER);
    for j in 0..t.len_parameters() {
        element.set_len_parameter(j, d.len_parameter(j));
    }
    assign::assign(element, source, 0, site);
}

/// `_FortranAAllocatableAllocateSource`: [`allocate`], then the value of
/// `source`.
pub fn allocate_source(d: Desc, source: Desc, has_stat: bool, errmsg: Option<Desc>, site: Site) -> i32 {
    let status = allocate(d, has_stat, errmsg, site);
    if status == stat::OK {
        assign_source(d, source, site);
    }
    status
}

/// `_FortranAPointerSetBounds`: the bounds of dimension `dim` (zero-based)
/// before `ALLOCATE`.
pub fn pointer_set_bounds(d: Desc, dim: usize, lower: i64, upper: i64) {
    d.set_bounds(dim, lower, upper);
}

/// The bytes of a pointer's elements rounded up to a word: where the footer
/// of its `ALLOCATE` lies.
fn footer_offset(d: Desc) -> usize {
    let mut bytes = d.elem_len();
    for j in 0..d.rank() {
        bytes = bytes.wrapping_mul(d.extent(j) as usize);
    }
    bytes.next_multiple_of(FOOTER_BYTES)
}

const FOOTER_BYTES: usize = size_of::<u64>();

/// The footer word of an allocation at `base`: its address complemented.
fn footer_word(base: Addr) -> u64 {
    !(base.value() as u64)
}

/// `_FortranAPointerAllocate`: allocates with the bounds set (whatever the
/// pointer was associated with before), then default-initializes a derived
/// type. The allocation ends with a footer word that `DEALLOCATE` checks.
/// A non-pointer descriptor is an error (a status with `STAT=`, else a
/// crash).
pub fn pointer_allocate(d: Desc, has_stat: bool, errmsg: Option<Desc>, site: Site) -> i32 {
    check_allocator(d, b"_FortranAPointerAllocate");
    if !d.is_pointer() {
        return return_error(STAT_INVALID_DESCRIPTOR, has_stat, errmsg, site);
    }
    if (d.elem_len() as i64) < 0 {
        // F'2023 7.4.4.2: a negative character length is zero.
        d.set_elem_len(0);
    }
    let bytes = footer_offset(d);
    let base = memory::allocate(bytes.saturating_add(FOOTER_BYTES));
    if base.is_null() {
        return return_error(stat::MEM_ALLOCATION, has_stat, errmsg, site);
    }
    d.set_base(base);
    d.set_contiguous_strides();
    if let Some(t) = d.derived_type().filter(|t| !t.no_initialization_needed()) {
        derived::initialize(d, t);
    }
    base.plus(bytes).store(footer_word(base));
    stat::OK
}

/// `_FortranAPointerAllocateSource`: [`pointer_allocate`], then the value
/// of `source`.
pub fn pointer_allocate_source(d: Desc, source: Desc, has_stat: bool, errmsg: Option<Desc>, site: Site) -> i32 {
    let status = pointer_allocate(d, has_stat, errmsg, site);
    if status == stat::OK {
        assign_source(d, source, site);
    }
    status
}

/// `_FortranAPointerDeallocate`: a pointer associated with the whole of an
/// allocation of [`pointer_allocate`] (its footer word in place) is
/// finalized, its components deallocated, then its storage. A
/// disassociated pointer, or one associated with anything else, is an error.
pub fn pointer_deallocate(d: Desc, has_stat: bool, errmsg: Option<Desc>, site: Site) -> i32 {
    check_allocator(d, b"_FortranAPointerDeallocate");
    if !d.is_pointer() {
        return return_error(STAT_INVALID_DESCRIPTOR, has_stat, errmsg, site);
    }
    if !d.is_allocated() {
        return return_error(stat::BASE_ADDR_NULL, has_stat, errmsg, site);
    }
    // The footer byte by byte: a pointer to something else may be unaligned.
    let footer = d.base().plus(footer_offset(d));
    let word = (0..FOOTER_BYTES).fold(0u64, |w, k| w | u64::from(footer.plus(k).load::<u8>()) << (8 * k));
    if word != footer_word(d.base()) {
        return return_error(STAT_BAD_POINTER_DEALLOCATION, has_stat, errmsg, site);
    }
    let status = derived::destroy_descriptor(d, true, true).err().unwrap_or(stat::OK);
    return_error(status, has_stat, errmsg, site)
}

/// `_FortranAMoveAlloc(to, from, declared type of from)`: `to` is
/// deallocated (finalized), then takes `from`'s storage, bounds and dynamic
/// type; `from` becomes unallocated (of its declared type `from_type`,
/// when given).
pub fn move_alloc(to: Desc, from: Desc, from_type: Addr, has_stat: bool, errmsg: Option<Desc>, site: Site) -> i32 {
    if to.type_code() != from.type_code() || !to.is_allocatable() || !from.is_allocatable() {
        terminator::crash_with(site, b"MOVE_ALLOC: TO and FROM must be allocatables of the same type");
    }
    if from.base() == to.base() && from.is_allocated() {
        return return_error(STAT_MOVE_ALLOC_SAME, has_stat, errmsg, site);
    }
    if to.is_allocated()
        && let Err(s) = derived::destroy_descriptor(to, true, false)
    {
        return return_error(s, has_stat, errmsg, site);
    }
    if from.is_allocated() {
        to.copy_from(from);
        from.set_base(Addr::NULL);
        if from.has_addendum() && !from_type.is_null() {
            from.set_derived_type(TypeInfo::at(from_type));
        }
    }
    stat::OK
}

/// `_FortranAPointerIsAssociatedWith(pointer, target)`: `ASSOCIATED(P, T)`:
/// `P` points to exactly the elements of `T`, in the same order; never to a
/// target of zero-sized storage (F'2023 16.9.20). Without a target,
/// `ASSOCIATED(P)`.
pub fn is_associated_with(pointer: Desc, target: Option<Desc>) -> bool {
    let Some(target) = target else {
        return pointer.is_allocated();
    };
    if target.base().is_null() || target.elem_len() == 0 || target.elements() == 0 {
        return false;
    }
    let rank = pointer.rank();
    if pointer.base() != target.base() || pointer.elem_len() != target.elem_len() || rank != target.rank() {
        return false;
    }
    (0..rank).all(|j| {
        let (p, t) = (pointer.dim(j), target.dim(j));
        p.extent != 0 && p.extent == t.extent && (p.extent == 1 || p.byte_stride == t.byte_stride)
    })
}

/// `Descriptor::ApplyMold`: `d` takes `mold`'s type, element length and
/// addendum (derived type and LEN parameters), rank `rank`, and `mold`'s
/// bounds in the dimensions both have.
fn apply_mold(d: Desc, mold: Desc, rank: usize) {
    d.set_elem_len(mold.elem_len());
    d.set_type_code(mold.type_code());
    d.set_rank(rank);
    for j in 0..rank.min(mold.rank()) {
        d.set_dim(j, mold.dim(j));
    }
    if d.has_addendum() {
        let t = mold.derived_type();
        d.set_derived_type(t);
        for j in 0..t.map_or(0, TypeInfo::len_parameters) {
            d.set_len_parameter(j, mold.len_parameter(j));
        }
    }
}

/// `_FortranAAllocatableApplyMold(d, mold, rank)`: `ALLOCATE(d, MOLD=mold)`
/// before the allocation: an unallocated allocatable takes `mold`'s dynamic
/// type, element length and bounds. An allocated one is left for
/// `_FortranAAllocatableAllocate` to report.
pub fn apply_mold_allocatable(d: Desc, mold: Desc, rank: usize) {
    if d.is_allocatable() && !d.is_allocated() {
        apply_mold(d, mold, rank);
    }
}

/// `_FortranAPointerApplyMold(d, mold, rank)`: [`apply_mold_allocatable`]
/// for a pointer, whatever it was associated with.
pub fn apply_mold_pointer(d: Desc, mold: Desc, rank: usize) {
    apply_mold(d, mold, rank);
}

/// `_FortranAAllocatableInitDerivedForAllocate(d, type, rank, corank)`: a
/// polymorphic `ALLOCATE` with a derived type spec: an unallocated
/// allocatable becomes one of type `t` and rank `rank`.
pub fn init_derived_for_allocate(d: Desc, t: TypeInfo, rank: usize, corank: i32) {
    check_corank(corank, b"_FortranAAllocatableInitDerivedForAllocate");
    if !d.is_allocated() {
        d.establish_derived(t, Addr::NULL, rank, None, attribute::ALLOCATABLE);
    }
}

/// `_FortranAPointerNullifyDerived(d, type, rank, corank)`: a disassociated
/// pointer of type `t` and rank `rank`.
pub fn nullify_derived(d: Desc, t: TypeInfo, rank: usize, corank: i32) {
    check_corank(corank, b"_FortranAPointerNullifyDerived");
    d.establish_derived(t, Addr::NULL, rank, None, attribute::POINTER);
}

fn check_corank(corank: i32, name: &[u8]) {
    if corank != 0 {
        terminator::unsupported(name, b"a coarray");
    }
}

/// After a polymorphic `DEALLOCATE` (status `status`): the dynamic type of
/// `d` is its declared type `declared` again (its size the element length),
/// or none for an unlimited polymorphic `d`.
fn reset_dynamic_type(d: Desc, declared: Option<TypeInfo>, status: i32) -> i32 {
    if status == stat::OK {
        match declared {
            Some(t) if d.has_addendum() => {
                d.set_type_code(type_code::STRUCT);
                d.set_elem_len(t.size_in_bytes());
                d.set_derived_type(Some(t));
            }
            _ => {
                d.set_type_code(type_code::OTHER);
                if d.has_addendum() {
                    d.set_derived_type(None);
                }
            }
        }
    }
    status
}

/// `_FortranAAllocatableDeallocatePolymorphic(d, declared type, ...)`:
/// [`deallocate`], then the dynamic type is the declared one again.
pub fn deallocate_polymorphic(d: Desc, declared: Option<TypeInfo>, has_stat: bool, errmsg: Option<Desc>, site: Site) -> i32 {
    reset_dynamic_type(d, declared, deallocate(d, has_stat, errmsg, site))
}

/// `_FortranAPointerDeallocatePolymorphic`: [`pointer_deallocate`], then
/// the dynamic type is the declared one again.
pub fn pointer_deallocate_polymorphic(d: Desc, declared: Option<TypeInfo>, has_stat: bool, errmsg: Option<Desc>, site: Site) -> i32 {
    reset_dynamic_type(d, declared, pointer_deallocate(d, has_stat, errmsg, site))
}
