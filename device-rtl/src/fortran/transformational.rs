//! Array transformations (flang-rt's `transformational.cpp`, `matmul.cpp`):
//! `MATMUL`, `TRANSPOSE`, `RESHAPE`, `PACK`, `UNPACK`, `SPREAD`, `CSHIFT`
//! and `EOSHIFT`; `TRANSFER` (`misc-intrinsic.cpp`).
//! Each result is an allocatable array the runtime establishes and
//! allocates, lower bounds 1; elements of a derived type with allocatable
//! components are deep copies.

use super::assign::assign_instance;
use super::derived;
use super::descriptor::Desc;
use super::memory::{Addr, Logical};
use super::reduction::{self, Complex, Wide, load_int, logical_true};
use super::terminator::{self, Site};
use omprt_abi::fortran::{MAX_RANK, TypeCategory, assign_flags, attribute, type_code};

/// Establishes `result` as an allocatable array of `source`'s type (its
/// derived type and LEN parameters too) with `extents`, and allocates it.
fn result_like(result: Desc, source: Desc, extents: &[i64], name: &[u8], site: Site) {
    let addendum = source.has_addendum();
    result.establish(source.type_code(), source.elem_len(), Addr::NULL, extents.len(), Some(extents), attribute::ALLOCATABLE, addendum);
    if addendum {
        let t = source.derived_type();
        result.set_derived_type(t);
        if let Some(t) = t {
            for j in 0..t.len_parameters() {
                result.set_len_parameter(j, source.len_parameter(j));
            }
        }
    }
    reduction::allocate_result(result, name, site);
}

/// Copies one element of `source`'s type: bytes, or for a derived type with
/// allocatable components a default-initialized element and a deep copy.
/// Out of line: the loops that call it keep their values, not its own,
/// across its calls (see "Registers" in [`super`]).
#[inline(never)]
fn copy_element(to: Addr, from: Addr, source: Desc, site: Site) {
    match source.derived_type().filter(|t| !t.no_destruction_needed() || !t.no_initialization_needed()) {
        Some(t) => {
            derived::initialize_instances(to, t, 1, Some(source));
            assign_instance(to, from, t, assign_flags::MAYBE_REALLOCATE, Some(source), site);
        }
        None => to.copy_from(from, source.elem_len()),
    }
}

/// `_FortranATranspose`.
pub fn transpose(result: Desc, matrix: Desc, site: Site) {
    if matrix.rank() != 2 {
        terminator::crash_with(site, b"TRANSPOSE: matrix is not of rank 2");
    }
    let (rows, cols) = (matrix.extent(0).max(0), matrix.extent(1).max(0));
    result_like(result, matrix, &[cols, rows], b"TRANSPOSE", site);
    let bytes = matrix.elem_len() as i64;
    for i in 0..rows {
        for j in 0..cols {
            let from = matrix.base().offset(i * matrix.byte_stride(0) + j * matrix.byte_stride(1));
            copy_element(result.base().offset((j + i * cols) * bytes), from, matrix, site);
        }
    }
}

/// The integer elements of a rank-1 argument (`SHAPE=`, `ORDER=`).
fn vector_value(d: Desc, i: usize, name: &[u8], site: Site) -> i64 {
    load_int(d.base().offset(d.element_offset(i)), d.type_code()).unwrap_or_else(|| {
        terminator::crash(site, |m| {
            m.text(name).text(b": an argument is not INTEGER");
        })
    })
}

