//! The numeric model intrinsics flang calls its runtime for (flang-rt's
//! `numeric.cpp`): `EXPONENT`, `FRACTION`, `SPACING`, `RRSPACING`, `SCALE`,
//! `SET_EXPONENT`, real `MOD` and `MODULO`; and the IEEE exception entry
//! points they raise flags through.

use super::float::Float;
use super::terminator::{self, Site};

/// `EXPONENT(x)`: 0 for zero, `HUGE(0)` of the result kind for an infinity
/// or NaN, else `ilogb(x) + 1`.
pub fn exponent<T: Float>(x: T) -> i64 {
    if x.is_nan() || x.is_infinite() {
        return i64::MAX;
    }
    if x == T::ZERO { 0 } else { i64::from(x.ilogb() + 1) }
}

/// [`exponent`] for an `INTEGER(4)` result: `HUGE` is that kind's.
pub fn exponent4<T: Float>(x: T) -> i32 {
    let e = exponent(x);
    if e == i64::MAX { i32::MAX } else { e as i32 }
}

/// `FRACTION(x)`: NaN stays, an infinity becomes NaN, zero stays, else the
/// significand in [0.5, 1) with the sign of `x`.
pub fn fraction<T: Float>(x: T) -> T {
    if x.is_nan() || x == T::ZERO {
        return x;
    }
    if x.is_infinite() {
        return T::NAN;
    }
    x.frexp_fraction()
}

/// The scale of `SCALE`/`SET_EXPONENT` as C's `int`, saturated.
fn saturate(p: i64) -> i32 {
    p.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

/// `SET_EXPONENT(x, i)`: `x` with exponent `i` (NaN stays, an infinity
/// becomes NaN, zero stays).
pub fn set_exponent<T: Float>(x: T, p: i64) -> T {
    if x.is_nan() || x == T::ZERO {
        return x;
    }
    if x.is_infinite() {
        return T::NAN;
    }
    let e = i64::from(x.ilogb() + 1);
    x.ldexp(saturate(p - e))
}

/// `SCALE(x, i)`: `x * 2**i`.
pub fn scale<T: Float>(x: T, p: i64) -> T {
    x.ldexp(saturate(p))
}

/// `SPACING(x)`: `2**(e - DIGITS)`, `TINY(x)` for zero or an underflow;
/// NaN stays, an infinity becomes NaN.
pub fn spacing<T: Float>(x: T) -> T {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return T::NAN;
    }
    if x == T::ZERO {
        return T::TINY;
    }
    let r = T::ONE.ldexp(x.ilogb() + 1 - T::DIGITS);
    if r == T::ZERO { T::TINY } else { r }
}

/// `RRSPACING(x)`: `|x| * 2**(DIGITS - e)`; NaN stays, an infinity becomes
/// NaN, zero gives zero.
pub fn rrspacing<T: Float>(x: T) -> T {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return T::NAN;
    }
    if x == T::ZERO {
        return T::ZERO;
    }
    x.abs().ldexp(T::DIGITS - (x.ilogb() + 1))
}

/// Real `MOD(a, p)` (`modulo` false) and `MODULO(a, p)`: integer-valued
/// operands exactly through integers, others through an exact `fmod`;
/// `p == 0` is an error, NaN operands or an infinite `a` give NaN, as does
/// `MODULO` by an infinity.
pub fn real_mod<T: Float>(a: T, p: T, modulo: bool, site: Site) -> T {
    if p == T::ZERO {
        terminator::crash_with(site, if modulo { b"MODULO with P==0" } else { b"MOD with P==0" });
    }
    if a.is_nan() || p.is_nan() || a.is_infinite() || (modulo && p.is_infinite()) {
        return T::NAN;
    }
    if p.is_infinite() {
        return a;
    }
    let limit = T::from_i64(i64::MAX);
    if a.abs() <= limit && p.abs() <= limit {
        let (ai, pi) = (a.to_i64(), p.to_i64());
        if T::from_i64(ai) == a && T::from_i64(pi) == p && ai != i64::MIN && pi != i64::MIN {
            let mut m = ai - (ai / pi) * pi;
            if modulo {
                if m == 0 {
                    return if pi > 0 { T::ZERO } else { -T::ZERO };
                }
                if (ai > 0) != (pi > 0) {
                    m += pi;
                }
            } else if m == 0 {
                return if ai > 0 { T::ZERO } else { -T::ZERO };
            }
            return T::from_i64(m);
        }
    }
    let mut r = a.fmod(p);
    if modulo && (a < T::ZERO) != (p < T::ZERO) {
        r = if r == T::ZERO { -r } else { r - (-p) };
    }
    r
}

