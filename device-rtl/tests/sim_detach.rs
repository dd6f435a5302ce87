//! Tasks with `detach` in the host simulation, lowered the way clang 22 does
//! (`__kmpc_omp_task_alloc` with the detachable flag, then
//! `__kmpc_task_allow_completion_event`, then `__kmpc_omp_task_with_deps`
//! with `kmp_depend_info` entries). A task that depends on a sibling whose
//! event is not fulfilled runs later, at a wait of the thread that made it.

mod common;

use common::*;
use omprt_abi::ExecMode;
use omprt_device_rtl::arch::sim;
use omprt_device_rtl::tasks::detach::{DependInfo, dep_flags};
use omprt_device_rtl::exports::{kernel::*, sync::*, task::*};
use proptest::prelude::*;
use std::ffi::c_void;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// clang's `kmp_task_t`, then the task's privates: its id and, for a task
/// that fulfils its own event, the handle.
#[repr(C)]
struct DetTask {
    shareds: *mut *mut c_void,
    entry: *mut c_void,
    part_id: i32,
    data1: u64,
    data2: u64,
    id: u32,
    own_event: u64,
}

/// clang's task flags: tied, and `detach`.
const TIED: i32 = 0x1;
const DETACHABLE: i32 = 0x40;

/// What the tasks did, on one clock.
#[derive(Default)]
struct Log {
    clock: AtomicU64,
    /// `(task id, 's'tart / 'e'nd / 'f'ulfilled, time)`.
    events: Mutex<Vec<(u32, char, u64)>>,
}

impl Log {
    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::SeqCst) + 1
    }

    fn note(&self, id: u32, what: char) -> u64 {
        let t = self.tick();
        self.events.lock().unwrap().push((id, what, t));
        t
    }

    fn times(&self, id: u32, what: char) -> Vec<u64> {
        self.events.lock().unwrap().iter().filter(|e| e.0 == id && e.1 == what).map(|e| e.2).collect()
    }

    fn once(&self, id: u32, what: char) -> u64 {
        let t = self.times(id, what);
        assert_eq!(t.len(), 1, "task {id}: {what:?} {} times", t.len());
        t[0]
    }

    fn ran(&self, id: u32) -> bool {
        !self.times(id, 's').is_empty()
    }
}

extern "C-unwind" fn logged_body(_gtid: i32, task: *mut c_void) -> i32 {
    let t = task.cast::<DetTask>();
    unsafe {
        let log = &*(*(*t).shareds as *const Log);
        log.note((*t).id, 's');
        if (*t).own_event != 0 {
            log.note((*t).id, 'f');
            omp_fulfill_event((*t).own_event);
        }
        log.note((*t).id, 'e');
    }
    0
}

/// A task as clang makes one: `(task, event handle or 0)`.
unsafe fn make(log: &Log, id: u32, detachable: bool) -> (*mut c_void, u64) {
    let flags = if detachable { TIED | DETACHABLE } else { TIED };
    unsafe {
        let task = __kmpc_omp_task_alloc(std::ptr::null(), 0, flags, std::mem::size_of::<DetTask>() as u64, 8, logged_body as *mut c_void);
        let t = task.cast::<DetTask>();
        *(*t).shareds = log as *const Log as *mut c_void;
        (*t).id = id;
        (*t).own_event = 0;
        let event = if detachable { __kmpc_task_allow_completion_event(std::ptr::null(), 0, task) as u64 } else { 0 };
        (task, event)
    }
}

unsafe fn submit(task: *mut c_void, deps: &[DependInfo]) {
    unsafe {
        __kmpc_omp_task_with_deps(std::ptr::null(), 0, task, deps.len() as i32, deps.as_ptr() as *mut c_void, 0, std::ptr::null_mut());
    }
}

/// A detached task that writes x, then a task that reads it; the first's
/// event handle.
unsafe fn writer_then_reader(log: &Log, writer: u32, reader: u32) -> u64 {
    unsafe {
        let (a, ev) = make(log, writer, true);
        submit(a, &[dep(0, INOUT)]);
        let (b, _) = make(log, reader, false);
        submit(b, &[dep(0, IN)]);
        ev
    }
}

