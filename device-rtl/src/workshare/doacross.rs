//! Doacross loops (`ordered(n)` with `depend(sink:)`/`depend(source)`):
//! `__kmpc_doacross_{init,wait,post,fini}`.
//!
//! The team shares one heap block per loop: the loop's dimensions, then a
//! bit per iteration of the collapsed nest, set by `post` and awaited by
//! `wait`. Thread 0 of the team makes it in `init` and frees it in `fini`,
//! each behind a team barrier. A team of one runs its iterations in order,
//! so there every dependence is already met and nothing is allocated.
#![allow(unsafe_code)]

use crate::execution::mapping;
use crate::{arch, debug, memory, sync};
use core::sync::atomic::{AtomicU32, Ordering};

/// clang's `struct kmp_dim { i64 lo, up, st; }`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Dim {
    pub lo: i64,
    pub up: i64,
    pub st: i64,
}

/// The head of the shared block; `dims` dimensions and the bits follow.
#[repr(C)]
struct Header {
    dims: u64,
}

impl Dim {
    /// Iterations of this dimension (0 for an empty one).
    pub fn range(&self) -> u64 {
        let span = if self.st > 0 { self.up.wrapping_sub(self.lo) } else { self.lo.wrapping_sub(self.up) };
        if span < 0 || self.st == 0 { 0 } else { span as u64 / self.st.unsigned_abs() + 1 }
    }

    /// The position of `v` in this dimension, if it is one of its iterations.
    pub fn index(&self, v: i64) -> Option<u64> {
        let off = v.wrapping_sub(self.lo);
        // Wrapping: `i64::MIN / -1` overflows, and a checked operation would
        // leave a call of Rust's panic code in the kernel.
        if self.st == 0 || off.wrapping_rem(self.st) != 0 {
            return None;
        }
        let k = off.wrapping_div(self.st);
        (k >= 0 && (k as u64) < self.range()).then_some(k as u64)
    }
}

/// The linear iteration number of `vec` in the collapsed nest.
pub fn linear(dims: &[Dim], vec: &[i64]) -> Option<u64> {
    let mut index = 0u64;
    for (d, &v) in dims.iter().zip(vec) {
        index = index.checked_mul(d.range())?.checked_add(d.index(v)?)?;
    }
    Some(index)
}

/// The team's doacross block, null outside such loops: a static of its own
/// ([`TEAM_DOACROSS`]), so that only modules with doacross loops reserve it.
pub struct TeamDoacross(pub core::sync::atomic::AtomicPtr<u8>);

impl TeamDoacross {
    pub const fn new() -> Self {
        TeamDoacross(core::sync::atomic::AtomicPtr::new(core::ptr::null_mut()))
    }
}

impl Default for TeamDoacross {
    fn default() -> Self {
        Self::new()
    }
}

arch::team_static! {
    static TEAM_DOACROSS: TeamDoacross = TeamDoacross::new();
}

fn team_of_one() -> bool {
    mapping::omp_num_threads() == 1
}

fn block() -> *mut Header {
    TEAM_DOACROSS.get().0.load(Ordering::Acquire).cast()
}

/// The dimensions and the bits of a block.
///
/// # Safety
/// `h` is a live block made by [`init`].
unsafe fn parts<'a>(h: *mut Header) -> (&'a [Dim], *const AtomicU32) {
    // SAFETY: per the function contract, the dims follow the header and
    // the bit words follow the dims.
    unsafe {
        let n = (*h).dims as usize;
        let dims = h.add(1).cast::<Dim>();
        (core::slice::from_raw_parts(dims, n), dims.add(n).cast::<AtomicU32>())
    }
}

