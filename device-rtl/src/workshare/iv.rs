//! The induction-variable types of clang's worksharing entry points.
//!
//! Every computation happens on the *distance* from the lower bound in the
//! unsigned type of the same width, so bounds near the type limits never
//! overflow: a normalised loop `[lb, ub]` has `ub - lb` < 2^bits.

use core::ops::{Add, Mul, Sub};

/// Unsigned arithmetic of the loop's own width: 32-bit loops never pay for
/// 64-bit division, which the GPU does in a long software sequence.
pub trait Distance:
    Copy + Ord + core::fmt::Debug + Into<u64> + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    fn wrapping_add(self, other: Self) -> Self;
    fn wrapping_sub(self, other: Self) -> Self;
    fn wrapping_mul(self, other: Self) -> Self;
    /// `self / d` for a divisor the caller knows is not zero (0 if it is).
    /// No `/` by a plain integer on purpose: its division-by-zero panic is a
    /// call, and in a non-kernel function every call costs callee-saved
    /// registers. The test comes before `arch::wide_nonzero_divisor` hides
    /// the divisor, so it folds where LLVM knows the divisor (a team's size,
    /// a grid's) is not zero, as in every chunk of a `schedule(static)` loop.
    fn div_nonzero(self, d: Self) -> Self;
    /// `self % d`, likewise.
    fn rem_nonzero(self, d: Self) -> Self;
    /// `(self / d, self % d)` behind one test of the divisor ((0, 0) if it
    /// is zero): behind two, the division and the remainder sit in blocks
    /// apart, where LLVM does not derive one from the other, and every chunk
    /// of a static schedule would pay two divisions.
    fn div_rem_nonzero(self, d: Self) -> (Self, Self);
    /// The low bits of `v` (exact for values known to fit).
    fn from_u64(v: u64) -> Self;
    fn checked_add(self, other: Self) -> Option<Self>;
    fn checked_mul(self, other: Self) -> Option<Self>;
    /// `self >> bits` for `bits` below the width.
    fn shr(self, bits: u32) -> Self;
}

/// A distance type that is a loop type of its own (`u32`, `u64`): the
/// normalised iteration space of `dispatch`, in the loop's width.
pub trait Count: Distance + LoopIv<Unsigned = Self> {}
impl Count for u32 {}
impl Count for u64 {}

macro_rules! distance {
    ($u:ty, $nz:ty, $nonzero_divisor:path) => {
        impl Distance for $u {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn wrapping_add(self, other: Self) -> Self {
                <$u>::wrapping_add(self, other)
            }
            #[inline(always)]
            fn wrapping_sub(self, other: Self) -> Self {
                <$u>::wrapping_sub(self, other)
            }
            #[inline(always)]
            fn wrapping_mul(self, other: Self) -> Self {
                <$u>::wrapping_mul(self, other)
            }
            #[inline(always)]
            fn div_nonzero(self, d: Self) -> Self {
                <$nz>::new(d).map_or(0, |d| self / $nonzero_divisor(d))
            }
            #[inline(always)]
            fn rem_nonzero(self, d: Self) -> Self {
                <$nz>::new(d).map_or(0, |d| self % $nonzero_divisor(d))
            }
            #[inline(always)]
            fn div_rem_nonzero(self, d: Self) -> (Self, Self) {
                let Some(d) = <$nz>::new(d) else { return (0, 0) };
                let d = $nonzero_divisor(d);
                let q = self / d;
                (q, self - q * d.get())
            }
            #[inline(always)]
            fn from_u64(v: u64) -> Self {
                v as $u
            }
            #[inline(always)]
            fn checked_add(self, other: Self) -> Option<Self> {
                <$u>::checked_add(self, other)
            }
            #[inline(always)]
            fn checked_mul(self, other: Self) -> Option<Self> {
                <$u>::checked_mul(self, other)
            }
            #[inline(always)]
            fn shr(self, bits: u32) -> Self {
                self.wrapping_shr(bits)
            }
        }
    };
}
distance!(u32, core::num::NonZeroU32, crate::arch::wide_nonzero_divisor);
distance!(u64, core::num::NonZeroU64, core::convert::identity);

/// Whether a loop from `lb` to `ub` (both included), counting down when
/// `descending`, runs no iteration.
#[inline(always)]
pub fn runs_no_iteration<T: Ord>(lb: T, ub: T, descending: bool) -> bool {
    if descending { lb < ub } else { lb > ub }
}

/// `i32`, `u32`, `i64` or `u64`, with its signed (stride) and unsigned
/// (distance) companions.
pub trait LoopIv: Copy + Ord + core::fmt::Debug {
    type Signed: Copy + Ord + core::fmt::Debug;
    type Unsigned: Count;

    /// `ub - lb` for `lb <= ub`, exact.
    fn distance(lb: Self, ub: Self) -> Self::Unsigned;
    /// `self + d`, for a `d` that keeps the result in range.
    fn offset(self, d: Self::Unsigned) -> Self;
    /// `self + d`, or `None` past the type's maximum.
    fn checked_offset(self, d: Self::Unsigned) -> Option<Self>;
    /// A positive chunk as a distance; `None` for chunk <= 0 ("no chunk").
    fn chunk_as_unsigned(chunk: Self::Signed) -> Option<Self::Unsigned>;
    /// Wrapping conversion of a distance to the stride type.
    fn stride(d: Self::Unsigned) -> Self::Signed;
    fn u_from_u32(v: u32) -> Self::Unsigned;
    /// The largest value of the type.
    const MAX: Self;
    /// The value's bits, extended to 64 (the normalised space of `dispatch`).
    fn bits(self) -> u64;
    /// The low bits of `v` as a value of the type (wrapping).
    fn from_bits(v: u64) -> Self;
    /// A stride or chunk argument, sign-extended.
    fn signed_i64(s: Self::Signed) -> i64;
    fn signed_from_i64(s: i64) -> Self::Signed;
}

macro_rules! loop_iv {
    ($t:ty, $s:ty, $u:ty, $checked_offset:ident) => {
        impl LoopIv for $t {
            type Signed = $s;
            type Unsigned = $u;
            #[inline(always)]
            fn distance(lb: Self, ub: Self) -> $u {
                (ub as $u).wrapping_sub(lb as $u)
            }
            #[inline(always)]
            fn offset(self, d: $u) -> Self {
                (self as $u).wrapping_add(d) as $t
            }
            #[inline(always)]
            fn checked_offset(self, d: $u) -> Option<Self> {
                self.$checked_offset(d)
            }
            #[inline(always)]
            fn chunk_as_unsigned(chunk: $s) -> Option<$u> {
                if chunk > 0 { Some(chunk as $u) } else { None }
            }
            #[inline(always)]
            fn stride(d: $u) -> $s {
                d as $s
            }
            #[inline(always)]
            fn u_from_u32(v: u32) -> $u {
                v as $u
            }
            const MAX: Self = <$t>::MAX;
            #[inline(always)]
            fn bits(self) -> u64 {
                self as $u as u64
            }
            #[inline(always)]
            fn from_bits(v: u64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn signed_i64(s: $s) -> i64 {
                s as i64
            }
            #[inline(always)]
            fn signed_from_i64(s: i64) -> $s {
                s as $s
            }
        }
    };
}

loop_iv!(i32, i32, u32, checked_add_unsigned);
loop_iv!(u32, i32, u32, checked_add);
loop_iv!(i64, i64, u64, checked_add_unsigned);
loop_iv!(u64, i64, u64, checked_add);
