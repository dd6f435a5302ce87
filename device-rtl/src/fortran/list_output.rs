//! List-directed output in a target region: `PRINT *`, `WRITE(*,*)`,
//! `WRITE(6,*)` and `WRITE(0,*)` to the device's output, and `WRITE(string,
//! *)` into a character variable, with the text flang-rt's host runtime
//! writes for the same items (the sim tests compare with flang's host
//! output).
//!
//! A statement is a [`Statement`] in a block of the device heap from its
//! first call (`Begin...`) to its last (`EndIoStatement`), one per thread
//! that runs the statement. Each record of the device's output is one line
//! printed whole, so the lines of threads that print at once do not mix.
//!
//! flang-rt's rules, as this file keeps them:
//! - A record holds 79 characters on the device's output (flang-rt's line
//!   limit for list-directed output), the variable's length in a string.
//! - Every value but a character one starts with a blank. A number, or a
//!   complex value's real or imaginary part, that does not fit in what is
//!   left of a record starts a new one (a logical value too, but without
//!   its blank).
//! - A character value starts with a blank unless it follows another
//!   character value; it fills records and continues on the next, after a
//!   blank.
//! - A real prints the fewest digits that read back as the same value
//!   ([`decimal`]). Rounded to one digit, a value of decimal exponent 0
//!   up to 6 (`REAL(4)`) or 15 (`REAL(8)`), written `0.d * 10^e`, prints
//!   without an exponent (`.5`, `100.`); others print as `1.5E+07`.
//! - Writing past the end of a string's one record is an error: a
//!   statement with `IOSTAT=` or `ERR=` gets flang-rt's status and skips
//!   the rest of its items, one without ends the kernel with flang-rt's
//!   message.

use super::decimal::{self, Format, Scratch};
use super::descriptor::{Desc, Walk};
use super::memory::{self, Addr};
use super::terminator::{self, Site};
use omprt_abi::fortran::{TypeCategory, category_and_kind};

/// Characters in a record of the device's output.
const OUTPUT_RECORD: usize = 79;

/// flang-rt's `IostatRecordWriteOverrun`: a value longer than a string's
/// record.
pub const IOSTAT_RECORD_WRITE_OVERRUN: i32 = 1002;
/// flang-rt's `IostatInternalWriteOverrun`: output past a string's record.
pub const IOSTAT_INTERNAL_WRITE_OVERRUN: i32 = 1004;

/// Where the statement's records go.
#[derive(Clone, Copy)]
enum Unit {
    /// The device's output, a line per record.
    Output,
    /// A character variable of one record.
    Internal(Addr),
}

/// Where a real value stands: alone, or as a part of a complex value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Alone,
    Real,
    Imaginary,
}

/// One list-directed output statement of one thread.
#[derive(Clone, Copy)]
pub struct Statement {
    unit: Unit,
    site: Site,
    record_len: usize,
    /// Characters written to the current record.
    pos: usize,
    /// The current record of the device's output, and room for its NUL.
    line: [u8; OUTPUT_RECORD + 1],
    last_was_character: bool,
    /// `IOSTAT=` or `ERR=`: errors are a status, not the kernel's end.
    handles_errors: bool,
    error: i32,
    scratch: Scratch,
}

impl Statement {
    fn new(unit: Unit, record_len: usize, site: Site) -> Statement {
        Statement {
            unit,
            site,
            record_len,
            pos: 0,
            line: [0; OUTPUT_RECORD + 1],
            last_was_character: false,
            handles_errors: false,
            error: 0,
            scratch: Scratch::new(),
        }
    }
}

/// The statement on the device heap, for the cookie flang passes back.
fn boxed(statement: Statement) -> Addr {
    memory::boxed(statement).unwrap_or_else(|| terminator::crash_with(statement.site, b"PRINT/WRITE: out of device heap"))
}

/// `PRINT *` and `WRITE(unit, *)`: units 6 and 0 (and `*`, which flang
/// passes as 6) are the device's output, as the standard output and error
/// are the host's; the device has no other.
pub fn begin_external(unit: i32, site: Site) -> Addr {
    if unit != 6 && unit != 0 {
        terminator::crash(site, |m| {
            m.text(b"WRITE to unit ").int(unit.into()).text(b": the device has only units 6 and 0 (its output)");
        });
    }
    boxed(Statement::new(Unit::Output, OUTPUT_RECORD, site))
}