/// `__kmpc_doacross_init`.
///
/// # Safety
/// `dims` points to `num_dims` of clang's `kmp_dim`.
pub unsafe fn init(num_dims: i32, dims: *const Dim) {
    if team_of_one() {
        return;
    }
    if mapping::omp_thread_num() == 0 {
        // SAFETY: per the function contract.
        let dims = unsafe { core::slice::from_raw_parts(dims, num_dims.max(0) as usize) };
        let Some(total) = dims.iter().try_fold(1u64, |acc, d| acc.checked_mul(d.range())) else {
            debug::fatal(debug::message!("doacross loop nest too large: __kmpc_doacross_init"))
        };
        let words = total.div_ceil(32);
        let bytes = core::mem::size_of::<Header>() as u64 + core::mem::size_of_val(dims) as u64 + words * 4;
        let h = memory::heap_alloc(bytes, memory::heap::exhausted::DOACROSS).cast::<Header>();
        // SAFETY: a fresh allocation of `bytes` bytes.
        unsafe {
            h.write(Header { dims: dims.len() as u64 });
            core::ptr::copy_nonoverlapping(dims.as_ptr(), h.add(1).cast::<Dim>(), dims.len());
            core::ptr::write_bytes(h.add(1).cast::<Dim>().add(dims.len()).cast::<u32>(), 0, words as usize);
        }
        arch::fence_block();
        TEAM_DOACROSS.get().0.store(h.cast(), Ordering::Release);
    }
    sync::team_barrier();
}

/// The word and bit of iteration `vec`; `None` in a team of one (which
/// needs no bookkeeping) and for a vector outside the iteration space.
///
/// # Safety
/// `vec` holds one value per dimension of the loop `init` set up.
unsafe fn iteration_bit(vec: *const i64) -> Option<(&'static AtomicU32, u32)> {
    if team_of_one() {
        return None;
    }
    // SAFETY: `init` made the block; `vec` per the function contract.
    let (dims, bits) = unsafe { parts(block()) };
    let vec = unsafe { core::slice::from_raw_parts(vec, dims.len()) };
    let i = linear(dims, vec)?;
    // SAFETY: `i` is below the number of bits, and the block lives until `fini`.
    Some((unsafe { &*bits.add((i / 32) as usize) }, 1 << (i % 32)))
}

/// `__kmpc_doacross_wait`: waits until iteration `vec` has posted; returns
/// at once for a vector outside the iteration space.
///
/// # Safety
/// As for [`iteration_bit`].
pub unsafe fn wait(vec: *const i64) {
    // SAFETY: forwarded from the caller.
    let Some((word, bit)) = (unsafe { iteration_bit(vec) }) else { return };
    while word.load(Ordering::Acquire) & bit == 0 {
        arch::spin_pause();
    }
    arch::fence_device();
}

/// `__kmpc_doacross_post`: marks iteration `vec` as done.
///
/// # Safety
/// As for [`iteration_bit`].
pub unsafe fn post(vec: *const i64) {
    // SAFETY: forwarded from the caller.
    let Some((word, bit)) = (unsafe { iteration_bit(vec) }) else { return };
    arch::fence_device();
    word.fetch_or(bit, Ordering::Release);
}

/// `__kmpc_doacross_fini`: the team is done with the block.
pub fn fini() {
    if team_of_one() {
        return;
    }
    sync::team_barrier();
    if mapping::omp_thread_num() == 0 {
        let h = TEAM_DOACROSS.get().0.swap(core::ptr::null_mut(), Ordering::AcqRel);
        // SAFETY: the team's block from `heap_alloc`, unpublished above; the
        // barrier let every thread finish with it.
        unsafe { arch::free(h.cast()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_indices_follow_the_nest() {
        let dims = [Dim { lo: 1, up: 9, st: 2 }, Dim { lo: 10, up: 0, st: -5 }];
        assert_eq!((dims[0].range(), dims[1].range()), (5, 3));
        assert_eq!(linear(&dims, &[1, 10]), Some(0));
        assert_eq!(linear(&dims, &[3, 0]), Some(5));
        assert_eq!(linear(&dims, &[9, 0]), Some(14));
        assert_eq!(linear(&dims, &[2, 10]), None, "not an iteration");
        assert_eq!(linear(&dims, &[-1, 10]), None, "before the first");
        assert_eq!(linear(&dims, &[11, 10]), None, "after the last");
    }

    #[test]
    fn a_vector_at_the_type_limit_is_no_iteration_and_no_overflow() {
        // `off / st` would be `i64::MIN / -1` here.
        let d = Dim { lo: 0, up: i64::MIN + 1, st: -1 };
        assert_eq!(d.range(), 1 << 63);
        assert_eq!(d.index(i64::MIN + 1), Some(i64::MAX as u64), "the last iteration");
        assert_eq!(d.index(i64::MIN), None, "one past the last");
    }
}
