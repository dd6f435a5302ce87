//! Helpers of the Fortran runtime's simulation tests: flang's descriptors
//! and derived type descriptions built in host memory, as flang's code lays
//! them out (`omprt_abi::fortran`), and calls on a simulated device.
#![allow(dead_code)]

use omprt_abi::fortran::*;
use omprt_device_rtl::arch::sim;
use std::ffi::c_void;
use std::sync::Mutex;

/// Runs `f` on one simulated GPU thread (the runtime allocates from the
/// simulated device heap, which needs one) and returns its result; a trap
/// panics with its message.
pub fn on_device<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let f = Mutex::new(Some(f));
    let out = Mutex::new(None);
    sim::launch(1, 1, || {
        let f = f.lock().unwrap().take().expect("one thread");
        *out.lock().unwrap() = Some(f());
    });
    out.into_inner().unwrap().expect("the device thread returned")
}

/// Room for any descriptor: rank 15 with an addendum of 3 LEN parameters.
const DESC_WORDS: usize = descriptor_bytes(MAX_RANK, true, 3).div_ceil(8);

/// A descriptor in host memory (boxed, so its address stays).
pub struct Desc {
    words: Box<[u64; DESC_WORDS]>,
}

impl Desc {
    /// Zeroed: unallocated, rank 0, no type.
    pub fn empty() -> Desc {
        Desc { words: Box::new([0; DESC_WORDS]) }
    }
    pub fn ptr(&self) -> *mut c_void {
        self.words.as_ptr() as *mut c_void
    }
    fn header_mut(&mut self) -> &mut Header {
        unsafe { &mut *(self.words.as_mut_ptr() as *mut Header) }
    }
    pub fn header(&self) -> Header {
        unsafe { *(self.words.as_ptr() as *const Header) }
    }
    pub fn dim(&self, j: usize) -> Dim {
        unsafe { *((self.words.as_ptr() as *const u8).add(24 + 24 * j) as *const Dim) }
    }
    pub fn set_dim(&mut self, j: usize, d: Dim) {
        unsafe { *((self.words.as_mut_ptr() as *mut u8).add(24 + 24 * j) as *mut Dim) = d }
    }
    pub fn dims(&self) -> Vec<Dim> {
        (0..self.header().rank as usize).map(|j| self.dim(j)).collect()
    }
    pub fn extents(&self) -> Vec<i64> {
        self.dims().iter().map(|d| d.extent).collect()
    }
    pub fn lower_bounds(&self) -> Vec<i64> {
        self.dims().iter().map(|d| d.lower_bound).collect()
    }
    pub fn base(&self) -> *mut u8 {
        self.header().base_addr as *mut u8
    }
    pub fn set_base(&mut self, p: *mut u8) {
        self.header_mut().base_addr = p.cast();
    }
    fn addendum_ptr(&self) -> *mut Addendum {
        unsafe { (self.words.as_ptr() as *mut u8).add(24 + 24 * self.header().rank as usize) as *mut Addendum }
    }
    pub fn derived_type(&self) -> *const DerivedType {
        unsafe { (*self.addendum_ptr()).derived_type }
    }
    pub fn set_len_parameter(&mut self, which: usize, v: i64) {
        unsafe { *((*self.addendum_ptr()).len.as_mut_ptr().add(which)) = v }
    }

    /// A descriptor of `rank = dims.len()` over `base`.
    pub fn establish(
        &mut self,
        base: *mut u8,
        elem_len: usize,
        code: i8,
        attribute: u8,
        dims: &[Dim],
        derived: Option<*const DerivedType>,
    ) -> &mut Desc {
        *self.header_mut() = Header {
            base_addr: base.cast(),
            elem_len,
            version: CFI_VERSION,
            rank: dims.len() as u8,
            type_code: code,
            attribute,
            extra: if derived.is_some() { ADDENDUM_FLAG } else { 0 },
        };
        for (j, d) in dims.iter().enumerate() {
            self.set_dim(j, *d);
        }
        if let Some(t) = derived {
            unsafe { *self.addendum_ptr() = Addendum { derived_type: t, len: [0] } };
        }
        self
    }

