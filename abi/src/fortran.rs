//! flang 22's descriptor ABI: the types its compiled code passes to the
//! Fortran runtime (flang-rt's entry points, `_FortranA*`), which omprt's
//! device library of those entry points reads and writes.
//!
//! * [`Header`] and [`Dim`]: the standard `CFI_cdesc_t` of
//!   `ISO_Fortran_binding.h` (`include/flang/ISO_Fortran_binding.h` of
//!   flang 22), which is flang-rt's `Descriptor`: 24 bytes, then one [`Dim`]
//!   per rank;
//! * [`Addendum`]: flang's extension after the last dimension, present when
//!   bit [`ADDENDUM_FLAG`] of [`Header::extra`] is set: the derived type's
//!   description and its LEN type parameters;
//! * [`type_code`]: the `CFI_type_*` codes flang writes into
//!   [`Header::type_code`], and [`TypeCategory`] with its kinds;
//! * the derived type descriptions flang emits for every derived type
//!   ([`DerivedType`], [`Component`], [`SpecialBinding`], ...), whose layout
//!   is flang's module `__fortran_type_info` compiled by flang.
//!
//! Sizes and offsets are pinned below; `tests/flang_layout.rs` checks them
//! against flang 22's headers (compiled by clang 22) and against the struct
//! types flang 22 emits in device IR.

use core::ffi::c_void;
use core::mem::{offset_of, size_of};
use static_assertions::const_assert_eq;

/// `CFI_VERSION`, which flang writes into [`Header::version`].
pub const CFI_VERSION: i32 = 20240719;
/// `CFI_MAX_RANK`.
pub const MAX_RANK: usize = 15;

/// `CFI_dim_t`: one dimension of a descriptor.
#[doc(alias = "CFI_dim_t")]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dim {
    pub lower_bound: i64,
    /// -1 for the last dimension of an assumed-size array.
    pub extent: i64,
    /// Memory stride in bytes (`sm`).
    pub byte_stride: i64,
}

impl Dim {
    /// The last subscript of the dimension.
    pub const fn upper_bound(&self) -> i64 {
        self.lower_bound + self.extent - 1
    }
}

/// The header of `CFI_cdesc_t` (its members before `dim[]`).
#[doc(alias = "CFI_cdesc_t")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Header {
    pub base_addr: *mut c_void,
    /// Bytes of one element.
    pub elem_len: usize,
    /// [`CFI_VERSION`].
    pub version: i32,
    pub rank: u8,
    /// A [`type_code`].
    pub type_code: i8,
    /// An [`attribute`].
    pub attribute: u8,
    /// Bit [`ADDENDUM_FLAG`]: an [`Addendum`] follows the dimensions; bits
    /// [`ALLOCATOR_INDEX_MASK`]: the allocator of the data (0: the default).
    pub extra: u8,
}

/// `CFI_attribute_*`.
pub mod attribute {
    /// Neither pointer nor allocatable.
    pub const OTHER: u8 = 0;
    pub const POINTER: u8 = 1;
    pub const ALLOCATABLE: u8 = 2;
}

/// `LowerBoundModifier` (flang's `Runtime/support.h`): the lower bounds
/// `CopyAndUpdateDescriptor` gives its copy.
pub mod lower_bound_modifier {
    pub const PRESERVE: i32 = 0;
    pub const SET_TO_ONES: i32 = 1;
    pub const SET_TO_ZEROES: i32 = 2;
}

/// `_CFI_ADDENDUM_FLAG` (flang's `descriptor-consts.h`).
pub const ADDENDUM_FLAG: u8 = 1;
/// `_CFI_ALLOCATOR_IDX_MASK`.
pub const ALLOCATOR_INDEX_MASK: u8 = 0b0000_1110;
/// `_CFI_ALLOCATOR_IDX_SHIFT`.
pub const ALLOCATOR_INDEX_SHIFT: u8 = 1;

