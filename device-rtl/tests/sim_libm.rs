//! The C math functions of the device's Fortran member (`exports::libm`),
//! which flang's code calls with `-mllvm -math-runtime=precise`, and
//! flang-rt's `FPow` and `ErfcScaled`: each against values computed to 40
//! digits (mpmath; C's `fmod` keeps the dividend's sign), REAL(8) within 1e-14 relative and REAL(4) within 1e-5,
//! which any wrong function, argument order or kind misses by far.

use omprt_device_rtl::exports::fortran::{
    _FortranAErfcScaled4, _FortranAErfcScaled8, _FortranAFPow4i, _FortranAFPow4k, _FortranAFPow8i, _FortranAFPow8k,
};
use omprt_device_rtl::exports::libm::*;

/// (function, arguments, value to 40 digits rounded to double).
const CASES: &[(&str, &[f64], f64)] = &[
    ("acos", &[0.3], 1.2661036727794992),
    ("acos", &[-0.8], 2.498091544796509),
    ("asin", &[0.3], 0.3046926540153975),
    ("asin", &[-0.8], -0.9272952180016123),
    ("atan", &[0.3], 0.2914567944778671),
    ("atan", &[-4.0], -1.3258176636680326),
    ("acosh", &[1.7], 1.123230982587296),
    ("acosh", &[12.0], 3.176313180591656),
    ("asinh", &[0.3], 0.29567304756342244),
    ("asinh", &[-4.0], -2.0947125472611012),
    ("atanh", &[0.3], 0.3095196042031117),
    ("atanh", &[-0.8], -1.0986122886681098),
    ("cbrt", &[27.5], 3.018405368398843),
    ("cbrt", &[-0.3], -0.6694329500821695),
    ("cos", &[0.3], 0.955336489125606),
    ("cos", &[10.5], -0.4755369279959925),
    ("sin", &[0.3], 0.29552020666133955),
    ("sin", &[10.5], -0.87969575997167),
    ("tan", &[0.3], 0.30933624960962325),
    ("tan", &[-1.2], -2.5721516221263188),
    ("cosh", &[0.3], 1.0453385141288605),
    ("cosh", &[-4.0], 27.308232836016487),
    ("sinh", &[0.3], 0.3045202934471426),
    ("sinh", &[-4.0], -27.289917197127753),
    ("tanh", &[0.3], 0.2913126124515909),
    ("tanh", &[-1.2], -0.8336546070121552),
    ("erf", &[0.3], 0.3286267594591274),
    ("erf", &[-1.2], -0.9103139782296353),
    ("erfc", &[0.3], 0.6713732405408726),
    ("erfc", &[4.5], 1.9661604415428876e-10),
    ("exp", &[0.3], 1.3498588075760032),
    ("exp", &[-20.5], 1.2501528663867426e-09),
    ("exp2", &[0.3], 1.2311444133449163),
    ("exp2", &[10.5], 1448.1546878700494),
    ("exp10", &[0.3], 1.9952623149688795),
    ("exp10", &[-2.5], 0.0031622776601683794),
    ("expm1", &[1e-05], 1.0000050000166668e-05),
    ("expm1", &[2.0], 6.38905609893065),
    ("log", &[0.3], -1.2039728043259361),
    ("log", &[10000000000.0], 23.025850929940457),
    ("log10", &[0.3], -0.5228787452803376),
    ("log10", &[50000000.0], 7.698970004336019),
    ("log1p", &[1e-05], 9.999950000333332e-06),
    ("log1p", &[3.0], 1.3862943611198906),
    ("log2", &[0.3], -1.7369655941662063),
    ("log2", &[1000.0], 9.965784284662087),
    ("tgamma", &[0.3], 2.991568987687591),
    ("tgamma", &[5.5], 52.34277778455352),
    ("lgamma", &[0.3], 1.0957979948180756),
    ("lgamma", &[25.5], 56.389167643719944),
    ("j0", &[0.3], 0.9776262465382961),
    ("j0", &[7.0], 0.3000792705195556),
    ("j1", &[0.3], 0.148318816273104),
    ("j1", &[7.0], -0.004682823482345833),
    ("y0", &[0.3], -0.8072735778045195),
    ("y0", &[7.0], -0.025949743967209265),
    ("y1", &[0.3], -2.2931051383885293),
    ("y1", &[7.0], -0.30266723702418485),
    ("sqrt", &[0.3], 0.5477225575051661),
    ("sqrt", &[7.0], 2.6457513110645907),
    ("atan2", &[0.3, -2.0], 2.992702705980296),
    ("atan2", &[-1.0, 0.5], -1.1071487177940904),
    ("pow", &[1.7, 2.5], 3.7680989902071307),
    ("pow", &[0.3, -3.25], 50.04445017803832),
    ("hypot", &[3e+200, 4e+200], 4.9999999999999995e+200),
    ("hypot", &[0.3, 1.7], 1.7262676501632068),
    ("fmod", &[10.3, 3.0], 1.3000000000000007),
    ("fmod", &[-7.5, 2.0], -1.5),
    ("remainder", &[10.3, 3.0], 1.3000000000000007),
    ("remainder", &[7.5, 2.0], -0.5),
    ("fdim", &[3.5, 1.25], 2.25),
    ("fdim", &[1.0, 2.0], 0.0),
    ("fmax", &[3.5, 1.25], 3.5),
    ("fmax", &[-1.0, 2.0], 2.0),
    ("fmin", &[3.5, 1.25], 1.25),
    ("fmin", &[-1.0, 2.0], -1.0),
    ("copysign", &[3.5, -1.0], -3.5),
    ("copysign", &[-2.0, 1.0], 2.0),
    ("nextafter", &[1.0, 2.0], 1.0000000000000002),
    ("nextafter", &[1.0, 0.0], 0.9999999999999999),
];