    /// An unallocated allocatable of `rank` (no derived type).
    pub fn allocatable(elem_len: usize, code: i8, rank: usize) -> Desc {
        let mut d = Desc::empty();
        d.establish(
            std::ptr::null_mut(),
            elem_len,
            code,
            attribute::ALLOCATABLE,
            &vec![Dim { lower_bound: 1, extent: 0, byte_stride: elem_len as i64 }; rank],
            None,
        );
        d
    }

    /// An unallocated allocatable of a derived type.
    pub fn allocatable_derived(t: *const DerivedType, rank: usize) -> Desc {
        let size = unsafe { (*t).size_in_bytes as usize };
        let mut d = Desc::empty();
        d.establish(
            std::ptr::null_mut(),
            size,
            type_code::STRUCT,
            attribute::ALLOCATABLE,
            &vec![Dim { lower_bound: 1, extent: 0, byte_stride: size as i64 }; rank],
            Some(t),
        );
        d
    }

    /// Byte offsets of the elements in array element order.
    pub fn offsets(&self) -> Vec<isize> {
        let dims = self.dims();
        let count: i64 = dims.iter().map(|d| d.extent.max(0)).product();
        let mut out = Vec::with_capacity(count as usize);
        for n in 0..count {
            let (mut rest, mut off) = (n, 0i64);
            for d in &dims {
                off += (rest % d.extent) * d.byte_stride;
                rest /= d.extent;
            }
            out.push(off as isize);
        }
        out
    }

    /// The elements as `T`, in array element order.
    pub fn read<T: Copy>(&self) -> Vec<T> {
        self.offsets().into_iter().map(|o| unsafe { *(self.base().offset(o) as *const T) }).collect()
    }

    /// The elements' bytes (each `elem_len`), in array element order.
    pub fn read_bytes(&self) -> Vec<Vec<u8>> {
        let len = self.header().elem_len;
        self.offsets().into_iter().map(|o| unsafe { std::slice::from_raw_parts(self.base().offset(o), len).to_vec() }).collect()
    }
}

/// Storage of `bytes` bytes, 16-aligned, zeroed.
pub struct Buf {
    words: Vec<u128>,
}

impl Buf {
    pub fn new(bytes: usize) -> Buf {
        Buf { words: vec![0; bytes.div_ceil(16).max(1)] }
    }
    pub fn ptr(&self) -> *mut u8 {
        self.words.as_ptr() as *mut u8
    }
    /// A copy of `values`.
    pub fn of<T: Copy>(values: &[T]) -> Buf {
        let b = Buf::new(std::mem::size_of_val(values));
        unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), b.ptr() as *mut T, values.len()) };
        b
    }
}

/// Contiguous dimensions of `extents` for elements of `elem_len` bytes,
/// lower bounds `lower`.
pub fn contiguous(extents: &[i64], lower: &[i64], elem_len: usize) -> Vec<Dim> {
    let mut stride = elem_len as i64;
    extents
        .iter()
        .zip(lower)
        .map(|(&extent, &lower_bound)| {
            let d = Dim { lower_bound, extent, byte_stride: stride };
            stride *= extent;
            d
        })
        .collect()
}

/// The type code of a numeric `T`.
pub trait Code: Copy {
    const CODE: i8;
}
impl Code for i8 {
    const CODE: i8 = type_code::INT8;
}
impl Code for i16 {
    const CODE: i8 = type_code::INT16;
}
impl Code for i32 {
    const CODE: i8 = type_code::INT32;
}
impl Code for i64 {
    const CODE: i8 = type_code::INT64;
}
impl Code for f32 {
    const CODE: i8 = type_code::FLOAT;
}
impl Code for f64 {
    const CODE: i8 = type_code::DOUBLE;
}
/// COMPLEX(4): the real part, then the imaginary part.
impl Code for [f32; 2] {
    const CODE: i8 = type_code::FLOAT_COMPLEX;
}
/// COMPLEX(8).
impl Code for [f64; 2] {
    const CODE: i8 = type_code::DOUBLE_COMPLEX;
}