fn dep(addr: u64, flags: u8) -> DependInfo {
    DependInfo { base_addr: 0x1000 + 8 * addr, len: 8, flags }
}

const IN: u8 = dep_flags::IN;
const INOUT: u8 = dep_flags::IN | dep_flags::OUT;

fn one_thread() -> Shared<omprt_abi::KernelEnvironment> {
    Shared(kernel_env(ExecMode::SPMD, 1))
}

/// Runs `body` in a kernel of one thread, between the kernel's start and end.
fn on_one_thread(body: impl Fn() + Sync) {
    let env = one_thread();
    sim::launch(1, 1, || {
        // SAFETY: a kernel environment as clang emits one.
        unsafe { __kmpc_target_init(env.get(), no_launch_env()) };
        body();
        __kmpc_target_deinit();
    });
}

/// The heap blocks the thread holds once its team's task records exist.
unsafe fn live_blocks_after_a_task(log: &Log) -> i64 {
    unsafe {
        let (t, _) = make(log, 999, false);
        submit(t, &[]);
    }
    sim::live_heap_blocks()
}

/// A task that depends on a detached sibling runs at the `taskwait` after
/// the event is fulfilled, not when created nor when the event is; a task
/// that does not depend on it runs at once. Everything is given back.
#[test]
fn a_task_waits_for_its_detached_sibling() {
    let log = Log::default();
    on_one_thread(|| unsafe {
        let live = live_blocks_after_a_task(&log);
        let (a, ev) = make(&log, 1, true);
        submit(a, &[dep(0, INOUT)]);
        assert!(log.ran(1), "the detached task did not run when created");
        let (b, _) = make(&log, 2, false);
        submit(b, &[dep(0, IN)]);
        let (c, _) = make(&log, 3, false);
        submit(c, &[dep(1, INOUT)]);
        assert!(!log.ran(2), "a task ran before the detached task it depends on completed");
        assert!(log.ran(3), "an independent task did not run when created");
        let fulfilled = log.note(1, 'f');
        omp_fulfill_event(ev);
        assert!(!log.ran(2), "omp_fulfill_event ran a task (it is no task scheduling point)");
        __kmpc_omp_taskwait(std::ptr::null(), 0);
        assert!(log.once(2, 's') > fulfilled);
        assert_eq!(sim::live_heap_blocks(), live, "detach's records were not given back");
    });
}

/// A task that fulfils its own event completes with its body: its
/// dependents run at once.
#[test]
fn fulfilled_in_its_body_a_task_completes_with_it() {
    let log = Log::default();
    on_one_thread(|| unsafe {
        let (a, ev) = make(&log, 1, true);
        (*a.cast::<DetTask>()).own_event = ev;
        submit(a, &[dep(0, INOUT)]);
        let (b, _) = make(&log, 2, false);
        submit(b, &[dep(0, IN)]);
        assert!(log.ran(2), "the dependent of a task that completed did not run at once");
    });
}

/// The spec's rule, written apart from the runtime's: whether a task with
/// dependence `b` waits for an earlier sibling with `a`.
fn spec_conflict(a: &DependInfo, b: &DependInfo) -> bool {
    let all = dep_flags::ALL_MEMORY;
    if a.flags & all != 0 || b.flags & all != 0 {
        return true;
    }
    if a.base_addr != b.base_addr {
        return false;
    }
    let both = |f: u8| a.flags == f && b.flags == f;
    !(both(IN) || both(dep_flags::INOUTSET) || both(dep_flags::MUTEXINOUTSET))
}

#[derive(Clone, Debug)]
enum Fulfil {
    InBody,
    /// After the task of this index is created.
    After(usize),
    AtTheEnd,
}

#[derive(Clone, Debug)]
struct Spec {
    deps: Vec<(u64, u8)>,
    detached: Option<Fulfil>,
}

