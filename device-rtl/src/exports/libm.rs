//! C's math library on the device: the `double` and `float` functions of
//! `<math.h>`. flang 22 lowers Fortran's elemental functions to LLVM's math
//! intrinsics, which the NVPTX back end cannot compile (`no libcall
//! available for fexp`); with `-mllvm -math-runtime=precise` it calls these
//! functions by their C names instead, and the device link finds them here
//! (docs/fortran-runtime.md, "Math"). They are musl's algorithms as the
//! `libm` crate has them, except `sqrt` and `fma`, which are the GPU's
//! instructions. They live in the archive's Fortran runtime member, which
//! only a program that calls one of its functions links.
//!
//! On the GPU they are weak, so that a math library the user links takes
//! precedence; in the host simulation they keep Rust names, which would
//! otherwise replace the test process's own.

use crate::arch;

/// One function per line: `name(arguments) -> result`, computed by the
/// `libm` crate's function of the same name.
macro_rules! from_libm {
    ($($name:ident($($arg:ident: $t:ty),*) -> $r:ty;)*) => {$(
        #[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
        pub extern "C-unwind" fn $name($($arg: $t),*) -> $r {
            libm::$name($($arg),*)
        }
    )*};
}

from_libm! {
    acos(x: f64) -> f64;
    acosf(x: f32) -> f32;
    acosh(x: f64) -> f64;
    acoshf(x: f32) -> f32;
    asin(x: f64) -> f64;
    asinf(x: f32) -> f32;
    asinh(x: f64) -> f64;
    asinhf(x: f32) -> f32;
    atan(x: f64) -> f64;
    atanf(x: f32) -> f32;
    atan2(y: f64, x: f64) -> f64;
    atan2f(y: f32, x: f32) -> f32;
    atanh(x: f64) -> f64;
    atanhf(x: f32) -> f32;
    cbrt(x: f64) -> f64;
    cbrtf(x: f32) -> f32;
    ceil(x: f64) -> f64;
    ceilf(x: f32) -> f32;
    copysign(x: f64, y: f64) -> f64;
    copysignf(x: f32, y: f32) -> f32;
    cos(x: f64) -> f64;
    cosf(x: f32) -> f32;
    cosh(x: f64) -> f64;
    coshf(x: f32) -> f32;
    erf(x: f64) -> f64;
    erff(x: f32) -> f32;
    erfc(x: f64) -> f64;
    erfcf(x: f32) -> f32;
    exp(x: f64) -> f64;
    expf(x: f32) -> f32;
    exp2(x: f64) -> f64;
    exp2f(x: f32) -> f32;
    exp10(x: f64) -> f64;
    exp10f(x: f32) -> f32;
    expm1(x: f64) -> f64;
    expm1f(x: f32) -> f32;
    fabs(x: f64) -> f64;
    fabsf(x: f32) -> f32;
    fdim(x: f64, y: f64) -> f64;
    fdimf(x: f32, y: f32) -> f32;
    floor(x: f64) -> f64;
    floorf(x: f32) -> f32;
    fmax(x: f64, y: f64) -> f64;
    fmaxf(x: f32, y: f32) -> f32;
    fmin(x: f64, y: f64) -> f64;
    fminf(x: f32, y: f32) -> f32;
    fmod(x: f64, y: f64) -> f64;
    fmodf(x: f32, y: f32) -> f32;
    hypot(x: f64, y: f64) -> f64;
    hypotf(x: f32, y: f32) -> f32;
    ilogb(x: f64) -> i32;
    ilogbf(x: f32) -> i32;
    j0(x: f64) -> f64;
    j0f(x: f32) -> f32;
    j1(x: f64) -> f64;
    j1f(x: f32) -> f32;
    jn(n: i32, x: f64) -> f64;
    jnf(n: i32, x: f32) -> f32;
    ldexp(x: f64, n: i32) -> f64;
    ldexpf(x: f32, n: i32) -> f32;
    lgamma(x: f64) -> f64;
    lgammaf(x: f32) -> f32;
    log(x: f64) -> f64;
    logf(x: f32) -> f32;
    log10(x: f64) -> f64;
    log10f(x: f32) -> f32;
    log1p(x: f64) -> f64;
    log1pf(x: f32) -> f32;
    log2(x: f64) -> f64;
    log2f(x: f32) -> f32;
    nextafter(x: f64, y: f64) -> f64;
    nextafterf(x: f32, y: f32) -> f32;
    pow(x: f64, y: f64) -> f64;
    powf(x: f32, y: f32) -> f32;
    remainder(x: f64, y: f64) -> f64;
    remainderf(x: f32, y: f32) -> f32;
    rint(x: f64) -> f64;
    rintf(x: f32) -> f32;
    round(x: f64) -> f64;
    roundf(x: f32) -> f32;
    scalbn(x: f64, n: i32) -> f64;
    scalbnf(x: f32, n: i32) -> f32;
    sin(x: f64) -> f64;
    sinf(x: f32) -> f32;
    sinh(x: f64) -> f64;
    sinhf(x: f32) -> f32;
    tan(x: f64) -> f64;
    tanf(x: f32) -> f32;
    tanh(x: f64) -> f64;
    tanhf(x: f32) -> f32;
    tgamma(x: f64) -> f64;
    tgammaf(x: f32) -> f32;
    trunc(x: f64) -> f64;
    truncf(x: f32) -> f32;
    y0(x: f64) -> f64;
    y0f(x: f32) -> f32;
    y1(x: f64) -> f64;
    y1f(x: f32) -> f32;
    yn(n: i32, x: f64) -> f64;
    ynf(n: i32, x: f32) -> f32;
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn sqrt(x: f64) -> f64 {
    arch::sqrt_f64(x)
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn sqrtf(x: f32) -> f32 {
    arch::sqrt_f32(x)
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn fma(x: f64, y: f64, z: f64) -> f64 {
    arch::fma_f64(x, y, z)
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub extern "C-unwind" fn fmaf(x: f32, y: f32, z: f32) -> f32 {
    arch::fma_f32(x, y, z)
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn frexp(x: f64, exponent: *mut i32) -> f64 {
    let (fraction, e) = libm::frexp(x);
    // SAFETY: C's contract: `exponent` is writable.
    unsafe { exponent.write(e) };
    fraction
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn frexpf(x: f32, exponent: *mut i32) -> f32 {
    let (fraction, e) = libm::frexpf(x);
    // SAFETY: as above.
    unsafe { exponent.write(e) };
    fraction
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn modf(x: f64, integral: *mut f64) -> f64 {
    let (fraction, whole) = libm::modf(x);
    // SAFETY: C's contract: `integral` is writable.
    unsafe { integral.write(whole) };
    fraction
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn modff(x: f32, integral: *mut f32) -> f32 {
    let (fraction, whole) = libm::modff(x);
    // SAFETY: as above.
    unsafe { integral.write(whole) };
    fraction
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn sincos(x: f64, sine: *mut f64, cosine: *mut f64) {
    let (s, c) = libm::sincos(x);
    // SAFETY: C's contract: both writable.
    unsafe {
        sine.write(s);
        cosine.write(c);
    }
}

#[cfg_attr(target_arch = "nvptx64", unsafe(no_mangle), linkage = "weak")]
pub unsafe extern "C-unwind" fn sincosf(x: f32, sine: *mut f32, cosine: *mut f32) {
    let (s, c) = libm::sincosf(x);
    // SAFETY: as above.
    unsafe {
        sine.write(s);
        cosine.write(c);
    }
}
