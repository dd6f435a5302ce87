//! Binary to decimal for list-directed output: the decimal digits flang-rt
//! prints for a `REAL(4)` or `REAL(8)` value, computed exactly with big
//! integers.
//!
//! flang-rt prints the fewest digits that read back as the same value, and
//! where several such strings exist it picks its own, not always the one
//! nearest the value (`3.4028234E+38` for `HUGE(1.0)`, where the nearest
//! eight digits are `3.4028235`). Its rule, which [`shortest`] follows:
//! take `hi`, just below the midpoint between the value and the next
//! larger magnitude, and `lo`, the midpoint with the next smaller
//! magnitude; at the first decimal
//! digit where `hi` and `lo` differ, keep `hi`'s digits before it and end
//! with `hi`'s digit less half the difference of the two digits (rounded
//! down). flang-rt takes the largest finite value itself for its `hi`;
//! the midpoint with the power of two above gives the same digits for
//! `HUGE` of both kinds, which the sim tests check. They compare thousands
//! of values with flang's host output.
//!
//! The numbers live in a [`Scratch`] the caller provides (the I/O
//! statement's heap block), so the conversion keeps a small stack frame.
//!
//! Its `#[inline(never)]` functions keep the output code's registers low
//! (see "Registers" in [`super`]).

/// 32-bit limbs of the largest number the conversion forms: a `REAL(8)`
/// denormal's 55-bit significand times 10^324, times 10 (1136 bits).
const LIMBS: usize = 37;

/// An unsigned integer of up to `LIMBS` limbs, least significant first.
#[derive(Clone, Copy)]
pub struct Big {
    limb: [u32; LIMBS],
    len: usize,
}

impl Big {
    const ZERO: Big = Big { limb: [0; LIMBS], len: 0 };

    fn set(&mut self, mut v: u64) {
        self.len = 0;
        while v != 0 {
            self.limb[self.len] = v as u32;
            self.len += 1;
            v >>= 32;
        }
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.limb[..self.len] {
            let v = *limb as u64 * m as u64 + carry;
            *limb = v as u32;
            carry = v >> 32;
        }
        if carry != 0 {
            self.limb[self.len] = carry as u32;
            self.len += 1;
        }
    }

    fn mul_pow10(&mut self, mut n: u32) {
        while n >= 9 {
            self.mul_small(1_000_000_000);
            n -= 9;
        }
        if n > 0 {
            self.mul_small(10u32.pow(n));
        }
    }

    fn shl(&mut self, bits: u32) {
        let (words, bits) = ((bits / 32) as usize, bits % 32);
        if self.len == 0 {
            return;
        }
        let mut j = self.len + words + 1;
        self.limb[self.len] = 0;
        while j > words {
            j -= 1;
            let from = j - words;
            let high = (self.limb[from] as u64) << bits;
            let low = if bits != 0 && from > 0 { self.limb[from - 1] >> (32 - bits) } else { 0 };
            self.limb[j] = high as u32 | low;
        }
        self.limb[..words].fill(0);
        self.len += words + 1;
        self.trim();
    }

    fn trim(&mut self) {
        while self.len > 0 && self.limb[self.len - 1] == 0 {
            self.len -= 1;
        }
    }

    fn cmp(&self, other: &Big) -> core::cmp::Ordering {
        if self.len != other.len {
            return self.len.cmp(&other.len);
        }
        for j in (0..self.len).rev() {
            if self.limb[j] != other.limb[j] {
                return self.limb[j].cmp(&other.limb[j]);
            }
        }
        core::cmp::Ordering::Equal
    }

    /// `self -= other`; `other <= self`.
    fn sub(&mut self, other: &Big) {
        let mut borrow = 0i64;
        for j in 0..self.len {
            let v = self.limb[j] as i64 - if j < other.len { other.limb[j] as i64 } else { 0 } - borrow;
            borrow = (v < 0) as i64;
            self.limb[j] = v as u32;
        }
        self.trim();
    }
}

/// The most significant digits [`rounded`] gives.
pub const MAX_DIGITS: usize = 128;

/// The next decimal digit of the fraction `r / d` (below 1): `r` becomes
/// the rest, `10 r - digit * d`. `below` takes the digits of the value
/// just below the fraction: the rest stays in (0, d], so a fraction whose
/// digits end continues with nines.
#[inline(never)]
fn next_digit(r: &mut Big, d: &Big, below: bool) -> u8 {
    r.mul_small(10);
    let mut digit = 0;
    while if below { r.cmp(d).is_gt() } else { !r.cmp(d).is_lt() } {
        r.sub(d);
        digit += 1;
    }
    digit
}