/// `DescriptorAddendum` with room for one LEN type parameter (flang
/// reserves that one word even for types without any).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Addendum {
    pub derived_type: *const DerivedType,
    pub len: [i64; 1],
}

/// A descriptor of rank `RANK` without an addendum (flang-rt's
/// `StaticDescriptor<RANK>`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Descriptor<const RANK: usize> {
    pub header: Header,
    pub dim: [Dim; RANK],
}

/// A descriptor of rank `RANK` with an addendum (`StaticDescriptor<RANK,
/// true>`): derived types, and pointers to them in type descriptions.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DescriptorWithAddendum<const RANK: usize> {
    pub header: Header,
    pub dim: [Dim; RANK],
    pub addendum: Addendum,
}

/// Bytes of a descriptor of `rank` (`Descriptor::SizeInBytes`): the header,
/// the dimensions, and with an addendum its derived type and `len_params`
/// LEN parameters (at least one word).
pub const fn descriptor_bytes(rank: usize, addendum: bool, len_params: usize) -> usize {
    let mut bytes = size_of::<Header>() + rank * size_of::<Dim>();
    if addendum || len_params > 0 {
        let len = if len_params == 0 { 1 } else { len_params };
        bytes += size_of::<*const DerivedType>() + len * size_of::<i64>();
    }
    bytes
}

/// `CFI_type_*`: the type codes of [`Header::type_code`].
pub mod type_code {
    pub const SIGNED_CHAR: i8 = 1;
    pub const SHORT: i8 = 2;
    pub const INT: i8 = 3;
    pub const LONG: i8 = 4;
    pub const LONG_LONG: i8 = 5;
    pub const SIZE_T: i8 = 6;
    pub const INT8: i8 = 7;
    pub const INT16: i8 = 8;
    pub const INT32: i8 = 9;
    pub const INT64: i8 = 10;
    pub const INT128: i8 = 11;
    /// flang's LOGICAL(1) is [`BOOL`]; LOGICAL(2/4/8) use the `least` codes.
    pub const INT_LEAST8: i8 = 12;
    pub const INT_LEAST16: i8 = 13;
    pub const INT_LEAST32: i8 = 14;
    pub const INT_LEAST64: i8 = 15;
    pub const INT_LEAST128: i8 = 16;
    pub const INT_FAST8: i8 = 17;
    pub const INT_FAST16: i8 = 18;
    pub const INT_FAST32: i8 = 19;
    pub const INT_FAST64: i8 = 20;
    pub const INT_FAST128: i8 = 21;
    pub const INTMAX: i8 = 22;
    pub const INTPTR: i8 = 23;
    pub const PTRDIFF: i8 = 24;
    pub const HALF_FLOAT: i8 = 25;
    pub const BFLOAT: i8 = 26;
    pub const FLOAT: i8 = 27;
    pub const DOUBLE: i8 = 28;
    pub const EXTENDED_DOUBLE: i8 = 29;
    pub const LONG_DOUBLE: i8 = 30;
    pub const FLOAT128: i8 = 31;
    pub const HALF_FLOAT_COMPLEX: i8 = 32;
    pub const BFLOAT_COMPLEX: i8 = 33;
    pub const FLOAT_COMPLEX: i8 = 34;
    pub const DOUBLE_COMPLEX: i8 = 35;
    pub const EXTENDED_DOUBLE_COMPLEX: i8 = 36;
    pub const LONG_DOUBLE_COMPLEX: i8 = 37;
    pub const FLOAT128_COMPLEX: i8 = 38;
    pub const BOOL: i8 = 39;
    pub const CHAR: i8 = 40;
    pub const CPTR: i8 = 41;
    pub const STRUCT: i8 = 42;
    pub const CHAR16: i8 = 43;
    pub const CHAR32: i8 = 44;
    pub const UINT8: i8 = 45;
    pub const UINT16: i8 = 46;
    pub const UINT32: i8 = 47;
    pub const UINT64: i8 = 48;
    pub const UINT128: i8 = 49;
    /// `CFI_type_other`.
    pub const OTHER: i8 = -1;
}