fn spec(n: usize) -> impl Strategy<Value = Spec> {
    let kind = prop::sample::select(vec![IN, INOUT, dep_flags::OUT, dep_flags::INOUTSET, dep_flags::MUTEXINOUTSET, dep_flags::ALL_MEMORY]);
    let fulfil = prop_oneof![Just(Fulfil::InBody), (0..n).prop_map(Fulfil::After), Just(Fulfil::AtTheEnd)];
    (prop::collection::vec((0u64..3, kind), 0..3), prop::option::of(fulfil)).prop_map(|(deps, detached)| Spec { deps, detached })
}

fn program() -> impl Strategy<Value = Vec<Spec>> {
    (1usize..10).prop_flat_map(|n| prop::collection::vec(spec(n), n))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Sibling tasks with random dependences, some detached and fulfilled in
    /// their body, after a later task is created, or before the final
    /// `taskwait`: each runs once; one waits for every earlier sibling it
    /// depends on to complete (a detached one: body ended and event
    /// fulfilled); one that depends on none still incomplete runs when
    /// created, any other later; all complete by the `taskwait`, and the
    /// runtime gives its records back.
    #[test]
    fn dependences_on_detached_tasks_order_their_siblings(program in program()) {
        let env = one_thread();
        let log = Log::default();
        let n = program.len();
        let deps: Vec<Vec<DependInfo>> = program.iter().map(|s| s.deps.iter().map(|&(a, f)| dep(a, f)).collect()).collect();
        let created = Mutex::new(vec![(0u64, 0u64); n]);
        let after_all = AtomicU64::new(0);
        sim::launch(1, 1, || unsafe {
            __kmpc_target_init(env.get(), no_launch_env());
            let live = live_blocks_after_a_task(&log);
            let mut events = vec![0u64; n];
            for (i, s) in program.iter().enumerate() {
                let (t, ev) = make(&log, i as u32, s.detached.is_some());
                events[i] = ev;
                if matches!(s.detached, Some(Fulfil::InBody)) {
                    (*t.cast::<DetTask>()).own_event = ev;
                }
                let before = log.tick();
                submit(t, &deps[i]);
                created.lock().unwrap()[i] = (before, log.tick());
                for (j, s) in program.iter().enumerate().take(i + 1) {
                    if matches!(s.detached, Some(Fulfil::After(k)) if k.max(j) == i) {
                        log.note(j as u32, 'f');
                        omp_fulfill_event(events[j]);
                    }
                }
            }
            for (j, s) in program.iter().enumerate() {
                if matches!(s.detached, Some(Fulfil::AtTheEnd)) {
                    log.note(j as u32, 'f');
                    omp_fulfill_event(events[j]);
                }
            }
            __kmpc_omp_taskwait(std::ptr::null(), 0);
            after_all.store(log.tick(), Ordering::SeqCst);
            assert_eq!(sim::live_heap_blocks(), live, "detach's records were not given back");
            __kmpc_target_deinit();
        });
        let created = created.into_inner().unwrap();
        let completion: Vec<u64> = (0..n as u32)
            .map(|i| {
                let end = log.once(i, 'e');
                if program[i as usize].detached.is_some() { end.max(log.once(i, 'f')) } else { end }
            })
            .collect();
        for j in 0..n {
            let start = log.once(j as u32, 's');
            prop_assert!(completion[j] < after_all.load(Ordering::SeqCst), "task {} completed after the taskwait", j);
            let mut blocked = false;
            for i in 0..j {
                let conflict = deps[i].iter().any(|a| deps[j].iter().any(|b| spec_conflict(a, b)));
                if conflict {
                    prop_assert!(completion[i] < start, "task {} started before task {}, which it depends on, completed", j, i);
                    blocked |= completion[i] > created[j].0;
                }
            }
            let (before, after) = created[j];
            if blocked {
                prop_assert!(start > after, "task {} ran when created, before a task it depends on completed", j);
            } else {
                prop_assert!(before < start && start < after, "task {} did not run when created, though nothing it depends on was incomplete", j);
            }
        }
    }
}

