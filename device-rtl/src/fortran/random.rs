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

use super::descriptor::{Desc, Walk};
use super::terminator::{self, Site};
use core::sync::atomic::{AtomicU64, Ordering};
use omprt_abi::fortran::type_code;

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