fn double(name: &str, args: &[f64]) -> f64 {
    match (name, args) {
        ("acos", &[x]) => acos(x),
        ("acosh", &[x]) => acosh(x),
        ("asin", &[x]) => asin(x),
        ("asinh", &[x]) => asinh(x),
        ("atan", &[x]) => atan(x),
        ("atanh", &[x]) => atanh(x),
        ("cbrt", &[x]) => cbrt(x),
        ("cos", &[x]) => cos(x),
        ("cosh", &[x]) => cosh(x),
        ("erf", &[x]) => erf(x),
        ("erfc", &[x]) => erfc(x),
        ("exp", &[x]) => exp(x),
        ("exp10", &[x]) => exp10(x),
        ("exp2", &[x]) => exp2(x),
        ("expm1", &[x]) => expm1(x),
        ("j0", &[x]) => j0(x),
        ("j1", &[x]) => j1(x),
        ("lgamma", &[x]) => lgamma(x),
        ("log", &[x]) => log(x),
        ("log10", &[x]) => log10(x),
        ("log1p", &[x]) => log1p(x),
        ("log2", &[x]) => log2(x),
        ("sin", &[x]) => sin(x),
        ("sinh", &[x]) => sinh(x),
        ("sqrt", &[x]) => sqrt(x),
        ("tan", &[x]) => tan(x),
        ("tanh", &[x]) => tanh(x),
        ("tgamma", &[x]) => tgamma(x),
        ("y0", &[x]) => y0(x),
        ("y1", &[x]) => y1(x),
        ("atan2", &[x, y]) => atan2(x, y),
        ("copysign", &[x, y]) => copysign(x, y),
        ("fdim", &[x, y]) => fdim(x, y),
        ("fmax", &[x, y]) => fmax(x, y),
        ("fmin", &[x, y]) => fmin(x, y),
        ("fmod", &[x, y]) => fmod(x, y),
        ("hypot", &[x, y]) => hypot(x, y),
        ("nextafter", &[x, y]) => nextafter(x, y),
        ("pow", &[x, y]) => pow(x, y),
        ("remainder", &[x, y]) => remainder(x, y),
        _ => panic!("no double case for {name}{args:?}"),
    }
}

fn float(name: &str, args: &[f32]) -> f32 {
    match (name, args) {
        ("acos", &[x]) => acosf(x),
        ("acosh", &[x]) => acoshf(x),
        ("asin", &[x]) => asinf(x),
        ("asinh", &[x]) => asinhf(x),
        ("atan", &[x]) => atanf(x),
        ("atanh", &[x]) => atanhf(x),
        ("cbrt", &[x]) => cbrtf(x),
        ("cos", &[x]) => cosf(x),
        ("cosh", &[x]) => coshf(x),
        ("erf", &[x]) => erff(x),
        ("erfc", &[x]) => erfcf(x),
        ("exp", &[x]) => expf(x),
        ("exp10", &[x]) => exp10f(x),
        ("exp2", &[x]) => exp2f(x),
        ("expm1", &[x]) => expm1f(x),
        ("j0", &[x]) => j0f(x),
        ("j1", &[x]) => j1f(x),
        ("lgamma", &[x]) => lgammaf(x),
        ("log", &[x]) => logf(x),
        ("log10", &[x]) => log10f(x),
        ("log1p", &[x]) => log1pf(x),
        ("log2", &[x]) => log2f(x),
        ("sin", &[x]) => sinf(x),
        ("sinh", &[x]) => sinhf(x),
        ("sqrt", &[x]) => sqrtf(x),
        ("tan", &[x]) => tanf(x),
        ("tanh", &[x]) => tanhf(x),
        ("tgamma", &[x]) => tgammaf(x),
        ("y0", &[x]) => y0f(x),
        ("y1", &[x]) => y1f(x),
        ("atan2", &[x, y]) => atan2f(x, y),
        ("copysign", &[x, y]) => copysignf(x, y),
        ("fdim", &[x, y]) => fdimf(x, y),
        ("fmax", &[x, y]) => fmaxf(x, y),
        ("fmin", &[x, y]) => fminf(x, y),
        ("fmod", &[x, y]) => fmodf(x, y),
        ("hypot", &[x, y]) => hypotf(x, y),
        ("nextafter", &[x, y]) => nextafterf(x, y),
        ("pow", &[x, y]) => powf(x, y),
        ("remainder", &[x, y]) => remainderf(x, y),
        _ => panic!("no float case for {name}{args:?}"),
    }
}

