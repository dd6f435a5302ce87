//! Reductions over arrays of any rank, with `DIM=` and `MASK=` (flang-rt's
//! `reduction-templates.h`, `sum.cpp`, `product.cpp`, `extrema.cpp`,
//! `findloc.cpp`, `reduction.cpp`, `dot-product.cpp`): `SUM`, `PRODUCT`,
//! `MAXVAL`, `MINVAL`, `IALL`, `IANY`, `IPARITY`, `NORM2`, `COUNT`, `ALL`,
//! `ANY`, `MAXLOC`, `MINLOC`, `FINDLOC`, `DOT_PRODUCT`.
//!
//! A reduction without `DIM=` (or of a rank-1 array) returns its value, or
//! for the location intrinsics fills an allocatable rank-1 result; with
//! `DIM=` it fills an allocatable result of rank one less, which the runtime
//! establishes and allocates in the descriptor flang passes. As in flang-rt:
//! integer sums and products wrap, real sums are Kahan-compensated (complex
//! ones part by part), complex products multiply in order, a
//! location is 1-based from the lower bound and 0 where nothing is
//! selected, NaNs lose to numbers in `MAXVAL`/`MAXLOC`.
//!
//! Its `#[inline(never)]` functions keep the runtime's registers low (see
//! "Registers" in [`super`]).

use super::character::{self, Chars};
use super::descriptor::{Desc, Walk};
use super::float::{self, Float};
pub use super::memory::Complex;
use super::memory::{Addr, Plain};
use super::terminator::{self, Site};
use omprt_abi::fortran::{MAX_RANK, TypeCategory, attribute, category_and_kind, type_code, type_code_of};

/// A numeric type of the reductions' arrays and results.
pub trait Typed: Plain {
    const CATEGORY: TypeCategory;
    const KIND: i32;
    fn code() -> i8 {
        type_code_of(Self::CATEGORY, Self::KIND).unwrap_or(type_code::OTHER)
    }
}

/// An ordered numeric element type: integers and reals.
pub trait Element: Typed + PartialOrd {
    /// `MAXVAL`'s value for no element (`-HUGE`), `MINVAL`'s the other.
    const LOWEST: Self;
    const HIGHEST: Self;
    fn is_nan(self) -> bool;
}

/// An integer element: arithmetic through `i64`, truncated back (which
/// wraps as flang-rt's arithmetic in the kind, or in `int`, does).
pub trait Integer: Element {
    fn to_i64(self) -> i64;
    fn from_i64(v: i64) -> Self;
}

macro_rules! integer_element {
    ($($t:ty = $kind:expr),*) => {$(
        impl Typed for $t {
            const CATEGORY: TypeCategory = TypeCategory::Integer;
            const KIND: i32 = $kind;
        }
        impl Element for $t {
            const LOWEST: $t = <$t>::MIN;
            const HIGHEST: $t = <$t>::MAX;
            fn is_nan(self) -> bool { false }
        }
        impl Integer for $t {
            fn to_i64(self) -> i64 { self as i64 }
            fn from_i64(v: i64) -> $t { v as $t }
        }
    )*};
}
integer_element!(i8 = 1, i16 = 2, i32 = 4, i64 = 8);

macro_rules! real_element {
    ($($t:ty = $kind:expr),*) => {$(
        impl Typed for $t {
            const CATEGORY: TypeCategory = TypeCategory::Real;
            const KIND: i32 = $kind;
        }
        impl Element for $t {
            const LOWEST: $t = <$t>::MIN;
            const HIGHEST: $t = <$t>::MAX;
            fn is_nan(self) -> bool { <$t>::is_nan(self) }
        }
    )*};
}
real_element!(f32 = 4, f64 = 8);

impl Typed for Complex<f32> {
    const CATEGORY: TypeCategory = TypeCategory::Complex;
    const KIND: i32 = 4;
}
impl Typed for Complex<f64> {
    const CATEGORY: TypeCategory = TypeCategory::Complex;
    const KIND: i32 = 8;
}

/// A complex number in double precision: the accumulator of `DOT_PRODUCT`
/// and of `MATMUL`'s double-precision sums, and an operand of `FINDLOC`'s
/// comparison.
pub type Wide = Complex<f64>;

impl Wide {
    pub const ZERO: Wide = Complex { re: 0.0, im: 0.0 };
    pub fn conjg(self) -> Wide {
        Complex { re: self.re, im: -self.im }
    }
}

impl core::ops::Mul for Wide {
    type Output = Wide;
    fn mul(self, o: Wide) -> Wide {
        Complex { re: self.re * o.re - self.im * o.im, im: self.re * o.im + self.im * o.re }
    }
}

impl core::ops::Add for Wide {
    type Output = Wide;
    fn add(self, o: Wide) -> Wide {
        Complex { re: self.re + o.re, im: self.im + o.im }
    }
}

/// Loads a numeric element as a double-precision complex number: an
/// integer or real `v` is `(v, 0)`.
pub fn load_complex(at: Addr, code: i8) -> Option<Wide> {
    Some(match category_and_kind(code)? {
        (TypeCategory::Complex, 4) => {
            let z = at.load::<Complex<f32>>();
            Complex { re: f64::from(z.re), im: f64::from(z.im) }
        }
        (TypeCategory::Complex, 8) => at.load::<Wide>(),
        (TypeCategory::Integer | TypeCategory::Real, _) => Complex { re: load_real(at, code)?, im: 0.0 },
        _ => return None,
    })
}

/// Whether the LOGICAL element at `at` of `bytes` bytes is true.
pub fn logical_true(at: Addr, bytes: usize) -> bool {
    match bytes {
        2 => at.load::<u16>() != 0,
        4 => at.load::<u32>() != 0,
        8 => at.load::<u64>() != 0,
        _ => at.load::<u8>() != 0,
    }
}

