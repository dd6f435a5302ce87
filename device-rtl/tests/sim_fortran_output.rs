//! Output statements on the simulated device, list-directed (`PRINT *`,
//! `WRITE(*,*)`, `WRITE(string,*)`) and formatted (`PRINT '(...)'`,
//! `WRITE(string, fmt)`): every expected line here is what flang 22's host
//! runtime printed for the same statement, and two tests compare the text
//! of thousands of values, list-directed and under dozens of edit
//! descriptors, with flang's, compiled and run here.
//!
//! Needs flang 22 (`bash scripts/setup.sh`) for those comparisons and fails
//! without them.

mod common;
mod fortran_common;

use common::trap_message;
use fortran_common::*;
use omprt_abi::fortran::*;
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

/// What `PRINT format, items` prints on the device, without the last
/// newline.
fn printf(format: &str, items: &[Item]) -> String {
    let _ = sim::take_device_output();
    on_device(|| unsafe {
        let cookie = _FortranAioBeginExternalFormattedOutput(format.as_ptr().cast(), format.len() as i64, std::ptr::null(), 6, file(), 1);
        assert!(put(cookie, items), "{format}");
        assert_eq!(_FortranAioEndIoStatement(cookie), 0, "{format}");
    });
    let mut out = sim::take_device_output();
    assert_eq!(out.pop(), Some('\n'));
    out
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

/// `type inner; integer :: k; character(3) :: c; end type` and `type
/// outer; real(8) :: x; integer(2) :: v(3); type(inner) :: in; logical ::
/// flag; end type`, and two `outer` values in memory as flang lays them.
fn outer_pair() -> (TypeDesc, TypeDesc, Vec<u64>) {
    let inner = TypeDesc::new(8, vec![Comp::data(TypeCategory::Integer, 4, 0), Comp { len: 3, ..Comp::data(TypeCategory::Character, 1, 4) }], vec![]);
    let outer = TypeDesc::new(
        32,
        vec![
            Comp::data(TypeCategory::Real, 8, 0),
            Comp { rank: 1, bounds: vec![(1, 3)], ..Comp::data(TypeCategory::Integer, 2, 8) },
            Comp { derived: Some(inner.ptr()), ..Comp::data(TypeCategory::Derived, 0, 16) },
            Comp::data(TypeCategory::Logical, 4, 24),
        ],
        vec![],
    );
    let mut data = vec![0u64; 8];
    let bytes = unsafe { std::slice::from_raw_parts_mut(data.as_mut_ptr() as *mut u8, 64) };
    for (i, (x, v, k, c, flag)) in [(2.5f64, [1i16, 2, 3], 7i32, b"abc", 1u32), (-1.5, [4, 5, 6], -8, b"de ", 0)].into_iter().enumerate() {
        let o = &mut bytes[32 * i..32 * (i + 1)];
        o[..8].copy_from_slice(&x.to_ne_bytes());
        for (j, n) in v.iter().enumerate() {
            o[8 + 2 * j..10 + 2 * j].copy_from_slice(&n.to_ne_bytes());
        }
        o[16..20].copy_from_slice(&k.to_ne_bytes());
        o[20..23].copy_from_slice(c);
        o[24..28].copy_from_slice(&flag.to_ne_bytes());
    }
    (inner, outer, data)
}

#[test]
fn derived_types_print_their_components_in_order() {
    let (_inner, outer, mut data) = outer_pair();
    let mut d = Desc::empty();
    d.establish(data.as_mut_ptr().cast(), 32, type_code::STRUCT, attribute::OTHER, &[Dim { lower_bound: 1, extent: 2, byte_stride: 32 }], Some(outer.ptr()));
    let p = d.ptr() as usize;
    let run = |format: Option<&'static str>| {
        let _ = sim::take_device_output();
        on_device(move || unsafe {
            let cookie = match format {
                None => _FortranAioBeginExternalListOutput(6, file(), 1),
                Some(f) => _FortranAioBeginExternalFormattedOutput(f.as_ptr().cast(), f.len() as i64, std::ptr::null(), 6, file(), 1),
            };
            assert!(_FortranAioOutputDerivedType(cookie, p as *const c_void, std::ptr::null()));
            _FortranAioEndIoStatement(cookie);
        });
        sim::take_device_output()
    };
    assert_eq!(run(None), " 2.5 1 2 3 7 abc T -1.5 4 5 6 -8 de  F\n");
    assert_eq!(run(Some("(F5.1,3I2,I3,A4,L2)")), "  2.5 1 2 3  7 abc T\n -1.5 4 5 6 -8 de  F\n");
}

