//! flang's derived type descriptions (`omprt_abi::fortran::DerivedType` and
//! the tables it points to), read in place.
//!
//! Its `#[inline(never)]` functions keep the runtime's registers low (see
//! "Registers" in [`super`]).

use super::descriptor::Desc;
use super::memory::Addr;
use core::mem::{offset_of, size_of};
use omprt_abi::fortran::{
    self as abi, Component, DerivedType, ProcPtrComponent, SpecialBinding, TypeCategory, Value, component_genre, special_binding, type_code,
    value_genre,
};

/// A derived type's description.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypeInfo(Addr);

impl TypeInfo {
    /// The description at `addr`, `None` for null.
    pub fn at(addr: Addr) -> Option<TypeInfo> {
        if addr.is_null() { None } else { Some(TypeInfo(addr)) }
    }
    pub fn addr(self) -> Addr {
        self.0
    }
    fn flag(self, offset: usize) -> bool {
        self.0.plus(offset).load::<u8>() != 0
    }
    pub fn size_in_bytes(self) -> usize {
        self.0.plus(offset_of!(DerivedType, size_in_bytes)).load::<u64>() as usize
    }
    pub fn has_parent(self) -> bool {
        self.flag(offset_of!(DerivedType, has_parent))
    }
    pub fn no_initialization_needed(self) -> bool {
        self.flag(offset_of!(DerivedType, no_initialization_needed))
    }
    pub fn no_destruction_needed(self) -> bool {
        self.flag(offset_of!(DerivedType, no_destruction_needed))
    }
    pub fn no_finalization_needed(self) -> bool {
        self.flag(offset_of!(DerivedType, no_finalization_needed))
    }
    pub fn no_defined_assignment(self) -> bool {
        self.flag(offset_of!(DerivedType, no_defined_assignment))
    }
    /// The type with its KIND parameters not applied, for a type that has
    /// some.
    pub fn uninstantiated(self) -> Option<TypeInfo> {
        TypeInfo::at(Desc(self.0.plus(offset_of!(DerivedType, uninstantiated))).base())
    }
    /// Whether the type is `ancestor` or an extension of it.
    pub fn extends(self, ancestor: TypeInfo) -> bool {
        let mut t = Some(self);
        while let Some(u) = t {
            if u == ancestor {
                return true;
            }
            t = u.parent();
        }
        false
    }
    /// The LEN type parameters an instance's addendum holds.
    pub fn len_parameters(self) -> usize {
        Desc(self.0.plus(offset_of!(DerivedType, len_parameter_kind))).elements()
    }

    /// The `n`-th element of one of the description's rank-1 tables.
    fn table(self, offset: usize) -> (Addr, usize, i64) {
        let d = Desc(self.0.plus(offset));
        if d.base().is_null() {
            return (Addr::NULL, 0, 0);
        }
        (d.base(), d.extent(0).max(0) as usize, d.byte_stride(0))
    }

    /// The data components, the parent component first.
    pub fn components(self) -> Components {
        let (base, count, stride) = self.table(offset_of!(DerivedType, component));
        Components { base, count, stride: if stride == 0 { size_of::<Component>() as i64 } else { stride }, next: 0 }
    }

    /// The procedure pointer components: `(offset, initial value)`.
    pub fn procedure_pointers(self) -> impl Iterator<Item = (usize, Addr)> {
        let (base, count, stride) = self.table(offset_of!(DerivedType, proc_ptr));
        let stride = if stride == 0 { size_of::<ProcPtrComponent>() as i64 } else { stride };
        (0..count).map(move |i| {
            let p = base.offset(i as i64 * stride);
            (p.plus(offset_of!(ProcPtrComponent, offset)).load::<u64>() as usize, p.plus(offset_of!(ProcPtrComponent, initialization)).load_addr())
        })
    }

