//! Output statements in a target region: `PRINT`, `WRITE(*, ...)`,
//! `WRITE(6, ...)` and `WRITE(0, ...)` to the device's output, and
//! `WRITE(string, ...)` into a character variable, list-directed (`*`) or
//! with a format, with the text flang-rt's host runtime writes for the same
//! items (the sim tests compare with flang's host output). This file holds
//! the statement, its records and list-directed editing; [`format`] reads
//! formats and [`edit`] carries out their data edit descriptors.
//!
//! A statement is a [`Statement`] in a block of the device heap from its
//! first call (`Begin...`) to its last (`EndIoStatement`), one per thread
//! that runs the statement. Each record of the device's output is one line
//! printed whole, so the lines of threads that print at once do not mix.
//!
//! flang-rt's rules for list-directed output, as this file keeps them:
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
//!
//! Formatted records on the device's output hold up to 255 characters; a
//! longer one continues on the next line. Writing past the end of a
//! string's one record, a malformed format and an item its edit descriptor
//! cannot edit are errors: a statement with `IOSTAT=` or `ERR=` gets
//! flang-rt's status (and `IOMSG=` its message) and skips the rest of its
//! items, one without ends the kernel with flang-rt's message.
//!
//! Its `#[inline(never)]` functions keep the output code's registers low
//! (see "Registers" in [`super`]).

use super::decimal::{self, Format, Scratch};
use super::descriptor::{Desc, Walk};
use super::edit;
use super::format::{self, DataEdit, Step};
use super::memory::{self, Addr};
use super::terminator::{self, Site};
use super::type_info::TypeInfo;
use omprt_abi::fortran::{TypeCategory, category_and_kind, component_genre, special_binding};

/// Characters in a list-directed record of the device's output.
const LIST_RECORD: usize = 79;
/// Characters in a formatted record of the device's output (the line
/// buffer).
const OUTPUT_RECORD: usize = 255;

/// flang-rt's `IostatRecordWriteOverrun`: a value longer than a string's
/// record.
pub const IOSTAT_RECORD_WRITE_OVERRUN: i32 = 1002;
/// flang-rt's `IostatInternalWriteOverrun`: output past a string's record.
pub const IOSTAT_INTERNAL_WRITE_OVERRUN: i32 = 1004;
/// flang-rt's `IostatErrorInFormat`: a malformed format, or an edit
/// descriptor that cannot edit the item.
pub const IOSTAT_ERROR_IN_FORMAT: i32 = 1005;