/// Stores a LOGICAL of `bytes` bytes.
pub fn store_logical(at: Addr, bytes: usize, v: bool) {
    match bytes {
        2 => at.store(u16::from(v)),
        4 => at.store(u32::from(v)),
        8 => at.store(u64::from(v)),
        _ => at.store(u8::from(v)),
    }
}

/// Stores an integer of `kind` bytes.
pub fn store_integer(at: Addr, kind: usize, v: i64) {
    match kind {
        1 => at.store(v as i8),
        2 => at.store(v as i16),
        4 => at.store(v as i32),
        _ => at.store(v),
    }
}

/// Loads an integer of `kind` bytes.
pub fn load_integer(at: Addr, kind: usize) -> i64 {
    match kind {
        1 => at.load::<i8>().into(),
        2 => at.load::<i16>().into(),
        4 => at.load::<i32>().into(),
        _ => at.load(),
    }
}

/// The integer kinds a result may have.
fn check_integer_kind(kind: i32, name: &[u8], site: Site) -> usize {
    match kind {
        1 | 2 | 4 | 8 => kind as usize,
        _ => terminator::crash(site, |m| {
            m.text(name).text(b": bad KIND=").int(kind.into());
        }),
    }
}

#[cold]
#[inline(never)]
fn bad_type(name: &[u8], code: i8, site: Site) -> ! {
    terminator::crash(site, |m| {
        m.text(name).text(b": bad type code ").int(code.into()).text(b" (not supported on the device)");
    })
}

/// `CheckConformability`: an array mask has the array's shape.
fn check_mask(x: Desc, mask: Desc, name: &[u8], site: Site) {
    if mask.rank() == 0 {
        return;
    }
    if mask.rank() != x.rank() || (0..x.rank()).any(|j| mask.extent(j) != x.extent(j)) {
        terminator::crash(site, |m| {
            m.text(name).text(b": ARRAY= and MASK= arguments are not conformable");
        });
    }
}

/// Calls `visit` with each element of `x` that `mask` selects (every one
/// without a mask, none with a false scalar mask), in array element order,
/// and the walk (its zero-based subscripts), until `visit` returns false.
fn visit(x: Desc, mask: Option<Desc>, name: &[u8], site: Site, mut visit: impl FnMut(Addr, &Walk) -> bool) {
    let elements = x.elements();
    let mut xw = Walk::new(x);
    match mask {
        Some(m) if m.rank() > 0 => {
            check_mask(x, m, name, site);
            let bytes = m.elem_len();
            let mut mw = Walk::new(m);
            for _ in 0..elements {
                if logical_true(m.base().offset(mw.offset()), bytes) && !visit(x.base().offset(xw.offset()), &xw) {
                    return;
                }
                xw.advance();
                mw.advance();
            }
        }
        Some(m) if !logical_true(m.base(), m.elem_len()) => {}
        _ => {
            for _ in 0..elements {
                if !visit(x.base().offset(xw.offset()), &xw) {
                    return;
                }
                xw.advance();
            }
        }
    }
}

/// The zero-based dimension of `DIM=` for an array of `rank`, or a crash.
fn zero_based_dim(dim: i32, rank: usize, name: &[u8], site: Site) -> usize {
    if dim < 1 || dim as usize > rank {
        terminator::crash(site, |m| {
            m.text(name).text(b": bad DIM=").int(dim.into()).text(b" for ARRAY argument with rank ").int(rank as i64);
        });
    }
    dim as usize - 1
}

/// `CreatePartialReductionResult`: establishes and allocates `result` as an
/// allocatable array of `x`'s shape without dimension `dim0`, of `code`
/// elements of `bytes` bytes, lower bounds 1.
#[inline(never)]
fn partial_result(result: Desc, x: Desc, dim0: usize, code: i8, bytes: usize, name: &[u8], site: Site) {
    let rank = x.rank();
    let mut extents = [0i64; MAX_RANK];
    let mut k = 0;
    for j in 0..rank {
        if j != dim0 {
            extents[k] = x.extent(j).max(0);
            k += 1;
        }
    }
    allocated_result(result, code, bytes, &extents[..rank - 1], name, site);
}

/// Establishes `result` as an allocatable array of `code` elements of
/// `bytes` bytes with `extents` (none: a scalar), lower bounds 1, and
/// allocates it.
pub fn allocated_result(result: Desc, code: i8, bytes: usize, extents: &[i64], name: &[u8], site: Site) {
    result.establish(code, bytes, Addr::NULL, extents.len(), Some(extents), attribute::ALLOCATABLE, false);
    allocate_result(result, name, site);
}

/// Allocates an established result descriptor, or crashes.
pub fn allocate_result(result: Desc, name: &[u8], site: Site) {
    if let Err(s) = result.allocate() {
        terminator::crash(site, |m| {
            m.text(name).text(b": could not allocate memory for result; STAT=").int(s.into());
        });
    }
}

/// The byte offset in `d` of the first element of lane `r` along `dim0`:
/// the element whose other subscripts are those of result element `r`.
#[inline(never)]
fn lane_offset(d: Desc, dim0: usize, r: usize) -> i64 {
    let mut rest = r as i64;
    let mut offset = 0;
    for j in 0..d.rank() {
        if j == dim0 {
            continue;
        }
        let dj = d.dim(j);
        if dj.extent > 0 {
            offset += (rest % dj.extent) * dj.byte_stride;
            rest /= dj.extent;
        }
    }
    offset
}

