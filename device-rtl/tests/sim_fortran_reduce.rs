//! flang-rt's reductions and array transformations on the simulated device,
//! against a model of what Fortran defines: over arrays of any rank,
//! strides and lower bounds, with `DIM=`, `MASK=` and `BACK=`.

mod common;
mod fortran_common;

use common::trap_message;
use fortran_common::*;
use omprt_abi::fortran::*;
use omprt_device_rtl::exports::fortran::*;
use proptest::prelude::*;
use std::ffi::c_void;

const NULL: *const c_void = std::ptr::null();

/// The zero-based subscripts of element `n` (array element order) of an
/// array of `extents`.
fn subscripts(n: usize, extents: &[i64]) -> Vec<i64> {
    let mut rest = n as i64;
    extents
        .iter()
        .map(|&e| {
            let s = rest % e;
            rest /= e;
            s
        })
        .collect()
}

/// The lanes of a reduction along `dim0`: for each result element (array
/// element order of the other dimensions), the element numbers along it.
fn lanes(extents: &[i64], dim0: usize) -> Vec<Vec<usize>> {
    let count: i64 = extents.iter().product();
    let others: Vec<i64> = extents.iter().enumerate().filter(|(j, _)| *j != dim0).map(|(_, &e)| e).collect();
    let results: i64 = others.iter().product();
    let mut out = vec![Vec::new(); results as usize];
    for n in 0..count as usize {
        let s = subscripts(n, extents);
        let mut r = 0i64;
        let mut stride = 1;
        for (j, &sj) in s.iter().enumerate() {
            if j != dim0 {
                r += sj * stride;
                stride *= extents[j];
            }
        }
        out[r as usize].push(n);
    }
    out
}

/// A case: a section of values and a mask of its shape.
#[derive(Clone, Debug)]
struct Case {
    section: Section,
    values: Vec<i32>,
    mask: Vec<bool>,
    mask_kind: usize,
    /// 0: no mask, 1: array mask, 2: scalar mask `.true.`, 3: scalar `.false.`
    mask_form: u8,
}

fn case(ranks: std::ops::Range<usize>) -> impl Strategy<Value = Case> {
    ranks.prop_flat_map(|r| proptest::collection::vec(0i64..4, r)).prop_flat_map(|extents| {
        let n: i64 = extents.iter().product();
        (
            section_of(extents),
            proptest::collection::vec(-6i32..7, 64),
            proptest::collection::vec(any::<bool>(), n as usize),
            prop_oneof![Just(1usize), Just(4)],
            0u8..4,
        )
            .prop_map(|(section, values, mask, mask_kind, mask_form)| Case { section, values, mask, mask_kind, mask_form })
    })
}

impl Case {
    /// The section's values in array element order, and whether each is selected.
    fn model(&self) -> (Vec<i32>, Vec<bool>) {
        let parent = self.parent_values();
        let buf = Buf::of(&parent);
        let d = self.section.describe(buf.ptr(), 4, type_code::INT32);
        let values = d.read::<i32>();
        let selected = match self.mask_form {
            1 => self.mask.clone(),
            3 => vec![false; values.len()],
            _ => vec![true; values.len()],
        };
        (values, selected)
    }
    fn parent_values(&self) -> Vec<i32> {
        (0..self.section.parent_len()).map(|i| self.values[i % self.values.len()]).collect()
    }
    /// The array (its storage and descriptor) and the mask argument.
    fn build(&self) -> (Buf, Desc, Option<(Buf, Desc)>) {
        let buf = Buf::of(&self.parent_values());
        let d = self.section.describe(buf.ptr(), 4, type_code::INT32);
        let mask = match self.mask_form {
            1 => Some(logicals(&self.mask, &self.section.extents(), self.mask_kind)),
            2 => Some(logicals(&[true], &[], self.mask_kind)),
            3 => Some(logicals(&[false], &[], self.mask_kind)),
            _ => None,
        };
        (buf, d, mask)
    }
}

fn mask_ptr(m: &Option<(Buf, Desc)>) -> *const c_void {
    m.as_ref().map_or(NULL, |(_, d)| d.ptr())
}

/// `MAXLOC`/`MINLOC`'s choice: the first (last with `back`) extremum.
fn model_location(values: &[i32], selected: &[bool], max: bool, back: bool) -> Option<usize> {
    let mut best: Option<usize> = None;
    for (n, (&v, &s)) in values.iter().zip(selected).enumerate() {
        if !s {
            continue;
        }
        best = match best {
            None => Some(n),
            Some(b) if v == values[b] => Some(if back { n } else { b }),
            Some(b) if (v > values[b]) == max => Some(n),
            keep => keep,
        };
    }
    best
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The total reductions of an INTEGER(4) section of rank 1-3, with no
    /// mask, an array mask or a scalar one.
    #[test]
    fn total_reductions_agree_with_the_model(c in case(1..4), back in any::<bool>()) {
        let (values, selected) = c.model();
        let picked: Vec<i32> = values.iter().zip(&selected).filter(|(_, s)| **s).map(|(v, _)| *v).collect();
        let extents = c.section.extents();
        let lower: Vec<i64> = c.section.dims.iter().map(|d| d.3).collect();
        let got = on_device(move || unsafe {
            let (_b, x, mask) = c.build();
            let m = mask_ptr(&mask);
            let maxloc = Desc::empty();
            _FortranAMaxlocInteger4(maxloc.ptr(), x.ptr(), 8, file(), 1, m, back);
            let minloc = Desc::empty();
            _FortranAMinlocInteger4(minloc.ptr(), x.ptr(), 4, file(), 1, m, back);
            let (_t, target) = scalar(2i32);
            let findloc = Desc::empty();
            _FortranAFindloc(findloc.ptr(), x.ptr(), target.ptr(), 4, file(), 1, m, back);
            let r = (
                _FortranASumInteger4(x.ptr(), file(), 1, 0, m),
                _FortranAProductInteger4(x.ptr(), file(), 1, 0, m),
                _FortranAMaxvalInteger4(x.ptr(), file(), 1, 0, m),
                _FortranAMinvalInteger4(x.ptr(), file(), 1, 0, m),
                (_FortranAIAll4(x.ptr(), file(), 1, 0, m), _FortranAIAny4(x.ptr(), file(), 1, 0, m), _FortranAIParity4(x.ptr(), file(), 1, 0, m)),
                (maxloc.read::<i64>(), minloc.read::<i32>().iter().map(|&v| v as i64).collect::<Vec<_>>(), findloc.read::<i32>().iter().map(|&v| v as i64).collect::<Vec<_>>()),
                (maxloc.lower_bounds(), maxloc.extents()),
            );
            for d in [&maxloc, &minloc, &findloc] {
                _FortranAAllocatableDeallocate(d.ptr(), false, NULL, file(), 1);
            }
            r
        });
        let position = |n: Option<usize>| match n {
            Some(n) => subscripts(n, &extents).iter().map(|s| s + 1).collect::<Vec<i64>>(),
            None => vec![0; extents.len()],
        };
        let find = if back { picked_rev_find(&values, &selected, 2) } else { values.iter().zip(&selected).position(|(&v, &s)| s && v == 2) };
        prop_assert_eq!(got.0, picked.iter().fold(0i32, |a, &v| a.wrapping_add(v)));
        prop_assert_eq!(got.1, picked.iter().fold(1i32, |a, &v| a.wrapping_mul(v)));
        prop_assert_eq!(got.2, picked.iter().copied().max().unwrap_or(i32::MIN));
        prop_assert_eq!(got.3, picked.iter().copied().min().unwrap_or(i32::MAX));
        prop_assert_eq!(got.4, (picked.iter().fold(-1, |a, &v| a & v), picked.iter().fold(0, |a, &v| a | v), picked.iter().fold(0, |a, &v| a ^ v)));
        prop_assert_eq!(&got.5.0, &position(model_location(&values, &selected, true, back)));
        prop_assert_eq!(&got.5.1, &position(model_location(&values, &selected, false, back)));
        prop_assert_eq!(&got.5.2, &position(find));
        prop_assert_eq!(got.6, (vec![1], vec![extents.len() as i64]));
        let _ = lower;
    }

    /// The reductions with `DIM=` of sections of rank 1-3 (rank 1 gives a
    /// scalar), with masks.
    #[test]
    fn dim_reductions_agree_with_the_model(c in case(1..4), dim_pick in 0usize..3, back in any::<bool>()) {
        let extents = c.section.extents();
        let dim0 = dim_pick % extents.len();
        let (values, selected) = c.model();
        let lanes = lanes(&extents, dim0);
        let bools: Vec<bool> = values.iter().map(|&v| v > 0).collect();
        let positives = bools.clone();
        let got = on_device(move || unsafe {
            let (_b, x, mask) = c.build();
            let m = mask_ptr(&mask);
            let dim = dim0 as i32 + 1;
            let out: Vec<Desc> = (0..7).map(|_| Desc::empty()).collect();
            _FortranASumDim(out[0].ptr(), x.ptr(), dim, file(), 1, m);
            _FortranAMaxvalDim(out[1].ptr(), x.ptr(), dim, file(), 1, m);
            _FortranAMinlocDim(out[2].ptr(), x.ptr(), 4, dim, file(), 1, m, back);
            let (_t, target) = scalar(2i64);
            _FortranAFindlocDim(out[3].ptr(), x.ptr(), target.ptr(), 8, dim, file(), 1, m, back);
            let (_l, positive) = logicals(&positives, &x.extents(), 4);
            _FortranACountDim(out[4].ptr(), positive.ptr(), dim, 2, file(), 1);
            _FortranAAnyDim(out[5].ptr(), positive.ptr(), dim, file(), 1);
            _FortranAAllDim(out[6].ptr(), positive.ptr(), dim, file(), 1);
            let r = (
                out[0].read::<i32>(),
                out[1].read::<i32>(),
                out[2].read::<i32>(),
                out[3].read::<i64>(),
                out[4].read::<i16>(),
                out[5].read::<i32>(),
                out[6].read::<i32>(),
                out[0].extents(),
            );
            for d in &out {
                _FortranAAllocatableDeallocate(d.ptr(), false, NULL, file(), 1);
            }
            r
        });
        let lane = |l: &Vec<usize>| -> Vec<(usize, i32)> { l.iter().enumerate().filter(|(_, n)| selected[**n]).map(|(k, n)| (k, values[*n])).collect() };
        let want_sum: Vec<i32> = lanes.iter().map(|l| lane(l).iter().fold(0i32, |a, (_, v)| a.wrapping_add(*v))).collect();
        let want_max: Vec<i32> = lanes.iter().map(|l| lane(l).iter().map(|(_, v)| *v).max().unwrap_or(i32::MIN)).collect();
        let want_minloc: Vec<i32> = lanes.iter().map(|l| {
            let vals: Vec<i32> = l.iter().map(|n| values[*n]).collect();
            let sel: Vec<bool> = l.iter().map(|n| selected[*n]).collect();
            model_location(&vals, &sel, false, back).map_or(0, |k| k as i32 + 1)
        }).collect();
        let want_find: Vec<i64> = lanes.iter().map(|l| {
            let hits: Vec<usize> = lane(l).iter().filter(|(_, v)| *v == 2).map(|(k, _)| *k).collect();
            (if back { hits.last() } else { hits.first() }).map_or(0, |k| *k as i64 + 1)
        }).collect();
        let want_count: Vec<i16> = lanes.iter().map(|l| l.iter().filter(|n| bools[**n]).count() as i16).collect();
        let want_any: Vec<i32> = lanes.iter().map(|l| i32::from(l.iter().any(|n| bools[*n]))).collect();
        let want_all: Vec<i32> = lanes.iter().map(|l| i32::from(l.iter().all(|n| bools[*n]))).collect();
        let result_extents: Vec<i64> = extents.iter().enumerate().filter(|(j, _)| *j != dim0).map(|(_, e)| *e).collect();
        prop_assert_eq!(got.0, want_sum);
        prop_assert_eq!(got.1, want_max);
        prop_assert_eq!(got.2, want_minloc);
        prop_assert_eq!(got.3, want_find);
        prop_assert_eq!(got.4, want_count);
        prop_assert_eq!(got.5, want_any);
        prop_assert_eq!(got.6, want_all);
        prop_assert_eq!(got.7, result_extents);
    }
}