/// The event is fulfilled by another thread of the team: the creating
/// thread's `taskwait` waits for it, then runs the dependent task.
#[test]
fn another_thread_fulfils_the_event() {
    let env = Shared(kernel_env(ExecMode::SPMD, 2));
    let log = Log::default();
    let handle = AtomicU64::new(0);
    sim::launch(1, 2, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        if __kmpc_get_hardware_thread_id_in_block() == 0 {
            let ev = writer_then_reader(&log, 1, 2);
            handle.store(ev, Ordering::SeqCst);
            __kmpc_omp_taskwait(std::ptr::null(), 0);
            assert!(log.once(2, 's') > log.once(1, 'f'), "the dependent task ran before the event was fulfilled");
        } else {
            while handle.load(Ordering::SeqCst) == 0 {
                sim::spin_pause();
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            log.note(1, 'f');
            omp_fulfill_event(handle.load(Ordering::SeqCst));
        }
        __kmpc_target_deinit();
    });
    assert!(log.ran(2));
}

/// A barrier waits for the tasks of the threads that meet there: after it,
/// the deferred task another thread made has run.
#[test]
fn a_barrier_completes_the_tasks_before_it() {
    let env = Shared(kernel_env(ExecMode::SPMD, 2));
    let log = Log::default();
    let handle = AtomicU64::new(0);
    sim::launch(1, 2, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        if __kmpc_get_hardware_thread_id_in_block() == 0 {
            let ev = writer_then_reader(&log, 1, 2);
            handle.store(ev, Ordering::SeqCst);
        } else {
            while handle.load(Ordering::SeqCst) == 0 {
                sim::spin_pause();
            }
            log.note(1, 'f');
            omp_fulfill_event(handle.load(Ordering::SeqCst));
        }
        __kmpc_barrier(std::ptr::null(), 0);
        assert!(log.ran(2), "thread {}: past the barrier before the deferred task ran", __kmpc_get_hardware_thread_id_in_block());
        __kmpc_target_deinit();
    });
}

/// The end of the kernel runs what no wait did.
#[test]
fn the_kernel_end_runs_the_tasks_left() {
    let env = one_thread();
    let log = Log::default();
    sim::launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        let ev = writer_then_reader(&log, 1, 2);
        omp_fulfill_event(ev);
        __kmpc_target_deinit();
        assert!(log.ran(2), "the kernel ended before its deferred task ran");
    });
}

/// The end of a `taskgroup` waits for its tasks, a deferred one included;
/// one made before the group it leaves alone.
#[test]
fn a_taskgroup_waits_for_its_tasks() {
    let log = Log::default();
    on_one_thread(|| unsafe {
        let live = live_blocks_after_a_task(&log);
        // Before the group: detached, fulfilled only after it.
        let (outer, outer_ev) = make(&log, 10, true);
        submit(outer, &[dep(2, INOUT)]);
        __kmpc_taskgroup(std::ptr::null(), 0);
        let ev = writer_then_reader(&log, 1, 2);
        omp_fulfill_event(ev);
        __kmpc_end_taskgroup(std::ptr::null(), 0);
        assert!(log.ran(2), "the taskgroup ended before its deferred task ran");
        omp_fulfill_event(outer_ev);
        assert_eq!(sim::live_heap_blocks(), live, "detach's records were not given back");
    });
}

/// An `if(0)` task with `detach`: its dependences, given to
/// `__kmpc_omp_wait_deps`, order the siblings after it.
#[test]
fn an_undeferred_detached_task_orders_its_siblings() {
    let log = Log::default();
    on_one_thread(|| unsafe {
        let (a, ev) = make(&log, 1, true);
        let deps = [dep(0, INOUT)];
        __kmpc_omp_wait_deps(std::ptr::null(), 0, 1, deps.as_ptr() as *mut c_void, 0, std::ptr::null_mut());
        __kmpc_omp_task_begin_if0(std::ptr::null(), 0, a);
        logged_body(0, a);
        __kmpc_omp_task_complete_if0(std::ptr::null(), 0, a);
        let (b, _) = make(&log, 2, false);
        submit(b, &[dep(0, IN)]);
        assert!(!log.ran(2), "a task ran before the if(0) task it depends on completed");
        omp_fulfill_event(ev);
        __kmpc_omp_taskwait(std::ptr::null(), 0);
        assert!(log.ran(2));
    });
}