#[test]
fn integer_16_prints_all_its_digits() {
    let _ = sim::take_device_output();
    on_device(|| unsafe {
        let cookie = _FortranAioBeginExternalListOutput(6, file(), 1);
        _FortranAioOutputInteger128(cookie, 12345678901234567890123456789);
        _FortranAioOutputInteger128(cookie, -i128::MAX);
        _FortranAioEndIoStatement(cookie);
        let f = "(I0,1X,Z0)";
        let cookie = _FortranAioBeginExternalFormattedOutput(f.as_ptr().cast(), f.len() as i64, std::ptr::null(), 6, file(), 1);
        _FortranAioOutputInteger128(cookie, -1);
        _FortranAioOutputInteger128(cookie, -1);
        _FortranAioEndIoStatement(cookie);
    });
    assert_eq!(sim::take_device_output(), " 12345678901234567890123456789 -170141183460469231731687303715884105727\n-1 FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF\n");
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

#[test]
fn formatted_output_writes_flangs_fields() {
    let third = 1.0f32 / 3.0;
    let cases: Vec<(&str, Vec<Item>, &str)> = vec![
        ("(A,I5,A,I0,A,I5.3,A,I2)", vec![Text("["), I32(42), Text("]["), I32(-17), Text("]["), I32(7), Text("]["), I32(123)], "[   42][-17][  007][**"),
        ("(F8.3,\"|\",F5.2,\"|\",F4.2,\"|\",F3.2,\"|\",F0.3,\"|\",F6.0)", vec![R8(1.23456), R8(0.125), R8(0.5), R8(0.5), R8(-2.5), R8(12.5)], "   1.235| 0.12|0.50|.50|-2.500|   12."),
        ("(F5.2,\"|\",F5.2,\"|\",F5.2,\"|\",F5.1,\"|\",F5.1)", vec![R8(0.375), R8(0.385), R8(2.675), R8(0.25), R8(0.35)], " 0.38| 0.39| 2.67|  0.2|  0.3"),
        ("(E12.4,\"|\",ES12.4,\"|\",EN12.4,\"|\",E10.3E3,\"|\",D12.4)", vec![R8(12345.678), R8(12345.678), R8(12345.678), R8(1.5e-5), R8(2.0)], "  0.1235E+05|  1.2346E+04| 12.3457E+03|0.150E-004|  0.2000D+01"),
        ("(G12.4,\"|\",G12.4,\"|\",G12.4,\"|\",G0,\"|\",G0.3,\"|\",G0)", vec![R8(0.5), R8(123.456), R8(1e10), R8(2.5), R8(2.5), I32(17)], "  0.5000    |   123.5    |  0.1000E+11|2.5|2.50|17"),
        ("(L3,\"|\",L1,\"|\",A,\"|\",A8,\"|\",A2,\"|\")", vec![L(true), L(false), Text("abc"), Text("abc"), Text("abcdef")], "  T|F|abc|     abc|ab|"),
        ("(3I4)", (1..=7).map(I32).collect(), "   1   2   3\n   4   5   6\n   7"),
        ("(2(I2,\",\"),I3)", vec![I32(1), I32(2), I32(3)], " 1, 2,  3"),
        ("(\"x\",3X,\"y\",T2,\"z\",TR2,\"w\")", vec![], "xz  w"),
        ("(I3,:,\" sep \")", vec![I32(5)], "  5"),
        ("(I3,\" sep \")", vec![I32(5)], "  5 sep "),
        ("(SP,I4,SS,I4,F6.2)", vec![I32(5), I32(5), R8(1.5)], "  +5   5  1.50"),
        ("(I0/I0)", vec![I32(1), I32(2)], "1\n2"),
        ("(1P,E12.4,0P,F8.3)", vec![R8(1234.5), R8(1.5)], "  1.2345E+03   1.500"),
        ("(F8.3)", vec![R8(1e20)], "********"),
        ("(E12.4)", vec![R8(0.0)], "  0.0000E+00"),
        ("(F8.3,1X,E12.4)", vec![R8(-0.0), R8(-1e-300)], "  -0.000  -0.1000-299"),
        ("(I5)", vec![I32(i32::MAX)], "*****"),
        ("(F8.3,\"|\",E12.4,\"|\",F2.1,\"|\",I1)", vec![R8(f64::INFINITY), R8(f64::NEG_INFINITY), R8(10.5), I32(12)], "     Inf|        -Inf|**|*"),
        ("(ES10.3E1)", vec![R8(1e100)], "**********"),
        ("(E9.3)", vec![R8(1e100)], "0.100+101"),
        ("(Z8,\"|\",B8,\"|\",O4)", vec![I32(255), I32(5), I32(8)], "      FF|     101|  10"),
        ("(F10.3)", vec![R4(third)], "     0.333"),
        ("(*(I3))", vec![I32(1), I32(2), I32(3), I32(4)], "  1  2  3  4"),
        ("(G10.3,\"|\",G10.3,\"|\",G10.3)", vec![R8(0.09999), R8(999.9), R8(9999.0)], " 0.100    | 0.100E+04| 0.100E+05"),
        ("(G0,\"|\",G0,\"|\",G0,\"|\",G0,\"|\",G0,\"|\",G0)", vec![R8(1e10), R8(0.001), R8(123.456), R4(1.0), L(true), Text("abc")], "10000000000.|.1E-2|123.456|1.|T|abc"),
        ("(F8.3,\"|\",F8.3,\"|\",F0.0,\"|\",F0.1)", vec![R8(-0.0001), R8(0.0001), R8(0.4), R8(0.04)], "  -0.000|   0.000|0.|.0"),
        ("(G12.4E3,\"|\",G12.4,\"|\",G0.4,\"|\",G0.4)", vec![R8(5.0), R8(0.0), R8(1e10), R8(0.5)], "  5.000     |   0.000    |.1000E+11|.5000"),
        ("(EN12.3,\"|\",EN12.3,\"|\",EN12.3,\"|\",ES12.3)", vec![R8(999.9996), R8(0.001), R8(0.0), R8(9.9996)], "   1.000E+03|   1.000E-03|   0.000E+00|   1.000E+01"),
        ("(-2P,E12.4,2P,E12.4,1P,F8.3)", vec![R8(1234.5), R8(1234.5), R8(1.5)], "  0.0012E+06  12.345E+02  15.000"),
        ("(RC,F5.1,RU,F5.1,RD,F5.1,RZ,F5.1,RN,F5.1)", vec![R8(0.25), R8(0.21), R8(0.29), R8(-0.29), R8(0.25)], "  0.3  0.3  0.2 -0.2  0.2"),
        ("(I5.0,\"|\",I0.0,\"|\",I3.0)", vec![I32(0), I32(0), I32(5)], "     | |  5"),
        ("(A,TL2,\"x\",T10,\"y\")", vec![Text("abcdef")], "abcdxf   y"),
        ("(I3,5X)", vec![I32(5)], "  5"),
        ("(2F6.2)", vec![C4(1.0, 2.0)], "  1.00  2.00"),
        ("(3(I2:\",\"))", vec![I32(1), I32(2)], " 1, 2"),
        ("(a)", vec![], ""),
        ("(\"hello\",I3)", vec![], "hello"),
    ];
    for (format, items, expected) in cases {
        assert_eq!(printf(format, &items), expected, "{format}");
    }
}

#[test]
fn format_control_reverts_repeats_and_quotes() {
    assert_eq!(printf("(I2,(I3,I4))", &(1..=5).map(I32).collect::<Vec<_>>()), " 1  2   3\n  4   5", "reversion to the last group");
    assert_eq!(printf("(I2,2(I3))", &(1..=5).map(I32).collect::<Vec<_>>()), " 1  2  3\n  4  5", "the group's repeat count is reused");
    assert_eq!(printf("(2I3)", &(1..=3).map(I32).collect::<Vec<_>>()), "  1  2\n  3", "reversion to the whole format");
    assert_eq!(printf("('a''b',I2,\"c\"\"d\")", &[I32(5)]), "a'b 5c\"d");
    assert_eq!(printf("(5HHello,I2)", &[I32(7)]), "Hello 7");
    assert_eq!(printf("(I2,2/,I2)", &[I32(1), I32(2)]), " 1\n\n 2");
    assert_eq!(printf("  ( i3 , f6.2 )  ", &[I32(1), R8(2.5)]), "  1  2.50", "blanks and lower case");
}

#[test]
fn formatted_errors_are_flangs() {
    let status = |format: &'static str, item: Item| {
        on_device(move || unsafe {
            let mut message = [b'?'; 70];
            let cookie = _FortranAioBeginExternalFormattedOutput(format.as_ptr().cast(), format.len() as i64, std::ptr::null(), 6, file(), 1);
            _FortranAioEnableHandlers(cookie, true, false, false, false, true);
            put(cookie, &[item]);
            _FortranAioGetIoMsg(cookie, message.as_mut_ptr().cast(), message.len());
            let status = _FortranAioEndIoStatement(cookie);
            (status, String::from_utf8(message.to_vec()).unwrap().trim_end().to_string())
        })
    };
    let _ = sim::take_device_output();
    assert_eq!(status("(I3)", R8(1.5)), (1005, "Data edit descriptor 'I' may not be used with a REAL data item".to_string()));
    assert_eq!(status("(F5.1)", I32(1)), (1005, "Data edit descriptor 'F' may not be used with an INTEGER data item".to_string()));
    assert_eq!(status("(\"x\")", I32(1)).0, 1005, "no data edit descriptor for an item");
    assert_eq!(status("(*(\"x\"))", I32(1)).0, 1005, "a '*' group without a data edit descriptor");
    assert_eq!(status("(I2,(\"x\"))", I32(1)).0, 0, "the reverted part is not reached");
    let m = trap_message(|| {
        printf("(I2,(\"x\"))", &[I32(1), I32(2)]);
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:1): Format has no data edit descriptor for the items");
    let m = trap_message(|| {
        printf("(L2)", &[Text("x")]);
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:1): Data edit descriptor 'L' may not be used with a CHARACTER data item");
    let mut s = [b'x'; 6];
    let p = s.as_mut_ptr() as usize;
    let f = "(I3,\"ab\")";
    let status = on_device(move || unsafe {
        let cookie = _FortranAioBeginInternalFormattedOutput(p as *mut c_void, 6, f.as_ptr().cast(), f.len() as i64, std::ptr::null(), std::ptr::null_mut(), 0, file(), 1);
        _FortranAioOutputInteger32(cookie, 42);
        _FortranAioEndIoStatement(cookie)
    });
    assert_eq!((status, &s), (0, b" 42ab "), "an internal record is padded with blanks");
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

/// `integer(kind), parameter :: name(n) = [...]` of the values.
fn constant_array(name: &str, values: &[i64], kind: u8) -> String {
    let list = values.iter().map(|&b| literal(b, kind)).collect::<Vec<_>>().join(", &\n    ");
    format!("  integer({kind}), parameter :: {name}({}) = [ &\n    {list} ]\n", values.len())
}

/// The lines flang 22's host runtime prints for the program `source`.
fn flang_output(source: &str) -> Vec<String> {
    let flang = std::path::Path::new("/usr/lib/llvm-22/bin/flang");
    assert!(flang.is_file(), "{} is missing: run 'bash scripts/setup.sh' (as root) to install flang 22", flang.display());
    let dir = std::env::temp_dir().join(format!("omprt-output-{}-{:x}", std::process::id(), source.len()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("prog.f90"), source).unwrap();
    let built = std::process::Command::new(flang).current_dir(&dir).args(["-O0", "prog.f90", "-o", "prog"]).output().unwrap();
    assert!(built.status.success(), "flang failed:\n{}", String::from_utf8_lossy(&built.stderr));
    let ran = std::process::Command::new(dir.join("prog")).output().unwrap();
    assert!(ran.status.success(), "{}", String::from_utf8_lossy(&ran.stderr));
    std::fs::remove_dir_all(&dir).ok();
    String::from_utf8(ran.stdout).unwrap().lines().map(str::to_string).collect()
}

/// flang's host output of `print *, transfer(bits, real)` for each value.
fn flang_prints(doubles: &[i64], singles: &[i64]) -> Vec<String> {
    flang_output(&format!(
        "program reals\n  implicit none\n  integer :: i\n{}{}  do i = 1, size(d)\n    print *, transfer(d(i), 0d0)\n  end do\n  do i = 1, size(s)\n    print *, transfer(s(i), 0.0)\n  end do\nend program\n",
        constant_array("d", doubles, 8),
        constant_array("s", singles, 4)
    ))
}

/// The lines that differ, described, or a pass.
fn compare(printed: &str, expected: &[String], what: impl Iterator<Item = String>) {
    let printed: Vec<&str> = printed.lines().collect();
    assert_eq!(printed.len(), expected.len());
    let wrong: Vec<String> =
        printed.iter().zip(expected).zip(what).filter(|((p, e), _)| p != e).map(|((p, e), v)| format!("{v}: omprt '{p}', flang '{e}'")).collect();
    assert!(wrong.is_empty(), "{} of {} differ:\n{}", wrong.len(), expected.len(), wrong[..wrong.len().min(20)].join("\n"));
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
    let values = doubles.iter().map(|&b| format!("{:e} (REAL(8) {b:#x})", f64::from_bits(b as u64)));
    let values = values.chain(singles.iter().map(|&b| format!("{:e} (REAL(4) {:#x})", f32::from_bits(b as u32), b as u32)));
    compare(&sim::take_device_output(), &expected, values);
}

/// Edit descriptors of reals, with whether their values stay below 1e100
/// (`F0.d` prints every digit of a value, more than the device keeps).
const REAL_FORMATS: [(&str, bool); 34] = [
    ("(F8.3)", false),
    ("(F12.5)", false),
    ("(F5.1)", false),
    ("(F3.0)", false),
    ("(F25.17)", false),
    ("(F10.0)", false),
    ("(F0.3)", true),
    ("(F0.0)", true),
    ("(F0.5)", true),
    ("(E12.4)", false),
    ("(E15.7E3)", false),
    ("(E9.2)", false),
    ("(E30.20)", false),
    ("(D12.4)", false),
    ("(ES12.4)", false),
    ("(ES10.3E1)", false),
    ("(ES25.16)", false),
    ("(EN12.3)", false),
    ("(EN15.6)", false),
    ("(G12.4)", false),
    ("(G15.7E3)", false),
    ("(G0)", false),
    ("(G0.5)", false),
    ("(G10.3)", false),
    ("(G25.16)", false),
    ("(1PE12.4)", false),
    ("(-2PE12.4)", false),
    ("(2PE14.5)", false),
    ("(1PF10.3)", false),
    ("(SP,F8.2)", false),
    ("(RC,F6.1)", false),
    ("(RU,F6.1,RD,F6.1)", false),
    ("(RZ,E10.2,RU,ES10.2)", false),
    ("(RD,G10.3)", false),
];

/// Edit descriptors of integers.
const INTEGER_FORMATS: [&str; 15] =
    ["(I5)", "(I0)", "(I8.6)", "(I3)", "(I0.0)", "(I5.0)", "(Z10)", "(B40)", "(O12)", "(Z0)", "(G8.2)", "(G0)", "(SP,I6)", "(Z16.12)", "(I20.18)"];

/// Values for the edit descriptors: the samples, ties of every kind,
/// zeros, infinities and NaN; `moderate` keeps those below 1e100.
fn edited(double: bool, moderate: bool) -> Vec<i64> {
    let to_bits = |x: f64| if double { x.to_bits() as i64 } else { (x as f32).to_bits() as i32 as i64 };
    let mut v: Vec<i64> = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 0.125, 2.5, -0.375, 0.05, 1e-5, 123456789.0, 999.9996, 99.96]
        .into_iter()
        .map(to_bits)
        .collect();
    v.extend((1..40).map(|i| to_bits(i as f64 / 8.0 - 2.0)));
    // A third of the edge cases, and 300 random values.
    let all = samples(double, 3000);
    v.extend(all.iter().step_by(3));
    v.extend(&all[all.len() - 300..]);
    let magnitude = |b: i64| if double { f64::from_bits(b as u64).abs() } else { f32::from_bits(b as u32).abs() as f64 };
    v.retain(|&b| !moderate || magnitude(b) < 1e100 || magnitude(b).is_nan());
    v
}

#[test]
fn formatted_values_print_as_flangs_host_runtime_prints_them() {
    let mut w = Words(0x51_7cc1_b727_220a);
    let mut ints: Vec<i64> = vec![0, 1, -1, 7, -42, 1000, i32::MAX as i64, i32::MIN as i64, i64::MAX, i64::MIN];
    ints.extend((0..60).map(|i| (w.next() as i64) >> (i % 60)));
    let ints4: Vec<i64> = ints.iter().map(|&n| n as i32 as i64).collect();
    let mut source = String::from("program formats\n  implicit none\n  integer :: i, j\n");
    let mut body = String::new();
    let mut expected_items: Vec<(String, Item)> = Vec::new();
    for (j, (format, moderate)) in REAL_FORMATS.iter().enumerate() {
        let (d, s) = (edited(true, *moderate), edited(false, *moderate));
        source += &constant_array(&format!("d{j}"), &d, 8);
        source += &constant_array(&format!("s{j}"), &s, 4);
        body += &format!("  do i = 1, size(d{j})\n    write(*, '{format}') transfer(d{j}(i), 0d0)\n  end do\n");
        body += &format!("  do i = 1, size(s{j})\n    write(*, '{format}') transfer(s{j}(i), 0.0)\n  end do\n");
        expected_items.extend(d.iter().map(|&b| (format.to_string(), R8(f64::from_bits(b as u64)))));
        expected_items.extend(s.iter().map(|&b| (format.to_string(), R4(f32::from_bits(b as u32)))));
    }
    source += &constant_array("n8", &ints, 8);
    source += &constant_array("n4", &ints4, 4);
    for format in INTEGER_FORMATS {
        body += &format!("  do i = 1, size(n8)\n    write(*, '{format}') n8(i)\n  end do\n  do i = 1, size(n4)\n    write(*, '{format}') n4(i)\n  end do\n");
        expected_items.extend(ints.iter().map(|&n| (format.to_string(), I64(n))));
        expected_items.extend(ints4.iter().map(|&n| (format.to_string(), I32(n as i32))));
    }
    source += &body;
    source += "  j = 0\nend program\n";
    let expected = flang_output(&source);
    let _ = sim::take_device_output();
    let cases = expected_items.clone();
    on_device(move || unsafe {
        for (format, item) in &cases {
            let cookie = _FortranAioBeginExternalFormattedOutput(format.as_ptr().cast(), format.len() as i64, std::ptr::null(), 6, file(), 1);
            put(cookie, std::slice::from_ref(item));
            _FortranAioEndIoStatement(cookie);
        }
    });
    compare(&sim::take_device_output(), &expected, expected_items.iter().map(|(f, item)| format!("{f} {item:?}")));
}
