//! Default initialization, finalization and destruction of derived type
//! objects (flang-rt's `derived.cpp`): what `ALLOCATE`, `DEALLOCATE`, the
//! end of a scope and intrinsic assignment do to their components.
//!
//! Nested instances (a derived type component that is not allocatable) are
//! walked by address, without a descriptor of their own; only a final
//! subroutine that takes a descriptor gets one, built on the heap. Nesting
//! is followed through a [`Worklist`], never by recursion (see `work`).
//!
//! Its `#[inline(never)]` functions keep the runtime's registers low (see
//! "Registers" in [`super`]).

use super::descriptor::{Desc, Walk};
use super::memory::{self, Addr};
use super::terminator::{self, Site};
use super::type_info::{Comp, TypeInfo};
use super::work::{Entry, Worklist};
use omprt_abi::fortran::{TypeCategory, attribute, component_genre, descriptor_bytes, special_binding, type_code};

/// flang-rt's `Initialize`: default initialization of every element of `d`
/// (procedure pointers, initialized components, unallocated allocatable and
/// disassociated pointer components), done on the first element and copied
/// into the others.
#[inline(never)]
pub fn initialize(d: Desc, t: TypeInfo) {
    let elements = d.elements();
    if elements == 0 {
        return;
    }
    let first = d.base();
    initialize_instances(first, t, 1, Some(d));
    let bytes = d.elem_len();
    if elements > 1 {
        let mut walk = Walk::new(d);
        for _ in 1..elements {
            walk.advance();
            first.offset(walk.offset()).copy_from(first, bytes);
        }
    }
}

/// Default initialization of `count` consecutive instances of `t` at `at`
/// (`instance`: the descriptor whose LEN parameters apply), nested data
/// components through a [`Worklist`].
pub fn initialize_instances(at: Addr, t: TypeInfo, count: usize, instance: Option<Desc>) {
    let mut work = Worklist::new();
    work.push(Entry::new(0, at, instance.map_or(Addr::NULL, Desc::addr), t.addr(), count, 0));
    while let Some(e) = work.pop() {
        let (Some(t), instance) = (TypeInfo::at(e.c), (!e.b.is_null()).then_some(Desc(e.b))) else { continue };
        for i in 0..e.count {
            initialize_one(e.a.plus(i * t.size_in_bytes()), t, instance, &mut work);
        }
    }
}

/// Default initialization of the instance at `at`; nested instances to
/// initialize go to `work`.
#[inline(never)]
fn initialize_one(at: Addr, t: TypeInfo, instance: Option<Desc>, work: &mut Worklist) {
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
                    work.push(Entry::new(0, place, Addr::NULL, ct.addr(), c.elements(instance), 0));
                }
            }
            _ => {}
        }
    }
}

/// Kinds of [`destroy`]'s work.
const DESTROY_ELEMENTS: u32 = 1;
const DESTROY_INSTANCES: u32 = 2;
const DEALLOCATE: u32 = 3;

/// flang-rt's `Destroy(descriptor, finalize, derived)`: finalizes the
/// elements if asked and needed, then deallocates every allocatable
/// component of every element, nested ones first. The storage of `d`
/// itself stays.
#[inline(never)]
pub fn destroy(d: Desc, finalize_first: bool, t: TypeInfo) {
    if !d.is_allocated() || t.no_destruction_needed() {
        return;
    }
    if finalize_first && !t.no_finalization_needed() {
        finalize(d, t);
    }
    let mut work = Worklist::new();
    work.push(Entry::new(DESTROY_ELEMENTS, d.addr(), Addr::NULL, t.addr(), 0, 0));
    run_destroy(&mut work);
}

/// Runs [`destroy`]'s work.
#[inline(never)]
fn run_destroy(work: &mut Worklist) {
    while let Some(e) = work.pop() {
        match e.kind {
            DESTROY_ELEMENTS => {
                let (d, Some(t)) = (Desc(e.a), TypeInfo::at(e.c)) else { continue };
                for n in 0..d.elements() {
                    destroy_one(d.base().offset(d.element_offset(n)), t, work);
                }
            }
            DESTROY_INSTANCES => {
                let Some(t) = TypeInfo::at(e.c) else { continue };
                for i in 0..e.count {
                    destroy_one(e.a.plus(i * t.size_in_bytes()), t, work);
                }
            }
            _ => {
                let _ = Desc(e.a).deallocate();
            }
        }
    }
}