/// Room for the conversion's three numbers, and the digits of [`rounded`].
#[derive(Clone, Copy)]
pub struct Scratch {
    denominator: Big,
    high: Big,
    low: Big,
    pub digits: [u8; MAX_DIGITS + 1],
}

impl Scratch {
    pub const fn new() -> Scratch {
        Scratch { denominator: Big::ZERO, high: Big::ZERO, low: Big::ZERO, digits: [b'0'; MAX_DIGITS + 1] }
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch::new()
    }
}

/// A binary floating-point format of the device.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// `REAL(4)`.
    Single,
    /// `REAL(8)`.
    Double,
}

impl Format {
    /// Significand bits, the implicit one included.
    const fn precision(self) -> u32 {
        match self {
            Format::Single => 24,
            Format::Double => 53,
        }
    }

    const fn exponent_bits(self) -> u32 {
        match self {
            Format::Single => 8,
            Format::Double => 11,
        }
    }

    /// The largest decimal exponent list-directed output prints without an
    /// exponent field (flang-rt: the larger of 6 and the decimal precision).
    pub const fn list_f_limit(self) -> i32 {
        match self {
            Format::Single => 6,
            Format::Double => 15,
        }
    }
}

/// A REAL(4) or REAL(8) value taken apart for printing.
#[derive(Clone, Copy)]
pub struct Real {
    /// The bits, sign included.
    pub bits: u64,
    pub format: Format,
    pub negative: bool,
    /// The bits of the magnitude.
    pub magnitude: u64,
    /// `Inf` or `NaN`.
    pub special: Option<&'static [u8]>,
}

impl Real {
    pub fn of(bits: u64, format: Format) -> Real {
        let (width, precision) = match format {
            Format::Single => (32, 24),
            Format::Double => (64, 53),
        };
        let negative = bits >> (width - 1) & 1 == 1;
        let magnitude = bits & ((1u64 << (width - 1)) - 1);
        let infinity = ((1u64 << (width - precision)) - 1) << (precision - 1);
        let special: Option<&'static [u8]> = if magnitude > infinity {
            Some(b"NaN")
        } else if magnitude == infinity {
            Some(b"Inf")
        } else {
            None
        };
        Real { bits, format, negative, magnitude, special }
    }

    pub fn is_zero(&self) -> bool {
        self.magnitude == 0
    }
}

/// A finite, nonzero magnitude: `significand * 2^exponent`, with half the
/// distance to the next smaller magnitude (or to zero) in units of
/// `2^(exponent - 2)`, in which the midpoints are integers. The next
/// larger magnitude is always `2^exponent` further: 2 units to its midpoint.
#[derive(Clone, Copy, Debug)]
struct Magnitude {
    significand: u64,
    exponent: i32,
    half_down: u64,
}

impl Magnitude {
    fn of(bits: u64, format: Format) -> Magnitude {
        let p = format.precision();
        let fraction = bits & ((1u64 << (p - 1)) - 1);
        let biased = (bits >> (p - 1)) & ((1u64 << format.exponent_bits()) - 1);
        let bias = (1i32 << (format.exponent_bits() - 1)) - 1;
        let (significand, exponent) = if biased == 0 {
            (fraction, 1 - bias - (p as i32 - 1))
        } else {
            (fraction | 1u64 << (p - 1), biased as i32 - bias - (p as i32 - 1))
        };
        // At a power of two above the smallest normal binade, the next
        // smaller magnitude is half as far.
        let narrower_below = fraction == 0 && biased > 1;
        Magnitude { significand, exponent, half_down: if narrower_below { 1 } else { 2 } }
    }
}

/// `n * 2^exponent` as the fraction `numerator / denominator`, each scaled
/// by 10^k so that the fraction is the value over 10^k.
#[inline(never)]
fn scaled(out: &mut Big, n: u64, exponent: i32, k: i32) {
    out.set(n);
    if exponent > 0 {
        out.shl(exponent as u32);
    }
    if k < 0 {
        out.mul_pow10((-k) as u32);
    }
}

#[inline(never)]
fn scaled_denominator(out: &mut Big, exponent: i32, k: i32) {
    out.set(1);
    if exponent < 0 {
        out.shl((-exponent) as u32);
    }
    if k > 0 {
        out.mul_pow10(k as u32);
    }
}

