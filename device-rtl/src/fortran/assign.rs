//! Intrinsic assignment (flang-rt's `assign.cpp`): `_FortranAAssign` and its
//! relatives. The left-hand side is reallocated when it is an allocatable of
//! another shape or length (F'2018 10.2.1.3); overlapping sides go through
//! a temporary; derived types are assigned component by component, with
//! deep copies of allocatable components and the left-hand side finalized
//! where flang asks for it.
//!
//! Its `#[inline(never)]` functions keep the runtime's registers low (see
//! "Registers" in [`super`]).

use super::derived::{self, shallow_copy, with_temporary_descriptor};
use super::descriptor::{Desc, Walk};
use super::memory::Addr;
use super::terminator::{self, Site};
use super::type_info::TypeInfo;
use super::work::{Entry, Worklist};
use omprt_abi::fortran::{assign_flags::*, attribute, component_genre, stat, type_code};

/// Whether the allocated allocatable `to` must be deallocated before the
/// assignment: another type, character length or shape (F'2018 10.2.1.3(3)).
fn must_deallocate_lhs(to: Desc, from: Desc, flags: i32) -> bool {
    if flags & MAYBE_REALLOCATE == 0 || !to.is_allocatable() || !to.is_allocated() {
        return false;
    }
    if to.type_code() != from.type_code() {
        return true;
    }
    if flags & EXPLICIT_LENGTH_CHARACTER_LHS == 0 && to.is_character() && to.elem_len() != from.elem_len() {
        return true;
    }
    if flags & POLYMORPHIC_LHS != 0 {
        let (td, fd) = (to.derived_type(), from.derived_type());
        if td != fd {
            return true;
        }
        if let Some(t) = fd {
            for j in 0..t.len_parameters() {
                if to.len_parameter(j) != from.len_parameter(j) {
                    return true;
                }
            }
        }
    }
    from.rank() > 0 && (0..to.rank()).any(|j| to.extent(j) != from.extent(j))
}

/// Allocates the unallocated allocatable `to` with the type, length and
/// bounds of `from` (a scalar `from` leaves the bounds of `to`), and
/// default-initializes a derived type.
fn allocate_lhs(to: Desc, from: Desc, flags: i32, site: Site) {
    to.set_type_code(from.type_code());
    if flags & EXPLICIT_LENGTH_CHARACTER_LHS == 0 {
        to.set_elem_len(from.elem_len());
    }
    let derived = from.derived_type();
    if to.has_addendum() {
        to.set_derived_type(derived);
        if let Some(t) = derived.filter(|_| from.has_addendum()) {
            for j in 0..t.len_parameters() {
                to.set_len_parameter(j, from.len_parameter(j));
            }
        }
    }
    for j in 0..from.rank() {
        let d = from.dim(j);
        to.set_bounds(j, d.lower_bound, d.upper_bound());
    }
    if let Err(s) = to.allocate() {
        allocation_failed(site, s);
    }
    if let Some(t) = derived.filter(|t| !t.no_initialization_needed()) {
        derived::initialize(to, t);
    }
}

#[cold]
#[inline(never)]
fn allocation_failed(site: Site, status: i32) -> ! {
    terminator::crash(site, |m| {
        m.text(b"Assign: allocation of the left-hand side failed (STAT=").int(status.into()).text(b")");
    })
}

/// Whether the storage of `x` and `y` may overlap, or one's storage holds the
/// other's descriptor (an allocatable component assigned from its parent).
fn may_alias(x: Desc, y: Desc) -> bool {
    let (xb, yb) = (x.base(), y.base());
    if xb.is_null() || yb.is_null() {
        return false;
    }
    let (xl, xm) = x.byte_range();
    let (yl, ym) = y.byte_range();
    let overlap = |a0: usize, a1: usize, b0: usize, b1: usize| a1 >= b0 && b1 >= a0;
    let range = |base: Addr, least: i64, most: i64| (base.offset(least).value(), base.offset(most).value());
    let (x0, x1) = range(xb, xl, xm);
    let (y0, y1) = range(yb, yl, ym);
    let xd = (x.addr().value(), x.addr().value() + x.size_in_bytes() - 1);
    let yd = (y.addr().value(), y.addr().value() + y.size_in_bytes() - 1);
    overlap(xd.0, xd.1, y0, y1) || overlap(yd.0, yd.1, x0, x1) || overlap(x0, x1, y0, y1)
}