/// `_FortranAReshape(result, source, shape, pad, order)`.
pub fn reshape(result: Desc, source: Desc, shape: Desc, pad: Option<Desc>, order: Option<Desc>, site: Site) {
    let name: &[u8] = b"RESHAPE";
    if shape.rank() != 1 {
        terminator::crash_with(site, b"RESHAPE: SHAPE= must be a vector");
    }
    let rank = shape.extent(0).max(0) as usize;
    if rank == 0 || rank > MAX_RANK {
        terminator::crash_with(site, b"RESHAPE: bad number of dimensions in SHAPE=");
    }
    let mut extents = [0i64; MAX_RANK];
    let mut count: usize = 1;
    for (j, e) in extents.iter_mut().enumerate().take(rank) {
        *e = vector_value(shape, j, name, site);
        if *e < 0 {
            terminator::crash_with(site, b"RESHAPE: negative extent in SHAPE=");
        }
        count = count.saturating_mul(*e as usize);
    }
    // ORDER= lists the dimensions fastest first; without it, 1, 2, ...
    let mut dims = [0usize; MAX_RANK];
    for (j, d) in dims.iter_mut().enumerate().take(rank) {
        *d = j;
    }
    if let Some(order) = order {
        let mut seen = 0u32;
        for (j, d) in dims.iter_mut().enumerate().take(rank) {
            let k = vector_value(order, j, name, site);
            if k < 1 || k as usize > rank || seen & (1 << k) != 0 {
                terminator::crash_with(site, b"RESHAPE: bad value in ORDER=");
            }
            seen |= 1 << k;
            *d = k as usize - 1;
        }
    }
    let available = source.elements();
    if count > available && pad.is_none_or(|p| p.elements() == 0) {
        terminator::crash_with(site, b"RESHAPE: not enough elements, no PAD");
    }
    result_like(result, source, &extents[..rank], name, site);
    let bytes = source.elem_len() as i64;
    let mut subscript = [0i64; MAX_RANK];
    for k in 0..count {
        // Result element at `subscript`, column-major offset.
        let mut offset = 0;
        let mut stride = 1;
        for j in 0..rank {
            offset += subscript[j] * stride;
            stride *= extents[j];
        }
        reshape_element(result.base().offset(offset * bytes), source, pad, k, site);
        // Next subscript in ORDER= order.
        for &d in dims.iter().take(rank) {
            subscript[d] += 1;
            if subscript[d] < extents[d] {
                break;
            }
            subscript[d] = 0;
        }
    }
}

/// Element `k` of `source` followed by `pad` repeated, copied to `to`. A
/// function of its own, so that `reshape`'s loop keeps few values across
/// its calls (see "Registers" in [`super`]).
#[inline(never)]
fn reshape_element(to: Addr, source: Desc, pad: Option<Desc>, k: usize, site: Site) {
    let available = source.elements();
    let from = if k < available {
        source.base().offset(source.element_offset(k))
    } else {
        let p = pad.unwrap_or(source);
        p.base().offset(p.element_offset((k - available) % p.elements()))
    };
    copy_element(to, from, source, site);
}

/// `_FortranAPack(result, source, mask, vector)`.
pub fn pack(result: Desc, source: Desc, mask: Desc, vector: Option<Desc>, site: Site) {
    let elements = source.elements();
    let scalar_mask = mask.rank() == 0;
    let selected = |n: usize| {
        let at = if scalar_mask { mask.base() } else { mask.base().offset(mask.element_offset(n)) };
        logical_true(at, mask.elem_len())
    };
    if !scalar_mask && (mask.rank() != source.rank() || (0..source.rank()).any(|j| mask.extent(j) != source.extent(j))) {
        terminator::crash_with(site, b"PACK: ARRAY= and MASK= arguments are not conformable");
    }
    let trues = (0..elements).filter(|&n| selected(n)).count();
    let extent = match vector {
        Some(v) => {
            if v.elements() < trues {
                terminator::crash_with(site, b"PACK: VECTOR= has fewer elements than MASK= has true ones");
            }
            v.elements()
        }
        None => trues,
    };
    result_like(result, source, &[extent as i64], b"PACK", site);
    let bytes = source.elem_len();
    let mut k = 0;
    for n in 0..elements {
        if selected(n) {
            copy_element(result.base().plus(k * bytes), source.base().offset(source.element_offset(n)), source, site);
            k += 1;
        }
    }
    if let Some(v) = vector {
        for i in k..extent {
            copy_element(result.base().plus(i * bytes), v.base().offset(v.element_offset(i)), source, site);
        }
    }
}

