//! Default initialization, finalization and destruction of derived type
//! objects (flang-rt's `derived.cpp`): what `ALLOCATE`, `DEALLOCATE`, the
//! end of a scope and intrinsic assignment do to their components.
//!
//! Nested instances (a derived type component that is not allocatable) are
//! walked by address, without a descriptor of their own; only a final
//! subroutine that takes a descriptor gets one, built on the heap.

use super::descriptor::{Desc, Walk};
use super::memory::{self, Addr};
use super::terminator::{self, Site};
use super::type_info::{Comp, TypeInfo};
use omprt_abi::fortran::{TypeCategory, attribute, component_genre, descriptor_bytes, special_binding};

/// flang-rt's `Initialize`: default initialization of every element of `d`
/// (procedure pointers, initialized components, unallocated allocatable and
/// disassociated pointer components), done on the first element and copied
/// into the others.
pub fn initialize(d: Desc, t: TypeInfo) {
    let elements = d.elements();
    if elements == 0 {
        return;
    }
    let first = d.base();
    initialize_instance(first, t, Some(d));
    let bytes = d.elem_len();
    if elements > 1 {
        let mut walk = Walk::new(d);
        for _ in 1..elements {
            walk.advance();
            first.offset(walk.offset()).copy_from(first, bytes);
        }
    }
}

/// Default initialization of the instance at `at`.
pub fn initialize_instance(at: Addr, t: TypeInfo, instance: Option<Desc>) {
    for (offset, init) in t.procedure_pointers() {
        at.plus(offset).store_addr(init);
    }
    for c in t.components() {
        let place = at.plus(c.offset());
        let init = c.initialization();
        match c.genre() {
            component_genre::ALLOCATABLE | component_genre::AUTOMATIC => c.establish_descriptor(Desc(place), instance),
            _ if !init.is_null() => place.copy_from(init, c.size_in_bytes(instance)),
            component_genre::POINTER => c.establish_descriptor(Desc(place), instance),
            component_genre::DATA => {
                if let Some(ct) = c.derived_type().filter(|ct| !ct.no_initialization_needed()) {
                    let count = c.elements(instance);
                    for i in 0..count {
                        initialize_instance(place.plus(i * ct.size_in_bytes()), ct, None);
                    }
                }
            }
            _ => {}
        }
    }
}

/// flang-rt's `Destroy(descriptor, finalize, derived)`: finalizes the
/// elements if asked and needed, then deallocates every allocatable
/// component of every element, nested ones first. The storage of `d`
/// itself stays.
pub fn destroy(d: Desc, finalize_first: bool, t: TypeInfo) {
    if !d.is_allocated() || t.no_destruction_needed() {
        return;
    }
    if finalize_first && !t.no_finalization_needed() {
        finalize(d, t);
    }
    for n in 0..d.elements() {
        destroy_instance(d.base().offset(d.element_offset(n)), t);
    }
}

/// Deallocates the allocatable components of the instance at `at`.
fn destroy_instance(at: Addr, t: TypeInfo) {
    for c in t.components() {
        let place = at.plus(c.offset());
        match c.genre() {
            component_genre::ALLOCATABLE | component_genre::AUTOMATIC => {
                let cd = Desc(place);
                if cd.is_allocated() {
                    if let Some(ct) = c.derived_type().filter(|ct| !ct.no_destruction_needed()) {
                        destroy(cd, false, ct);
                    }
                    let _ = cd.deallocate();
                }
            }
            component_genre::DATA => {
                if let Some(ct) = c.derived_type().filter(|ct| !ct.no_destruction_needed()) {
                    for i in 0..c.elements(None) {
                        destroy_instance(place.plus(i * ct.size_in_bytes()), ct);
                    }
                }
            }
            _ => {}
        }
    }
}

/// `Descriptor::Destroy`: destroys the components (finalizing first when
/// asked) and frees the storage of `d`; a pointer is left alone unless
/// `destroy_pointers`. The status of the deallocation.
pub fn destroy_descriptor(d: Desc, finalize_first: bool, destroy_pointers: bool) -> Result<(), i32> {
    if !destroy_pointers && d.is_pointer() {
        return Ok(());
    }
    if let Some(t) = d.derived_type().filter(|t| !t.no_destruction_needed()) {
        destroy(d, finalize_first, t);
    }
    d.deallocate()
}

/// A descriptor on the heap of room for `rank` dimensions and an addendum
/// of `len_parameters`, for a call of `f`; freed after.
pub fn with_temporary_descriptor<R>(rank: usize, len_parameters: usize, f: impl FnOnce(Desc) -> R) -> R {
    let storage = memory::allocate(descriptor_bytes(rank, true, len_parameters));
    if storage.is_null() {
        terminator::crash_with(Site::UNKNOWN, b"out of device heap for a temporary descriptor");
    }
    let r = f(Desc(storage));
    memory::deallocate(storage);
    r
}

