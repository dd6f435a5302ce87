//! The data edit descriptors of formatted output (F2023 13.7), each item's
//! field as flang-rt's host runtime writes it: `I`, `B`, `O`, `Z` of
//! integers; `F`, `E`, `EN`, `ES`, `D` and `G` of reals (each part of a
//! complex value takes one); `L`; `A`; `G` of every type.
//!
//! A field of width `w` holds its text right-justified, or `w` asterisks
//! when the text is longer; width 0 (`I0`, `F0.d`, `G0`) is as wide as the
//! text. Reals round exactly, to nearest with ties to even unless the
//! format says otherwise (`RU`, `RD`, `RZ`, `RC`), and keep the sign of a
//! negative value that rounds to zero (`-0.000`). flang-rt's choices where
//! the standard leaves them open, kept here: no leading zero before the
//! point unless the field has room (`F3.2` of 0.5 is `.50`); an exponent of
//! three digits drops its letter (`0.100+101`); `Gw.d` prints `Fw'.d'` and
//! 4 blanks (`Ee`: e+2) for 0.1 <= |x| < 10**d after rounding to d digits.
//! `G0` prints a real as `F0` or `E0`, the fewest digits that read back.
//!
//! Its `#[inline(never)]` functions keep the output code's registers low
//! (see "Registers" in [`super`]).

use super::decimal::{self, Format, Keep, Real as Value, Rounded, Rounding};
use super::format::{DataEdit, Kind, Round};
use super::memory::Addr;
use super::output::{self, IOSTAT_ERROR_IN_FORMAT, Statement};

/// A piece of a field's text.
#[derive(Clone, Copy)]
enum Piece<'a> {
    Text(&'a [u8]),
    Repeat(u8, usize),
    /// Digits of the statement's conversion (`Scratch::digits`), from..to.
    Digits(usize, usize),
}

impl Piece<'_> {
    fn len(&self) -> usize {
        match *self {
            Piece::Text(t) => t.len(),
            Piece::Repeat(_, n) => n,
            Piece::Digits(from, to) => to - from,
        }
    }
}

/// A field's text in pieces (sign, digits, zeros, point, exponent...).
struct Field<'a> {
    piece: [Piece<'a>; 8],
    n: usize,
}

impl<'a> Field<'a> {
    fn new() -> Self {
        Field { piece: [Piece::Text(b""); 8], n: 0 }
    }

    fn text(&mut self, t: &'a [u8]) -> &mut Self {
        self.piece[self.n] = Piece::Text(t);
        self.n += 1;
        self
    }

    fn repeat(&mut self, b: u8, count: usize) -> &mut Self {
        self.piece[self.n] = Piece::Repeat(b, count);
        self.n += 1;
        self
    }

    fn digits(&mut self, from: usize, to: usize) -> &mut Self {
        self.piece[self.n] = Piece::Digits(from, to);
        self.n += 1;
        self
    }

    fn len(&self) -> usize {
        self.piece[..self.n].iter().map(Piece::len).sum()
    }

    /// Emits the field in `width` (0: its own width), right-justified, or
    /// asterisks when it does not fit.
    #[inline(never)]
    fn emit(&self, st: &mut Statement, width: usize) -> bool {
        let len = self.len();
        if width > 0 && len > width {
            return st.emit_repeated(b'*', width);
        }
        if width > len && !st.emit_repeated(b' ', width - len) {
            return false;
        }
        self.piece[..self.n].iter().all(|p| match *p {
            Piece::Text(t) => st.emit(t),
            Piece::Repeat(b, n) => st.emit_repeated(b, n),
            Piece::Digits(from, to) => (from..to).all(|i| {
                let d = st.scratch.digits[i];
                st.emit(&[d])
            }),
        })
    }
}

/// flang-rt's error for an item its edit descriptor cannot edit.
fn mismatch(st: &mut Statement, e: DataEdit, item: &'static [u8]) -> bool {
    st.fail(IOSTAT_ERROR_IN_FORMAT, [b"Data edit descriptor '", &e.kind.name()[..1], item])
}

const INTEGER_ITEM: &[u8] = b"' may not be used with an INTEGER data item";
const REAL_ITEM: &[u8] = b"' may not be used with a REAL data item";
const LOGICAL_ITEM: &[u8] = b"' may not be used with a LOGICAL data item";
const CHARACTER_ITEM: &[u8] = b"' may not be used with a CHARACTER data item";

