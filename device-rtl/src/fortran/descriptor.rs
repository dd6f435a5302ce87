//! flang's descriptors (`omprt_abi::fortran::Header`, its dimensions and
//! addendum) as the runtime reads and writes them in place: [`Desc`], and
//! [`Walk`], the byte offsets of an array's elements in array element order.
//!
//! Its `#[inline(never)]` functions keep the runtime's registers low (see
//! "Registers" in [`super`]).

use super::memory::{self, Addr};
use super::terminator;
use super::type_info::TypeInfo;
use core::mem::{offset_of, size_of};
use omprt_abi::fortran::{self as abi, ADDENDUM_FLAG, ALLOCATOR_INDEX_MASK, Addendum, Dim, Header, MAX_RANK, attribute, type_code};

const BASE: usize = offset_of!(Header, base_addr);
const ELEM_LEN: usize = offset_of!(Header, elem_len);
const VERSION: usize = offset_of!(Header, version);
const RANK: usize = offset_of!(Header, rank);
const TYPE: usize = offset_of!(Header, type_code);
const ATTRIBUTE: usize = offset_of!(Header, attribute);
const EXTRA: usize = offset_of!(Header, extra);
const DIMS: usize = size_of::<Header>();
const DIM_BYTES: usize = size_of::<Dim>();

/// `CopyAndUpdateDescriptor`, for the descriptor of an association
/// (`SELECT RANK`, `SELECT TYPE`): `to` becomes a copy of `from` with the
/// dynamic type `new_type` where one is given (its size the element
/// length; the copy must have an addendum), the attribute `attribute`, and
/// the lower bounds as `modifier` says
/// ([`lower_bound_modifier`](abi::lower_bound_modifier): kept, all 1, or
/// all 0).
pub fn copy_and_update(to: Desc, from: Desc, new_type: Option<TypeInfo>, attribute: u8, modifier: i32) {
    to.copy_from(from);
    if let Some(t) = new_type {
        if !to.has_addendum() {
            terminator::crash_with(terminator::Site::UNKNOWN, b"CopyAndUpdateDescriptor: a dynamic type for a descriptor without an addendum");
        }
        to.set_derived_type(Some(t));
        to.set_elem_len(t.size_in_bytes());
    }
    to.set_attribute(attribute);
    if modifier != abi::lower_bound_modifier::PRESERVE {
        let lower_bound = if modifier == abi::lower_bound_modifier::SET_TO_ONES { 1 } else { 0 };
        for j in 0..to.rank() {
            to.set_dim(j, Dim { lower_bound, ..to.dim(j) });
        }
    }
}

/// A descriptor in memory: flang's, one inside a derived type instance, or
/// one the runtime fills in for a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Desc(pub Addr);

impl Desc {
    pub fn addr(self) -> Addr {
        self.0
    }
    pub fn base(self) -> Addr {
        self.0.plus(BASE).load_addr()
    }
    pub fn set_base(self, base: Addr) {
        self.0.plus(BASE).store_addr(base)
    }
    /// Bytes of one element.
    pub fn elem_len(self) -> usize {
        self.0.plus(ELEM_LEN).load()
    }
    pub fn set_elem_len(self, bytes: usize) {
        self.0.plus(ELEM_LEN).store(bytes)
    }
    pub fn rank(self) -> usize {
        usize::from(self.0.plus(RANK).load::<u8>())
    }
    pub fn type_code(self) -> i8 {
        self.0.plus(TYPE).load()
    }
    /// Sets the rank; the addendum, after the dimensions, is then read at
    /// its new place.
    pub fn set_rank(self, rank: usize) {
        self.0.plus(RANK).store(rank as u8)
    }
    pub fn set_type_code(self, code: i8) {
        self.0.plus(TYPE).store(code)
    }
    pub fn attribute(self) -> u8 {
        self.0.plus(ATTRIBUTE).load()
    }
    pub fn set_attribute(self, a: u8) {
        self.0.plus(ATTRIBUTE).store(a)
    }
    pub fn extra(self) -> u8 {
        self.0.plus(EXTRA).load()
    }
    pub fn is_allocatable(self) -> bool {
        self.attribute() == attribute::ALLOCATABLE
    }
    pub fn is_pointer(self) -> bool {
        self.attribute() == attribute::POINTER
    }
    /// Allocated (an allocatable) or associated (a pointer).
    pub fn is_allocated(self) -> bool {
        !self.base().is_null()
    }
    /// The index of the allocator of the data (0: the device heap).
    pub fn allocator(self) -> u8 {
        (self.extra() & ALLOCATOR_INDEX_MASK) >> abi::ALLOCATOR_INDEX_SHIFT
    }
    pub fn is_character(self) -> bool {
        matches!(self.type_code(), type_code::CHAR | type_code::CHAR16 | type_code::CHAR32 | type_code::SIGNED_CHAR)
    }

