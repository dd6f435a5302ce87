//! flang-rt's character, numeric, kind inquiry, time, random number, STOP
//! and I/O entry points on the simulated device: against Fortran's
//! definitions and flang's folding for the device (character
//! functions against a model of their text, the numeric model functions
//! against their identities and the host's exact arithmetic), and the
//! entry points that end the kernel against their messages.

mod common;
mod fortran_common;

use common::trap_message;
use fortran_common::*;
use omprt_abi::fortran::*;
use omprt_device_rtl::arch::sim;
use omprt_device_rtl::exports::fortran::*;
use proptest::prelude::*;
use std::ffi::c_void;

const NULL: *const c_void = std::ptr::null();

/// Short strings of a small alphabet (blanks included), so that searches hit.
fn text() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(prop_oneof![Just(b' '), Just(b'a'), Just(b'b'), Just(b'c'), Just(0xe9u8)], 0..9)
}

fn position(found: Option<usize>) -> i64 {
    found.map_or(0, |i| i as i64 + 1)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn index_scan_verify_and_compare_agree_with_the_model(s in text(), t in text(), back in any::<bool>()) {
        let (sp, tp) = (s.as_ptr() as *const c_void, t.as_ptr() as *const c_void);
        let (sl, tl) = (s.len() as i64, t.len() as i64);
        let index = if t.len() > s.len() {
            None
        } else {
            let mut hits = (0..=s.len() - t.len()).filter(|&i| s[i..i + t.len()] == t[..]);
            if back { hits.next_back() } else { hits.min() }
        };
        let in_t = |c: &u8| t.contains(c);
        let scan = if back { s.iter().rposition(in_t) } else { s.iter().position(in_t) };
        let verify = if back { s.iter().rposition(|c| !in_t(c)) } else { s.iter().position(|c| !in_t(c)) };
        let pad = |v: &[u8], n: usize| { let mut v = v.to_vec(); v.resize(n, b' '); v };
        let n = s.len().max(t.len());
        let compare = pad(&s, n).cmp(&pad(&t, n)) as i32;
        unsafe {
            prop_assert_eq!(_FortranAIndex1(sp, sl, tp, tl, back), position(index));
            prop_assert_eq!(_FortranAScan1(sp, sl, tp, tl, back), position(scan));
            prop_assert_eq!(_FortranAVerify1(sp, sl, tp, tl, back), position(verify));
            prop_assert_eq!(_FortranACharacterCompareScalar1(sp, tp, sl, tl), compare);
        }
    }

    #[test]
    fn trim_and_adjust_move_blanks(words in proptest::collection::vec(text(), 1..4), len in 0usize..8) {
        let strs: Vec<String> = words.iter().map(|w| w.iter().map(|&b| b as char).collect()).collect();
        let padded: Vec<Vec<u8>> = words.iter().map(|w| { let mut v = w.clone(); v.resize(len, b' '); v.truncate(len); v }).collect();
        let got = on_device(move || unsafe {
            let buf = Buf::new(padded.len() * len);
            for (i, w) in padded.iter().enumerate() {
                std::ptr::copy_nonoverlapping(w.as_ptr(), buf.ptr().add(i * len), len);
            }
            let mut d = Desc::empty();
            d.establish(buf.ptr(), len, type_code::CHAR, attribute::OTHER, &contiguous(&[padded.len() as i64], &[1], len), None);
            let (l, r) = (Desc::empty(), Desc::empty());
            _FortranAAdjustl(l.ptr(), d.ptr(), file(), 1);
            _FortranAAdjustr(r.ptr(), d.ptr(), file(), 1);
            let mut first = Desc::empty();
            first.establish(buf.ptr(), len, type_code::CHAR, attribute::OTHER, &[], None);
            let t = Desc::empty();
            _FortranATrim(t.ptr(), first.ptr(), file(), 1);
            let out = (l.read_bytes(), r.read_bytes(), t.read_bytes()[0].clone(), padded);
            for x in [&l, &r, &t] {
                _FortranAAllocatableDeallocate(x.ptr(), false, NULL, file(), 1);
            }
            out
        });
        let (left, right, trimmed, padded) = got;
        let _ = strs;
        for (i, w) in padded.iter().enumerate() {
            let lead = w.iter().take_while(|&&c| c == b' ').count();
            let trail = w.iter().rev().take_while(|&&c| c == b' ').count().min(len - lead);
            let mut l = w[lead..].to_vec();
            l.resize(len, b' ');
            let mut r = vec![b' '; trail];
            r.extend_from_slice(&w[..len - trail]);
            prop_assert_eq!(&left[i], &l);
            prop_assert_eq!(&right[i], &r);
        }
        let keep = padded[0].len() - padded[0].iter().rev().take_while(|&&c| c == b' ').count();
        prop_assert_eq!(trimmed, padded[0][..keep].to_vec());
    }
}

#[test]
fn index_finds_empty_substrings_at_the_ends() {
    unsafe {
        let (s, e) = (b"abc".as_ptr() as *const c_void, b"".as_ptr() as *const c_void);
        assert_eq!(_FortranAIndex1(s, 3, e, 0, false), 1);
        assert_eq!(_FortranAIndex1(s, 3, e, 0, true), 4);
        assert_eq!(_FortranAIndex1(e, 0, e, 0, true), 1);
        assert_eq!(_FortranACharacterCompareScalar1(s, b"abc  ".as_ptr().cast(), 3, 5), 0);
        assert_eq!(_FortranACharacterCompareScalar1(b"ab\x01".as_ptr().cast(), s, 3, 2), -1, "below a blank");
    }
}

/// A CHARACTER(KIND=2 or 4) array of `values` (each of `len` code points).
fn wide<T: Copy>(values: &[&[T]], len: usize, extents: &[i64], code: i8) -> (Buf, Desc) {
    let flat: Vec<T> = values.iter().flat_map(|v| v.iter().copied()).collect();
    assert_eq!(flat.len(), values.len() * len);
    let buf = Buf::of(&flat);
    let elem = len * std::mem::size_of::<T>();
    let mut d = Desc::empty();
    d.establish(buf.ptr(), elem, code, attribute::OTHER, &contiguous(extents, &vec![1; extents.len()], elem), None);
    (buf, d)
}