/// `taskwait depend(inout: x)` waits for the tasks of x only (an `in` would
/// not wait for x's readers); with `nowait` it is an empty task that later
/// writers of x wait for.
#[test]
fn taskwait_with_dependences_waits_for_those_only() {
    let log = Log::default();
    on_one_thread(|| unsafe {
        let x_ev = writer_then_reader(&log, 1, 2);
        let (y_writer, y_ev) = make(&log, 3, true);
        submit(y_writer, &[dep(1, INOUT)]);
        omp_fulfill_event(x_ev);
        let wait_x = [dep(0, INOUT)];
        __kmpc_omp_taskwait_deps_51(std::ptr::null(), 0, 1, wait_x.as_ptr() as *mut c_void, 0, std::ptr::null_mut(), 0);
        assert!(log.ran(2), "taskwait depend(inout: x) returned before x's reader ran");
        // y's writer is still detached: nowait waits for nothing, but the
        // next writer of y waits for it and for the empty task.
        let wait_y = [dep(1, IN)];
        __kmpc_omp_taskwait_deps_51(std::ptr::null(), 0, 1, wait_y.as_ptr() as *mut c_void, 0, std::ptr::null_mut(), 1);
        let (y_next, _) = make(&log, 4, false);
        submit(y_next, &[dep(1, INOUT)]);
        assert!(!log.ran(4));
        let fulfilled = log.note(3, 'f');
        omp_fulfill_event(y_ev);
        __kmpc_omp_taskwait(std::ptr::null(), 0);
        assert!(log.once(4, 's') > fulfilled);
    });
}

static PARENT_LOG: AtomicU64 = AtomicU64::new(0);
static PARENT_EVENTS: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// A task that leaves a detached child and its deferred dependent behind.
extern "C-unwind" fn leaves_children(_gtid: i32, _task: *mut c_void) -> i32 {
    unsafe {
        let log = &*(PARENT_LOG.load(Ordering::SeqCst) as *const Log);
        let ev = writer_then_reader(log, 1, 2);
        PARENT_EVENTS.lock().unwrap().push(ev);
    }
    0
}

/// Children a task leaves when it ends do not hold up the children of a
/// later task (which may get the same address), nor the `taskwait` of their
/// grandparent (which waits for children only); the kernel's end runs them.
#[test]
fn children_a_task_leaves_behind_keep_to_themselves() {
    let env = one_thread();
    let log = Log::default();
    PARENT_LOG.store(&log as *const Log as u64, Ordering::SeqCst);
    sim::launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        for _ in 0..2 {
            let parent = __kmpc_omp_task_alloc(std::ptr::null(), 0, TIED, std::mem::size_of::<DetTask>() as u64, 0, leaves_children as *mut c_void);
            submit(parent, &[]);
        }
        assert_eq!(log.times(1, 's').len(), 2, "the second parent's detached child waited for the first's children");
        __kmpc_omp_taskwait(std::ptr::null(), 0);
        assert!(!log.ran(2), "a deferred task ran before its sibling's event was fulfilled");
        for ev in PARENT_EVENTS.lock().unwrap().drain(..) {
            omp_fulfill_event(ev);
        }
        __kmpc_target_deinit();
    });
    assert_eq!(log.times(2, 's').len(), 2, "the kernel ended before the deferred tasks ran");
}

