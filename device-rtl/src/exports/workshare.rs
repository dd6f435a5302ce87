//! Worksharing-loop entry points. The static ones are generated for the four
//! induction-variable widths by one macro over one generic implementation.

use super::*;
use crate::execution::mapping;
use crate::workshare::{self, Entity, callback::Walk, dispatch, iv::{Distance, LoopIv}};

/// # Safety
/// The pointers are clang's loop-bound variables, valid for reads and writes.
#[inline(always)]
#[allow(clippy::too_many_arguments, reason = "the C entry points' arguments, plus the entry's name and kind")]
unsafe fn static_init<T: LoopIv>(
    entry: &[u8],
    entity: Entity,
    schedtype: i32,
    plast: *mut i32,
    plower: *mut T,
    pupper: *mut T,
    pstride: *mut T::Signed,
    chunk: T::Signed,
) {
    // SAFETY: per the function contract.
    unsafe {
        let c = workshare::static_init(entry, entity, schedtype, *plower, *pupper, chunk);
        *plower = c.lb;
        *pupper = c.ub;
        *pstride = c.stride;
        *plast = i32::from(c.last);
    }
}

macro_rules! static_init_entries {
    ($($name:ident: $entity:expr, $t:ty, $st:ty;)*) => {
        $(
            #[unsafe(no_mangle)]
            pub unsafe extern "C-unwind" fn $name(
                _loc: IdentPtr, _gtid: i32, schedtype: i32, plast: *mut i32,
                plower: *mut $t, pupper: *mut $t, pstride: *mut $st, _incr: $st, chunk: $st,
            ) {
                // SAFETY: clang passes its loop-bound variables.
                unsafe {
                    static_init::<$t>(concat!(stringify!($name), "\0").as_bytes(), $entity,
                        schedtype, plast, plower, pupper, pstride, chunk)
                }
            }
        )*
    };
}