/// flang-rt's `Assign(to, from, terminator, flags)`. Where the two sides
/// may overlap, the right-hand side is copied first (into a temporary, or by
/// keeping the left-hand side's old storage until the end); then the
/// assignment proper ([`assign_without_overlap`]).
pub fn assign(to: Desc, from: Desc, flags: i32, site: Site) {
    if !may_alias(to, from) {
        return assign_without_overlap(to, from, flags, site);
    }
    let to_derived = to.derived_type();
    let finalize_lhs = flags & NEED_FINALIZATION != 0 && to_derived.is_some_and(|t| !t.no_finalization_needed());
    if (flags & DEALLOCATE_LHS != 0 || must_deallocate_lhs(to, from, flags)) && to.is_allocatable() {
        // The left-hand side's old storage overlaps the right-hand side:
        // a copy of its descriptor keeps it until the assignment is done.
        with_temporary_descriptor(to.rank(), to.len_parameters(), |old| {
            old.copy_from(to);
            if let Some(t) = to_derived.filter(|_| finalize_lhs) {
                derived::finalize(old, t);
            }
            to.set_base(Addr::NULL);
            assign_without_overlap(to, from, flags & !(NEED_FINALIZATION | DEALLOCATE_LHS), site);
            let _ = derived::destroy_descriptor(old, false, false);
        });
        return;
    }
    if to.derived_type().is_none() && to.rank() == from.rank() && to.is_contiguous() && from.is_contiguous() && to.elem_len() == from.elem_len() {
        // One copy with memmove's semantics.
        return assign_without_overlap(to, from, flags, site);
    }
    // Copy the right-hand side into a temporary and assign that.
    with_temporary_descriptor(from.rank(), from.len_parameters(), |temp| {
        temp.copy_from(from);
        temp.set_attribute(attribute::ALLOCATABLE);
        if let Err(s) = temp.allocate() {
            allocation_failed(site, s);
        }
        match from.derived_type().filter(|t| !t.no_destruction_needed()) {
            Some(t) => {
                // Allocatable components need copies of their own.
                if !t.no_initialization_needed() {
                    derived::initialize(temp, t);
                }
                assign_without_overlap(temp, from, MAYBE_REALLOCATE | POLYMORPHIC_LHS, site);
            }
            None => shallow_copy(temp, from),
        }
        let kept = NEED_FINALIZATION | COMPONENT_CAN_BE_DEFINED_ASSIGNMENT | EXPLICIT_LENGTH_CHARACTER_LHS | CAN_BE_DEFINED_ASSIGNMENT;
        assign_without_overlap(to, temp, flags & kept, site);
        let _ = derived::destroy_descriptor(temp, false, false);
    });
}

/// Kinds of the assignment's work: a pair of descriptors (`a` to `b`), or
/// `count` pairs of instances of the type at `c`.
const DESCRIPTORS: u32 = 1;
const INSTANCES: u32 = 2;

/// [`assign`] of sides that do not overlap: the pair, then the allocatable
/// and derived components it leaves to do, through a [`Worklist`]. The
/// components of two sides that do not overlap do not overlap either (an
/// allocatable's storage is its own).
#[inline(never)]
fn assign_without_overlap(to: Desc, from: Desc, flags: i32, site: Site) {
    let mut work = Worklist::new();
    assign_pair(to, from, flags, site, &mut work);
    drain(&mut work, site);
}

/// Assigns the instance at `from` to the one at `to`, of type `t`, component
/// by component (deep copies), as flang-rt's element-wise assignment of a
/// derived type does (array constructors and array transformations).
pub fn assign_instance(to: Addr, from: Addr, t: TypeInfo, flags: i32, instance: Option<Desc>, site: Site) {
    let mut work = Worklist::new();
    assign_components(to, from, t, flags, instance, &mut work);
    drain(&mut work, site);
}