/// For each element `r` of a partial result, `f(r, lane)` with the lane's
/// selected elements: `lane(k)` is element `k` along `dim0` if the mask
/// selects it.
fn for_each_lane(
    x: Desc,
    dim0: usize,
    mask: Option<Desc>,
    results: usize,
    name: &[u8],
    site: Site,
    mut f: impl FnMut(usize, &dyn Fn(i64) -> Option<Addr>),
) {
    let extent = x.extent(dim0).max(0);
    let stride = x.byte_stride(dim0);
    let mask = match mask {
        Some(m) if m.rank() > 0 => {
            check_mask(x, m, name, site);
            Some(m)
        }
        Some(m) if !logical_true(m.base(), m.elem_len()) => {
            for r in 0..results {
                f(r, &|_| None);
            }
            return;
        }
        _ => None,
    };
    for r in 0..results {
        let base = x.base().offset(lane_offset(x, dim0, r));
        match mask {
            Some(m) => {
                let mbase = m.base().offset(lane_offset(m, dim0, r));
                let (mstride, mbytes) = (m.byte_stride(dim0), m.elem_len());
                f(r, &|k| if k < extent && logical_true(mbase.offset(k * mstride), mbytes) { Some(base.offset(k * stride)) } else { None });
            }
            None => f(r, &|k| if k < extent { Some(base.offset(k * stride)) } else { None }),
        }
    }
}

// ---------------------------------------------------------------------------
// Value reductions: an accumulator per element type.

/// An accumulator of a value reduction.
pub trait Fold {
    type T: Typed;
    fn new() -> Self;
    /// Takes one more element; false when the result is known.
    fn take(&mut self, x: Self::T) -> bool;
    fn get(&self) -> Self::T;
}

/// `SUM` of integers: wrapping.
pub struct IntSum<T>(i64, core::marker::PhantomData<T>);
impl<T: Integer> Fold for IntSum<T> {
    type T = T;
    fn new() -> Self {
        IntSum(0, core::marker::PhantomData)
    }
    fn take(&mut self, x: T) -> bool {
        self.0 = self.0.wrapping_add(x.to_i64());
        true
    }
    fn get(&self) -> T {
        T::from_i64(self.0)
    }
}

/// `SUM` of reals: Kahan summation in the kind.
pub struct RealSum<T> {
    sum: T,
    correction: T,
}
impl<T: Element + Float> Fold for RealSum<T> {
    type T = T;
    fn new() -> Self {
        RealSum { sum: T::ZERO, correction: T::ZERO }
    }
    fn take(&mut self, x: T) -> bool {
        let next = x - self.correction;
        let old = self.sum;
        self.sum = add(self.sum, next);
        self.correction = (self.sum - old) - next;
        true
    }
    fn get(&self) -> T {
        self.sum
    }
}

/// `a + b` through the trait's operations.
fn add<T: Float>(a: T, b: T) -> T {
    a - (-b)
}

/// `SUM` of complex numbers: each part Kahan-summed in the kind.
pub struct ComplexSum<T> {
    re: RealSum<T>,
    im: RealSum<T>,
}
impl<T: Element + Float> Fold for ComplexSum<T>
where
    Complex<T>: Typed,
{
    type T = Complex<T>;
    fn new() -> Self {
        ComplexSum { re: RealSum::new(), im: RealSum::new() }
    }
    fn take(&mut self, z: Complex<T>) -> bool {
        self.re.take(z.re);
        self.im.take(z.im)
    }
    fn get(&self) -> Complex<T> {
        Complex { re: self.re.get(), im: self.im.get() }
    }
}

/// `PRODUCT` of integers: wrapping.
pub struct IntProduct<T>(i64, core::marker::PhantomData<T>);
impl<T: Integer> Fold for IntProduct<T> {
    type T = T;
    fn new() -> Self {
        IntProduct(1, core::marker::PhantomData)
    }
    fn take(&mut self, x: T) -> bool {
        self.0 = self.0.wrapping_mul(x.to_i64());
        true
    }
    fn get(&self) -> T {
        T::from_i64(self.0)
    }
}

/// `PRODUCT` of reals.
pub struct RealProduct<T>(T);
impl<T: Element + Float> Fold for RealProduct<T> {
    type T = T;
    fn new() -> Self {
        RealProduct(T::ONE)
    }
    fn take(&mut self, x: T) -> bool {
        self.0 = self.0 * x;
        true
    }
    fn get(&self) -> T {
        self.0
    }
}

/// `PRODUCT` of complex numbers: complex multiplications in the kind, in
/// array element order.
pub struct ComplexProduct<T>(Complex<T>);
impl<T: Element + Float> Fold for ComplexProduct<T>
where
    Complex<T>: Typed,
{
    type T = Complex<T>;
    fn new() -> Self {
        ComplexProduct(Complex { re: T::ONE, im: T::ZERO })
    }
    fn take(&mut self, z: Complex<T>) -> bool {
        let p = self.0;
        self.0 = Complex { re: p.re * z.re - p.im * z.im, im: add(p.re * z.im, p.im * z.re) };
        true
    }
    fn get(&self) -> Complex<T> {
        self.0
    }
}

/// `MAXVAL` (`MAX` true) and `MINVAL`: the first element, then any larger
/// (smaller); a NaN is replaced by the next element.
pub struct Extremum<T, const MAX: bool> {
    value: T,
    any: bool,
}
impl<T: Element, const MAX: bool> Fold for Extremum<T, MAX> {
    type T = T;
    fn new() -> Self {
        Extremum { value: if MAX { T::LOWEST } else { T::HIGHEST }, any: false }
    }
    fn take(&mut self, x: T) -> bool {
        if !self.any || self.value.is_nan() || (MAX && x > self.value) || (!MAX && x < self.value) {
            self.value = x;
            self.any = true;
        }
        true
    }
    fn get(&self) -> T {
        self.value
    }
}

/// `IALL` (`OP` 0), `IANY` (1), `IPARITY` (2).
pub struct Bitwise<T, const OP: u8>(i64, core::marker::PhantomData<T>);
impl<T: Integer, const OP: u8> Fold for Bitwise<T, OP> {
    type T = T;
    fn new() -> Self {
        Bitwise(if OP == 0 { -1 } else { 0 }, core::marker::PhantomData)
    }
    fn take(&mut self, x: T) -> bool {
        let v = x.to_i64();
        self.0 = match OP {
            0 => self.0 & v,
            1 => self.0 | v,
            _ => self.0 ^ v,
        };
        true
    }
    fn get(&self) -> T {
        T::from_i64(self.0)
    }
}