    fn dim_addr(self, j: usize) -> Addr {
        self.0.plus(DIMS + j * DIM_BYTES)
    }
    pub fn dim(self, j: usize) -> Dim {
        let d = self.dim_addr(j);
        Dim {
            lower_bound: d.plus(offset_of!(Dim, lower_bound)).load(),
            extent: d.plus(offset_of!(Dim, extent)).load(),
            byte_stride: d.plus(offset_of!(Dim, byte_stride)).load(),
        }
    }
    pub fn set_dim(self, j: usize, dim: Dim) {
        let d = self.dim_addr(j);
        d.plus(offset_of!(Dim, lower_bound)).store(dim.lower_bound);
        d.plus(offset_of!(Dim, extent)).store(dim.extent);
        d.plus(offset_of!(Dim, byte_stride)).store(dim.byte_stride);
    }
    pub fn extent(self, j: usize) -> i64 {
        self.dim_addr(j).plus(offset_of!(Dim, extent)).load()
    }
    pub fn lower_bound(self, j: usize) -> i64 {
        self.dim_addr(j).plus(offset_of!(Dim, lower_bound)).load()
    }
    pub fn byte_stride(self, j: usize) -> i64 {
        self.dim_addr(j).plus(offset_of!(Dim, byte_stride)).load()
    }
    /// `Dimension::SetBounds`: an empty range becomes bounds 1:0.
    pub fn set_bounds(self, j: usize, lower: i64, upper: i64) {
        let stride = self.byte_stride(j);
        let (lower_bound, extent) = if upper >= lower { (lower, upper - lower + 1) } else { (1, 0) };
        self.set_dim(j, Dim { lower_bound, extent, byte_stride: stride });
    }
    pub fn set_byte_stride(self, j: usize, bytes: i64) {
        self.dim_addr(j).plus(offset_of!(Dim, byte_stride)).store(bytes)
    }

    pub fn has_addendum(self) -> bool {
        self.extra() & ADDENDUM_FLAG != 0
    }
    fn addendum_addr(self) -> Addr {
        self.dim_addr(self.rank())
    }
    /// The derived type of the data, from the addendum.
    pub fn derived_type(self) -> Option<TypeInfo> {
        if !self.has_addendum() {
            return None;
        }
        TypeInfo::at(self.addendum_addr().plus(offset_of!(Addendum, derived_type)).load_addr())
    }
    /// Sets the addendum's derived type; the descriptor must have an addendum.
    pub fn set_derived_type(self, t: Option<TypeInfo>) {
        self.addendum_addr().plus(offset_of!(Addendum, derived_type)).store_addr(t.map_or(Addr::NULL, TypeInfo::addr))
    }
    /// LEN type parameter `which` of the addendum.
    pub fn len_parameter(self, which: usize) -> i64 {
        self.addendum_addr().plus(offset_of!(Addendum, len) + which * 8).load()
    }
    pub fn set_len_parameter(self, which: usize, value: i64) {
        self.addendum_addr().plus(offset_of!(Addendum, len) + which * 8).store(value)
    }
    /// The number of LEN type parameters the addendum holds.
    pub fn len_parameters(self) -> usize {
        self.derived_type().map_or(0, TypeInfo::len_parameters)
    }

