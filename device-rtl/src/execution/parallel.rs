//! Parallel regions: `__kmpc_parallel_60` and the generic-mode worker protocol.
//!
//! * Serialized (`if(false)` outside SPMD, a region nested in another, a team
//!   of one in generic mode): the calling thread runs the region itself in a
//!   new data environment with `level + 1`.
//! * SPMD: every thread of the block calls it (a collective); the team size
//!   comes from `num_threads`, the nthreads ICV and the block; threads
//!   `0..n` run the region; aligned barriers fence the team-state update and
//!   its restoration.
//! * Generic: the main thread publishes the region (wrapper, captured
//!   variables, team size) and meets the workers at two block barriers: the
//!   first releases them into the region, the second waits until they are
//!   done. A region without a wrapper (the OpenMPIRBuilder's) gets the
//!   runtime's. Team sizes are multiples of the warp size (`n < 32` runs
//!   serialized).
#![allow(unsafe_code)]

use crate::execution::{mapping, state};
use crate::{arch, config, debug, memory, sync};
use core::ffi::c_void;

/// Team size for a region asking for `requested` threads (-1 = no clause)
/// in a kernel of the given mode.
pub fn threads_for_region(requested: i32, spmd: bool) -> u32 {
    let icv = if requested != -1 { requested } else { state::icvs().nthreads as i32 };
    let max = mapping::max_team_threads_at_entry(spmd);
    let n = if icv > 0 && (icv as u32) < max { icv as u32 } else { max };
    if spmd {
        n
    } else if n < arch::WARP_SIZE {
        1
    } else {
        n & !(arch::WARP_SIZE - 1)
    }
}

/// Whether a region reached from the current state must run serialized: a
/// GPU has one level of active parallelism (SPMD runs `if(false)` as a
/// collective team of one). The level is read only when the kernel may nest
/// regions, a flag openmp-opt clears where it proves no nesting: the
/// serialized path and every thread-state write then fold away, and each
/// ICV query becomes a constant (`spmd_kernel_keeps_its_static_cost`).
fn must_serialize(if_expr: i32) -> bool {
    (if_expr == 0 && !mapping::is_spmd_mode()) || (state::may_use_nested_parallelism() && state::icvs().level > 0)
}

/// # Safety
/// `outlined` is clang's outlined region taking `(i32*, i32*, nargs × void*)`;
/// `wrapper` its generic-mode wrapper (null in SPMD kernels, and from the
/// OpenMPIRBuilder in every mode); `args` points to `nargs` pointers.
///
/// Inlined into the kernel, where clang's `nargs` is a constant, so every
/// path calls the region with one known arity, not through a dispatcher
/// with the register needs of a 34-argument call. `kernel_is_spmd` is the
/// C ABI's `__kmpc_is_spmd_exec_mode`, folded per kernel ([`in_spmd_kernel`]).
#[inline(always)]
pub unsafe fn parallel_60(
    if_expr: i32,
    num_threads: i32,
    outlined: *mut c_void,
    wrapper: *mut c_void,
    args: *mut *mut c_void,
    nargs: i64,
    kernel_is_spmd: impl FnOnce() -> bool,
) {
    let run_alone = must_serialize(if_expr)
        || if in_spmd_kernel(wrapper, nargs, kernel_is_spmd) {
            if is_out_of_line_call(nargs) && !(0..=1).contains(&nargs) {
                // SAFETY: forwarded from the caller.
                unsafe { spmd_region_apart(if_expr, num_threads, outlined, args, nargs) };
            } else {
                // SAFETY: forwarded from the caller.
                unsafe { spmd_region::<false>(if_expr, num_threads, outlined, args, nargs, is_clangs_spmd_call(wrapper, nargs)) };
            }
            false
        } else {
            // SAFETY: forwarded from the caller.
            !unsafe { generic_region(num_threads, outlined, wrapper, args, nargs) }
        };
    if run_alone {
        if is_out_of_line_call(nargs) {
            // SAFETY: forwarded from the caller.
            unsafe { serialized_apart(outlined, args, nargs) }
        } else {
            // SAFETY: forwarded from the caller.
            unsafe { serialized::<false>(outlined, args, nargs) }
        }
    }
}