/// An array of `values` (array element order) of `extents`, lower bounds 1.
pub fn array<T: Code>(values: &[T], extents: &[i64]) -> (Buf, Desc) {
    let buf = Buf::of(values);
    let mut d = Desc::empty();
    let size = std::mem::size_of::<T>();
    d.establish(buf.ptr(), size, T::CODE, attribute::OTHER, &contiguous(extents, &vec![1; extents.len()], size), None);
    (buf, d)
}

/// A scalar descriptor of `value`.
pub fn scalar<T: Code>(value: T) -> (Buf, Desc) {
    array(&[value], &[])
}

/// A LOGICAL(`kind`) array.
pub fn logicals(values: &[bool], extents: &[i64], kind: usize) -> (Buf, Desc) {
    let buf = Buf::new(values.len() * kind);
    for (i, &v) in values.iter().enumerate() {
        unsafe { *buf.ptr().add(i * kind) = u8::from(v) };
    }
    let code = type_code_of(TypeCategory::Logical, kind as i32).unwrap();
    let mut d = Desc::empty();
    d.establish(buf.ptr(), kind, code, attribute::OTHER, &contiguous(extents, &vec![1; extents.len()], kind), None);
    (buf, d)
}

/// A CHARACTER(len) array of `values` (each blank-padded to `len`).
pub fn characters(values: &[&str], len: usize, extents: &[i64]) -> (Buf, Desc) {
    let buf = Buf::new(values.len() * len);
    for (i, v) in values.iter().enumerate() {
        let mut s = v.as_bytes().to_vec();
        s.resize(len, b' ');
        unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), buf.ptr().add(i * len), len) };
    }
    let mut d = Desc::empty();
    d.establish(buf.ptr(), len, type_code::CHAR, attribute::OTHER, &contiguous(extents, &vec![1; extents.len()], len), None);
    (buf, d)
}

/// A derived type description built in host memory: components and
/// special bindings, which the runtime reads through the descriptors
/// inside it.
pub struct TypeDesc {
    pub t: Box<DerivedType>,
    components: Vec<Component>,
    specials: Vec<SpecialBinding>,
}

fn zero_desc<const R: usize>() -> Descriptor<R> {
    unsafe { std::mem::zeroed() }
}
fn zero_desc_addendum<const R: usize>() -> DescriptorWithAddendum<R> {
    unsafe { std::mem::zeroed() }
}

/// A rank-1 descriptor over a table of `n` elements of `T`.
fn table<T>(base: *const T, n: usize) -> DescriptorWithAddendum<1> {
    let mut d = zero_desc_addendum::<1>();
    d.header.base_addr = base as *mut c_void;
    d.header.elem_len = std::mem::size_of::<T>();
    d.header.rank = 1;
    d.header.version = CFI_VERSION;
    d.header.attribute = attribute::POINTER;
    d.header.extra = ADDENDUM_FLAG;
    d.dim[0] = Dim { lower_bound: 1, extent: n as i64, byte_stride: std::mem::size_of::<T>() as i64 };
    d
}

/// One component of a [`TypeDesc`].
pub struct Comp {
    pub genre: u8,
    pub category: TypeCategory,
    pub kind: u8,
    pub rank: u8,
    pub offset: u64,
    /// For CHARACTER: the length.
    pub len: i64,
    pub derived: Option<*const DerivedType>,
    /// For explicit-shape data components: (lower, upper) per dimension.
    pub bounds: Vec<(i64, i64)>,
    pub init: Option<Vec<u8>>,
}