/// `NORM2`: `m * sqrt(1 + sum((x / m)**2))`, `m` the largest magnitude so
/// far, in double precision.
pub struct Norm2<T> {
    max: f64,
    sum: f64,
    _t: core::marker::PhantomData<T>,
}
impl<T: Element + Float> Fold for Norm2<T> {
    type T = T;
    fn new() -> Self {
        Norm2 { max: 0.0, sum: 0.0, _t: core::marker::PhantomData }
    }
    fn take(&mut self, x: T) -> bool {
        let a = to_f64(Float::abs(x));
        if self.max == 0.0 {
            self.max = a;
        } else if a > self.max {
            let t = self.max / a;
            let tsq = t * t;
            self.sum *= tsq;
            self.sum += tsq;
            self.max = a;
        } else {
            let t = a / self.max;
            self.sum += t * t;
        }
        true
    }
    fn get(&self) -> T {
        from_f64(self.max * float::sqrt(1.0 + self.sum))
    }
}

fn to_f64<T: Float>(x: T) -> f64 {
    if T::BITS == 32 { f64::from(f32::from_bits(x.to_bits64() as u32)) } else { f64::from_bits(x.to_bits64()) }
}
fn from_f64<T: Float>(x: f64) -> T {
    if T::BITS == 32 { T::from_bits64(u64::from((x as f32).to_bits())) } else { T::from_bits64(x.to_bits()) }
}

/// A value reduction without `DIM=` (flang-rt's `GetTotalReduction`): `x`
/// of `F::T` elements, `dim` 0 or 1.
#[inline(never)]
pub fn total<F: Fold>(x: Desc, dim: i32, mask: Option<Desc>, name: &[u8], site: Site) -> F::T {
    if x.type_code() != F::T::code() {
        bad_type(name, x.type_code(), site);
    }
    if !(0..=1).contains(&dim) {
        terminator::crash(site, |m| {
            m.text(name).text(b": bad DIM=").int(dim.into()).text(b" for ARRAY argument with rank ").int(x.rank() as i64);
        });
    }
    let mut f = F::new();
    visit(x, mask, name, site, |at, _| f.take(at.load()));
    f.get()
}

/// A value reduction with `DIM=` into `result` (flang-rt's
/// `PartialReduction`); for `MAXVAL`, `MINVAL` and `NORM2` a rank-1 array
/// gives an allocated scalar.
#[inline(never)]
pub fn partial<F: Fold>(result: Desc, x: Desc, dim: i32, mask: Option<Desc>, name: &[u8], site: Site) {
    let dim0 = zero_based_dim(dim, x.rank(), name, site);
    let bytes = x.elem_len();
    partial_result(result, x, dim0, x.type_code(), bytes, name, site);
    let results = result.elements();
    let out = result.base();
    let extent = x.extent(dim0).max(0);
    for_each_lane(x, dim0, mask, results, name, site, |r, lane| out.plus(r * bytes).store(fold_lane::<F>(lane, extent)));
}

/// The reduction of one lane's selected elements. A function of its own,
/// so that the lane's calls keep few values live (see "Registers" in
/// [`super`]).
#[inline(never)]
fn fold_lane<F: Fold>(lane: &dyn Fn(i64) -> Option<Addr>, extent: i64) -> F::T {
    let mut f = F::new();
    for k in 0..extent {
        if let Some(at) = lane(k)
            && !f.take(at.load())
        {
            break;
        }
    }
    f.get()
}

/// Dispatches `$body` with `$T` the element type of the numeric type code
/// `$code` (integer kinds 1-8, real kinds 4 and 8), `$else` otherwise.
macro_rules! numeric_type {
    ($code:expr, $T:ident => $int:expr, $real:expr, $else:expr) => {
        match $code {
            type_code::INT8 => {
                type $T = i8;
                $int
            }
            type_code::INT16 => {
                type $T = i16;
                $int
            }
            type_code::INT32 => {
                type $T = i32;
                $int
            }
            type_code::INT64 => {
                type $T = i64;
                $int
            }
            type_code::FLOAT => {
                type $T = f32;
                $real
            }
            type_code::DOUBLE => {
                type $T = f64;
                $real
            }
            _ => $else,
        }
    };
}

/// `SumDim`: integer, real and complex arrays.
pub fn sum_dim(result: Desc, x: Desc, dim: i32, mask: Option<Desc>, site: Site) {
    match x.type_code() {
        type_code::FLOAT_COMPLEX => return partial::<ComplexSum<f32>>(result, x, dim, mask, b"SUM", site),
        type_code::DOUBLE_COMPLEX => return partial::<ComplexSum<f64>>(result, x, dim, mask, b"SUM", site),
        _ => {}
    }
    numeric_type!(x.type_code(), T => partial::<IntSum<T>>(result, x, dim, mask, b"SUM", site),
        partial::<RealSum<T>>(result, x, dim, mask, b"SUM", site), bad_type(b"SUM", x.type_code(), site))
}

/// `ProductDim`: integer, real and complex arrays.
pub fn product_dim(result: Desc, x: Desc, dim: i32, mask: Option<Desc>, site: Site) {
    match x.type_code() {
        type_code::FLOAT_COMPLEX => return partial::<ComplexProduct<f32>>(result, x, dim, mask, b"PRODUCT", site),
        type_code::DOUBLE_COMPLEX => return partial::<ComplexProduct<f64>>(result, x, dim, mask, b"PRODUCT", site),
        _ => {}
    }
    numeric_type!(x.type_code(), T => partial::<IntProduct<T>>(result, x, dim, mask, b"PRODUCT", site),
        partial::<RealProduct<T>>(result, x, dim, mask, b"PRODUCT", site), bad_type(b"PRODUCT", x.type_code(), site))
}