/// `WRITE(string, *)`: one record, the string's `length` characters.
pub fn begin_internal(string: Addr, length: usize, site: Site) -> Addr {
    boxed(Statement::new(Unit::Internal(string), length, site))
}

/// `IOSTAT=`, `ERR=` (`_FortranAioEnableHandlers`); the other handlers
/// (`END=`, `EOR=`) are for input, `IOMSG=` alone changes nothing.
pub fn enable_handlers(st: &mut Statement, iostat: bool, err: bool) {
    st.handles_errors |= iostat || err;
}

/// `IOMSG=` (`_FortranAioGetIoMsg`): the error's message, blank-padded,
/// when the statement failed; the variable keeps its value otherwise.
pub fn get_io_msg(st: &Statement, to: Addr, length: usize) {
    let message = message_of(st.error);
    if message.is_empty() {
        return;
    }
    for i in 0..length {
        to.plus(i).store(message.get(i).copied().unwrap_or(b' '));
    }
}

fn message_of(error: i32) -> &'static [u8] {
    match error {
        IOSTAT_RECORD_WRITE_OVERRUN => b"Excessive output to fixed-size record",
        IOSTAT_INTERNAL_WRITE_OVERRUN => b"Internal write overran available records",
        _ => b"",
    }
}

/// Ends the statement: prints the last record of the device's output, or
/// blank-pads the string's. Returns the statement's status (0, or the
/// error an `IOSTAT=` receives).
pub fn end(st: &mut Statement) -> i32 {
    match st.unit {
        Unit::Output => {
            st.line[st.pos] = 0;
            memory::print_line(&st.line[..=st.pos]);
        }
        Unit::Internal(string) => {
            if st.pos < st.record_len {
                string.plus(st.pos).fill(b' ', st.record_len - st.pos);
            }
        }
    }
    st.error
}

// ---------------------------------------------------------------------------
// Records

impl Statement {
    fn remaining(&self) -> usize {
        self.record_len.saturating_sub(self.pos)
    }

    /// A value of `width` characters goes to a new record.
    fn need_advance(&self, width: usize) -> bool {
        self.pos > 0 && width > self.remaining()
    }

    /// An error: a status with `IOSTAT=`/`ERR=`, else the kernel's end.
    fn fail(&mut self, error: i32) -> bool {
        if !self.handles_errors {
            terminator::crash_with(self.site, message_of(error));
        }
        if self.error == 0 {
            self.error = error;
        }
        false
    }

    /// Ends the current record and starts the next.
    fn advance(&mut self) -> bool {
        match self.unit {
            Unit::Output => {
                self.line[self.pos] = 0;
                memory::print_line(&self.line[..=self.pos]);
                self.pos = 0;
                true
            }
            Unit::Internal(_) => self.fail(IOSTAT_INTERNAL_WRITE_OVERRUN),
        }
    }

    /// Writes `text` into the current record; what does not fit is an
    /// error, after what fits is written.
    fn emit(&mut self, text: &[u8]) -> bool {
        let fits = text.len().min(self.remaining());
        match self.unit {
            Unit::Output => self.line[self.pos..self.pos + fits].copy_from_slice(&text[..fits]),
            Unit::Internal(string) => {
                for (i, &b) in text[..fits].iter().enumerate() {
                    string.plus(self.pos + i).store(b);
                }
            }
        }
        self.pos += fits;
        fits == text.len() || self.fail(IOSTAT_RECORD_WRITE_OVERRUN)
    }

    /// A value of `width` characters after a separating blank (flang-rt's
    /// `EmitLeadingSpaceOrAdvance`): a new record instead of the blank when
    /// it does not fit; no blank between two character values.
    fn space_or_advance(&mut self, width: usize, character: bool) -> bool {
        let space = self.pos == 0 || !(character && self.last_was_character);
        self.last_was_character = false;
        if self.need_advance(space as usize + width) {
            return self.advance();
        }
        !space || self.emit(b" ")
    }

    /// A number's text, with its leading blank and the parentheses and
    /// comma of a complex value's parts, in a new record when it does not
    /// fit.
    fn number(&mut self, text: &[u8], part: Part) -> bool {
        self.last_was_character = false;
        let (prefix, suffix): (&[u8], &[u8]) = match part {
            Part::Alone => (b" ", b""),
            Part::Real => (b" (", b","),
            Part::Imaginary => (b"", b")"),
        };
        if self.need_advance(prefix.len() + text.len() + suffix.len()) && !self.advance() {
            return false;
        }
        self.emit(prefix) && self.emit(text) && self.emit(suffix)
    }
}