fn width(e: DataEdit) -> usize {
    e.width.unwrap_or(0) as usize
}

// ---------------------------------------------------------------------------
// INTEGER

/// An INTEGER item of `bytes` bytes.
pub fn integer(st: &mut Statement, e: DataEdit, value: i128, bytes: usize) -> bool {
    match e.kind {
        Kind::I | Kind::G => decimal_integer(st, e, value),
        Kind::B | Kind::O | Kind::Z => {
            let bits = (value as u128) & if bytes >= 16 { u128::MAX } else { (1u128 << (8 * bytes)) - 1 };
            radix_integer(st, e, bits)
        }
        Kind::L => logical(st, e, value != 0),
        _ => mismatch(st, e, INTEGER_ITEM),
    }
}

/// `Iw.m` (and `Gw.d`, which is `Iw`).
#[inline(never)]
fn decimal_integer(st: &mut Statement, e: DataEdit, value: i128) -> bool {
    let mut text = [0u8; 40];
    let len = output::integer_text(value, &mut text);
    let negative = value < 0;
    let digits = if value == 0 { &text[..0] } else { &text[negative as usize..len] };
    let plus = st.format.is_some_and(|f| f.modes.plus);
    let mut sign: &[u8] = if negative {
        b"-"
    } else if plus {
        b"+"
    } else {
        b""
    };
    let mut zeros = 0;
    let mut w = width(e);
    match e.digits.filter(|_| e.kind == Kind::I) {
        Some(m) if digits.len() <= m as usize => {
            if m == 0 && value == 0 {
                // Iw.0 of zero: a blank field (one blank for I0.0).
                sign = b"";
                w = w.max(1);
            } else {
                zeros = m as usize - digits.len();
            }
        }
        _ if value == 0 => zeros = 1,
        _ => {}
    }
    let mut f = Field::new();
    f.text(sign).repeat(b'0', zeros).text(digits);
    f.emit(st, w)
}

/// `Bw.m`, `Ow.m`, `Zw.m`: the bits of the value, without sign.
#[inline(never)]
fn radix_integer(st: &mut Statement, e: DataEdit, bits: u128) -> bool {
    let (shift, mask) = match e.kind {
        Kind::B => (1, 1),
        Kind::O => (3, 7),
        _ => (4, 15),
    };
    let mut text = [0u8; 128];
    let mut n = 0;
    let mut v = bits;
    while v != 0 {
        let d = (v & mask) as u8;
        text[text.len() - 1 - n] = if d < 10 { b'0' + d } else { b'A' + d - 10 };
        n += 1;
        v >>= shift;
    }
    let digits = &text[text.len() - n..];
    let mut zeros = 0;
    let mut w = width(e);
    match e.digits {
        Some(m) if n <= m as usize => {
            if m == 0 && bits == 0 {
                w = w.max(1);
            } else {
                zeros = m as usize - n;
            }
        }
        _ if bits == 0 => zeros = 1,
        _ => {}
    }
    let mut f = Field::new();
    f.repeat(b'0', zeros).text(digits);
    f.emit(st, w)
}

// ---------------------------------------------------------------------------
// LOGICAL and CHARACTER

/// A LOGICAL item: `Lw` (and `Gw`): `T` or `F` after `w - 1` blanks.
pub fn logical(st: &mut Statement, e: DataEdit, truth: bool) -> bool {
    match e.kind {
        Kind::L | Kind::G => {
            let w = e.width.unwrap_or(1).max(1) as usize;
            st.emit_repeated(b' ', w - 1) && st.emit(if truth { b"T" } else { b"F" })
        }
        Kind::B | Kind::O | Kind::Z => radix_integer(st, e, truth as u128),
        _ => mismatch(st, e, LOGICAL_ITEM),
    }
}

/// A CHARACTER item: `A` (its length), `Aw` (and `Gw`): blanks before a
/// shorter value, the first `w` characters of a longer one.
pub fn character(st: &mut Statement, e: DataEdit, chars: Addr, length: usize) -> bool {
    if !matches!(e.kind, Kind::A | Kind::G) {
        return mismatch(st, e, CHARACTER_ITEM);
    }
    let w = match e.width {
        Some(0) | None => length,
        Some(w) => w as usize,
    };
    if w > length && !st.emit_repeated(b' ', w - length) {
        return false;
    }
    (0..w.min(length)).all(|i| st.emit(&[chars.plus(i).load::<u8>()]))
}

