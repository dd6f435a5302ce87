//! The OpenMP API routines user code calls on the device.
//!
//! A GPU team supports one level of active parallelism; nested regions run
//! serialized. Setters that cannot change that (`omp_set_nested`,
//! `omp_set_dynamic`) are recorded but have no effect, as the spec allows.

use crate::execution::{mapping, state};
use crate::{arch, config, sync};
use core::sync::atomic::Ordering;
use omprt_abi::sched::omp_sched;

/// The most threads a CUDA block, and so a team, can have.
const MAX_TEAM_THREADS: i32 = 1024;

// ---- thread and team queries ----

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_thread_num() -> i32 {
    mapping::omp_thread_num() as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_num_threads() -> i32 {
    mapping::omp_num_threads() as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_team_num() -> i32 {
    mapping::block_id() as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_num_teams() -> i32 {
    mapping::num_blocks() as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_level() -> i32 {
    state::icvs().level as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_active_level() -> i32 {
    state::icvs().active_level as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_in_parallel() -> i32 {
    i32::from(state::icvs().active_level > 0)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_ancestor_thread_num(level: i32) -> i32 {
    mapping::ancestor_thread_num(level)
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_team_size(level: i32) -> i32 {
    mapping::team_size(level)
}
/// Threads a `parallel` without `num_threads` would get here: inside a
/// region only 1 (nested regions are serialized).
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_max_threads() -> i32 {
    let icvs = state::icvs();
    if icvs.level > 0 {
        return 1;
    }
    let max = mapping::max_team_threads();
    (if icvs.nthreads > 0 && icvs.nthreads < max { icvs.nthreads } else { max }) as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_thread_limit() -> i32 {
    mapping::max_team_threads() as i32
}
/// teams-thread-limit-var: what `omp_set_teams_thread_limit` set on this
/// device, else the launch's team size.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_teams_thread_limit() -> i32 {
    match state::DEVICE_TEAMS_THREAD_LIMIT.get().load(Ordering::Relaxed) {
        0 => mapping::max_team_threads() as i32,
        set => set,
    }
}
/// nteams-var: what `omp_set_num_teams` set on this device, else the
/// launch's number of teams.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_max_teams() -> i32 {
    match state::DEVICE_NTEAMS.get().load(Ordering::Relaxed) {
        0 => mapping::num_blocks() as i32,
        set => set,
    }
}
/// Sets the device's nteams-var, one copy per device as the spec scopes
/// it: later `omp_get_max_teams` calls of every kernel on the device see
/// it. A value below 1 is ignored (the spec leaves it to the
/// implementation), as the host runtime does.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_set_num_teams(nteams: i32) {
    if nteams > 0 {
        state::DEVICE_NTEAMS.get().store(nteams, Ordering::Relaxed);
    }
}
/// Sets the device's teams-thread-limit-var, capped at the threads a team
/// can have (a CUDA block's 1024); a value below 1 is ignored.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_set_teams_thread_limit(limit: i32) {
    if limit > 0 {
        state::DEVICE_TEAMS_THREAD_LIMIT.get().store(limit.min(MAX_TEAM_THREADS), Ordering::Relaxed);
    }
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_num_procs() -> i32 {
    let hw = config::device_environment().hardware_parallelism;
    if hw > 0 { hw as i32 } else { (mapping::num_blocks() * mapping::num_threads_in_block()) as i32 }
}

// ---- ICVs ----

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_set_num_threads(n: i32) {
    if n > 0 {
        state::set_icv(|icv| icv.nthreads = n as u32);
    }
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_dynamic() -> i32 {
    state::icvs().dynamic as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_set_dynamic(flag: i32) {
    state::set_icv(|icv| icv.dynamic = u32::from(flag != 0));
}
/// Nested parallelism is not supported on the device.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_nested() -> i32 {
    0
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_set_nested(_flag: i32) {}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_supported_active_levels() -> i32 {
    1
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_max_active_levels() -> i32 {
    state::icvs().max_active_levels as i32
}
/// Clamped to the one supported level.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_set_max_active_levels(n: i32) {
    if n >= 0 {
        state::set_icv(|icv| icv.max_active_levels = n.min(1) as u32);
    }
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_get_schedule(kind: *mut i32, chunk: *mut i32) {
    let icvs = state::icvs();
    // SAFETY: user code passes two writable ints.
    unsafe {
        *kind = icvs.run_sched;
        *chunk = icvs.run_sched_chunk;
    }
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_set_schedule(kind: i32, chunk: i32) {
    let base = kind & !omp_sched::MONOTONIC;
    if !(omp_sched::STATIC..=omp_sched::AUTO).contains(&base) {
        return;
    }
    // chunk < 1 means "the default" for every kind.
    let chunk = if chunk < 1 { if base == omp_sched::STATIC { 0 } else { 1 } } else { chunk };
    state::set_icv(|icv| {
        icv.run_sched = kind;
        icv.run_sched_chunk = chunk;
    });
}
/// Cancellation is never activated on the device (cancel-var is a host ICV).
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_cancellation() -> i32 {
    0
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_in_explicit_task() -> i32 {
    crate::tasks::in_explicit_task() as i32
}
/// Every task on the device runs undeferred where it is created
/// (`crate::tasks`), as the tasks of a final task region do; so, as LLVM's
/// DeviceRTL does, omprt answers that it runs in one.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_in_final() -> i32 {
    1
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_max_task_priority() -> i32 {
    0
}

// ---- places (none on a GPU) ----

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_proc_bind() -> i32 {
    0 // omp_proc_bind_false
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_num_places() -> i32 {
    0
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_place_num_procs(_place: i32) -> i32 {
    0
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_place_proc_ids(_place: i32, _ids: *mut i32) {}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_place_num() -> i32 {
    -1
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_partition_num_places() -> i32 {
    0
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_partition_place_nums(_places: *mut i32) {}

// ---- devices and time ----

#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_is_initial_device() -> i32 {
    0
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_initial_device() -> i32 {
    -1 // omp_initial_device
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_num_devices() -> i32 {
    config::device_environment().num_devices as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_device_num() -> i32 {
    config::device_environment().device_num as i32
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_default_device() -> i32 {
    -1
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_set_default_device(_device: i32) {}
/// Seconds from the GPU's nanosecond global timer.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_wtime() -> f64 {
    arch::global_timer_ns() as f64 * 1e-9
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_wtick() -> f64 {
    1e-9
}

// ---- locks ----
//
// omp_lock_t and omp_nest_lock_t are 8 bytes in clang's omp.h. A simple lock
// uses the first word (0 free, 1 held). A nest lock keeps its owner (global
// thread id + 1) in the first word and its depth in the second.

/// Global id of the calling thread, plus one so that 0 means "nobody".
fn lock_owner_id() -> u32 {
    mapping::block_id() * mapping::num_threads_in_block() + mapping::thread_id_in_block() + 1
}

#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_init_lock(lock: *mut u32) {
    // SAFETY: the caller's lock object, a live, aligned lock word.
    unsafe { sync::lock_word(lock) }.store(0, Ordering::Release);
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_destroy_lock(lock: *mut u32) {
    // SAFETY: the caller's lock object, a live, aligned lock word.
    unsafe { sync::lock_word(lock) }.store(0, Ordering::Release);
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_set_lock(lock: *mut u32) {
    // SAFETY: the caller's lock object, a live, aligned lock word.
    sync::set_lock(unsafe { sync::lock_word(lock) })
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_unset_lock(lock: *mut u32) {
    // SAFETY: the caller's lock object, a live, aligned lock word.
    sync::unset_lock(unsafe { sync::lock_word(lock) })
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_test_lock(lock: *mut u32) -> i32 {
    // SAFETY: the caller's lock object, a live, aligned lock word.
    i32::from(sync::test_lock(unsafe { sync::lock_word(lock) }))
}
/// Hints (contended, speculative, ...) only advise: the plain lock.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_init_lock_with_hint(lock: *mut u32, _hint: i32) {
    // SAFETY: forwarded from the caller.
    unsafe { omp_init_lock(lock) }
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_init_nest_lock_with_hint(lock: *mut u32, _hint: i32) {
    // SAFETY: forwarded from the caller.
    unsafe { omp_init_nest_lock(lock) }
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_init_nest_lock(lock: *mut u32) {
    // SAFETY: user code passes an omp_nest_lock_t (two words).
    unsafe { *lock.add(1) = 0 };
    // SAFETY: the caller's lock object, a live, aligned lock word.
    unsafe { sync::lock_word(lock) }.store(0, Ordering::Release);
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_destroy_nest_lock(lock: *mut u32) {
    // SAFETY: as above.
    unsafe { omp_init_nest_lock(lock) }
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_set_nest_lock(lock: *mut u32) {
    let me = lock_owner_id();
    // SAFETY: the caller's lock object, a live, aligned lock word.
    let owner = unsafe { sync::lock_word(lock) };
    if owner.load(Ordering::Acquire) != me {
        while owner.compare_exchange_weak(0, me, Ordering::Acquire, Ordering::Relaxed).is_err() {
            arch::spin_pause();
        }
        arch::fence_device();
    }
    // SAFETY: only the owner touches the depth word.
    unsafe { *lock.add(1) += 1 };
}
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_unset_nest_lock(lock: *mut u32) {
    // SAFETY: only the owner touches the depth word.
    let depth = unsafe {
        *lock.add(1) -= 1;
        *lock.add(1)
    };
    if depth == 0 {
        // SAFETY: the caller's lock object, a live, aligned lock word.
        sync::unset_lock(unsafe { sync::lock_word(lock) });
    }
}
/// The new nesting depth, or 0 if another thread holds the lock.
#[unsafe(no_mangle)]
pub unsafe extern "C-unwind" fn omp_test_nest_lock(lock: *mut u32) -> i32 {
    let me = lock_owner_id();
    // SAFETY: the caller's lock object, a live, aligned lock word.
    let owner = unsafe { sync::lock_word(lock) };
    let mine = owner.load(Ordering::Acquire) == me
        || owner.compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed).is_ok();
    if !mine {
        return 0;
    }
    arch::fence_device();
    // SAFETY: only the owner touches the depth word.
    unsafe {
        *lock.add(1) += 1;
        *lock.add(1) as i32
    }
}

// ---- allocators, tools, resources ----

/// The def-allocator-var ICV: `omp_default_mem_alloc` until the task (or
/// one it inherits from) sets another.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_get_default_allocator() -> u64 {
    state::def_allocator()
}

/// As every `omp_set_*` routine here: a task that sets it leaves its
/// creator's value as it was, a parallel region's threads start with their
/// parent's.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_set_default_allocator(handle: u64) {
    state::set_def_allocator(handle);
}

/// `omp_control_tool_notool`: no OMPT tool runs on the device.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_control_tool(_command: i32, _modifier: i32, _arg: *mut core::ffi::c_void) -> i32 {
    -2
}

/// Non-zero, "not paused": a kernel cannot give back the device it runs on.
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_pause_resource(_kind: i32, _device_num: i32) -> i32 {
    -1
}
#[unsafe(no_mangle)]
pub extern "C-unwind" fn omp_pause_resource_all(_kind: i32) -> i32 {
    -1
}