/// `Fortran::common::TypeCategory`, as flang passes it to the runtime and
/// writes it into [`Component::category`].
#[repr(u8)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeCategory {
    Integer = 0,
    Unsigned = 1,
    Real = 2,
    Complex = 3,
    Character = 4,
    Logical = 5,
    Derived = 6,
}

impl TypeCategory {
    pub const fn from_raw(raw: i32) -> Option<TypeCategory> {
        Some(match raw {
            0 => TypeCategory::Integer,
            1 => TypeCategory::Unsigned,
            2 => TypeCategory::Real,
            3 => TypeCategory::Complex,
            4 => TypeCategory::Character,
            5 => TypeCategory::Logical,
            6 => TypeCategory::Derived,
            _ => return None,
        })
    }
}

/// flang-rt's `TypeCode(category, kind)`: the code flang's descriptors carry
/// for an intrinsic type, `None` for a kind that has none.
pub const fn type_code_of(category: TypeCategory, kind: i32) -> Option<i8> {
    use type_code::*;
    Some(match (category, kind) {
        (TypeCategory::Integer, 1) => INT8,
        (TypeCategory::Integer, 2) => INT16,
        (TypeCategory::Integer, 4) => INT32,
        (TypeCategory::Integer, 8) => INT64,
        (TypeCategory::Integer, 16) => INT128,
        (TypeCategory::Unsigned, 1) => UINT8,
        (TypeCategory::Unsigned, 2) => UINT16,
        (TypeCategory::Unsigned, 4) => UINT32,
        (TypeCategory::Unsigned, 8) => UINT64,
        (TypeCategory::Unsigned, 16) => UINT128,
        (TypeCategory::Real, 2) => HALF_FLOAT,
        (TypeCategory::Real, 3) => BFLOAT,
        (TypeCategory::Real, 4) => FLOAT,
        (TypeCategory::Real, 8) => DOUBLE,
        (TypeCategory::Real, 10) => EXTENDED_DOUBLE,
        (TypeCategory::Real, 16) => FLOAT128,
        (TypeCategory::Complex, 2) => HALF_FLOAT_COMPLEX,
        (TypeCategory::Complex, 3) => BFLOAT_COMPLEX,
        (TypeCategory::Complex, 4) => FLOAT_COMPLEX,
        (TypeCategory::Complex, 8) => DOUBLE_COMPLEX,
        (TypeCategory::Complex, 10) => EXTENDED_DOUBLE_COMPLEX,
        (TypeCategory::Complex, 16) => LONG_DOUBLE_COMPLEX,
        (TypeCategory::Character, 1) => CHAR,
        (TypeCategory::Character, 2) => CHAR16,
        (TypeCategory::Character, 4) => CHAR32,
        (TypeCategory::Logical, 1) => BOOL,
        (TypeCategory::Logical, 2) => INT_LEAST16,
        (TypeCategory::Logical, 4) => INT_LEAST32,
        (TypeCategory::Logical, 8) => INT_LEAST64,
        (TypeCategory::Derived, _) => STRUCT,
        _ => return None,
    })
}