/// `_FortranASpread(result, source, dim, ncopies)`.
pub fn spread(result: Desc, source: Desc, dim: i32, ncopies: i64, site: Site) {
    let rank = source.rank() + 1;
    if dim < 1 || dim as usize > rank || rank > MAX_RANK {
        terminator::crash_with(site, b"SPREAD: bad DIM=");
    }
    let dim0 = dim as usize - 1;
    let copies = ncopies.max(0);
    let mut extents = [0i64; MAX_RANK];
    let mut k = 0;
    for (j, e) in extents.iter_mut().enumerate().take(rank) {
        if j == dim0 {
            *e = copies;
        } else {
            *e = source.extent(k).max(0);
            k += 1;
        }
    }
    result_like(result, source, &extents[..rank], b"SPREAD", site);
    let bytes = source.elem_len();
    let total = result.elements();
    let below: usize = extents[..dim0].iter().product::<i64>() as usize;
    for n in 0..total {
        // Result element n: drop the subscript along dim0.
        let low = n % below.max(1);
        let high = n / (below.max(1) * copies.max(1) as usize);
        let from = source.base().offset(source.element_offset(low + high * below));
        copy_element(result.base().plus(n * bytes), from, source, site);
    }
}

/// `_FortranACshiftVector(result, source, shift)`: `result(i) =
/// source(1 + MODULO(i - 1 + shift, n))`.
pub fn cshift_vector(result: Desc, source: Desc, shift: i64, site: Site) {
    if source.rank() != 1 {
        terminator::crash_with(site, b"CSHIFT: source is not a vector");
    }
    let n = source.extent(0).max(0);
    result_like(result, source, &[n], b"CSHIFT", site);
    let bytes = source.elem_len();
    for i in 0..n {
        let from = (i + shift).rem_euclid(n.max(1));
        copy_element(result.base().plus(i as usize * bytes), source.base().offset(from * source.byte_stride(0)), source, site);
    }
}

/// `_FortranAUnpack(result, vector, mask, field)`: an array of `mask`'s
/// shape whose elements are, in array element order, the next element of
/// `vector` where `mask` is true and the element of `field` (or `field`, a
/// scalar) where it is false.
pub fn unpack(result: Desc, vector: Desc, mask: Desc, field: Desc, site: Site) {
    let rank = mask.rank();
    if vector.rank() != 1 || rank == 0 {
        terminator::crash_with(site, b"UNPACK: VECTOR= must be a vector and MASK= an array");
    }
    let mut extents = [0i64; MAX_RANK];
    for (j, e) in extents.iter_mut().enumerate().take(rank) {
        *e = mask.extent(j).max(0);
    }
    let scalar_field = field.rank() == 0;
    if !scalar_field && (field.rank() != rank || (0..rank).any(|j| field.extent(j).max(0) != extents[j])) {
        terminator::crash_with(site, b"UNPACK: MASK= and FIELD= arguments are not conformable");
    }
    if vector.type_code() != field.type_code() || vector.elem_len() != field.elem_len() {
        terminator::crash_with(site, b"UNPACK: VECTOR= and FIELD= differ in type or element length");
    }
    result_like(result, field, &extents[..rank], b"UNPACK", site);
    let bytes = field.elem_len();
    let available = vector.extent(0).max(0) as usize;
    let mut k = 0;
    for n in 0..result.elements() {
        let to = result.base().plus(n * bytes);
        if logical_true(mask.base().offset(mask.element_offset(n)), mask.elem_len()) {
            if k == available {
                terminator::crash(site, |m| {
                    m.text(b"UNPACK: VECTOR= argument has fewer elements (").int(available as i64).text(b") than MASK= has .TRUE. entries");
                });
            }
            copy_element(to, vector.base().offset(k as i64 * vector.byte_stride(0)), field, site);
            k += 1;
        } else {
            let from = if scalar_field { field.base() } else { field.base().offset(field.element_offset(n)) };
            copy_element(to, from, field, site);
        }
    }
}

/// The lines of an array along one dimension: `lines` of them, the other
/// subscripts in array element order; element `i` of line `l` is element
/// number `start(l) + i * below` of the array.
struct Lines {
    extent: i64,
    below: i64,
    lines: usize,
}