fn close(got: f64, want: f64, relative: f64) -> bool {
    got == want || (got - want).abs() <= relative * want.abs()
}

#[test]
fn every_double_function_computes_its_value() {
    for &(name, args, want) in CASES {
        let got = double(name, args);
        assert!(close(got, want, 1e-14), "{name}{args:?} = {got:e}, want {want:e}");
    }
    assert_eq!(sqrt(2.0), std::f64::consts::SQRT_2, "sqrt rounds correctly");
    assert_eq!(fma(0.1, 10.0, -1.0), 0.1f64.mul_add(10.0, -1.0), "fma rounds once");
}

#[test]
fn every_float_function_computes_its_value() {
    for &(name, args, want) in CASES {
        let args32: Vec<f32> = args.iter().map(|&a| a as f32).collect();
        // Where the argument does not round to float, the value is the
        // function's at the rounded argument: recompute it in double.
        let want = if args32.iter().zip(args).all(|(a, b)| f64::from(*a) == *b) {
            want
        } else {
            double(name, &args32.iter().map(|&a| f64::from(a)).collect::<Vec<_>>())
        };
        let got = float(name, &args32);
        assert!(close(f64::from(got), want, 1e-5), "{name}f{args32:?} = {got:e}, want {want:e}");
    }
    assert_eq!(sqrtf(2.0), std::f32::consts::SQRT_2, "sqrtf rounds correctly");
    assert_eq!(fmaf(0.1, 10.0, -1.0), 0.1f32.mul_add(10.0, -1.0), "fmaf rounds once");
}

#[test]
fn bessel_functions_of_any_order_take_the_order_first() {
    // (n, x, J_n(x), Y_n(x))
    const ORDERS: &[(i32, f64, f64, f64)] = &[
    (2, 0.3, 0.011165861949063964, -14.480094011452342),
    (5, 7.0, 0.34789632475118326, 0.06370223524859028),
    ];
    for &(n, x, j, y) in ORDERS {
        assert!(close(jn(n, x), j, 1e-14) && close(yn(n, x), y, 1e-14), "jn/yn({n}, {x}) = {}, {}", jn(n, x), yn(n, x));
        assert!(close(f64::from(jnf(n, x as f32)), j, 1e-5) && close(f64::from(ynf(n, x as f32)), y, 1e-5), "jnf/ynf({n}, {x})");
    }
}

#[test]
fn functions_with_several_results_write_them_through_their_pointers() {
    let (mut e, mut whole, mut s, mut c) = (0i32, 0.0f64, 0.0f64, 0.0f64);
    unsafe {
        assert_eq!((frexp(48.0, &mut e), e), (0.75, 6));
        assert_eq!((modf(-3.25, &mut whole), whole), (-0.25, -3.0));
        sincos(0.3, &mut s, &mut c);
    }
    assert!(close(s, 0.29552020666133955, 1e-15) && close(c, 0.955336489125606, 1e-15), "sincos(0.3) = {s}, {c}");
    let (mut e32, mut whole32, mut s32, mut c32) = (0i32, 0.0f32, 0.0f32, 0.0f32);
    unsafe {
        assert_eq!((frexpf(48.0, &mut e32), e32), (0.75, 6));
        assert_eq!((modff(-3.25, &mut whole32), whole32), (-0.25, -3.0));
        sincosf(0.3, &mut s32, &mut c32);
    }
    assert!(close(f64::from(s32), 0.29552020666133955, 1e-6) && close(f64::from(c32), 0.955336489125606, 1e-6));
    assert_eq!((ldexp(0.75, 6), ldexpf(0.75, 6), scalbn(1.0, -3), scalbnf(1.0, -3)), (48.0, 48.0, 0.125, 0.125));
    assert_eq!((ilogb(48.0), ilogbf(48.0)), (5, 5));
    assert_eq!([floor(-2.5), ceil(-2.5), trunc(-2.5), round(-2.5), rint(-2.5), fabs(-2.5)], [-3.0, -2.0, -2.0, -3.0, -2.0, 2.5]);
    assert_eq!([floorf(-2.5), ceilf(-2.5), truncf(-2.5), roundf(-2.5), rintf(-2.5), fabsf(-2.5)], [-3.0, -2.0, -2.0, -3.0, -2.0, 2.5]);
}

