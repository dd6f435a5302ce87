//! `detach`: tasks that complete when their event is fulfilled, and the
//! tasks and waits that must wait for them.
//!
//! Every task runs when it is created ([`crate::tasks`]) unless it depends
//! on a sibling that has not completed (a detached task whose event is not
//! fulfilled, or a task deferred for that reason). Such a task is
//! *deferred*: its creating thread runs it at a later wait once its
//! dependences are met (`taskwait`, a `taskgroup`'s end, dependences, a
//! barrier, the end of a region or of the kernel). Running it at once would
//! break the dependence, and waiting there would hang a program that
//! fulfils the event later on the same thread, which OpenMP allows.
//!
//! One list per device (in device memory, under a spin lock), in creation
//! order, of the tasks that have not completed: detached, deferred, and
//! those with `detach` it knows from `__kmpc_task_allow_completion_event`
//! on (the entry is the event handle). The runtime reaches this module only
//! through [`hooks`], a table that only that function publishes: elsewhere
//! its load folds to null with every hook, and at -O0 the calls through it
//! are indirect calls of functions the program does not contain, where
//! direct calls would give every kernel their registers
//! (`no_kernel_costs_more_than_with_llvm19_at_o0`).
#![allow(unsafe_code)]

use crate::execution::mapping;
use crate::{arch, memory, tasks};
use core::cell::UnsafeCell;
use core::ffi::c_void;
use core::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

/// clang's `kmp_depend_info`: an address, its length, and the kind.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct DependInfo {
    pub base_addr: u64,
    pub len: u64,
    pub flags: u8,
}

/// Kind bits of [`DependInfo::flags`] as clang 22 writes them.
pub mod dep_flags {
    pub const IN: u8 = 0x1;
    pub const OUT: u8 = 0x2;
    pub const MUTEXINOUTSET: u8 = 0x4;
    pub const INOUTSET: u8 = 0x8;
    /// `omp_all_memory`.
    pub const ALL_MEMORY: u8 = 0x80;
}

/// Whether a task with dependence `b` must wait for a sibling created
/// before it with dependence `a`. Two `in`s, two `inoutset`s and two
/// `mutexinoutset`s of one address do not order their tasks (tasks of one
/// mutual-exclusion set run here one at a time anyway).
fn conflicts(a: &DependInfo, b: &DependInfo) -> bool {
    use dep_flags::*;
    if a.flags & ALL_MEMORY != 0 || b.flags & ALL_MEMORY != 0 {
        return true;
    }
    if a.base_addr != b.base_addr {
        return false;
    }
    let class = |f: u8| {
        if f & OUT != 0 {
            OUT
        } else if f & MUTEXINOUTSET != 0 {
            MUTEXINOUTSET
        } else if f & INOUTSET != 0 {
            INOUTSET
        } else {
            IN
        }
    };
    let (x, y) = (class(a.flags), class(b.flags));
    x == OUT || x != y
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// A task with `detach` that has not ended its body and is not
    /// deferred: siblings do not wait for it yet (none can be created on its
    /// thread meanwhile).
    Known,
    /// Waiting until its dependences are met.
    Deferred,
    /// A deferred task its thread runs now.
    Running,
    /// Ended its body; completes when its event is fulfilled.
    Detached,
    /// The start of a `taskgroup` (see [`end_taskgroup`]).
    Group,
}

/// One task that has not completed, or a taskgroup's start.
struct Entry {
    next: *mut Entry,
    /// Creation order.
    seq: u64,
    /// The thread that created it ([`me`]), the only one that runs it.
    owner: u64,
    /// The task that created it ([`context_key`]): dependences order siblings only.
    parent: usize,
    kind: Kind,
    /// A task with `detach`.
    detachable: bool,
    /// The event was fulfilled before the task ended its body.
    fulfilled: bool,
    /// The task, while it has not run (null for the empty task of
    /// `taskwait depend(...) nowait`).
    task: *mut c_void,
    gtid: i32,
    /// A copy of its dependences (heap), or null.
    deps: *mut DependInfo,
    ndeps: u32,
}

impl Entry {
    /// Whether later siblings and waits must wait for it.
    fn pending(&self) -> bool {
        matches!(self.kind, Kind::Deferred | Kind::Running | Kind::Detached)
    }

    fn deps(&self) -> &[DependInfo] {
        if self.deps.is_null() {
            return &[];
        }
        // SAFETY: `copy_deps` made `ndeps` of them.
        unsafe { core::slice::from_raw_parts(self.deps, self.ndeps as usize) }
    }
}