impl Lines {
    /// The lines of `source` along `dim` (one-based), checked.
    fn new(source: Desc, dim: i32, name: &[u8], site: Site) -> Lines {
        let rank = source.rank();
        if dim < 1 || dim as usize > rank {
            terminator::crash(site, |m| {
                m.text(name).text(b": DIM=").int(dim.into()).text(b" must be >= 1 and <= ARRAY= rank ").int(rank as i64);
            });
        }
        let dim0 = dim as usize - 1;
        let extent = source.extent(dim0).max(0);
        let below = (0..dim0).map(|j| source.extent(j).max(0)).product::<i64>();
        let lines = if extent == 0 { 0 } else { source.elements() / extent as usize };
        Lines { extent, below, lines }
    }
    /// The element number of the first element of line `l`.
    fn start(&self, l: usize) -> i64 {
        let l = l as i64;
        let (low, high) = if self.below == 0 { (0, 0) } else { (l % self.below, l / self.below) };
        low + high * self.below * self.extent
    }
    /// Checks that `arg` (`SHIFT=`, `BOUNDARY=`) is a scalar or an array of
    /// rank one less than `source`'s, conformable with its other dimensions.
    fn check_conformable(source: Desc, dim: i32, arg: Desc, what: &[u8], name: &[u8], site: Site) {
        if arg.rank() == 0 {
            return;
        }
        let dim0 = dim as usize - 1;
        let rank = source.rank();
        if arg.rank() + 1 != rank {
            terminator::crash(site, |m| {
                m.text(name).text(b": ").text(what).text(b" must be a scalar or of rank ").int(rank as i64 - 1);
            });
        }
        for (k, j) in (0..rank).filter(|&j| j != dim0).enumerate() {
            if arg.extent(k).max(0) != source.extent(j).max(0) {
                terminator::crash(site, |m| {
                    m.text(name).text(b": on dimension ").int(j as i64 + 1).text(b", ").text(what).text(b" has extent ");
                    m.int(arg.extent(k)).text(b" but ARRAY= has extent ").int(source.extent(j));
                });
            }
        }
    }
}

/// The element of `arg` for line `l`: `arg` itself when a scalar.
fn line_element(arg: Desc, l: usize) -> Addr {
    if arg.rank() == 0 { arg.base() } else { arg.base().offset(arg.element_offset(l)) }
}

/// The `SHIFT=` of line `l`, an INTEGER of any kind.
fn line_shift(shift: Desc, l: usize, name: &[u8], site: Site) -> i64 {
    load_int(line_element(shift, l), shift.type_code()).unwrap_or_else(|| {
        terminator::crash(site, |m| {
            m.text(name).text(b": SHIFT= is not INTEGER");
        })
    })
}

/// `_FortranACshift(result, source, shift, dim)`: along `dim`, `result(...,
/// i, ...) = source(..., 1 + MODULO(i - 1 + s, n), ...)`, `s` the element of
/// `shift` (a scalar or of rank one less) for the line.
pub fn cshift(result: Desc, source: Desc, shift: Desc, dim: i32, site: Site) {
    let name: &[u8] = b"CSHIFT";
    let lines = Lines::new(source, dim, name, site);
    Lines::check_conformable(source, dim, shift, b"SHIFT=", name, site);
    let rank = source.rank();
    let mut extents = [0i64; MAX_RANK];
    for (j, e) in extents.iter_mut().enumerate().take(rank) {
        *e = source.extent(j).max(0);
    }
    result_like(result, source, &extents[..rank], name, site);
    for l in 0..lines.lines {
        let s = line_shift(shift, l, name, site);
        shift_line(result, source, &lines, l, |i| Some((i + s).rem_euclid(lines.extent)), None, site);
    }
}

/// Element `i` of line `l` of `result` from element `from(i)` of the same
/// line of `source`, or where that is `None` from `boundary` (if any). A
/// function of its own, so that the per-element calls keep few values
/// live (see "Registers" in [`super`]).
#[inline(never)]
fn shift_line(result: Desc, source: Desc, lines: &Lines, l: usize, from: impl Fn(i64) -> Option<i64>, boundary: Option<Addr>, site: Site) {
    let (bytes, start) = (source.elem_len(), lines.start(l));
    for i in 0..lines.extent {
        let to = result.base().plus((start + i * lines.below) as usize * bytes);
        match from(i) {
            Some(k) => copy_element(to, source.base().offset(source.element_offset((start + k * lines.below) as usize)), source, site),
            None => {
                if let Some(b) = boundary {
                    copy_element(to, b, source, site);
                }
            }
        }
    }
}

/// `EOSHIFT`'s shift of each line.
pub enum Shift {
    /// `_FortranAEoshiftVector`'s scalar.
    Scalar(i64),
    /// `_FortranAEoshift`'s descriptor: a scalar or of rank one less.
    Array(Desc),
}