/// A parallel region's tasks complete before it ends: the deferred task a
/// thread of the region made runs at the region's end.
#[test]
fn a_parallel_region_completes_its_tasks() {
    static REGION_LOG: AtomicU64 = AtomicU64::new(0);
    extern "C-unwind" fn region(_g: *mut i32, _b: *mut i32) {
        unsafe {
            let log = &*(REGION_LOG.load(Ordering::SeqCst) as *const Log);
            let id = 10 * __kmpc_get_hardware_thread_id_in_block() as u32;
            let ev = writer_then_reader(log, id + 1, id + 2);
            omp_fulfill_event(ev);
            assert!(!log.ran(id + 2));
        }
    }
    let env = Shared(kernel_env(ExecMode::SPMD, 4));
    let log = Log::default();
    REGION_LOG.store(&log as *const Log as u64, Ordering::SeqCst);
    sim::launch(1, 4, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        omprt_device_rtl::exports::parallel::__kmpc_parallel_60(
            std::ptr::null(), 0, 1, -1, -1, region as *mut c_void, std::ptr::null_mut(), std::ptr::null_mut(), 0, 0,
        );
        let id = 10 * __kmpc_get_hardware_thread_id_in_block() as u32;
        assert!(log.ran(id + 2), "thread {id}: the region ended before its deferred task ran");
        __kmpc_target_deinit();
    });
}

static NESTED_LOG: AtomicU64 = AtomicU64::new(0);

fn nested_log() -> &'static Log {
    unsafe { &*(NESTED_LOG.load(Ordering::SeqCst) as *const Log) }
}

/// A nested region (run serialized): keeps a task that waits for a
/// detached one whose event it fulfils.
extern "C-unwind" fn inner_region(_g: *mut i32, _b: *mut i32) {
    unsafe {
        let ev = writer_then_reader(nested_log(), 1, 2);
        omp_fulfill_event(ev);
        assert!(!nested_log().ran(2));
    }
}

/// The outer region: a detached task of its own, fulfilled only after the
/// nested region, which must not wait for it.
extern "C-unwind" fn outer_region(_g: *mut i32, _b: *mut i32) {
    unsafe {
        let (own, own_ev) = make(nested_log(), 10, true);
        submit(own, &[dep(5, INOUT)]);
        omprt_device_rtl::exports::parallel::__kmpc_parallel_60(
            std::ptr::null(), 0, 1, -1, -1, inner_region as *mut c_void, std::ptr::null_mut(), std::ptr::null_mut(), 0, 0,
        );
        assert!(nested_log().ran(2), "the nested region ended before its kept task ran");
        omp_fulfill_event(own_ev);
    }
}

/// A serialized nested region's tasks complete before it ends, and only
/// those: the enclosing region's detached task, fulfilled after it, does
/// not hold it up.
#[test]
fn a_nested_region_completes_its_own_tasks_only() {
    let env = Shared(kernel_env(ExecMode::SPMD, 1));
    let log = Log::default();
    NESTED_LOG.store(&log as *const Log as u64, Ordering::SeqCst);
    sim::launch(1, 1, || unsafe {
        __kmpc_target_init(env.get(), no_launch_env());
        omprt_device_rtl::exports::parallel::__kmpc_parallel_60(
            std::ptr::null(), 0, 1, -1, -1, outer_region as *mut c_void, std::ptr::null_mut(), std::ptr::null_mut(), 0, 0,
        );
        __kmpc_target_deinit();
    });
}

static YIELD_FLAG: AtomicU64 = AtomicU64::new(0);

/// Sets the flag a spinning thread waits for.
extern "C-unwind" fn set_flag(_gtid: i32, _task: *mut c_void) -> i32 {
    YIELD_FLAG.store(1, Ordering::SeqCst);
    0
}

/// A thread that spins on `taskyield`, waiting for the work of a task kept
/// until a detached sibling completed, runs that task there.
#[test]
fn taskyield_runs_a_kept_child() {
    let log = Log::default();
    on_one_thread(|| unsafe {
        let (a, ev) = make(&log, 1, true);
        submit(a, &[dep(0, INOUT)]);
        let flagger = __kmpc_omp_task_alloc(std::ptr::null(), 0, TIED, std::mem::size_of::<DetTask>() as u64, 0, set_flag as *mut c_void);
        submit(flagger, &[dep(0, IN)]);
        omp_fulfill_event(ev);
        assert_eq!(YIELD_FLAG.load(Ordering::SeqCst), 0, "the kept task ran before a task scheduling point");
        __kmpc_omp_taskyield(std::ptr::null(), 0, 0);
        assert_eq!(YIELD_FLAG.load(Ordering::SeqCst), 1, "taskyield did not run the kept task whose dependences were met");
    });
}