/// The device's list (see the module docs).
pub struct PendingTasks {
    lock: AtomicU32,
    list: UnsafeCell<List>,
}

struct List {
    head: *mut Entry,
    next_seq: u64,
}

// SAFETY: `list` is only touched under `lock`.
unsafe impl Sync for PendingTasks {}
// SAFETY: as above; the simulation hands the device's statics to its threads.
unsafe impl Send for PendingTasks {}

impl PendingTasks {
    pub const fn new() -> Self {
        PendingTasks { lock: AtomicU32::new(0), list: UnsafeCell::new(List { head: core::ptr::null_mut(), next_seq: 1 }) }
    }
}

impl Default for PendingTasks {
    fn default() -> Self {
        Self::new()
    }
}

/// What the rest of the runtime calls, once the program made a task with
/// `detach` on this device.
pub struct Hooks {
    /// `__kmpc_omp_task_with_deps`: whether the task must wait for a
    /// sibling, in which case it is kept to run later (`defer_if_blocked`).
    pub defer_if_blocked: unsafe fn(i32, *mut c_void, i32, *const c_void) -> bool,
    /// A task's body ended (`body_ended`).
    pub body_ended: fn(*mut c_void),
    /// A task ended (`task_ended`); its header's address.
    pub task_ended: fn(usize),
    /// `taskwait`.
    pub wait_children: fn(),
    /// `taskyield`: runs a kept child whose dependences are met, if any.
    pub yield_to_a_child: fn(),
    /// `taskwait depend(...)`, and with `true` an `if(0)` task's dependences.
    pub wait_dependences: unsafe fn(i32, *const c_void, bool),
    /// `taskwait depend(...) nowait`.
    pub empty_task_with_deps: unsafe fn(i32, *const c_void),
    /// A barrier, the end of a region or of the kernel.
    pub wait_all: fn(),
    pub begin_taskgroup: fn(),
    pub end_taskgroup: fn(),
}

static HOOKS: Hooks = Hooks {
    defer_if_blocked: defer_if_blocked_raw,
    body_ended,
    task_ended,
    wait_children,
    yield_to_a_child,
    wait_dependences: wait_dependences_raw,
    empty_task_with_deps: empty_task_with_deps_raw,
    wait_all,
    begin_taskgroup,
    end_taskgroup,
};

/// [`Hooks::wait_all`], once the program made a task with `detach`. Inlined:
/// at -O0 a function of its own would add a frame to every region that calls
/// it (`no_kernel_costs_more_than_with_llvm19_at_o0`).
#[inline(always)]
pub fn wait_all_if_used() {
    if let Some(detach) = hooks() {
        (detach.wait_all)();
    }
}

arch::device_static! {
    /// The hooks, written only by [`allow_completion_event`].
    static DETACH_HOOKS: AtomicPtr<Hooks> = AtomicPtr::new(core::ptr::null_mut());
}
arch::device_static! {
    static DETACH_TASKS: PendingTasks = PendingTasks::new();
}

/// The hooks, once the program made a task with `detach` on this device.
#[inline(always)]
pub fn hooks() -> Option<&'static Hooks> {
    // SAFETY: null, or `HOOKS` (set by `allow_completion_event`).
    unsafe { DETACH_HOOKS.get().load(Ordering::Acquire).as_ref() }
}

/// The list, locked, for `f`. No task runs inside `f`.
fn with_list<R>(f: impl FnOnce(&mut List) -> R) -> R {
    let tasks = DETACH_TASKS.get();
    crate::sync::set_lock(&tasks.lock);
    // SAFETY: the lock is held.
    let r = f(unsafe { &mut *tasks.list.get() });
    crate::sync::unset_lock(&tasks.lock);
    r
}

/// The calling thread, unique on the device.
fn me() -> u64 {
    (u64::from(arch::block_id()) << 32) | u64::from(mapping::thread_id_in_block())
}

/// The task whose children the calling thread creates now: the explicit
/// task it runs, or its implicit task at the current level.
fn context_key() -> usize {
    tasks::context_key()
}