#[inline(never)]
fn drain(work: &mut Worklist, site: Site) {
    while let Some(e) = work.pop() {
        if e.kind == DESCRIPTORS {
            assign_pair(Desc(e.a), Desc(e.b), e.flags, site, work);
        } else if let Some(t) = TypeInfo::at(e.c) {
            let size = t.size_in_bytes();
            for i in 0..e.count {
                assign_components(e.a.plus(i * size), e.b.plus(i * size), t, e.flags, None, work);
            }
        }
    }
}

/// flang-rt's `Assign` of one pair that does not overlap: the left-hand
/// side reallocated if it must be, finalized or its components destroyed,
/// then copied; the components a derived type leaves go to `work`.
#[inline(never)]
fn assign_pair(to: Desc, from: Desc, flags: i32, site: Site, work: &mut Worklist) {
    let flags = prepare_lhs(to, from, flags, site);
    let to_elements = checked_elements(to, from, site);
    let Some(t) = to.derived_type() else {
        return copy_intrinsic(to, from, to_elements);
    };
    // The left-hand side is finalized, or its components deallocated,
    // before the component-wise copy (7.5.6.3(1), 10.2.1.3(13)).
    if flags & NEED_FINALIZATION != 0 {
        derived::finalize(to, t);
    } else if !t.no_destruction_needed() {
        derived::destroy(to, false, t);
    }
    let mut nested = MAYBE_REALLOCATE | POLYMORPHIC_LHS;
    if flags & COMPONENT_CAN_BE_DEFINED_ASSIGNMENT != 0 {
        nested |= CAN_BE_DEFINED_ASSIGNMENT | COMPONENT_CAN_BE_DEFINED_ASSIGNMENT;
    }
    for n in 0..to_elements {
        let f = if from.rank() == 0 { 0 } else { from.element_offset(n) };
        assign_components(to.base().offset(to.element_offset(n)), from.base().offset(f), t, nested, Some(to), work);
    }
}

/// The left-hand side of [`assign_pair`] made ready: deallocated where it
/// must be, allocated where it is not; the flags that still apply
/// (finalization is done, or moot, once it is deallocated).
#[inline(never)]
fn prepare_lhs(to: Desc, from: Desc, mut flags: i32, site: Site) -> i32 {
    let must_deallocate = flags & DEALLOCATE_LHS != 0 || must_deallocate_lhs(to, from, flags);
    let to_derived = to.derived_type();
    if to_derived.is_some_and(TypeInfo::no_finalization_needed) {
        flags &= !NEED_FINALIZATION;
    }
    if to.is_allocatable() {
        if must_deallocate {
            let _ = derived::destroy_descriptor(to, flags & NEED_FINALIZATION != 0, false);
            flags &= !NEED_FINALIZATION;
        } else if to.rank() != from.rank() && !to.is_allocated() {
            terminator::crash(site, |m| {
                m.text(b"Assign: mismatched ranks (").int(to.rank() as i64).text(b" != ").int(from.rank() as i64);
                m.text(b") in assignment to unallocated allocatable");
            });
        }
        if !to.is_allocated() {
            allocate_lhs(to, from, flags, site);
            flags &= !NEED_FINALIZATION;
        }
    }
    if to_derived.is_some_and(|t| flags & CAN_BE_DEFINED_ASSIGNMENT != 0 && t.has_defined_assignment()) {
        terminator::unsupported(b"_FortranAAssign", b"a defined assignment (ASSIGNMENT(=)) of a derived type");
    }
    flags
}

/// The elements [`assign_pair`] assigns, once the two sides are found to
/// agree in element count, type and element size, or a crash.
#[inline(never)]
fn checked_elements(to: Desc, from: Desc, site: Site) -> usize {
    let to_elements = to.elements();
    if from.rank() > 0 && to_elements != from.elements() {
        terminator::crash(site, |m| {
            m.text(b"Assign: mismatching element counts in array assignment (to ").int(to_elements as i64);
            m.text(b", from ").int(from.elements() as i64).text(b")");
        });
    }
    if to.type_code() != from.type_code() {
        terminator::crash(site, |m| {
            m.text(b"Assign: mismatching types (to code ").int(to.type_code().into()).text(b" != from code ");
            m.int(from.type_code().into()).text(b")");
        });
    }
    if to.elem_len() > from.elem_len() && !to.is_character() {
        terminator::crash(site, |m| {
            m.text(b"Assign: mismatching non-character element sizes (to ").int(to.elem_len() as i64).text(b" bytes != from ");
            m.int(from.elem_len() as i64).text(b" bytes)");
        });
    }
    to_elements
}

