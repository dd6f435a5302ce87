//! `ALLOCATE`, `DEALLOCATE` and `MOVE_ALLOC` of allocatables (flang-rt's
//! `allocatable.cpp`), and the pointer inquiries (`pointer.cpp`).

use super::assign::{STAT_INVALID_DESCRIPTOR, STAT_MOVE_ALLOC_SAME, return_error};
use super::derived;
use super::descriptor::Desc;
use super::memory::Addr;
use super::terminator::{self, Site};
use omprt_abi::fortran::stat;

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
            from.set_derived_type(super::type_info::TypeInfo::at(from_type));
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
