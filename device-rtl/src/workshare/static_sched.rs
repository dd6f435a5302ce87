//! Static schedules as pure functions of `(lb, ub, chunk, id, count)`.
//!
//! Contract (docs/abi.md, "Static worksharing"): the caller gets its first chunk
//! `[lb, ub]` (inclusive), the `stride` between the starts of its chunks, and
//! `last` = it runs the sequentially last iteration. Unlike upstream, `ub` is
//! already clamped to the loop's upper bound, and an entity with no iteration
//! gets an empty chunk (`lb > ub`) computed without wrapping.

use super::iv::{Distance, LoopIv};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StaticChunk<T: LoopIv> {
    pub lb: T,
    pub ub: T,
    pub stride: T::Signed,
    pub last: bool,
}

/// An empty chunk just past `ub` (or just below it when `ub` is the type's
/// maximum, which a normalised loop never reaches).
fn empty<T: LoopIv>(ub: T, stride: T::Signed) -> StaticChunk<T> {
    if ub == T::MAX {
        // Adding the all-ones distance (MIN to MAX) steps one below.
        let all_ones = T::distance(T::MAX.offset(T::Unsigned::ONE), T::MAX);
        StaticChunk { lb: ub, ub: ub.offset(all_ones), stride, last: false }
    } else {
        StaticChunk { lb: ub.offset(T::Unsigned::ONE), ub, stride, last: false }
    }
}

/// `schedule(static, chunk)`: chunk `k` goes to entity `k % count`.
pub fn static_chunked<T: LoopIv>(lb: T, ub: T, chunk: T::Unsigned, id: u32, count: u32) -> StaticChunk<T> {
    let (id, count) = (T::u_from_u32(id), T::u_from_u32(count));
    let step = chunk.checked_mul(count);
    // The entity's first chunk starts at `lb + id * chunk`. Past `ub` but
    // inside the type, that is the empty chunk itself; past the type, the
    // empty chunk starts at the type's maximum (unless that is `ub`). So the
    // lower bound is one checked addition and a select: in clang's combined
    // `distribute parallel for`, which reads only the lower bound, that is
    // the whole cost per chunk of the team
    // (`no_kernel_costs_more_than_with_llvm19`).
    let empty_stride = T::stride(chunk.wrapping_mul(count));
    let first = match id.checked_mul(chunk).and_then(|start| lb.checked_offset(start)) {
        Some(first) if first <= ub => first,
        Some(first) => return StaticChunk { lb: first, ub, stride: empty_stride, last: false },
        None if ub == T::MAX => return empty(ub, empty_stride),
        None => return StaticChunk { lb: T::MAX, ub, stride: empty_stride, last: false },
    };
    // lb <= first <= ub from here.
    let rest = T::distance(first, ub);
    let len_minus_one = if chunk - T::Unsigned::ONE < rest { chunk - T::Unsigned::ONE } else { rest };
    // clang's loop adds the stride to its bounds in the loop's type. A large
    // `chunk * count` (many teams, a large chunk) can pass the type's maximum
    // from this chunk, and wrapped it would run chunks again: without a chunk
    // after this one, the stride lands just past `ub` instead. A step of at
    // most a quarter of the range is left as it is: where LLVM knows the step
    // is small (saxpy.c's threads, at most a block of 1024), the test folds
    // away, where capping every stride would cost that kernel registers
    // (`spmd_kernel_keeps_its_static_cost`).
    let quarter = T::Unsigned::from_u64(1 << (8 * core::mem::size_of::<T>() - 2));
    let stride = match step {
        Some(step) if step <= quarter || step <= rest => T::stride(step),
        _ => T::stride(rest.wrapping_add(T::Unsigned::ONE)),
    };
    let last_chunk = T::distance(lb, ub).div_nonzero(chunk);
    StaticChunk { lb: first, ub: first.offset(len_minus_one), stride, last: last_chunk.rem_nonzero(count) == id }
}