// ---------------------------------------------------------------------------
// REAL

/// A REAL item (or a complex value's part), `bits` of `format`.
pub fn real(st: &mut Statement, e: DataEdit, bits: u64, format: Format) -> bool {
    let value = Value::of(bits, format);
    match e.kind {
        Kind::F => fixed(st, e, value, e.digits.map(|d| d as i32)),
        Kind::E | Kind::D | Kind::ES | Kind::EN => exponential(st, e, value, e.digits.map(|d| d as i32), e.exponent),
        Kind::G => general(st, e, value),
        Kind::B | Kind::O | Kind::Z => radix_integer(st, e, value.bits as u128),
        Kind::L => logical(st, e, value.bits & 0xff != 0),
        Kind::I | Kind::A => mismatch(st, e, REAL_ITEM),
    }
}

/// The sign a real's field starts with.
fn sign(st: &Statement, v: &Value) -> &'static [u8] {
    if v.negative && v.special != Some(b"NaN") {
        b"-"
    } else if st.format.is_some_and(|f| f.modes.plus) && v.special != Some(b"NaN") {
        b"+"
    } else {
        b""
    }
}

/// The rounding the format's mode asks of the value's magnitude.
fn rounding(st: &Statement, v: &Value) -> Rounding {
    match st.format.map_or(Round::Nearest, |f| f.modes.round) {
        Round::Nearest => Rounding::NearestEven,
        Round::Compatible => Rounding::NearestAway,
        Round::Up if v.negative => Rounding::Toward,
        Round::Up => Rounding::Away,
        Round::Down if v.negative => Rounding::Away,
        Round::Down => Rounding::Toward,
        Round::Zero => Rounding::Toward,
    }
}

/// `Inf`, `-Inf`, `+Inf` or `NaN` in the field.
#[inline(never)]
fn special(st: &mut Statement, v: &Value, w: usize) -> bool {
    let mut f = Field::new();
    f.text(sign(st, v)).text(v.special.unwrap_or(b""));
    f.emit(st, w)
}

/// More digits than the device's conversion gives.
fn too_many_digits(st: &mut Statement) -> bool {
    st.fail(IOSTAT_ERROR_IN_FORMAT, [b"Output edit descriptor asks for more than 127 significant digits (the device's limit)", b"", b""])
}

/// The fewest digits that read back as the magnitude, in the statement's
/// digits.
fn shortest(st: &mut Statement, v: &Value) -> Rounded {
    let d = decimal::shortest(&mut st.scratch, v.magnitude, v.format);
    st.scratch.digits[..d.len].copy_from_slice(d.as_bytes());
    Rounded { len: d.len, exponent: d.exponent }
}

/// `Fw.d` (`d`: `None` for `F0`, the fewest digits that read back), under
/// the scale factor; `trailing` blanks after it (`G`).
fn fixed(st: &mut Statement, e: DataEdit, v: Value, d: Option<i32>) -> bool {
    fixed_with(st, width(e), v, d, st.format.map_or(0, |f| f.modes.scale), 0)
}

#[inline(never)]
fn fixed_with(st: &mut Statement, w: usize, v: Value, d: Option<i32>, scale: i32, trailing: usize) -> bool {
    if v.special.is_some() {
        return special(st, &v, w);
    }
    let round = rounding(st, &v);
    let digits = if v.is_zero() {
        Rounded { len: 0, exponent: 0 }
    } else {
        match d {
            Some(d) => match decimal::rounded(&mut st.scratch, v.magnitude, v.format, Keep::Fraction { digits: d, scale }, round) {
                Ok(r) => r,
                // Its integer part alone overflows the field, or needs more
                // digits than the conversion keeps.
                Err(k) if w > 0 && (k + scale).max(0) as usize >= w => return st.emit_repeated(b'*', w),
                Err(_) => return too_many_digits(st),
            },
            None => shortest(st, &v),
        }
    };
    let nd = digits.len;
    let expo = if nd == 0 { 0 } else { digits.exponent + scale };
    // F0 (no d) has as many digits after the point as the value needs.
    let frac = d.map_or(usize::MAX, |d| d.max(0) as usize);
    let before = expo.clamp(0, nd as i32) as usize;
    let mut zeros_before = (expo - before as i32).max(0) as usize;
    let zeros_after = frac.min((-expo).max(0) as usize);
    let after = nd - before;
    let trailing_zeros = if d.is_none() { 0 } else { frac.saturating_sub(zeros_after + after) };
    if before + zeros_before + zeros_after + after + trailing_zeros == 0 {
        zeros_before = 1;
    }
    let sign = sign(st, &v);
    let len = sign.len() + before + zeros_before + 1 + zeros_after + after + trailing_zeros + trailing;
    let width = if w > 0 { w } else { len };
    if len < width && before + zeros_before == 0 {
        zeros_before = 1;
    }
    let mut f = Field::new();
    f.text(sign)
        .digits(0, before)
        .repeat(b'0', zeros_before)
        .text(b".")
        .repeat(b'0', zeros_after)
        .digits(before, nd)
        .repeat(b'0', trailing_zeros)
        .repeat(b' ', trailing);
    f.emit(st, width)
}