fn picked_rev_find(values: &[i32], selected: &[bool], want: i32) -> Option<usize> {
    (0..values.len()).rev().find(|&n| selected[n] && values[n] == want)
}

#[test]
fn every_kind_of_the_total_reductions_reduces_its_own_type() {
    on_device(|| unsafe {
        macro_rules! ints {
            ($t:ty, $sum:ident, $prod:ident, $max:ident, $min:ident, $iall:ident, $iany:ident, $ipar:ident, $maxloc:ident, $minloc:ident, $dot:ident) => {{
                let (_b, x) = array(&[3 as $t, -2, 5, 4], &[2, 2]);
                assert_eq!($sum(x.ptr(), file(), 1, 0, NULL), 10 as $t);
                assert_eq!($prod(x.ptr(), file(), 1, 0, NULL), -120 as $t);
                assert_eq!($max(x.ptr(), file(), 1, 0, NULL), 5 as $t);
                assert_eq!($min(x.ptr(), file(), 1, 0, NULL), -2 as $t);
                assert_eq!($iall(x.ptr(), file(), 1, 0, NULL), (3 & -2 & 5 & 4) as $t);
                assert_eq!($iany(x.ptr(), file(), 1, 0, NULL), (3 | -2 | 5 | 4) as $t);
                assert_eq!($ipar(x.ptr(), file(), 1, 0, NULL), (3 ^ -2 ^ 5 ^ 4) as $t);
                let loc = Desc::empty();
                $maxloc(loc.ptr(), x.ptr(), 4, file(), 1, NULL, false);
                assert_eq!(loc.read::<i32>(), [1, 2]);
                _FortranAAllocatableDeallocate(loc.ptr(), false, NULL, file(), 1);
                $minloc(loc.ptr(), x.ptr(), 1, file(), 1, NULL, false);
                assert_eq!(loc.read::<i8>(), [2, 1]);
                _FortranAAllocatableDeallocate(loc.ptr(), false, NULL, file(), 1);
                let (_c, v) = array(&[1 as $t, 2, 3], &[3]);
                assert_eq!($dot(v.ptr(), v.ptr(), file(), 1), 14 as $t);
            }};
        }
        ints!(
            i8,
            _FortranASumInteger1,
            _FortranAProductInteger1,
            _FortranAMaxvalInteger1,
            _FortranAMinvalInteger1,
            _FortranAIAll1,
            _FortranAIAny1,
            _FortranAIParity1,
            _FortranAMaxlocInteger1,
            _FortranAMinlocInteger1,
            _FortranADotProductInteger1
        );
        ints!(
            i16,
            _FortranASumInteger2,
            _FortranAProductInteger2,
            _FortranAMaxvalInteger2,
            _FortranAMinvalInteger2,
            _FortranAIAll2,
            _FortranAIAny2,
            _FortranAIParity2,
            _FortranAMaxlocInteger2,
            _FortranAMinlocInteger2,
            _FortranADotProductInteger2
        );
        ints!(
            i32,
            _FortranASumInteger4,
            _FortranAProductInteger4,
            _FortranAMaxvalInteger4,
            _FortranAMinvalInteger4,
            _FortranAIAll4,
            _FortranAIAny4,
            _FortranAIParity4,
            _FortranAMaxlocInteger4,
            _FortranAMinlocInteger4,
            _FortranADotProductInteger4
        );
        ints!(
            i64,
            _FortranASumInteger8,
            _FortranAProductInteger8,
            _FortranAMaxvalInteger8,
            _FortranAMinvalInteger8,
            _FortranAIAll8,
            _FortranAIAny8,
            _FortranAIParity8,
            _FortranAMaxlocInteger8,
            _FortranAMinlocInteger8,
            _FortranADotProductInteger8
        );
        // Integer sums and products wrap in the kind.
        let (_b, big) = array(&[100i8, 100, 100], &[3]);
        assert_eq!(_FortranASumInteger1(big.ptr(), file(), 1, 0, NULL), 44);
        macro_rules! reals {
            ($t:ty, $sum:ident, $prod:ident, $max:ident, $min:ident, $maxloc:ident, $minloc:ident, $dot:ident, $norm2:ident) => {{
                let (_b, x) = array(&[1.5 as $t, -2.0, 4.0, 0.5], &[4]);
                assert_eq!($sum(x.ptr(), file(), 1, 0, NULL), 4.0);
                assert_eq!($prod(x.ptr(), file(), 1, 0, NULL), -6.0);
                assert_eq!($max(x.ptr(), file(), 1, 1, NULL), 4.0);
                assert_eq!($min(x.ptr(), file(), 1, 0, NULL), -2.0);
                let loc = Desc::empty();
                $maxloc(loc.ptr(), x.ptr(), 8, file(), 1, NULL, false);
                assert_eq!(loc.read::<i64>(), [3]);
                _FortranAAllocatableDeallocate(loc.ptr(), false, NULL, file(), 1);
                $minloc(loc.ptr(), x.ptr(), 2, file(), 1, NULL, true);
                assert_eq!(loc.read::<i16>(), [2]);
                _FortranAAllocatableDeallocate(loc.ptr(), false, NULL, file(), 1);
                assert_eq!($dot(x.ptr(), x.ptr(), file(), 1), 22.5);
                let (_c, v) = array(&[3.0 as $t, -4.0], &[2]);
                assert_eq!($norm2(v.ptr(), file(), 1, 0), 5.0);
            }};
        }
        reals!(
            f32,
            _FortranASumReal4,
            _FortranAProductReal4,
            _FortranAMaxvalReal4,
            _FortranAMinvalReal4,
            _FortranAMaxlocReal4,
            _FortranAMinlocReal4,
            _FortranADotProductReal4,
            _FortranANorm2_4
        );
        reals!(
            f64,
            _FortranASumReal8,
            _FortranAProductReal8,
            _FortranAMaxvalReal8,
            _FortranAMinvalReal8,
            _FortranAMaxlocReal8,
            _FortranAMinlocReal8,
            _FortranADotProductReal8,
            _FortranANorm2_8
        );
    });
}