/// The category and kind of a type code that flang's descriptors use
/// (flang-rt's `TypeCode::GetCategoryAndKind` for the codes flang writes);
/// `None` for the others.
pub const fn category_and_kind(code: i8) -> Option<(TypeCategory, i32)> {
    use type_code::*;
    Some(match code {
        INT8 => (TypeCategory::Integer, 1),
        INT16 => (TypeCategory::Integer, 2),
        INT32 => (TypeCategory::Integer, 4),
        INT64 => (TypeCategory::Integer, 8),
        INT128 => (TypeCategory::Integer, 16),
        UINT8 => (TypeCategory::Unsigned, 1),
        UINT16 => (TypeCategory::Unsigned, 2),
        UINT32 => (TypeCategory::Unsigned, 4),
        UINT64 => (TypeCategory::Unsigned, 8),
        UINT128 => (TypeCategory::Unsigned, 16),
        HALF_FLOAT => (TypeCategory::Real, 2),
        BFLOAT => (TypeCategory::Real, 3),
        FLOAT => (TypeCategory::Real, 4),
        DOUBLE => (TypeCategory::Real, 8),
        EXTENDED_DOUBLE => (TypeCategory::Real, 10),
        LONG_DOUBLE | FLOAT128 => (TypeCategory::Real, 16),
        HALF_FLOAT_COMPLEX => (TypeCategory::Complex, 2),
        BFLOAT_COMPLEX => (TypeCategory::Complex, 3),
        FLOAT_COMPLEX => (TypeCategory::Complex, 4),
        DOUBLE_COMPLEX => (TypeCategory::Complex, 8),
        EXTENDED_DOUBLE_COMPLEX => (TypeCategory::Complex, 10),
        LONG_DOUBLE_COMPLEX | FLOAT128_COMPLEX => (TypeCategory::Complex, 16),
        CHAR | SIGNED_CHAR => (TypeCategory::Character, 1),
        CHAR16 => (TypeCategory::Character, 2),
        CHAR32 => (TypeCategory::Character, 4),
        BOOL | INT_LEAST8 => (TypeCategory::Logical, 1),
        INT_LEAST16 => (TypeCategory::Logical, 2),
        INT_LEAST32 => (TypeCategory::Logical, 4),
        INT_LEAST64 => (TypeCategory::Logical, 8),
        STRUCT => (TypeCategory::Derived, 0),
        _ => return None,
    })
}

/// flang-rt's `AssignFlags` (`flang/Runtime/assign.h`): how an assignment
/// treats its left-hand side.
pub mod assign_flags {
    pub const MAYBE_REALLOCATE: i32 = 1 << 0;
    pub const NEED_FINALIZATION: i32 = 1 << 1;
    pub const CAN_BE_DEFINED_ASSIGNMENT: i32 = 1 << 2;
    pub const COMPONENT_CAN_BE_DEFINED_ASSIGNMENT: i32 = 1 << 3;
    pub const EXPLICIT_LENGTH_CHARACTER_LHS: i32 = 1 << 4;
    pub const POLYMORPHIC_LHS: i32 = 1 << 5;
    pub const DEALLOCATE_LHS: i32 = 1 << 6;
    pub const UPDATE_LHS_BOUNDS: i32 = 1 << 7;
}

/// flang-rt's `StatOk` and the `STAT=` values its allocation entry points
/// return (`CFI_*` error codes and flang's own, `stat.h`).
pub mod stat {
    pub const OK: i32 = 0;
    /// `CFI_ERROR_BASE_ADDR_NULL`: deallocation of an unallocated object.
    pub const BASE_ADDR_NULL: i32 = 11;
    /// `CFI_ERROR_BASE_ADDR_NOT_NULL`: allocation of an allocated object.
    pub const BASE_ADDR_NOT_NULL: i32 = 12;
    /// `CFI_ERROR_MEM_ALLOCATION`.
    pub const MEM_ALLOCATION: i32 = 19;
}

/// Bytes flang reserves for the runtime's state of one array constructor
/// (`MaxArrayConstructorVectorSizeInBytes`, `array-constructor-consts.h`);
/// the runtime's own record must fit.
pub const ARRAY_CONSTRUCTOR_VECTOR_BYTES: usize = 2 * 40;
/// Its alignment (`MaxArrayConstructorVectorAlignInBytes`).
pub const ARRAY_CONSTRUCTOR_VECTOR_ALIGN: usize = 8;

// ---------------------------------------------------------------------------
// Derived type descriptions (flang's module `__fortran_type_info`)