/// `_FortranAEoshift(result, source, shift, boundary, dim)` and
/// `_FortranAEoshiftVector` (`dim` 1): along `dim`, `result(..., i, ...) =
/// source(..., i + s, ...)` where `i + s` is within the extent, else the
/// element of `boundary` (a scalar or of rank one less) for the line, or
/// without it 0, `.FALSE.` or blanks; an array of a derived type needs
/// `boundary`.
pub fn eoshift(result: Desc, source: Desc, shift: Shift, boundary: Option<Desc>, dim: i32, site: Site) {
    let name: &[u8] = b"EOSHIFT";
    let lines = Lines::new(source, dim, name, site);
    if let Shift::Array(shift) = shift {
        Lines::check_conformable(source, dim, shift, b"SHIFT=", name, site);
    }
    if let Some(b) = boundary {
        Lines::check_conformable(source, dim, b, b"BOUNDARY=", name, site);
        if b.type_code() != source.type_code() || b.elem_len() != source.elem_len() {
            terminator::crash(site, |m| {
                m.text(b"EOSHIFT: BOUNDARY= has element byte length ").int(b.elem_len() as i64);
                m.text(b" and type code ").int(b.type_code().into()).text(b", but ARRAY= has length ").int(source.elem_len() as i64);
                m.text(b" and type code ").int(source.type_code().into());
            });
        }
    }
    let rank = source.rank();
    let mut extents = [0i64; MAX_RANK];
    for (j, e) in extents.iter_mut().enumerate().take(rank) {
        *e = source.extent(j).max(0);
    }
    result_like(result, source, &extents[..rank], name, site);
    if boundary.is_none() {
        default_fill(result, name, site);
    }
    for l in 0..lines.lines {
        let s = match shift {
            Shift::Scalar(s) => s,
            Shift::Array(d) => line_shift(d, l, name, site),
        };
        let within = |i: i64| Some(i.saturating_add(s)).filter(|k| (0..lines.extent).contains(k));
        shift_line(result, source, &lines, l, within, boundary.map(|b| line_element(b, l)), site);
    }
}

/// `EOSHIFT`'s boundary without `BOUNDARY=` in every element of `result`:
/// blanks for a CHARACTER, zero bytes for another intrinsic type.
fn default_fill(result: Desc, name: &[u8], site: Site) {
    let bytes = result.elements() * result.elem_len();
    let width = match result.type_code() {
        type_code::CHAR | type_code::SIGNED_CHAR => 1,
        type_code::CHAR16 => 2,
        type_code::CHAR32 => 4,
        type_code::STRUCT => terminator::crash(site, |m| {
            m.text(name).text(b": BOUNDARY= is required for ARRAY= of a derived type");
        }),
        _ => return result.base().fill(0, bytes),
    };
    for k in 0..bytes / width {
        let at = result.base().plus(k * width);
        match width {
            1 => at.store(b' '),
            2 => at.store(u16::from(b' ')),
            _ => at.store(u32::from(b' ')),
        }
    }
}

/// A `MATMUL` operand's element type, converted as flang-rt's
/// `static_cast` converts it to each accumulator (only the conversions its
/// entry points' result types need are ever taken).
pub trait MatmulOperand: super::memory::Plain {
    fn int(self) -> i64;
    fn real32(self) -> f32;
    fn real(self) -> f64;
    fn complex32(self) -> Complex<f32>;
    fn complex(self) -> Wide;
    fn truth(self) -> bool;
}

macro_rules! matmul_number {
    ($($t:ty),*) => {$(
        impl MatmulOperand for $t {
            fn int(self) -> i64 { self as i64 }
            fn real32(self) -> f32 { self as f32 }
            fn real(self) -> f64 { self as f64 }
            fn complex32(self) -> Complex<f32> { Complex { re: self as f32, im: 0.0 } }
            fn complex(self) -> Wide { Complex { re: self as f64, im: 0.0 } }
            fn truth(self) -> bool { false }
        }
    )*};
}
matmul_number!(i8, i16, i32, i64, f32, f64);