impl Comp {
    pub fn data(category: TypeCategory, kind: u8, offset: u64) -> Comp {
        Comp { genre: component_genre::DATA, category, kind, rank: 0, offset, len: 0, derived: None, bounds: vec![], init: None }
    }
    pub fn allocatable(category: TypeCategory, kind: u8, rank: u8, offset: u64) -> Comp {
        Comp { genre: component_genre::ALLOCATABLE, category, kind, rank, offset, len: 0, derived: None, bounds: vec![], init: None }
    }
}

/// Leaked storage a type description points to (lives for the test).
fn leak<T>(v: Vec<T>) -> *const T {
    Box::leak(v.into_boxed_slice()).as_ptr()
}

impl TypeDesc {
    /// A type of `size` bytes with `components`; `finals` are (which,
    /// procedure, takes a descriptor).
    pub fn new(size: u64, components: Vec<Comp>, finals: Vec<(u8, *const c_void, bool)>) -> TypeDesc {
        let mut built = Vec::new();
        let mut needs_destruction = false;
        let mut needs_init = false;
        let mut needs_final = !finals.is_empty();
        for c in &components {
            let mut comp: Component = unsafe { std::mem::zeroed() };
            comp.genre = c.genre;
            comp.category = c.category as u8;
            comp.kind = c.kind;
            comp.rank = c.rank;
            comp.offset = c.offset;
            comp.character_len = Value { genre: value_genre::EXPLICIT, padding: [0; 7], value: c.len };
            if c.genre == component_genre::ALLOCATABLE && c.len == 0 && c.category == TypeCategory::Character {
                comp.character_len.genre = value_genre::DEFERRED;
            }
            comp.derived_type = zero_desc_addendum::<0>();
            if let Some(t) = c.derived {
                comp.derived_type.header.base_addr = t as *mut c_void;
                let inner = unsafe { &*t };
                needs_destruction |= inner.no_destruction_needed == 0;
                needs_init |= inner.no_initialization_needed == 0;
                needs_final |= inner.no_finalization_needed == 0;
            }
            if !c.bounds.is_empty() {
                let values: Vec<Value> = c
                    .bounds
                    .iter()
                    .flat_map(|&(l, u)| {
                        [
                            Value { genre: value_genre::EXPLICIT, padding: [0; 7], value: l },
                            Value { genre: value_genre::EXPLICIT, padding: [0; 7], value: u },
                        ]
                    })
                    .collect();
                let p = leak(values);
                comp.bounds = zero_desc_addendum::<2>();
                comp.bounds.header.base_addr = p as *mut c_void;
            }
            if let Some(init) = &c.init {
                comp.initialization = leak(init.clone()) as *const c_void;
                needs_init = true;
            }
            if c.genre != component_genre::DATA {
                needs_init = true;
                if c.genre == component_genre::ALLOCATABLE {
                    needs_destruction = true;
                }
            }
            built.push(comp);
        }
        let specials: Vec<SpecialBinding> = finals
            .iter()
            .map(|&(which, proc_, desc)| SpecialBinding {
                which,
                is_arg_descriptor_set: u8::from(desc),
                is_type_bound: 0,
                special_case_flag: 0,
                padding: [0; 4],
                proc_,
            })
            .collect();
        let mut bitset = 0u32;
        for s in &specials {
            bitset |= 1 << s.which;
        }
        let mut t: Box<DerivedType> = Box::new(unsafe { std::mem::zeroed() });
        t.binding = zero_desc_addendum::<1>();
        t.name = zero_desc::<0>();
        t.size_in_bytes = size;
        t.kind_parameter = zero_desc::<1>();
        t.len_parameter_kind = zero_desc::<1>();
        let mut td = TypeDesc { t, components: built, specials };
        td.t.component = table(td.components.as_ptr(), td.components.len());
        td.t.proc_ptr = zero_desc_addendum::<1>();
        td.t.special = table(td.specials.as_ptr(), td.specials.len());
        td.t.special_bitset = bitset;
        td.t.no_initialization_needed = u8::from(!needs_init);
        // flang counts a finalizable type as one that needs destruction.
        td.t.no_destruction_needed = u8::from(!needs_destruction && !needs_final);
        td.t.no_finalization_needed = u8::from(!needs_final);
        td.t.no_defined_assignment = 1;
        td
    }
    pub fn ptr(&self) -> *const DerivedType {
        &*self.t
    }
    pub fn size(&self) -> usize {
        self.t.size_in_bytes as usize
    }
}