    /// `Descriptor::SizeInBytes`: the header, dimensions and addendum.
    pub fn size_in_bytes(self) -> usize {
        abi::descriptor_bytes(self.rank(), self.has_addendum(), if self.has_addendum() { self.len_parameters() } else { 0 })
    }

    /// Elements described: the product of the extents (1 for a scalar).
    pub fn elements(self) -> usize {
        let mut n: usize = 1;
        for j in 0..self.rank() {
            let e = self.extent(j);
            if e <= 0 {
                return 0;
            }
            n = n.saturating_mul(e as usize);
        }
        n
    }

    /// `Descriptor::IsContiguous`: elements follow one another in array
    /// element order (a dimension of extent 1 has any stride).
    pub fn is_contiguous(self) -> bool {
        let mut bytes = self.elem_len() as i64;
        let mut strides_fit = true;
        for j in 0..self.rank() {
            let d = self.dim(j);
            strides_fit &= bytes == d.byte_stride || d.extent == 1;
            bytes = bytes.wrapping_mul(d.extent);
        }
        strides_fit || bytes == 0
    }

    /// An assumed-size array (`a(*)`, `a(n, *)`): flang marks the last
    /// dimension's extent -1.
    pub fn is_assumed_size(self) -> bool {
        self.rank() > 0 && self.extent(self.rank() - 1) == -1
    }

    /// Copies the descriptor `from` (its whole size) over this one.
    pub fn copy_from(self, from: Desc) {
        self.0.copy_from(from.0, from.size_in_bytes());
    }

    /// `Descriptor::Establish`: a descriptor of `rank` of elements of
    /// `elem_len` bytes of type `code` at `base` (null: unallocated), with
    /// lower bounds 1, the `extents` given (if any) and contiguous strides,
    /// and with an addendum of no derived type when `addendum`.
    #[allow(clippy::too_many_arguments, reason = "CFI_establish's arguments")]
    pub fn establish(self, code: i8, elem_len: usize, base: Addr, rank: usize, extents: Option<&[i64]>, attribute: u8, addendum: bool) {
        self.set_base(base);
        self.set_elem_len(elem_len);
        self.0.plus(VERSION).store(abi::CFI_VERSION);
        self.0.plus(RANK).store(rank as u8);
        self.set_type_code(code);
        self.set_attribute(attribute);
        self.0.plus(EXTRA).store(if addendum { ADDENDUM_FLAG } else { 0 });
        let mut stride = elem_len as i64;
        for j in 0..rank {
            let extent = extents.map_or(0, |e| e[j]);
            self.set_dim(j, Dim { lower_bound: 1, extent, byte_stride: stride });
            stride = stride.wrapping_mul(extent);
        }
        if addendum {
            self.set_derived_type(None);
            self.set_len_parameter(0, 0);
        }
    }

    /// [`Desc::establish`] for a derived type: its size, code and addendum.
    pub fn establish_derived(self, t: TypeInfo, base: Addr, rank: usize, extents: Option<&[i64]>, attribute: u8) {
        self.establish(type_code::STRUCT, t.size_in_bytes(), base, rank, extents, attribute, true);
        self.set_derived_type(Some(t));
    }

    /// `Descriptor::SetByteStrides`: contiguous strides for the extents.
    pub fn set_contiguous_strides(self) {
        let mut stride = self.elem_len() as i64;
        for j in 0..self.rank() {
            self.set_byte_stride(j, stride);
            stride = stride.wrapping_mul(self.extent(j));
        }
    }