impl List {
    fn iter(&self) -> impl Iterator<Item = *mut Entry> + '_ {
        let mut e = self.head;
        core::iter::from_fn(move || {
            if e.is_null() {
                return None;
            }
            let this = e;
            // SAFETY: entries of the list are live while it is locked.
            e = unsafe { (*e).next };
            Some(this)
        })
    }

    /// Appends a new entry (creation order is list order).
    fn push(&mut self, owner: u64, parent: usize, kind: Kind) -> *mut Entry {
        let e = memory::heap_alloc(core::mem::size_of::<Entry>() as u64, memory::heap::exhausted::DETACH).cast::<Entry>();
        let seq = self.next_seq;
        self.next_seq += 1;
        let entry = Entry {
            next: core::ptr::null_mut(),
            seq,
            owner,
            parent,
            kind,
            detachable: false,
            fulfilled: false,
            task: core::ptr::null_mut(),
            gtid: 0,
            deps: core::ptr::null_mut(),
            ndeps: 0,
        };
        // SAFETY: a fresh block of the entry's size.
        unsafe { e.write(entry) };
        let mut link = &raw mut self.head;
        // SAFETY: links of live entries.
        unsafe {
            while !(*link).is_null() {
                link = &raw mut (**link).next;
            }
            *link = e;
        }
        e
    }

    /// Takes `e` out of the list and frees it.
    fn remove(&mut self, e: *mut Entry) {
        let mut link = &raw mut self.head;
        // SAFETY: links of live entries; `e` is one of them.
        unsafe {
            while *link != e {
                link = &raw mut (**link).next;
            }
            *link = (*e).next;
            if !(*e).deps.is_null() {
                arch::free((*e).deps.cast());
            }
            arch::free(e.cast());
        }
    }

    /// The entry of `task`, if the list knows it.
    fn find_task(&self, task: *mut c_void) -> Option<*mut Entry> {
        // SAFETY: live entries.
        self.iter().find(|&e| unsafe { (*e).task == task && matches!((*e).kind, Kind::Known | Kind::Running) })
    }

    /// Whether a pending entry of `owner`'s task `parent`, created before
    /// `before`, conflicts with `deps`.
    fn blocks(&self, owner: u64, parent: usize, before: u64, deps: &[DependInfo]) -> bool {
        self.iter().any(|e| {
            // SAFETY: live entries.
            let e = unsafe { &*e };
            e.pending()
                && e.owner == owner
                && e.parent == parent
                && e.seq < before
                && e.deps().iter().any(|a| deps.iter().any(|b| conflicts(a, b)))
        })
    }
}

/// A heap copy of clang's dependence array (which lives in the creator's frame).
fn copy_deps(deps: &[DependInfo]) -> *mut DependInfo {
    if deps.is_empty() {
        return core::ptr::null_mut();
    }
    let copy = memory::heap_alloc(core::mem::size_of_val(deps) as u64, memory::heap::exhausted::DETACH).cast::<DependInfo>();
    // SAFETY: room for `deps.len()` entries.
    unsafe { core::ptr::copy_nonoverlapping(deps.as_ptr(), copy, deps.len()) };
    copy
}

/// clang's `(ndeps, dep_list)` as a slice.
///
/// # Safety
/// `deps` points to `ndeps` entries, or `ndeps` is 0.
unsafe fn dep_slice<'a>(ndeps: i32, deps: *const c_void) -> &'a [DependInfo] {
    if ndeps <= 0 || deps.is_null() {
        return &[];
    }
    // SAFETY: forwarded from the caller.
    unsafe { core::slice::from_raw_parts(deps.cast(), ndeps as usize) }
}

/// `__kmpc_task_allow_completion_event`: the handle of `task`'s event, the
/// task's entry in the list.
pub fn allow_completion_event(task: *mut c_void) -> *mut c_void {
    // Through `black_box`: knowing the one value ever stored, LLVM would
    // turn the calls through the table into direct calls, in every kernel.
    let table = core::hint::black_box(&raw const HOOKS);
    DETACH_HOOKS.get().store(table.cast_mut(), Ordering::Release);
    let (owner, parent) = (me(), context_key());
    with_list(|l| {
        let e = l.push(owner, parent, Kind::Known);
        // SAFETY: the entry just made.
        unsafe {
            (*e).task = task;
            (*e).detachable = true;
        }
        e.cast()
    })
}

/// `omp_fulfill_event`: a detached task that ended its body completes; one
/// that has not ends that way.
pub fn fulfill(event: *mut c_void) {
    let e = event.cast::<Entry>();
    with_list(|l| {
        // SAFETY: a handle from `allow_completion_event` whose task has not
        // completed (fulfilling an event twice is not allowed).
        if unsafe { (*e).kind } == Kind::Detached {
            l.remove(e);
        } else {
            // SAFETY: as above.
            unsafe { (*e).fulfilled = true };
        }
    })
}