#[test]
fn a_real_to_an_integer_power_multiplies_in_the_kind() {
    assert_eq!(_FortranAFPow8i(2.0, 10), 1024.0);
    assert_eq!(_FortranAFPow8i(2.0, -3), 0.125);
    assert_eq!(_FortranAFPow8i(-2.0, 3), -8.0);
    assert_eq!(_FortranAFPow8i(1.5, 5), 7.59375);
    assert_eq!(_FortranAFPow8i(0.0, 0), 1.0);
    assert_eq!(_FortranAFPow8i(f64::NAN, 0), 1.0);
    assert_eq!(_FortranAFPow8i(0.0, -1), f64::INFINITY);
    assert_eq!(_FortranAFPow8i(10.0, 400), f64::INFINITY);
    assert_eq!(_FortranAFPow8k(-1.0, i64::MIN), 1.0);
    assert_eq!(_FortranAFPow8k(-1.0, i64::MAX), -1.0);
    assert_eq!(_FortranAFPow8k(2.0, i64::MIN), 0.0);
    assert_eq!(_FortranAFPow8k(3.0, 4), 81.0);
    assert_eq!(_FortranAFPow8i(2.0, i32::MIN), 0.0);
    assert_eq!(_FortranAFPow4i(2.0, -3), 0.125);
    assert_eq!(_FortranAFPow4i(-1.5, 3), -3.375);
    assert_eq!(_FortranAFPow4k(3.0, 4), 81.0);
    assert_eq!(_FortranAFPow4k(-1.0, i64::MIN), 1.0);
    // In the kind: squarings and products in single precision (a model of
    // the same order of operations), not in double rounded to single.
    let in_single = |x: f32, n: u32| {
        let (mut result, mut square, mut left) = (1.0f32, x, n);
        while left != 0 {
            if left & 1 != 0 {
                result *= square;
            }
            left >>= 1;
            if left != 0 {
                square *= square;
            }
        }
        result
    };
    for n in 1..=40 {
        assert_eq!(_FortranAFPow4i(1.1, n), in_single(1.1, n as u32), "1.1 ** {n} in REAL(4)");
    }
    // Against repeated multiplication, for every small exponent.
    for n in -20i32..=20 {
        let want = if n >= 0 { (0..n).fold(1.0f64, |p, _| p * 1.25) } else { 1.0 / (0..-n).fold(1.0f64, |p, _| p * 1.25) };
        assert_eq!(_FortranAFPow8i(1.25, n), want, "1.25 ** {n}");
    }
}

#[test]
fn erfc_scaled_is_exp_of_the_square_times_erfc_without_overflow() {
    // (x, exp(x**2) * erfc(x) to 40 digits)
    const VALUES: &[(f64, f64)] = &[
    (0.0, 1.0),
    (0.5, 0.6156903441929259),
    (5.0, 0.11070463773306863),
    (7.5, 0.07457369306287669),
    (25.9, 0.021767181150738214),
    (26.1, 0.021600627726346206),
    (30.0, 0.01879588886141675),
    (100000.0, 5.6418958351954685e-06),
    (-0.5, 1.952360489182557),
    (-5.0, 144009798674.66104),
    ];
    for &(x, want) in VALUES {
        let got = _FortranAErfcScaled8(x);
        assert!(close(got, want, 1e-14), "erfc_scaled({x}) = {got:e}, want {want:e}");
        let got4 = f64::from(_FortranAErfcScaled4(x as f32));
        assert!(close(got4, want, 1e-6) || x.abs() > 1e4, "erfc_scaled({x} as REAL(4)) = {got4:e}");
    }
    assert_eq!(_FortranAErfcScaled8(f64::INFINITY), 0.0);
    assert_eq!(_FortranAErfcScaled8(-30.0), f64::INFINITY);
    assert!(_FortranAErfcScaled8(f64::NAN).is_nan());
}
