//! `SELECTED_INT_KIND`, `SELECTED_REAL_KIND` and `SELECTED_LOGICAL_KIND`
//! with arguments flang cannot fold (flang-rt's `numeric.cpp`).
//!
//! The answers are the ones flang 22 folds for constant arguments in device
//! code, from the kinds it enables for nvptx: INTEGER 1, 2, 4, 8 and 16;
//! REAL 2 (IEEE half), 3 (bfloat16), 4 and 8, without 10 or 16 (the
//! device's `long double` is `double`): `selected_real_kind(16)` is -1
//! on the device, 10 on an x86 host. The sim test
//! `selected_kinds_agree_with_flangs_folding_for_the_device` holds the
//! values flang folds.

use super::memory::Addr;
use super::terminator::{self, Site};

/// An optional integer argument of kind `kind` at `at` (flang passes the
/// address and the kind), or `absent` when `at` is null. INTEGER(16) is
/// read as its two 64-bit halves and saturated to `i64`.
pub fn int_argument(at: Addr, kind: i32, absent: i64, site: Site) -> i64 {
    if at.is_null() {
        return absent;
    }
    match kind {
        1 => at.load::<i8>().into(),
        2 => at.load::<i16>().into(),
        4 => at.load::<i32>().into(),
        8 => at.load::<i64>(),
        16 => {
            let low = at.load::<u64>();
            let high = at.plus(8).load::<i64>();
            let value = (i128::from(high) << 64) | i128::from(low);
            value.clamp(i64::MIN.into(), i64::MAX.into()) as i64
        }
        _ => terminator::crash(site, |m| {
            m.text(b"Unexpected integer kind in runtime: ").int(kind.into());
        }),
    }
}

/// `SELECTED_INT_KIND(r)`: the smallest kind whose range reaches `10**r`,
/// -1 for none.
pub fn selected_int_kind(r: i64) -> i32 {
    match r {
        ..=2 => 1,
        3..=4 => 2,
        5..=9 => 4,
        10..=18 => 8,
        19..=38 => 16,
        _ => -1,
    }
}

/// `SELECTED_LOGICAL_KIND(bits)`: the smallest LOGICAL kind of at least
/// `bits` bits, -1 for none.
pub fn selected_logical_kind(bits: i64) -> i32 {
    match bits {
        ..=8 => 1,
        9..=16 => 2,
        17..=32 => 4,
        33..=64 => 8,
        _ => -1,
    }
}

/// `SELECTED_REAL_KIND(p, r, radix)` (0, 0 and 2 when absent): the kind
/// with at least `p` decimal digits and a range of at least `r`, as
/// flang-rt chooses it; -1 when no kind has the precision, -2 none the
/// range, -3 neither, -5 a radix other than 2.
pub fn selected_real_kind(p: i64, r: i64, radix: i64) -> i32 {
    if radix != 2 {
        return -5;
    }
    let mut error = 0;
    let by_precision = match p {
        ..=3 => 2,
        4..=6 => 4,
        7..=15 => 8,
        _ => {
            error -= 1;
            0
        }
    };
    let kind = match r {
        ..=4 => by_precision.max(2),
        // bfloat16 has the range of REAL(4) and 2 digits: where 3 digits
        // are asked for, REAL(4).
        5..=37 if by_precision < 3 => {
            if p == 3 {
                4
            } else {
                3
            }
        }
        5..=37 => by_precision,
        38..=307 => by_precision.max(8),
        _ => {
            error -= 2;
            by_precision
        }
    };
    if error != 0 { error } else { kind }
}