/// A section of a column-major parent array: per dimension, the first
/// parent index, the extent, the step (any sign, not 0) and the lower bound.
#[derive(Clone, Debug)]
pub struct Section {
    pub parent: Vec<i64>,
    pub dims: Vec<(i64, i64, i64, i64)>,
}

/// Sections of `rank` with extents in `extents`, steps -3..=3 and lower
/// bounds -3..3.
pub fn section_strategy(rank: usize, extents: std::ops::Range<i64>) -> impl proptest::strategy::Strategy<Value = Section> {
    use proptest::prelude::*;
    proptest::collection::vec((extents, -3i64..=3, -3i64..4), rank).prop_map(|dims| {
        let dims: Vec<(i64, i64, i64, i64)> = dims
            .into_iter()
            .map(|(extent, step, lower)| {
                let step = if step == 0 { 1 } else { step };
                let span = (extent.max(1) - 1) * step.abs() + 1;
                let first = if step > 0 { 0 } else { span - 1 };
                (first, extent, step, lower)
            })
            .collect();
        let parent = dims.iter().map(|&(_, e, s, _)| (e.max(1) - 1) * s.abs() + 1).collect();
        Section { parent, dims }
    })
}

/// Sections of the given `extents`, steps -3..=3 and lower bounds -3..3.
pub fn section_of(extents: Vec<i64>) -> impl proptest::strategy::Strategy<Value = Section> {
    use proptest::prelude::*;
    let rank = extents.len();
    proptest::collection::vec((-3i64..=3, -3i64..4), rank).prop_map(move |steps| {
        let dims: Vec<(i64, i64, i64, i64)> = steps
            .iter()
            .zip(&extents)
            .map(|(&(step, lower), &extent)| {
                let step = if step == 0 { 1 } else { step };
                let span = (extent.max(1) - 1) * step.abs() + 1;
                (if step > 0 { 0 } else { span - 1 }, extent, step, lower)
            })
            .collect();
        let parent = dims.iter().map(|&(_, e, s, _)| (e.max(1) - 1) * s.abs() + 1).collect();
        Section { parent, dims }
    })
}

impl Section {
    pub fn extents(&self) -> Vec<i64> {
        self.dims.iter().map(|d| d.1).collect()
    }
    pub fn parent_len(&self) -> usize {
        self.parent.iter().product::<i64>() as usize
    }
    /// A descriptor of the section over `base`, a parent of `size`-byte elements.
    pub fn describe(&self, base: *mut u8, size: usize, code: i8) -> Desc {
        let mut parent_stride = size as i64;
        let mut offset = 0i64;
        let mut dims = Vec::new();
        for (j, &(first, extent, step, lower)) in self.dims.iter().enumerate() {
            offset += first * parent_stride;
            dims.push(Dim { lower_bound: lower, extent, byte_stride: step * parent_stride });
            parent_stride *= self.parent[j];
        }
        let mut d = Desc::empty();
        d.establish(unsafe { base.offset(offset as isize) }, size, code, attribute::OTHER, &dims, None);
        d
    }
}

/// The live device heap blocks of the calling simulated thread.
pub fn live_blocks() -> i64 {
    sim::live_heap_blocks()
}

/// A source position for the entry points (`file.f90`, line 7).
pub const FILE: &[u8] = b"file.f90\0";
pub fn file() -> *const c_void {
    FILE.as_ptr().cast()
}
