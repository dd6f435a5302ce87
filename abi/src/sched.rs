//! `kmp_sched_t`: the schedule values clang passes to the worksharing entry
//! points (docs/abi.md#static-worksharing, #dispatched-loops).

/// A schedule as passed in the `schedtype` argument, modifier bits stripped.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Schedule {
    StaticChunk = 33,
    StaticNoChunk = 34,
    Dynamic = 35,
    Guided = 36,
    Runtime = 37,
    Auto = 38,
    StaticBalancedChunk = 45,
    OrderedStaticChunk = 65,
    OrderedStaticNoChunk = 66,
    OrderedDynamic = 67,
    OrderedGuided = 68,
    OrderedRuntime = 69,
    OrderedAuto = 70,
    DistributeStaticChunk = 91,
    DistributeStaticNoChunk = 92,
    /// `dist_schedule(static, chunk)` combined with `schedule(static, 1)`.
    DistributeStaticChunkStaticOne = 93,
}

/// `schedule(monotonic: ...)`.
pub const MODIFIER_MONOTONIC: i32 = 1 << 29;
/// `schedule(nonmonotonic: ...)`, the OpenMP 5 default for dynamic schedules.
pub const MODIFIER_NONMONOTONIC: i32 = 1 << 30;

impl Schedule {
    /// Decodes a `schedtype` argument; `None` for values clang never emits.
    pub const fn from_raw(raw: i32) -> Option<Schedule> {
        use Schedule::*;
        Some(match raw & !(MODIFIER_MONOTONIC | MODIFIER_NONMONOTONIC) {
            33 => StaticChunk,
            34 => StaticNoChunk,
            35 => Dynamic,
            36 => Guided,
            37 => Runtime,
            38 => Auto,
            45 => StaticBalancedChunk,
            65 => OrderedStaticChunk,
            66 => OrderedStaticNoChunk,
            67 => OrderedDynamic,
            68 => OrderedGuided,
            69 => OrderedRuntime,
            70 => OrderedAuto,
            91 => DistributeStaticChunk,
            92 => DistributeStaticNoChunk,
            93 => DistributeStaticChunkStaticOne,
            _ => return None,
        })
    }
}

/// `omp_sched_t` values of `omp_get_schedule`/`omp_set_schedule`.
pub mod omp_sched {
    pub const STATIC: i32 = 1;
    pub const DYNAMIC: i32 = 2;
    pub const GUIDED: i32 = 3;
    pub const AUTO: i32 = 4;
    pub const MONOTONIC: i32 = i32::MIN;
}