/// flang-rt's `Finalize` (F'2018 7.5.6.2): the final subroutine of the
/// elements' type, then of their finalizable components, the parent
/// component last.
pub fn finalize(d: Desc, t: TypeInfo) {
    if t.no_finalization_needed() || !d.is_allocated() {
        return;
    }
    call_final_subroutine(d, t);
    let elements = d.elements();
    for c in t.components() {
        if t.has_parent() && c.offset() == 0 && c.genre() == component_genre::DATA && c.derived_type() == t.parent() {
            continue; // the parent component, below
        }
        for n in 0..elements {
            finalize_component(d.base().offset(d.element_offset(n)).plus(c.offset()), c);
        }
    }
    if let Some(parent) = t.parent().filter(|p| !p.no_finalization_needed()) {
        with_temporary_descriptor(d.rank(), d.len_parameters(), |p| {
            p.copy_from(d);
            p.set_attribute(attribute::POINTER);
            p.set_derived_type(Some(parent));
            p.set_elem_len(parent.size_in_bytes());
            finalize(p, parent);
        });
    }
}

/// Finalizes the component `c` at `place` of one instance.
fn finalize_component(place: Addr, c: Comp) {
    match c.genre() {
        component_genre::ALLOCATABLE | component_genre::AUTOMATIC => {
            let cd = Desc(place);
            if !cd.is_allocated() {
                return;
            }
            // The dynamic type of a polymorphic component decides.
            let dynamic = if c.category() == Some(TypeCategory::Derived) { cd.derived_type() } else { c.derived_type() };
            if let Some(ct) = dynamic.filter(|ct| !ct.no_finalization_needed()) {
                finalize(cd, ct);
            }
        }
        component_genre::DATA => {
            if let Some(ct) = c.derived_type().filter(|ct| !ct.no_finalization_needed()) {
                let rank = c.rank();
                let mut extents = [0i64; omprt_abi::fortran::MAX_RANK];
                for (j, e) in extents.iter_mut().enumerate().take(rank) {
                    let (lb, ub) = c.bounds(j, None);
                    *e = (ub - lb + 1).max(0);
                }
                with_temporary_descriptor(rank, ct.len_parameters(), |cd| {
                    cd.establish_derived(ct, place, rank, Some(&extents[..rank]), attribute::OTHER);
                    finalize(cd, ct);
                });
            }
        }
        _ => {}
    }
}

/// The final subroutine for the rank of `d`: ranked, assumed-rank or
/// elemental, as flang-rt's `FindFinal` picks.
fn call_final_subroutine(d: Desc, t: TypeInfo) {
    let rank = d.rank();
    let Some(special) = t
        .special(special_binding::SCALAR_FINAL + rank as u8)
        .or_else(|| t.special(special_binding::ASSUMED_RANK_FINAL))
        .or_else(|| t.special(special_binding::ELEMENTAL_FINAL))
    else {
        return;
    };
    let proc = special.procedure();
    if special.which() == special_binding::ELEMENTAL_FINAL {
        for n in 0..d.elements() {
            let element = d.base().offset(d.element_offset(n));
            if special.takes_descriptor(0) {
                with_temporary_descriptor(0, t.len_parameters(), |e| {
                    e.establish_derived(t, element, 0, None, attribute::POINTER);
                    memory::call_procedure(proc, e.addr());
                });
            } else {
                memory::call_procedure(proc, element);
            }
        }
        return;
    }
    // A final subroutine that needs a contiguous array gets a copy of a
    // discontiguous one, copied back after.
    let copy = rank > 0 && special.special_case() && !d.is_contiguous();
    with_temporary_descriptor(rank, d.len_parameters(), |a| {
        a.copy_from(d);
        if copy {
            a.set_base(Addr::NULL);
            if a.allocate().is_err() {
                terminator::crash_with(Site::UNKNOWN, b"Finalize: out of device heap for a contiguous copy");
            }
            shallow_copy(a, d);
        }
        if special.takes_descriptor(0) {
            a.set_attribute(attribute::POINTER);
            if a.has_addendum() {
                a.set_derived_type(Some(t));
            }
            memory::call_procedure(proc, a.addr());
        } else {
            memory::call_procedure(proc, a.base());
        }
        if copy {
            shallow_copy(d, a);
            let _ = a.deallocate();
        }
    });
}

/// Copies the elements of `from` into `to` (as many, any strides) byte for
/// byte: components are copied as they are, descriptors included.
pub fn shallow_copy(to: Desc, from: Desc) {
    let bytes = from.elem_len();
    let elements = from.elements();
    if to.is_contiguous() && from.is_contiguous() {
        to.base().copy_from(from.base(), elements * bytes);
        return;
    }
    let (mut t, mut f) = (Walk::new(to), Walk::new(from));
    for _ in 0..elements {
        to.base().offset(t.offset()).copy_from(from.base().offset(f.offset()), bytes);
        t.advance();
        f.advance();
    }
}