/// [`spmd_region`] apart, for the out-of-line copy's regions of more than one
/// argument (clang's at `-O0 -foffload-lto`): its call of `call_with_many`
/// would raise the registers of `__kmpc_parallel_60`, by which nvlink sizes
/// every flang kernel.
///
/// # Safety
/// As [`parallel_60`].
#[inline(never)]
unsafe fn spmd_region_apart(if_expr: i32, num_threads: i32, outlined: *mut c_void, args: *mut *mut c_void, nargs: i64) {
    // SAFETY: forwarded from the caller.
    unsafe { spmd_region::<true>(if_expr, num_threads, outlined, args, nargs, false) }
}

/// Whether this is the archive's out-of-line copy, which flang's calls (and
/// clang's at `-O0 -foffload-lto`) reach with an argument count that is no
/// constant; clang's calls, inlined, know theirs.
#[inline(always)]
fn is_out_of_line_call(nargs: i64) -> bool {
    config::serves_out_of_line_callers() && !arch::is_compile_time_constant(nargs)
}

/// [`serialized`] apart, for the out-of-line copy, for the same reason as
/// [`spmd_region_apart`]; any arity up to `call_with_many`'s.
///
/// # Safety
/// As [`parallel_60`].
#[inline(never)]
unsafe fn serialized_apart(outlined: *mut c_void, args: *mut *mut c_void, nargs: i64) {
    // SAFETY: forwarded from the caller.
    unsafe { serialized::<true>(outlined, args, nargs) }
}

/// Whether the region runs in an SPMD kernel. clang passes no wrapper
/// exactly in kernels it emits in SPMD mode, and the wrapper is a constant
/// where this is inlined, so those kernels drop the generic-mode path
/// without reading the mode, which does not fold in a file that mixes
/// modes. A generic kernel with such a call is not clang's and traps, its
/// message only under `-fopenmp-target-debug`
/// (`spmd_kernel_in_a_mixed_file_makes_no_call`). The OpenMPIRBuilder
/// (flang) passes no wrapper in either mode and calls the out-of-line copy,
/// where the mode decides and a generic-mode region runs through
/// [`irbuilder_wrapper`].
///
/// The mode comes from `__kmpc_is_spmd_exec_mode`, which openmp-opt folds per
/// kernel where it is inlined: a kernel it SPMDized drops the generic-mode
/// path, its stored wrappers and the argument slots, so the variables clang
/// globalizes can be forwarded (`all_spmd_program_keeps_no_generic_mode_wrapper`).
/// In a function that stays out of line (`__kmpc_barrier`) the same call is
/// a real call in every kernel.
///
/// Whether the call is clang's is asked of its argument count: under
/// `wrapper.is_null()` the wrapper is the constant null in the out-of-line
/// copy too, and LLVM does not count a function's address as a constant.
#[inline(always)]
fn in_spmd_kernel(wrapper: *mut c_void, nargs: i64, kernel_is_spmd: impl FnOnce() -> bool) -> bool {
    let spmd = kernel_is_spmd();
    if is_clangs_spmd_call(wrapper, nargs) {
        debug::contract(spmd, debug::message!("generic-mode region without a wrapper function: __kmpc_parallel_60"));
        return true;
    }
    spmd
}

/// Whether the call is clang's, inlined into a kernel clang emitted in SPMD
/// mode: no wrapper, and a constant argument count (see [`in_spmd_kernel`]).
#[inline(always)]
fn is_clangs_spmd_call(wrapper: *mut c_void, nargs: i64) -> bool {
    wrapper.is_null() && arch::is_compile_time_constant(nargs)
}