// ---------------------------------------------------------------------------
// Items

/// An INTEGER item of any kind.
pub fn integer(st: &mut Statement, value: i128) -> bool {
    if st.error != 0 {
        return false;
    }
    let mut text = [0u8; 40];
    let len = integer_text(value, &mut text);
    st.number(&text[..len], Part::Alone)
}

/// `value` in decimal into `out`; its length. 128-bit division is not
/// available on the device, so digits come nine at a time from 32-bit
/// limbs.
fn integer_text(value: i128, out: &mut [u8; 40]) -> usize {
    let mut limbs = {
        let v = value.unsigned_abs();
        [(v >> 96) as u32, (v >> 64) as u32, (v >> 32) as u32, v as u32]
    };
    let mut digits = [0u8; 40];
    let mut n = 0;
    loop {
        let mut rem = 0u64;
        for limb in &mut limbs {
            let cur = (rem << 32) | *limb as u64;
            *limb = (cur / 1_000_000_000) as u32;
            rem = cur % 1_000_000_000;
        }
        let done = limbs.iter().all(|&l| l == 0);
        for _ in 0..9 {
            digits[n] = b'0' + (rem % 10) as u8;
            n += 1;
            rem /= 10;
            if done && rem == 0 {
                break;
            }
        }
        if done {
            break;
        }
    }
    let mut len = 0;
    if value < 0 {
        out[0] = b'-';
        len = 1;
    }
    for i in (0..n).rev() {
        out[len] = digits[i];
        len += 1;
    }
    len
}

/// A REAL(4) or REAL(8) item (`bits` of `format`).
pub fn real(st: &mut Statement, bits: u64, format: Format) -> bool {
    real_part(st, bits, format, Part::Alone)
}

/// A COMPLEX(4) or COMPLEX(8) item: `(re,im)`, each part placed as a number.
pub fn complex(st: &mut Statement, re: u64, im: u64, format: Format) -> bool {
    real_part(st, re, format, Part::Real) && real_part(st, im, format, Part::Imaginary)
}

fn real_part(st: &mut Statement, bits: u64, format: Format, part: Part) -> bool {
    if st.error != 0 {
        return false;
    }
    let mut text = [0u8; 40];
    let len = real_text(&mut st.scratch, bits, format, &mut text);
    st.number(&text[..len], part)
}

/// A real's list-directed text (module docs) into `out`; its length.
fn real_text(s: &mut Scratch, bits: u64, format: Format, out: &mut [u8; 40]) -> usize {
    let (width, precision) = match format {
        Format::Single => (32, 24),
        Format::Double => (64, 53),
    };
    let negative = bits >> (width - 1) & 1 == 1;
    let magnitude = bits & ((1u64 << (width - 1)) - 1);
    let infinity = ((1u64 << (width - precision)) - 1) << (precision - 1);
    let mut text = Text { out, len: 0 };
    if magnitude > infinity {
        text.push(b"NaN");
        return text.len;
    }
    if negative {
        text.push(b"-");
    }
    if magnitude == infinity {
        text.push(b"Inf");
    } else if magnitude == 0 {
        text.push(b"0.");
    } else {
        let rounded = decimal::one_digit_exponent(s, magnitude, format);
        let d = decimal::shortest(s, magnitude, format);
        let digits = d.as_bytes();
        if rounded < 0 || rounded > format.list_f_limit() {
            text.push(&digits[..1]).push(b".").push(&digits[1..]).push(b"E");
            let e = d.exponent - 1;
            text.push(if e < 0 { b"-" } else { b"+" });
            let mut exponent = [0u8; 40];
            let n = integer_text(e.unsigned_abs().into(), &mut exponent);
            if n < 2 {
                text.push(b"0");
            }
            text.push(&exponent[..n]);
        } else if d.exponent <= 0 {
            text.push(b".");
            for _ in 0..-d.exponent {
                text.push(b"0");
            }
            text.push(digits);
        } else {
            let before = (d.exponent as usize).min(digits.len());
            text.push(&digits[..before]);
            for _ in before..d.exponent as usize {
                text.push(b"0");
            }
            text.push(b".").push(&digits[before..]);
        }
    }
    text.len
}