/// ADJUSTL and ADJUSTR of a strided rank-2 section: the result is
/// contiguous, in the section's array element order.
#[test]
fn adjust_of_a_section_keeps_array_element_order() {
    let got = on_device(|| unsafe {
        let words = [" ab", "xxx", "c  ", "xxx", "  d", "xxx", "e f", "xxx"];
        let parent: Vec<u8> = words.iter().flat_map(|w| w.bytes()).collect();
        let buf = Buf::of(&parent);
        // s(1:3:2, 1:2) of a CHARACTER(3) array of 4 x 2: elements 1, 3, 5, 7.
        let mut s = Desc::empty();
        let dims = [Dim { lower_bound: 1, extent: 2, byte_stride: 6 }, Dim { lower_bound: 1, extent: 2, byte_stride: 12 }];
        s.establish(buf.ptr(), 3, type_code::CHAR, attribute::OTHER, &dims, None);
        let (l, r) = (Desc::empty(), Desc::empty());
        _FortranAAdjustl(l.ptr(), s.ptr(), file(), 1);
        _FortranAAdjustr(r.ptr(), s.ptr(), file(), 1);
        let out = (l.extents(), l.read_bytes(), r.read_bytes());
        for d in [&l, &r] {
            _FortranAAllocatableDeallocate(d.ptr(), false, NULL, file(), 1);
        }
        out
    });
    let text = |v: Vec<Vec<u8>>| v.into_iter().map(|w| String::from_utf8(w).unwrap()).collect::<Vec<_>>();
    assert_eq!(got.0, vec![2, 2]);
    assert_eq!(text(got.1), ["ab ", "c  ", "d  ", "e f"]);
    assert_eq!(text(got.2), [" ab", "  c", "  d", "e f"]);
}

/// TRIM, ADJUSTL and ADJUSTR of CHARACTER(KIND=2) and (KIND=4): lengths in
/// characters, a blank the code point 32 (U+2020 holds two 0x20 bytes and
/// is no blank).
#[test]
fn trim_and_adjust_count_wide_characters() {
    let b = b' ' as u16;
    let got = on_device(move || unsafe {
        let (_a, s) = wide::<u16>(&[&[b, 0x2020, b'a' as u16, b], &[0x2020, b, b, b]], 4, &[2], type_code::CHAR16);
        let (l, r, t) = (Desc::empty(), Desc::empty(), Desc::empty());
        _FortranAAdjustl(l.ptr(), s.ptr(), file(), 1);
        _FortranAAdjustr(r.ptr(), s.ptr(), file(), 1);
        let mut first = Desc::empty();
        first.establish(s.base(), 8, type_code::CHAR16, attribute::OTHER, &[], None);
        _FortranATrim(t.ptr(), first.ptr(), file(), 1);
        let two = (l.read::<[u16; 4]>(), r.read::<[u16; 4]>(), (t.header().type_code, t.header().elem_len), t.read_bytes()[0].clone());
        for d in [&l, &r, &t] {
            _FortranAAllocatableDeallocate(d.ptr(), false, NULL, file(), 1);
        }
        let (_c, w) = wide::<u32>(&[&[32, 32, 0x4e2d, b'b' as u32]], 4, &[], type_code::CHAR32);
        _FortranAAdjustl(l.ptr(), w.ptr(), file(), 1);
        _FortranAAdjustr(r.ptr(), w.ptr(), file(), 1);
        _FortranATrim(t.ptr(), l.ptr(), file(), 1);
        let four = (l.read::<[u32; 4]>(), r.read::<[u32; 4]>(), t.header().elem_len, t.read::<[u32; 2]>());
        for d in [&l, &r, &t] {
            _FortranAAllocatableDeallocate(d.ptr(), false, NULL, file(), 1);
        }
        (two, four)
    });
    let (two, four) = got;
    assert_eq!(two.0, [[0x2020, b'a' as u16, b, b], [0x2020, b, b, b]]);
    assert_eq!(two.1, [[b, b, 0x2020, b'a' as u16], [b, b, b, 0x2020]]);
    assert_eq!(two.2, (type_code::CHAR16, 6), "three characters of two bytes");
    let trimmed: Vec<u8> = [b, 0x2020, b'a' as u16].iter().flat_map(|c| c.to_ne_bytes()).collect();
    assert_eq!(two.3, trimmed);
    assert_eq!(four.0, [[0x4e2d, b'b' as u32, 32, 32]]);
    assert_eq!(four.1, [[32, 32, 0x4e2d, b'b' as u32]]);
    assert_eq!((four.2, four.3), (8, vec![[0x4e2d, b'b' as u32]]));
}

/// An IEEE format: stored mantissa bits and exponent bias.
#[derive(Clone, Copy)]
struct Format {
    mant: u32,
    bias: i32,
}
const F64: Format = Format { mant: 52, bias: 1023 };
const F32: Format = Format { mant: 23, bias: 127 };