macro_rules! matmul_complex_operand {
    ($($t:ty),*) => {$(
        impl MatmulOperand for Complex<$t> {
            fn int(self) -> i64 { self.re as i64 }
            fn real32(self) -> f32 { self.re as f32 }
            fn real(self) -> f64 { self.re as f64 }
            fn complex32(self) -> Complex<f32> { Complex { re: self.re as f32, im: self.im as f32 } }
            fn complex(self) -> Wide { Complex { re: self.re as f64, im: self.im as f64 } }
            fn truth(self) -> bool { false }
        }
    )*};
}
matmul_complex_operand!(f32, f64);

macro_rules! matmul_logical_operand {
    ($($t:ty),*) => {$(
        impl MatmulOperand for Logical<$t> {
            fn int(self) -> i64 { self.0 as i64 }
            fn real32(self) -> f32 { 0.0 }
            fn real(self) -> f64 { 0.0 }
            fn complex32(self) -> Complex<f32> { Complex { re: 0.0, im: 0.0 } }
            fn complex(self) -> Wide { Wide::ZERO }
            fn truth(self) -> bool { self.0 != 0 }
        }
    )*};
}
matmul_logical_operand!(u8, u16, u32, u64);

/// A sum of products: integers wrap in 64 bits (truncated to the result's
/// kind, as arithmetic in the kind wraps), LOGICAL is `ANY(x .AND. y)`.
pub trait Accumulator: Copy {
    const ZERO: Self;
    fn of<X: MatmulOperand>(x: X) -> Self;
    /// `self + x * y`, rounded as flang-rt's `sum += x * y` rounds.
    fn mul_add(self, x: Self, y: Self) -> Self;
}

impl Accumulator for i64 {
    const ZERO: i64 = 0;
    fn of<X: MatmulOperand>(x: X) -> i64 {
        x.int()
    }
    fn mul_add(self, x: i64, y: i64) -> i64 {
        self.wrapping_add(x.wrapping_mul(y))
    }
}

impl Accumulator for f32 {
    const ZERO: f32 = 0.0;
    fn of<X: MatmulOperand>(x: X) -> f32 {
        x.real32()
    }
    fn mul_add(self, x: f32, y: f32) -> f32 {
        self + x * y
    }
}

impl Accumulator for f64 {
    const ZERO: f64 = 0.0;
    fn of<X: MatmulOperand>(x: X) -> f64 {
        x.real()
    }
    fn mul_add(self, x: f64, y: f64) -> f64 {
        self + x * y
    }
}

impl Accumulator for Complex<f32> {
    const ZERO: Complex<f32> = Complex { re: 0.0, im: 0.0 };
    fn of<X: MatmulOperand>(x: X) -> Complex<f32> {
        x.complex32()
    }
    /// The plain product: no operand is conjugated.
    fn mul_add(self, x: Complex<f32>, y: Complex<f32>) -> Complex<f32> {
        let p = Complex { re: x.re * y.re - x.im * y.im, im: x.re * y.im + x.im * y.re };
        Complex { re: self.re + p.re, im: self.im + p.im }
    }
}

impl Accumulator for Wide {
    const ZERO: Wide = Wide::ZERO;
    fn of<X: MatmulOperand>(x: X) -> Wide {
        x.complex()
    }
    /// The plain product: no operand is conjugated.
    fn mul_add(self, x: Wide, y: Wide) -> Wide {
        self + x * y
    }
}

impl Accumulator for bool {
    const ZERO: bool = false;
    fn of<X: MatmulOperand>(x: X) -> bool {
        x.truth()
    }
    fn mul_add(self, x: bool, y: bool) -> bool {
        self || (x && y)
    }
}

/// A `MATMUL` result type and its two accumulators, as in flang-rt: where
/// both operands' columns are contiguous, the result's own type (a REAL(4)
/// product sums in single precision); elsewhere at least double precision.
pub trait MatmulElement: super::memory::Plain {
    const CATEGORY: TypeCategory;
    const KIND: i32;
    type Contiguous: Accumulator;
    type General: Accumulator;
    fn from_contiguous(a: Self::Contiguous) -> Self;
    fn from_general(a: Self::General) -> Self;
}