/// `schedule(static)`: one contiguous block per entity, sizes differing by
/// at most one, the larger blocks first.
pub fn static_balanced<T: LoopIv>(lb: T, ub: T, id: u32, count: u32) -> StaticChunk<T> {
    let diff = T::distance(lb, ub);
    let (id, n) = (T::u_from_u32(id), T::u_from_u32(count));
    let one = T::Unsigned::ONE;
    // From the loop's start, just past `ub` (see `static_chunked`).
    let stride = T::stride(diff.wrapping_add(one));
    // Before the division: an empty loop's `diff` wraps around.
    if lb > ub {
        return empty(ub, stride);
    }
    // trip = diff + 1 = q*n + r + 1; derive trip/n and trip%n without forming
    // trip. Blocks are measured as length - 1, so one entity (n = 1) needs no
    // case of its own, whose branch would cost the benchmark's uneven_static
    // kernel registers (`cargo xtask static-cost --bench`): its block length
    // diff + 1 wraps to 0 only for a loop over the whole type, and length - 1
    // wraps back to diff.
    let (q, r) = diff.div_rem_nonzero(n);
    let (small, extras) = if r + one == n { (q.wrapping_add(one), T::Unsigned::ZERO) } else { (q, r + one) };
    let (start, len_minus_one) = if id < extras { (id * (small + one), small) } else { (id * small + extras, small.wrapping_sub(one)) };
    // Only where trip < n: the entities from `trip` on start just past `ub`.
    if start > diff {
        return empty(ub, stride);
    }
    let first = lb.offset(start);
    let block_ub = first.offset(len_minus_one);
    // From this block, just past `ub`, without wrapping the type.
    let stride = T::stride((diff - start).wrapping_add(one));
    // The block that ends at `ub` runs the last iteration.
    StaticChunk { lb: first, ub: block_ub, stride, last: block_ub == ub }
}

#[cfg(test)]
mod tests {
    //! Every iteration exactly once, `last` on exactly one entity: checked by
    //! walking each entity's chunks the way clang's generated loop does, in
    //! exact (i128) arithmetic.
    use super::*;
    use proptest::prelude::*;

    /// clang's loop adds the stride to its bounds in the loop's type, so a
    /// step past the type's range wraps and runs chunks again. `step` is
    /// `chunk * count` of a chunked schedule (exact), and a wrap is allowed
    /// only where `ub + step` passes the type's maximum and the stride is
    /// left as the step: after an entity's last chunk when it has several,
    /// or for a step of at most a quarter of the range (`static_chunked`).
    fn cover<T: LoopIv + Into<i128>>(lb: T, ub: T, count: u32, step: Option<i128>, assign: impl Fn(u32) -> StaticChunk<T>) -> (Vec<u32>, u32)
    where
        T::Signed: Into<i128>,
    {
        let quarter = 1i128 << (8 * core::mem::size_of::<T>() - 2);
        let (min, max): (i128, i128) = (T::MAX.offset(T::Unsigned::ONE).into(), T::MAX.into());
        let (lo, hi) = (lb.into(), ub.into());
        let trip = (hi - lo + 1).max(0) as usize;
        let mut hits = vec![0u32; trip];
        let mut lasts = 0;
        for id in 0..count {
            let c = assign(id);
            lasts += u32::from(c.last);
            let (mut l, mut u, st) = (c.lb.into(), c.ub.into(), c.stride.into());
            if l > u {
                assert!(!c.last, "an entity without iterations claims the last one");
                continue;
            }
            assert!(l >= lo && u <= hi, "chunk [{l}, {u}] outside [{lo}, {hi}]");
            let mut saw_last = false;
            let mut chunks = 0;
            while l <= hi {
                for i in l..=u.min(hi) {
                    hits[(i - lo) as usize] += 1;
                    saw_last |= i == hi;
                }
                chunks += 1;
                // A stride <= 0 would loop forever; in-range strides are positive.
                assert!(st > 0 || l + st > hi, "stride {st}");
                l += st;
                u += st;
                let unavoidable = step.is_some_and(|step| hi + step > max && (chunks > 1 || step <= quarter));
                assert!((min..=max).contains(&l) || unavoidable, "id {id}: stride {st} after {chunks} chunk(s) wraps the type to {l}");
            }
            assert_eq!(saw_last, c.last, "id {id}: last flag disagrees with the chunks it runs");
        }
        (hits, lasts)
    }

    fn assert_exact(hits: &[u32], lasts: u32) {
        if let Some(i) = hits.iter().position(|&h| h != 1) {
            panic!("iteration {i} ran {} times", hits[i]);
        }
        assert_eq!(lasts, u32::from(!hits.is_empty()), "last set on {lasts} entities");
    }