    /// `Descriptor::Allocate`: storage for the elements the extents and
    /// element length describe (at least a byte), with contiguous strides.
    /// An error status when the heap is exhausted; the allocator must be the
    /// default one (`exports::fortran` checks).
    pub fn allocate(self) -> Result<(), i32> {
        if (self.elem_len() as i64) < 0 {
            // F'2023 7.4.4.2: a negative character length is zero.
            self.set_elem_len(0);
        }
        let bytes = self.elements().saturating_mul(self.elem_len());
        let base = memory::allocate(bytes);
        if base.is_null() {
            return Err(abi::stat::MEM_ALLOCATION);
        }
        self.set_base(base);
        self.set_contiguous_strides();
        Ok(())
    }

    /// `Descriptor::Deallocate`: frees the storage (not its components').
    pub fn deallocate(self) -> Result<(), i32> {
        let base = self.base();
        if base.is_null() {
            return Err(abi::stat::BASE_ADDR_NULL);
        }
        memory::deallocate(base);
        self.set_base(Addr::NULL);
        Ok(())
    }

    /// The byte offset of the element at zero-based element number `n` in
    /// array element order. Without a [`Walk`] to keep, for loops that
    /// recurse (derived types): a division per dimension beyond the first.
    #[inline(never)]
    pub fn element_offset(self, n: usize) -> i64 {
        match self.rank() {
            0 => return 0,
            1 => return n as i64 * self.byte_stride(0),
            _ => {}
        }
        let mut rest = n as i64;
        let mut offset = 0;
        for j in 0..self.rank() {
            let d = self.dim(j);
            if d.extent > 0 {
                offset += (rest % d.extent) * d.byte_stride;
                rest /= d.extent;
            }
        }
        offset
    }

    /// The lowest and highest byte offsets from the base its elements touch
    /// (flang-rt's `MaximalByteOffsetRange`): `(least <= 0, most >= 0)`.
    pub fn byte_range(self) -> (i64, i64) {
        let (mut least, mut most) = (0, 0);
        if self.elem_len() == 0 {
            return (0, 0);
        }
        for j in 0..self.rank() {
            let d = self.dim(j);
            if d.extent > 0 {
                if d.byte_stride < 0 {
                    least += (d.extent - 1) * d.byte_stride;
                } else {
                    most += (d.extent - 1) * d.byte_stride;
                }
            }
        }
        (least, most + self.elem_len() as i64 - 1)
    }
}

/// The byte offsets of a descriptor's elements in array element order, the
/// first subscript fastest, without a division per element: a counter per
/// dimension, with dimension 0's extent and stride kept at hand.
pub struct Walk {
    desc: Desc,
    rank: usize,
    offset: i64,
    counter: [i64; MAX_RANK],
    extent0: i64,
    stride0: i64,
}

impl Walk {
    pub fn new(desc: Desc) -> Walk {
        let rank = desc.rank();
        let (extent0, stride0) = if rank > 0 { (desc.extent(0), desc.byte_stride(0)) } else { (1, 0) };
        Walk { desc, rank, offset: 0, counter: [0; MAX_RANK], extent0, stride0 }
    }

    /// The offset of the current element from the base.
    #[inline(always)]
    pub fn offset(&self) -> i64 {
        self.offset
    }

    /// Moves to the next element (after the last, back to the first).
    #[inline(always)]
    pub fn advance(&mut self) {
        if self.rank == 0 {
            return;
        }
        self.counter[0] += 1;
        if self.counter[0] < self.extent0 {
            self.offset += self.stride0;
            return;
        }
        self.carry();
    }

    /// Dimension 0 wrapped: reset it and count the next dimension.
    #[inline(never)]
    fn carry(&mut self) {
        self.offset -= (self.extent0 - 1) * self.stride0;
        self.counter[0] = 0;
        for j in 1..self.rank {
            let d = self.desc.dim(j);
            self.counter[j] += 1;
            if self.counter[j] < d.extent {
                self.offset += d.byte_stride;
                return;
            }
            self.offset -= (d.extent - 1) * d.byte_stride;
            self.counter[j] = 0;
        }
    }

    /// The zero-based subscript of dimension `j` of the current element.
    pub fn index(&self, j: usize) -> i64 {
        self.counter[j]
    }
}