macro_rules! matmul_result {
    ($($t:ty = $category:ident $kind:literal, $contiguous:ty, $general:ty, |$a:ident| $from:expr;)*) => {$(
        impl MatmulElement for $t {
            const CATEGORY: TypeCategory = TypeCategory::$category;
            const KIND: i32 = $kind;
            type Contiguous = $contiguous;
            type General = $general;
            fn from_contiguous($a: $contiguous) -> $t { $from }
            fn from_general($a: $general) -> $t { $from }
        }
    )*};
}
matmul_result! {
    i8 = Integer 1, i64, i64, |a| a as i8;
    i16 = Integer 2, i64, i64, |a| a as i16;
    i32 = Integer 4, i64, i64, |a| a as i32;
    i64 = Integer 8, i64, i64, |a| a;
    f64 = Real 8, f64, f64, |a| a;
    Complex<f64> = Complex 8, Wide, Wide, |a| a;
    Logical<u8> = Logical 1, bool, bool, |a| Logical(a.into());
    Logical<u16> = Logical 2, bool, bool, |a| Logical(a.into());
    Logical<u32> = Logical 4, bool, bool, |a| Logical(a.into());
    Logical<u64> = Logical 8, bool, bool, |a| Logical(a.into());
}

impl MatmulElement for f32 {
    const CATEGORY: TypeCategory = TypeCategory::Real;
    const KIND: i32 = 4;
    type Contiguous = f32;
    type General = f64;
    fn from_contiguous(a: f32) -> f32 {
        a
    }
    fn from_general(a: f64) -> f32 {
        a as f32
    }
}

impl MatmulElement for Complex<f32> {
    const CATEGORY: TypeCategory = TypeCategory::Complex;
    const KIND: i32 = 4;
    type Contiguous = Complex<f32>;
    type General = Wide;
    fn from_contiguous(a: Complex<f32>) -> Complex<f32> {
        a
    }
    fn from_general(a: Wide) -> Complex<f32> {
        Complex { re: a.re as f32, im: a.im as f32 }
    }
}

/// Whether flang-rt's `IsContiguous(1)` holds: the first dimension's
/// elements are adjacent (or it has one element, or the array none).
fn columns_contiguous(d: Desc) -> bool {
    d.byte_stride(0) == d.elem_len() as i64 || d.extent(0) == 1 || d.elements() == 0
}

/// Where the operands' elements are: element `(i, l)` of `x` is at
/// `x + i * xi + l * xl`, element `(l, j)` of `y` at `y + l * yl + j * yj`
/// (a vector operand has stride 0 along the dimension it lacks).
#[derive(Clone, Copy)]
struct Operands {
    x: Addr,
    xi: i64,
    xl: i64,
    y: Addr,
    yl: i64,
    yj: i64,
}

/// The `n` x `m` products of `k` terms each, column by column into
/// `result`, summed in `A` from `l` = 0 up as flang-rt sums them. Its
/// loops call nothing (see "Registers" in [`super`]).
#[inline(never)]
fn products<X: MatmulOperand, Y: MatmulOperand, A: Accumulator, R: MatmulElement>(
    result: Addr,
    at: Operands,
    (n, k, m): (i64, i64, i64),
    finish: fn(A) -> R,
) {
    let mut out = result;
    for j in 0..m {
        for i in 0..n {
            let (mut xp, mut yp) = (at.x.offset(i * at.xi), at.y.offset(j * at.yj));
            let mut acc = A::ZERO;
            for _ in 0..k {
                acc = acc.mul_add(A::of(xp.load::<X>()), A::of(yp.load::<Y>()));
                xp = xp.offset(at.xl);
                yp = yp.offset(at.yl);
            }
            out.store(finish(acc));
            out = out.plus(core::mem::size_of::<R>());
        }
    }
}

/// [`reduction::allocated_result`] for `MATMUL`, out of line: inlined, its
/// rank loop and allocation would raise every `matmul`'s registers (`cargo
/// xtask fortran-registers`; see "Registers" in [`super`]).
#[inline(never)]
fn allocate_product(result: Desc, code: i8, bytes: usize, extents: &[i64], site: Site) {
    reduction::allocated_result(result, code, bytes, extents, b"MATMUL", site);
}