impl Format {
    /// `(negative, m, k)` with `|x| = m * 2**k`, `m` the integer significand
    /// (finite non-zero `bits`).
    fn split(self, bits: u64) -> (bool, u64, i32) {
        let sign = bits >> (self.mant + self.exponent_bits()) & 1 == 1;
        let be = ((bits >> self.mant) & ((1 << self.exponent_bits()) - 1)) as i32;
        let m = bits & ((1 << self.mant) - 1);
        if be == 0 { (sign, m, 1 - self.bias - self.mant as i32) } else { (sign, m | 1 << self.mant, be - self.bias - self.mant as i32) }
    }
    fn exponent_bits(self) -> u32 {
        if self.mant == 52 { 11 } else { 8 }
    }
    /// The bits of `(-1)**sign * m * 2**k`, rounded once to nearest even
    /// (0 or infinity beyond the range).
    fn make(self, sign: bool, m: u64, k: i32) -> u64 {
        let sign_bit = u64::from(sign) << (self.mant + self.exponent_bits());
        if m == 0 {
            return sign_bit;
        }
        // Normalize m to mant + 1 bits, rounding when it is longer.
        let (mut m, mut k) = (m as u128, k);
        let len = 128 - m.leading_zeros() as i32;
        let want = self.mant as i32 + 1;
        let least = 1 - self.bias - self.mant as i32; // exponent of the least subnormal's unit
        let shift = (len - want).max(least - k);
        if shift > 0 {
            if shift >= 127 {
                return sign_bit;
            }
            let (q, r) = (m >> shift, m & ((1 << shift) - 1));
            let half = 1u128 << (shift - 1);
            m = q + u128::from(r > half || (r == half && q & 1 == 1));
            k += shift;
        } else {
            m <<= -shift;
            k += shift;
        }
        // m has at most want bits (want + 1 after a carry); k >= least.
        if m >> want != 0 {
            m >>= 1;
            k += 1;
        }
        let biased = if m >> self.mant == 0 { 0 } else { k + self.mant as i32 + self.bias };
        if biased >= (1 << self.exponent_bits()) - 1 {
            return sign_bit | (((1u64 << self.exponent_bits()) - 1) << self.mant);
        }
        sign_bit | (biased as u64) << self.mant | (m as u64 & ((1 << self.mant) - 1))
    }
    /// FRACTION and EXPONENT: `(bits of the fraction, e)`.
    fn frexp(self, bits: u64) -> (u64, i32) {
        let (sign, m, k) = self.split(bits);
        let len = 64 - m.leading_zeros() as i32;
        (self.make(sign, m, -len), k + len)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// FRACTION, EXPONENT, SET_EXPONENT, SCALE, SPACING and RRSPACING on
    /// finite non-zero REAL(8) and REAL(4) values, subnormals included,
    /// against a model on the bits: exact results, and one rounding to
    /// nearest even where a result leaves the range.
    #[test]
    fn the_numeric_model_functions_agree_with_the_model(bits in any::<u64>(), p in -1200i64..1200) {
        for (f, bits) in [(F64, bits), (F32, bits & 0xffff_ffff)] {
            let finite_nonzero = if f.mant == 52 { let x = f64::from_bits(bits); x.is_finite() && x != 0.0 } else { let x = f32::from_bits(bits as u32); x.is_finite() && x != 0.0 };
            if !finite_nonzero {
                continue;
            }
            let (frac, e) = f.frexp(bits);
            let (sign, m, k) = f.split(bits);
            let digits = f.mant as i32 + 1;
            let spacing = { let s = f.make(false, 1, e - digits); if s == 0 { f.make(false, 1, 1 - f.bias) } else { s } };
            let (fs, fm, fk) = f.split(frac);
            let rrspacing = f.make(false, fm, fk + digits);
            let q = (p % 70) as i32;
            let set_exponent = f.make(fs, fm, fk + q);
            let scale = f.make(sign, m, (k as i64 + p).clamp(-5000, 5000) as i32);
            let got: [u64; 7] = if f.mant == 52 {
                let x = f64::from_bits(bits);
                [
                    _FortranAFraction8(x).to_bits(), _FortranAExponent8_4(x) as u64, _FortranAExponent8_8(x) as u64,
                    _FortranASpacing8(x).to_bits(), _FortranARRSpacing8(x).to_bits(), _FortranASetExponent8(x, q.into()).to_bits(),
                    _FortranAScale8(x, p).to_bits(),
                ]
            } else {
                let x = f32::from_bits(bits as u32);
                [
                    _FortranAFraction4(x).to_bits().into(), _FortranAExponent4_4(x) as u64, _FortranAExponent4_8(x) as u64,
                    _FortranASpacing4(x).to_bits().into(), _FortranARRSpacing4(x).to_bits().into(), _FortranASetExponent4(x, q.into()).to_bits().into(),
                    _FortranAScale4(x, p).to_bits().into(),
                ]
            };
            prop_assert_eq!(got, [frac, e as u64, i64::from(e) as u64, spacing, rrspacing, set_exponent, scale], "bits {:#x}, p {}", bits, p);
        }
    }

    /// Real MOD and MODULO: integer-valued operands as flang-rt computes
    /// them (through 64-bit integers, a zero result signed as A for MOD and
    /// as P for MODULO, as flang 22's host runtime gives: MOD(0.0, 3.0) is
    /// -0.0); others against the host's exact `fmod` (Rust's `%`).
    #[test]
    fn real_mod_and_modulo_agree_with_flang_rt(a_bits in any::<u64>(), p_bits in any::<u64>(), small in any::<bool>(), ai in -50i64..50, pi in prop_oneof![-9i64..0, 1i64..10]) {
        let (a, p) = if small { (ai as f64 / if pi % 3 == 0 { 1.0 } else { 2.0 }, pi as f64) } else { (f64::from_bits(a_bits), f64::from_bits(p_bits)) };
        prop_assume!(a.is_finite() && p.is_finite() && p != 0.0);
        let model = |a: f64, p: f64, modulo: bool| -> f64 {
            let limit = i64::MAX as f64;
            if a.abs() <= limit && p.abs() <= limit && (a as i64) as f64 == a && (p as i64) as f64 == p {
                let (ai, pi) = (a as i64, p as i64);
                let mut m = ai - (ai / pi) * pi;
                if m == 0 {
                    return if (if modulo { pi } else { ai }) > 0 { 0.0 } else { -0.0 };
                }
                if modulo && (ai > 0) != (pi > 0) {
                    m += pi;
                }
                return m as f64;
            }
            let r = a % p;
            if modulo && (a < 0.0) != (p < 0.0) { if r == 0.0 { -r } else { r + p } } else { r }
        };
        prop_assert_eq!(unsafe { _FortranAModReal8(a, p, file(), 1) }.to_bits(), model(a, p, false).to_bits(), "MOD({}, {})", a, p);
        prop_assert_eq!(unsafe { _FortranAModuloReal8(a, p, file(), 1) }.to_bits(), model(a, p, true).to_bits(), "MODULO({}, {})", a, p);
        let (a4, p4) = (a as f32, p as f32);
        if a4.is_finite() && p4.is_finite() && p4 != 0.0 {
            prop_assert_eq!(unsafe { _FortranAModReal4(a4, p4, file(), 1) }.to_bits(), (model(a4.into(), p4.into(), false) as f32).to_bits());
            prop_assert_eq!(unsafe { _FortranAModuloReal4(a4, p4, file(), 1) }.to_bits(), (model(a4.into(), p4.into(), true) as f32).to_bits());
        }
    }
}

#[test]
fn the_numeric_functions_at_zero_infinity_and_nan() {
    unsafe {
        assert_eq!(_FortranAExponent8_4(0.0), 0);
        assert_eq!(_FortranAExponent8_4(f64::INFINITY), i32::MAX);
        assert_eq!(_FortranAExponent8_8(f64::NAN), i64::MAX);
        assert_eq!(_FortranAFraction8(-0.0).to_bits(), (-0.0f64).to_bits());
        assert!(_FortranAFraction8(f64::INFINITY).is_nan());
        assert_eq!(_FortranASpacing8(0.0), f64::MIN_POSITIVE);
        assert!(_FortranASpacing4(f32::NEG_INFINITY).is_nan());
        assert_eq!(_FortranARRSpacing8(0.0), 0.0);
        assert_eq!(_FortranASetExponent8(-0.0, 5).to_bits(), (-0.0f64).to_bits());
        assert_eq!(_FortranAScale8(1.5, 2000), f64::INFINITY);
        assert_eq!(_FortranAScale8(1.5, i64::MIN), 0.0);
        assert_eq!(_FortranAScale8(1.0, -1074), f64::from_bits(1), "the least subnormal");
        assert_eq!(_FortranAScale8(1.5, -1074), f64::from_bits(2), "rounded to even once");
        // The corpus's values.
        assert_eq!(_FortranAFraction8(6.75), 0.84375);
        assert_eq!(_FortranARRSpacing8(6.75), 7.599824371187712e15);
        assert!(_FortranAModReal8(f64::INFINITY, 2.0, file(), 1).is_nan());
        assert!(_FortranAModuloReal8(1.0, f64::INFINITY, file(), 1).is_nan());
        assert_eq!(_FortranAModReal8(1.0, f64::INFINITY, file(), 1), 1.0);
        assert_eq!(_FortranAModuloReal4(-6.75, 1.25, file(), 1), 0.75);
        assert_eq!(_FortranAModuloReal4(6.0, -3.0, file(), 1).to_bits(), (-0.0f32).to_bits());
    }
    let m = trap_message(|| {
        on_device(|| unsafe {
            _FortranAModReal8(1.0, 0.0, file(), 12);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:12): MOD with P==0");
    let m = trap_message(|| {
        on_device(|| unsafe {
            _FortranAModuloReal4(1.0, 0.0, NULL, 0);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error: MODULO with P==0");
}

#[test]
fn ieee_flags_map_to_themselves_and_neither_raise_nor_halt() {
    for flags in 0..64 {
        assert_eq!(_FortranAMapException(flags), flags);
        _FortranAferaiseexcept(flags);
        _FortranAfeclearexcept(flags);
        _FortranAfedisableexcept(flags);
        assert_eq!(_FortranAfegetexcept(), 0, "no exception halts");
    }
    let m = trap_message(|| {
        on_device(|| {
            _FortranAfetestexcept(8);
        })
    });
    assert_eq!(m, "omprt: _FortranAfetestexcept: not supported on the device: IEEE_GET_FLAG: the GPU keeps no floating-point exception flags");
    // C's <fenv.h>, which flang's code calls around every procedure that
    // uses IEEE_EXCEPTIONS: an environment where no flag is ever raised and
    // no exception halts.
    use omprt_device_rtl::exports::fenv;
    let mut saved = [0xa5u8; 32];
    for excepts in [0, 1, 8, 0x3f, -1] {
        assert_eq!(fenv::fetestexcept(excepts), 0, "no flag is raised");
        assert_eq!(fenv::feclearexcept(excepts), 0);
        assert_eq!(fenv::feraiseexcept(excepts), i32::from(excepts != 0), "raising fails");
        assert_eq!(fenv::fedisableexcept(excepts), 0, "none halted before");
        assert_eq!(fenv::feenableexcept(excepts), if excepts == 0 { 0 } else { -1 }, "halting fails");
    }
    assert_eq!(fenv::fegetexcept(), 0);
    assert_eq!(fenv::fegetenv(saved.as_mut_ptr().cast()), 0);
    assert_eq!(fenv::fesetenv(saved.as_ptr().cast()), 0);
    assert_eq!(fenv::fegetmode(saved.as_mut_ptr().cast()), 0);
    assert_eq!(fenv::fesetmode(saved.as_ptr().cast()), 0);
    assert_eq!(saved, [0xa5; 32], "nothing to save");
    let m = trap_message(|| on_device(|| _FortranAfeenableexcept(1)));
    let why = "IEEE_SET_HALTING_MODE: the GPU cannot halt on floating-point exceptions";
    assert_eq!(m, format!("omprt: _FortranAfeenableexcept: not supported on the device: {why}"));
    let m = trap_message(|| {
        on_device(|| {
            _FortranAMapException(64);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error: Invalid excepts value: 64");
}

#[test]
fn random_numbers_fill_any_shape_in_the_unit_interval() {
    let (doubles, singles, more) = on_device(|| unsafe {
        let (_a, x) = array(&[-1.0f64; 1000], &[10, 100]);
        _FortranARandomNumber(x.ptr(), file(), 1);
        let buf = Buf::of(&[-1.0f32; 12]);
        let mut s = Desc::empty();
        s.establish(buf.ptr(), 4, type_code::FLOAT, attribute::OTHER, &[Dim { lower_bound: 0, extent: 6, byte_stride: -8 }], None);
        s.set_base(buf.ptr().add(40));
        _FortranARandomNumber(s.ptr(), file(), 1);
        let untouched: Vec<f32> = (0..6).map(|i| *(buf.ptr() as *const f32).add(2 * i + 1)).collect();
        assert_eq!(untouched, [-1.0; 6], "only the section's elements");
        let (_c, y) = array(&[-1.0f64; 1000], &[1000]);
        _FortranARandomNumber(y.ptr(), file(), 1);
        (x.read::<f64>(), s.read::<f32>(), y.read::<f64>())
    });
    assert!(doubles.iter().all(|v| (0.0..1.0).contains(v)));
    assert!(singles.iter().all(|v| (0.0..1.0).contains(v)));
    let mean = doubles.iter().sum::<f64>() / 1000.0;
    assert!((mean - 0.5).abs() < 0.05, "{mean}");
    assert!(doubles.iter().zip(&more).all(|(a, b)| a != b), "later calls continue the sequence");
    let distinct: std::collections::BTreeSet<u64> = doubles.iter().map(|v| v.to_bits()).collect();
    assert_eq!(distinct.len(), 1000);
    let m = trap_message(|| {
        on_device(|| unsafe {
            let (_a, x) = array(&[0i32; 2], &[2]);
            _FortranARandomNumber(x.ptr(), file(), 3);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:3): RANDOM_NUMBER: HARVEST of type code 9 (only REAL(4) and REAL(8) on the device)");
    seeds_move_the_position_in_the_sequence();
}

/// RANDOM_SEED and RANDOM_INIT; part of the test above, as they move the
/// one device-wide sequence it draws from.
fn seeds_move_the_position_in_the_sequence() {
    on_device(|| unsafe {
        let draw = || {
            let (_b, x) = array(&[0.0f64; 5], &[5]);
            _FortranARandomNumber(x.ptr(), file(), 1);
            x.read::<f64>()
        };
        let (_s4, size4) = scalar(0i32);
        let (_s8, size8) = scalar(0i64);
        _FortranARandomSeedSize(size4.ptr(), file(), 1);
        _FortranARandomSeedSize(size8.ptr(), file(), 1);
        assert_eq!((size4.read::<i32>(), size8.read::<i64>()), (vec![2], vec![2]));
        // GET, then PUT of what GET gave, draws the same numbers again.
        let (_g, saved) = array(&[0i32; 2], &[2]);
        _FortranARandomSeedGet(saved.ptr(), file(), 1);
        let first = draw();
        _FortranARandomSeedPut(saved.ptr(), file(), 1);
        assert_eq!(draw(), first);
        // A seed of the user's: the same seed, the same numbers.
        let (_p, put) = array(&[42i32, -7], &[2]);
        _FortranARandomSeedPut(put.ptr(), file(), 1);
        let seeded = draw();
        _FortranARandomSeedPut(put.ptr(), file(), 1);
        assert_eq!(draw(), seeded);
        assert_ne!(seeded, first);
        // GET of INTEGER(4) words keeps their bits; INTEGER(8) words are
        // nonnegative; further elements are 0.
        _FortranARandomSeedPut(put.ptr(), file(), 1);
        _FortranARandomSeedGet(saved.ptr(), file(), 1);
        assert_eq!(saved.read::<i32>(), [42, -7]);
        let (_w, wide) = array(&[9i64; 3], &[3]);
        _FortranARandomSeedGet(wide.ptr(), file(), 1);
        assert_eq!(wide.read::<i64>(), [42, 0xffff_fff9, 0]);
        // No arguments, REPEATABLE: the start; not repeatable: elsewhere.
        _FortranARandomSeedDefaultPut();
        _FortranARandomSeedGet(wide.ptr(), file(), 1);
        assert_eq!(wide.read::<i64>(), [0, 0, 0]);
        let start = draw();
        _FortranARandomInit(true, false);
        assert_eq!(draw(), start);
        _FortranARandomInit(false, true);
        assert_ne!(draw(), start);
        _FortranARandomSeed(NULL, NULL, NULL, file(), 1);
        assert_eq!(draw(), start, "RANDOM_SEED() with no argument present");
        _FortranARandomSeed(NULL, put.ptr(), NULL, file(), 1);
        assert_eq!(draw(), seeded);
        _FortranARandomSeed(size4.ptr(), NULL, NULL, file(), 1);
        assert_eq!(size4.read::<i32>(), [2]);
    });
    let both = trap_message(|| {
        on_device(|| unsafe {
            let (_s, size) = scalar(0i32);
            let (_g, get) = array(&[0i32; 2], &[2]);
            _FortranARandomSeed(size.ptr(), NULL, get.ptr(), file(), 5);
        })
    });
    assert_eq!(both, "fatal Fortran runtime error(file.f90:5): RANDOM_SEED must have either 1 or no arguments");
    let short = trap_message(|| {
        on_device(|| unsafe {
            let (_p, put) = array(&[1i32], &[1]);
            _FortranARandomSeedPut(put.ptr(), file(), 6);
        })
    });
    let expected = "RANDOM_SEED(PUT=): an INTEGER(4) or INTEGER(8) array of at least 2 elements is expected";
    assert_eq!(short, format!("fatal Fortran runtime error(file.f90:6): {expected}"));
}

/// `SELECTED_REAL_KIND(p, r)` as flang 22 folds it for constant arguments in
/// device code (read from its FIR for nvptx64): `(p, r, kind)`, `None`
/// where the argument is absent.
const FOLDED_REAL_KINDS: &[(Option<i64>, Option<i64>, i32)] = &[
    (None, Some(0), 2), (None, Some(4), 2), (None, Some(5), 3), (None, Some(10), 3),
    (None, Some(37), 3), (None, Some(38), 8), (None, Some(307), 8), (None, Some(308), -2),
    (None, Some(4931), -2), (None, Some(4932), -2), (Some(-1), None, 2), (Some(-1), Some(0), 2),
    (Some(-1), Some(4), 2), (Some(-1), Some(5), 3), (Some(-1), Some(10), 3), (Some(-1), Some(37), 3),
    (Some(-1), Some(38), 8), (Some(-1), Some(307), 8), (Some(-1), Some(308), -2), (Some(-1), Some(4931), -2),
    (Some(-1), Some(4932), -2), (Some(0), None, 2), (Some(0), Some(0), 2), (Some(0), Some(4), 2),
    (Some(0), Some(5), 3), (Some(0), Some(10), 3), (Some(0), Some(37), 3), (Some(0), Some(38), 8),
    (Some(0), Some(307), 8), (Some(0), Some(308), -2), (Some(0), Some(4931), -2), (Some(0), Some(4932), -2),
    (Some(1), None, 2), (Some(1), Some(0), 2), (Some(1), Some(4), 2), (Some(1), Some(5), 3),
    (Some(1), Some(10), 3), (Some(1), Some(37), 3), (Some(1), Some(38), 8), (Some(1), Some(307), 8),
    (Some(1), Some(308), -2), (Some(1), Some(4931), -2), (Some(1), Some(4932), -2), (Some(2), None, 2),
    (Some(2), Some(0), 2), (Some(2), Some(4), 2), (Some(2), Some(5), 3), (Some(2), Some(10), 3),
    (Some(2), Some(37), 3), (Some(2), Some(38), 8), (Some(2), Some(307), 8), (Some(2), Some(308), -2),
    (Some(2), Some(4931), -2), (Some(2), Some(4932), -2), (Some(3), None, 2), (Some(3), Some(0), 2),
    (Some(3), Some(4), 2), (Some(3), Some(5), 4), (Some(3), Some(10), 4), (Some(3), Some(37), 4),
    (Some(3), Some(38), 8), (Some(3), Some(307), 8), (Some(3), Some(308), -2), (Some(3), Some(4931), -2),
    (Some(3), Some(4932), -2), (Some(4), None, 4), (Some(4), Some(0), 4), (Some(4), Some(4), 4),
    (Some(4), Some(5), 4), (Some(4), Some(10), 4), (Some(4), Some(37), 4), (Some(4), Some(38), 8),
    (Some(4), Some(307), 8), (Some(4), Some(308), -2), (Some(4), Some(4931), -2), (Some(4), Some(4932), -2),
    (Some(6), None, 4), (Some(6), Some(0), 4), (Some(6), Some(4), 4), (Some(6), Some(5), 4),
    (Some(6), Some(10), 4), (Some(6), Some(37), 4), (Some(6), Some(38), 8), (Some(6), Some(307), 8),
    (Some(6), Some(308), -2), (Some(6), Some(4931), -2), (Some(6), Some(4932), -2), (Some(7), None, 8),
    (Some(7), Some(0), 8), (Some(7), Some(4), 8), (Some(7), Some(5), 8), (Some(7), Some(10), 8),
    (Some(7), Some(37), 8), (Some(7), Some(38), 8), (Some(7), Some(307), 8), (Some(7), Some(308), -2),
    (Some(7), Some(4931), -2), (Some(7), Some(4932), -2), (Some(15), None, 8), (Some(15), Some(0), 8),
    (Some(15), Some(4), 8), (Some(15), Some(5), 8), (Some(15), Some(10), 8), (Some(15), Some(37), 8),
    (Some(15), Some(38), 8), (Some(15), Some(307), 8), (Some(15), Some(308), -2), (Some(15), Some(4931), -2),
    (Some(15), Some(4932), -2), (Some(16), None, -1), (Some(16), Some(0), -1), (Some(16), Some(4), -1),
    (Some(16), Some(5), -1), (Some(16), Some(10), -1), (Some(16), Some(37), -1), (Some(16), Some(38), -1),
    (Some(16), Some(307), -1), (Some(16), Some(308), -3), (Some(16), Some(4931), -3), (Some(16), Some(4932), -3),
    (Some(18), None, -1), (Some(18), Some(0), -1), (Some(18), Some(4), -1), (Some(18), Some(5), -1),
    (Some(18), Some(10), -1), (Some(18), Some(37), -1), (Some(18), Some(38), -1), (Some(18), Some(307), -1),
    (Some(18), Some(308), -3), (Some(18), Some(4931), -3), (Some(18), Some(4932), -3), (Some(33), None, -1),
    (Some(33), Some(0), -1), (Some(33), Some(4), -1), (Some(33), Some(5), -1), (Some(33), Some(10), -1),
    (Some(33), Some(37), -1), (Some(33), Some(38), -1), (Some(33), Some(307), -1), (Some(33), Some(308), -3),
    (Some(33), Some(4931), -3), (Some(33), Some(4932), -3), (Some(34), None, -1), (Some(34), Some(0), -1),
    (Some(34), Some(4), -1), (Some(34), Some(5), -1), (Some(34), Some(10), -1), (Some(34), Some(37), -1),
    (Some(34), Some(38), -1), (Some(34), Some(307), -1), (Some(34), Some(308), -3), (Some(34), Some(4931), -3),
    (Some(34), Some(4932), -3),
];
/// `SELECTED_INT_KIND(r)` and `SELECTED_LOGICAL_KIND(bits)` as flang 22
/// folds them in device code: `(argument, kind)`.
const FOLDED_INT_KINDS: &[(i64, i32)] = &[(-5, 1), (0, 1), (2, 1), (3, 2), (4, 2), (5, 4), (9, 4), (10, 8), (18, 8), (19, 16), (38, 16), (39, -1)];
const FOLDED_LOGICAL_KINDS: &[(i64, i32)] = &[(0, 1), (1, 1), (8, 1), (9, 2), (16, 2), (17, 4), (32, 4), (33, 8), (64, 8), (65, -1)];

/// The address of `v` as flang passes an optional integer argument.
fn arg<T>(v: &Option<T>) -> *const c_void {
    v.as_ref().map_or(NULL, |v| v as *const T as *const c_void)
}

#[test]
fn selected_kinds_agree_with_flangs_folding_for_the_device() {
    for &(p, r, kind) in FOLDED_REAL_KINDS {
        let got = unsafe { _FortranASelectedRealKind(file(), 1, arg(&p), 8, arg(&r), 8, NULL, 0) };
        assert_eq!(got, kind, "selected_real_kind(p={p:?}, r={r:?})");
        // The same values as INTEGER(4) and INTEGER(2) arguments.
        let (p4, r4) = (p.map(|v| v as i32), r.map(|v| v as i32));
        assert_eq!(unsafe { _FortranASelectedRealKind(file(), 1, arg(&p4), 4, arg(&r4), 4, NULL, 0) }, kind);
        let (p2, r2) = (p.map(|v| v as i16), r.map(|v| v as i16));
        assert_eq!(unsafe { _FortranASelectedRealKind(file(), 1, arg(&p2), 2, arg(&r2), 2, NULL, 0) }, kind);
    }
    for &(r, kind) in FOLDED_INT_KINDS {
        let r1 = Some(r as i8);
        assert_eq!(unsafe { _FortranASelectedIntKind(file(), 1, arg(&r1), 1) }, kind, "selected_int_kind({r})");
        let r16 = Some(i128::from(r));
        assert_eq!(unsafe { _FortranASelectedIntKind(file(), 1, arg(&r16), 16) }, kind, "selected_int_kind({r}_16)");
    }
    for &(bits, kind) in FOLDED_LOGICAL_KINDS {
        let b = Some(bits as i32);
        assert_eq!(unsafe { _FortranASelectedLogicalKind(file(), 1, arg(&b), 4) }, kind, "selected_logical_kind({bits})");
    }
    // RADIX: 2 when absent or given, -5 otherwise.
    let (p, two, ten) = (Some(6i32), Some(2i64), Some(10i64));
    assert_eq!(unsafe { _FortranASelectedRealKind(file(), 1, arg(&p), 4, NULL, 0, arg(&two), 8) }, 4);
    assert_eq!(unsafe { _FortranASelectedRealKind(file(), 1, arg(&p), 4, NULL, 0, arg(&ten), 8) }, -5);
    // An INTEGER(16) beyond 64 bits saturates.
    let huge = Some(i128::MAX);
    assert_eq!(unsafe { _FortranASelectedIntKind(file(), 1, arg(&huge), 16) }, -1);
    let tiny = Some(i128::MIN);
    assert_eq!(unsafe { _FortranASelectedIntKind(file(), 1, arg(&tiny), 16) }, 1);
    let m = trap_message(|| {
        on_device(|| unsafe {
            _FortranASelectedIntKind(file(), 9, arg(&Some(3i32)), 3);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:9): Unexpected integer kind in runtime: 3");
}

#[test]
fn system_clock_and_cpu_time_read_the_device_clock() {
    // flang-rt's units per COUNT kind: deciseconds, milliseconds, nanoseconds.
    let kinds = [(1, 10, i8::MAX as i64), (2, 1000, i16::MAX as i64), (4, 1000, i32::MAX as i64), (8, 1_000_000_000, i64::MAX)];
    for (kind, rate, max) in kinds.into_iter().chain([(16, 1_000_000_000, i64::MAX)]) {
        assert_eq!(_FortranASystemClockCountRate(kind), rate, "kind {kind}");
        assert_eq!(_FortranASystemClockCountMax(kind), max, "kind {kind}");
    }
    use omprt_device_rtl::fortran::time::clock_count;
    let ns = 1_234_567_891_234u64;
    assert_eq!(clock_count(8, ns), ns as i64);
    assert_eq!(clock_count(4, ns), 1_234_567);
    assert_eq!(clock_count(2, ns), 1_234_567 % 32768);
    assert_eq!(clock_count(1, ns), 12_345 % 128);
    assert_eq!(clock_count(4, 3_000_000_000_000_000), 3_000_000_000i64 % (1 << 31), "wraps after COUNT_MAX");
    assert_eq!(clock_count(8, u64::MAX), (u64::MAX % (1 << 63)) as i64, "never negative");
    let (c1, t1, c2, t2) = on_device(|| {
        let (c1, t1) = (_FortranASystemClockCount(8), _FortranACpuTime());
        std::thread::sleep(std::time::Duration::from_millis(20));
        (c1, t1, _FortranASystemClockCount(8), _FortranACpuTime())
    });
    assert!(c2 - c1 >= 20_000_000, "{c1} then {c2}: nanoseconds");
    assert!(t2 - t1 >= 0.02 && t2 - t1 < 10.0, "{t1} then {t2}: seconds");
}

#[test]
fn date_and_time_reports_blanks_and_minus_huge() {
    let none = std::ptr::null_mut();
    let mut date = *b"xxxxxxxx";
    let mut zone = *b"xxxxx";
    let (_v4, v4) = array(&[7i32; 9], &[9]);
    unsafe { _FortranADateAndTime(date.as_mut_ptr().cast(), 8, none, 0, zone.as_mut_ptr().cast(), 5, file(), 1, v4.ptr()) };
    assert_eq!(&date, b"        ");
    assert_eq!(&zone, b"     ");
    let mut expected = vec![-i32::MAX; 8];
    expected.push(7);
    assert_eq!(v4.read::<i32>(), expected, "the first eight elements");
    let (_v2, v2) = array(&[7i16; 8], &[8]);
    let (_v8, v8) = array(&[7i64; 8], &[8]);
    let mut time = *b"xxxxxxxxxx";
    unsafe {
        _FortranADateAndTime(none, 0, time.as_mut_ptr().cast(), 10, none, 0, file(), 1, v2.ptr());
        _FortranADateAndTime(none, 0, none, 0, none, 0, file(), 1, v8.ptr());
    }
    assert_eq!(&time, b"          ");
    assert_eq!(v2.read::<i16>(), [-i16::MAX; 8]);
    assert_eq!(v8.read::<i64>(), [-i64::MAX; 8]);
    // A section of INTEGER(16): every other element of 16.
    let buf = Buf::of(&[7i128; 16]);
    let mut s = Desc::empty();
    s.establish(buf.ptr(), 16, type_code::INT128, attribute::OTHER, &[Dim { lower_bound: 1, extent: 8, byte_stride: 32 }], None);
    unsafe { _FortranADateAndTime(none, 0, none, 0, none, 0, file(), 1, s.ptr()) };
    let all: Vec<i128> = (0..16).map(|i| unsafe { *(buf.ptr() as *const i128).add(i) }).collect();
    assert!(all.iter().enumerate().all(|(i, &v)| v == if i % 2 == 0 { -i128::MAX } else { 7 }), "{all:?}");
    let m = trap_message(|| {
        on_device(|| unsafe {
            let (_b, short) = array(&[0i32; 7], &[7]);
            _FortranADateAndTime(std::ptr::null_mut(), 0, std::ptr::null_mut(), 0, std::ptr::null_mut(), 0, file(), 4, short.ptr());
        })
    });
    let why = "DATE_AND_TIME: VALUES must be a rank-1 INTEGER array of kind 2, 4, 8 or 16 with at least 8 elements";
    assert_eq!(m, format!("fatal Fortran runtime error(file.f90:4): {why}"));
}

/// What a kernel printed before it trapped in `f`, and the trap's message.
fn stopped(f: impl FnOnce() + Send) -> (String, String) {
    let _ = sim::take_device_output();
    let m = trap_message(std::panic::AssertUnwindSafe(|| on_device(f)));
    (sim::take_device_output(), m)
}

#[test]
fn stop_and_error_stop_print_their_code_and_end_the_kernel() {
    assert_eq!(stopped(|| _FortranAStopStatement(3, false, false)).0, "Fortran STOP: code 3\n");
    assert_eq!(stopped(|| _FortranAStopStatement(0, false, false)).0, "Fortran STOP\n");
    assert_eq!(stopped(|| _FortranAStopStatement(7, true, false)).0, "Fortran ERROR STOP: code 7\n");
    assert_eq!(stopped(|| _FortranAStopStatement(7, true, true)).0, "", "QUIET=.TRUE.");
    let text = b"bad value, and more";
    let t = text.as_ptr() as usize;
    assert_eq!(stopped(move || unsafe { _FortranAStopStatementText(t as *const c_void, 9, true, false) }).0, "Fortran ERROR STOP: bad value\n");
    assert_eq!(stopped(move || unsafe { _FortranAStopStatementText(t as *const c_void, 3, false, false) }).0, "Fortran STOP: bad\n");
    assert_eq!(stopped(|| _FortranAExit(3)), ("Fortran EXIT: status 3\n".to_string(), "Fortran EXIT: status 3".to_string()));
    assert_eq!(stopped(|| _FortranAExit(0)).0, "Fortran EXIT: status 0\n", "ends the kernel too");
    assert_eq!(stopped(|| _FortranAAbort()), ("Fortran ABORT\n".to_string(), "Fortran ABORT".to_string()));
    on_device(|| _FortranAFlush(6));
    let msg = c"NEAREST: S is zero".as_ptr() as usize;
    let (out, trap) = stopped(move || unsafe { _FortranAReportFatalUserError(msg as *const c_void, file(), 30) });
    assert_eq!(out, "fatal Fortran runtime error(file.f90:30): NEAREST: S is zero\n");
    assert_eq!(trap, "fatal Fortran runtime error(file.f90:30): NEAREST: S is zero");
}

/// An entry point, the reason it traps with, and a call of it.
type IoCase = (&'static str, &'static str, Box<dyn Fn() + Send + Sync>);

#[test]
fn input_statements_and_non_advancing_output_trap_naming_the_entry_point() {
    const INPUT: &str = "READ in a target region (no device input)";
    const INTERNAL_INPUT: &str = "READ from a character variable in a target region (no device input)";
    const ADVANCE: &str = "ADVANCE='NO' in a target region (each output statement ends its record)";
    let (p, c, t) = (std::ptr::null_mut::<c_void>(), std::ptr::null::<c_void>(), b"x".as_ptr().cast::<c_void>());
    let (p, c, t) = (p as usize, c as usize, t as usize);
    let (p, c, t) = (move || p as *mut c_void, move || c as *const c_void, move || t as *const c_void);
    let cases: Vec<IoCase> = vec![
        ("_FortranAioBeginExternalListInput", INPUT, Box::new(|| unsafe { _FortranAioBeginExternalListInput(5, file(), 1); })),
        ("_FortranAioBeginExternalFormattedInput", INPUT, Box::new(move || unsafe { _FortranAioBeginExternalFormattedInput(t(), 1, c(), 5, file(), 1); })),
        ("_FortranAioBeginInternalListInput", INTERNAL_INPUT, Box::new(move || unsafe { _FortranAioBeginInternalListInput(t(), 1, p(), 0, file(), 1); })),
        ("_FortranAioBeginInternalFormattedInput", INTERNAL_INPUT, Box::new(move || unsafe { _FortranAioBeginInternalFormattedInput(t(), 1, t(), 1, c(), p(), 0, file(), 1); })),
        ("_FortranAioInputAscii", INPUT, Box::new(move || unsafe { _FortranAioInputAscii(p(), p(), 1); })),
        ("_FortranAioInputInteger", INPUT, Box::new(move || unsafe { _FortranAioInputInteger(p(), p(), 4); })),
        ("_FortranAioInputReal32", INPUT, Box::new(move || unsafe { _FortranAioInputReal32(p(), p()); })),
        ("_FortranAioInputReal64", INPUT, Box::new(move || unsafe { _FortranAioInputReal64(p(), p()); })),
        ("_FortranAioInputComplex32", INPUT, Box::new(move || unsafe { _FortranAioInputComplex32(p(), p()); })),
        ("_FortranAioInputComplex64", INPUT, Box::new(move || unsafe { _FortranAioInputComplex64(p(), p()); })),
        ("_FortranAioInputLogical", INPUT, Box::new(move || unsafe { _FortranAioInputLogical(p(), p()); })),
        ("_FortranAioInputDescriptor", INPUT, Box::new(move || unsafe { _FortranAioInputDescriptor(p(), c()); })),
        ("_FortranAioSetAdvance", ADVANCE, Box::new(move || unsafe { _FortranAioSetAdvance(p(), t(), 1); })),
    ];
    for (name, why, f) in cases {
        let (out, trap) = stopped(f);
        assert_eq!(trap, format!("omprt: {name}: not supported on the device: {why}"));
        assert_eq!(out, format!("omprt: {name}: not supported on the device: {why}\n"));
    }
}

/// REPEAT of CHARACTER(KIND=1) and (KIND=2), zero copies too; INDEX, SCAN
/// and VERIFY of CHARACTER(KIND=2) and (KIND=4) count in characters.
#[test]
fn repeat_and_wide_searches() {
    on_device(|| unsafe {
        let (_a, s) = characters(&["ab "], 3, &[]);
        let r = Desc::empty();
        _FortranARepeat(r.ptr(), s.ptr(), 3, file(), 1);
        assert_eq!((r.header().rank, r.header().type_code, r.read_bytes()), (0, type_code::CHAR, vec![b"ab ab ab ".to_vec()]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranARepeat(r.ptr(), s.ptr(), 0, file(), 1);
        assert_eq!(r.header().elem_len, 0);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_b, w) = wide::<u16>(&[&[0x3b1, 0x20]], 2, &[], type_code::CHAR16);
        _FortranARepeat(r.ptr(), w.ptr(), 2, file(), 1);
        assert_eq!((r.header().elem_len, r.header().type_code), (8, type_code::CHAR16));
        assert_eq!(std::slice::from_raw_parts(r.base() as *const u16, 4), [0x3b1, 0x20, 0x3b1, 0x20]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let x: [u32; 5] = [0x10000, 98, 99, 98, 0x10000];
        let p = |v: &[u32]| v.as_ptr() as *const c_void;
        assert_eq!(_FortranAIndex4(p(&x), 5, p(&[98, 99]), 2, false), 2);
        assert_eq!(_FortranAIndex4(p(&x), 5, p(&[98]), 1, true), 4);
        assert_eq!(_FortranAScan4(p(&x), 5, p(&[99, 0x10000]), 2, false), 1);
        assert_eq!(_FortranAScan4(p(&x), 5, p(&[98]), 1, true), 4);
        assert_eq!(_FortranAVerify4(p(&x), 5, p(&[0x10000, 98]), 2, false), 3);
        assert_eq!(_FortranAVerify4(p(&x), 5, p(&[0x10000]), 1, true), 4);
        let y: [u16; 4] = [0x2020, 32, 0x2020, 7];
        let q = |v: &[u16]| v.as_ptr() as *const c_void;
        assert_eq!(_FortranAIndex2(q(&y), 4, q(&[0x2020]), 1, true), 3);
        assert_eq!(_FortranAScan2(q(&y), 4, q(&[32]), 1, false), 2);
        assert_eq!(_FortranAVerify2(q(&y), 4, q(&[0x2020, 32]), 2, true), 4);
    });
    let m = trap_message(|| {
        on_device(|| unsafe {
            let (_a, s) = characters(&["ab"], 2, &[]);
            _FortranARepeat(Desc::empty().ptr(), s.ptr(), -1, file(), 4);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:4): REPEAT has negative NCOPIES=-1");
}
