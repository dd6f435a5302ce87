//! The C library functions a target region may call (`assert`, `abort`,
//! `puts`, `memcmp`, `strlen`, `strcmp`, `strncmp`, libatomic's generic
//! operations) and `__llvm_omp_indirect_call_lookup`, in the host
//! simulation. The comparisons are checked against the host's own C
//! library.

mod common;

use common::trap_message;
use omprt_device_rtl::arch::sim;
use omprt_device_rtl::exports::libc::*;
use omprt_device_rtl::exports::misc::__llvm_omp_indirect_call_lookup;
use omprt_device_rtl::libc::indirect_call::{Entry, lookup_in};
use proptest::prelude::*;
use std::ffi::{CString, c_char, c_void};

// The host's C library: omprt's functions keep Rust names off the GPU.
unsafe extern "C" {
    #[link_name = "memcmp"]
    fn host_memcmp(l: *const c_void, r: *const c_void, n: usize) -> i32;
    #[link_name = "strcmp"]
    fn host_strcmp(l: *const c_char, r: *const c_char) -> i32;
    #[link_name = "strncmp"]
    fn host_strncmp(l: *const c_char, r: *const c_char, n: usize) -> i32;
    #[link_name = "strlen"]
    fn host_strlen(s: *const c_char) -> usize;
}

/// Bytes from a small alphabet, NUL included, so that strings share
/// prefixes, end early, and differ in bytes above 127 (compared unsigned).
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(prop_oneof![Just(0u8), Just(b'a'), Just(b'b'), Just(0x80), Just(0xff)], 0..12)
}

/// `v` with a NUL appended: every C function may stop at that end.
fn terminated(mut v: Vec<u8>) -> Vec<u8> {
    v.push(0);
    v
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn the_comparisons_agree_with_the_c_library(l in bytes(), r in bytes(), n in 0usize..14) {
        let (l, r) = (terminated(l), terminated(r));
        let shortest = l.len().min(r.len());
        unsafe {
            let (lp, rp) = (l.as_ptr(), r.as_ptr());
            let count = n.min(shortest);
            prop_assert_eq!(memcmp(lp.cast(), rp.cast(), count).signum(), host_memcmp(lp.cast(), rp.cast(), count).signum());
            prop_assert_eq!(strcmp(lp, rp).signum(), host_strcmp(lp.cast(), rp.cast()).signum());
            prop_assert_eq!(strncmp(lp, rp, n).signum(), host_strncmp(lp.cast(), rp.cast(), n).signum());
            prop_assert_eq!(strlen(lp), host_strlen(lp.cast()));
        }
    }
}

#[test]
fn puts_prints_each_threads_line() {
    let _ = sim::take_device_output();
    sim::launch(2, 40, || {
        let line = CString::new(format!("block {} thread {}", sim::block_id(), sim::thread_id_in_block())).unwrap();
        assert!(unsafe { puts(line.as_ptr().cast()) } >= 0);
    });
    let printed = sim::take_device_output();
    let mut lines: Vec<&str> = printed.lines().collect();
    lines.sort();
    let mut expected: Vec<String> = (0..2).flat_map(|b| (0..40).map(move |t| format!("block {b} thread {t}"))).collect();
    expected.sort();
    assert_eq!(lines, expected);
    assert!(printed.ends_with('\n'));
}

/// What `body`, run on one simulated thread, traps with.
fn device_trap(body: impl Fn() + Sync) -> String {
    trap_message(std::panic::AssertUnwindSafe(|| sim::launch(1, 1, &body)))
}

#[test]
fn a_false_assert_traps_with_glibcs_message() {
    let (expr, file, function) = (c"n == 3", c"prog.c", c"int main(void)");
    let message = device_trap(|| unsafe {
        __assert_fail(expr.as_ptr().cast(), file.as_ptr().cast(), 42, function.as_ptr().cast())
    });
    assert_eq!(message, "prog.c:42: int main(void): Assertion `n == 3' failed.");
    // A C library without `__PRETTY_FUNCTION__` passes no function.
    let message = device_trap(|| unsafe {
        __assert_fail(expr.as_ptr().cast(), file.as_ptr().cast(), 7, std::ptr::null())
    });
    assert_eq!(message, "prog.c:7: Assertion `n == 3' failed.");
}

#[test]
fn abort_traps_with_a_message() {
    assert_eq!(device_trap(|| abort()), "omprt: abort() called on the device");
}

fn table_of(hosts: &[usize]) -> Vec<Entry> {
    // A device address that is no host address of the table: far above.
    hosts.iter().map(|&h| Entry { host: h as *const u8, device: (h + (1 << 40)) as *const u8 }).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// libomptarget's table, sorted by host address: each host function maps
    /// to its device one; any other address (below, between and above the
    /// rows) is taken for a device address and comes back as it is.
    #[test]
    fn the_indirect_call_table_maps_host_functions_to_device_ones(
        mut hosts in proptest::collection::btree_set(1usize..4096, 0..40).prop_map(|s| s.into_iter().map(|h| h * 16).collect::<Vec<_>>()),
        probes in proptest::collection::vec(1usize..70_000, 0..20),
    ) {
        hosts.sort_unstable();
        let table = table_of(&hosts);
        for &h in &hosts {
            let found = unsafe { lookup_in(table.as_ptr(), table.len(), h as *const u8) };
            prop_assert_eq!(found as usize, h + (1 << 40));
        }
        for p in probes.into_iter().filter(|p| !hosts.contains(p)) {
            prop_assert_eq!(unsafe { lookup_in(table.as_ptr(), table.len(), p as *const u8) } as usize, p);
        }
        let null = unsafe { lookup_in(table.as_ptr(), table.len(), std::ptr::null()) };
        prop_assert!(null.is_null());
    }
}

