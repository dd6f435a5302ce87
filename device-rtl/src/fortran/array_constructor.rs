//! Array constructors whose extent flang cannot compute before it evaluates
//! them (`[a, x]` with an allocatable `a`): flang-rt's
//! `array-constructor.cpp`. flang reserves storage for the runtime's record
//! ([`Vector`]); the result is an allocatable rank-1 descriptor (or a
//! variable) that grows as values are pushed.

use super::derived;
use super::descriptor::{Desc, Walk};
use super::memory::{self, Addr};
use super::terminator::{self, Site};
use core::mem::{align_of, offset_of, size_of};
use omprt_abi::fortran::{ARRAY_CONSTRUCTOR_VECTOR_ALIGN, ARRAY_CONSTRUCTOR_VECTOR_BYTES};

/// The runtime's record of one array constructor, in flang's storage of
/// `ARRAY_CONSTRUCTOR_VECTOR_BYTES`.
#[repr(C)]
struct Vector {
    /// The result's descriptor.
    to: *mut u8,
    /// Zero-based position of the next value.
    next: i64,
    /// Elements the storage has room for.
    capacity: i64,
    file: *const u8,
    line: i32,
    /// The constructor has no type-spec: the first value sets the length.
    use_value_length: u8,
}
const _: () = assert!(size_of::<Vector>() <= ARRAY_CONSTRUCTOR_VECTOR_BYTES && align_of::<Vector>() <= ARRAY_CONSTRUCTOR_VECTOR_ALIGN);

const TO: usize = offset_of!(Vector, to);
const NEXT: usize = offset_of!(Vector, next);
const CAPACITY: usize = offset_of!(Vector, capacity);
const FILE: usize = offset_of!(Vector, file);
const LINE: usize = offset_of!(Vector, line);
const USE_VALUE_LENGTH: usize = offset_of!(Vector, use_value_length);

fn site(v: Addr) -> Site {
    Site { file: v.plus(FILE).load_addr(), line: v.plus(LINE).load() }
}

/// `_FortranAInitArrayConstructorVector`.
pub fn init(v: Addr, to: Desc, use_value_length: bool, s: Site) {
    if to.rank() != 1 {
        terminator::crash_with(s, b"Array constructor: the result is not of rank 1");
    }
    let capacity = if to.is_allocated() { to.elements() as i64 } else { 0 };
    v.plus(TO).store_addr(to.addr());
    v.plus(NEXT).store(0i64);
    v.plus(CAPACITY).store(capacity);
    v.plus(FILE).store_addr(s.file);
    v.plus(LINE).store(s.line);
    v.plus(USE_VALUE_LENGTH).store(u8::from(use_value_length));
}

/// Room for the first storage of a constructor of unknown extent: at least
/// 4 elements and 128 bytes, as flang-rt starts.
fn initial_capacity(elements: i64, element_bytes: usize) -> i64 {
    let by_bytes = 128usize.checked_div(element_bytes).unwrap_or(0) as i64;
    elements.max(4).max(by_bytes)
}

/// Makes room for `from_elements` more values, as flang-rt does: the first
/// allocation of an unallocated result (sized to the known extent if flang
/// set one, else with room to grow), then doubling.
fn make_room(v: Addr, to: Desc, previous: i64, from_elements: i64, s: Site) {
    let next = v.plus(NEXT).load::<i64>();
    if to.is_allocatable() && !to.is_allocated() {
        if previous == 0 {
            let capacity = initial_capacity(from_elements, to.elem_len());
            to.set_bounds(0, 1, capacity);
            super::allocatable::allocate(to, false, None, s);
            to.set_bounds(0, 1, from_elements);
            v.plus(CAPACITY).store(capacity);
        } else {
            if previous < from_elements {
                terminator::crash_with(s, b"Array constructor: more values than the extent");
            }
            super::allocatable::allocate(to, false, None, s);
            v.plus(CAPACITY).store(previous);
        }
        return;
    }
    let needed = next + from_elements;
    let capacity = v.plus(CAPACITY).load::<i64>();
    if to.is_allocatable() && capacity < needed {
        let grown = needed.max(capacity * 2);
        let bytes = grown as usize * to.elem_len();
        if bytes > 0 {
            let storage = memory::allocate(bytes);
            if storage.is_null() {
                terminator::crash_with(s, b"Array constructor: out of device heap");
            }
            storage.copy_from(to.base(), next as usize * to.elem_len());
            memory::deallocate(to.base());
            to.set_base(storage);
            to.set_byte_stride(0, to.elem_len() as i64);
        }
        v.plus(CAPACITY).store(grown);
        to.set_bounds(0, 1, needed);
    } else if previous < needed {
        to.set_bounds(0, 1, needed);
    }
}

/// `_FortranAPushArrayConstructorValue`: appends the elements of `from` (a
/// scalar or an array of any rank, in array element order).
pub fn push_value(v: Addr, from: Desc) {
    let s = site(v);
    let to = Desc(v.plus(TO).load_addr());
    let from_elements = from.elements() as i64;
    let previous = to.elements() as i64;
    if v.plus(USE_VALUE_LENGTH).load::<u8>() != 0 {
        if to.is_allocatable() && !to.is_allocated() {
            // The first value sets the length parameters.
            if to.is_character() {
                to.set_elem_len(from.elem_len());
            } else if let Some(t) = to.derived_type().filter(|_| from.has_addendum()) {
                for j in 0..t.len_parameters() {
                    to.set_len_parameter(j, from.len_parameter(j));
                }
            }
        } else if to.is_character() && to.elem_len() != from.elem_len() {
            terminator::crash(s, |m| {
                m.text(b"Array constructor: mismatched character lengths (").int(to.elem_len() as i64).text(b" != ");
                m.int(from.elem_len() as i64).text(b" bytes) between values of an array constructor without type-spec");
            });
        }
    }
    make_room(v, to, previous, from_elements, s);
    let next = v.plus(NEXT).load::<i64>();
    let stride = to.byte_stride(0);
    let at = |i: i64| to.base().offset((next + i) * stride);
    if let Some(t) = to.derived_type() {
        // As flang-rt's AssignTemporary of the section: initialized, then
        // assigned component by component (deep copies).
        for i in 0..from_elements {
            let element = at(i);
            if !t.no_initialization_needed() {
                derived::initialize_instances(element, t, 1, Some(to));
            }
            let f = from.base().offset(if from.rank() == 0 { 0 } else { from.element_offset(i as usize) });
            super::assign::assign_instance(element, f, t, omprt_abi::fortran::assign_flags::MAYBE_REALLOCATE, Some(to), s);
        }
    } else {
        let char_bytes = match to.type_code() {
            omprt_abi::fortran::type_code::CHAR16 => 2,
            omprt_abi::fortran::type_code::CHAR32 => 4,
            _ => 1,
        };
        let mut walk = Walk::new(from);
        for i in 0..from_elements {
            super::assign::copy_element(at(i), to.elem_len(), from.base().offset(walk.offset()), from.elem_len(), char_bytes);
            walk.advance();
        }
    }
    v.plus(NEXT).store(next + from_elements);
}

/// `_FortranAPushArrayConstructorSimpleScalar`: appends one value of a
/// numeric, logical or simple derived type, given by address.
pub fn push_simple_scalar(v: Addr, from: Addr) {
    let s = site(v);
    let to = Desc(v.plus(TO).load_addr());
    make_room(v, to, to.elements() as i64, 1, s);
    let next = v.plus(NEXT).load::<i64>();
    to.base().offset(next * to.byte_stride(0)).copy_from(from, to.elem_len());
    v.plus(NEXT).store(next + 1);
}
