//! `RANDOM_NUMBER` (`_FortranARandomNumber`): uniform pseudorandom numbers
//! in [0, 1) from one generator per device, shared by every thread.
//!
//! flang-rt's generator (a `minstd_rand` behind a lock) would serialize a
//! GPU's threads; here a call takes a block of the device-wide sequence
//! with one atomic add and computes its numbers independently: number `n`
//! of the sequence is SplitMix64 of `n`, its leading 24 (REAL(4)) or 53
//! (REAL(8)) bits scaled by 2**-24 (2**-53). The sequence starts afresh with
//! each load of the program's device image, as flang-rt's starts from a
//! fixed seed; it differs from the host's.
//!
//! `RANDOM_SEED` and `RANDOM_INIT` move the position in the sequence: the
//! seed is that 64-bit position as two integers, its low and its high 32
//! bits, so `GET=` then `PUT=` returns to the same numbers. A seed of the
//! user's picks the position its two words make; no arguments, or
//! `RANDOM_INIT(REPEATABLE=.TRUE.)`, return to the start, as flang-rt
//! seeds its generator with 0; `RANDOM_INIT(.FALSE., ...)` picks a position
//! from the device's clock.

use super::descriptor::{Desc, Walk};
use super::reduction::{load_integer, store_integer};
use super::terminator::{self, Site};
use crate::arch;
use core::sync::atomic::{AtomicU64, Ordering};
use omprt_abi::fortran::{TypeCategory, category_and_kind, type_code};

/// Numbers of the sequence taken so far: device memory, one per device.
#[allow(unsafe_code, reason = "the section only marks the static for the IR rewrite (device memory)")]
#[cfg_attr(target_arch = "nvptx64", unsafe(link_section = ".omprt.device_global"))]
static TAKEN: AtomicU64 = AtomicU64::new(0);

/// SplitMix64's output number `n` (its state after `n + 1` steps).
pub fn mix(n: u64) -> u64 {
    let mut z = n.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Fills `harvest` (REAL(4) or REAL(8), any rank) in array element order.
pub fn random_number(harvest: Desc, site: Site) {
    let n = harvest.elements();
    let first = TAKEN.fetch_add(n as u64, Ordering::Relaxed);
    let mut walk = Walk::new(harvest);
    match harvest.type_code() {
        type_code::FLOAT => {
            for i in 0..n {
                let bits = mix(first.wrapping_add(i as u64)) >> 40;
                harvest.base().offset(walk.offset()).store(bits as f32 * (1.0 / 16_777_216.0));
                walk.advance();
            }
        }
        type_code::DOUBLE => {
            for i in 0..n {
                let bits = mix(first.wrapping_add(i as u64)) >> 11;
                harvest.base().offset(walk.offset()).store(bits as f64 * (1.0 / 9_007_199_254_740_992.0));
                walk.advance();
            }
        }
        code => terminator::crash(site, |m| {
            m.text(b"RANDOM_NUMBER: HARVEST of type code ").int(code.into()).text(b" (only REAL(4) and REAL(8) on the device)");
        }),
    }
}

/// The number of integers in a seed (`RANDOM_SEED(SIZE=)`).
pub const SEED_SIZE: i64 = 2;

/// An argument of `RANDOM_SEED` that is present: flang passes null, or a
/// descriptor without data, for an absent one.
fn present(d: Option<Desc>) -> Option<Desc> {
    d.filter(|d| !d.base().is_null())
}

/// The INTEGER kind of `d`, which must be of rank `rank`, of kind 4 or 8,
/// and (for an array) of at least [`SEED_SIZE`] elements.
fn seed_argument_kind(d: Desc, rank: usize, what: &[u8], site: Site) -> usize {
    match category_and_kind(d.type_code()) {
        Some((TypeCategory::Integer, kind @ (4 | 8))) if d.rank() == rank && (rank == 0 || d.extent(0) >= SEED_SIZE) => kind as usize,
        _ => terminator::crash(site, |m| {
            m.text(b"RANDOM_SEED(").text(what).text(b"=): ");
            if rank == 0 {
                m.text(b"an INTEGER(4) or INTEGER(8) scalar");
            } else {
                m.text(b"an INTEGER(4) or INTEGER(8) array of at least ").int(SEED_SIZE).text(b" elements");
            }
            m.text(b" is expected");
        }),
    }
}

/// `RANDOM_SEED(SIZE=size)`.
pub fn seed_size(size: Option<Desc>, site: Site) {
    let Some(size) = present(size) else { return seed_default() };
    let kind = seed_argument_kind(size, 0, b"SIZE", site);
    store_integer(size.base(), kind, SEED_SIZE);
}

/// `RANDOM_SEED(PUT=put)`: the position its first two elements make.
pub fn seed_put(put: Option<Desc>, site: Site) {
    let Some(put) = present(put) else { return seed_default() };
    let kind = seed_argument_kind(put, 1, b"PUT", site);
    let word = |j: i64| load_integer(put.base().offset(j * put.byte_stride(0)), kind) as u32;
    TAKEN.store(u64::from(word(0)) | (u64::from(word(1)) << 32), Ordering::Relaxed);
}

/// `RANDOM_SEED(GET=get)`: the position now, low 32 bits first, each
/// word as the bits of an INTEGER(4) or, in an INTEGER(8) array, as a
/// nonnegative value; further elements are 0.
pub fn seed_get(get: Option<Desc>, site: Site) {
    let Some(get) = present(get) else { return seed_default() };
    let kind = seed_argument_kind(get, 1, b"GET", site);
    let position = TAKEN.load(Ordering::Relaxed);
    for j in 0..get.extent(0) {
        let word = match j {
            0 => position as u32,
            1 => (position >> 32) as u32,
            _ => 0,
        };
        let value = if kind == 4 { i64::from(word as i32) } else { i64::from(word) };
        store_integer(get.base().offset(j * get.byte_stride(0)), kind, value);
    }
}

/// `RANDOM_SEED()` without arguments: back to the start of the sequence.
pub fn seed_default() {
    TAKEN.store(0, Ordering::Relaxed);
}

/// `RANDOM_SEED(SIZE, PUT, GET)` where flang cannot tell which is present:
/// at most one may be.
pub fn seed(size: Option<Desc>, put: Option<Desc>, get: Option<Desc>, site: Site) {
    match (present(size), present(put), present(get)) {
        (Some(_), None, None) => seed_size(size, site),
        (None, Some(_), None) => seed_put(put, site),
        (None, None, Some(_)) => seed_get(get, site),
        (None, None, None) => seed_default(),
        _ => terminator::crash_with(site, b"RANDOM_SEED must have either 1 or no arguments"),
    }
}

/// `RANDOM_INIT(REPEATABLE, IMAGE_DISTINCT)`: the start of the sequence, or
/// a position from the device's clock (one image: `IMAGE_DISTINCT` changes
/// nothing).
pub fn init(repeatable: bool) {
    TAKEN.store(if repeatable { 0 } else { mix(arch::global_timer_ns()) }, Ordering::Relaxed);
}