    /// `DerivedType::FindSpecialBinding`: the binding of kind `which`, if any.
    pub fn special(self, which: u8) -> Option<Special> {
        let bits = self.0.plus(offset_of!(DerivedType, special_bitset)).load::<u32>();
        if which >= 32 || bits & (1 << which) == 0 {
            return None;
        }
        // The table is sorted by `which`: the binding's index counts the ones before it.
        let index = (bits & ((1 << which) - 1)).count_ones() as i64;
        let (base, count, stride) = self.table(offset_of!(DerivedType, special));
        if index as usize >= count {
            return None;
        }
        let stride = if stride == 0 { size_of::<SpecialBinding>() as i64 } else { stride };
        Some(Special(base.offset(index * stride)))
    }

    /// Whether the type has a defined assignment (`ASSIGNMENT(=)`).
    pub fn has_defined_assignment(self) -> bool {
        self.special(special_binding::SCALAR_ASSIGNMENT).is_some() || self.special(special_binding::ELEMENTAL_ASSIGNMENT).is_some()
    }

    /// `DerivedType::GetParentType`: the type of the first component when
    /// the type extends another.
    pub fn parent(self) -> Option<TypeInfo> {
        if !self.has_parent() {
            return None;
        }
        self.components().next().and_then(Comp::derived_type)
    }
}

/// The components of a derived type, in order.
pub struct Components {
    base: Addr,
    count: usize,
    stride: i64,
    next: usize,
}

impl Iterator for Components {
    type Item = Comp;
    fn next(&mut self) -> Option<Comp> {
        if self.next >= self.count {
            return None;
        }
        let c = Comp(self.base.offset(self.next as i64 * self.stride));
        self.next += 1;
        Some(c)
    }
}

/// A special binding: a final procedure or a defined assignment.
#[derive(Clone, Copy, Debug)]
pub struct Special(Addr);

impl Special {
    pub fn which(self) -> u8 {
        self.0.plus(offset_of!(SpecialBinding, which)).load()
    }
    /// Whether dummy argument `n` (zero-based) takes a descriptor.
    pub fn takes_descriptor(self, n: u32) -> bool {
        self.0.plus(offset_of!(SpecialBinding, is_arg_descriptor_set)).load::<u8>() >> n & 1 != 0
    }
    /// For a final subroutine: it needs a contiguous array.
    pub fn special_case(self) -> bool {
        self.0.plus(offset_of!(SpecialBinding, special_case_flag)).load::<u8>() != 0
    }
    pub fn procedure(self) -> Addr {
        self.0.plus(offset_of!(SpecialBinding, proc_)).load_addr()
    }
}

/// One data component of a derived type.
#[derive(Clone, Copy, Debug)]
pub struct Comp(Addr);

impl Comp {
    /// A [`component_genre`].
    pub fn genre(self) -> u8 {
        self.0.plus(offset_of!(Component, genre)).load()
    }
    pub fn category(self) -> Option<TypeCategory> {
        TypeCategory::from_raw(self.0.plus(offset_of!(Component, category)).load::<u8>().into())
    }
    pub fn kind(self) -> usize {
        usize::from(self.0.plus(offset_of!(Component, kind)).load::<u8>())
    }
    pub fn rank(self) -> usize {
        usize::from(self.0.plus(offset_of!(Component, rank)).load::<u8>())
    }
    /// Bytes from the start of the instance.
    pub fn offset(self) -> usize {
        self.0.plus(offset_of!(Component, offset)).load::<u64>() as usize
    }
    pub fn derived_type(self) -> Option<TypeInfo> {
        if self.category() != Some(TypeCategory::Derived) {
            return None;
        }
        TypeInfo::at(Desc(self.0.plus(offset_of!(Component, derived_type))).base())
    }
    /// The component's initial value (data and pointer components), or null.
    pub fn initialization(self) -> Addr {
        self.0.plus(offset_of!(Component, initialization)).load_addr()
    }
    /// Whether the component is a descriptor in the instance.
    pub fn is_descriptor(self) -> bool {
        matches!(self.genre(), component_genre::POINTER | component_genre::ALLOCATABLE | component_genre::AUTOMATIC)
    }