#[test]
fn real_sums_are_compensated_and_nans_lose_to_numbers() {
    on_device(|| unsafe {
        // 1 + ten times 1e-16: an uncompensated sum stays at 1.
        let mut v = vec![1.0f64];
        v.extend([1e-16; 10]);
        let (_a, x) = array(&v, &[11]);
        let s = _FortranASumReal8(x.ptr(), file(), 1, 0, NULL);
        assert!(s > 1.0 && (s - (1.0 + 1e-15)).abs() < 2e-16, "{s}");
        let (_b, x) = array(&[f64::NAN, 2.0, f64::NAN, 5.0, 1.0], &[5]);
        assert_eq!(_FortranAMaxvalReal8(x.ptr(), file(), 1, 0, NULL), 5.0);
        assert_eq!(_FortranAMinvalReal8(x.ptr(), file(), 1, 0, NULL), 1.0);
        let loc = Desc::empty();
        _FortranAMaxlocReal8(loc.ptr(), x.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(loc.read::<i32>(), [4]);
        _FortranAAllocatableDeallocate(loc.ptr(), false, NULL, file(), 1);
        let (_c, all_nan) = array(&[f64::NAN; 3], &[3]);
        assert!(_FortranAMaxvalReal8(all_nan.ptr(), file(), 1, 0, NULL).is_nan());
        _FortranAMaxlocReal8(loc.ptr(), all_nan.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(loc.read::<i32>(), [1]);
        _FortranAAllocatableDeallocate(loc.ptr(), false, NULL, file(), 1);
        // Empty arrays: -HUGE/HUGE, zero locations, the identities.
        let (_d, empty) = array::<f64>(&[], &[0]);
        assert_eq!(_FortranAMaxvalReal8(empty.ptr(), file(), 1, 0, NULL), f64::MIN);
        assert_eq!(_FortranAMinvalReal8(empty.ptr(), file(), 1, 0, NULL), f64::MAX);
        assert_eq!(_FortranAProductReal8(empty.ptr(), file(), 1, 0, NULL), 1.0);
        _FortranAMaxlocReal8(loc.ptr(), empty.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(loc.read::<i32>(), [0]);
        _FortranAAllocatableDeallocate(loc.ptr(), false, NULL, file(), 1);
    });
}

#[test]
fn logical_reductions_read_every_kind() {
    on_device(|| unsafe {
        for kind in [1usize, 2, 4, 8] {
            let (_a, m) = logicals(&[true, false, true, true], &[2, 2], kind);
            assert_eq!(_FortranACount(m.ptr(), file(), 1, 0), 3);
            assert!(_FortranAAny(m.ptr(), file(), 1, 0));
            assert!(!_FortranAAll(m.ptr(), file(), 1, 0));
            let (_b, t) = logicals(&[true, true], &[2], kind);
            assert!(_FortranAAll(t.ptr(), file(), 1, 0));
        }
        let (_a, x) = logicals(&[false, true, true], &[3], 4);
        let (_b, y) = logicals(&[false, false, true], &[3], 1);
        assert!(_FortranADotProductLogical(x.ptr(), y.ptr(), file(), 1));
        let (_c, z) = logicals(&[true, false, false], &[3], 1);
        assert!(!_FortranADotProductLogical(x.ptr(), z.ptr(), file(), 1));
        let (_d, empty) = logicals(&[], &[0], 4);
        assert!(_FortranAAll(empty.ptr(), file(), 1, 0) && !_FortranAAny(empty.ptr(), file(), 1, 0));
    });
}

#[test]
fn the_other_dim_reductions_fill_their_results() {
    on_device(|| unsafe {
        // [[1, 2, 3], [4, 5, 6]] with rows along dimension 1.
        let (_a, x) = array(&[1.0f64, 4.0, 2.0, 5.0, 3.0, 6.0], &[2, 3]);
        let r = Desc::empty();
        _FortranAProductDim(r.ptr(), x.ptr(), 2, file(), 1, NULL);
        assert_eq!(r.read::<f64>(), [6.0, 120.0]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAMinvalDim(r.ptr(), x.ptr(), 1, file(), 1, NULL);
        assert_eq!(r.read::<f64>(), [1.0, 2.0, 3.0]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranANorm2Dim(r.ptr(), x.ptr(), 1, file(), 1);
        // NORM2 scales by the largest magnitude (as flang-rt): within an ulp.
        for (got, want) in r.read::<f64>().into_iter().zip([17f64.sqrt(), 29f64.sqrt(), 45f64.sqrt()]) {
            assert!((got - want).abs() <= want * f64::EPSILON, "{got} vs {want}");
        }
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_b, i) = array(&[6i32, 3, 5, 9], &[2, 2]);
        _FortranAIAllDim(r.ptr(), i.ptr(), 1, file(), 1, NULL);
        assert_eq!(r.read::<i32>(), [6 & 3, 5 & 9]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAIAnyDim(r.ptr(), i.ptr(), 2, file(), 1, NULL);
        assert_eq!(r.read::<i32>(), [6 | 5, 3 | 9]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAIParityDim(r.ptr(), i.ptr(), 2, file(), 1, NULL);
        assert_eq!(r.read::<i32>(), [6 ^ 5, 3 ^ 9]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAMaxlocDim(r.ptr(), i.ptr(), 4, 1, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [1, 2]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // A rank-1 MAXVAL with DIM= gives an allocated scalar.
        let (_c, v) = array(&[3i64, 8, 1], &[3]);
        _FortranAMaxvalDim(r.ptr(), v.ptr(), 1, file(), 1, NULL);
        assert_eq!((r.header().rank, r.read::<i64>()), (0, vec![8]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
    });
}

#[test]
fn character_extrema_compare_blank_padded() {
    on_device(|| unsafe {
        let (_a, w) = characters(&["pear", "apple", "fig", "apples"], 6, &[4]);
        let r = Desc::empty();
        _FortranAMaxvalCharacter(r.ptr(), w.ptr(), file(), 1, NULL);
        assert_eq!(r.read_bytes(), [b"pear  ".to_vec()]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAMinvalCharacter(r.ptr(), w.ptr(), file(), 1, NULL);
        assert_eq!(r.read_bytes(), [b"apple ".to_vec()]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_m, none) = logicals(&[false; 4], &[4], 4);
        _FortranAMaxvalCharacter(r.ptr(), w.ptr(), file(), 1, none.ptr());
        assert_eq!(r.read_bytes(), [vec![0u8; 6]]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAMaxlocCharacter(r.ptr(), w.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [1]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAMinlocCharacter(r.ptr(), w.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [2]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // FINDLOC of a character value, blank-padded.
        let (_t, fig) = characters(&["fig"], 3, &[]);
        _FortranAFindloc(r.ptr(), w.ptr(), fig.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [3]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
    });
}

#[test]
fn character_reductions_with_dim_take_each_lane() {
    on_device(|| unsafe {
        // w = reshape(["pear", "apple", "fig", "fig", "kiwi", "plum"], [2, 3])
        let (_a, w) = characters(&["pear", "apple", "fig", "fig", "kiwi", "plum"], 5, &[2, 3]);
        let r = Desc::empty();
        _FortranAMaxvalDim(r.ptr(), w.ptr(), 1, file(), 1, NULL);
        assert_eq!((r.extents(), r.read_bytes()), (vec![3], vec![b"pear ".to_vec(), b"fig  ".to_vec(), b"plum ".to_vec()]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAMinvalDim(r.ptr(), w.ptr(), 2, file(), 1, NULL);
        assert_eq!((r.extents(), r.read_bytes()), (vec![2], vec![b"fig  ".to_vec(), b"apple".to_vec()]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // A lane with nothing selected: CHAR(0) for MAXVAL, CHAR(255) for MINVAL.
        let (_m, mask) = logicals(&[true, false, false, false, true, true], &[2, 3], 4);
        _FortranAMaxvalDim(r.ptr(), w.ptr(), 1, file(), 1, mask.ptr());
        assert_eq!(r.read_bytes(), [b"pear ".to_vec(), vec![0; 5], b"plum ".to_vec()]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAMinvalDim(r.ptr(), w.ptr(), 1, file(), 1, mask.ptr());
        assert_eq!(r.read_bytes(), [b"pear ".to_vec(), vec![255; 5], b"kiwi ".to_vec()]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_n, none) = logicals(&[false], &[], 1);
        _FortranAMinvalCharacter(r.ptr(), w.ptr(), file(), 1, none.ptr());
        assert_eq!((r.header().rank, r.read_bytes()), (0, vec![vec![255; 5]]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // A rank-1 array with DIM= gives a scalar.
        let (_v, v) = characters(&["b", "c", "a"], 1, &[3]);
        _FortranAMinvalDim(r.ptr(), v.ptr(), 1, file(), 1, NULL);
        assert_eq!((r.header().rank, r.read_bytes()), (0, vec![b"a".to_vec()]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // Locations along a dimension, ties to the first (the last with BACK=).
        _FortranAMaxlocDim(r.ptr(), w.ptr(), 4, 2, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [1, 3]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAMinlocDim(r.ptr(), w.ptr(), 8, 1, file(), 1, NULL, false);
        assert_eq!(r.read::<i64>(), [2, 1, 1]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAMinlocDim(r.ptr(), w.ptr(), 2, 1, file(), 1, NULL, true);
        assert_eq!(r.read::<i16>(), [2, 2, 1]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAMaxlocDim(r.ptr(), w.ptr(), 4, 1, file(), 1, mask.ptr(), false);
        assert_eq!(r.read::<i32>(), [1, 0, 2]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
    });
}

#[test]
fn findloc_compares_values_of_other_types_as_fortran_converts_them() {
    on_device(|| unsafe {
        let r = Desc::empty();
        // A REAL(4) array and an INTEGER value: 2 == 2.0.
        let (_a, x) = array(&[1.5f32, 2.0, 3.0, 2.0], &[4]);
        let (_t, two) = scalar(2i32);
        _FortranAFindloc(r.ptr(), x.ptr(), two.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [2]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAFindloc(r.ptr(), x.ptr(), two.ptr(), 4, file(), 1, NULL, true);
        assert_eq!(r.read::<i32>(), [4]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // An INTEGER(1) array and REAL(8) values: 3.0 is found, 2.5 is not.
        let (_b, i) = array(&[2i8, 3, 3], &[3]);
        let (_c, three) = scalar(3.0f64);
        _FortranAFindloc(r.ptr(), i.ptr(), three.ptr(), 8, file(), 1, NULL, false);
        assert_eq!(r.read::<i64>(), [2]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_d, half) = scalar(2.5f64);
        _FortranAFindloc(r.ptr(), i.ptr(), half.ptr(), 8, file(), 1, NULL, false);
        assert_eq!(r.read::<i64>(), [0]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // LOGICAL arrays compare by truth, whatever the kinds.
        let (_e, l) = logicals(&[true, true, false, true], &[2, 2], 2);
        let (_f, no) = logicals(&[false], &[], 4);
        _FortranAFindloc(r.ptr(), l.ptr(), no.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [1, 2]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // With DIM= over a REAL(8) matrix [[2, 1], [2, 2]] (rows), BACK=.
        let (_g, m) = array(&[2.0f64, 2.0, 1.0, 2.0], &[2, 2]);
        let (_h, two8) = scalar(2.0f64);
        _FortranAFindlocDim(r.ptr(), m.ptr(), two8.ptr(), 4, 2, file(), 1, NULL, true);
        assert_eq!(r.read::<i32>(), [1, 2]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAFindlocDim(r.ptr(), m.ptr(), two8.ptr(), 4, 1, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [1, 2]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
    });
    let m = trap_message(|| {
        on_device(|| unsafe {
            let (_a, l) = logicals(&[true], &[1], 4);
            let (_b, one) = scalar(1i32);
            let r = Desc::empty();
            _FortranAFindloc(r.ptr(), l.ptr(), one.ptr(), 4, file(), 6, NULL, false);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:6): FINDLOC: VALUE= is of a type the array cannot be compared with");
}

#[test]
fn dim_reductions_of_every_type_and_mask_form() {
    on_device(|| unsafe {
        let r = Desc::empty();
        // SUM(DIM=) of INTEGER(1) wraps in the kind; of REAL(4), compensated:
        // a lane of 1 and ten times 3e-8 stays 1 uncompensated.
        let (_a, i1) = array(&[100i8, 1, 100, 2, 100, 3], &[2, 3]);
        _FortranASumDim(r.ptr(), i1.ptr(), 2, file(), 1, NULL);
        assert_eq!(r.read::<i8>(), [44, 6]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let mut v = vec![1.0f32];
        v.extend([3e-8f32; 10]);
        let (_b, x) = array(&v, &[1, 11]);
        _FortranASumDim(r.ptr(), x.ptr(), 2, file(), 1, NULL);
        let s = r.read::<f32>()[0];
        assert!((s - 1.000_000_3).abs() <= f32::EPSILON, "{s}");
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // PRODUCT(DIM=) of INTEGER(2) with an array mask (an empty lane is 1).
        let (_c, i2) = array(&[2i16, 3, 4, 5, 6, 7], &[3, 2]);
        let (_m, mask) = logicals(&[true, false, true, false, false, false], &[3, 2], 1);
        _FortranAProductDim(r.ptr(), i2.ptr(), 1, file(), 1, mask.ptr());
        assert_eq!(r.read::<i16>(), [8, 1]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // MAXVAL(DIM=) of INTEGER(8) with the mask, MINVAL of REAL(4) with a
        // false scalar mask: the kind's least integer and HUGE for the empty
        // lanes.
        let (_d, i8s) = array(&[-7i64, 9, -3, 4, 8, 1], &[3, 2]);
        _FortranAMaxvalDim(r.ptr(), i8s.ptr(), 1, file(), 1, mask.ptr());
        assert_eq!(r.read::<i64>(), [-3, i64::MIN]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_e, f) = array(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]);
        let (_n, no) = logicals(&[false], &[], 4);
        _FortranAMinvalDim(r.ptr(), f.ptr(), 2, file(), 1, no.ptr());
        assert_eq!(r.read::<f32>(), [f32::MAX, f32::MAX]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // IALL/IANY/IPARITY(DIM=) of INTEGER(1) with the mask: an empty lane
        // is the identity (all bits set for IALL).
        let (_g, b) = array(&[0x3ci8, 0x0f, 0x35, 0x71, 0x12, 0x04], &[3, 2]);
        _FortranAIAllDim(r.ptr(), b.ptr(), 1, file(), 1, mask.ptr());
        assert_eq!(r.read::<i8>(), [0x3c & 0x35, -1]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAIAnyDim(r.ptr(), b.ptr(), 1, file(), 1, mask.ptr());
        assert_eq!(r.read::<i8>(), [0x3c | 0x35, 0]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAIParityDim(r.ptr(), b.ptr(), 2, file(), 1, NULL);
        assert_eq!(r.read::<i8>(), [0x3c ^ 0x71, 0x0f ^ 0x12, 0x35 ^ 0x04]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // NORM2(DIM=) of REAL(4), and of a REAL(4) vector (a scalar).
        let (_h, n) = array(&[3.0f32, 5.0, 4.0, 12.0], &[2, 2]);
        _FortranANorm2Dim(r.ptr(), n.ptr(), 2, file(), 1);
        assert_eq!((r.header().type_code, r.read::<f32>()), (type_code::FLOAT, vec![5.0, 13.0]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_k, nv) = array(&[8.0f32, -6.0], &[2]);
        _FortranANorm2Dim(r.ptr(), nv.ptr(), 1, file(), 1);
        assert_eq!((r.header().rank, r.read::<f32>()), (0, vec![10.0]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // COUNT(DIM=, KIND=1 and 8) of a LOGICAL(8) mask.
        let (_l, l8) = logicals(&[true, true, false, true, false, false], &[2, 3], 8);
        _FortranACountDim(r.ptr(), l8.ptr(), 2, 1, file(), 1);
        assert_eq!((r.header().type_code, r.read::<i8>()), (type_code::INT8, vec![1, 2]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranACountDim(r.ptr(), l8.ptr(), 1, 8, file(), 1);
        assert_eq!((r.header().type_code, r.read::<i64>()), (type_code::INT64, vec![2, 1, 0]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
    });
}

#[test]
fn dot_products_of_mixed_types_convert_the_operands() {
    on_device(|| unsafe {
        // DOT_PRODUCT(INTEGER(4), REAL(8)) is REAL(8); the operands may be
        // sections (here every other element).
        let (_a, i) = array(&[1i32, 2, 3], &[3]);
        let buf = Buf::of(&[0.5f64, 99.0, -2.0, 99.0, 4.0]);
        let mut y = Desc::empty();
        y.establish(buf.ptr(), 8, type_code::DOUBLE, attribute::OTHER, &[Dim { lower_bound: 1, extent: 3, byte_stride: 16 }], None);
        assert_eq!(_FortranADotProductReal8(i.ptr(), y.ptr(), file(), 1), 0.5 - 4.0 + 12.0);
        assert_eq!(_FortranADotProductReal8(y.ptr(), i.ptr(), file(), 1), 8.5);
        // REAL(4) with INTEGER(2).
        let (_b, s) = array(&[0.25f32, 0.5], &[2]);
        let (_c, h) = array(&[4i16, -6], &[2]);
        assert_eq!(_FortranADotProductReal4(s.ptr(), h.ptr(), file(), 1), -2.0);
        // INTEGER(1) with INTEGER(8): INTEGER(8), no wrapping in kind 1.
        let (_d, b) = array(&[100i8, 100], &[2]);
        let (_e, l) = array(&[1_000_000_000_000i64, 3], &[2]);
        assert_eq!(_FortranADotProductInteger8(b.ptr(), l.ptr(), file(), 1), 100_000_000_000_300);
        // Empty vectors: zero.
        let (_f, e) = array::<f64>(&[], &[0]);
        assert_eq!(_FortranADotProductReal8(e.ptr(), e.ptr(), file(), 1), 0.0);
    });
}

#[test]
fn spread_of_a_matrix_reshape_with_recycled_pad_and_cshift_of_a_section() {
    on_device(|| unsafe {
        let r = Desc::empty();
        // s = reshape([1, 2, 3, 4, 5, 6], [2, 3]); SPREAD along each dimension.
        let (_a, s) = array(&[1i64, 2, 3, 4, 5, 6], &[2, 3]);
        _FortranASpread(r.ptr(), s.ptr(), 1, 2, file(), 1);
        assert_eq!((r.extents(), r.read::<i64>()), (vec![2, 2, 3], vec![1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranASpread(r.ptr(), s.ptr(), 2, 2, file(), 1);
        assert_eq!((r.extents(), r.read::<i64>()), (vec![2, 2, 3], vec![1, 2, 1, 2, 3, 4, 3, 4, 5, 6, 5, 6]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranASpread(r.ptr(), s.ptr(), 3, 2, file(), 1);
        assert_eq!((r.extents(), r.read::<i64>()), (vec![2, 3, 2], vec![1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // NCOPIES=0: an empty result of the right shape.
        _FortranASpread(r.ptr(), s.ptr(), 2, 0, file(), 1);
        assert_eq!((r.extents(), r.read::<i64>()), (vec![2, 0, 3], vec![]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // PAD= is used again from its first element as often as needed.
        let (_b, src) = array(&[1.5f64, 2.5, 3.5], &[3]);
        let (_c, shape) = array(&[3i32, 3], &[2]);
        let (_d, pad) = array(&[-1.0f64, -2.0], &[2]);
        _FortranAReshape(r.ptr(), src.ptr(), shape.ptr(), pad.ptr(), NULL, file(), 1);
        assert_eq!((r.extents(), r.read::<f64>()), (vec![3, 3], vec![1.5, 2.5, 3.5, -1.0, -2.0, -1.0, -2.0, -1.0, -2.0]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // CSHIFT of a(9:1:-2), a = [1, 2, ..., 9], with lower bound -2:
        // [9, 7, 5, 3, 1], read backwards through a's storage.
        let buf = Buf::of(&[1i16, 2, 3, 4, 5, 6, 7, 8, 9]);
        let mut v = Desc::empty();
        v.establish(buf.ptr().add(16), 2, type_code::INT16, attribute::OTHER, &[Dim { lower_bound: -2, extent: 5, byte_stride: -4 }], None);
        _FortranACshiftVector(r.ptr(), v.ptr(), -2, file(), 1);
        assert_eq!((r.lower_bounds(), r.read::<i16>()), (vec![1], vec![3, 1, 9, 7, 5]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
    });
}

#[test]
fn bad_arguments_end_the_kernel_with_the_intrinsics_name() {
    let m = trap_message(|| {
        on_device(|| unsafe {
            let (_a, x) = array(&[1i32, 2, 3, 4], &[2, 2]);
            let r = Desc::empty();
            _FortranASumDim(r.ptr(), x.ptr(), 3, file(), 8, NULL);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:8): SUM: bad DIM=3 for ARRAY argument with rank 2");
    let m = trap_message(|| {
        on_device(|| unsafe {
            let (_a, x) = array(&[1i32, 2, 3, 4], &[4]);
            let (_b, m) = logicals(&[true, false], &[2], 4);
            _FortranASumInteger4(x.ptr(), file(), 8, 0, m.ptr());
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:8): SUM: ARRAY= and MASK= arguments are not conformable");
    let m = trap_message(|| {
        on_device(|| unsafe {
            let (_a, x) = array(&[1i32, 2, 3], &[3]);
            let (_b, y) = array(&[1i32, 2], &[2]);
            _FortranADotProductInteger4(x.ptr(), y.ptr(), file(), 8);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:8): DOT_PRODUCT: SIZE(VECTOR_A) is 3 but SIZE(VECTOR_B) is 2");
}

// ---------------------------------------------------------------------------
// Transformations

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// MATMUL of sections of (n,k)x(k,m), (k)x(k,m) and (n,k)x(k) against
    /// the textbook product; TRANSPOSE of the first.
    #[test]
    fn matmul_and_transpose_agree_with_the_model(
        (a, b) in (1i64..4, 1i64..4, 1i64..4).prop_flat_map(|(n, k, m)| (section_of(vec![n, k]), section_of(vec![k, m]))),
        form in 0u8..3,
    ) {
        let got = on_device(move || unsafe {
            let av: Vec<i32> = (0..a.parent_len() as i32).map(|i| i % 7 - 3).collect();
            let bv: Vec<i32> = (0..b.parent_len() as i32).map(|i| i % 5 - 2).collect();
            let (abuf, bbuf) = (Buf::of(&av), Buf::of(&bv));
            let (mut x, mut y) = (a.describe(abuf.ptr(), 4, type_code::INT32), b.describe(bbuf.ptr(), 4, type_code::INT32));
            // Vector forms: the first column of B, the first row of A.
            if form == 1 {
                x.establish(x.base(), 4, type_code::INT32, attribute::OTHER, &[Dim { lower_bound: 1, extent: b.dims[0].1, byte_stride: y.dim(0).byte_stride }], None);
                x.set_base(y.base());
            }
            if form == 2 {
                let d0 = x.dim(1);
                y.establish(x.base(), 4, type_code::INT32, attribute::OTHER, &[d0], None);
            }
            let (xs, ys) = (x.read::<i32>(), y.read::<i32>());
            let (xe, ye) = (x.extents(), y.extents());
            let r = Desc::empty();
            _FortranAMatmulInteger4Integer4(r.ptr(), x.ptr(), y.ptr(), file(), 1);
            let transposed = (x.header().rank == 2).then(|| {
                let t = Desc::empty();
                _FortranATranspose(t.ptr(), x.ptr(), file(), 1);
                let out = (t.read::<i32>(), t.extents());
                _FortranAAllocatableDeallocate(t.ptr(), false, NULL, file(), 1);
                out
            });
            let out = (r.read::<i32>(), r.extents(), xs, ys, xe, ye, transposed);
            _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
            out
        });
        let (product, extents, xs, ys, xe, ye, transposed) = got;
        let (n, k) = if xe.len() == 2 { (xe[0], xe[1]) } else { (1, xe[0]) };
        let m = if ye.len() == 2 { ye[1] } else { 1 };
        let x_at = |i: i64, l: i64| xs[(i + l * n) as usize];
        let y_at = |l: i64, j: i64| ys[(l + j * k) as usize];
        let mut want = Vec::new();
        for j in 0..m {
            for i in 0..n {
                want.push((0..k).map(|l| x_at(i, l) * y_at(l, j)).sum::<i32>());
            }
        }
        let want_extents = match (xe.len(), ye.len()) { (2, 2) => vec![n, m], (1, _) => vec![m], _ => vec![n] };
        prop_assert_eq!(product, want);
        prop_assert_eq!(extents, want_extents);
        if let Some((t, te)) = transposed {
            let mut want_t = Vec::new();
            for i in 0..n {
                for l in 0..k {
                    want_t.push(x_at(i, l));
                }
            }
            prop_assert_eq!(t, want_t);
            prop_assert_eq!(te, vec![k, n]);
        }
    }
}

#[test]
fn matmul_of_every_kind_sums_as_flang_rt_does() {
    on_device(|| unsafe {
        macro_rules! same_type {
            ($t:ty, $f:ident) => {{
                let (_a, x) = array(&[1 as $t, 2 as $t, 3 as $t, 4 as $t], &[2, 2]);
                let r = Desc::empty();
                $f(r.ptr(), x.ptr(), x.ptr(), file(), 1);
                assert_eq!(r.read::<$t>(), [7 as $t, 10 as $t, 15 as $t, 22 as $t]);
                _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
            }};
        }
        same_type!(i8, _FortranAMatmulInteger1Integer1);
        same_type!(i16, _FortranAMatmulInteger2Integer2);
        same_type!(i32, _FortranAMatmulInteger4Integer4);
        same_type!(i64, _FortranAMatmulInteger8Integer8);
        same_type!(f32, _FortranAMatmulReal4Real4);
        same_type!(f64, _FortranAMatmulReal8Real8);
        // 1e8 + 1 - 1e8: 0 summed in single precision, 1 in double. flang
        // 22's host runtime prints 0 for MATMUL of contiguous REAL(4)
        // matrices (and of a section whose first dimension has one
        // element), 1 where an operand's rows are strided or the vector
        // operand is a row of a matrix.
        let r = Desc::empty();
        let mut sums = |x: &Desc, y: &Desc| {
            _FortranAMatmulReal4Real4(r.ptr(), x.ptr(), y.ptr(), file(), 1);
            let v = r.read::<f32>();
            _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
            v
        };
        let (_a, x) = array(&[1e8f32, 1.0, -1e8], &[1, 3]);
        let (_b, y) = array(&[1.0f32, 1.0, 1.0], &[3, 1]);
        assert_eq!(sums(&x, &y), [0.0], "contiguous operands");
        // Rows 1 and 3 of a 4x3 matrix: x(1:3:2, :).
        let parent = [1e8f32, 0.0, 1e8, 0.0, 1.0, 0.0, 1.0, 0.0, -1e8, 0.0, -1e8, 0.0];
        let buf = Buf::of(&parent);
        let mut rows = Desc::empty();
        let dims = [Dim { lower_bound: 1, extent: 2, byte_stride: 8 }, Dim { lower_bound: 1, extent: 3, byte_stride: 16 }];
        rows.establish(buf.ptr(), 4, type_code::FLOAT, attribute::OTHER, &dims, None);
        assert_eq!(sums(&rows, &y), [1.0, 1.0], "strided rows");
        // x(1:1, :): one row, whose stride does not matter.
        let mut first = Desc::empty();
        first.establish(buf.ptr(), 4, type_code::FLOAT, attribute::OTHER, &[Dim { extent: 1, ..dims[0] }, dims[1]], None);
        assert_eq!(sums(&first, &y), [0.0], "a one-row section");
        // Row 1 of that matrix as a vector: x(1, :).
        let mut row = Desc::empty();
        row.establish(buf.ptr(), 4, type_code::FLOAT, attribute::OTHER, &dims[1..], None);
        assert_eq!(sums(&row, &y), [1.0], "a strided vector");
        // COMPLEX(4): each part summed as the REAL(4) ones.
        let (_c, cx) = array(&[[1e8f32, 1e8], [1.0, 1.0], [-1e8, -1e8]], &[1, 3]);
        let (_d, cy) = array(&[[1.0f32, 0.0], [1.0, 0.0], [1.0, 0.0]], &[3, 1]);
        _FortranAMatmulComplex4Complex4(r.ptr(), cx.ptr(), cy.ptr(), file(), 1);
        assert_eq!(r.read::<[f32; 2]>(), [[0.0, 0.0]]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // DOT_PRODUCT sums REAL(4) in double precision, contiguous or not.
        let (_v, v) = array(&[1e8f32, 1.0, -1e8], &[3]);
        let (_w, w) = array(&[1.0f32, 1.0, 1.0], &[3]);
        assert_eq!(_FortranADotProductReal4(v.ptr(), w.ptr(), file(), 1), 1.0);
    });
}

#[test]
fn reshape_pack_spread_and_cshift_rearrange_elements() {
    on_device(|| unsafe {
        let (_a, src) = array(&[1i32, 2, 3, 4, 5, 6], &[6]);
        let (_s, shape) = array(&[2i64, 4], &[2]);
        let (_p, pad) = array(&[-1i32, -2], &[2]);
        let (_o, order) = array(&[2i32, 1], &[2]);
        let r = Desc::empty();
        _FortranAReshape(r.ptr(), src.ptr(), shape.ptr(), pad.ptr(), order.ptr(), file(), 1);
        // ORDER=[2,1]: rows filled first; PAD= after the source.
        assert_eq!((r.extents(), r.read::<i32>()), (vec![2, 4], vec![1, 5, 2, 6, 3, -1, 4, -2]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_s2, shape2) = array(&[3i32, 2], &[2]);
        _FortranAReshape(r.ptr(), src.ptr(), shape2.ptr(), NULL, NULL, file(), 1);
        assert_eq!((r.extents(), r.read::<i32>()), (vec![3, 2], vec![1, 2, 3, 4, 5, 6]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_m, mask) = logicals(&[true, false, true, false, false, true], &[6], 4);
        _FortranAPack(r.ptr(), src.ptr(), mask.ptr(), NULL, file(), 1);
        assert_eq!(r.read::<i32>(), [1, 3, 6]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_v, vector) = array(&[9i32, 9, 9, 9, 9], &[5]);
        _FortranAPack(r.ptr(), src.ptr(), mask.ptr(), vector.ptr(), file(), 1);
        assert_eq!(r.read::<i32>(), [1, 3, 6, 9, 9]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_t, yes) = logicals(&[true], &[], 1);
        _FortranAPack(r.ptr(), src.ptr(), yes.ptr(), NULL, file(), 1);
        assert_eq!(r.read::<i32>(), [1, 2, 3, 4, 5, 6]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_x, small) = array(&[1i32, 2, 3], &[3]);
        _FortranASpread(r.ptr(), small.ptr(), 1, 2, file(), 1);
        assert_eq!((r.extents(), r.read::<i32>()), (vec![2, 3], vec![1, 1, 2, 2, 3, 3]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranASpread(r.ptr(), small.ptr(), 2, 2, file(), 1);
        assert_eq!((r.extents(), r.read::<i32>()), (vec![3, 2], vec![1, 2, 3, 1, 2, 3]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        for (shift, want) in [(2i64, [3, 4, 5, 6, 1, 2]), (-1, [6, 1, 2, 3, 4, 5]), (13, [2, 3, 4, 5, 6, 1])] {
            _FortranACshiftVector(r.ptr(), src.ptr(), shift, file(), 1);
            assert_eq!(r.read::<i32>(), want);
            _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        }
    });
}

// ---------------------------------------------------------------------------
// COMPLEX(4) and COMPLEX(8): the model computes in double precision on
// values whose products and sums are exact there.

/// A complex number of the model: real part, imaginary part.
type C = [f64; 2];

fn cmul(a: C, b: C) -> C {
    [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]]
}
fn cadd(a: C, b: C) -> C {
    [a[0] + b[0], a[1] + b[1]]
}
fn conjg(a: C) -> C {
    [a[0], -a[1]]
}
fn widen(z: [f32; 2]) -> C {
    [f64::from(z[0]), f64::from(z[1])]
}

/// An array of `values` of the type `code`, lower bounds 1: integers and
/// reals take the real parts.
fn typed(values: &[C], code: i8, extents: &[i64]) -> (Buf, Desc) {
    let re = |f: fn(f64) -> i64| values.iter().map(|v| f(v[0])).collect::<Vec<i64>>();
    match code {
        type_code::INT8 => array(&re(|v| v as i64).iter().map(|&v| v as i8).collect::<Vec<_>>(), extents),
        type_code::INT16 => array(&re(|v| v as i64).iter().map(|&v| v as i16).collect::<Vec<_>>(), extents),
        type_code::INT32 => array(&re(|v| v as i64).iter().map(|&v| v as i32).collect::<Vec<_>>(), extents),
        type_code::INT64 => array(&re(|v| v as i64), extents),
        type_code::FLOAT => array(&values.iter().map(|v| v[0] as f32).collect::<Vec<_>>(), extents),
        type_code::DOUBLE => array(&values.iter().map(|v| v[0]).collect::<Vec<_>>(), extents),
        type_code::FLOAT_COMPLEX => array(&values.iter().map(|v| [v[0] as f32, v[1] as f32]).collect::<Vec<_>>(), extents),
        type_code::DOUBLE_COMPLEX => array(values, extents),
        c => panic!("no array of type code {c}"),
    }
}

/// The value `typed` stores for `v` in an array of `code`.
fn as_stored(v: C, code: i8) -> C {
    match code {
        type_code::FLOAT_COMPLEX | type_code::DOUBLE_COMPLEX => v,
        _ => [v[0], 0.0],
    }
}

/// The elements of a complex result as the model's numbers.
fn complex_result(r: &Desc) -> Vec<C> {
    match r.header().type_code {
        type_code::FLOAT_COMPLEX => r.read::<[f32; 2]>().into_iter().map(widen).collect(),
        type_code::DOUBLE_COMPLEX => r.read::<C>(),
        c => panic!("result of type code {c}, not COMPLEX"),
    }
}

/// A 4x5 COMPLEX(8) parent and its section `parent(1:4:2, 5:1:-2)` with
/// lower bounds (-1, 3): a 2x3 array with a negative stride.
fn complex_section() -> (Buf, Desc, Vec<C>) {
    let parent: Vec<C> = (0..20).map(|n| [f64::from(n % 5) - 1.0, f64::from(n % 7) - 3.0]).collect();
    let buf = Buf::of(&parent);
    let mut x = Desc::empty();
    let dims = [Dim { lower_bound: -1, extent: 2, byte_stride: 32 }, Dim { lower_bound: 3, extent: 3, byte_stride: -128 }];
    x.establish(unsafe { buf.ptr().add(16 * 16) }, 16, type_code::DOUBLE_COMPLEX, attribute::OTHER, &dims, None);
    let picked = [4usize, 2, 0].iter().flat_map(|&j| [0usize, 2].map(|i| parent[i + 4 * j])).collect();
    (buf, x, picked)
}

#[test]
fn complex_sums_and_products_of_a_section_with_and_without_a_mask() {
    on_device(|| unsafe {
        let (_p, x, picked) = complex_section();
        let selected = [true, false, true, true, false, true];
        let (_m, mask) = logicals(&selected, &[2, 3], 4);
        let mut out = [0.0f64; 2];
        let at = out.as_mut_ptr().cast::<c_void>();
        _FortranACppSumComplex8(at, x.ptr(), file(), 1, 0, NULL);
        assert_eq!(out, picked.iter().fold([0.0, 0.0], |s, &z| cadd(s, z)));
        _FortranACppSumComplex8(at, x.ptr(), file(), 1, 0, mask.ptr());
        let chosen: Vec<C> = picked.iter().zip(selected).filter(|(_, s)| *s).map(|(z, _)| *z).collect();
        assert_eq!(out, chosen.iter().fold([0.0, 0.0], |s, &z| cadd(s, z)));
        _FortranACppProductComplex8(at, x.ptr(), file(), 1, 0, NULL);
        assert_eq!(out, picked.iter().fold([1.0, 0.0], |p, &z| cmul(p, z)));
        _FortranACppProductComplex8(at, x.ptr(), file(), 1, 0, mask.ptr());
        assert_eq!(out, chosen.iter().fold([1.0, 0.0], |p, &z| cmul(p, z)));
        // A false scalar mask selects nothing: SUM is 0, PRODUCT is 1.
        let (_n, no) = logicals(&[false], &[], 1);
        _FortranACppSumComplex8(at, x.ptr(), file(), 1, 0, no.ptr());
        assert_eq!(out, [0.0, 0.0]);
        _FortranACppProductComplex8(at, x.ptr(), file(), 1, 0, no.ptr());
        assert_eq!(out, [1.0, 0.0]);

        // COMPLEX(4): products in order, (1+2i)(3-i)(0.5+0.5i)(-2i) = 10.
        let mut out4 = [0.0f32; 2];
        let at4 = out4.as_mut_ptr().cast::<c_void>();
        let (_a, f) = array(&[[1.0f32, 2.0], [3.0, -1.0], [0.5, 0.5], [0.0, -2.0]], &[4]);
        _FortranACppProductComplex4(at4, f.ptr(), file(), 1, 0, NULL);
        assert_eq!(out4, [10.0, 0.0]);
        let (_b, two) = logicals(&[false, true, true, false], &[4], 1);
        _FortranACppProductComplex4(at4, f.ptr(), file(), 1, 0, two.ptr());
        assert_eq!(out4, [2.0, 1.0]);
        _FortranACppSumComplex4(at4, f.ptr(), file(), 1, 0, two.ptr());
        assert_eq!(out4, [3.5, -0.5]);
        // Each part is compensated: 1 and ten times 3e-8 stays 1 in single
        // precision uncompensated, in the real and the imaginary part.
        let mut v = vec![[1.0f32, -1.0]];
        v.extend([[3e-8f32, -3e-8]; 10]);
        let (_c, small) = array(&v, &[11]);
        _FortranACppSumComplex4(at4, small.ptr(), file(), 1, 0, NULL);
        assert!((out4[0] - 1.000_000_3).abs() <= f32::EPSILON && (out4[1] + 1.000_000_3).abs() <= f32::EPSILON, "{out4:?}");
        // An empty array.
        let (_e, empty) = array::<[f32; 2]>(&[], &[0]);
        _FortranACppProductComplex4(at4, empty.ptr(), file(), 1, 0, NULL);
        assert_eq!(out4, [1.0, 0.0]);
    });
}

#[test]
fn complex_sum_and_product_with_dim_reduce_each_lane() {
    on_device(|| unsafe {
        let (_p, x, picked) = complex_section();
        let r = Desc::empty();
        // DIM=1: one value per column; DIM=2: one per row.
        _FortranASumDim(r.ptr(), x.ptr(), 1, file(), 1, NULL);
        let want: Vec<C> = (0..3).map(|j| cadd(picked[2 * j], picked[2 * j + 1])).collect();
        assert_eq!((r.header().type_code, r.extents(), r.lower_bounds(), complex_result(&r)), (type_code::DOUBLE_COMPLEX, vec![3], vec![1], want));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranASumDim(r.ptr(), x.ptr(), 2, file(), 1, NULL);
        let want: Vec<C> = (0..2).map(|i| (0..3).fold([0.0, 0.0], |s, j| cadd(s, picked[i + 2 * j]))).collect();
        assert_eq!((r.extents(), complex_result(&r)), (vec![2], want));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let selected = [true, true, false, true, true, true];
        let (_m, mask) = logicals(&selected, &[2, 3], 2);
        _FortranAProductDim(r.ptr(), x.ptr(), 2, file(), 1, mask.ptr());
        let want: Vec<C> = (0..2).map(|i| (0..3).filter(|&j| selected[i + 2 * j]).fold([1.0, 0.0], |p, j| cmul(p, picked[i + 2 * j]))).collect();
        assert_eq!(complex_result(&r), want);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // COMPLEX(4), 2x2: [(1,1) (2,0); (0,-1) (3,2)] by columns.
        let (_f, f) = array(&[[1.0f32, 1.0], [0.0, -1.0], [2.0, 0.0], [3.0, 2.0]], &[2, 2]);
        _FortranAProductDim(r.ptr(), f.ptr(), 1, file(), 1, NULL);
        assert_eq!((r.header().type_code, complex_result(&r)), (type_code::FLOAT_COMPLEX, vec![[1.0, -1.0], [6.0, 4.0]]));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranASumDim(r.ptr(), f.ptr(), 2, file(), 1, NULL);
        assert_eq!(complex_result(&r), [[3.0, 1.0], [3.0, 1.0]]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
    });
}

#[test]
fn complex_dot_product_conjugates_its_first_argument() {
    on_device(|| unsafe {
        let a: Vec<C> = vec![[1.0, 2.0], [3.0, -1.0], [0.5, 4.0]];
        let b: Vec<C> = vec![[2.0, 1.0], [-1.0, 1.0], [4.0, 0.25]];
        let (_a, x) = array(&a, &[3]);
        // b stored backwards every other element: b(3), _, b(2), _, b(1),
        // described with a negative stride from the last.
        let stored: Vec<C> = vec![b[2], [99.0, 99.0], b[1], [99.0, 99.0], b[0]];
        let buf = Buf::of(&stored);
        let mut y = Desc::empty();
        y.establish(
            buf.ptr().add(4 * 16),
            16,
            type_code::DOUBLE_COMPLEX,
            attribute::OTHER,
            &[Dim { lower_bound: 0, extent: 3, byte_stride: -32 }],
            None,
        );
        let mut out = [0.0f64; 2];
        let at = out.as_mut_ptr().cast::<c_void>();
        _FortranACppDotProductComplex8(at, x.ptr(), y.ptr(), file(), 1);
        let want = (0..3).fold([0.0, 0.0], |s, i| cadd(s, cmul(conjg(a[i]), b[i])));
        assert_eq!(out, want);
        assert_ne!(want, (0..3).fold([0.0, 0.0], |s, i| cadd(s, cmul(a[i], b[i]))), "the test tells conjugation apart");
        _FortranACppDotProductComplex8(at, y.ptr(), x.ptr(), file(), 1);
        assert_eq!(out, conjg(want));
        // A real first operand is not conjugated (it has nothing to); a
        // complex first operand with a real second one is.
        let reals = [2.0f64, -1.0, 0.5];
        let (_r, re) = array(&reals, &[3]);
        _FortranACppDotProductComplex8(at, re.ptr(), x.ptr(), file(), 1);
        assert_eq!(out, (0..3).fold([0.0, 0.0], |s, i| cadd(s, cmul([reals[i], 0.0], a[i]))));
        _FortranACppDotProductComplex8(at, x.ptr(), re.ptr(), file(), 1);
        assert_eq!(out, [2.0 - 3.0 + 0.25, -(4.0 + 1.0 + 2.0)]);
        // COMPLEX(4) with INTEGER(2), and accumulation in double precision:
        // 1e8 + 1 - 1e8 is 0 in single precision, 1 in double.
        let mut out4 = [0.0f32; 2];
        let at4 = out4.as_mut_ptr().cast::<c_void>();
        let (_h, h) = array(&[3i16, -2], &[2]);
        let (_f, f) = array(&[[1.0f32, 1.0], [0.5, -2.0]], &[2]);
        _FortranACppDotProductComplex4(at4, h.ptr(), f.ptr(), file(), 1);
        assert_eq!(out4, [2.0, 7.0]);
        _FortranACppDotProductComplex4(at4, f.ptr(), h.ptr(), file(), 1);
        assert_eq!(out4, [2.0, -7.0]);
        let (_g, big) = array(&[[1e8f32, 1e8], [1.0, 1.0], [-1e8, -1e8]], &[3]);
        let (_o, ones) = array(&[[1.0f32, 0.0]; 3], &[3]);
        _FortranACppDotProductComplex4(at4, big.ptr(), ones.ptr(), file(), 1);
        assert_eq!(out4, [1.0, -1.0]);
        let (_e, e) = array::<[f64; 2]>(&[], &[0]);
        _FortranACppDotProductComplex8(at, e.ptr(), e.ptr(), file(), 1);
        assert_eq!(out, [0.0, 0.0]);
    });
    let m = trap_message(|| {
        on_device(|| unsafe {
            let (_a, x) = array(&[[1.0f64, 0.0]; 3], &[3]);
            let (_b, y) = array(&[[1.0f64, 0.0]; 2], &[2]);
            let mut out = [0.0f64; 2];
            _FortranACppDotProductComplex8(out.as_mut_ptr().cast(), x.ptr(), y.ptr(), file(), 4);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:4): DOT_PRODUCT: SIZE(VECTOR_A) is 3 but SIZE(VECTOR_B) is 2");
}

/// `MATMUL` of an entry point's operand types: (result, x, y, source, line).
type MatmulFn = unsafe extern "C-unwind" fn(*mut c_void, *const c_void, *const c_void, *const c_void, i32);

/// The model's `MATMUL` of column-major (n, k) and (k, m) matrices.
fn model_matmul(x: &[C], y: &[C], n: usize, k: usize, m: usize) -> Vec<C> {
    let mut r = vec![[0.0, 0.0]; n * m];
    for j in 0..m {
        for i in 0..n {
            r[i + j * n] = (0..k).fold([0.0, 0.0], |s, l| cadd(s, cmul(x[i + l * n], y[l + j * k])));
        }
    }
    r
}

#[test]
fn matmul_with_a_complex_operand_multiplies_without_conjugating() {
    use type_code::*;
    const C4: i8 = FLOAT_COMPLEX;
    const C8: i8 = DOUBLE_COMPLEX;
    // (entry point, x's type, y's type, the result's type)
    let cases: [(MatmulFn, i8, i8, i8); 28] = [
        (_FortranAMatmulInteger1Complex4, INT8, C4, C4),
        (_FortranAMatmulInteger1Complex8, INT8, C8, C8),
        (_FortranAMatmulInteger2Complex4, INT16, C4, C4),
        (_FortranAMatmulInteger2Complex8, INT16, C8, C8),
        (_FortranAMatmulInteger4Complex4, INT32, C4, C4),
        (_FortranAMatmulInteger4Complex8, INT32, C8, C8),
        (_FortranAMatmulInteger8Complex4, INT64, C4, C4),
        (_FortranAMatmulInteger8Complex8, INT64, C8, C8),
        (_FortranAMatmulReal4Complex4, FLOAT, C4, C4),
        (_FortranAMatmulReal4Complex8, FLOAT, C8, C8),
        (_FortranAMatmulReal8Complex4, DOUBLE, C4, C8),
        (_FortranAMatmulReal8Complex8, DOUBLE, C8, C8),
        (_FortranAMatmulComplex4Integer1, C4, INT8, C4),
        (_FortranAMatmulComplex4Integer2, C4, INT16, C4),
        (_FortranAMatmulComplex4Integer4, C4, INT32, C4),
        (_FortranAMatmulComplex4Integer8, C4, INT64, C4),
        (_FortranAMatmulComplex4Real4, C4, FLOAT, C4),
        (_FortranAMatmulComplex4Real8, C4, DOUBLE, C8),
        (_FortranAMatmulComplex4Complex4, C4, C4, C4),
        (_FortranAMatmulComplex4Complex8, C4, C8, C8),
        (_FortranAMatmulComplex8Integer1, C8, INT8, C8),
        (_FortranAMatmulComplex8Integer2, C8, INT16, C8),
        (_FortranAMatmulComplex8Integer4, C8, INT32, C8),
        (_FortranAMatmulComplex8Integer8, C8, INT64, C8),
        (_FortranAMatmulComplex8Real4, C8, FLOAT, C8),
        (_FortranAMatmulComplex8Real8, C8, DOUBLE, C8),
        (_FortranAMatmulComplex8Complex4, C8, C4, C8),
        (_FortranAMatmulComplex8Complex8, C8, C8, C8),
    ];
    // x is 2x3, y 3x2, both column-major.
    let xv: Vec<C> = vec![[1.0, 2.0], [-3.0, 1.0], [2.0, -1.0], [4.0, 0.0], [0.0, 3.0], [-1.0, -2.0]];
    let yv: Vec<C> = vec![[2.0, -1.0], [1.0, 1.0], [-2.0, 3.0], [3.0, 0.0], [-1.0, 2.0], [5.0, 1.0]];
    on_device(|| unsafe {
        for (f, xc, yc, rc) in cases {
            let (_a, x) = typed(&xv, xc, &[2, 3]);
            let (_b, y) = typed(&yv, yc, &[3, 2]);
            let r = Desc::empty();
            f(r.ptr(), x.ptr(), y.ptr(), file(), 1);
            let xs: Vec<C> = xv.iter().map(|&v| as_stored(v, xc)).collect();
            let ys: Vec<C> = yv.iter().map(|&v| as_stored(v, yc)).collect();
            let want = model_matmul(&xs, &ys, 2, 3, 2);
            assert_eq!((r.header().type_code, r.extents(), complex_result(&r)), (rc, vec![2, 2], want), "x {xc}, y {yc}");
            _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
            // Matrix times vector, vector times matrix.
            let (_c, v) = typed(&yv[..3], yc, &[3]);
            f(r.ptr(), x.ptr(), v.ptr(), file(), 1);
            assert_eq!((r.extents(), complex_result(&r)), (vec![2], model_matmul(&xs, &ys[..3], 2, 3, 1)), "x {xc}, y {yc}");
            _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
            let (_d, u) = typed(&xv[..3], xc, &[3]);
            f(r.ptr(), u.ptr(), y.ptr(), file(), 1);
            assert_eq!((r.extents(), complex_result(&r)), (vec![2], model_matmul(&xs[..3], &ys, 1, 3, 2)), "x {xc}, y {yc}");
            _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        }
        // A section operand: the 2x3 section of complex_section (negative
        // stride, lower bounds -1 and 3) times a 3x1 COMPLEX(8) matrix.
        let (_p, s, picked) = complex_section();
        let (_y, y) = typed(&yv[..3], C8, &[3, 1]);
        let r = Desc::empty();
        _FortranAMatmulComplex8Complex8(r.ptr(), s.ptr(), y.ptr(), file(), 1);
        assert_eq!((r.extents(), complex_result(&r)), (vec![2, 1], model_matmul(&picked, &yv[..3], 2, 3, 1)));
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
    });
}

/// The elements of an INTEGER or REAL result as the model's numbers.
fn numeric_result(r: &Desc) -> Vec<f64> {
    match r.header().type_code {
        type_code::INT8 => r.read::<i8>().into_iter().map(f64::from).collect(),
        type_code::INT16 => r.read::<i16>().into_iter().map(f64::from).collect(),
        type_code::INT32 => r.read::<i32>().into_iter().map(f64::from).collect(),
        type_code::INT64 => r.read::<i64>().into_iter().map(|v| v as f64).collect(),
        type_code::FLOAT => r.read::<f32>().into_iter().map(f64::from).collect(),
        type_code::DOUBLE => r.read::<f64>(),
        c => panic!("result of type code {c}, not INTEGER or REAL"),
    }
}

#[test]
fn matmul_of_mixed_integer_and_real_kinds_takes_the_wider_type() {
    use type_code::*;
    // (entry point, x's type, y's type, the result's type)
    let cases: [(MatmulFn, i8, i8, i8); 30] = [
        (_FortranAMatmulInteger1Integer2, INT8, INT16, INT16),
        (_FortranAMatmulInteger1Integer4, INT8, INT32, INT32),
        (_FortranAMatmulInteger1Integer8, INT8, INT64, INT64),
        (_FortranAMatmulInteger1Real4, INT8, FLOAT, FLOAT),
        (_FortranAMatmulInteger1Real8, INT8, DOUBLE, DOUBLE),
        (_FortranAMatmulInteger2Integer1, INT16, INT8, INT16),
        (_FortranAMatmulInteger2Integer4, INT16, INT32, INT32),
        (_FortranAMatmulInteger2Integer8, INT16, INT64, INT64),
        (_FortranAMatmulInteger2Real4, INT16, FLOAT, FLOAT),
        (_FortranAMatmulInteger2Real8, INT16, DOUBLE, DOUBLE),
        (_FortranAMatmulInteger4Integer1, INT32, INT8, INT32),
        (_FortranAMatmulInteger4Integer2, INT32, INT16, INT32),
        (_FortranAMatmulInteger4Integer8, INT32, INT64, INT64),
        (_FortranAMatmulInteger4Real4, INT32, FLOAT, FLOAT),
        (_FortranAMatmulInteger4Real8, INT32, DOUBLE, DOUBLE),
        (_FortranAMatmulInteger8Integer1, INT64, INT8, INT64),
        (_FortranAMatmulInteger8Integer2, INT64, INT16, INT64),
        (_FortranAMatmulInteger8Integer4, INT64, INT32, INT64),
        (_FortranAMatmulInteger8Real4, INT64, FLOAT, FLOAT),
        (_FortranAMatmulInteger8Real8, INT64, DOUBLE, DOUBLE),
        (_FortranAMatmulReal4Integer1, FLOAT, INT8, FLOAT),
        (_FortranAMatmulReal4Integer2, FLOAT, INT16, FLOAT),
        (_FortranAMatmulReal4Integer4, FLOAT, INT32, FLOAT),
        (_FortranAMatmulReal4Integer8, FLOAT, INT64, FLOAT),
        (_FortranAMatmulReal4Real8, FLOAT, DOUBLE, DOUBLE),
        (_FortranAMatmulReal8Integer1, DOUBLE, INT8, DOUBLE),
        (_FortranAMatmulReal8Integer2, DOUBLE, INT16, DOUBLE),
        (_FortranAMatmulReal8Integer4, DOUBLE, INT32, DOUBLE),
        (_FortranAMatmulReal8Integer8, DOUBLE, INT64, DOUBLE),
        (_FortranAMatmulReal8Real4, DOUBLE, FLOAT, DOUBLE),
    ];
    // x is 2x3, y 3x2, column-major; REAL operands hold halves, which the
    // INTEGER ones truncate.
    let xv: Vec<C> = [1.5, -3.0, 2.0, 4.5, 0.0, -1.0].map(|v| [v, 0.0]).to_vec();
    let yv: Vec<C> = [2.0, 1.5, -2.0, 3.0, -1.0, 5.5].map(|v| [v, 0.0]).to_vec();
    let stored = |v: &[C], code: i8| -> Vec<C> {
        v.iter().map(|&[re, _]| [if matches!(code, FLOAT | DOUBLE) { re } else { re.trunc() }, 0.0]).collect()
    };
    on_device(|| unsafe {
        for (f, xc, yc, rc) in cases {
            let (_a, x) = typed(&xv, xc, &[2, 3]);
            let (_b, y) = typed(&yv, yc, &[3, 2]);
            let r = Desc::empty();
            f(r.ptr(), x.ptr(), y.ptr(), file(), 1);
            let want: Vec<f64> = model_matmul(&stored(&xv, xc), &stored(&yv, yc), 2, 3, 2).iter().map(|z| z[0]).collect();
            assert_eq!((r.header().type_code, r.extents(), numeric_result(&r)), (rc, vec![2, 2], want), "x {xc}, y {yc}");
            _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        }
    });
}

/// The elements of a LOGICAL(`kind`) result as integers.
fn logical_result(r: &Desc, kind: usize) -> Vec<u64> {
    match kind {
        1 => r.read::<u8>().into_iter().map(u64::from).collect(),
        2 => r.read::<u16>().into_iter().map(u64::from).collect(),
        4 => r.read::<u32>().into_iter().map(u64::from).collect(),
        _ => r.read::<u64>(),
    }
}

#[test]
fn matmul_of_logicals_is_any_of_and() {
    // (entry point, x's kind, y's kind, the result's kind)
    let cases: [(MatmulFn, usize, usize, usize); 16] = [
        (_FortranAMatmulLogical1Logical1, 1, 1, 1),
        (_FortranAMatmulLogical1Logical2, 1, 2, 2),
        (_FortranAMatmulLogical1Logical4, 1, 4, 4),
        (_FortranAMatmulLogical1Logical8, 1, 8, 8),
        (_FortranAMatmulLogical2Logical1, 2, 1, 2),
        (_FortranAMatmulLogical2Logical2, 2, 2, 2),
        (_FortranAMatmulLogical2Logical4, 2, 4, 4),
        (_FortranAMatmulLogical2Logical8, 2, 8, 8),
        (_FortranAMatmulLogical4Logical1, 4, 1, 4),
        (_FortranAMatmulLogical4Logical2, 4, 2, 4),
        (_FortranAMatmulLogical4Logical4, 4, 4, 4),
        (_FortranAMatmulLogical4Logical8, 4, 8, 8),
        (_FortranAMatmulLogical8Logical1, 8, 1, 8),
        (_FortranAMatmulLogical8Logical2, 8, 2, 8),
        (_FortranAMatmulLogical8Logical4, 8, 4, 8),
        (_FortranAMatmulLogical8Logical8, 8, 8, 8),
    ];
    // x 2x3, y 3x2: x's first row and y's first column are both true at 2
    // and 3, y's second column only at 1, where x(1, 1) is false; x's
    // second row is false everywhere.
    let xv = [false, false, true, false, true, false];
    let yv = [false, true, true, true, false, false];
    on_device(|| unsafe {
        for (f, xk, yk, rk) in cases {
            let (_a, x) = logicals(&xv, &[2, 3], xk);
            let (_b, y) = logicals(&yv, &[3, 2], yk);
            let r = Desc::empty();
            f(r.ptr(), x.ptr(), y.ptr(), file(), 1);
            let want_code = type_code_of(TypeCategory::Logical, rk as i32).unwrap();
            assert_eq!((r.header().type_code, r.extents(), logical_result(&r, rk)), (want_code, vec![2, 2], vec![1, 0, 0, 0]), "kinds {xk}, {yk}");
            _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
            // A vector times the matrix: [true, true, true] x y = [T, T].
            let (_v, v) = logicals(&[true, true, true], &[3], xk);
            f(r.ptr(), v.ptr(), y.ptr(), file(), 1);
            assert_eq!((r.extents(), logical_result(&r, rk)), (vec![2], vec![1, 1]), "kinds {xk}, {yk}");
            _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        }
    });
}

#[test]
fn findloc_of_complex_values_compares_both_parts() {
    on_device(|| unsafe {
        let r = Desc::empty();
        // 2x3 COMPLEX(8): (3,-1) twice, (2,0), (2,1), (5,0).
        let (_a, x) = array(&[[1.0f64, 1.0], [3.0, -1.0], [2.0, 1.0], [2.0, 0.0], [3.0, -1.0], [5.0, 0.0]], &[2, 3]);
        let (_v, v) = scalar([3.0f64, -1.0]);
        _FortranAFindloc(r.ptr(), x.ptr(), v.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [2, 1]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAFindloc(r.ptr(), x.ptr(), v.ptr(), 4, file(), 1, NULL, true);
        assert_eq!(r.read::<i32>(), [1, 3]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // (-1, 3) is not (3, -1).
        let (_w, swapped) = scalar([-1.0f64, 3.0]);
        _FortranAFindloc(r.ptr(), x.ptr(), swapped.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [0, 0]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // A REAL value 2.0 equals (2, 0), not (2, 1); an INTEGER 5, (5, 0).
        let (_t, two) = scalar(2.0f32);
        _FortranAFindloc(r.ptr(), x.ptr(), two.ptr(), 8, file(), 1, NULL, false);
        assert_eq!(r.read::<i64>(), [2, 2]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_f, five) = scalar(5i8);
        _FortranAFindloc(r.ptr(), x.ptr(), five.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [2, 3]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // With a mask hiding the first (3,-1).
        let (_m, mask) = logicals(&[true, false, true, true, true, true], &[2, 3], 4);
        _FortranAFindloc(r.ptr(), x.ptr(), v.ptr(), 4, file(), 1, mask.ptr(), false);
        assert_eq!(r.read::<i32>(), [1, 3]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // A COMPLEX value in an INTEGER array: (4, 0) equals 4, (4, 1) nothing.
        let (_i, ints) = array(&[1i32, 4, 4], &[3]);
        let (_z, four) = scalar([4.0f32, 0.0]);
        _FortranAFindloc(r.ptr(), ints.ptr(), four.ptr(), 4, file(), 1, NULL, true);
        assert_eq!(r.read::<i32>(), [3]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        let (_y, four_i) = scalar([4.0f64, 1.0]);
        _FortranAFindloc(r.ptr(), ints.ptr(), four_i.ptr(), 4, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [0]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // A COMPLEX(4) array and a COMPLEX(8) value, with DIM=: per column,
        // per row.
        let (_c, c4) = array(&[[0.5f32, 0.5], [1.0, 0.0], [0.5, 0.5], [0.5, -0.5]], &[2, 2]);
        let (_h, half) = scalar([0.5f64, 0.5]);
        _FortranAFindlocDim(r.ptr(), c4.ptr(), half.ptr(), 4, 1, file(), 1, NULL, false);
        assert_eq!(r.read::<i32>(), [1, 1]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAFindlocDim(r.ptr(), c4.ptr(), half.ptr(), 4, 2, file(), 1, NULL, true);
        assert_eq!(r.read::<i32>(), [2, 0]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
    });
}

/// The element number of the subscripts `s` of an array of `extents`.
fn element_number(s: &[i64], extents: &[i64]) -> usize {
    s.iter().zip(extents).rev().fold(0i64, |n, (&s, &e)| n * e + s) as usize
}

/// The line (array element order of the subscripts but `dim0`) of `s`.
fn line_of(s: &[i64], extents: &[i64], dim0: usize) -> usize {
    let (s, e): (Vec<i64>, Vec<i64>) = s.iter().zip(extents).enumerate().filter(|(j, _)| *j != dim0).map(|(_, (&s, &e))| (s, e)).unzip();
    element_number(&s, &e)
}

/// CSHIFT (`circular`) or EOSHIFT of `values` (array element order) of
/// `extents` along `dim0`, shift and boundary of each line given.
fn shift_model(values: &[i32], extents: &[i64], dim0: usize, shift: &dyn Fn(usize) -> i64, boundary: &dyn Fn(usize) -> i32, circular: bool) -> Vec<i32> {
    (0..values.len())
        .map(|n| {
            let mut s = subscripts(n, extents);
            let l = line_of(&s, extents, dim0);
            let k = s[dim0] + shift(l);
            if circular {
                s[dim0] = k.rem_euclid(extents[dim0]);
            } else if !(0..extents[dim0]).contains(&k) {
                return boundary(l);
            } else {
                s[dim0] = k;
            }
            values[element_number(&s, extents)]
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// CSHIFT and EOSHIFT along each dimension of a section of rank 1 to 3
    /// (any strides and lower bounds), with a scalar SHIFT= and an array
    /// one, BOUNDARY= absent, a scalar or an array.
    #[test]
    fn cshift_and_eoshift_agree_with_the_model(
        section in (1usize..4).prop_flat_map(|r| section_strategy(r, 1..4)),
        dim in 1i32..4,
        shifts in proptest::collection::vec(-4i64..5, 9),
    ) {
        let rank = section.dims.len();
        let dim = dim.min(rank as i32);
        let dim0 = dim as usize - 1;
        let extents = section.extents();
        let others: Vec<i64> = extents.iter().enumerate().filter(|(j, _)| *j != dim0).map(|(_, &e)| e).collect();
        let lines = others.iter().product::<i64>() as usize;
        let (extents_on_device, shifts_on_device, others_on_device) = (extents.clone(), shifts.clone(), others.clone());
        let (got, values) = on_device(move || unsafe {
            let (extents, shifts, others) = (extents_on_device, shifts_on_device, others_on_device);
            let parent: Vec<i32> = (0..section.parent_len() as i32).collect();
            let buf = Buf::of(&parent);
            let x = section.describe(buf.ptr(), 4, type_code::INT32);
            let values = x.read::<i32>();
            let (_s, scalar_shift) = scalar(shifts[0]);
            let (_t, array_shift) = array(&shifts[..lines].iter().map(|&s| s as i16).collect::<Vec<_>>(), &others);
            let (_b, scalar_boundary) = scalar(-1i32);
            let (_c, array_boundary) = array(&(0..lines as i32).map(|l| -10 - l).collect::<Vec<_>>(), &others);
            let mut got = Vec::new();
            for (shift, boundary) in [(&scalar_shift, None), (&array_shift, Some(&scalar_boundary)), (&array_shift, Some(&array_boundary))] {
                let r = Desc::empty();
                if rank == 1 {
                    _FortranACshiftVector(r.ptr(), x.ptr(), shifts[0], file(), 1);
                } else {
                    _FortranACshift(r.ptr(), x.ptr(), shift.ptr(), dim, file(), 1);
                }
                assert_eq!((r.extents(), r.lower_bounds()), (extents.clone(), vec![1; rank]));
                got.push(r.read::<i32>());
                _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
                let b = boundary.map_or(NULL, |b| b.ptr() as *const c_void);
                if rank == 1 {
                    _FortranAEoshiftVector(r.ptr(), x.ptr(), shifts[0], b, file(), 1);
                } else {
                    _FortranAEoshift(r.ptr(), x.ptr(), shift.ptr(), b, dim, file(), 1);
                }
                got.push(r.read::<i32>());
                _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
            }
            (got, values)
        });
        let scalar_shift = |_: usize| shifts[0];
        let array_shift = |l: usize| if rank == 1 { shifts[0] } else { shifts[l] };
        let zero = |_: usize| 0;
        let minus_one = |_: usize| -1;
        let per_line = |l: usize| -10 - l as i32;
        let want = vec![
            shift_model(&values, &extents, dim0, &scalar_shift, &zero, true),
            shift_model(&values, &extents, dim0, &scalar_shift, &zero, false),
            shift_model(&values, &extents, dim0, &array_shift, &zero, true),
            shift_model(&values, &extents, dim0, &array_shift, &minus_one, false),
            shift_model(&values, &extents, dim0, &array_shift, &zero, true),
            shift_model(&values, &extents, dim0, &array_shift, &per_line, false),
        ];
        prop_assert_eq!(got, want);
    }

    /// UNPACK into a mask of rank 1 to 3, FIELD= a scalar or a section of
    /// any strides, VECTOR= read backwards.
    #[test]
    fn unpack_agrees_with_the_model(
        section in (1usize..4).prop_flat_map(|r| section_strategy(r, 0..4)),
        mask in proptest::collection::vec(any::<bool>(), 27),
        scalar_field in any::<bool>(),
    ) {
        let extents = section.extents();
        let n = extents.iter().product::<i64>() as usize;
        let trues = mask[..n].iter().filter(|&&m| m).count();
        let (mask_on_device, extents_on_device) = (mask.clone(), extents.clone());
        let (got, field) = on_device(move || unsafe {
            let (mask, extents) = (mask_on_device, extents_on_device);
            let parent: Vec<i64> = (0..section.parent_len() as i64).map(|i| 100 + i).collect();
            let buf = Buf::of(&parent);
            let (_f, fixed) = scalar(7i64);
            let field = if scalar_field { fixed } else { section.describe(buf.ptr(), 8, type_code::INT64) };
            let (_m, m) = logicals(&mask[..n], &extents, 2);
            let vbuf = Buf::of(&(0..trues as i64 + 1).map(|i| -i).collect::<Vec<_>>());
            let mut v = Desc::empty();
            v.establish(vbuf.ptr().add(8 * trues), 8, type_code::INT64, attribute::OTHER, &[Dim { lower_bound: 5, extent: trues as i64 + 1, byte_stride: -8 }], None);
            let r = Desc::empty();
            _FortranAUnpack(r.ptr(), v.ptr(), m.ptr(), field.ptr(), file(), 1);
            assert_eq!((r.extents(), r.lower_bounds()), (extents.clone(), vec![1; extents.len()]));
            let got = r.read::<i64>();
            _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
            (got, field.read::<i64>())
        });
        let mut next = 0i64;
        let want: Vec<i64> = (0..n)
            .map(|i| {
                if mask[i] {
                    next += 1;
                    next - 1 - trues as i64
                } else if scalar_field {
                    field[0]
                } else {
                    field[i]
                }
            })
            .collect();
        prop_assert_eq!(got, want);
    }
}