/// Runs the region on the calling thread alone, one level deeper. Its
/// tasks complete before it ends: with `detach`, the region is a taskgroup.
#[inline(always)]
unsafe fn serialized<const ANY_ARITY: bool>(outlined: *mut c_void, args: *mut *mut c_void, nargs: i64) {
    let on_team_state = enter_serialized();
    if let Some(detach) = crate::tasks::detach::hooks() {
        (detach.begin_taskgroup)();
    }
    // SAFETY: forwarded from the caller.
    unsafe { invoke_microtask::<ANY_ARITY>(outlined, 0, args, nargs) };
    if let Some(detach) = crate::tasks::detach::hooks() {
        (detach.end_taskgroup)();
    }
    exit_serialized(on_team_state);
}

/// `level + 1` for a serialized region; returns whether the team state (not
/// a thread state) carries it. Inlined: out of line, ptxas gives a
/// non-kernel function callee-saved registers, and every kernel with a
/// parallel region would take that count (`no_kernel_costs_more_than_with_llvm19`).
#[inline(always)]
fn enter_serialized() -> bool {
    // Without nesting, only the generic-mode main thread outside any region
    // serializes (`must_serialize`); saying so lets the thread-state path fold
    // away in such kernels.
    let main_thread_outside_regions =
        !state::may_use_nested_parallelism() || (mapping::is_main_thread_in_generic_mode() && state::icvs().level == 0);
    if main_thread_outside_regions {
        // The main thread is the only one running: the team state is its own.
        state::update_team(|t| t.icvs.level += 1);
        return true;
    }
    let pushed = state::enter_data_environment();
    // SAFETY: the state this thread just pushed.
    unsafe { (*pushed).icvs.level += 1 };
    false
}

#[inline(always)]
fn exit_serialized(on_team_state: bool) {
    if on_team_state {
        state::update_team(|t| t.icvs.level -= 1);
    } else {
        state::exit_data_environment();
    }
}