/// The smallest `k` with `n * 2^exponent <= 10^k`, where `inclusive`;
/// with `<` otherwise. `s.high` and `s.denominator` are left scaled by it.
#[inline(never)]
fn decimal_exponent(s: &mut Scratch, n: u64, exponent: i32, inclusive: bool) -> i32 {
    let bits = 64 - n.leading_zeros() as i32 + exponent;
    // floor(bits * log10(2)): within one of the answer.
    let mut k = (bits as i64 * 78_913).div_euclid(1 << 18) as i32;
    let within = |s: &mut Scratch, k: i32| {
        scaled(&mut s.high, n, exponent, k);
        scaled_denominator(&mut s.denominator, exponent, k);
        let order = s.high.cmp(&s.denominator);
        order.is_lt() || (inclusive && order.is_eq())
    };
    while !within(s, k) {
        k += 1;
    }
    while within(s, k - 1) {
        k -= 1;
    }
    within(s, k);
    k
}

/// Decimal digits `0.d1 d2 ... * 10^exponent` (ASCII digits, no sign).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digits {
    pub digit: [u8; 24],
    pub len: usize,
    pub exponent: i32,
}

impl Digits {
    pub fn as_bytes(&self) -> &[u8] {
        &self.digit[..self.len]
    }
}

/// flang-rt's shortest digits of the finite, nonzero magnitude of `bits`
/// (see the module's description).
#[inline(never)]
pub fn shortest(s: &mut Scratch, bits: u64, format: Format) -> Digits {
    let m = Magnitude::of(bits, format);
    let units = m.exponent - 2;
    let high = 4 * m.significand + 2;
    let low = 4 * m.significand - m.half_down;
    // hi is just below its midpoint, so its digits stay below 10^k when the
    // midpoint is 10^k itself.
    let k = decimal_exponent(s, high, units, true);
    scaled(&mut s.low, low, units, k);
    let mut out = Digits { digit: [0; 24], len: 0, exponent: k };
    while out.len < out.digit.len() {
        // The next digit of hi - epsilon: the remainder stays in (0, D].
        let dh = next_digit(&mut s.high, &s.denominator, true);
        let dl = next_digit(&mut s.low, &s.denominator, false);
        if dh != dl {
            out.digit[out.len] = b'0' + dh - (dh - dl) / 2;
            out.len += 1;
            break;
        }
        out.digit[out.len] = b'0' + dh;
        out.len += 1;
    }
    while out.len > 1 && out.digit[out.len - 1] == b'0' {
        out.len -= 1;
    }
    out
}

/// The decimal exponent (`0.d * 10^e`) of the finite, nonzero magnitude of
/// `bits` rounded to one significant digit, to nearest with ties to an
/// even digit: what flang-rt's list-directed output decides between the
/// forms with and without an exponent by.
pub fn one_digit_exponent(s: &mut Scratch, bits: u64, format: Format) -> i32 {
    let m = Magnitude::of(bits, format);
    let k = decimal_exponent(s, m.significand, m.exponent, false);
    let first = next_digit(&mut s.high, &s.denominator, false);
    if first < 9 {
        return k;
    }
    // Rounds up to 10 when the remainder is above half, or half with 9 odd.
    s.high.mul_small(2);
    if s.high.cmp(&s.denominator).is_lt() { k } else { k + 1 }
}

/// How many digits [`rounded`] keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Significant digits (`Ew.d`, `ESw.d`, `Gw.d`).
    Significant(i32),
    /// Digits after the decimal point of the value times `10^scale`
    /// (`Fw.d` under `kP`).
    Fraction { digits: i32, scale: i32 },
}

/// How a value between two candidates rounds (the `R?` modes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rounding {
    /// To nearest, a tie to an even digit (`RN`, the default).
    NearestEven,
    /// To nearest, a tie away from zero (`RC`).
    NearestAway,
    /// Away from zero whenever inexact (`RU` on a positive value, `RD` on a
    /// negative one).
    Away,
    /// Toward zero (`RZ`, `RU` on a negative value, `RD` on a positive one).
    Toward,
}

/// Digits [`rounded`] left in [`Scratch::digits`]: `len` of them, the
/// value `0.d1 d2 ... * 10^exponent`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rounded {
    pub len: usize,
    pub exponent: i32,
}

