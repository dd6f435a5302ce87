//! IEEE binary32/binary64 operations the numeric intrinsics need, written
//! on the bits: `core` has no `frexp`, `ldexp`, `ilogb` or exact `fmod`
//! (LLVM's `frem`, which NVPTX expands as `a - b * trunc(a / b)`, is not
//! exact), and the device has no C math library.

/// An IEEE binary floating-point type of `BITS` bits.
pub trait Float:
    Copy + PartialEq + PartialOrd + core::ops::Mul<Output = Self> + core::ops::Sub<Output = Self> + core::ops::Neg<Output = Self>
{
    /// Significand bits, the implicit one included (`DIGITS(x)`).
    const DIGITS: i32;
    /// Stored exponent bits.
    const EXPONENT_BITS: u32;
    const ZERO: Self;
    const ONE: Self;
    /// `TINY(x)`: the least positive normal number.
    const TINY: Self;
    const NAN: Self;
    fn to_bits64(self) -> u64;
    fn from_bits64(bits: u64) -> Self;
    fn from_i64(v: i64) -> Self;
    /// Truncated toward zero, saturating (NaN: 0).
    fn to_i64(self) -> i64;

    const BITS: u32 = 1 + Self::EXPONENT_BITS + Self::DIGITS as u32 - 1;
    const MANTISSA_BITS: u32 = Self::DIGITS as u32 - 1;
    const EXPONENT_MASK: u64 = (1 << Self::EXPONENT_BITS) - 1;
    const BIAS: i32 = (1 << (Self::EXPONENT_BITS - 1)) - 1;

    fn sign_bit(self) -> bool {
        self.to_bits64() >> (Self::BITS - 1) != 0
    }
    fn biased_exponent(self) -> i32 {
        ((self.to_bits64() >> Self::MANTISSA_BITS) & Self::EXPONENT_MASK) as i32
    }
    fn mantissa(self) -> u64 {
        self.to_bits64() & ((1 << Self::MANTISSA_BITS) - 1)
    }
    fn is_nan(self) -> bool {
        self.biased_exponent() == Self::EXPONENT_MASK as i32 && self.mantissa() != 0
    }
    fn is_infinite(self) -> bool {
        self.biased_exponent() == Self::EXPONENT_MASK as i32 && self.mantissa() == 0
    }
    fn abs(self) -> Self {
        Self::from_bits64(self.to_bits64() & !(1 << (Self::BITS - 1)))
    }
    /// `|self|` with the sign of `sign`.
    fn with_sign_of(self, sign: Self) -> Self {
        let magnitude = self.abs().to_bits64();
        Self::from_bits64(if sign.sign_bit() { magnitude | 1 << (Self::BITS - 1) } else { magnitude })
    }

    /// `ilogb`: the unbiased exponent of a finite non-zero number, floor(log2 |x|),
    /// subnormals included.
    fn ilogb(self) -> i32 {
        let e = self.biased_exponent();
        if e == 0 {
            // Subnormal: the leading one of the mantissa.
            let m = self.mantissa();
            let lead = 63 - m.leading_zeros() as i32;
            return lead - Self::MANTISSA_BITS as i32 - Self::BIAS + 1;
        }
        e - Self::BIAS
    }

    /// `ldexp`/`scalbn`: `self * 2**n`, rounded once, as C's: at most two
    /// scalings by a normal power of two first, the ones toward the
    /// subnormal range leaving room for the significand so that only the
    /// last multiplication rounds.
    fn ldexp(self, n: i32) -> Self {
        let (max, min) = (Self::BIAS, 1 - Self::BIAS);
        let (mut y, mut n) = (self, n);
        if n > max {
            for _ in 0..2 {
                if n > max {
                    y = y * Self::pow2(max);
                    n -= max;
                }
            }
            n = n.min(max);
        } else if n < min {
            let down = Self::pow2(min) * Self::pow2(Self::DIGITS);
            for _ in 0..2 {
                if n < min {
                    y = y * down;
                    n += -min - Self::DIGITS;
                }
            }
            n = n.max(min);
        }
        y * Self::pow2(n)
    }

    /// `2**n` for `-BIAS + 1 <= n <= BIAS`.
    fn pow2(n: i32) -> Self {
        Self::from_bits64(((n + Self::BIAS) as u64) << Self::MANTISSA_BITS)
    }

    /// `frexp`'s fraction: the significand of a finite non-zero number as
    /// a number in [0.5, 1), with its sign.
    fn frexp_fraction(self) -> Self {
        let e = self.ilogb() + 1;
        self.ldexp(-e)
    }

    /// C's `fmod`: `self - n * p` with `n` the truncated quotient, exact.
    /// `p` is finite and non-zero, `self` finite.
    fn fmod(self, p: Self) -> Self {
        let (ax, ap) = (self.abs(), p.abs());
        if ax < ap {
            return self;
        }
        // Integer significands and exponents of both; the remainder of
        // mx * 2**(ex - ey) by my, a few bits at a time (mx < my < 2**53
        // after each step, so ten more bits stay within 64).
        let (mut mx, ex) = Self::split(ax);
        let (my, ey) = Self::split(ap);
        mx %= my;
        let mut e = ex;
        while e > ey {
            let s = (e - ey).min(10);
            mx = (mx << s) % my;
            e -= s;
        }
        if mx == 0 {
            return Self::ZERO.with_sign_of(self);
        }
        // mx * 2**(ey) is the remainder, exact: back to a float.
        let r = Self::from_parts(mx, ey);
        r.with_sign_of(self)
    }

    /// `(m, e)` with `|x| = m * 2**e` and `m` the significand with the
    /// implicit bit (finite non-zero `x`).
    fn split(x: Self) -> (u64, i32) {
        let be = x.biased_exponent();
        let m = x.mantissa();
        if be == 0 {
            (m, 1 - Self::BIAS - Self::MANTISSA_BITS as i32)
        } else {
            (m | 1 << Self::MANTISSA_BITS, be - Self::BIAS - Self::MANTISSA_BITS as i32)
        }
    }

    /// `m * 2**e` for a significand `m` of at most DIGITS bits (exact).
    fn from_parts(m: u64, e: i32) -> Self {
        Self::from_i64(m as i64).ldexp(e)
    }
}

impl Float for f32 {
    const DIGITS: i32 = 24;
    const EXPONENT_BITS: u32 = 8;
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const TINY: f32 = f32::MIN_POSITIVE;
    const NAN: f32 = f32::NAN;
    fn to_bits64(self) -> u64 {
        u64::from(self.to_bits())
    }
    fn from_bits64(bits: u64) -> f32 {
        f32::from_bits(bits as u32)
    }
    fn from_i64(v: i64) -> f32 {
        v as f32
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
}

impl Float for f64 {
    const DIGITS: i32 = 53;
    const EXPONENT_BITS: u32 = 11;
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    const TINY: f64 = f64::MIN_POSITIVE;
    const NAN: f64 = f64::NAN;
    fn to_bits64(self) -> u64 {
        self.to_bits()
    }
    fn from_bits64(bits: u64) -> f64 {
        f64::from_bits(bits)
    }
    fn from_i64(v: i64) -> f64 {
        v as f64
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
}

/// The square root, correctly rounded (the device's `sqrt.rn`, the host's
/// `sqrt`).
pub fn sqrt(x: f64) -> f64 {
    #[cfg(target_arch = "nvptx64")]
    {
        core::intrinsics::sqrtf64(x)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        x.sqrt()
    }
}