/// `clangs_spmd_call`: [`is_clangs_spmd_call`]. Inlined on purpose: rustc
/// would keep it out of line for the LTO-member test in it, and every -O2
/// kernel would call its region through all arities
/// (`no_kernel_costs_more_than_with_llvm19`).
#[inline(always)]
unsafe fn spmd_region<const ANY_ARITY: bool>(
    if_expr: i32,
    num_threads: i32,
    outlined: *mut c_void,
    args: *mut *mut c_void,
    nargs: i64,
    clangs_spmd_call: bool,
) {
    let tid = mapping::thread_id_in_block();
    // Every thread computes the same team (the code before an SPMD region
    // runs alike in every thread); each thread's own copy lets LLVM fold the
    // size (stated below).
    let team = || {
        let n = if if_expr == 0 { 1 } else { threads_for_region(num_threads, true) };
        (n, if n == mapping::num_threads_in_block() { 0 } else { n })
    };
    // Nobody may still read the previous state when it changes.
    arch::sync_threads_aligned();
    if !config::serves_out_of_line_callers() && clangs_spmd_call {
        // No pass drops a barrier in clang's compile-time copy: every thread
        // sets the fields itself rather than a second barrier publishing
        // thread 0's. Not in kernels openmp-opt made SPMD, whose barriers read
        // the mode at run time and where the stores cost registers
        // (`no_kernel_costs_more_than_with_llvm19`).
        let (n, size) = team();
        state::set_spmd_region_fields(size, n > 1);
    } else {
        if tid == 0 {
            let (n, size) = team();
            state::set_spmd_region_fields(size, n > 1);
        }
        arch::sync_threads_aligned();
    }
    let (_, size) = team();
    // Stated for the optimizer, so the region's ICV queries fold to constants.
    // SAFETY: this thread stored them above, or thread 0 did before the
    // barrier; nobody changes them until the barrier after the region.
    unsafe {
        state::assume_team_level_one();
        state::assume_team_size(size);
    }
    // From the size, not from `n < num_threads_in_block()` after the region
    // (both numbers live across it) nor `team()`'s count
    // (`lto_region_team_size_folds_in_a_partial_team`).
    let partial_team = size != 0;
    let n = if partial_team { size } else { mapping::num_threads_in_block() };
    // Without this fact LLVM keeps the path of threads outside a partial team
    // where the team is the block, and with `-foffload-lto` the shared stack
    // with it (`no_kernel_costs_more_than_with_llvm19_with_offload_lto`). Not
    // in the compile-time copy, where it costs straight-line kernels registers
    // (`no_kernel_costs_more_than_with_llvm19`).
    if config::serves_out_of_line_callers() {
        // SAFETY: true of every thread.
        unsafe { core::hint::assert_unchecked(tid < mapping::num_threads_in_block()) };
    }
    if tid < n {
        let n_states = thread_state_mark();
        // SAFETY: forwarded from the caller.
        unsafe { invoke_microtask::<ANY_ARITY>(outlined, tid as i32, args, nargs) };
        // The region's tasks complete before it ends.
        crate::tasks::detach::wait_all_if_used();
        state::drop_states_since(n_states);
        if partial_team {
            arch::sync_threads_or(sync::BARRIER_PARTIAL_SPMD_TEAM, true);
        }
    } else {
        // Outside a team smaller than the block: join each of the team's
        // barriers (`sync::team_barrier`) until one says the region is over;
        // a block barrier would pair with the team's first and run ahead.
        while !arch::sync_threads_or(sync::BARRIER_PARTIAL_SPMD_TEAM, false) {}
    }
    // Every thread is done with the region's values before any clears them.
    arch::sync_threads_aligned();
    // Every thread clears the fields itself, with no second barrier
    // (`spmd_region_in_a_team_loop_costs_two_block_barriers`). With
    // `-foffload-lto` openmp-opt finds the stores dead where the kernel ends
    // after the region, and drops the barrier above too
    // (`lto_kernels_end_without_a_barrier_where_no_per_thread_array_is_made`).
    state::clear_spmd_region_fields();
}

/// The main thread's side of a generic-mode region; `false` when the team
/// would be one thread, or the workers cannot read the captured variables,
/// and the caller must run the region serialized. Inlined, so clang's
/// constant `nargs` and wrapper fold away the sharing buffer's heap path,
/// whose calls would set every generic kernel's registers
/// (`no_kernel_costs_more_than_with_llvm19`), and the wrapper-less path.
#[inline(always)]
unsafe fn generic_region(num_threads: i32, outlined: *mut c_void, wrapper: *mut c_void, args: *mut *mut c_void, nargs: i64) -> bool {
    let n = threads_for_region(num_threads, false);
    // SAFETY: forwarded from the caller.
    if n <= 1 || (wrapper.is_null() && unsafe { block_is_main_thread_local(args, nargs) }) {
        return false;
    }
    let shared = memory::begin_sharing_variables(nargs as u64);
    // SAFETY: `args` holds `nargs` pointers and `shared` room for as many.
    unsafe { memory::share_variables(args, shared, nargs as usize) };
    // Without a wrapper the workers run the runtime's, which finds the region
    // and its argument count in the last two inline slots.
    let work = if wrapper.is_null() {
        // SAFETY: as above.
        unsafe { share_irbuilder_region(outlined, shared, nargs) };
        irbuilder_wrapper as *mut c_void
    } else {
        wrapper
    };
    let all = n == mapping::max_team_threads_at_entry(false);
    state::update_team(|t| {
        t.parallel_team_size = if all { 0 } else { n };
        t.parallel_region_fn = work;
        t.icvs.level = 1;
        t.icvs.active_level = 1;
    });
    sync::all_threads(); // workers start the region
    sync::all_threads(); // workers are done
    state::update_team(|t| {
        t.parallel_team_size = 0;
        t.parallel_region_fn = core::ptr::null_mut();
        t.icvs.level = 0;
        t.icvs.active_level = 0;
    });
    memory::end_sharing_variables_of(nargs as u64);
    true
}