/// `Ew.dEe`, `Dw.d`, `ESw.dEe`, `ENw.dEe` (`d`: `None` for `E0`, the
/// fewest digits that read back); `exponent` is `e` (`Some(0)`: as many
/// digits as it takes).
#[inline(never)]
fn exponential(st: &mut Statement, e: DataEdit, v: Value, d: Option<i32>, exponent: Option<u32>) -> bool {
    let w = width(e);
    if v.special.is_some() {
        return special(st, &v, w);
    }
    let round = rounding(st, &v);
    let d_ = d.unwrap_or(0);
    let scale = match e.kind {
        Kind::ES => 1,
        Kind::EN => {
            if v.is_zero() {
                1
            } else {
                3
            }
        }
        _ => st.format.map_or(0, |f| f.modes.scale),
    };
    if matches!(e.kind, Kind::E | Kind::D) && d.is_some() {
        if scale < 0 && scale <= -d_ {
            return st.fail(IOSTAT_ERROR_IN_FORMAT, [b"Scale factor (kP) cannot be less than -d", b"", b""]);
        }
        if scale > 0 && scale >= d_ + 2 {
            return st.fail(IOSTAT_ERROR_IN_FORMAT, [b"Scale factor (kP) cannot be greater than d+2", b"", b""]);
        }
    }
    let Some((digits, scale)) = exponential_digits(st, e.kind, &v, d, scale, round) else {
        return too_many_digits(st);
    };
    let expo = if v.is_zero() { 0 } else { digits.exponent - scale };
    let mut exp_text = [0u8; 8];
    let Some(exp_len) = exponent_text(expo, exponent, d.is_none() && exponent.is_none(), e.kind == Kind::D, &mut exp_text) else {
        return st.emit_repeated(b'*', w);
    };
    let significant = d.map(|d| significant_digits(e.kind, d, scale) as usize);
    exponential_field(st, w, &v, digits, scale, significant, &exp_text[..exp_len])
}

/// Significant digits of an `E`-type field of `d` digits under `scale`:
/// `d`, one more with digits before the point, fewer with zeros after it.
fn significant_digits(kind: Kind, d: i32, scale: i32) -> i32 {
    match kind {
        Kind::ES => d + 1,
        Kind::EN => d + scale,
        _ if scale > 0 => d + 1,
        _ if scale < 0 => (d + scale).max(0),
        _ => d,
    }
}

/// The digits of [`exponential`] in the statement's digits, and the scale
/// they take (`EN` settles its own); `None` when more digits are asked for
/// than the conversion gives.
#[inline(never)]
fn exponential_digits(st: &mut Statement, kind: Kind, v: &Value, d: Option<i32>, mut scale: i32, round: Rounding) -> Option<(Rounded, i32)> {
    if v.is_zero() {
        st.scratch.digits[0] = b'0';
        return Some((Rounded { len: 1, exponent: 0 }, scale));
    }
    let Some(d) = d else {
        return Some((shortest(st, v), scale));
    };
    loop {
        let r = decimal::rounded(&mut st.scratch, v.magnitude, v.format, Keep::Significant(significant_digits(kind, d, scale)), round).ok()?;
        if kind != Kind::EN {
            return Some((r, scale));
        }
        // Engineering: 1 to 3 digits before the point, an exponent that is
        // a multiple of 3. Fewer digits round again; more come from
        // rounding up to a power of ten, whose digits are all there.
        let digits_before = (r.exponent - 1).rem_euclid(3) + 1;
        let again = digits_before < scale;
        scale = digits_before;
        if !again {
            return Some((r, scale));
        }
    }
}