/// `MaxvalDim` / `MinvalDim` (`max` false): numeric or character.
pub fn extremum_dim(result: Desc, x: Desc, dim: i32, mask: Option<Desc>, max: bool, site: Site) {
    let name: &[u8] = if max { b"MAXVAL" } else { b"MINVAL" };
    if x.is_character() {
        return character_extremum(result, x, dim, mask, max, site);
    }
    if dim == 0 || x.rank() == 1 {
        let out = scalar_result(result, x, name, site);
        numeric_type!(x.type_code(), T => if max {
            out.store(total::<Extremum<T, true>>(x, 0, mask, name, site))
        } else {
            out.store(total::<Extremum<T, false>>(x, 0, mask, name, site))
        }, if max {
            out.store(total::<Extremum<T, true>>(x, 0, mask, name, site))
        } else {
            out.store(total::<Extremum<T, false>>(x, 0, mask, name, site))
        }, bad_type(name, x.type_code(), site));
        return;
    }
    numeric_type!(x.type_code(), T => if max {
        partial::<Extremum<T, true>>(result, x, dim, mask, name, site)
    } else {
        partial::<Extremum<T, false>>(result, x, dim, mask, name, site)
    }, if max {
        partial::<Extremum<T, true>>(result, x, dim, mask, name, site)
    } else {
        partial::<Extremum<T, false>>(result, x, dim, mask, name, site)
    }, bad_type(name, x.type_code(), site))
}

/// `MAXVAL`/`MINVAL` of characters (`MaxvalCharacter`, and with `DIM=`):
/// the greatest (least) element; with none selected, all bytes 0 (255).
pub fn character_extremum(result: Desc, x: Desc, dim: i32, mask: Option<Desc>, max: bool, site: Site) {
    let name: &[u8] = if max { b"MAXVAL" } else { b"MINVAL" };
    let bytes = character::kind_of(x, name, site);
    let len = x.elem_len();
    // Whether the element at `at` replaces `best`: only a greater (lesser) one.
    let better = |at: Addr, best: Addr| replaces_chars(Chars { at, len: len / bytes, bytes }, Chars { at: best, len: len / bytes, bytes }, max, false);
    let write = |out: Addr, best: Option<Addr>| match best {
        Some(b) => out.copy_from(b, len),
        None => out.fill(if max { 0 } else { 255 }, len),
    };
    if dim == 0 || x.rank() == 1 {
        let out = scalar_result(result, x, name, site);
        let mut best = None;
        visit(x, mask, name, site, |at, _| {
            if best.is_none_or(|b| better(at, b)) {
                best = Some(at);
            }
            true
        });
        write(out, best);
        return;
    }
    let dim0 = zero_based_dim(dim, x.rank(), name, site);
    partial_result(result, x, dim0, x.type_code(), len, name, site);
    let out = result.base();
    let extent = x.extent(dim0).max(0);
    for_each_lane(x, dim0, mask, result.elements(), name, site, |r, lane| {
        let k = best_in_lane(lane, extent, better);
        write(out.plus(r * len), if k == 0 { None } else { lane(k - 1) })
    });
}

/// `IAllDim`, `IAnyDim`, `IParityDim` (`op` 0, 1, 2).
pub fn bitwise_dim<const OP: u8>(result: Desc, x: Desc, dim: i32, mask: Option<Desc>, name: &[u8], site: Site) {
    match x.type_code() {
        type_code::INT8 => partial::<Bitwise<i8, OP>>(result, x, dim, mask, name, site),
        type_code::INT16 => partial::<Bitwise<i16, OP>>(result, x, dim, mask, name, site),
        type_code::INT32 => partial::<Bitwise<i32, OP>>(result, x, dim, mask, name, site),
        type_code::INT64 => partial::<Bitwise<i64, OP>>(result, x, dim, mask, name, site),
        c => bad_type(name, c, site),
    }
}

/// `Norm2Dim`.
pub fn norm2_dim(result: Desc, x: Desc, dim: i32, site: Site) {
    match x.type_code() {
        type_code::FLOAT if x.rank() == 1 => {
            scalar_result(result, x, b"NORM2", site).store(total::<Norm2<f32>>(x, 0, None, b"NORM2", site));
        }
        type_code::DOUBLE if x.rank() == 1 => {
            scalar_result(result, x, b"NORM2", site).store(total::<Norm2<f64>>(x, 0, None, b"NORM2", site));
        }
        type_code::FLOAT => partial::<Norm2<f32>>(result, x, dim, None, b"NORM2", site),
        type_code::DOUBLE => partial::<Norm2<f64>>(result, x, dim, None, b"NORM2", site),
        c => bad_type(b"NORM2", c, site),
    }
}

/// An allocated scalar result of `x`'s type.
fn scalar_result(result: Desc, x: Desc, name: &[u8], site: Site) -> Addr {
    allocated_result(result, x.type_code(), x.elem_len(), &[], name, site);
    result.base()
}

// ---------------------------------------------------------------------------
// COUNT, ALL, ANY

/// Whether `x` is a LOGICAL array (any kind).
fn check_logical(x: Desc, name: &[u8], site: Site) {
    if !matches!(category_and_kind(x.type_code()), Some((TypeCategory::Logical, _))) {
        terminator::crash(site, |m| {
            m.text(name).text(b": MASK argument is not LOGICAL (type code ").int(x.type_code().into()).text(b")");
        });
    }
}

/// `_FortranACount`: true elements of `mask`.
pub fn count(mask: Desc, dim: i32, site: Site) -> i64 {
    check_logical(mask, b"COUNT", site);
    let _ = dim;
    let bytes = mask.elem_len();
    let mut n = 0i64;
    visit(mask, None, b"COUNT", site, |at, _| {
        n += i64::from(logical_true(at, bytes));
        true
    });
    n
}

