//! `CPU_TIME`, `SYSTEM_CLOCK` and `DATE_AND_TIME` in target regions
//! (flang-rt's `time-intrinsic.cpp`).
//!
//! The device's clock is the GPU's global nanosecond timer, the one
//! `omp_get_wtime` reads: one clock for every thread of the device, so
//! differences of readings time a region. A GPU thread has no processor
//! time of its own to report, so `CPU_TIME` is that clock in seconds too.
//! The device knows no date, time zone or calendar: `DATE_AND_TIME` reports
//! them unavailable, as the standard specifies (blanks, `-HUGE`).

use super::descriptor::Desc;
use super::memory::Addr;
use super::reduction::store_integer;
use super::terminator::{self, Site};
use crate::arch;
use omprt_abi::fortran::{TypeCategory, category_and_kind};

/// `CPU_TIME`: seconds of the device's clock.
pub fn cpu_time() -> f64 {
    arch::global_timer_ns() as f64 * 1e-9
}

/// `HUGE(0)` of an INTEGER kind (kinds above 8 count as 8, as flang-rt's
/// counts are 64-bit).
fn huge(kind: i32) -> u64 {
    let bits = 8 * kind.clamp(1, 8) as u32;
    (1u64 << (bits - 1)) - 1
}

/// `SYSTEM_CLOCK`'s `COUNT_RATE` for a `COUNT` of `kind`, as flang-rt
/// chooses it: nanoseconds for kinds 8 and 16, milliseconds for 2 and 4,
/// deciseconds for 1.
pub fn clock_rate(kind: i32) -> i64 {
    match kind {
        8.. => 1_000_000_000,
        2..=7 => 1_000,
        _ => 10,
    }
}

/// `SYSTEM_CLOCK`'s `COUNT_MAX`: `HUGE` of the kind.
pub fn clock_max(kind: i32) -> i64 {
    huge(kind) as i64
}

/// `SYSTEM_CLOCK`'s `COUNT` at `ns` nanoseconds of the clock: in units of
/// [`clock_rate`], wrapping to 0 after [`clock_max`].
pub fn clock_count(kind: i32, ns: u64) -> i64 {
    let ticks = ns / (1_000_000_000 / clock_rate(kind) as u64);
    (ticks % (huge(kind) + 1)) as i64
}

/// `SYSTEM_CLOCK`'s `COUNT` now.
pub fn clock_count_now(kind: i32) -> i64 {
    clock_count(kind, arch::global_timer_ns())
}

/// `DATE_AND_TIME(DATE, TIME, ZONE, VALUES)` where no date is known: each
/// present string (null when absent) is blank, and each of the eight
/// elements of `VALUES` is `-HUGE` of its kind. `VALUES` must be a rank-1
/// INTEGER array of at least 8 elements and a kind other than 1.
pub fn date_and_time_unavailable(strings: [(Addr, usize); 3], values: Option<Desc>, site: Site) {
    for (at, length) in strings {
        if !at.is_null() {
            at.fill(b' ', length);
        }
    }
    let Some(values) = values else { return };
    let kind = match category_and_kind(values.type_code()) {
        Some((TypeCategory::Integer, kind @ (2 | 4 | 8 | 16))) if values.rank() == 1 && values.extent(0) >= 8 => kind,
        _ => terminator::crash(site, |m| {
            m.text(b"DATE_AND_TIME: VALUES must be a rank-1 INTEGER array of kind 2, 4, 8 or 16 with at least 8 elements");
        }),
    };
    let stride = values.byte_stride(0);
    for i in 0..8 {
        let at = values.base().offset(i * stride);
        if kind == 16 {
            // -HUGE of INTEGER(16), -(2**127 - 1), in two's complement.
            at.store(1u64);
            at.plus(8).store(i64::MIN);
        } else {
            store_integer(at, kind as usize, -(huge(kind) as i64));
        }
    }
}
