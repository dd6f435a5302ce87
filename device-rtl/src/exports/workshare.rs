//! Worksharing-loop entry points. The static ones are generated for the four
//! induction-variable widths by one macro over one generic implementation.

use super::*;
use crate::workshare::{self, Entity, iv::LoopIv};

/// # Safety
/// The pointers are clang's loop-bound variables, valid for reads and writes.
#[inline(always)]
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

not_yet! {
    fn __kmpc_dist_for_static_init_4(IdentPtr, i32, i32, *mut i32, *mut i32, *mut i32, *mut i32, *mut i32, i32, i32);
    fn __kmpc_dist_for_static_init_4u(IdentPtr, i32, i32, *mut i32, *mut u32, *mut u32, *mut u32, *mut i32, i32, i32);
    fn __kmpc_dist_for_static_init_8(IdentPtr, i32, i32, *mut i32, *mut i64, *mut i64, *mut i64, *mut i64, i64, i64);
    fn __kmpc_dist_for_static_init_8u(IdentPtr, i32, i32, *mut i32, *mut u64, *mut u64, *mut u64, *mut i64, i64, i64);
    fn __kmpc_team_static_init_4(IdentPtr, i32, *mut i32, *mut i32, *mut i32, *mut i32, i32, i32);
    fn __kmpc_team_static_init_4u(IdentPtr, i32, *mut i32, *mut u32, *mut u32, *mut i32, i32, i32);
    fn __kmpc_team_static_init_8(IdentPtr, i32, *mut i32, *mut i64, *mut i64, *mut i64, i64, i64);
    fn __kmpc_team_static_init_8u(IdentPtr, i32, *mut i32, *mut u64, *mut u64, *mut i64, i64, i64);
    fn __kmpc_dispatch_init_4(IdentPtr, i32, i32, i32, i32, i32, i32);
    fn __kmpc_dispatch_init_4u(IdentPtr, i32, i32, u32, u32, i32, i32);
    fn __kmpc_dispatch_init_8(IdentPtr, i32, i32, i64, i64, i64, i64);
    fn __kmpc_dispatch_init_8u(IdentPtr, i32, i32, u64, u64, i64, i64);
    fn __kmpc_dist_dispatch_init_4(IdentPtr, i32, i32, *mut i32, i32, i32, i32, i32);
    fn __kmpc_dist_dispatch_init_4u(IdentPtr, i32, i32, *mut i32, u32, u32, i32, i32);
    fn __kmpc_dist_dispatch_init_8(IdentPtr, i32, i32, *mut i32, i64, i64, i64, i64);
    fn __kmpc_dist_dispatch_init_8u(IdentPtr, i32, i32, *mut i32, u64, u64, i64, i64);
    fn __kmpc_dispatch_next_4(IdentPtr, i32, *mut i32, *mut i32, *mut i32, *mut i32) -> i32;
    fn __kmpc_dispatch_next_4u(IdentPtr, i32, *mut i32, *mut u32, *mut u32, *mut i32) -> i32;
    fn __kmpc_dispatch_next_8(IdentPtr, i32, *mut i32, *mut i64, *mut i64, *mut i64) -> i32;
    fn __kmpc_dispatch_next_8u(IdentPtr, i32, *mut i32, *mut u64, *mut u64, *mut i64) -> i32;
    fn __kmpc_dispatch_fini_4(IdentPtr, i32);
    fn __kmpc_dispatch_fini_4u(IdentPtr, i32);
    fn __kmpc_dispatch_fini_8(IdentPtr, i32);
    fn __kmpc_dispatch_fini_8u(IdentPtr, i32);
    fn __kmpc_dispatch_deinit(IdentPtr, i32);
    fn __kmpc_for_static_loop_4(IdentPtr, FnPtr, VoidPtr, i32, i32, i32, i8);
    fn __kmpc_for_static_loop_4u(IdentPtr, FnPtr, VoidPtr, u32, u32, u32, i8);
    fn __kmpc_for_static_loop_8(IdentPtr, FnPtr, VoidPtr, i64, i64, i64, i8);
    fn __kmpc_for_static_loop_8u(IdentPtr, FnPtr, VoidPtr, u64, u64, u64, i8);
    fn __kmpc_distribute_static_loop_4(IdentPtr, FnPtr, VoidPtr, i32, i32, i8);
    fn __kmpc_distribute_static_loop_4u(IdentPtr, FnPtr, VoidPtr, u32, u32, i8);
    fn __kmpc_distribute_static_loop_8(IdentPtr, FnPtr, VoidPtr, i64, i64, i8);
    fn __kmpc_distribute_static_loop_8u(IdentPtr, FnPtr, VoidPtr, u64, u64, i8);
    fn __kmpc_distribute_for_static_loop_4(IdentPtr, FnPtr, VoidPtr, i32, i32, i32, i32, i8);
    fn __kmpc_distribute_for_static_loop_4u(IdentPtr, FnPtr, VoidPtr, u32, u32, u32, u32, i8);
    fn __kmpc_distribute_for_static_loop_8(IdentPtr, FnPtr, VoidPtr, i64, i64, i64, i64, i8);
    fn __kmpc_distribute_for_static_loop_8u(IdentPtr, FnPtr, VoidPtr, u64, u64, u64, u64, i8);
}