/// Deallocates the allocatable components of `count` consecutive instances
/// of `t` at `at` (nested ones first); the instances' storage stays.
#[inline(never)]
pub fn destroy_instances(at: Addr, t: TypeInfo, count: usize) {
    if t.no_destruction_needed() {
        return;
    }
    let mut work = Worklist::new();
    work.push(Entry::new(DESTROY_INSTANCES, at, Addr::NULL, t.addr(), count, 0));
    run_destroy(&mut work);
}

/// Schedules the deallocation of the allocatable components of the
/// instance at `at`, each after its own components.
#[inline(never)]
fn destroy_one(at: Addr, t: TypeInfo, work: &mut Worklist) {
    for c in t.components() {
        let place = at.plus(c.offset());
        match c.genre() {
            component_genre::ALLOCATABLE | component_genre::AUTOMATIC => {
                let cd = Desc(place);
                if cd.is_allocated() {
                    work.push(Entry::new(DEALLOCATE, place, Addr::NULL, Addr::NULL, 0, 0));
                    if let Some(ct) = c.derived_type().filter(|ct| !ct.no_destruction_needed()) {
                        work.push(Entry::new(DESTROY_ELEMENTS, place, Addr::NULL, ct.addr(), 0, 0));
                    }
                }
            }
            component_genre::DATA => {
                if let Some(ct) = c.derived_type().filter(|ct| !ct.no_destruction_needed()) {
                    work.push(Entry::new(DESTROY_INSTANCES, place, Addr::NULL, ct.addr(), c.elements(None), 0));
                }
            }
            _ => {}
        }
    }
}

/// `Descriptor::Destroy`: destroys the components (finalizing first when
/// asked) and frees the storage of `d`; a pointer is left alone unless
/// `destroy_pointers`. The status of the deallocation.
#[inline(never)]
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
    let storage = temporary_descriptor(rank, len_parameters);
    let r = f(storage);
    memory::deallocate(storage.addr());
    r
}

/// Heap storage for a descriptor of `rank` with an addendum of
/// `len_parameters`; the caller frees it.
fn temporary_descriptor(rank: usize, len_parameters: usize) -> Desc {
    let storage = memory::allocate(descriptor_bytes(rank, true, len_parameters));
    if storage.is_null() {
        terminator::crash_with(Site::UNKNOWN, b"out of device heap for a temporary descriptor");
    }
    Desc(storage)
}

/// Kinds of [`finalize`]'s work.
const FINALIZE: u32 = 1;
const FINALIZE_AND_FREE: u32 = 2;

/// flang-rt's `Finalize` (F'2018 7.5.6.2): the final subroutine of the
/// elements' type, then of their finalizable components, the parent
/// component last. Components and parents are visited through a
/// [`Worklist`], where the parent is pushed first (so that it comes last);
/// the temporary descriptors of a parent or a data component are freed once
/// their final subroutine has run.
#[inline(never)]
pub fn finalize(d: Desc, t: TypeInfo) {
    let mut work = Worklist::new();
    work.push(Entry::new(FINALIZE, d.addr(), Addr::NULL, t.addr(), 0, 0));
    while let Some(e) = work.pop() {
        let (d, Some(t)) = (Desc(e.a), TypeInfo::at(e.c)) else { continue };
        if !t.no_finalization_needed() && d.is_allocated() {
            finalize_one(d, t, &mut work);
        }
        if e.kind == FINALIZE_AND_FREE {
            // What `finalize_one` pushed refers to the data, not to `d`.
            memory::deallocate(d.addr());
        }
    }
}

