//! Character intrinsics flang calls its runtime for (flang-rt's
//! `character.cpp`): `TRIM`, `REPEAT`, `ADJUSTL`, `ADJUSTR`, `INDEX`, `SCAN`,
//! `VERIFY` and the comparison of character scalars, with Fortran's
//! conventions: lengths in characters, no terminating NUL, the shorter
//! operand of a comparison blank-padded, positions 1-based (0: none).

use super::descriptor::{Desc, Walk};
use super::memory::Addr;
use super::terminator::{self, Site};
use omprt_abi::fortran::{attribute, type_code};

/// A character string: `len` characters of `bytes` bytes each (the kind).
#[derive(Clone, Copy, Debug)]
pub struct Chars {
    pub at: Addr,
    pub len: usize,
    pub bytes: usize,
}

impl Chars {
    pub fn kind1(at: Addr, len: usize) -> Chars {
        Chars { at, len, bytes: 1 }
    }
    /// `len` characters of `bytes` bytes each (kind 1, 2 or 4).
    pub fn of_kind(at: Addr, len: usize, bytes: usize) -> Chars {
        Chars { at, len, bytes }
    }
    /// Character `i` (zero-based) as a code point.
    pub fn get(self, i: usize) -> u32 {
        let a = self.at.plus(i * self.bytes);
        match self.bytes {
            2 => u32::from(a.load::<u16>()),
            4 => a.load::<u32>(),
            _ => u32::from(a.load::<u8>()),
        }
    }
    fn set(self, i: usize, c: u32) {
        let a = self.at.plus(i * self.bytes);
        match self.bytes {
            2 => a.store(c as u16),
            4 => a.store(c),
            _ => a.store(c as u8),
        }
    }
}

const BLANK: u32 = b' ' as u32;

/// The kind (bytes per character) of a character descriptor's type.
pub fn kind_of(d: Desc, name: &[u8], site: Site) -> usize {
    match d.type_code() {
        type_code::CHAR | type_code::SIGNED_CHAR => 1,
        type_code::CHAR16 => 2,
        type_code::CHAR32 => 4,
        _ => terminator::crash(site, |m| {
            m.text(name).text(b": argument is not CHARACTER (type code ").int(d.type_code().into()).text(b")");
        }),
    }
}

/// `LEN_TRIM`: the length without trailing blanks.
pub fn len_trim(s: Chars) -> usize {
    let mut n = s.len;
    while n > 0 && s.get(n - 1) == BLANK {
        n -= 1;
    }
    n
}

/// `_FortranATrim`: `result` becomes an allocated scalar of `string` (a
/// scalar) without its trailing blanks.
pub fn trim(result: Desc, string: Desc, site: Site) {
    let bytes = kind_of(string, b"TRIM", site);
    let s = Chars { at: string.base(), len: string.elem_len() / bytes, bytes };
    let keep = len_trim(s) * bytes;
    result.establish(string.type_code(), keep, Addr::NULL, 0, None, attribute::ALLOCATABLE, false);
    if result.allocate().is_err() {
        terminator::crash_with(site, b"TRIM: could not allocate storage for result");
    }
    result.base().copy_from(string.base(), keep);
}

/// `_FortranARepeat`: `result` becomes an allocated scalar of `ncopies`
/// copies of `string` (a scalar) one after another.
pub fn repeat(result: Desc, string: Desc, ncopies: i64, site: Site) {
    if ncopies < 0 {
        terminator::crash(site, |m| {
            m.text(b"REPEAT has negative NCOPIES=").int(ncopies);
        });
    }
    let bytes = string.elem_len();
    let copies = ncopies as usize;
    let Some(total) = bytes.checked_mul(copies) else {
        terminator::crash_with(site, b"REPEAT could not allocate storage for result");
    };
    result.establish(string.type_code(), total, Addr::NULL, 0, None, attribute::ALLOCATABLE, false);
    if result.allocate().is_err() {
        terminator::crash_with(site, b"REPEAT could not allocate storage for result");
    }
    for k in 0..copies {
        result.base().plus(k * bytes).copy_from(string.base(), bytes);
    }
}