/// `_FortranAMatmul<X><Y>`: (n,k)x(k,m), (k)x(k,m) or (n,k)x(k), with a
/// result of `R` (the type of `X * Y`: complex when either operand is).
pub fn matmul<X: MatmulOperand, Y: MatmulOperand, R: MatmulElement>(result: Desc, x: Desc, y: Desc, site: Site) {
    let (xr, yr) = (x.rank(), y.rank());
    let (n, k) = match xr {
        2 => (x.extent(0).max(0), x.extent(1).max(0)),
        1 => (1, x.extent(0).max(0)),
        _ => terminator::crash_with(site, b"MATMUL: bad rank of MATRIX_A"),
    };
    let (k2, m) = match yr {
        2 => (y.extent(0).max(0), y.extent(1).max(0)),
        1 if xr == 2 => (y.extent(0).max(0), 1),
        _ => terminator::crash_with(site, b"MATMUL: bad rank of MATRIX_B"),
    };
    if k != k2 {
        terminator::crash(site, |msg| {
            msg.text(b"MATMUL: unacceptable operand shapes (").int(k).text(b" columns, ").int(k2).text(b" rows)");
        });
    }
    let code = omprt_abi::fortran::type_code_of(R::CATEGORY, R::KIND).unwrap_or(omprt_abi::fortran::type_code::OTHER);
    let extents: &[i64] = match (xr, yr) {
        (2, 2) => &[n, m],
        (1, _) => &[m],
        _ => &[n],
    };
    allocate_product(result, code, core::mem::size_of::<R>(), extents, site);
    let (xi, xl) = if xr == 2 { (x.byte_stride(0), x.byte_stride(1)) } else { (0, x.byte_stride(0)) };
    let (yl, yj) = if yr == 2 { (y.byte_stride(0), y.byte_stride(1)) } else { (y.byte_stride(0), 0) };
    let at = Operands { x: x.base(), xi, xl, y: y.base(), yl, yj };
    if R::CATEGORY != TypeCategory::Logical && columns_contiguous(x) && columns_contiguous(y) {
        products::<X, Y, R::Contiguous, R>(result.base(), at, (n, k, m), R::from_contiguous);
    } else {
        products::<X, Y, R::General, R>(result.base(), at, (n, k, m), R::from_general);
    }
}

/// `_FortranATransfer(result, source, mold)`: `TRANSFER(SOURCE, MOLD)`
/// (F'2023 16.9.200): the bytes of `source` as a scalar of `mold`'s type,
/// or for an array `mold` as a vector of as many elements as it takes to
/// hold them all.
pub fn transfer(result: Desc, source: Desc, mold: Desc, site: Site) {
    let extent = if mold.rank() == 0 {
        None
    } else {
        let bytes = source.elements().saturating_mul(source.elem_len());
        match mold.elem_len() {
            _ if bytes == 0 => Some(0),
            0 => terminator::crash_with(site, b"TRANSFER: zero-sized type of MOLD when SOURCE is not zero-sized"),
            n => Some(bytes.div_ceil(n) as i64),
        }
    };
    transfer_into(result, source, mold, extent, site);
}

/// `_FortranATransferSize(result, source, mold, ..., size)`:
/// `TRANSFER(SOURCE, MOLD, SIZE)`: a vector of `size` elements of `mold`'s
/// type.
pub fn transfer_size(result: Desc, source: Desc, mold: Desc, size: i64, site: Site) {
    transfer_into(result, source, mold, Some(size.max(0)), site);
}

/// The result of `TRANSFER`: a scalar (no `extent`) or vector of `mold`'s
/// type, filled with the bytes of `source`'s elements in array element
/// order; bytes past the end of `source` are zero.
fn transfer_into(result: Desc, source: Desc, mold: Desc, extent: Option<i64>, site: Site) {
    let extents = [extent.unwrap_or(0)];
    result_like(result, mold, if extent.is_some() { &extents } else { &[] }, b"TRANSFER", site);
    let mut left = result.elements().saturating_mul(result.elem_len());
    let mut to = result.base();
    let element = source.elem_len();
    let mut at = super::descriptor::Walk::new(source);
    for _ in 0..source.elements() {
        if left == 0 {
            break;
        }
        let n = left.min(element);
        to.copy_from(source.base().offset(at.offset()), n);
        to = to.plus(n);
        left -= n;
        at.advance();
    }
    to.fill(0, left);
}