/// Whether the captured variables of a region without a wrapper (the
/// OpenMPIRBuilder's) are in the main thread's local memory, where flang 22
/// at -O0 puts them (an `alloca` in the kernel; a worker's load of that
/// address reads its own local memory). Their size is not passed, so they
/// cannot be copied, and such a region runs serialized: a team of one, with
/// the right values. flang after 22 puts the block in shared memory
/// (llvm/llvm-project PR 161863).
///
/// # Safety
/// `args` holds `nargs` pointers.
#[inline(always)]
unsafe fn block_is_main_thread_local(args: *mut *mut c_void, nargs: i64) -> bool {
    // SAFETY: forwarded from the caller.
    nargs == 1 && arch::is_thread_local_address(unsafe { *args }.cast())
}

/// The inline slots of a region without a wrapper that hold the region and
/// its argument count: the last two, at constant indices, so that
/// openmp-opt, which sees this path in the out-of-line copy, still forwards
/// the value of each of clang's slots.
const IRBUILDER_REGION_SLOT: usize = state::SHARED_ARG_SLOTS - 1;
const IRBUILDER_NARGS_SLOT: usize = state::SHARED_ARG_SLOTS - 2;

/// Publishes the region of a generic-mode call without a wrapper for
/// [`irbuilder_wrapper`]. The OpenMPIRBuilder passes its captured variables
/// as one block (`nargs` 0 or 1), below those two slots; more traps.
///
/// # Safety
/// `shared` is the buffer of `begin_sharing_variables(nargs)`.
#[inline(always)]
unsafe fn share_irbuilder_region(outlined: *mut c_void, shared: *mut *mut c_void, nargs: i64) {
    if !(0..=1).contains(&nargs) {
        debug::fatal(debug::message!("a generic-mode region without a wrapper function takes more than one argument block: __kmpc_parallel_60"))
    }
    // SAFETY: with `nargs` <= 1 `shared` is the inline slots.
    unsafe {
        *shared.add(IRBUILDER_REGION_SLOT) = outlined;
        *shared.add(IRBUILDER_NARGS_SLOT) = nargs as usize as *mut c_void;
    }
}

/// The workers' wrapper for a generic-mode region the OpenMPIRBuilder (flang)
/// passed without one: it calls the region with the block, or with nothing.
/// Only those two arities: nvlink sizes the state machine's call by the
/// wrappers whose address is taken, and a 32-argument call would set every
/// generic kernel's registers. Only the archive's LTO member, which flang's
/// calls reach, keeps it (`ir_rewrite::for_compile_time_link`).
unsafe extern "C-unwind" fn irbuilder_wrapper(_zero: i16, tid: i32) {
    let slots = memory::shared_variables();
    // SAFETY: the main thread stored them before the barrier that released
    // this worker (`share_irbuilder_region`) and keeps them until the next one.
    let (outlined, has_block) = unsafe { (*slots.add(IRBUILDER_REGION_SLOT), !(*slots.add(IRBUILDER_NARGS_SLOT)).is_null()) };
    let (mut g, mut b) = (tid, 0i32);
    if has_block {
        // SAFETY: the OpenMPIRBuilder's region takes `(i32*, i32*, block*)`.
        unsafe { call_with::<1>(outlined, &mut g, &mut b, slots) }
    } else {
        // SAFETY: and `(i32*, i32*)` without captured variables.
        unsafe { call_with::<0>(outlined, &mut g, &mut b, slots) }
    }
}

/// `__kmpc_kernel_parallel`: the region a worker runs next, and whether it is
/// part of that region's team. A null function means the kernel is done.
pub fn kernel_parallel(work: &mut *mut c_void) -> bool {
    *work = state::team(|t| t.parallel_region_fn);
    let in_team = !work.is_null() && mapping::thread_id_in_block() < mapping::active_team_size_in(false);
    if in_team {
        // SAFETY: as in `spmd_region`: the main thread published level 1
        // before the barrier that released this worker, and it stays until
        // the barrier that ends the region.
        unsafe { state::assume_team_level_one() };
    }
    in_team
}