/// The finite, nonzero magnitude of `bits` rounded to the digits `keep`
/// asks for, exactly (the value's full binary expansion decides), into
/// `s.digits`: trailing zeros kept, so a fraction has its exact count of
/// digits. A value that rounds to zero has no digits; one below the last
/// place kept rounds as flang-rt rounds it ([`below_last_place`]). `Err(k)` when more
/// than [`MAX_DIGITS`] digits are asked for, with the value's decimal
/// exponent `k` (`10^(k-1) <= x < 10^k`).
#[inline(never)]
pub fn rounded(s: &mut Scratch, bits: u64, format: Format, keep: Keep, rounding: Rounding) -> Result<Rounded, i32> {
    let m = Magnitude::of(bits, format);
    let k = decimal_exponent(s, m.significand, m.exponent, false);
    let n = match keep {
        Keep::Significant(n) => n,
        Keep::Fraction { digits, scale } => k + scale + digits,
    };
    if n > MAX_DIGITS as i32 - 1 {
        return Err(k);
    }
    let mut out = Rounded { len: n.max(0) as usize, exponent: k };
    leading_digits(s, out.len);
    if n <= 0 {
        return Ok(below_last_place(s, k, n, rounding));
    }
    // The discarded rest against half a unit: 2R vs D.
    let inexact = s.high.len != 0;
    s.high.mul_small(2);
    let half = s.high.cmp(&s.denominator);
    let last_odd = (s.digits[out.len - 1] - b'0') % 2 == 1;
    let up = match rounding {
        Rounding::NearestEven => half.is_gt() || (half.is_eq() && last_odd),
        Rounding::NearestAway => !half.is_lt(),
        Rounding::Away => inexact,
        Rounding::Toward => false,
    };
    if !up {
        return Ok(out);
    }
    let mut j = out.len;
    loop {
        if j == 0 {
            // 99..9 rounded up: 1 followed by zeros, one place higher; a
            // fraction keeps its count of digits after the point.
            s.digits[0] = b'1';
            if matches!(keep, Keep::Fraction { .. }) {
                s.digits[out.len] = b'0';
                out.len += 1;
            }
            out.exponent += 1;
            break;
        }
        j -= 1;
        if s.digits[j] == b'9' {
            s.digits[j] = b'0';
        } else {
            s.digits[j] += 1;
            break;
        }
    }
    Ok(out)
}

/// The first `n` digits of the fraction `s.high / s.denominator` into
/// `s.digits`, `s.high` left the rest.
#[inline(never)]
fn leading_digits(s: &mut Scratch, n: usize) {
    for i in 0..n {
        s.digits[i] = b'0' + next_digit(&mut s.high, &s.denominator, false);
    }
}

/// A value below the last place kept (`n <= 0` of its digits, the value
/// below `10^k`): zero, or one unit of that place, as flang-rt decides. It
/// rounds the value to one digit in the mode first; what is still below a
/// tenth of the place is zero, what the one-digit rounding carries into
/// the place is one unit, and what reaches it otherwise rounds up to one
/// unit when nearest says so (`RN`; `RC` from the one-digit value, so
/// 0.0499.. becomes 0.1) or always away from zero (`RU,F6.1` of 0.0095 is
/// `0.1`, of 1e-5 `0.0`).
#[inline(never)]
fn below_last_place(s: &mut Scratch, k: i32, n: i32, rounding: Rounding) -> Rounded {
    let first = next_digit(&mut s.high, &s.denominator, false);
    let rest = s.high.len != 0;
    s.high.mul_small(2);
    let half = s.high.cmp(&s.denominator);
    let up_to_one_digit = match rounding {
        Rounding::NearestEven => half.is_gt() || (half.is_eq() && first % 2 == 1),
        Rounding::NearestAway => !half.is_lt(),
        Rounding::Away => rest,
        Rounding::Toward => false,
    };
    let (leading, carry) = match (up_to_one_digit, first) {
        (true, 9) => (1, 1),
        (true, d) => (d + 1, 0),
        (false, d) => (d, 0),
    };
    if n + carry < 0 {
        return Rounded { len: 0, exponent: 0 };
    }
    let up = n + carry > 0
        || match rounding {
            Rounding::NearestEven => carry == 0 && (first > 5 || (first == 5 && rest)),
            Rounding::NearestAway => leading >= 5,
            Rounding::Away => true,
            Rounding::Toward => false,
        };
    if !up {
        return Rounded { len: 0, exponent: 0 };
    }
    // One unit of the last place: 10^(k - n).
    s.digits[0] = b'1';
    Rounded { len: 1, exponent: k - n + 1 }
}
