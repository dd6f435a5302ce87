//! `strtol`, `strtoll`, `strtoul`, `strtoull`, `atoi`, `atol` and `atoll`
//! as C defines them: leading white space, a sign, a base from 2 to 36
//! (0: `0x` for 16, `0` for 8, else 10; 16 takes an optional `0x`), the
//! longest run of digits; out-of-range values clamp to the type's limits.
//! The device has no `errno`, so `ERANGE` and `EINVAL` are not reported.
//! Reads through a raw pointer as C does: the caller vouches for the
//! string.
#![allow(unsafe_code)]

/// What [`parse`] read: the magnitude (saturated at `u64::MAX`, with
/// `overflowed`), the sign, and how many bytes it consumed (0 when it
/// found no number: the end pointer is the string itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub magnitude: u64,
    pub overflowed: bool,
    pub negative: bool,
    pub consumed: usize,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

fn digit_value(b: u8) -> Option<u32> {
    match b {
        b'0'..=b'9' => Some(u32::from(b - b'0')),
        b'a'..=b'z' => Some(u32::from(b - b'a') + 10),
        b'A'..=b'Z' => Some(u32::from(b - b'A') + 10),
        _ => None,
    }
}

/// Reads an integer in `base` from the NUL-terminated `s`.
///
/// # Safety
/// `s` is NUL-terminated.
pub unsafe fn parse(s: *const u8, base: i32) -> Parsed {
    let none = Parsed { magnitude: 0, overflowed: false, negative: false, consumed: 0 };
    if base != 0 && !(2..=36).contains(&base) {
        return none;
    }
    // SAFETY: every read below stops at the first byte that cannot
    // continue the number, the NUL included.
    let at = |i: usize| unsafe { *s.add(i) };
    let mut i = 0;
    while is_space(at(i)) {
        i += 1;
    }
    let negative = at(i) == b'-';
    if matches!(at(i), b'+' | b'-') {
        i += 1;
    }
    let mut base = base as u32;
    let hex_prefix = at(i) == b'0' && matches!(at(i + 1), b'x' | b'X') && digit_value(at(i + 2)).is_some_and(|d| d < 16);
    if (base == 0 || base == 16) && hex_prefix {
        base = 16;
        i += 2;
    } else if base == 0 {
        base = if at(i) == b'0' { 8 } else { 10 };
    }
    let first_digit = i;
    let (mut magnitude, mut overflowed) = (0u64, false);
    while let Some(d) = digit_value(at(i)).filter(|&d| d < base) {
        match magnitude.checked_mul(u64::from(base)).and_then(|m| m.checked_add(u64::from(d))) {
            Some(m) => magnitude = m,
            None => {
                overflowed = true;
                magnitude = u64::MAX;
            }
        }
        i += 1;
    }
    if i == first_digit {
        return none;
    }
    Parsed { magnitude, overflowed, negative, consumed: i }
}

/// The signed value of `p` in 64 bits, clamped to `i64::MIN..=i64::MAX`.
pub fn signed(p: Parsed) -> i64 {
    if p.negative {
        if p.overflowed || p.magnitude > 1 << 63 { i64::MIN } else { (p.magnitude as i64).wrapping_neg() }
    } else if p.overflowed || p.magnitude > i64::MAX as u64 {
        i64::MAX
    } else {
        p.magnitude as i64
    }
}

/// The unsigned value of `p` in 64 bits: `u64::MAX` when out of range, a
/// negative number negated in unsigned arithmetic, as C's `strtoul`.
pub fn unsigned(p: Parsed) -> u64 {
    if p.overflowed {
        u64::MAX
    } else if p.negative {
        p.magnitude.wrapping_neg()
    } else {
        p.magnitude
    }
}