/// `TYPE(VALUE)`: a bound or length of a component, explicit or taken from a
/// LEN type parameter of the instance.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Value {
    /// [`value_genre`].
    pub genre: u8,
    pub padding: [u8; 7],
    pub value: i64,
}

/// `Value::Genre`.
pub mod value_genre {
    pub const DEFERRED: u8 = 1;
    pub const EXPLICIT: u8 = 2;
    pub const LEN_PARAMETER: u8 = 3;
}

/// `TYPE(COMPONENT)`: one data component of a derived type.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Component {
    /// `CHARACTER(:), POINTER`.
    pub name: Descriptor<0>,
    /// [`component_genre`].
    pub genre: u8,
    /// A [`TypeCategory`].
    pub category: u8,
    pub kind: u8,
    pub rank: u8,
    pub padding: [u8; 4],
    /// Bytes from the start of the instance.
    pub offset: u64,
    /// For [`TypeCategory::Character`].
    pub character_len: Value,
    /// `TYPE(DERIVEDTYPE), POINTER`: for [`TypeCategory::Derived`].
    pub derived_type: DescriptorWithAddendum<0>,
    /// `TYPE(VALUE), POINTER, DIMENSION(:)`: LEN parameters of a derived component.
    pub len_value: DescriptorWithAddendum<1>,
    /// `TYPE(VALUE), POINTER, DIMENSION(2,:)`: bounds of an explicit-shape component.
    pub bounds: DescriptorWithAddendum<2>,
    /// `TYPE(C_PTR)`: the initial value of a data or pointer component, or null.
    pub initialization: *const c_void,
}

/// `Component::Genre`.
pub mod component_genre {
    pub const DATA: u8 = 1;
    pub const POINTER: u8 = 2;
    pub const ALLOCATABLE: u8 = 3;
    pub const AUTOMATIC: u8 = 4;
}

/// `TYPE(PROCPTRCOMPONENT)`: a procedure pointer component.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ProcPtrComponent {
    pub name: Descriptor<0>,
    pub offset: u64,
    pub initialization: *const c_void,
}

/// `TYPE(BINDING)`: a type-bound procedure.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    pub proc_: *const c_void,
    pub name: Descriptor<0>,
}

/// `TYPE(SPECIALBINDING)`: a final procedure, defined assignment or defined
/// I/O of a derived type.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct SpecialBinding {
    /// [`special_binding`]`::*`; ranked final procedures follow
    /// [`special_binding::SCALAR_FINAL`] (`SCALAR_FINAL + rank`).
    pub which: u8,
    /// Bit `n`: dummy argument `n` is passed by descriptor.
    pub is_arg_descriptor_set: u8,
    /// Index + 1 of the binding when type-bound, else 0.
    pub is_type_bound: u8,
    pub special_case_flag: u8,
    pub padding: [u8; 4],
    pub proc_: *const c_void,
}

/// `SpecialBinding::Which`.
pub mod special_binding {
    pub const SCALAR_ASSIGNMENT: u8 = 1;
    pub const ELEMENTAL_ASSIGNMENT: u8 = 2;
    pub const READ_FORMATTED: u8 = 3;
    pub const READ_UNFORMATTED: u8 = 4;
    pub const WRITE_FORMATTED: u8 = 5;
    pub const WRITE_UNFORMATTED: u8 = 6;
    pub const ELEMENTAL_FINAL: u8 = 7;
    pub const ASSUMED_RANK_FINAL: u8 = 8;
    pub const SCALAR_FINAL: u8 = 9;
}