#[test]
fn without_a_table_every_function_pointer_is_a_device_one() {
    let f = a_function as *const u8;
    assert_eq!(unsafe { lookup_in(std::ptr::null(), 0, f) }, f);
    // The simulation's device environment has no table.
    let address = f as usize;
    sim::launch(1, 1, || {
        let f = address as *const c_void;
        assert_eq!(__llvm_omp_indirect_call_lookup(f), f);
        assert!(__llvm_omp_indirect_call_lookup(std::ptr::null()).is_null());
    });
}

extern "C" fn a_function() {}

/// A `double _Complex`: 16 bytes, aligned to 8, which no atomic
/// instruction covers.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
#[repr(C)]
struct Complex {
    re: f64,
    im: f64,
}

/// What clang emits for `#pragma omp atomic update` of `z += (1, 2)` on a
/// `double _Complex`: load it, then compare-and-exchange until no other
/// thread came between.
fn add_atomically(z: &std::cell::UnsafeCell<Complex>) {
    let size = std::mem::size_of::<Complex>();
    let object = z.get().cast::<c_void>();
    let mut expected = Complex::default();
    unsafe { __atomic_load(size, object, (&raw mut expected).cast(), 5) };
    loop {
        let desired = Complex { re: expected.re + 1.0, im: expected.im + 2.0 };
        if unsafe { __atomic_compare_exchange(size, object, (&raw mut expected).cast(), (&raw const desired).cast(), 5, 5) } {
            break;
        }
        std::thread::yield_now();
    }
}

struct Shared(std::cell::UnsafeCell<Complex>, std::cell::UnsafeCell<Complex>);
struct Counters(std::cell::UnsafeCell<[u64; 512]>);
// SAFETY: the tests touch the cells only through the atomic functions
// under test, and read them after the launch.
unsafe impl Sync for Shared {}
unsafe impl Sync for Counters {}

#[test]
fn generic_atomics_update_a_complex_from_every_thread_without_losing_one() {
    // Two objects 16 bytes apart: each has its own lock.
    let shared = &Shared(Default::default(), Default::default());
    sim::launch(4, 64, || {
        let both: &Shared = shared;
        add_atomically(&both.0);
        add_atomically(&both.1);
        add_atomically(&both.0);
    });
    assert_eq!(unsafe { *shared.0.get() }, Complex { re: 512.0, im: 1024.0 });
    assert_eq!(unsafe { *shared.1.get() }, Complex { re: 256.0, im: 512.0 });
    // A large object, whose copies take long enough that threads without
    // the lock would overlap in them (seen: lost and torn updates).
    let counters = &Counters(std::cell::UnsafeCell::new([0; 512]));
    sim::launch(4, 32, || {
        let counters: &Counters = counters;
        let size = std::mem::size_of::<[u64; 512]>();
        let object = counters.0.get().cast::<c_void>();
        for _ in 0..4 {
            let mut expected = [0u64; 512];
            unsafe { __atomic_load(size, object, expected.as_mut_ptr().cast(), 5) };
            loop {
                let desired = expected.map(|c| c + 1);
                if unsafe { __atomic_compare_exchange(size, object, expected.as_mut_ptr().cast(), desired.as_ptr().cast(), 5, 5) } {
                    break;
                }
            }
        }
    });
    assert!(unsafe { *counters.0.get() }.iter().all(|&c| c == 4 * 4 * 32), "every update counted in every word");
    sim::launch(1, 1, || unsafe {
        let both: &Shared = shared;
        let size = std::mem::size_of::<Complex>();
        let object = both.0.get().cast::<c_void>();
        let value = Complex { re: -1.0, im: 0.5 };
        __atomic_store(size, object, (&raw const value).cast(), 5);
        let mut old = Complex::default();
        let next = Complex { re: 3.0, im: 4.0 };
        __atomic_exchange(size, object, (&raw const next).cast(), (&raw mut old).cast(), 5);
        assert_eq!(old, value);
        // A failed compare-and-exchange reports what the object holds.
        let mut expected = value;
        assert!(!__atomic_compare_exchange(size, object, (&raw mut expected).cast(), (&raw const value).cast(), 5, 5));
        assert_eq!(expected, next);
        // Equal in the first word only: no exchange either.
        let mut expected = Complex { re: next.re, im: 99.0 };
        assert!(!__atomic_compare_exchange(size, object, (&raw mut expected).cast(), (&raw const value).cast(), 5, 5));
        assert_eq!(expected, next);
        let mut read = Complex::default();
        __atomic_load(size, object, (&raw mut read).cast(), 5);
        assert_eq!(read, next);
    });
}