/// `_FortranAAll` (`all` true) and `_FortranAAny`: short-circuiting.
pub fn all_any(mask: Desc, all: bool, site: Site) -> bool {
    let name: &[u8] = if all { b"ALL" } else { b"ANY" };
    check_logical(mask, name, site);
    let bytes = mask.elem_len();
    let mut result = all;
    visit(mask, None, name, site, |at, _| {
        if logical_true(at, bytes) != all {
            result = !all;
            return false;
        }
        true
    });
    result
}

/// `CountDim`: an integer array of `kind`.
pub fn count_dim(result: Desc, mask: Desc, dim: i32, kind: i32, site: Site) {
    check_logical(mask, b"COUNT", site);
    let kind = check_integer_kind(kind, b"COUNT", site);
    let code = type_code_of(TypeCategory::Integer, kind as i32).unwrap_or(type_code::INT64);
    let dim0 = zero_based_dim(dim, mask.rank(), b"COUNT", site);
    partial_result(result, mask, dim0, code, kind, b"COUNT", site);
    let (bytes, extent, out) = (mask.elem_len(), mask.extent(dim0).max(0), result.base());
    for_each_lane(mask, dim0, None, result.elements(), b"COUNT", site, |r, lane| {
        let n = (0..extent).filter(|&k| lane(k).is_some_and(|at| logical_true(at, bytes))).count();
        store_integer(out.plus(r * kind), kind, n as i64);
    });
}

/// `AllDim` (`all` true) and `AnyDim`: a LOGICAL array of `mask`'s kind.
pub fn all_any_dim(result: Desc, mask: Desc, dim: i32, all: bool, site: Site) {
    let name: &[u8] = if all { b"ALL" } else { b"ANY" };
    check_logical(mask, name, site);
    let dim0 = zero_based_dim(dim, mask.rank(), name, site);
    let bytes = mask.elem_len();
    partial_result(result, mask, dim0, mask.type_code(), bytes, name, site);
    let (extent, out) = (mask.extent(dim0).max(0), result.base());
    for_each_lane(mask, dim0, None, result.elements(), name, site, |r, lane| {
        let v = if all {
            (0..extent).all(|k| lane(k).is_none_or(|at| logical_true(at, bytes)))
        } else {
            (0..extent).any(|k| lane(k).is_some_and(|at| logical_true(at, bytes)))
        };
        store_logical(out.plus(r * bytes), bytes, v);
    });
}

// ---------------------------------------------------------------------------
// MAXLOC, MINLOC, FINDLOC

/// flang-rt's `NumericCompare`: whether `value` replaces `previous` as the
/// extremum (a NaN `previous` is replaced by a number, or by anything when
/// `back`; equal values only when `back`).
fn replaces<T: Element>(value: T, previous: T, max: bool, back: bool) -> bool {
    if previous.is_nan() {
        return back || !value.is_nan();
    }
    if value == previous {
        return back;
    }
    if max { value > previous } else { value < previous }
}

/// The character elements' comparison of `replaces`.
fn replaces_chars(value: Chars, previous: Chars, max: bool, back: bool) -> bool {
    match character::compare(value, previous) {
        0 => back,
        c => (c > 0) == max,
    }
}

/// An allocatable rank-1 integer result of `kind` with `n` elements.
fn location_result(result: Desc, kind: usize, n: usize, name: &[u8], site: Site) {
    let code = type_code_of(TypeCategory::Integer, kind as i32).unwrap_or(type_code::INT64);
    allocated_result(result, code, kind, &[n as i64], name, site);
}

/// A location search over the selected elements: `better(at, best)` says
/// whether the element at `at` replaces the best so far. A function of its
/// own, so that the search's calls keep few values live (see "Registers"
/// in [`super`]).
#[inline(never)]
fn locate(x: Desc, mask: Option<Desc>, name: &[u8], site: Site, mut better: impl FnMut(Addr, Option<Addr>) -> bool) -> [i64; MAX_RANK] {
    let mut position = [0i64; MAX_RANK];
    let mut best: Option<Addr> = None;
    let rank = x.rank();
    visit(x, mask, name, site, |at, walk| {
        if better(at, best) {
            best = Some(at);
            for (j, p) in position.iter_mut().enumerate().take(rank) {
                *p = walk.index(j) + 1;
            }
        }
        true
    });
    position
}

/// Writes a location vector into an allocated rank-1 result.
fn write_location(result: Desc, kind: usize, position: &[i64]) {
    for (j, &p) in position.iter().enumerate() {
        store_integer(result.base().plus(j * kind), kind, p);
    }
}

/// `Maxloc<type>` / `Minloc<type>` (`max` false) of numeric `T`.
pub fn extremum_location<T: Element>(result: Desc, x: Desc, kind: i32, mask: Option<Desc>, back: bool, max: bool, site: Site) {
    let name: &[u8] = if max { b"MAXLOC" } else { b"MINLOC" };
    let kind = check_integer_kind(kind, name, site);
    location_result(result, kind, x.rank(), name, site);
    if x.type_code() != T::code() {
        bad_type(name, x.type_code(), site);
    }
    let position = locate(x, mask, name, site, |at, best| best.is_none_or(|b| replaces(at.load::<T>(), b.load::<T>(), max, back)));
    write_location(result, kind, &position[..x.rank()]);
}

