//! List-directed output on the simulated device (`PRINT *`, `WRITE(*,*)`,
//! `WRITE(string,*)`): every expected line here is what flang 22's host
//! runtime printed for the same statement, and the last test compares the
//! text of thousands of REAL values with flang's, compiled and run here.
//!
//! Needs flang 22 (`bash scripts/setup.sh`) for that comparison and fails
//! without it.

mod common;
mod fortran_common;

use common::trap_message;
use fortran_common::*;
use omprt_device_rtl::arch::sim;
use omprt_device_rtl::exports::fortran::*;
use std::ffi::c_void;

/// One item of a statement, as flang's code passes it.
#[derive(Clone, Debug)]
enum Item {
    Text(&'static str),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    R4(f32),
    R8(f64),
    C4(f32, f32),
    C8(f64, f64),
    L(bool),
}
use Item::*;

/// Passes `items` to statement `cookie`; whether all succeeded.
fn put(cookie: *mut c_void, items: &[Item]) -> bool {
    items.iter().all(|item| unsafe {
        match *item {
            Text(s) => _FortranAioOutputAscii(cookie, s.as_ptr().cast(), s.len()),
            I8(n) => _FortranAioOutputInteger8(cookie, n),
            I16(n) => _FortranAioOutputInteger16(cookie, n),
            I32(n) => _FortranAioOutputInteger32(cookie, n),
            I64(n) => _FortranAioOutputInteger64(cookie, n),
            R4(x) => _FortranAioOutputReal32(cookie, x),
            R8(x) => _FortranAioOutputReal64(cookie, x),
            C4(re, im) => _FortranAioOutputComplex32(cookie, re, im),
            C8(re, im) => _FortranAioOutputComplex64(cookie, re, im),
            L(b) => _FortranAioOutputLogical(cookie, b),
        }
    })
}

/// What `PRINT *, items` prints on the device.
fn print(items: &[Item]) -> String {
    let _ = sim::take_device_output();
    on_device(|| unsafe {
        let cookie = _FortranAioBeginExternalListOutput(6, file(), 1);
        assert!(put(cookie, items));
        assert_eq!(_FortranAioEndIoStatement(cookie), 0);
    });
    sim::take_device_output()
}

#[test]
fn print_writes_flangs_text_for_each_intrinsic_type() {
    let third = 1.0f32 / 3.0;
    assert_eq!(print(&[Text("x ="), I32(3), R4(third), R8(1.0 / 3.0)]), " x = 3 .33333334 .3333333333333333\n");
    assert_eq!(print(&[Text("a"), Text("b"), Text("ab   "), Text("c")]), " abab   c\n", "no blank between character values");
    assert_eq!(print(&[Text(""), Text("a"), Text(""), Text("b")]), " ab\n");
    assert_eq!(print(&[Text("a"), I32(5), Text("b"), L(false), Text("c"), R4(2.5), Text("d")]), " a 5 b F c 2.5 d\n");
    assert_eq!(print(&[Text("k"), I32(-42), Text("z")]), " k -42 z\n");
    assert_eq!(
        print(&[C4(1.5, -2.0), L(true), L(false), I64(-i64::MAX), I16(7), I8(-3)]),
        " (1.5,-2.) T F -9223372036854775807 7 -3\n"
    );
    assert_eq!(print(&[C4(1.0, 2.0), C8(1e300, -1e-300), R4(f32::NAN), R4(f32::MAX)]), " (1.,2.) (1.E+300,-1.E-300) NaN 3.4028234E+38\n");
    assert_eq!(print(&[R4(f32::INFINITY), R4(f32::NEG_INFINITY)]), " Inf -Inf\n");
    assert_eq!(print(&[]), "\n", "an empty PRINT prints an empty line");
}

#[test]
fn reals_print_without_an_exponent_from_exponent_0_to_the_kinds_precision() {
    let reals4 = [1.0f32, 0.5, 0.05, 1e7, 1.234567e6, 12345678.0, 1e-5, -0.0, 100.0];
    assert_eq!(print(&reals4.map(R4)), " 1. .5 5.E-02 1.E+07 1.234567E+06 1.2345678E+07 1.E-05 -0. 100.\n");
    let reals8 = [R8(1e15), R8(1e16), R8(0.1), R8(123.456), R8(1e300), R8(5e-324), R8(f64::MAX), R4(f32::MIN_POSITIVE)];
    assert_eq!(print(&reals8), " 1.E+15 1.E+16 .1 123.456 1.E+300 5.E-324 1.7976931348623157E+308 1.1754943E-38\n");
    // The form follows the value rounded to one digit: 950000 rounds to 1E+6.
    let edges = [R4(950000.0), R4(0.095), R4(0.95), R8(9.5e14), R8(9.5e15), R8(0.095), R4(999999.5), R4(9999995.0), R4(99999.95)];
    assert_eq!(print(&edges), " 9.5E+05 9.5E-02 .95 9.5E+14 9.5E+15 .095 9.999995E+05 9.999995E+06 99999.95\n");
    let more = [R4(0.0), R8(0.0), R8(-0.0), R8(1e15), R8(1e14), R4(123456.0), R4(1234567.0), R4(0.1), R8(0.3), R8(2.0 / 3.0)];
    assert_eq!(print(&more), " 0. 0. -0. 1.E+15 100000000000000. 123456. 1.234567E+06 .1 .3 .6666666666666666\n");
}

#[test]
fn records_end_at_79_characters() {
    let halves: Vec<Item> = (1..=30).map(|i| R4(i as f32 * 1.5)).collect();
    assert_eq!(
        print(&halves),
        " 1.5 3. 4.5 6. 7.5 9. 10.5 12. 13.5 15. 16.5 18. 19.5 21. 22.5 24. 25.5 27.\n 28.5 30. 31.5 33. 34.5 36. 37.5 39. 40.5 42. 43.5 45.\n"
    );
    let long = "long string of length greater than eighty characters is here for the wrapping test ok";
    assert_eq!(
        print(&[Text(long), I32(1)]),
        " long string of length greater than eighty characters is here for the wrapping \n test ok 1\n",
        "a character value continues on the next record after a blank"
    );
    let trues = vec![L(true); 45];
    assert_eq!(print(&trues), format!(" {}\n{}\n", ["T"; 39].join(" "), ["T"; 6].join(" ")), "a logical value's new record has no blank");
    let a78: &'static str = "a".repeat(78).leak();
    let b79: &'static str = "b".repeat(79).leak();
    assert_eq!(print(&[Text(a78)]), format!(" {a78}\n"));
    assert_eq!(print(&[Text(b79)]), format!(" {}\n b\n", &b79[..78]));
    assert_eq!(print(&[Text(a78), Text("x")]), format!(" {a78}\nx\n"));
    let millions: Vec<Item> = (1..=10).map(|i| I32(1_000_000 + i)).collect();
    let m: Vec<String> = (1..=10).map(|i| (1_000_000 + i).to_string()).collect();
    assert_eq!(print(&millions), format!(" {}\n {}\n", m[..9].join(" "), m[9]));
    let teens: Vec<Item> = (11..=36).map(I32).collect();
    let line = (11..=36).map(|i| i.to_string()).collect::<Vec<_>>().join(" ");
    for (last, next) in [(I32(1), " 1"), (L(true), "T"), (Text("z"), "z")] {
        let mut items = teens.clone();
        items.push(last);
        assert_eq!(print(&items), format!(" {line}\n{next}\n"));
    }
}

#[test]
fn arrays_print_element_by_element() {
    let (_b, a) = array(&[1i32, 2, 3, 4, 5], &[5]);
    let (_c, m) = array(&[1.5f64, -2.0, 0.25, 4.0], &[2, 2]);
    let (_l, t) = logicals(&[true, false], &[2], 4);
    let (_s, s) = characters(&["ab", "c"], 3, &[2]);
    let _ = sim::take_device_output();
    let (ap, mp, tp, sp) = (a.ptr() as usize, m.ptr() as usize, t.ptr() as usize, s.ptr() as usize);
    on_device(move || unsafe {
        let cookie = _FortranAioBeginExternalListOutput(6, file(), 1);
        for d in [ap, mp, tp, sp] {
            assert!(_FortranAioOutputDescriptor(cookie, d as *const c_void));
        }
        _FortranAioEndIoStatement(cookie);
    });
    assert_eq!(sim::take_device_output(), " 1 2 3 4 5 1.5 -2. .25 4. T F ab c  \n");
}

/// `WRITE(string, *) items` into a string of `len` x's: the string and
/// the statement's status (`iostat` asks for one).
fn write_internal(len: usize, iostat: bool, items: &[Item]) -> (String, i32) {
    let mut s = vec![b'x'; len];
    let p = s.as_mut_ptr() as usize;
    let status = on_device(|| unsafe {
        let cookie = _FortranAioBeginInternalListOutput(p as *mut c_void, len, std::ptr::null_mut(), 0, file(), 9);
        _FortranAioEnableHandlers(cookie, iostat, false, false, false, false);
        put(cookie, items);
        _FortranAioEndIoStatement(cookie)
    });
    (String::from_utf8(s).unwrap(), status)
}

#[test]
fn write_to_a_string_fills_one_record_and_reports_overruns() {
    assert_eq!(write_internal(12, false, &[I32(42)]), (" 42         ".to_string(), 0));
    assert_eq!(write_internal(12, false, &[Text("ab"), Text("cd"), R4(1.5)]), (" abcd 1.5   ".to_string(), 0));
    assert_eq!(write_internal(4, true, &[I32(12345)]), (" 123".to_string(), 1002), "a number longer than the record");
    assert_eq!(write_internal(4, true, &[Text("abcdefg")]), (" abc".to_string(), 1004), "characters past the record");
    assert_eq!(write_internal(4, true, &[I32(1), I32(22)]), (" 1  ".to_string(), 1004), "a number that needs a new record");
    let m = trap_message(|| {
        write_internal(4, false, &[Text("abcdefg")]);
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:9): Internal write overran available records");
    let msg = on_device(|| unsafe {
        let mut s = [b'x'; 2];
        let mut message = [b'?'; 44];
        let cookie = _FortranAioBeginInternalListOutput(s.as_mut_ptr().cast(), 2, std::ptr::null_mut(), 0, file(), 9);
        _FortranAioEnableHandlers(cookie, true, false, false, false, true);
        _FortranAioOutputInteger32(cookie, 100);
        _FortranAioGetIoMsg(cookie, message.as_mut_ptr().cast(), message.len());
        _FortranAioEndIoStatement(cookie);
        String::from_utf8(message.to_vec()).unwrap()
    });
    assert_eq!(msg, "Excessive output to fixed-size record       ");
}

#[test]
fn units_other_than_the_devices_output_trap() {
    let m = trap_message(|| on_device(|| unsafe { _FortranAioBeginExternalListOutput(10, file(), 3); }));
    assert_eq!(m, "fatal Fortran runtime error(file.f90:3): WRITE to unit 10: the device has only units 6 and 0 (its output)");
    let _ = sim::take_device_output();
    let o = on_device(|| unsafe {
        let cookie = _FortranAioBeginExternalListOutput(0, file(), 3);
        _FortranAioOutputAscii(cookie, "err".as_ptr().cast(), 3);
        _FortranAioEndIoStatement(cookie)
    });
    assert_eq!((o, sim::take_device_output()), (0, " err\n".to_string()));
}

// ---------------------------------------------------------------------------
// Against flang's host runtime

/// A deterministic stream of 64-bit words (xorshift64*).
struct Words(u64);

impl Words {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Values whose text takes every path: random bit patterns (every
/// exponent), short decimals, powers of two, and the neighbours of powers
/// of ten and of the one-digit rounding boundaries; the bit patterns as i64 (REAL(8)) or
/// i32 (REAL(4)).
fn samples(double: bool, n: usize) -> Vec<i64> {
    let mut w = Words(if double { 0x9e37_79b9_7f4a_7c15 } else { 0x2545_f491_4f6c_dd1d });
    let to_bits = |x: f64| if double { x.to_bits() as i64 } else { (x as f32).to_bits() as i32 as i64 };
    let step = |bits: i64, by: i64| if double { bits + by } else { (bits as i32).wrapping_add(by as i32) as i64 };
    let mut v = Vec::new();
    for e in -45..=40 {
        for m in [1.0, 9.5, 9.4999, 9.99999, 5.0, 1.25, 9.999999999] {
            let x = m * 10f64.powi(e);
            for by in [-1, 0, 1] {
                v.push(step(to_bits(x), by));
            }
        }
    }
    // Powers of two, where the next smaller value is half as far.
    let (exponents, shift) = if double { (2046, 52) } else { (254, 23) };
    for biased in (1..=exponents).step_by(3) {
        v.push(if double { biased << shift } else { (biased << shift) as i32 as i64 });
    }
    while v.len() < n {
        let r = w.next();
        v.push(match r % 3 {
            0 => if double { r as i64 } else { (r >> 32) as i32 as i64 },
            1 => to_bits((w.next() % 2_000_001) as f64 / 10f64.powi((w.next() % 12) as i32) - 1000.0),
            _ => if double { (w.next() & 0x000f_ffff_ffff_ffff | 1 << 52) as i64 } else { (w.next() as u32 & 0x00ff_ffff) as i32 as i64 },
        });
    }
    v
}

/// A Fortran integer literal of `v` (kind 8 or 4), the most negative too.
fn literal(v: i64, kind: u8) -> String {
    let min = if kind == 8 { i64::MIN } else { i32::MIN as i64 };
    if v == min { format!("({}_{kind}-1_{kind})", v + 1) } else { format!("{v}_{kind}") }
}

/// flang's host output of `print *, transfer(bits, real)` for each value.
fn flang_prints(doubles: &[i64], singles: &[i64]) -> Vec<String> {
    let flang = std::path::Path::new("/usr/lib/llvm-22/bin/flang");
    assert!(flang.is_file(), "{} is missing: run 'bash scripts/setup.sh' (as root) to install flang 22", flang.display());
    let list = |v: &[i64], kind: u8| v.iter().map(|&b| literal(b, kind)).collect::<Vec<_>>().join(", &\n    ");
    let program = format!(
        "program reals\n  implicit none\n  integer :: i\n  integer(8), parameter :: d({}) = [ &\n    {} ]\n  integer(4), parameter :: s({}) = [ &\n    {} ]\n  do i = 1, size(d)\n    print *, transfer(d(i), 0d0)\n  end do\n  do i = 1, size(s)\n    print *, transfer(s(i), 0.0)\n  end do\nend program\n",
        doubles.len(),
        list(doubles, 8),
        singles.len(),
        list(singles, 4)
    );
    let dir = std::env::temp_dir().join(format!("omprt-print-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("reals.f90"), program).unwrap();
    let built = std::process::Command::new(flang).current_dir(&dir).args(["-O0", "reals.f90", "-o", "reals"]).output().unwrap();
    assert!(built.status.success(), "flang failed:\n{}", String::from_utf8_lossy(&built.stderr));
    let ran = std::process::Command::new(dir.join("reals")).output().unwrap();
    assert!(ran.status.success());
    std::fs::remove_dir_all(&dir).ok();
    String::from_utf8(ran.stdout).unwrap().lines().map(str::to_string).collect()
}

#[test]
fn reals_print_as_flangs_host_runtime_prints_them() {
    let (doubles, singles) = (samples(true, 4000), samples(false, 4000));
    let expected = flang_prints(&doubles, &singles);
    let _ = sim::take_device_output();
    let (d, s) = (doubles.clone(), singles.clone());
    on_device(move || unsafe {
        for bits in d {
            let cookie = _FortranAioBeginExternalListOutput(6, file(), 1);
            _FortranAioOutputReal64(cookie, f64::from_bits(bits as u64));
            _FortranAioEndIoStatement(cookie);
        }
        for bits in s {
            let cookie = _FortranAioBeginExternalListOutput(6, file(), 1);
            _FortranAioOutputReal32(cookie, f32::from_bits(bits as u32));
            _FortranAioEndIoStatement(cookie);
        }
    });
    let printed = sim::take_device_output();
    let printed: Vec<&str> = printed.lines().collect();
    assert_eq!(printed.len(), expected.len());
    let values = doubles.iter().map(|&b| format!("{:e} (REAL(8) {b:#x})", f64::from_bits(b as u64)));
    let values = values.chain(singles.iter().map(|&b| format!("{:e} (REAL(4) {:#x})", f32::from_bits(b as u32), b as u32)));
    let wrong: Vec<String> =
        printed.iter().zip(&expected).zip(values).filter(|((p, e), _)| p != e).map(|((p, e), v)| format!("{v}: omprt '{p}', flang '{e}'")).collect();
    assert!(wrong.is_empty(), "{} of {} differ:\n{}", wrong.len(), expected.len(), wrong[..wrong.len().min(20)].join("\n"));
}
