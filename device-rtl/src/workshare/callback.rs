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

/// The ids and sizes that decide which iterations the caller runs.
#[derive(Clone, Copy, Debug)]
pub struct Walk {
    pub num_iters: u64,
    pub teams: u64,
    pub team: u64,
    pub threads: u64,
    pub thread: u64,
    pub block_chunk: u64,
    pub thread_chunk: u64,
    pub one_chunk: bool,
}

impl Walk {
    /// Runs `body` on each of the caller's iterations, in increasing order.
    /// Products saturate: a 64-bit loop's chunk times the teams or threads
    /// can pass 2^64, and wrapped it would start the walk again.
    pub fn run(&self, mut body: impl FnMut(u64)) {
        let threads = self.threads.max(1);
        let thread_chunk = self.thread_chunk.max(1);
        let block_chunk = if self.block_chunk == 0 { threads.saturating_mul(thread_chunk) } else { self.block_chunk };
        let teams = self.teams.max(1);
        if self.team >= teams || self.thread >= threads {
            return;
        }
        let mut block_start = self.team.saturating_mul(block_chunk);
        while block_start < self.num_iters {
            let block_end = self.num_iters.min(block_start.saturating_add(block_chunk));
            let mut start = block_start.saturating_add(self.thread.saturating_mul(thread_chunk));
            while start < block_end {
                let end = block_end.min(start.saturating_add(thread_chunk));
                for iv in start..end {
                    body(iv);
                }
                if self.one_chunk {
                    return;
                }
                start = start.saturating_add(threads.saturating_mul(thread_chunk));
            }
            block_start = block_start.saturating_add(teams.saturating_mul(block_chunk));
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
                    Walk { num_iters, teams, team, threads, thread, block_chunk, thread_chunk, one_chunk: false }
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
                    Walk { num_iters, teams, team, threads, thread, block_chunk: 0, thread_chunk: 0, one_chunk: true }
                        .run(|iv| seen[iv as usize] += 1);
                }
            }
            prop_assert!(seen.iter().all(|&n| n == 1));
        }
    }
}