/// flang's IEEE exception flags (`ieee_exceptions`' bits, `MapException`'s
/// argument): invalid 1, denorm 2, divide by zero 4, overflow 8, underflow
/// 16, inexact 32.
pub const FORTRAN_EXCEPTIONS: u32 = 0x3f;

/// `_FortranAMapException`: the runtime's encoding of flang's exception
/// bits, which `_FortranAferaiseexcept` takes (on the host, `<fenv.h>`'s).
/// The device has no floating-point status flags to map to: the encoding
/// is flang's bits themselves. A value beyond them is an error, as in
/// flang-rt.
pub fn map_exception(excepts: u32) -> u32 {
    if excepts & !FORTRAN_EXCEPTIONS != 0 {
        terminator::crash(Site::UNKNOWN, |m| {
            m.text(b"Invalid excepts value: ").int(excepts.into());
        });
    }
    excepts
}

/// `x ** n` for a REAL `x` and an INTEGER `n` (flang-rt's `FPow<kind><i|k>`):
/// repeated squaring of `x` in the kind, multiplying in the squares of the
/// set bits of `|n|` from the least significant up, then the reciprocal for
/// a negative `n`. `x ** 0` is 1, also for
/// a zero or NaN `x`. The most negative `n`, whose magnitude has no positive
/// counterpart, is `1 / (x ** -(n + 1) * x)`.
pub fn real_power<T>(x: T, n: i64) -> T
where
    T: Copy + core::ops::Mul<Output = T> + core::ops::Div<Output = T> + From<u8>,
{
    let one = T::from(1);
    if n == 0 {
        return one;
    }
    let (mut left, extra) = if n == i64::MIN { (i64::MAX as u64, true) } else { (n.unsigned_abs(), false) };
    let (mut result, mut square) = (one, x);
    loop {
        if left & 1 != 0 {
            result = result * square;
        }
        left >>= 1;
        if left == 0 {
            break;
        }
        square = square * square;
    }
    if extra {
        result = result * x;
    }
    if n < 0 { one / result } else { result }
}

/// `ERFC_SCALED(x)`, `exp(x**2) * erfc(x)`, in double precision. Below
/// `ASYMPTOTIC_FROM` the product, with `x**2` split into a rounded part and
/// its rounding error (one `fma`) so that `exp` sees it exactly; above,
/// where `erfc` underflows, the asymptotic series `1 / (x sqrt(pi)) * (1 -
/// 1/(2x**2) + 3/(2x**2)**2 - ...)`, summed until a term no longer changes
/// the sum. Below about -26.6 the result overflows to infinity, as the
/// function does.
pub fn erfc_scaled(x: f64) -> f64 {
    const ASYMPTOTIC_FROM: f64 = 26.0;
    const FRAC_1_SQRT_PI: f64 = 0.564_189_583_547_756_3;
    if x.is_nan() {
        return x;
    }
    if x < ASYMPTOTIC_FROM {
        let square = x * x;
        let error = crate::arch::fma_f64(x, x, -square);
        return libm::exp(square) * (1.0 + error) * libm::erfc(x);
    }
    if x == f64::INFINITY {
        return 0.0;
    }
    let inverse_2x2 = 1.0 / (2.0 * x * x);
    let (mut sum, mut term, mut k) = (1.0f64, 1.0f64, 1.0f64);
    loop {
        term = -term * (2.0 * k - 1.0) * inverse_2x2;
        if sum + term == sum {
            break;
        }
        sum += term;
        k += 1.0;
    }
    FRAC_1_SQRT_PI / x * sum
}