/// The final subroutine of `d`'s elements; their parent component and
/// finalizable components go to `work`.
#[inline(never)]
fn finalize_one(d: Desc, t: TypeInfo, work: &mut Worklist) {
    call_final_subroutine(d, t);
    if let Some(parent) = t.parent().filter(|p| !p.no_finalization_needed()) {
        let p = temporary_descriptor(d.rank(), d.len_parameters());
        p.copy_from(d);
        p.set_attribute(attribute::POINTER);
        p.set_derived_type(Some(parent));
        p.set_elem_len(parent.size_in_bytes());
        work.push(Entry::new(FINALIZE_AND_FREE, p.addr(), Addr::NULL, parent.addr(), 0, 0));
    }
    for c in t.components() {
        if t.has_parent() && c.offset() == 0 && c.genre() == component_genre::DATA && c.derived_type() == t.parent() {
            continue; // the parent component, above
        }
        for n in 0..d.elements() {
            finalize_component(d.base().offset(d.element_offset(n)).plus(c.offset()), c, work);
        }
    }
}

/// Schedules the finalization of the component `c` at `place` of one
/// instance.
#[inline(never)]
fn finalize_component(place: Addr, c: Comp, work: &mut Worklist) {
    match c.genre() {
        component_genre::ALLOCATABLE | component_genre::AUTOMATIC => {
            let cd = Desc(place);
            if !cd.is_allocated() {
                return;
            }
            // The dynamic type of a polymorphic component decides.
            let dynamic = if c.category() == Some(TypeCategory::Derived) { cd.derived_type() } else { c.derived_type() };
            if let Some(ct) = dynamic.filter(|ct| !ct.no_finalization_needed()) {
                work.push(Entry::new(FINALIZE, place, Addr::NULL, ct.addr(), 0, 0));
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
                let cd = temporary_descriptor(rank, ct.len_parameters());
                cd.establish_derived(ct, place, rank, Some(&extents[..rank]), attribute::OTHER);
                work.push(Entry::new(FINALIZE_AND_FREE, cd.addr(), Addr::NULL, ct.addr(), 0, 0));
            }
        }
        _ => {}
    }
}

/// The final subroutine for the rank of `d`: ranked, assumed-rank or
/// elemental, as flang-rt's `FindFinal` picks.
#[inline(never)]
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

/// `_FortranAClassIs(d, t)`: the `CLASS IS (t)` guard of `SELECT TYPE`:
/// the dynamic type of `d` is `t` or an extension of it.
pub fn class_is(d: Desc, t: TypeInfo) -> bool {
    d.derived_type().is_some_and(|u| u.extends(t))
}

/// Whether `d` is an unallocated allocatable or disassociated pointer
/// without a dynamic type: unlimited polymorphic.
fn unallocated_unlimited(d: Desc) -> bool {
    (d.is_allocatable() || d.is_pointer()) && !d.is_allocated() && d.derived_type().is_none() && is_struct_or_other(d)
}

fn is_struct_or_other(d: Desc) -> bool {
    matches!(d.type_code(), type_code::STRUCT | type_code::OTHER)
}

/// `_FortranAExtendsTypeOf(a, mold)`: `EXTENDS_TYPE_OF` (F'2023 16.9.86):
/// true for an unallocated unlimited polymorphic `mold`, else false for an
/// unallocated unlimited polymorphic `a`, else whether the dynamic type of
/// `a` extends that of `mold`. An unallocated polymorphic object that is
/// not unlimited has its declared type, which its descriptor holds. For two
/// intrinsic types (processor dependent) the result is whether they are the
/// same.
pub fn extends_type_of(a: Desc, mold: Desc) -> bool {
    if unallocated_unlimited(mold) {
        return true;
    }
    if unallocated_unlimited(a) {
        return false;
    }
    match (a.derived_type(), mold.derived_type()) {
        (Some(a), Some(mold)) => a.extends(mold),
        (None, None) => !is_struct_or_other(a) && a.type_code() == mold.type_code(),
        _ => false,
    }
}

/// `_FortranASameTypeAs(a, b)`: `SAME_TYPE_AS` (F'2023 16.9.165): the same
/// dynamic type, KIND parameters aside; of two intrinsic types (processor
/// dependent), the same type code. An unallocated unlimited polymorphic
/// object has no dynamic type, the same as no other.
pub fn same_type_as(a: Desc, b: Desc) -> bool {
    if !is_struct_or_other(a) || !is_struct_or_other(b) {
        return a.type_code() == b.type_code();
    }
    match (a.derived_type(), b.derived_type()) {
        (Some(ta), Some(tb)) => ta == tb || ta.uninstantiated().is_some_and(|u| Some(u) == tb.uninstantiated()),
        _ => false,
    }
}