/// Intrinsic assignment of `elements` elements of an intrinsic type: one
/// copy when both sides are contiguous alike, else element by element,
/// characters blank-padded or truncated to the left-hand side's length; a
/// scalar right-hand side is copied into every element. Apart from
/// [`assign_pair`], so that the walks' counters are not in its frame.
#[inline(never)]
fn copy_intrinsic(to: Desc, from: Desc, elements: usize) {
    let (to_bytes, from_bytes) = (to.elem_len(), from.elem_len());
    if to.rank() == from.rank() && to.is_contiguous() && from.is_contiguous() && to_bytes == from_bytes {
        to.base().copy_from(from.base(), elements * to_bytes);
        return;
    }
    let char_bytes = match to.type_code() {
        type_code::CHAR16 => 2,
        type_code::CHAR32 => 4,
        _ => 1,
    };
    let (mut tw, mut fw) = (Walk::new(to), Walk::new(from));
    for _ in 0..elements {
        let (t, f) = (to.base().offset(tw.offset()), from.base().offset(fw.offset()));
        copy_element(t, to_bytes, f, from_bytes, char_bytes);
        tw.advance();
        fw.advance();
    }
}

/// Copies one element of `from_bytes` into one of `to_bytes`, padding a
/// longer character element with blanks of `char_bytes` bytes each.
pub fn copy_element(to: Addr, to_bytes: usize, from: Addr, from_bytes: usize, char_bytes: usize) {
    if to_bytes <= from_bytes {
        to.copy_from(from, to_bytes);
        return;
    }
    to.copy_from(from, from_bytes);
    let mut at = from_bytes;
    while at + char_bytes <= to_bytes {
        match char_bytes {
            2 => to.plus(at).store(u16::from(b' ')),
            4 => to.plus(at).store(u32::from(b' ')),
            _ => to.plus(at).store(b' '),
        }
        at += char_bytes;
    }
}

/// Assigns the components of the instance at `from` to the one at `to`, of
/// type `t`: data copied, pointers copied as descriptors, procedure
/// pointers copied; a derived data component's allocatable components
/// destroyed at once and its instances, and each allocatable component
/// (deep-copied, the left-hand side's deallocated first), left to `work`.
#[inline(never)]
fn assign_components(to: Addr, from: Addr, t: TypeInfo, flags: i32, instance: Option<Desc>, work: &mut Worklist) {
    for c in t.components() {
        let (tc, fc) = (to.plus(c.offset()), from.plus(c.offset()));
        match c.genre() {
            component_genre::DATA => match c.derived_type() {
                Some(ct) => {
                    if flags & CAN_BE_DEFINED_ASSIGNMENT != 0 && ct.has_defined_assignment() {
                        terminator::unsupported(b"_FortranAAssign", b"a defined assignment (ASSIGNMENT(=)) of a derived type component");
                    }
                    let count = c.elements(instance);
                    if !ct.no_destruction_needed() {
                        derived::destroy_instances(tc, ct, count);
                    }
                    work.push(Entry::new(INSTANCES, tc, fc, ct.addr(), count, flags));
                }
                None => tc.copy_from(fc, c.size_in_bytes(instance)),
            },
            component_genre::POINTER => tc.copy_from(fc, c.size_in_bytes(instance)),
            component_genre::ALLOCATABLE | component_genre::AUTOMATIC => {
                let (td, fd) = (Desc(tc), Desc(fc));
                if td.is_allocatable() && !fd.is_allocated() {
                    // F'2018 10.2.1.3(13)(2): an unallocated component makes
                    // the left-hand side's unallocated.
                    if td.is_allocated() {
                        let _ = derived::destroy_descriptor(td, false, false);
                    }
                    continue;
                }
                work.push(Entry::new(DESCRIPTORS, tc, fc, Addr::NULL, 0, flags | DEALLOCATE_LHS));
            }
            _ => {}
        }
    }
    for (offset, _) in t.procedure_pointers() {
        to.plus(offset).store_addr(from.plus(offset).load_addr());
    }
}