/// The field of [`exponential`] once its digits are rounded: `scale` of
/// them before the point (zeros after it where negative), `significant`
/// digits in all (`None`: the digits there are), then `exponent`'s text.
#[inline(never)]
fn exponential_field(st: &mut Statement, w: usize, v: &Value, digits: Rounded, scale: i32, significant: Option<usize>, exponent: &[u8]) -> bool {
    let nd = digits.len;
    let zeros_after = if scale < 0 { (-scale) as usize } else { 0 };
    let zeros_before = (scale - nd as i32).max(0) as usize;
    let before = (scale - zeros_before as i32).max(0) as usize;
    let after = nd - before.min(nd);
    let trailing_zeros = significant.map_or(0, |n| n.saturating_sub(nd + zeros_before));
    let sign = sign(st, v);
    let len = sign.len() + before + zeros_before + 1 + zeros_after + after + trailing_zeros + exponent.len();
    let width = if w > 0 { w } else { len };
    // A zero before the point where the field has room for it.
    let lead = if len < width && before == 0 && zeros_before == 0 { 1 } else { zeros_before };
    let mut f = Field::new();
    f.text(sign)
        .digits(0, before.min(nd))
        .repeat(b'0', lead)
        .text(b".")
        .repeat(b'0', zeros_after)
        .digits(before.min(nd), nd)
        .repeat(b'0', trailing_zeros)
        .text(exponent);
    f.emit(st, width)
}

/// The exponent field of `expo` into `out`: `E+dd`, or `+ddd` without its
/// letter; with `Ee`, the letter and `e` digits; `minimal` (`E0`): as many
/// digits as it takes. `None` when the exponent does not fit.
fn exponent_text(expo: i32, e: Option<u32>, minimal: bool, d_letter: bool, out: &mut [u8; 8]) -> Option<usize> {
    let mut digits = [0u8; 4];
    let mut n = 0;
    let mut v = expo.unsigned_abs();
    while v > 0 {
        digits[3 - n] = b'0' + (v % 10) as u8;
        n += 1;
        v /= 10;
    }
    let (width, letter) = match e {
        Some(0) => (n.max(1), true),
        Some(e) => {
            if n > e as usize {
                return None;
            }
            (e as usize, true)
        }
        None if minimal => (n.max(1), true),
        None => (n.max(2), n <= 2),
    };
    if width > 4 {
        return None;
    }
    let mut len = 0;
    if letter {
        out[0] = if d_letter { b'D' } else { b'E' };
        len = 1;
    }
    out[len] = if expo < 0 { b'-' } else { b'+' };
    len += 1;
    for _ in n..width {
        out[len] = b'0';
        len += 1;
    }
    out[len..len + n].copy_from_slice(&digits[4 - n..]);
    Some(len + n)
}

/// `Gw.dEe`: `F` with 4 (or e+2) blanks after it where the value rounded to
/// d digits is in 0.1 <= |x| < 10**d, else `Ew.dEe`; `G0`: `F0` or `E0`.
#[inline(never)]
fn general(st: &mut Statement, e: DataEdit, v: Value) -> bool {
    let w = width(e);
    let precision = match v.format {
        Format::Single => 6,
        Format::Double => 15,
    };
    let d = e.digits.map(|d| d as i32);
    if w > 0 && d == Some(0) {
        return exponential(st, e, v, Some(0), e.exponent);
    }
    let trailing = if w > 0 { e.exponent.filter(|&x| x > 0).map_or(4, |x| x as usize + 2) } else { 0 };
    if v.special.is_some() {
        return special(st, &v, w);
    }
    let significant = d.unwrap_or(precision);
    let round = rounding(st, &v);
    let expo = if v.is_zero() {
        1
    } else {
        match decimal::rounded(&mut st.scratch, v.magnitude, v.format, Keep::Significant(significant), round) {
            Ok(r) => r.exponent,
            Err(_) => return too_many_digits(st),
        }
    };
    if expo < 0 || expo > significant {
        let exponent = if w == 0 && e.exponent.is_none() { Some(0) } else { e.exponent };
        return exponential(st, DataEdit { kind: Kind::E, ..e }, v, d, exponent);
    }
    fixed_with(st, w, v, d.map(|d| (d - expo).max(0)), 0, trailing)
}