/// [`defer_if_blocked`] with clang's `(ndeps, dep_list)`.
///
/// # Safety
/// `deps` points to `ndeps` entries, or `ndeps` is 0.
unsafe fn defer_if_blocked_raw(gtid: i32, task: *mut c_void, ndeps: i32, deps: *const c_void) -> bool {
    // SAFETY: forwarded from the caller.
    defer_if_blocked(gtid, task, unsafe { dep_slice(ndeps, deps) })
}

/// For `__kmpc_omp_task_with_deps`: whether the task must wait for a
/// sibling, in which case it is kept to run later and the caller must not
/// run it. A task with `detach` that runs now keeps its dependences for its
/// siblings to wait on once its body ends.
fn defer_if_blocked(gtid: i32, task: *mut c_void, deps: &[DependInfo]) -> bool {
    let (owner, parent) = (me(), context_key());
    with_list(|l| {
        let known = l.find_task(task);
        let blocked = l.blocks(owner, parent, u64::MAX, deps);
        if !blocked && known.is_none() {
            return false;
        }
        let e = known.unwrap_or_else(|| l.push(owner, parent, Kind::Deferred));
        // SAFETY: a live entry of the list.
        unsafe {
            (*e).deps = copy_deps(deps);
            (*e).ndeps = deps.len() as u32;
            if blocked {
                (*e).kind = Kind::Deferred;
                (*e).task = task;
                (*e).gtid = gtid;
            }
        }
        blocked
    })
}

/// For `taskwait depend(...) nowait`: an empty task with these
/// dependences, kept if it must wait (later tasks then wait for it).
fn empty_task_with_deps(deps: &[DependInfo]) {
    let (owner, parent) = (me(), context_key());
    with_list(|l| {
        if l.blocks(owner, parent, u64::MAX, deps) {
            let e = l.push(owner, parent, Kind::Deferred);
            // SAFETY: the entry just made.
            unsafe {
                (*e).deps = copy_deps(deps);
                (*e).ndeps = deps.len() as u32;
            }
        }
    })
}

/// After a task's body (and its private copies' destructors), before the
/// task is freed: a task with `detach` whose event is not fulfilled stays
/// in the list, detached; a deferred one without leaves it.
fn body_ended(task: *mut c_void) {
    with_list(|l| {
        let Some(e) = l.find_task(task) else { return };
        // SAFETY: a live entry of the list.
        unsafe {
            (*e).task = core::ptr::null_mut();
            if (*e).detachable && !(*e).fulfilled {
                (*e).kind = Kind::Detached;
            } else {
                l.remove(e);
            }
        }
    })
}

/// For `__kmpc_omp_wait_deps`, which clang calls with the dependences of an
/// `if(0)` task just before it runs: a task with `detach` keeps them for its
/// siblings to wait on once its body ends.
fn note_if0_dependences(deps: &[DependInfo]) {
    let (owner, parent) = (me(), context_key());
    with_list(|l| {
        // SAFETY: live entries. Only the `if(0)` task about to run can be a
        // sibling still `Known` (each sibling before it ended its body).
        let known = l.iter().find(|&e| unsafe { (*e).kind == Kind::Known && (*e).owner == owner && (*e).parent == parent });
        if let Some(e) = known {
            // SAFETY: as above.
            unsafe {
                (*e).deps = copy_deps(deps);
                (*e).ndeps = deps.len() as u32;
            }
        }
    })
}

/// When a task ends, its children left in the list get a key of their own:
/// a later task may get its address.
fn task_ended(key: usize) {
    with_list(|l| {
        let orphans = (1usize << (usize::BITS - 1)) | l.next_seq as usize;
        l.next_seq += 1;
        for e in l.iter() {
            // SAFETY: live entries.
            unsafe {
                if (*e).parent == key {
                    (*e).parent = orphans;
                }
            }
        }
    })
}

/// Which of the calling thread's entries a wait waits for.
#[derive(Clone, Copy)]
enum Waited<'a> {
    /// Children of the current task (`taskwait`).
    Children(usize),
    /// Children of the current task with a conflicting dependence.
    Dependences(usize, &'a [DependInfo]),
    /// Everything created after `seq` (a taskgroup's tasks and theirs).
    Since(u64),
    /// Everything (a barrier, the end of a region or of the kernel).
    All,
}

impl Waited<'_> {
    fn covers(&self, e: &Entry) -> bool {
        match *self {
            Waited::Children(p) => e.parent == p,
            Waited::Dependences(p, deps) => e.parent == p && e.deps().iter().any(|a| deps.iter().any(|b| conflicts(a, b))),
            Waited::Since(seq) => e.seq > seq,
            Waited::All => true,
        }
    }
}