/// An error's message, in up to three parts (flang-rt's text).
pub type Message = [&'static [u8]; 3];

/// Where the statement's records go.
#[derive(Clone, Copy)]
enum Unit {
    /// The device's output, a line per record.
    Output,
    /// A character variable of one record.
    Internal(Addr),
}

/// Where a real value stands: alone, or as a part of a complex value.
#[derive(Clone, Copy)]
enum Part {
    Alone,
    Real,
    Imaginary,
}

/// One output statement of one thread.
#[derive(Clone, Copy)]
pub struct Statement {
    unit: Unit,
    site: Site,
    /// `None`: list-directed.
    pub(super) format: Option<format::Format>,
    record_len: usize,
    /// The position in the current record (formats move it).
    pos: usize,
    /// Characters the current record holds.
    len: usize,
    /// The current record of the device's output, and room for its NUL.
    line: [u8; OUTPUT_RECORD + 1],
    last_was_character: bool,
    /// `IOSTAT=` or `ERR=`: errors are a status, not the kernel's end.
    handles_errors: bool,
    error: i32,
    message: Message,
    pub(super) scratch: Scratch,
}

impl Statement {
    fn new(unit: Unit, record_len: usize, format: Option<format::Format>, site: Site) -> Statement {
        Statement {
            unit,
            site,
            format,
            record_len,
            pos: 0,
            len: 0,
            line: [0; OUTPUT_RECORD + 1],
            last_was_character: false,
            handles_errors: false,
            error: 0,
            message: [b""; 3],
            scratch: Scratch::new(),
        }
    }
}

/// The statement on the device heap, for the cookie flang passes back.
fn boxed(statement: Statement) -> Addr {
    let site = statement.site;
    memory::boxed(statement).unwrap_or_else(|| terminator::crash_with(site, b"PRINT/WRITE: out of device heap"))
}

/// A format's text and length (`None`: list-directed), as flang passes them.
pub type FormatText = Option<(Addr, usize)>;

/// `PRINT` and `WRITE(unit, ...)`: units 6 and 0 (and `*`, which flang
/// passes as 6) are the device's output, as the standard output and error
/// are the host's; the device has no other.
pub fn begin_external(unit: i32, format: FormatText, site: Site) -> Addr {
    if unit != 6 && unit != 0 {
        terminator::crash(site, |m| {
            m.text(b"WRITE to unit ").int(unit.into()).text(b": the device has only units 6 and 0 (its output)");
        });
    }
    let record = if format.is_some() { OUTPUT_RECORD } else { LIST_RECORD };
    boxed(Statement::new(Unit::Output, record, format.map(|(text, len)| format::Format::new(text, len)), site))
}

/// `WRITE(string, ...)`: one record, the string's `length` characters.
pub fn begin_internal(string: Addr, length: usize, format: FormatText, site: Site) -> Addr {
    boxed(Statement::new(Unit::Internal(string), length, format.map(|(text, len)| format::Format::new(text, len)), site))
}

/// `IOSTAT=`, `ERR=` (`_FortranAioEnableHandlers`); the other handlers
/// (`END=`, `EOR=`) are for input, `IOMSG=` alone changes nothing.
pub fn enable_handlers(st: &mut Statement, iostat: bool, err: bool) {
    st.handles_errors |= iostat || err;
}

/// `IOMSG=` (`_FortranAioGetIoMsg`): the error's message, blank-padded,
/// when the statement failed; the variable keeps its value otherwise.
pub fn get_io_msg(st: &Statement, to: Addr, length: usize) {
    if st.error == 0 {
        return;
    }
    let mut text = st.message.iter().flat_map(|part| part.iter().copied());
    for i in 0..length {
        to.plus(i).store(text.next().unwrap_or(b' '));
    }
}

/// Ends the statement: carries out the format's edit descriptors up to its
/// next data edit descriptor or `:` (the text after the last item), prints
/// the last record of the device's output, or blank-pads the string's.
/// Returns the statement's status (0, or the error an `IOSTAT=` receives).
pub fn end(st: &mut Statement) -> i32 {
    if st.error == 0 && st.format.is_some() {
        while let Some(step) = st.format.as_mut().map(|f| f.next(false)) {
            if matches!(step, Step::Stop) || !st.control(step) {
                break;
            }
        }
    }
    match st.unit {
        Unit::Output => {
            st.line[st.len] = 0;
            memory::print_line(&st.line[..=st.len]);
        }
        Unit::Internal(string) => {
            if st.len < st.record_len {
                string.plus(st.len).fill(b' ', st.record_len - st.len);
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
    #[inline(never)]
    pub(super) fn fail(&mut self, error: i32, message: Message) -> bool {
        if !self.handles_errors {
            terminator::crash(self.site, |m| {
                m.text(message[0]).text(message[1]).text(message[2]);
            });
        }
        if self.error == 0 {
            self.error = error;
            self.message = message;
        }
        false
    }

    /// Ends the current record and starts the next.
    #[inline(never)]
    pub(super) fn advance(&mut self) -> bool {
        match self.unit {
            Unit::Output => {
                self.line[self.len] = 0;
                memory::print_line(&self.line[..=self.len]);
                self.pos = 0;
                self.len = 0;
                true
            }
            Unit::Internal(_) => self.fail(IOSTAT_INTERNAL_WRITE_OVERRUN, [b"Internal write overran available records", b"", b""]),
        }
    }

    /// Writes `text` at the current position (blanks fill a gap a format
    /// left); what does not fit in a string's record is an error, after
    /// what fits is written, and a formatted record of the device's output
    /// continues on the next line.
    #[inline(never)]
    pub(super) fn emit(&mut self, text: &[u8]) -> bool {
        let mut text = text;
        loop {
            if self.pos > self.len {
                let gap = self.pos.min(self.record_len);
                self.put(self.len, gap - self.len.min(gap), None);
                self.len = gap.max(self.len);
            }
            let fits = text.len().min(self.remaining());
            self.put(self.pos, fits, Some(&text[..fits]));
            self.pos += fits;
            self.len = self.len.max(self.pos);
            if fits == text.len() {
                return true;
            }
            if matches!(self.unit, Unit::Internal(_)) || self.format.is_none() {
                return self.fail(IOSTAT_RECORD_WRITE_OVERRUN, [b"Excessive output to fixed-size record", b"", b""]);
            }
            text = &text[fits..];
            self.advance();
        }
    }

    /// `n` copies of `byte`.
    pub(super) fn emit_repeated(&mut self, byte: u8, n: usize) -> bool {
        let chunk = [byte; 16];
        let mut left = n;
        while left > 0 {
            let k = left.min(chunk.len());
            if !self.emit(&chunk[..k]) {
                return false;
            }
            left -= k;
        }
        true
    }

    /// Stores `n` bytes of the record at `at`: `text`, or blanks.
    fn put(&mut self, at: usize, n: usize, text: Option<&[u8]>) {
        for i in 0..n {
            let b = text.map_or(b' ', |t| t[i]);
            match self.unit {
                Unit::Output => self.line[at + i] = b,
                Unit::Internal(string) => string.plus(at + i).store(b),
            }
        }
    }

    /// Carries out a control step of the format; false on an error.
    fn control(&mut self, step: Step) -> bool {
        match step {
            Step::Data(_) | Step::Stop => true,
            Step::Literal { at, len, quote } => {
                let Some(f) = self.format else { return true };
                let mut i = 0;
                while i < len {
                    let b = f.literal_byte(at + i);
                    // A doubled quote stands for one.
                    i += if quote != 0 && b == quote { 2 } else { 1 };
                    if !self.emit(&[b]) {
                        return false;
                    }
                }
                true
            }
            Step::Right(n) => {
                self.pos = (self.pos + n as usize).min(self.record_len);
                true
            }
            Step::Left(n) => {
                self.pos = self.pos.saturating_sub(n as usize);
                true
            }
            Step::Column(n) => {
                self.pos = (n.max(1) as usize - 1).min(self.record_len);
                true
            }
            Step::NextRecord => self.advance(),
            Step::Bad(why) => self.fail(IOSTAT_ERROR_IN_FORMAT, [why, b"", b""]),
        }
    }

    /// The next data edit descriptor of the format, after the control edit
    /// descriptors before it; `None` after an error.
    pub(super) fn next_edit(&mut self) -> Option<DataEdit> {
        loop {
            let step = self.format.as_mut()?.next(true);
            if let Step::Data(edit) = step {
                return Some(edit);
            }
            if !self.control(step) {
                return None;
            }
        }
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
// Items: each to its format's next data edit descriptor ([`edit`]), or
// list-directed.

/// The next data edit descriptor for an item, or `None` for list-directed
/// output; `Err` after an error (the item is skipped).
fn formatted(st: &mut Statement) -> Result<Option<DataEdit>, ()> {
    if st.error != 0 {
        return Err(());
    }
    if st.format.is_none() {
        return Ok(None);
    }
    st.next_edit().map(Some).ok_or(())
}

/// An INTEGER item of `bytes` bytes (its kind).
pub fn integer(st: &mut Statement, value: i128, bytes: usize) -> bool {
    match formatted(st) {
        Err(()) => false,
        Ok(Some(e)) => edit::integer(st, e, value, bytes),
        Ok(None) => {
            let mut text = [0u8; 40];
            let len = integer_text(value, &mut text);
            st.number(&text[..len], Part::Alone)
        }
    }
}

/// `value` in decimal into `out`; its length. 128-bit division is not
/// available on the device, so digits come nine at a time from 32-bit
/// limbs.
#[inline(never)]
pub(super) fn integer_text(value: i128, out: &mut [u8; 40]) -> usize {
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

/// A COMPLEX(4) or COMPLEX(8) item: list-directed `(re,im)`, each part
/// placed as a number; formatted, a data edit descriptor for each part.
pub fn complex(st: &mut Statement, re: u64, im: u64, format: Format) -> bool {
    real_part(st, re, format, Part::Real) && real_part(st, im, format, Part::Imaginary)
}

#[inline(never)]
fn real_part(st: &mut Statement, bits: u64, format: Format, part: Part) -> bool {
    match formatted(st) {
        Err(()) => false,
        Ok(Some(e)) => edit::real(st, e, bits, format),
        Ok(None) => {
            let mut text = [0u8; 40];
            let len = real_text(&mut st.scratch, bits, format, &mut text);
            st.number(&text[..len], part)
        }
    }
}

/// A real's list-directed text (module docs) into `out`; its length.
#[inline(never)]
fn real_text(s: &mut Scratch, bits: u64, format: Format, out: &mut [u8; 40]) -> usize {
    let v = decimal::Real::of(bits, format);
    let mut text = Text { out, len: 0 };
    if v.special == Some(b"NaN") {
        text.push(b"NaN");
        return text.len;
    }
    if v.negative {
        text.push(b"-");
    }
    if let Some(inf) = v.special {
        text.push(inf);
    } else if v.is_zero() {
        text.push(b"0.");
    } else {
        let rounded = decimal::one_digit_exponent(s, v.magnitude, format);
        let d = decimal::shortest(s, v.magnitude, format);
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
    match formatted(st) {
        Err(()) => false,
        Ok(Some(e)) => edit::logical(st, e, truth),
        Ok(None) => st.space_or_advance(1, false) && st.emit(if truth { b"T" } else { b"F" }),
    }
}

/// A CHARACTER item of kind 1, `length` characters at `chars`.
pub fn character(st: &mut Statement, chars: Addr, length: usize) -> bool {
    match formatted(st) {
        Err(()) => false,
        Ok(Some(e)) => edit::character(st, e, chars, length),
        Ok(None) => list_character(st, chars, length),
    }
}

fn list_character(st: &mut Statement, chars: Addr, length: usize) -> bool {
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
            ok = ok && st.emit(&[b]);
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
        unsupported_item(b"_FortranAioOutputDescriptor", b"PRINT/WRITE of a derived-type item")
    };
    let mut walk = Walk::new(d);
    for _ in 0..d.elements() {
        if !element(st, d.base().offset(walk.offset()), category, kind, d.elem_len()) {
            return false;
        }
        walk.advance();
    }
    true
}

/// The element at `at` of an intrinsic type (`elem_len`: a character
/// value's length).
fn element(st: &mut Statement, at: Addr, category: TypeCategory, kind: i32, elem_len: usize) -> bool {
    match (category, kind) {
        (TypeCategory::Integer, 1) => integer(st, at.load::<i8>().into(), 1),
        (TypeCategory::Integer, 2) => integer(st, at.load::<i16>().into(), 2),
        (TypeCategory::Integer, 4) => integer(st, at.load::<i32>().into(), 4),
        (TypeCategory::Integer, 8) => integer(st, at.load::<i64>().into(), 8),
        (TypeCategory::Integer, 16) => integer(st, (at.plus(8).load::<i64>() as i128) << 64 | at.load::<u64>() as i128, 16),
        (TypeCategory::Unsigned, 1) => integer(st, at.load::<u8>().into(), 1),
        (TypeCategory::Unsigned, 2) => integer(st, at.load::<u16>().into(), 2),
        (TypeCategory::Unsigned, 4) => integer(st, at.load::<u32>().into(), 4),
        (TypeCategory::Unsigned, 8) => integer(st, at.load::<u64>().into(), 8),
        (TypeCategory::Real, 4) => real(st, at.load::<u32>().into(), Format::Single),
        (TypeCategory::Real, 8) => real(st, at.load::<u64>(), Format::Double),
        (TypeCategory::Complex, 4) => complex(st, at.load::<u32>().into(), at.plus(4).load::<u32>().into(), Format::Single),
        (TypeCategory::Complex, 8) => complex(st, at.load::<u64>(), at.plus(8).load::<u64>(), Format::Double),
        (TypeCategory::Logical, 1) => logical(st, at.load::<u8>() != 0),
        (TypeCategory::Logical, 2) => logical(st, at.load::<u16>() != 0),
        (TypeCategory::Logical, 4) => logical(st, at.load::<u32>() != 0),
        (TypeCategory::Logical, 8) => logical(st, at.load::<u64>() != 0),
        (TypeCategory::Character, 1) => character(st, at, elem_len),
        (TypeCategory::Character, _) => unsupported_item(b"_FortranAioOutputDescriptor", b"PRINT/WRITE of CHARACTER of kind 2 or 4"),
        (TypeCategory::Real | TypeCategory::Complex, _) => {
            unsupported_item(b"_FortranAioOutputDescriptor", b"PRINT/WRITE of REAL or COMPLEX of kind 2, 3, 10 or 16")
        }
        _ => unsupported_item(b"_FortranAioOutputDescriptor", b"PRINT/WRITE of a derived-type item"),
    }
}

/// Derived types nested inside an item that output walks into.
const NESTING: usize = 8;

/// An item of derived type (`_FortranAioOutputDerivedType`), without
/// defined I/O: each element's components in order (the parent's first),
/// nested derived types walked into, as flang-rt writes them. A work list,
/// not recursion, keeps the call graph free of cycles (nvlink then bounds
/// the kernel's stack).
pub fn derived(st: &mut Statement, d: Desc, defined_io: bool) -> bool {
    let Some(t) = d.derived_type() else {
        unsupported_item(b"_FortranAioOutputDerivedType", b"PRINT/WRITE of an unlimited polymorphic item")
    };
    if defined_io || t.special(special_binding::WRITE_FORMATTED).is_some() {
        unsupported_item(b"_FortranAioOutputDerivedType", b"defined output (WRITE(FORMATTED)) of a derived type");
    }
    let mut walk = Walk::new(d);
    for _ in 0..d.elements() {
        if !instance(st, t, d.base().offset(walk.offset()), d) {
            return false;
        }
        walk.advance();
    }
    true
}

/// Where output stands in one instance of a derived type: the component
/// and that component's element.
#[derive(Clone, Copy)]
struct Place {
    ty: TypeInfo,
    at: Addr,
    component: usize,
    element: usize,
}

/// The components of the instance of `t` at `at` (`outer` gives the LEN
/// parameters of the outermost one).
#[inline(never)]
fn instance(st: &mut Statement, t: TypeInfo, at: Addr, outer: Desc) -> bool {
    let mut stack = [Place { ty: t, at, component: 0, element: 0 }; NESTING];
    let mut depth = 1;
    while depth > 0 {
        let place = stack[depth - 1];
        let Some(c) = place.ty.components().nth(place.component) else {
            depth -= 1;
            continue;
        };
        let lengths = if depth == 1 { Some(outer) } else { None };
        if c.genre() != component_genre::DATA {
            unsupported_item(b"_FortranAioOutputDerivedType", b"PRINT/WRITE of a derived type with an allocatable or pointer component");
        }
        if place.element >= c.elements(lengths) {
            stack[depth - 1] = Place { component: place.component + 1, element: 0, ..place };
            continue;
        }
        stack[depth - 1].element += 1;
        let bytes = c.element_bytes(lengths);
        let at = place.at.plus(c.offset() + place.element * bytes);
        match (c.category(), c.derived_type()) {
            (Some(TypeCategory::Derived), Some(inner)) => {
                if depth == NESTING {
                    unsupported_item(b"_FortranAioOutputDerivedType", b"PRINT/WRITE of derived types nested more than 8 deep");
                }
                stack[depth] = Place { ty: inner, at, component: 0, element: 0 };
                depth += 1;
            }
            (Some(category), None) => {
                if !element(st, at, category, c.kind() as i32, bytes) {
                    return false;
                }
            }
            _ => unsupported_item(b"_FortranAioOutputDerivedType", b"PRINT/WRITE of an unlimited polymorphic component"),
        }
    }
    true
}

#[cold]
fn unsupported_item(entry: &[u8], what: &[u8]) -> ! {
    terminator::unsupported(entry, what)
}