/// `MaxlocCharacter` / `MinlocCharacter`.
pub fn character_location(result: Desc, x: Desc, kind: i32, mask: Option<Desc>, back: bool, max: bool, site: Site) {
    let name: &[u8] = if max { b"MAXLOC" } else { b"MINLOC" };
    let kind = check_integer_kind(kind, name, site);
    location_result(result, kind, x.rank(), name, site);
    let bytes = character::kind_of(x, name, site);
    let len = x.elem_len() / bytes;
    let chars = |at| Chars { at, len, bytes };
    let position = locate(x, mask, name, site, |at, best| best.is_none_or(|b| replaces_chars(chars(at), chars(b), max, back)));
    write_location(result, kind, &position[..x.rank()]);
}

/// `MaxlocDim` / `MinlocDim`: numeric or character arrays.
#[allow(clippy::too_many_arguments, reason = "the entry point's arguments, and which extremum")]
pub fn extremum_location_dim(result: Desc, x: Desc, kind: i32, dim: i32, mask: Option<Desc>, back: bool, max: bool, site: Site) {
    let name: &[u8] = if max { b"MAXLOC" } else { b"MINLOC" };
    let kind = check_integer_kind(kind, name, site);
    let dim0 = zero_based_dim(dim, x.rank(), name, site);
    let code = type_code_of(TypeCategory::Integer, kind as i32).unwrap_or(type_code::INT64);
    partial_result(result, x, dim0, code, kind, name, site);
    let out = result.base();
    let extent = x.extent(dim0).max(0);
    macro_rules! lanes {
        ($better:expr) => {
            for_each_lane(x, dim0, mask, result.elements(), name, site, |r, lane| {
                store_integer(out.plus(r * kind), kind, best_in_lane(lane, extent, $better));
            })
        };
    }
    if x.is_character() {
        let bytes = character::kind_of(x, name, site);
        let len = x.elem_len() / bytes;
        lanes!(|a: Addr, b: Addr| replaces_chars(Chars { at: a, len, bytes }, Chars { at: b, len, bytes }, max, back));
        return;
    }
    numeric_type!(x.type_code(), T => lanes!(|a: Addr, b: Addr| replaces(a.load::<T>(), b.load::<T>(), max, back)),
        lanes!(|a: Addr, b: Addr| replaces(a.load::<T>(), b.load::<T>(), max, back)), bad_type(name, x.type_code(), site))
}

/// The 1-based position along a lane of the element no later one
/// replaces (`better(later, best)`), 0 where the lane selects none (the
/// extremum intrinsics with `DIM=`). A function of its own per element
/// type, so that the lane's calls keep few values live (see "Registers"
/// in [`super`]).
#[inline(never)]
fn best_in_lane(lane: &dyn Fn(i64) -> Option<Addr>, extent: i64, better: impl Fn(Addr, Addr) -> bool) -> i64 {
    let mut best: Option<(Addr, i64)> = None;
    for k in 0..extent {
        if let Some(at) = lane(k)
            && best.is_none_or(|(b, _)| better(at, b))
        {
            best = Some((at, k + 1));
        }
    }
    best.map_or(0, |(_, k)| k)
}

/// A value of `FINDLOC`'s comparison: numbers compare as `f64`, `i64` or
/// a pair of `f64` (a complex number equals a real one with the same real
/// part and a zero imaginary part), characters blank-padded, logicals by
/// truth.
#[derive(Clone, Copy)]
enum Key {
    Int(i64),
    Real(f64),
    Complex(Wide),
    Chars(Chars),
    Logical(bool),
}

fn key(at: Addr, d: Desc, site: Site) -> Key {
    match category_and_kind(d.type_code()) {
        Some((TypeCategory::Integer, k)) => Key::Int(load_integer(at, k as usize)),
        Some((TypeCategory::Real, 4)) => Key::Real(f64::from(at.load::<f32>())),
        Some((TypeCategory::Real, 8)) => Key::Real(at.load::<f64>()),
        Some((TypeCategory::Complex, 4 | 8)) => Key::Complex(load_complex(at, d.type_code()).unwrap_or(Wide::ZERO)),
        Some((TypeCategory::Character, k)) => Key::Chars(Chars { at, len: d.elem_len() / k as usize, bytes: k as usize }),
        Some((TypeCategory::Logical, _)) => Key::Logical(logical_true(at, d.elem_len())),
        _ => bad_type(b"FINDLOC", d.type_code(), site),
    }
}

fn equal(a: Key, b: Key, site: Site) -> bool {
    match (a, b) {
        (Key::Int(x), Key::Int(y)) => x == y,
        (Key::Int(x), Key::Real(y)) | (Key::Real(y), Key::Int(x)) => x as f64 == y,
        (Key::Real(x), Key::Real(y)) => x == y,
        (Key::Complex(z), Key::Complex(w)) => z == w,
        (Key::Complex(z), Key::Int(x)) | (Key::Int(x), Key::Complex(z)) => z.re == x as f64 && z.im == 0.0,
        (Key::Complex(z), Key::Real(x)) | (Key::Real(x), Key::Complex(z)) => z.re == x && z.im == 0.0,
        (Key::Chars(x), Key::Chars(y)) => character::compare(x, y) == 0,
        (Key::Logical(x), Key::Logical(y)) => x == y,
        _ => terminator::crash_with(site, b"FINDLOC: VALUE= is of a type the array cannot be compared with"),
    }
}

/// `_FortranAFindloc`: the first (last, `back`) element equal to `target`.
pub fn findloc(result: Desc, x: Desc, target: Desc, kind: i32, mask: Option<Desc>, back: bool, site: Site) {
    let kind = check_integer_kind(kind, b"FINDLOC", site);
    location_result(result, kind, x.rank(), b"FINDLOC", site);
    let want = key(target.base(), target, site);
    let position = locate(x, mask, b"FINDLOC", site, |at, best| (back || best.is_none()) && equal(key(at, x, site), want, site));
    write_location(result, kind, &position[..x.rank()]);
}