/// `_FortranAAdjustl` (`right` false) and `_FortranAAdjustr`: `result`
/// becomes an allocated array of the shape of `string`, each element's
/// leading (trailing) blanks moved to its other end.
pub fn adjust(result: Desc, string: Desc, right: bool, site: Site) {
    let bytes = kind_of(string, if right { b"ADJUSTR" } else { b"ADJUSTL" }, site);
    let rank = string.rank();
    let mut extents = [0i64; omprt_abi::fortran::MAX_RANK];
    for (j, e) in extents.iter_mut().enumerate().take(rank) {
        *e = string.extent(j);
    }
    let elem = string.elem_len();
    result.establish(string.type_code(), elem, Addr::NULL, rank, Some(&extents[..rank]), attribute::ALLOCATABLE, false);
    if result.allocate().is_err() {
        terminator::crash_with(site, b"ADJUSTL/R: could not allocate storage for result");
    }
    let chars = elem / bytes;
    let mut walk = Walk::new(string);
    for n in 0..string.elements() {
        let from = Chars { at: string.base().offset(walk.offset()), len: chars, bytes };
        adjust_one(from, Chars { at: result.base().plus(n * elem), len: chars, bytes }, right);
        walk.advance();
    }
}

/// `to` becomes `from` with its leading (trailing, `right`) blanks moved to
/// its other end. A function of its own, so that `adjust`'s loop keeps few
/// values across its calls (see "Registers" in [`super`]).
#[inline(never)]
fn adjust_one(from: Chars, to: Chars, right: bool) {
    let chars = from.len;
    if right {
        let mut j = len_trim(from);
        let mut k = chars;
        while j > 0 {
            to.set(k - 1, from.get(j - 1));
            j -= 1;
            k -= 1;
        }
        while k > 0 {
            to.set(k - 1, BLANK);
            k -= 1;
        }
    } else {
        let mut j = 0;
        while j < chars && from.get(j) == BLANK {
            j += 1;
        }
        let mut k = 0;
        while j < chars {
            to.set(k, from.get(j));
            j += 1;
            k += 1;
        }
        while k < chars {
            to.set(k, BLANK);
            k += 1;
        }
    }
}

/// `INDEX(string, substring, back)`: the first (last) position where
/// `want` starts in `x`; a zero-length `want` is found at 1 (`LEN + 1`).
pub fn index(x: Chars, want: Chars, back: bool) -> usize {
    if x.len < want.len {
        return 0;
    }
    let matches = |at: usize| (0..want.len).all(|j| x.get(at + j) == want.get(j));
    let last = x.len - want.len;
    if back { (0..=last).rev().find(|&at| matches(at)).map_or(0, |at| at + 1) } else { (0..=last).find(|&at| matches(at)).map_or(0, |at| at + 1) }
}

/// `SCAN` (`verify` false: the first, or last, character of `x` in `set`)
/// and `VERIFY` (`verify` true: the first, or last, not in `set`).
pub fn scan_verify(x: Chars, set: Chars, back: bool, verify: bool) -> usize {
    let in_set = |c: u32| (0..set.len).any(|j| set.get(j) == c);
    let hit = |i: &usize| in_set(x.get(*i)) != verify;
    let found = if back { (0..x.len).rev().find(hit) } else { (0..x.len).find(hit) };
    found.map_or(0, |i| i + 1)
}

/// The comparison of `x` and `y` (-1, 0, 1), the shorter blank-padded,
/// characters compared as unsigned codes.
pub fn compare(x: Chars, y: Chars) -> i32 {
    let common = x.len.min(y.len);
    for i in 0..common {
        let (a, b) = (x.get(i), y.get(i));
        if a != b {
            return if a < b { -1 } else { 1 };
        }
    }
    let against_blanks = |s: Chars| {
        for i in common..s.len {
            let c = s.get(i);
            if c != BLANK {
                return if c < BLANK { -1 } else { 1 };
            }
        }
        0
    };
    match against_blanks(x) {
        0 => -against_blanks(y),
        c => c,
    }
}