    macro_rules! props {
        ($modname:ident, $t:ty) => {
            mod $modname {
                use super::*;
                proptest! {
                    #![proptest_config(ProptestConfig::with_cases(1500))]
                    #[test]
                    fn chunked(base in any::<$t>(), len in 0u32..700, chunk in chunks::<$t>(), count in 1u32..80, from_top in any::<bool>()) {
                        let (lb, ub) = bounds::<$t>(base, len, from_top);
                        let step = Some(Into::<u64>::into(chunk) as i128 * i128::from(count));
                        let (hits, lasts) = cover(lb, ub, count, step, |id| static_chunked(lb, ub, chunk, id, count));
                        assert_exact(&hits, lasts);
                    }
                    /// Empty chunks too start at or above `lb`: past the
                    /// end, never wrapped around to below it.
                    #[test]
                    fn chunked_never_starts_below_lb(lb in any::<$t>(), ub in any::<$t>(), chunk in chunks::<$t>(), count in 1u32..80) {
                        for id in 0..count {
                            let c = static_chunked(lb, ub, chunk, id, count);
                            prop_assert!(c.lb >= lb, "id {}: {:?}", id, c);
                            prop_assert!(c.lb <= c.ub || !c.last);
                        }
                    }
                    #[test]
                    fn balanced(base in any::<$t>(), len in 0u32..700, count in 1u32..300, from_top in any::<bool>()) {
                        let (lb, ub) = bounds::<$t>(base, len, from_top);
                        let (hits, lasts) = cover(lb, ub, count, None, |id| static_balanced(lb, ub, id, count));
                        assert_exact(&hits, lasts);
                        // Balanced: sizes differ by at most one.
                        let sizes: Vec<i128> = (0..count).map(|id| { let c = static_balanced(lb, ub, id, count); (Into::<i128>::into(c.ub) - Into::<i128>::into(c.lb) + 1).max(0) }).collect();
                        prop_assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 1);
                    }
                }
            }
        };
    }

    /// Chunk sizes: small ones, and powers of two up to half the type's
    /// range, whose multiples by the entity count pass its maximum.
    fn chunks<T: LoopIv>() -> impl Strategy<Value = T::Unsigned> {
        let bits = 8 * core::mem::size_of::<T>() as u32;
        prop_oneof![
            3 => (1u32..300).prop_map(T::u_from_u32),
            1 => (bits - 8..bits).prop_map(|b| <T::Unsigned as Distance>::from_u64(1u64 << b)),
        ]
    }

    /// A loop of `len` iterations starting at `base`, or ending at the type's
    /// maximum minus one when `from_top` (bounds near overflow).
    fn bounds<T: LoopIv + Into<i128> + TryFrom<i128>>(base: T, len: u32, from_top: bool) -> (T, T) {
        let max: i128 = T::MAX.into();
        let (lo, hi) = if from_top {
            (max - 1 - i128::from(len) + 1, max - 1)
        } else {
            let b: i128 = base.into();
            let b = b.min(max - 1 - i128::from(len));
            (b, b + i128::from(len) - 1)
        };
        let conv = |v: i128| T::try_from(v).ok().expect("in range");
        if len == 0 { (conv(lo.max(hi)), conv(lo.max(hi) - 1)) } else { (conv(lo), conv(hi)) }
    }

    props!(iv_i32, i32);
    props!(iv_u32, u32);
    props!(iv_i64, i64);
    props!(iv_u64, u64);

    #[test]
    fn chunk_larger_than_trip_count_goes_to_entity_zero() {
        let c = static_chunked::<i32>(0, 9, 100, 0, 4);
        assert_eq!((c.lb, c.ub, c.last), (0, 9, true));
        let c = static_chunked::<i32>(0, 9, 100, 1, 4);
        assert!(c.lb > c.ub && !c.last);
    }

    #[test]
    fn a_large_chunk_on_many_teams_leaves_the_loop_without_wrapping() {
        // `dist_schedule(static, 1 << 20)` on 3200 teams (the host plugin's
        // default) over 10^9 iterations: 3200 << 20 passes i32::MAX, and as a
        // stride it would send team 0 back to negative iterations.
        let ub = 999_999_999;
        for team in [0, 1, 953] {
            let c = static_chunked::<i32>(0, ub, 1 << 20, team, 3200);
            assert!(c.lb <= c.ub && c.stride > 0 && c.lb.checked_add(c.stride).is_some_and(|next| next > ub), "{c:?}");
        }
    }

    #[test]
    fn an_empty_loop_on_one_entity_stays_empty() {
        // diff wraps to the type's maximum here, where q + 1 overflows.
        let c = static_balanced::<i32>(0, -1, 0, 1);
        assert!(c.lb > c.ub && !c.last, "{c:?}");
    }

    #[test]
    fn a_full_range_loop_on_one_entity_runs_whole() {
        let c = static_balanced::<i32>(i32::MIN, i32::MAX, 0, 1);
        assert_eq!((c.lb, c.ub, c.last), (i32::MIN, i32::MAX, true));
        let c = static_balanced::<u64>(0, u64::MAX, 0, 1);
        assert_eq!((c.lb, c.ub, c.last), (0, u64::MAX, true));
    }

    #[test]
    fn full_u64_range_does_not_overflow() {
        let c = static_balanced::<u64>(0, u64::MAX - 1, 3, 4);
        assert!(c.lb <= c.ub && c.last);
        let c = static_chunked::<u64>(u64::MAX - 10, u64::MAX - 1, 4, 3, 8);
        assert!(c.lb > c.ub, "chunk 3 starts past the end: {c:?}");
    }
}