/// `_FortranAFindlocDim`.
#[allow(clippy::too_many_arguments, reason = "the entry point's arguments")]
pub fn findloc_dim(result: Desc, x: Desc, target: Desc, kind: i32, dim: i32, mask: Option<Desc>, back: bool, site: Site) {
    let kind = check_integer_kind(kind, b"FINDLOC", site);
    let dim0 = zero_based_dim(dim, x.rank(), b"FINDLOC", site);
    let code = type_code_of(TypeCategory::Integer, kind as i32).unwrap_or(type_code::INT64);
    partial_result(result, x, dim0, code, kind, b"FINDLOC", site);
    let want = key(target.base(), target, site);
    let (out, extent) = (result.base(), x.extent(dim0).max(0));
    for_each_lane(x, dim0, mask, result.elements(), b"FINDLOC", site, |r, lane| {
        store_integer(out.plus(r * kind), kind, find_in_lane(lane, extent, x, want, back, site));
    });
}

/// The 1-based position along a lane of the first (last, `back`) element
/// equal to `want`, 0 for none. A function of its own, so that its
/// comparisons' calls keep few values live (see "Registers" in [`super`]).
#[inline(never)]
fn find_in_lane(lane: &dyn Fn(i64) -> Option<Addr>, extent: i64, x: Desc, want: Key, back: bool, site: Site) -> i64 {
    let mut found = 0;
    for k in 0..extent {
        if let Some(at) = lane(k)
            && equal(key(at, x, site), want, site)
        {
            found = k + 1;
            if !back {
                break;
            }
        }
    }
    found
}

// ---------------------------------------------------------------------------
// DOT_PRODUCT

/// Loads a numeric element as `f64` (integers converted).
pub fn load_real(at: Addr, code: i8) -> Option<f64> {
    Some(match category_and_kind(code)? {
        (TypeCategory::Integer, k) => load_integer(at, k as usize) as f64,
        (TypeCategory::Real, 4) => f64::from(at.load::<f32>()),
        (TypeCategory::Real, 8) => at.load::<f64>(),
        _ => return None,
    })
}

/// Loads an integer element.
pub fn load_int(at: Addr, code: i8) -> Option<i64> {
    match category_and_kind(code)? {
        (TypeCategory::Integer, k) => Some(load_integer(at, k as usize)),
        _ => None,
    }
}

/// Loads a LOGICAL element: `None` for another category.
pub fn load_logical(at: Addr, code: i8) -> Option<bool> {
    match category_and_kind(code)? {
        (TypeCategory::Logical, k) => Some(logical_true(at, k as usize)),
        _ => None,
    }
}

/// The two vectors of `DOT_PRODUCT`, checked: rank 1, one size.
fn dot_vectors(x: Desc, y: Desc, site: Site) -> usize {
    if x.rank() != 1 || y.rank() != 1 {
        terminator::crash_with(site, b"DOT_PRODUCT: arguments are not vectors");
    }
    let (n, m) = (x.extent(0).max(0), y.extent(0).max(0));
    if n != m {
        terminator::crash(site, |msg| {
            msg.text(b"DOT_PRODUCT: SIZE(VECTOR_A) is ").int(n).text(b" but SIZE(VECTOR_B) is ").int(m);
        });
    }
    n as usize
}

/// The element `i` of a vector.
fn vector_element(v: Desc, i: usize) -> Addr {
    v.base().offset(i as i64 * v.byte_stride(0))
}

/// `DotProductInteger<k>`: wrapping in the result kind.
pub fn dot_product_int<T: Integer>(x: Desc, y: Desc, site: Site) -> T {
    let n = dot_vectors(x, y, site);
    let (xc, yc) = (x.type_code(), y.type_code());
    let mut sum = 0i64;
    for i in 0..n {
        let a = load_int(vector_element(x, i), xc).unwrap_or_else(|| bad_type(b"DOT_PRODUCT", xc, site));
        let b = load_int(vector_element(y, i), yc).unwrap_or_else(|| bad_type(b"DOT_PRODUCT", yc, site));
        sum = sum.wrapping_add(a.wrapping_mul(b));
    }
    T::from_i64(sum)
}

/// `DotProductReal<k>`: accumulated in double precision.
pub fn dot_product_real(x: Desc, y: Desc, site: Site) -> f64 {
    let n = dot_vectors(x, y, site);
    let (xc, yc) = (x.type_code(), y.type_code());
    let mut sum = 0.0f64;
    for i in 0..n {
        let a = load_real(vector_element(x, i), xc).unwrap_or_else(|| bad_type(b"DOT_PRODUCT", xc, site));
        let b = load_real(vector_element(y, i), yc).unwrap_or_else(|| bad_type(b"DOT_PRODUCT", yc, site));
        sum += a * b;
    }
    sum
}

/// `CppDotProductComplex<k>`: `SUM(CONJG(x) * y)`, a complex `x`
/// conjugated (an integer or real operand converted), accumulated in
/// double precision.
pub fn dot_product_complex(x: Desc, y: Desc, site: Site) -> Wide {
    let n = dot_vectors(x, y, site);
    let (xc, yc) = (x.type_code(), y.type_code());
    let conjugate = matches!(category_and_kind(xc), Some((TypeCategory::Complex, _)));
    let mut sum = Wide::ZERO;
    for i in 0..n {
        let a = load_complex(vector_element(x, i), xc).unwrap_or_else(|| bad_type(b"DOT_PRODUCT", xc, site));
        let b = load_complex(vector_element(y, i), yc).unwrap_or_else(|| bad_type(b"DOT_PRODUCT", yc, site));
        let a = if conjugate { a.conjg() } else { a };
        sum = sum + a * b;
    }
    sum
}

/// `DotProductLogical`: `ANY(x .AND. y)`.
pub fn dot_product_logical(x: Desc, y: Desc, site: Site) -> bool {
    let n = dot_vectors(x, y, site);
    (0..n).any(|i| logical_true(vector_element(x, i), x.elem_len()) && logical_true(vector_element(y, i), y.elem_len()))
}