/// Text being built in a fixed buffer.
struct Text<'a> {
    out: &'a mut [u8; 40],
    len: usize,
}

impl Text<'_> {
    fn push(&mut self, bytes: &[u8]) -> &mut Self {
        self.out[self.len..self.len + bytes.len()].copy_from_slice(bytes);
        self.len += bytes.len();
        self
    }
}

/// A LOGICAL item: `T` or `F`.
pub fn logical(st: &mut Statement, truth: bool) -> bool {
    if st.error != 0 {
        return false;
    }
    st.space_or_advance(1, false) && st.emit(if truth { b"T" } else { b"F" })
}

/// A CHARACTER item of kind 1, `length` characters at `chars`.
pub fn character(st: &mut Statement, chars: Addr, length: usize) -> bool {
    if st.error != 0 {
        return false;
    }
    if length > 0 && !st.space_or_advance(1, true) {
        return false;
    }
    let mut put = 0;
    let mut ok = true;
    while ok && put < length {
        let chunk = (length - put).min(st.remaining());
        if chunk == 0 {
            ok = st.advance() && st.emit(b" ");
            continue;
        }
        for i in 0..chunk {
            let b: u8 = chars.plus(put + i).load();
            ok = st.emit(&[b]);
        }
        put += chunk;
    }
    st.last_was_character = true;
    ok
}

/// An item flang passes by descriptor (an array, or a scalar of a kind
/// without an entry point of its own): its elements in array element order.
pub fn descriptor(st: &mut Statement, d: Desc) -> bool {
    let Some((category, kind)) = category_and_kind(d.type_code()) else {
        unsupported_item(b"PRINT/WRITE of a derived-type item")
    };
    let mut walk = Walk::new(d);
    for _ in 0..d.elements() {
        let at = d.base().offset(walk.offset());
        let ok = match (category, kind) {
            (TypeCategory::Integer, 1) => integer(st, at.load::<i8>().into()),
            (TypeCategory::Integer, 2) => integer(st, at.load::<i16>().into()),
            (TypeCategory::Integer, 4) => integer(st, at.load::<i32>().into()),
            (TypeCategory::Integer, 8) => integer(st, at.load::<i64>().into()),
            (TypeCategory::Integer, 16) => integer(st, (at.plus(8).load::<i64>() as i128) << 64 | at.load::<u64>() as i128),
            (TypeCategory::Unsigned, 1) => integer(st, at.load::<u8>().into()),
            (TypeCategory::Unsigned, 2) => integer(st, at.load::<u16>().into()),
            (TypeCategory::Unsigned, 4) => integer(st, at.load::<u32>().into()),
            (TypeCategory::Unsigned, 8) => integer(st, at.load::<u64>().into()),
            (TypeCategory::Real, 4) => real(st, at.load::<u32>().into(), Format::Single),
            (TypeCategory::Real, 8) => real(st, at.load::<u64>(), Format::Double),
            (TypeCategory::Complex, 4) => complex(st, at.load::<u32>().into(), at.plus(4).load::<u32>().into(), Format::Single),
            (TypeCategory::Complex, 8) => complex(st, at.load::<u64>(), at.plus(8).load::<u64>(), Format::Double),
            (TypeCategory::Logical, 1) => logical(st, at.load::<u8>() != 0),
            (TypeCategory::Logical, 2) => logical(st, at.load::<u16>() != 0),
            (TypeCategory::Logical, 4) => logical(st, at.load::<u32>() != 0),
            (TypeCategory::Logical, 8) => logical(st, at.load::<u64>() != 0),
            (TypeCategory::Character, 1) => character(st, at, d.elem_len()),
            (TypeCategory::Character, _) => unsupported_item(b"PRINT/WRITE of CHARACTER of kind 2 or 4"),
            (TypeCategory::Real | TypeCategory::Complex, _) => unsupported_item(b"PRINT/WRITE of REAL or COMPLEX of kind 2, 3, 10 or 16"),
            _ => unsupported_item(b"PRINT/WRITE of a derived-type item"),
        };
        if !ok {
            return false;
        }
        walk.advance();
    }
    true
}

#[cold]
fn unsupported_item(what: &[u8]) -> ! {
    terminator::unsupported(b"_FortranAioOutputDescriptor", what)
}
