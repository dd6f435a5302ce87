//! Worksharing: which iterations of a loop each thread or team runs.
//!
//! The arithmetic is written once, generic over the four induction-variable
//! types clang uses (`i32`, `u32`, `i64`, `u64`; see [`iv::LoopIv`]), as pure
//! functions in [`static_sched`]; this module adds the "who am I" part.

pub mod callback;
pub mod dispatch;
pub mod doacross;
pub mod iv;
pub mod static_sched;

use crate::execution::mapping;
use crate::debug;
use iv::LoopIv;
use omprt_abi::Schedule;
use static_sched::{StaticChunk, static_chunked, static_balanced};

/// Which entity a static schedule divides the loop among.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entity {
    /// The threads of the current parallel region (`for`).
    Thread,
    /// The teams of the league (`distribute`).
    Team,
}

/// `__kmpc_{for,distribute}_static_init_*`: computes the caller's first
/// chunk `[lb, ub]`, the stride between its chunks, and whether it runs the
/// sequentially last iteration.
pub fn static_init<T: LoopIv>(entry: &[u8], entity: Entity, schedtype: i32, lb: T, ub: T, chunk: T::Signed) -> StaticChunk<T> {
    let Some(schedule) = Schedule::from_raw(schedtype) else {
        debug::fatal_naming(b"unknown schedule type passed to \0", entry)
    };
    let (id, count) = match (entity, schedule) {
        (_, Schedule::DistributeStaticChunkStaticOne) => {
            let threads = mapping::num_threads_in_block();
            (mapping::block_id() * threads + mapping::thread_id_in_block(), mapping::num_blocks() * threads)
        }
        (Entity::Team, _) => (mapping::block_id(), mapping::num_blocks()),
        (Entity::Thread, _) => (mapping::omp_thread_num(), mapping::omp_num_threads()),
    };
    let chunk_size = T::chunk_as_unsigned(chunk);
    match schedule {
        Schedule::StaticChunk
        | Schedule::OrderedStaticChunk
        | Schedule::StaticBalancedChunk
        | Schedule::DistributeStaticChunk
        | Schedule::DistributeStaticChunkStaticOne
            if chunk_size.is_some() =>
        {
            chunked(lb, ub, chunk_size.unwrap(), id, count)
        }
        Schedule::StaticChunk
        | Schedule::StaticNoChunk
        | Schedule::OrderedStaticChunk
        | Schedule::OrderedStaticNoChunk
        | Schedule::StaticBalancedChunk
        | Schedule::DistributeStaticChunk
        | Schedule::DistributeStaticNoChunk
        | Schedule::DistributeStaticChunkStaticOne => balanced(lb, ub, id, count),
        _ => debug::fatal_naming(b"a dynamic schedule was passed to a static init entry point: \0", entry),
    }
}

/// The static schedules as the init entry points use them: for a 64-bit loop
/// each is a function of its own at -O0 (`out_of_line_at_o0!`), since its
/// division is a ptxas routine and with both inlined `__kmpc_for_static_init_8u`
/// would set the kernels' registers (`no_kernel_costs_more_than_with_llvm19_at_o0`);
/// a 32-bit loop keeps them inline (a call costs the caller stack at -O0).
fn chunked<T: LoopIv>(lb: T, ub: T, chunk: T::Unsigned, id: u32, count: u32) -> StaticChunk<T> {
    if core::mem::size_of::<T>() == 8 { static_chunked_apart(lb, ub, chunk, id, count) } else { static_chunked(lb, ub, chunk, id, count) }
}

/// See [`chunked`].
fn balanced<T: LoopIv>(lb: T, ub: T, id: u32, count: u32) -> StaticChunk<T> {
    if core::mem::size_of::<T>() == 8 { static_balanced_apart(lb, ub, id, count) } else { static_balanced(lb, ub, id, count) }
}

out_of_line_at_o0! {
fn static_chunked_apart<T: LoopIv>(lb: T, ub: T, chunk: T::Unsigned, id: u32, count: u32) -> StaticChunk<T> {
    static_chunked(lb, ub, chunk, id, count)
}
}

out_of_line_at_o0! {
fn static_balanced_apart<T: LoopIv>(lb: T, ub: T, id: u32, count: u32) -> StaticChunk<T> {
    static_balanced(lb, ub, id, count)
}
}

/// `__kmpc_dist_for_static_init_*`: the team's balanced share of the loop
/// (its upper bound is the second result), then `schedtype` among the team's
/// threads. `last` is set only on the thread that runs the loop's last
/// iteration.
pub fn dist_for_static_init<T: LoopIv>(entry: &[u8], schedtype: i32, lb: T, ub: T, chunk: T::Signed) -> (StaticChunk<T>, T) {
    // Apart at -O0 for every width: with two balanced schedules inlined,
    // `__kmpc_dist_for_static_init_4` would set the kernels' registers.
    let team = static_balanced_apart(lb, ub, mapping::block_id(), mapping::num_blocks());
    let mut mine = static_init(entry, Entity::Thread, schedtype, team.lb, team.ub, chunk);
    mine.last &= team.last;
    (mine, team.ub)
}

/// `__kmpc_team_static_init_*`: chunks of `chunk` iterations (at least 1)
/// dealt to the teams round-robin.
pub fn team_static_init<T: LoopIv>(lb: T, ub: T, chunk: T::Signed) -> StaticChunk<T> {
    let chunk = T::chunk_as_unsigned(chunk).unwrap_or(T::u_from_u32(1));
    chunked(lb, ub, chunk, mapping::block_id(), mapping::num_blocks())
}
