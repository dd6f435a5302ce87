//! Callback-style loops (`__kmpc_*_static_loop_*`), emitted by the
//! OpenMPIRBuilder (flang, `-fopenmp-enable-irbuilder`): the runtime calls the
//! loop body once per iteration `0..num_iters`, itself choosing the
//! iterations of the calling thread.
//!
//! Mapping (a chunk size of 0 means "not given"):
//! * `for`: thread `t` of `n` runs thread chunks `t, t+n, t+2n, …` of
//!   `thread_chunk` iterations (default 1: neighbouring threads touch
//!   neighbouring iterations, which keeps memory accesses coalesced);
//! * `distribute`: team `b` of `nb` runs block chunks `b, b+nb, …` of
//!   `block_chunk` iterations (default 1);
//! * `distribute parallel for`: block chunks (default `n * thread_chunk`)
//!   go to teams as above, and each is split among the team's threads as in
//!   `for`.
//!
//! `one_iteration_per_thread` promises that one chunk per thread covers the
//! loop; the walk then stops after the caller's first chunk.

use super::iv::{Count, Distance};

/// The ids and sizes that decide which iterations the caller runs, in the
/// loop's own width (`u32` for the `_4`/`_4u` entries: every value held across
/// the body's call is half the registers of a `u64`).
#[derive(Clone, Copy, Debug)]
pub struct Walk<D> {
    pub num_iters: D,
    pub teams: D,
    pub team: D,
    pub threads: D,
    pub thread: D,
    pub block_chunk: D,
    pub thread_chunk: D,
    pub one_chunk: bool,
}

/// `a * b`, or the type's maximum past it.
#[inline(always)]
fn sat_mul<D: Count>(a: D, b: D) -> D {
    a.checked_mul(b).unwrap_or(D::MAX)
}

/// `a + b`, or the type's maximum past it.
#[inline(always)]
fn sat_add<D: Count>(a: D, b: D) -> D {
    Distance::checked_add(a, b).unwrap_or(D::MAX)
}

impl<D: Count> Walk<D> {
    /// Runs `body` on each of the caller's iterations, in increasing order.
    /// Products saturate: a 64-bit loop's chunk times the teams or threads
    /// can pass 2^64, and wrapped it would start the walk again.
    #[inline(always)]
    pub fn run(&self, mut body: impl FnMut(D)) {
        let one = D::ONE;
        let threads = self.threads.max(one);
        let thread_chunk = self.thread_chunk.max(one);
        let block_chunk = if self.block_chunk == D::ZERO { sat_mul(threads, thread_chunk) } else { self.block_chunk };
        let teams = self.teams.max(one);
        if self.team >= teams || self.thread >= threads {
            return;
        }
        let mut block_start = sat_mul(self.team, block_chunk);
        while block_start < self.num_iters {
            let block_end = self.num_iters.min(sat_add(block_start, block_chunk));
            let mut start = sat_add(block_start, sat_mul(self.thread, thread_chunk));
            while start < block_end {
                let end = block_end.min(sat_add(start, thread_chunk));
                let mut iv = start;
                while iv < end {
                    body(iv);
                    iv = iv + one;
                }
                if self.one_chunk {
                    return;
                }
                start = sat_add(start, sat_mul(threads, thread_chunk));
            }
            block_start = sat_add(block_start, sat_mul(teams, block_chunk));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Every iteration runs exactly once over all teams and threads.
        #[test]
        fn walks_cover_each_iteration_once(
            num_iters in 0u64..500, teams in 1u64..9, threads in 1u64..40,
            block_chunk in prop_oneof![4 => 0u64..50, 1 => Just(1u64 << 62), 1 => Just(u64::MAX / 3)],
            thread_chunk in prop_oneof![4 => 0u64..7, 1 => Just(1u64 << 61), 1 => Just(u64::MAX / 5)],
        ) {
            let mut seen = vec![0u32; num_iters as usize];
            for team in 0..teams {
                for thread in 0..threads {
                    Walk::<u64> { num_iters, teams, team, threads, thread, block_chunk, thread_chunk, one_chunk: false }
                        .run(|iv| seen[iv as usize] += 1);
                }
            }
            prop_assert!(seen.iter().all(|&n| n == 1), "{:?}", seen);
        }

        /// With at least as many threads as iterations, one chunk each suffices.
        #[test]
        fn one_iteration_per_thread_covers_small_loops(teams in 1u64..6, threads in 1u64..40, extra in 0u64..5) {
            let num_iters = (teams * threads).saturating_sub(extra);
            let mut seen = vec![0u32; num_iters as usize];
            for team in 0..teams {
                for thread in 0..threads {
                    Walk::<u64> { num_iters, teams, team, threads, thread, block_chunk: 0, thread_chunk: 0, one_chunk: true }
                        .run(|iv| seen[iv as usize] += 1);
                }
            }
            prop_assert!(seen.iter().all(|&n| n == 1));
        }
    }
}
