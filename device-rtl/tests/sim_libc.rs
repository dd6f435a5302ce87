//! The C library functions a target region may call (`assert`, `abort`,
//! `exit`, `puts`, `clock`, `<string.h>`'s comparisons, copies and
//! searches, `strtol` and its kin, libatomic's generic operations) and
//! `__llvm_omp_indirect_call_lookup`, in the host simulation. The string
//! and number functions are checked against the host's own C library.

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
    #[link_name = "strcpy"]
    fn host_strcpy(d: *mut c_char, s: *const c_char) -> *mut c_char;
    #[link_name = "strncpy"]
    fn host_strncpy(d: *mut c_char, s: *const c_char, n: usize) -> *mut c_char;
    #[link_name = "strcat"]
    fn host_strcat(d: *mut c_char, s: *const c_char) -> *mut c_char;
    #[link_name = "strncat"]
    fn host_strncat(d: *mut c_char, s: *const c_char, n: usize) -> *mut c_char;
    #[link_name = "strchr"]
    fn host_strchr(s: *const c_char, c: i32) -> *mut c_char;
    #[link_name = "strrchr"]
    fn host_strrchr(s: *const c_char, c: i32) -> *mut c_char;
    #[link_name = "strstr"]
    fn host_strstr(h: *const c_char, n: *const c_char) -> *mut c_char;
    #[link_name = "memchr"]
    fn host_memchr(s: *const c_void, c: i32, n: usize) -> *mut c_void;
    #[link_name = "strtol"]
    fn host_strtol(s: *const c_char, end: *mut *mut c_char, base: i32) -> i64;
    #[link_name = "strtoul"]
    fn host_strtoul(s: *const c_char, end: *mut *mut c_char, base: i32) -> u64;
    #[link_name = "atoi"]
    fn host_atoi(s: *const c_char) -> i32;
}

/// Texts a number parser may meet: digits of every base, signs, white
/// space, `0x` prefixes, and runs long enough to overflow 64 bits.
fn number_text() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b" ".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"-".to_vec()),
        Just(b"+".to_vec()),
        Just(b"0".to_vec()),
        Just(b"0x".to_vec()),
        Just(b"0X".to_vec()),
        Just(b"7".to_vec()),
        Just(b"9".to_vec()),
        Just(b"f".to_vec()),
        Just(b"z".to_vec()),
        Just(b"G".to_vec()),
        Just(b"18446744073709551615".to_vec()),
        Just(b"9223372036854775808".to_vec()),
        Just(b"!".to_vec()),
    ];
    proptest::collection::vec(piece, 0..6).prop_map(|v| v.concat())
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

    #[test]
    fn copying_and_searching_agree_with_the_c_library(l in bytes(), r in bytes(), n in 0usize..14, c in prop_oneof![Just(0i32), Just(97), Just(0x80), Just(0x1ff), Just(-1)]) {
        let (l, r) = (terminated(l), terminated(r));
        unsafe {
            let (lp, rp) = (l.as_ptr(), r.as_ptr());
            // Each result as an offset into the string searched.
            let at = |p: *const u8, base: *const u8| (!p.is_null()).then(|| p as usize - base as usize);
            prop_assert_eq!(at(strchr(lp, c), lp), at(host_strchr(lp.cast(), c).cast(), lp));
            prop_assert_eq!(at(strrchr(lp, c), lp), at(host_strrchr(lp.cast(), c).cast(), lp));
            prop_assert_eq!(at(strstr(lp, rp), lp), at(host_strstr(lp.cast(), rp.cast()).cast(), lp));
            let count = n.min(l.len());
            prop_assert_eq!(at(memchr(lp.cast(), c, count).cast(), lp), at(host_memchr(lp.cast(), c, count).cast(), lp));
            // Copies into buffers filled with a marker, so every byte
            // written (or left) is compared.
            let fresh = || { let mut b = vec![0x5au8; 40]; b[..l.len()].copy_from_slice(&l); b };
            let (mut ours, mut theirs) = (fresh(), fresh());
            prop_assert_eq!(strcpy(ours.as_mut_ptr(), rp), ours.as_mut_ptr());
            host_strcpy(theirs.as_mut_ptr().cast(), rp.cast());
            prop_assert_eq!(&ours, &theirs);
            let (mut ours, mut theirs) = (fresh(), fresh());
            strncpy(ours.as_mut_ptr(), rp, n);
            host_strncpy(theirs.as_mut_ptr().cast(), rp.cast(), n);
            prop_assert_eq!(&ours, &theirs);
            let (mut ours, mut theirs) = (fresh(), fresh());
            strcat(ours.as_mut_ptr(), rp);
            host_strcat(theirs.as_mut_ptr().cast(), rp.cast());
            prop_assert_eq!(&ours, &theirs);
            let (mut ours, mut theirs) = (fresh(), fresh());
            strncat(ours.as_mut_ptr(), rp, n);
            host_strncat(theirs.as_mut_ptr().cast(), rp.cast(), n);
            prop_assert_eq!(&ours, &theirs);
        }
    }

    #[test]
    fn number_conversions_agree_with_the_c_library(text in number_text(), base in prop_oneof![Just(0i32), Just(2), Just(8), Just(10), Just(16), Just(36), Just(1), Just(37)]) {
        let s = terminated(text);
        unsafe {
            let p = s.as_ptr();
            // glibc leaves the end pointer alone for a base outside 2..=36;
            // omprt stores the string, as C asks where nothing converts.
            let (mut ours_end, mut theirs_end) = (p.cast_mut(), p.cast_mut().cast::<c_char>());
            let ours = strtol(p, &mut ours_end, base);
            let theirs = host_strtol(p.cast(), &mut theirs_end, base);
            prop_assert_eq!((ours, ours_end as usize - p as usize), (theirs, theirs_end as usize - p as usize), "strtol base {}", base);
            let ours = strtoul(p, &mut ours_end, base);
            let theirs = host_strtoul(p.cast(), &mut theirs_end, base);
            prop_assert_eq!((ours, ours_end as usize - p as usize), (theirs, theirs_end as usize - p as usize), "strtoul base {}", base);
            prop_assert_eq!(strtoll(p, std::ptr::null_mut(), base), host_strtol(p.cast(), std::ptr::null_mut(), base));
            prop_assert_eq!(strtoull(p, std::ptr::null_mut(), base), host_strtoul(p.cast(), std::ptr::null_mut(), base));
            prop_assert_eq!(atol(p), host_strtol(p.cast(), std::ptr::null_mut(), 10));
            prop_assert_eq!(atoll(p), atol(p));
            // glibc's atoi is strtol truncated to int, as ours.
            prop_assert_eq!(atoi(p), host_atoi(p.cast()));
        }
    }
}

#[test]
fn exit_traps_and_clock_counts_microseconds() {
    assert_eq!(device_trap(|| exit(0)), "omprt: exit() called on the device");
    assert_eq!(device_trap(|| _Exit(3)), "omprt: exit() called on the device");
    sim::launch(1, 1, || {
        let first = clock();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let later = clock();
        assert!((20_000..10_000_000).contains(&(later - first)), "{first} then {later}");
    });
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