static_init_entries! {
    __kmpc_for_static_init_4: Entity::Thread, i32, i32;
    __kmpc_for_static_init_4u: Entity::Thread, u32, i32;
    __kmpc_for_static_init_8: Entity::Thread, i64, i64;
    __kmpc_for_static_init_8u: Entity::Thread, u64, i64;
    __kmpc_distribute_static_init_4: Entity::Team, i32, i32;
    __kmpc_distribute_static_init_4u: Entity::Team, u32, i32;
    __kmpc_distribute_static_init_8: Entity::Team, i64, i64;
    __kmpc_distribute_static_init_8u: Entity::Team, u64, i64;
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_for_static_fini(_loc: IdentPtr, _gtid: i32) {}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_distribute_static_fini(_loc: IdentPtr, _gtid: i32) {}

macro_rules! dist_for_static_init_entries {
    ($($name:ident: $t:ty, $st:ty;)*) => {
        $(
            #[unsafe(no_mangle)]
            pub unsafe extern "C-unwind" fn $name(
                _loc: IdentPtr, _gtid: i32, schedtype: i32, plast: *mut i32,
                plower: *mut $t, pupper: *mut $t, pupperd: *mut $t, pstride: *mut $st, _incr: $st, chunk: $st,
            ) {
                // SAFETY: clang passes its loop-bound variables.
                unsafe {
                    let (c, team_ub) = workshare::dist_for_static_init::<$t>(
                        concat!(stringify!($name), "\0").as_bytes(), schedtype, *plower, *pupper, chunk);
                    *plower = c.lb;
                    *pupper = c.ub;
                    *pupperd = team_ub;
                    *pstride = c.stride;
                    *plast = i32::from(c.last);
                }
            }
        )*
    };
}

dist_for_static_init_entries! {
    __kmpc_dist_for_static_init_4: i32, i32;
    __kmpc_dist_for_static_init_4u: u32, i32;
    __kmpc_dist_for_static_init_8: i64, i64;
    __kmpc_dist_for_static_init_8u: u64, i64;
}

macro_rules! team_static_init_entries {
    ($($name:ident: $t:ty, $st:ty;)*) => {
        $(
            #[unsafe(no_mangle)]
            pub unsafe extern "C-unwind" fn $name(
                _loc: IdentPtr, _gtid: i32, plast: *mut i32,
                plower: *mut $t, pupper: *mut $t, pstride: *mut $st, _incr: $st, chunk: $st,
            ) {
                // SAFETY: clang passes its loop-bound variables.
                unsafe {
                    let c = workshare::team_static_init::<$t>(*plower, *pupper, chunk);
                    *plower = c.lb;
                    *pupper = c.ub;
                    *pstride = c.stride;
                    *plast = i32::from(c.last);
                }
            }
        )*
    };
}

team_static_init_entries! {
    __kmpc_team_static_init_4: i32, i32;
    __kmpc_team_static_init_4u: u32, i32;
    __kmpc_team_static_init_8: i64, i64;
    __kmpc_team_static_init_8u: u64, i64;
}

macro_rules! dispatch_entries {
    ($($init:ident, $dist_init:ident, $next:ident, $fini:ident: $t:ty, $st:ty;)*) => {
        $(
            #[unsafe(no_mangle)]
            pub extern "C-unwind" fn $init(_loc: IdentPtr, _gtid: i32, schedtype: i32, lb: $t, ub: $t, st: $st, chunk: $st) {
                dispatch::init::<$t>(concat!(stringify!($init), "\0").as_bytes(), schedtype, lb, ub, st, chunk)
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "C-unwind" fn $dist_init(
                _loc: IdentPtr, _gtid: i32, schedtype: i32, plast: *mut i32, lb: $t, ub: $t, st: $st, chunk: $st,
            ) {
                // SAFETY: clang passes its last-iteration flag.
                let plast = unsafe { &mut *plast };
                dispatch::dist_init::<$t>(concat!(stringify!($dist_init), "\0").as_bytes(), schedtype, plast, lb, ub, st, chunk)
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "C-unwind" fn $next(
                _loc: IdentPtr, _gtid: i32, plast: *mut i32, plower: *mut $t, pupper: *mut $t, pstride: *mut $st,
            ) -> i32 {
                // SAFETY: clang passes its loop-bound variables.
                unsafe { dispatch::next::<$t>(&mut *plast, &mut *plower, &mut *pupper, &mut *pstride) }
            }

            #[unsafe(no_mangle)]
            pub extern "C-unwind" fn $fini(_loc: IdentPtr, _gtid: i32) {
                dispatch::fini()
            }
        )*
    };
}

dispatch_entries! {
    __kmpc_dispatch_init_4, __kmpc_dist_dispatch_init_4, __kmpc_dispatch_next_4, __kmpc_dispatch_fini_4: i32, i32;
    __kmpc_dispatch_init_4u, __kmpc_dist_dispatch_init_4u, __kmpc_dispatch_next_4u, __kmpc_dispatch_fini_4u: u32, i32;
    __kmpc_dispatch_init_8, __kmpc_dist_dispatch_init_8, __kmpc_dispatch_next_8, __kmpc_dispatch_fini_8: i64, i64;
    __kmpc_dispatch_init_8u, __kmpc_dist_dispatch_init_8u, __kmpc_dispatch_next_8u, __kmpc_dispatch_fini_8u: u64, i64;
}

#[unsafe(no_mangle)]
pub extern "C-unwind" fn __kmpc_dispatch_deinit(_loc: IdentPtr, _gtid: i32) {
    dispatch::deinit()
}

/// The loop body of a callback-style loop: `void body(IV iv, void *arg)`.
///
/// # Safety
/// `body` is such a function for IV type `T`.
#[inline(always)]
unsafe fn body_fn<T>(body: FnPtr) -> extern "C" fn(T, VoidPtr) {
    // SAFETY: per the function contract; fn pointers and data pointers have
    // the same size on every target omprt supports.
    unsafe { core::mem::transmute::<FnPtr, extern "C" fn(T, VoidPtr)>(body) }
}

/// Iteration counts and chunk sizes of callback loops are non-negative.
#[inline(always)]
fn count<T: LoopIv>(v: T) -> T::Unsigned {
    if T::from_bits(0) > v { T::Unsigned::ZERO } else { T::Unsigned::from_u64(v.bits()) }
}

/// The team's size. The IRBuilder's `num_threads` argument may have been
/// computed outside the parallel region, where it reads 1 (a known upstream
/// bug), and any other value than the team's size would lose or repeat
/// iterations, so the runtime's own count is used.
#[inline(always)]
fn team_threads<T: LoopIv>(_num_threads: T) -> T::Unsigned {
    T::u_from_u32(mapping::omp_num_threads())
}

macro_rules! callback_loop_entries {
    ($($for_:ident, $dist:ident, $dist_for:ident: $t:ty;)*) => {
        $(
            #[unsafe(no_mangle)]
            pub unsafe extern "C-unwind" fn $for_(
                _loc: IdentPtr, body: FnPtr, arg: VoidPtr, num_iters: $t, num_threads: $t, thread_chunk: $t, one: i8,
            ) {
                // SAFETY: the IRBuilder passes a body of this IV type.
                let body = unsafe { body_fn::<$t>(body) };
                Walk {
                    num_iters: count(num_iters), teams: 1, team: 0,
                    threads: team_threads(num_threads), thread: <$t as LoopIv>::u_from_u32(mapping::omp_thread_num()),
                    block_chunk: 0, thread_chunk: count(thread_chunk), one_chunk: one != 0,
                }.run(|iv| body(<$t>::from_bits(iv.into()), arg))
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "C-unwind" fn $dist(
                _loc: IdentPtr, body: FnPtr, arg: VoidPtr, num_iters: $t, block_chunk: $t, one: i8,
            ) {
                // SAFETY: as above.
                let body = unsafe { body_fn::<$t>(body) };
                Walk {
                    num_iters: count(num_iters), teams: <$t as LoopIv>::u_from_u32(mapping::num_blocks()),
                    team: <$t as LoopIv>::u_from_u32(mapping::block_id()), threads: 1, thread: 0,
                    block_chunk: count(block_chunk).max(1), thread_chunk: 0, one_chunk: one != 0,
                }.run(|iv| body(<$t>::from_bits(iv.into()), arg))
            }

            #[unsafe(no_mangle)]
            pub unsafe extern "C-unwind" fn $dist_for(
                _loc: IdentPtr, body: FnPtr, arg: VoidPtr, num_iters: $t, num_threads: $t, block_chunk: $t,
                thread_chunk: $t, one: i8,
            ) {
                // SAFETY: as above.
                let body = unsafe { body_fn::<$t>(body) };
                Walk {
                    num_iters: count(num_iters), teams: <$t as LoopIv>::u_from_u32(mapping::num_blocks()),
                    team: <$t as LoopIv>::u_from_u32(mapping::block_id()),
                    threads: team_threads(num_threads), thread: <$t as LoopIv>::u_from_u32(mapping::omp_thread_num()),
                    block_chunk: count(block_chunk), thread_chunk: count(thread_chunk), one_chunk: one != 0,
                }.run(|iv| body(<$t>::from_bits(iv.into()), arg))
            }
        )*
    };
}

callback_loop_entries! {
    __kmpc_for_static_loop_4, __kmpc_distribute_static_loop_4, __kmpc_distribute_for_static_loop_4: i32;
    __kmpc_for_static_loop_4u, __kmpc_distribute_static_loop_4u, __kmpc_distribute_for_static_loop_4u: u32;
    __kmpc_for_static_loop_8, __kmpc_distribute_static_loop_8, __kmpc_distribute_for_static_loop_8: i64;
    __kmpc_for_static_loop_8u, __kmpc_distribute_static_loop_8u, __kmpc_distribute_for_static_loop_8u: u64;
}