/// `_FortranAAssign`: `MaybeReallocate | NeedFinalization |
/// ComponentCanBeDefinedAssignment`.
pub fn assign_entry(to: Desc, from: Desc, site: Site) {
    assign(to, from, MAYBE_REALLOCATE | NEED_FINALIZATION | COMPONENT_CAN_BE_DEFINED_ASSIGNMENT, site)
}

/// `_FortranAAssignTemporary`: the left-hand side (a compiler temporary,
/// allocated or not) is default-initialized first if allocated; then
/// `MaybeReallocate | PolymorphicLHS`.
pub fn assign_temporary(to: Desc, from: Desc, site: Site) {
    if let Some(t) = to.derived_type().filter(|t| !t.no_initialization_needed())
        && to.is_allocated()
    {
        derived::initialize(to, t);
    }
    assign(to, from, MAYBE_REALLOCATE | POLYMORPHIC_LHS, site)
}

/// `_FortranACopyInAssign`: `temp` becomes an allocatable copy of `var`.
pub fn copy_in_assign(temp: Desc, var: Desc, site: Site) {
    temp.copy_from(var);
    temp.set_base(Addr::NULL);
    temp.set_attribute(attribute::ALLOCATABLE);
    assign_temporary(temp, var, site)
}

/// `_FortranACopyOutAssign`: copies `temp` back into `var` (when present,
/// without finalization) and destroys `temp`.
pub fn copy_out_assign(var: Option<Desc>, temp: Desc, site: Site) {
    if let Some(var) = var {
        assign(var, temp, 0, site);
    }
    let _ = derived::destroy_descriptor(temp, false, false);
}

/// `_FortranAAssignExplicitLengthCharacter`.
pub fn assign_explicit_length_character(to: Desc, from: Desc, site: Site) {
    assign(to, from, MAYBE_REALLOCATE | NEED_FINALIZATION | COMPONENT_CAN_BE_DEFINED_ASSIGNMENT | EXPLICIT_LENGTH_CHARACTER_LHS, site)
}

/// `_FortranAAssignPolymorphic`.
pub fn assign_polymorphic(to: Desc, from: Desc, site: Site) {
    assign(to, from, MAYBE_REALLOCATE | NEED_FINALIZATION | COMPONENT_CAN_BE_DEFINED_ASSIGNMENT | POLYMORPHIC_LHS, site)
}

/// flang-rt's `ReturnError`: `status` when the statement has `STAT=`
/// (writing the message into `ERRMSG=` when given), else a crash for any
/// status but success.
pub fn return_error(status: i32, has_stat: bool, errmsg: Option<Desc>, site: Site) -> i32 {
    if status == stat::OK {
        return status;
    }
    let message: &[u8] = match status {
        stat::BASE_ADDR_NULL => b"Base address is null",
        stat::BASE_ADDR_NOT_NULL => b"Base address is not null",
        stat::MEM_ALLOCATION => b"Memory allocation failed",
        STAT_INVALID_DESCRIPTOR => b"Invalid descriptor",
        STAT_MOVE_ALLOC_SAME => b"MOVE_ALLOC passed the same address as to and from",
        STAT_BAD_POINTER_DEALLOCATION => b"DEALLOCATE of a pointer that is not the whole content of a pointer ALLOCATE",
        _ => b"Unknown error",
    };
    if !has_stat {
        terminator::crash(site, |m| {
            m.text(message).text(b" (STAT=").int(status.into()).text(b")");
        });
    }
    if let Some(e) = errmsg.filter(|e| e.is_allocated()) {
        let room = e.elem_len();
        let n = message.len().min(room);
        for (i, &b) in message[..n].iter().enumerate() {
            e.base().plus(i).store(b);
        }
        e.base().plus(n).fill(b' ', room - n);
    }
    status
}

/// `CFI_INVALID_DESCRIPTOR`: an entry point of allocatables given another.
pub const STAT_INVALID_DESCRIPTOR: i32 = 18;
/// flang-rt's `StatMoveAllocSameAllocatable`.
pub const STAT_MOVE_ALLOC_SAME: i32 = 109;
/// flang-rt's `StatBadPointerDeallocation`.
pub const STAT_BAD_POINTER_DEALLOCATION: i32 = 110;