    /// A bound or length of the component: explicit, or a LEN parameter of
    /// the instance's descriptor (`instance`); `None` when deferred. The
    /// runtime walks nested instances without descriptors, so a LEN
    /// parameter there traps rather than be taken for 0.
    fn value(v: Addr, instance: Option<Desc>) -> Option<i64> {
        let value = v.plus(offset_of!(Value, value)).load::<i64>();
        match v.plus(offset_of!(Value, genre)).load::<u8>() {
            value_genre::EXPLICIT => Some(value),
            value_genre::LEN_PARAMETER => match instance {
                Some(d) if d.has_addendum() => Some(d.len_parameter(value as usize)),
                _ => super::terminator::unsupported(b"derived type component", b"a bound or length given by a LEN type parameter"),
            },
            _ => None,
        }
    }

    /// `Component::GetElementByteSize`.
    pub fn element_bytes(self, instance: Option<Desc>) -> usize {
        let kind = self.kind();
        match self.category() {
            Some(TypeCategory::Complex) => 2 * kind,
            Some(TypeCategory::Character) => {
                Comp::value(self.0.plus(offset_of!(Component, character_len)), instance).map_or(0, |n| kind * n.max(0) as usize)
            }
            Some(TypeCategory::Derived) => self.derived_type().map_or(0, TypeInfo::size_in_bytes),
            Some(_) => kind,
            None => 0,
        }
    }

    /// The bounds of dimension `j` of an explicit-shape component.
    pub fn bounds(self, j: usize, instance: Option<Desc>) -> (i64, i64) {
        let table = Desc(self.0.plus(offset_of!(Component, bounds))).base();
        let v = |k: usize| Comp::value(table.plus(k * size_of::<Value>()), instance).unwrap_or(0);
        (v(2 * j), v(2 * j + 1))
    }

    /// `Component::GetElements`: elements of an explicit-shape component.
    #[inline(never)]
    pub fn elements(self, instance: Option<Desc>) -> usize {
        let mut n = 1usize;
        for j in 0..self.rank() {
            let (lb, ub) = self.bounds(j, instance);
            n = n.saturating_mul(if ub >= lb { (ub - lb + 1) as usize } else { 0 });
        }
        n
    }

    /// `Component::SizeInBytes`: the data of a data component, else the
    /// size of its descriptor.
    #[inline(never)]
    pub fn size_in_bytes(self, instance: Option<Desc>) -> usize {
        if self.genre() == component_genre::DATA {
            self.element_bytes(instance) * self.elements(instance)
        } else if self.category() == Some(TypeCategory::Derived) {
            abi::descriptor_bytes(self.rank(), true, self.derived_type().map_or(0, TypeInfo::len_parameters))
        } else {
            abi::descriptor_bytes(self.rank(), false, 0)
        }
    }

    /// `Component::EstablishDescriptor`: the descriptor of an allocatable or
    /// pointer component, unallocated (disassociated).
    pub fn establish_descriptor(self, d: Desc, instance: Option<Desc>) {
        let attribute = match self.genre() {
            component_genre::ALLOCATABLE => abi::attribute::ALLOCATABLE,
            component_genre::POINTER => abi::attribute::POINTER,
            _ => abi::attribute::OTHER,
        };
        let rank = self.rank();
        match self.category() {
            Some(TypeCategory::Derived) => match self.derived_type() {
                Some(t) => d.establish_derived(t, Addr::NULL, rank, None, attribute),
                // Unlimited polymorphic.
                None => d.establish(type_code::STRUCT, 0, Addr::NULL, rank, None, attribute, true),
            },
            Some(category) => {
                let kind = self.kind() as i32;
                let code = abi::type_code_of(category, kind).unwrap_or(type_code::OTHER);
                d.establish(code, self.element_bytes(instance), Addr::NULL, rank, None, attribute, false);
            }
            None => d.establish(type_code::OTHER, 0, Addr::NULL, rank, None, attribute, false),
        }
    }
}