/// `TYPE(DERIVEDTYPE)`: the description flang emits for each derived type
/// (`<module>E.dt.<type>`), which the addendum of a derived-type descriptor
/// points to.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DerivedType {
    /// `TYPE(BINDING), DIMENSION(:), POINTER`.
    pub binding: DescriptorWithAddendum<1>,
    pub name: Descriptor<0>,
    pub size_in_bytes: u64,
    /// `TYPE(DERIVEDTYPE), POINTER`.
    pub uninstantiated: DescriptorWithAddendum<0>,
    /// `INTEGER(8), DIMENSION(:), POINTER`.
    pub kind_parameter: Descriptor<1>,
    /// `INTEGER(1), DIMENSION(:), POINTER`: one entry per LEN parameter.
    pub len_parameter_kind: Descriptor<1>,
    /// `TYPE(COMPONENT), DIMENSION(:), POINTER`: the data components, the parent first.
    pub component: DescriptorWithAddendum<1>,
    /// `TYPE(PROCPTRCOMPONENT), DIMENSION(:), POINTER`.
    pub proc_ptr: DescriptorWithAddendum<1>,
    /// `TYPE(SPECIALBINDING), DIMENSION(:), POINTER`, ascending by `which`.
    pub special: DescriptorWithAddendum<1>,
    /// Bit `which` set for each special binding present.
    pub special_bitset: u32,
    pub has_parent: u8,
    pub no_initialization_needed: u8,
    pub no_destruction_needed: u8,
    pub no_finalization_needed: u8,
    pub no_defined_assignment: u8,
    pub padding: [u8; 3],
}

// Layouts: the header is CFI_cdesc_t's, each dimension 24 bytes, the
// addendum two words; the type descriptions as flang 22 emits them.
const_assert_eq!(size_of::<Header>(), 24);
const_assert_eq!(offset_of!(Header, elem_len), 8);
const_assert_eq!(offset_of!(Header, version), 16);
const_assert_eq!(offset_of!(Header, rank), 20);
const_assert_eq!(offset_of!(Header, type_code), 21);
const_assert_eq!(offset_of!(Header, attribute), 22);
const_assert_eq!(offset_of!(Header, extra), 23);
const_assert_eq!(size_of::<Dim>(), 24);
const_assert_eq!(size_of::<Addendum>(), 16);
const_assert_eq!(size_of::<Descriptor<0>>(), 24);
const_assert_eq!(size_of::<Descriptor<1>>(), 48);
const_assert_eq!(size_of::<DescriptorWithAddendum<0>>(), 40);
const_assert_eq!(size_of::<DescriptorWithAddendum<1>>(), 64);
const_assert_eq!(size_of::<DescriptorWithAddendum<2>>(), 88);
const_assert_eq!(descriptor_bytes(2, true, 0), size_of::<DescriptorWithAddendum<2>>());
const_assert_eq!(descriptor_bytes(MAX_RANK, true, 3), 24 + 15 * 24 + 8 + 3 * 8);
const_assert_eq!(size_of::<Value>(), 16);
const_assert_eq!(size_of::<Component>(), 256);
const_assert_eq!(offset_of!(Component, genre), 24);
const_assert_eq!(offset_of!(Component, offset), 32);
const_assert_eq!(offset_of!(Component, character_len), 40);
const_assert_eq!(offset_of!(Component, derived_type), 56);
const_assert_eq!(offset_of!(Component, len_value), 96);
const_assert_eq!(offset_of!(Component, bounds), 160);
const_assert_eq!(offset_of!(Component, initialization), 248);
const_assert_eq!(size_of::<ProcPtrComponent>(), 40);
const_assert_eq!(size_of::<Binding>(), 32);
const_assert_eq!(size_of::<SpecialBinding>(), 16);
const_assert_eq!(size_of::<DerivedType>(), 440);
const_assert_eq!(offset_of!(DerivedType, size_in_bytes), 88);
const_assert_eq!(offset_of!(DerivedType, component), 232);
const_assert_eq!(offset_of!(DerivedType, proc_ptr), 296);
const_assert_eq!(offset_of!(DerivedType, special), 360);
const_assert_eq!(offset_of!(DerivedType, special_bitset), 424);
const_assert_eq!(offset_of!(DerivedType, no_defined_assignment), 432);