/// `__kmpc_kernel_end_parallel`: the region's tasks complete (`detach`), and
/// ICV changes made inside it go.
pub fn kernel_end_parallel() {
    crate::tasks::detach::wait_all_if_used();
    state::drop_states_since(core::ptr::null_mut());
}

/// The calling thread's current state, to restore after a region.
fn thread_state_mark() -> *mut state::ThreadState {
    state::current_thread_state()
}

/// Calls clang's generic-mode wrapper `void(i16, i32)` for thread `tid`.
///
/// # Safety
/// `wrapper` is such a function.
pub unsafe fn invoke_wrapper(wrapper: *mut c_void, tid: u32) {
    // SAFETY: the caller guarantees the type.
    let f: unsafe extern "C-unwind" fn(i16, i32) = unsafe { core::mem::transmute(wrapper) };
    // SAFETY: as above.
    unsafe { f(0, tid as i32) }
}

/// See `call_with_many`.
const MAX_ARGS_OUT_OF_LINE: i64 = omprt_abi::MAX_OUT_OF_LINE_REGION_ARGS;
const _: () = assert!(MAX_ARGS_OUT_OF_LINE == 11, "call_with_many's trap message names 11");

/// Defines one caller per arity and the dispatcher over them.
///
/// Each caller is a function of its own while rustc optimises the runtime,
/// and `alwaysinline` once linked into a user's module
/// (`.omprt.always_inline_later`), like `__kmpc_parallel_60`: clang's
/// always-inliner runs after openmp-opt has seen the calls and before its
/// inliner. So openmp-opt turns the indirect call into a test against each
/// region the module passes, rather than the inliner growing one shared
/// caller past its budget (`no_kernel_costs_more_than_with_llvm19`); and at
/// -O0, where only the always-inliner runs, clang's constant `nargs` keeps
/// one arity's arm (`unoptimised_kernel_keeps_one_region_arity`).
macro_rules! microtask_arities {
    ($($n:literal => [$($i:literal)*],)*) => {
        /// Calls an outlined parallel region with its captured variables.
        ///
        /// The out-of-line copy (the LTO member) calls only the
        /// OpenMPIRBuilder's two arities, a block or none, itself: every
        /// arity would give it, and so every flang kernel, the registers of a
        /// 32-argument call, and even eight keep clang's `-foffload-lto` link
        /// of schedules.c in openmp-opt for minutes. With `ANY_ARITY` (its
        /// paths apart from `__kmpc_parallel_60`, which clang's calls reach
        /// at `-O0 -foffload-lto`) up to 11 go to `call_with_many`. The branch
        /// is on `llvm.is.constant` itself, which the code generator lowers to
        /// false there before removing the arms it cannot reach; clang's
        /// inlined calls keep the arm of their constant arity.
        ///
        /// # Safety
        /// As [`parallel_60`].
        #[inline(always)]
        pub unsafe fn invoke_microtask<const ANY_ARITY: bool>(outlined: *mut c_void, gtid: i32, args: *mut *mut c_void, nargs: i64) {
            let mut g = gtid;
            let mut b = 0i32;
            if is_out_of_line_call(nargs) {
                match nargs {
                    // SAFETY: forwarded from the caller.
                    0 => unsafe { call_with::<0>(outlined, &mut g, &mut b, args) },
                    // SAFETY: forwarded from the caller.
                    1 => unsafe { call_with::<1>(outlined, &mut g, &mut b, args) },
                    // SAFETY: forwarded from the caller.
                    _ if ANY_ARITY => unsafe { call_with_many(outlined, &mut g, &mut b, args, nargs) },
                    // `parallel_60` sends more arguments to the copies apart.
                    _ => debug::fatal(debug::message!("a region of more than one argument on the path for one block: __kmpc_parallel_60")),
                }
                return;
            }
            match nargs {
                $(
                    // SAFETY: forwarded from the caller.
                    $n => unsafe { call_with::<$n>(outlined, &mut g, &mut b, args) },
                )*
                _ => debug::fatal(debug::message!("more than 32 captured variables in a parallel region: __kmpc_parallel_60")),
            }
        }

        /// The arities above the OpenMPIRBuilder's, for clang's calls at `-O0
        /// -foffload-lto`: apart, since nvlink gives every kernel that may
        /// call it (flang's too) its registers, and only up to
        /// `omprt_abi::MAX_OUT_OF_LINE_REGION_ARGS`, a call of which takes
        /// about what `__kmpc_parallel_60` itself takes (a call costs about
        /// 4.5 registers per argument). Written out, not through
        /// [`call_with`], which the `-O0` link would leave out of line.
        ///
        /// # Safety
        /// As [`parallel_60`].
        #[inline(never)]
        unsafe fn call_with_many(outlined: *mut c_void, g: *mut i32, b: *mut i32, args: *mut *mut c_void, nargs: i64) {
            match nargs {
                $(
                    $n if $n >= 2 && $n <= MAX_ARGS_OUT_OF_LINE => microtask_arities!(@call outlined, g, b, args, [$($i)*]),
                )*
                _ => debug::fatal(debug::message!(
                    "a parallel region with more than 11 arguments called out of line (clang -O0 with ",
                    "-foffload-lto: build with -O1 or more, or without -foffload-lto): __kmpc_parallel_60"
                )),
            }
        }

        /// # Safety
        /// `outlined` takes `(i32*, i32*)` and `N` pointers; `args` holds `N`.
        #[inline(never)]
        #[cfg_attr(target_arch = "nvptx64", unsafe(link_section = ".omprt.always_inline_later"))]
        unsafe fn call_with<const N: usize>(outlined: *mut c_void, g: *mut i32, b: *mut i32, args: *mut *mut c_void) {
            match N {
                $(
                    $n => microtask_arities!(@call outlined, g, b, args, [$($i)*]),
                )*
                _ => {}
            }
        }
    };
    // One call of the region with the captured variables `args[i]` for each `i`.
    (@call $outlined:ident, $g:ident, $b:ident, $args:ident, [$($i:literal)*]) => {{
        // SAFETY: clang's outlined function takes exactly this many pointers.
        let f: unsafe extern "C-unwind" fn(*mut i32, *mut i32 $(, microtask_arities!(@ptr $i))*) =
            unsafe { core::mem::transmute($outlined) };
        // SAFETY: `args` holds that many pointers.
        unsafe { f($g, $b $(, *$args.add($i))*) }
    }};
    (@ptr $i:literal) => { *mut c_void };
}

microtask_arities! {

        0 => [],
        1 => [0],
        2 => [0 1],
        3 => [0 1 2],
        4 => [0 1 2 3],
        5 => [0 1 2 3 4],
        6 => [0 1 2 3 4 5],
        7 => [0 1 2 3 4 5 6],
        8 => [0 1 2 3 4 5 6 7],
        9 => [0 1 2 3 4 5 6 7 8],
        10 => [0 1 2 3 4 5 6 7 8 9],
        11 => [0 1 2 3 4 5 6 7 8 9 10],
        12 => [0 1 2 3 4 5 6 7 8 9 10 11],
        13 => [0 1 2 3 4 5 6 7 8 9 10 11 12],
        14 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13],
        15 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14],
        16 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15],
        17 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16],
        18 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17],
        19 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18],
        20 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19],
        21 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20],
        22 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21],
        23 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22],
        24 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23],
        25 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24],
        26 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25],
        27 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26],
        28 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27],
        29 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28],
        30 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29],
        31 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30],
        32 => [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31],
}