/// Runs the first deferred task of the calling thread that `waited` covers
/// and whose dependences are met; returns whether there was one. A wait
/// runs only tasks it waits for: all are descendants of the waiting task,
/// as tied tasks require.
fn run_one_ready(owner: u64, waited: Waited) -> bool {
    let ready = with_list(|l| {
        let found = l.iter().find(|&e| {
            // SAFETY: live entries.
            let e = unsafe { &*e };
            e.kind == Kind::Deferred && e.owner == owner && waited.covers(e) && !l.blocks(owner, e.parent, e.seq, e.deps())
        })?;
        // SAFETY: as above.
        unsafe { (*found).kind = Kind::Running };
        Some(found)
    });
    let Some(e) = ready else { return false };
    // SAFETY: a deferred entry is only run by its owner, once; its task came
    // from `__kmpc_omp_task_alloc` and was never run. Its task's end takes
    // it out of the list (`body_ended`).
    unsafe {
        let (task, gtid) = ((*e).task, (*e).gtid);
        if task.is_null() {
            with_list(|l| l.remove(e));
        } else {
            tasks::run(gtid, task);
        }
    }
    true
}

/// Waits until none of the calling thread's entries that `waited` covers
/// is pending, running the deferred ones as their dependences are met.
fn wait(waited: Waited) {
    let owner = me();
    loop {
        if run_one_ready(owner, waited) {
            continue;
        }
        // SAFETY: live entries.
        let left = with_list(|l| l.iter().any(|e| unsafe { (*e).owner == owner && (*e).pending() && waited.covers(&*e) }));
        if !left {
            return;
        }
        arch::spin_pause();
    }
}

/// `taskwait`: the current task's children have completed.
fn wait_children() {
    wait(Waited::Children(context_key()))
}

/// `taskyield`: runs one kept child of the current task whose dependences
/// are met, so that a thread that spins on `taskyield` waiting for such a
/// task's work does not hang.
fn yield_to_a_child() {
    run_one_ready(me(), Waited::Children(context_key()));
}

/// `taskwait depend(...)` and an `if(0)` task's dependences.
fn wait_dependences(deps: &[DependInfo]) {
    wait(Waited::Dependences(context_key(), deps))
}

/// [`wait_dependences`] with clang's `(ndeps, dep_list)`; for an `if(0)`
/// task, then [`note_if0_dependences`].
///
/// # Safety
/// `deps` points to `ndeps` entries, or `ndeps` is 0.
unsafe fn wait_dependences_raw(ndeps: i32, deps: *const c_void, if0: bool) {
    // SAFETY: forwarded from the caller.
    let deps = unsafe { dep_slice(ndeps, deps) };
    wait_dependences(deps);
    if if0 {
        note_if0_dependences(deps);
    }
}

/// [`empty_task_with_deps`] with clang's `(ndeps, dep_list)`.
///
/// # Safety
/// `deps` points to `ndeps` entries, or `ndeps` is 0.
unsafe fn empty_task_with_deps_raw(ndeps: i32, deps: *const c_void) {
    // SAFETY: forwarded from the caller.
    empty_task_with_deps(unsafe { dep_slice(ndeps, deps) })
}

/// Everything the calling thread created: at a barrier and at the end of a
/// region or of the kernel.
fn wait_all() {
    wait(Waited::All)
}

/// `__kmpc_taskgroup`: notes where the group starts.
fn begin_taskgroup() {
    let (owner, parent) = (me(), context_key());
    with_list(|l| {
        l.push(owner, parent, Kind::Group);
    });
}

/// `__kmpc_end_taskgroup`: waits for what the thread created since the
/// group's start, the group's tasks and their descendants. Without a start
/// of this task's (the first `detach` came inside the group), everything the
/// thread created, all of it inside the group.
fn end_taskgroup() {
    let (owner, parent) = (me(), context_key());
    let start = with_list(|l| {
        // SAFETY: live entries.
        l.iter().filter(|&e| unsafe { (*e).kind == Kind::Group && (*e).owner == owner && (*e).parent == parent }).last()
    });
    // SAFETY: the thread's own group entry stays until it takes it out below.
    wait(start.map_or(Waited::All, |g| Waited::Since(unsafe { (*g).seq })));
    if let Some(g) = start {
        with_list(|l| l.remove(g));
    }
}
