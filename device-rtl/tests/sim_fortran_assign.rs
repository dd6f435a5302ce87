//! flang-rt's assignment, allocation and derived-type entry points on the
//! simulated device, against what Fortran defines: `_FortranAAssign` and its
//! relatives (reallocation of an allocatable left-hand side, overlap,
//! character padding, deep copies of allocatable components),
//! `ALLOCATE`/`DEALLOCATE` with default initialization and finalization,
//! `MOVE_ALLOC`, `ALLOCATE`/`DEALLOCATE` of pointers, `ALLOCATE(SOURCE=)`,
//! `EOSHIFT` of derived types, array constructors, copy-in/copy-out,
//! `ASSOCIATED`, polymorphic `ALLOCATE`/`DEALLOCATE` (`MOLD=`, type specs),
//! the type inquiries (`CLASS IS`, `SAME_TYPE_AS`, `EXTENDS_TYPE_OF`) and
//! `TRANSFER`.

mod common;
mod fortran_common;

use common::trap_message;
use fortran_common::*;
use omprt_abi::fortran::*;
use omprt_device_rtl::exports::fortran::*;
use proptest::prelude::*;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

const NULL: *const c_void = std::ptr::null();

#[test]
fn assignment_allocates_then_reallocates_an_allocatable_on_a_change_of_shape() {
    on_device(|| unsafe {
        let blocks = live_blocks();
        let to = Desc::allocatable(8, type_code::DOUBLE, 1);
        let (_a, mut five) = array(&[1.0f64, 2.0, 3.0, 4.0, 5.0], &[5]);
        five.set_dim(0, Dim { lower_bound: -2, ..five.dim(0) });
        _FortranAAssign(to.ptr(), five.ptr(), file(), 7);
        assert_eq!(to.read::<f64>(), [1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(to.lower_bounds(), [-2], "the right-hand side's bounds");
        assert_eq!(live_blocks(), blocks + 1);
        // Same shape: the storage stays.
        let first = to.base();
        let (_b, other) = array(&[9.0f64, 8.0, 7.0, 6.0, 5.0], &[5]);
        _FortranAAssign(to.ptr(), other.ptr(), file(), 7);
        assert_eq!(to.base(), first);
        assert_eq!(to.read::<f64>(), [9.0, 8.0, 7.0, 6.0, 5.0]);
        // Another shape: reallocated.
        let (_c, three) = array(&[1.5f64, 2.5, 3.5], &[3]);
        _FortranAAssign(to.ptr(), three.ptr(), file(), 7);
        assert_eq!((to.extents(), to.read::<f64>()), (vec![3], vec![1.5, 2.5, 3.5]));
        assert_eq!(live_blocks(), blocks + 1, "the old storage is freed");
        // A scalar right-hand side keeps the shape and fills it.
        let (_d, x) = scalar(0.25f64);
        _FortranAAssign(to.ptr(), x.ptr(), file(), 7);
        assert_eq!(to.read::<f64>(), [0.25; 3]);
        assert_eq!(_FortranAAllocatableDeallocate(to.ptr(), false, NULL, file(), 7), 0);
        assert_eq!(live_blocks(), blocks);
    });
}

#[test]
fn overlapping_sections_assign_as_if_the_right_hand_side_came_first() {
    on_device(|| unsafe {
        // a(2:6) = a(1:5) and a(1:5) = a(2:6), through the same storage.
        for (to_first, from_first) in [(1usize, 0usize), (0, 1)] {
            let buf = Buf::of(&[1i32, 2, 3, 4, 5, 6]);
            let mut to = Desc::empty();
            let mut from = Desc::empty();
            to.establish(buf.ptr().add(4 * to_first), 4, type_code::INT32, attribute::OTHER, &contiguous(&[5], &[1], 4), None);
            from.establish(buf.ptr().add(4 * from_first), 4, type_code::INT32, attribute::OTHER, &contiguous(&[5], &[1], 4), None);
            _FortranAAssign(to.ptr(), from.ptr(), file(), 1);
            let all = std::slice::from_raw_parts(buf.ptr() as *const i32, 6).to_vec();
            let mut want = vec![1, 2, 3, 4, 5, 6];
            let src: Vec<i32> = want[from_first..from_first + 5].to_vec();
            want[to_first..to_first + 5].copy_from_slice(&src);
            assert_eq!(all, want);
        }
        // Reversed: a(6:2:-1) = a(1:5).
        let buf = Buf::of(&[1i32, 2, 3, 4, 5, 6]);
        let (mut to, mut from) = (Desc::empty(), Desc::empty());
        to.establish(buf.ptr().add(20), 4, type_code::INT32, attribute::OTHER, &[Dim { lower_bound: 1, extent: 5, byte_stride: -4 }], None);
        from.establish(buf.ptr(), 4, type_code::INT32, attribute::OTHER, &contiguous(&[5], &[1], 4), None);
        _FortranAAssign(to.ptr(), from.ptr(), file(), 1);
        assert_eq!(std::slice::from_raw_parts(buf.ptr() as *const i32, 6), [1, 5, 4, 3, 2, 1]);
    });
}

/// An allocatable assigned a section of itself (`a = a(2:4)`): the new
/// storage is filled from the old, which is freed after.
#[test]
fn an_allocatable_assigned_part_of_itself_reads_the_old_storage() {
    on_device(|| unsafe {
        let blocks = live_blocks();
        let a = Desc::allocatable(4, type_code::INT32, 1);
        let (_s, init) = array(&[10i32, 20, 30, 40, 50], &[5]);
        _FortranAAssign(a.ptr(), init.ptr(), file(), 1);
        let mut part = Desc::empty();
        part.establish(a.base().add(4), 4, type_code::INT32, attribute::OTHER, &contiguous(&[3], &[1], 4), None);
        _FortranAAssign(a.ptr(), part.ptr(), file(), 2);
        assert_eq!(a.read::<i32>(), [20, 30, 40]);
        assert_eq!(live_blocks(), blocks + 1);
        _FortranAAllocatableDeallocate(a.ptr(), false, NULL, file(), 3);
        assert_eq!(live_blocks(), blocks);
    });
}

#[test]
fn characters_are_blank_padded_or_truncated_to_the_left_hand_side() {
    on_device(|| unsafe {
        let (_a, long) = characters(&["abcdef", "gh"], 6, &[2]);
        let (_b, short) = characters(&["", ""], 3, &[2]);
        _FortranAAssign(short.ptr(), long.ptr(), file(), 1);
        assert_eq!(short.read_bytes(), [b"abc".to_vec(), b"gh ".to_vec()]);
        let (_c, three) = characters(&["xy", "z"], 3, &[2]);
        let (_d, wide) = characters(&["......", "......"], 6, &[2]);
        _FortranAAssign(wide.ptr(), three.ptr(), file(), 1);
        assert_eq!(wide.read_bytes(), [b"xy    ".to_vec(), b"z     ".to_vec()]);
        // A deferred-length allocatable takes the right-hand side's length,
        // and is reallocated when it changes.
        let d = Desc::allocatable(0, type_code::CHAR, 0);
        let (_e, s) = characters(&["hello"], 5, &[]);
        _FortranAAssign(d.ptr(), s.ptr(), file(), 1);
        assert_eq!((d.header().elem_len, d.read_bytes()), (5, vec![b"hello".to_vec()]));
        let (_f, s) = characters(&["hi"], 2, &[]);
        _FortranAAssign(d.ptr(), s.ptr(), file(), 1);
        assert_eq!((d.header().elem_len, d.read_bytes()), (2, vec![b"hi".to_vec()]));
        // With an explicit length, it keeps its own.
        let (_g, s) = characters(&["world"], 5, &[]);
        _FortranAAssignExplicitLengthCharacter(d.ptr(), s.ptr(), file(), 1);
        assert_eq!((d.header().elem_len, d.read_bytes()), (2, vec![b"wo".to_vec()]));
        _FortranAAllocatableDeallocate(d.ptr(), false, NULL, file(), 1);
    });
}

#[test]
fn mismatches_end_the_kernel_with_flangs_message_and_position() {
    let m = trap_message(|| {
        on_device(|| unsafe {
            let (_a, to) = array(&[0i32; 3], &[3]);
            let (_b, from) = array(&[1i32, 2, 3, 4], &[4]);
            _FortranAAssign(to.ptr(), from.ptr(), file(), 42);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:42): Assign: mismatching element counts in array assignment (to 3, from 4)");
    let m = trap_message(|| {
        on_device(|| unsafe {
            let (_a, to) = array(&[0i32; 2], &[2]);
            let (_b, from) = array(&[1.0f32, 2.0], &[2]);
            _FortranAAssign(to.ptr(), from.ptr(), NULL, 0);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error: Assign: mismatching types (to code 9 != from code 27)");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// A section of one array assigned to a section of the same shape of
    /// another, any strides and lower bounds, then to an allocatable: the
    /// elements in array element order, the bounds of the right-hand side.
    #[test]
    fn sections_of_any_shape_and_stride_assign_element_by_element(
        (to_s, from_s) in (1usize..4)
            .prop_flat_map(|r| proptest::collection::vec(1i64..5, r))
            .prop_flat_map(|e| (section_of(e.clone()), section_of(e))),
    ) {
        let result = on_device(move || unsafe {
            let from_len: i64 = from_s.parent.iter().product();
            let to_len: i64 = to_s.parent.iter().product();
            let values: Vec<i64> = (0..from_len).map(|i| i * 7 + 1).collect();
            let from_buf = Buf::of(&values);
            let to_buf = Buf::of(&vec![-1i64; to_len as usize]);
            let from = from_s.describe(from_buf.ptr(), 8, type_code::INT64);
            let to = to_s.describe(to_buf.ptr(), 8, type_code::INT64);
            let want = from.read::<i64>();
            _FortranAAssign(to.ptr(), from.ptr(), file(), 1);
            let got = to.read::<i64>();
            let alloc = Desc::allocatable(8, type_code::INT64, from_s.dims.len());
            _FortranAAssign(alloc.ptr(), from.ptr(), file(), 1);
            let copied = (alloc.read::<i64>(), alloc.lower_bounds(), alloc.extents());
            _FortranAAllocatableDeallocate(alloc.ptr(), false, NULL, file(), 1);
            (want, got, copied, from.lower_bounds(), from.extents())
        });
        let (want, got, (copied, lower, extents), from_lower, from_extents) = result;
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(&copied, &want);
        prop_assert_eq!(lower, from_lower);
        prop_assert_eq!(extents, from_extents);
    }
}

// ---------------------------------------------------------------------------
// Derived types

/// `type bag; integer :: id; real(8), allocatable :: v(:); end type` (56 bytes).
fn bag() -> TypeDesc {
    TypeDesc::new(56, vec![Comp::data(TypeCategory::Integer, 4, 0), Comp::allocatable(TypeCategory::Real, 8, 1, 8)], vec![])
}

/// Allocates the `v` of the bag instance at `at` with `values`.
unsafe fn fill_bag(at: *mut u8, id: i32, values: &[f64]) {
    unsafe {
        *(at as *mut i32) = id;
        let v = at.add(8) as *mut c_void;
        _FortranAAllocatableSetBounds(v, 0, 1, values.len() as i64);
        assert_eq!(_FortranAAllocatableAllocate(v, std::ptr::null_mut(), false, NULL, file(), 1, NULL), 0);
        let base = *(v as *const *mut f64);
        std::ptr::copy_nonoverlapping(values.as_ptr(), base, values.len());
    }
}

/// The `v` of the bag instance at `at`: its storage and values.
unsafe fn bag_values(at: *const u8) -> (*const f64, Vec<f64>) {
    unsafe {
        let v = at.add(8);
        let base = *(v as *const *const f64);
        if base.is_null() {
            return (base, vec![]);
        }
        let extent = *(v.add(32) as *const i64);
        (base, std::slice::from_raw_parts(base, extent as usize).to_vec())
    }
}

#[test]
fn derived_types_are_deep_copied_and_destroyed() {
    let t = bag();
    let tp = t.ptr() as usize;
    on_device(move || unsafe {
        let tp = tp as *const DerivedType;
        let blocks = live_blocks();
        // from = [bag(1, [1, 2, 3]), bag(2, [4])]
        let from = Desc::allocatable_derived(tp, 1);
        _FortranAAllocatableSetBounds(from.ptr(), 0, 1, 2);
        assert_eq!(_FortranAAllocatableAllocate(from.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL), 0);
        assert!(bag_values(from.base()).1.is_empty(), "default initialization leaves v unallocated");
        fill_bag(from.base(), 1, &[1.0, 2.0, 3.0]);
        fill_bag(from.base().add(56), 2, &[4.0]);
        let to = Desc::allocatable_derived(tp, 1);
        _FortranAAssign(to.ptr(), from.ptr(), file(), 1);
        assert_eq!(to.extents(), [2]);
        let (from_v, _) = bag_values(from.base());
        let (to_v, values) = bag_values(to.base());
        assert_ne!(from_v, to_v, "a deep copy: storage of its own");
        assert_eq!(values, [1.0, 2.0, 3.0]);
        assert_eq!((*(to.base().add(56) as *const i32), bag_values(to.base().add(56)).1), (2, vec![4.0]));
        assert_eq!(live_blocks(), blocks + 6);
        // Reassigning deallocates the old components first.
        _FortranAAssign(to.ptr(), from.ptr(), file(), 1);
        assert_eq!(live_blocks(), blocks + 6);
        // A component unallocated on the right leaves the left's unallocated.
        let v = from.base().add(56 + 8) as *mut c_void;
        _FortranAAllocatableDeallocate(v, false, NULL, file(), 1);
        _FortranAAssign(to.ptr(), from.ptr(), file(), 1);
        assert!(bag_values(to.base().add(56)).1.is_empty());
        assert_eq!(live_blocks(), blocks + 4);
        // Destroy frees the components, DEALLOCATE the rest.
        _FortranADestroy(to.ptr());
        assert_eq!(live_blocks(), blocks + 3);
        _FortranAAllocatableDeallocate(to.ptr(), false, NULL, file(), 1);
        _FortranAAllocatableDeallocate(from.ptr(), false, NULL, file(), 1);
        assert_eq!(live_blocks(), blocks);
    });
}

/// `x(2:3) = x(1:2)` of a derived type with an allocatable component: the
/// right-hand side's components are copied before the left-hand side's are
/// freed.
#[test]
fn overlapping_derived_sections_copy_through_a_deep_temporary() {
    let t = bag();
    let tp = t.ptr() as usize;
    on_device(move || unsafe {
        let tp = tp as *const DerivedType;
        let blocks = live_blocks();
        let x = Desc::allocatable_derived(tp, 1);
        _FortranAAllocatableSetBounds(x.ptr(), 0, 1, 3);
        _FortranAAllocatableAllocate(x.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL);
        for i in 0..3 {
            fill_bag(x.base().add(56 * i), i as i32 + 1, &vec![i as f64 + 1.0; i + 1]);
        }
        let (mut to, mut from) = (Desc::empty(), Desc::empty());
        to.establish(x.base().add(56), 56, type_code::STRUCT, attribute::OTHER, &contiguous(&[2], &[1], 56), Some(tp));
        from.establish(x.base(), 56, type_code::STRUCT, attribute::OTHER, &contiguous(&[2], &[1], 56), Some(tp));
        _FortranAAssign(to.ptr(), from.ptr(), file(), 1);
        let ids: Vec<i32> = (0..3).map(|i| *(x.base().add(56 * i) as *const i32)).collect();
        let values: Vec<Vec<f64>> = (0..3).map(|i| bag_values(x.base().add(56 * i)).1).collect();
        assert_eq!(ids, [1, 1, 2]);
        assert_eq!(values, [vec![1.0], vec![1.0], vec![2.0, 2.0]]);
        _FortranAAllocatableDeallocate(x.ptr(), false, NULL, file(), 1);
        assert_eq!(live_blocks(), blocks, "no component leaked or freed twice");
    });
}

static FINALIZED: AtomicUsize = AtomicUsize::new(0);
static FINALIZED_IDS: AtomicUsize = AtomicUsize::new(0);

/// A final subroutine of `tracked` (its id added up), called with the
/// object's address.
extern "C-unwind" fn finish(at: *mut u8) {
    FINALIZED.fetch_add(1, Ordering::SeqCst);
    FINALIZED_IDS.fetch_add(unsafe { *(at as *const i32) } as usize, Ordering::SeqCst);
}

/// An elemental final subroutine called with a descriptor of the element.
extern "C-unwind" fn finish_by_descriptor(d: *mut u8) {
    let at = unsafe { *(d as *const *const i32) };
    FINALIZED.fetch_add(1, Ordering::SeqCst);
    FINALIZED_IDS.fetch_add(unsafe { *at } as usize, Ordering::SeqCst);
}

#[test]
fn deallocation_and_assignment_finalize_and_allocation_initializes() {
    // type tracked; integer :: id = 7; final :: finish (scalar); end type
    let mut id = Comp::data(TypeCategory::Integer, 4, 0);
    id.init = Some(7i32.to_ne_bytes().to_vec());
    let t = TypeDesc::new(4, vec![id], vec![(special_binding::SCALAR_FINAL, finish as *const c_void, false)]);
    let mut id = Comp::data(TypeCategory::Integer, 4, 0);
    id.init = Some(3i32.to_ne_bytes().to_vec());
    let elemental = TypeDesc::new(4, vec![id], vec![(special_binding::ELEMENTAL_FINAL, finish_by_descriptor as *const c_void, true)]);
    let (tp, ep) = (t.ptr() as usize, elemental.ptr() as usize);
    on_device(move || unsafe {
        let (tp, ep) = (tp as *const DerivedType, ep as *const DerivedType);
        FINALIZED.store(0, Ordering::SeqCst);
        FINALIZED_IDS.store(0, Ordering::SeqCst);
        let a = Desc::allocatable_derived(tp, 0);
        _FortranAAllocatableAllocate(a.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL);
        assert_eq!(*(a.base() as *const i32), 7, "default initialization");
        *(a.base() as *mut i32) = 5;
        _FortranAAllocatableDeallocate(a.ptr(), false, NULL, file(), 1);
        assert_eq!((FINALIZED.load(Ordering::SeqCst), FINALIZED_IDS.load(Ordering::SeqCst)), (1, 5));
        // Intrinsic assignment finalizes the left-hand side first.
        let buf = Buf::of(&[11i32]);
        let mut lhs = Desc::empty();
        lhs.establish(buf.ptr(), 4, type_code::STRUCT, attribute::OTHER, &[], Some(tp));
        let rbuf = Buf::of(&[12i32]);
        let mut rhs = Desc::empty();
        rhs.establish(rbuf.ptr(), 4, type_code::STRUCT, attribute::OTHER, &[], Some(tp));
        _FortranAAssign(lhs.ptr(), rhs.ptr(), file(), 1);
        assert_eq!((FINALIZED.load(Ordering::SeqCst), FINALIZED_IDS.load(Ordering::SeqCst)), (2, 16));
        assert_eq!(*(buf.ptr() as *const i32), 12);
        // An elemental final subroutine, per element of an array.
        let e = Desc::allocatable_derived(ep, 1);
        _FortranAAllocatableSetBounds(e.ptr(), 0, 1, 3);
        _FortranAAllocatableAllocate(e.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL);
        assert_eq!(e.read::<i32>(), [3, 3, 3]);
        _FortranAAllocatableDeallocate(e.ptr(), false, NULL, file(), 1);
        assert_eq!((FINALIZED.load(Ordering::SeqCst), FINALIZED_IDS.load(Ordering::SeqCst)), (5, 25));
        // Without finalization.
        let a = Desc::allocatable_derived(tp, 0);
        _FortranAAllocatableAllocate(a.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL);
        _FortranADestroyWithoutFinalization(a.ptr());
        _FortranAAllocatableDeallocate(a.ptr(), false, NULL, file(), 1);
        assert_eq!(FINALIZED.load(Ordering::SeqCst), 6, "DEALLOCATE finalizes; Destroy without finalization did not");
    });
}

#[test]
fn allocation_errors_are_statuses_with_stat_and_crashes_without() {
    on_device(|| unsafe {
        let a = Desc::allocatable(4, type_code::INT32, 1);
        _FortranAAllocatableSetBounds(a.ptr(), 0, 1, 4);
        assert_eq!(_FortranAAllocatableAllocate(a.ptr(), std::ptr::null_mut(), true, NULL, file(), 1, NULL), 0);
        let (_m, errmsg) = characters(&["?"], 30, &[]);
        let status = _FortranAAllocatableAllocate(a.ptr(), std::ptr::null_mut(), true, errmsg.ptr(), file(), 1, NULL);
        assert_eq!(status, stat::BASE_ADDR_NOT_NULL);
        assert_eq!(errmsg.read_bytes(), [b"Base address is not null      ".to_vec()]);
        assert_eq!(_FortranAAllocatableDeallocate(a.ptr(), true, NULL, file(), 1), 0);
        assert_eq!(_FortranAAllocatableDeallocate(a.ptr(), true, NULL, file(), 1), stat::BASE_ADDR_NULL);
    });
    let m = trap_message(|| {
        on_device(|| unsafe {
            let a = Desc::allocatable(4, type_code::INT32, 0);
            _FortranAAllocatableDeallocate(a.ptr(), false, NULL, file(), 9);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:9): Base address is null (STAT=11)");
    // An exhausted heap (the launching thread sets it up).
    omprt_device_rtl::arch::sim::fail_mallocs(1);
    on_device(|| unsafe {
        let a = Desc::allocatable(4, type_code::INT32, 0);
        assert_eq!(_FortranAAllocatableAllocate(a.ptr(), std::ptr::null_mut(), true, NULL, file(), 1, NULL), stat::MEM_ALLOCATION);
    });
}

#[test]
fn move_alloc_moves_the_storage_and_bounds() {
    on_device(|| unsafe {
        let blocks = live_blocks();
        let (to, from) = (Desc::allocatable(4, type_code::INT32, 1), Desc::allocatable(4, type_code::INT32, 1));
        let (_s, mut v) = array(&[1i32, 2, 3], &[3]);
        v.set_dim(0, Dim { lower_bound: -1, ..v.dim(0) });
        _FortranAAssign(from.ptr(), v.ptr(), file(), 1);
        let (_t, w) = array(&[9i32], &[1]);
        _FortranAAssign(to.ptr(), w.ptr(), file(), 1);
        let storage = from.base();
        assert_eq!(_FortranAMoveAlloc(to.ptr(), from.ptr(), NULL, false, NULL, file(), 1), 0);
        assert_eq!((to.base(), to.read::<i32>()), (storage, vec![1, 2, 3]));
        assert_eq!((to.lower_bounds(), to.extents()), (vec![-1], vec![3]), "FROM's bounds");
        assert!(from.base().is_null());
        assert_eq!(live_blocks(), blocks + 1, "TO's old storage is freed");
        // An unallocated FROM leaves TO unallocated.
        assert_eq!(_FortranAMoveAlloc(to.ptr(), from.ptr(), NULL, false, NULL, file(), 1), 0);
        assert!(to.base().is_null() && from.base().is_null());
        assert_eq!(live_blocks(), blocks);
    });
}

/// `CSHIFT`, `PACK` and `TRANSPOSE` of a derived type with an allocatable
/// component: each element of the result is a deep copy.
#[test]
fn array_transformations_deep_copy_derived_elements() {
    let t = bag();
    let tp = t.ptr() as usize;
    on_device(move || unsafe {
        let tp = tp as *const DerivedType;
        let blocks = live_blocks();
        // x = [bag(1, [1, 2]), bag(2, [3]), bag(3, unallocated)]
        let x = Desc::allocatable_derived(tp, 1);
        _FortranAAllocatableSetBounds(x.ptr(), 0, 1, 3);
        _FortranAAllocatableAllocate(x.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL);
        fill_bag(x.base(), 1, &[1.0, 2.0]);
        fill_bag(x.base().add(56), 2, &[3.0]);
        *(x.base().add(112) as *mut i32) = 3;
        assert_eq!(live_blocks(), blocks + 3);
        let bags = |d: &Desc| -> Vec<(i32, Vec<f64>)> {
            (0..d.extents().iter().product::<i64>() as usize)
                .map(|i| (*(d.base().add(56 * i) as *const i32), bag_values(d.base().add(56 * i)).1))
                .collect()
        };
        let r = Desc::empty();
        _FortranACshiftVector(r.ptr(), x.ptr(), 1, file(), 1);
        assert_eq!(bags(&r), [(2, vec![3.0]), (3, vec![]), (1, vec![1.0, 2.0])]);
        assert_eq!(r.derived_type(), tp);
        assert_ne!(bag_values(r.base().add(112)).0, bag_values(x.base()).0, "storage of its own");
        assert_eq!(live_blocks(), blocks + 3 + 3);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        assert_eq!(live_blocks(), blocks + 3, "the copies' components are freed with them");
        let (_m, mask) = logicals(&[true, false, true], &[3], 4);
        _FortranAPack(r.ptr(), x.ptr(), mask.ptr(), NULL, file(), 1);
        assert_eq!(bags(&r), [(1, vec![1.0, 2.0]), (3, vec![])]);
        assert_ne!(bag_values(r.base()).0, bag_values(x.base()).0, "storage of its own");
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        // x viewed as a 1x3 matrix, transposed to 3x1.
        let mut m = Desc::empty();
        m.establish(x.base(), 56, type_code::STRUCT, attribute::OTHER, &contiguous(&[1, 3], &[1, 1], 56), Some(tp));
        _FortranATranspose(r.ptr(), m.ptr(), file(), 1);
        assert_eq!((r.extents(), bags(&r)), (vec![3, 1], vec![(1, vec![1.0, 2.0]), (2, vec![3.0]), (3, vec![])]));
        assert_ne!(bag_values(r.base().add(56)).0, bag_values(x.base().add(56)).0, "storage of its own");
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAAllocatableDeallocate(x.ptr(), false, NULL, file(), 1);
        assert_eq!(live_blocks(), blocks, "nothing leaked or freed twice");
    });
}

#[test]
fn array_constructors_grow_as_values_are_pushed() {
    on_device(|| unsafe {
        let blocks = live_blocks();
        let mut vector = [0u64; 10];
        let to = Desc::allocatable(8, type_code::DOUBLE, 1);
        let vp = vector.as_mut_ptr() as *mut c_void;
        _FortranAInitArrayConstructorVector(vp, to.ptr(), false, file(), 1);
        let mut want = Vec::new();
        for i in 0..40 {
            let x = i as f64 * 0.5;
            _FortranAPushArrayConstructorSimpleScalar(vp, &x as *const f64 as *mut c_void);
            want.push(x);
        }
        let (_a, more) = array(&[100.0f64, 200.0, 300.0, 400.0], &[2, 2]);
        _FortranAPushArrayConstructorValue(vp, more.ptr());
        want.extend([100.0, 200.0, 300.0, 400.0]);
        let (_b, one) = scalar(-1.0f64);
        _FortranAPushArrayConstructorValue(vp, one.ptr());
        want.push(-1.0);
        assert_eq!((to.extents(), to.lower_bounds()), (vec![want.len() as i64], vec![1]));
        assert_eq!(to.read::<f64>(), want);
        _FortranAAllocatableDeallocate(to.ptr(), false, NULL, file(), 1);
        assert_eq!(live_blocks(), blocks, "the storage given up when growing is freed");
        // Characters without a type-spec take the first value's length.
        let to = Desc::allocatable(0, type_code::CHAR, 1);
        _FortranAInitArrayConstructorVector(vp, to.ptr(), true, file(), 1);
        let (_c, ab) = characters(&["ab", "cd"], 2, &[2]);
        _FortranAPushArrayConstructorValue(vp, ab.ptr());
        assert_eq!(to.read_bytes(), [b"ab".to_vec(), b"cd".to_vec()]);
        _FortranAAllocatableDeallocate(to.ptr(), false, NULL, file(), 1);
    });
    let m = trap_message(|| {
        on_device(|| unsafe {
            let mut vector = [0u64; 10];
            let vp = vector.as_mut_ptr() as *mut c_void;
            let to = Desc::allocatable(0, type_code::CHAR, 1);
            _FortranAInitArrayConstructorVector(vp, to.ptr(), true, file(), 5);
            let (_a, ab) = characters(&["ab"], 2, &[]);
            _FortranAPushArrayConstructorValue(vp, ab.ptr());
            let (_b, xyz) = characters(&["xyz"], 3, &[]);
            _FortranAPushArrayConstructorValue(vp, xyz.ptr());
        })
    });
    assert_eq!(
        m,
        "fatal Fortran runtime error(file.f90:5): Array constructor: mismatched character lengths (2 != 3 bytes) between values of an array constructor without type-spec"
    );
}

#[test]
fn copy_in_and_out_round_trip_a_discontiguous_section() {
    on_device(|| unsafe {
        let blocks = live_blocks();
        let buf = Buf::of(&[1i32, 2, 3, 4, 5, 6, 7, 8, 9]);
        let mut var = Desc::empty();
        var.establish(buf.ptr(), 4, type_code::INT32, attribute::OTHER, &[Dim { lower_bound: 1, extent: 5, byte_stride: 8 }], None);
        assert!(!_FortranAIsContiguous(var.ptr()));
        let temp = Desc::empty();
        _FortranACopyInAssign(temp.ptr(), var.ptr(), file(), 1);
        assert!(_FortranAIsContiguous(temp.ptr()));
        assert_eq!(temp.read::<i32>(), [1, 3, 5, 7, 9]);
        for (i, x) in std::slice::from_raw_parts_mut(temp.base() as *mut i32, 5).iter_mut().enumerate() {
            *x = 10 * i as i32;
        }
        _FortranACopyOutAssign(var.ptr(), temp.ptr(), file(), 1);
        assert_eq!(std::slice::from_raw_parts(buf.ptr() as *const i32, 9), [0, 2, 10, 4, 20, 6, 30, 8, 40]);
        assert_eq!(live_blocks(), blocks, "the temporary is freed");
    });
}

#[test]
fn select_rank_and_type_copy_descriptors_with_new_bounds_types_and_attributes() {
    on_device(|| unsafe {
        let buf = Buf::of(&[0i32; 12]);
        // An assumed-size dummy `a(3, *)`: flang's last extent is -1.
        let mut assumed = Desc::empty();
        let dims = [Dim { lower_bound: 1, extent: 3, byte_stride: 4 }, Dim { lower_bound: 1, extent: -1, byte_stride: 12 }];
        assumed.establish(buf.ptr(), 4, type_code::INT32, attribute::OTHER, &dims, None);
        assert!(_FortranAIsAssumedSize(assumed.ptr()));
        let mut shaped = Desc::empty();
        let dims = [Dim { lower_bound: 0, extent: 3, byte_stride: 4 }, Dim { lower_bound: -2, extent: 4, byte_stride: 12 }];
        shaped.establish(buf.ptr(), 4, type_code::INT32, attribute::POINTER, &dims, None);
        assert!(!_FortranAIsAssumedSize(shaped.ptr()));
        let (_s, scalar) = scalar(1i32);
        assert!(!_FortranAIsAssumedSize(scalar.ptr()), "a scalar is no array");

        // Bounds kept, set to ones, set to zeroes; the attribute replaced.
        for (modifier, lower) in [(0, vec![0, -2]), (1, vec![1, 1]), (2, vec![0, 0])] {
            let copy = Desc::empty();
            _FortranACopyAndUpdateDescriptor(copy.ptr(), shaped.ptr(), NULL, attribute::OTHER, modifier);
            assert_eq!(copy.lower_bounds(), lower, "modifier {modifier}");
            assert_eq!(copy.extents(), [3, 4]);
            assert_eq!(copy.header().attribute, attribute::OTHER);
            assert_eq!(copy.header().elem_len, 4);
            assert_eq!(copy.base(), buf.ptr());
            assert_eq!(copy.dims().iter().map(|d| d.byte_stride).collect::<Vec<_>>(), [4, 12]);
        }
        assert_eq!(shaped.lower_bounds(), [0, -2], "the source is unchanged");

        // A new dynamic type: its size is the element length.
        let base_t = TypeDesc::new(8, vec![], vec![]);
        let child_t = TypeDesc::new(24, vec![], vec![]);
        let data = Buf::new(48);
        let mut poly = Desc::empty();
        poly.establish(data.ptr(), 8, type_code::STRUCT, attribute::ALLOCATABLE, &[Dim { lower_bound: 5, extent: 2, byte_stride: 24 }], Some(&*base_t.t));
        let copy = Desc::empty();
        _FortranACopyAndUpdateDescriptor(copy.ptr(), poly.ptr(), &*child_t.t as *const _ as *const c_void, attribute::POINTER, 0);
        assert_eq!(copy.derived_type(), &*child_t.t as *const _);
        assert_eq!(copy.header().elem_len, 24);
        assert_eq!(copy.header().attribute, attribute::POINTER);
        assert_eq!(copy.lower_bounds(), [5]);
    });
    let no_addendum = trap_message(|| {
        on_device(|| unsafe {
            let t = TypeDesc::new(24, vec![], vec![]);
            let (_b, plain) = array(&[1i32, 2], &[2]);
            let copy = Desc::empty();
            _FortranACopyAndUpdateDescriptor(copy.ptr(), plain.ptr(), &*t.t as *const _ as *const c_void, attribute::OTHER, 0);
        })
    });
    assert_eq!(no_addendum, "fatal Fortran runtime error: CopyAndUpdateDescriptor: a dynamic type for a descriptor without an addendum");
}

#[test]
fn assumed_rank_inquiries_read_the_descriptor() {
    on_device(|| unsafe {
        let buf = Buf::of(&[0i32; 12]);
        let mut d = Desc::empty();
        let dims = [Dim { lower_bound: 0, extent: 3, byte_stride: 4 }, Dim { lower_bound: -2, extent: 4, byte_stride: 12 }];
        d.establish(buf.ptr(), 4, type_code::INT32, attribute::POINTER, &dims, None);
        assert_eq!(_FortranASize(d.ptr(), file(), 1), 12);
        assert_eq!((_FortranASizeDim(d.ptr(), 1, file(), 1), _FortranASizeDim(d.ptr(), 2, file(), 1)), (3, 4));
        assert_eq!((_FortranALboundDim(d.ptr(), 1, file(), 1), _FortranALboundDim(d.ptr(), 2, file(), 1)), (0, -2));
        let mut shape = [-1i32; 3];
        _FortranAShape(shape.as_mut_ptr().cast(), d.ptr(), 4, file(), 1);
        assert_eq!(shape, [3, 4, -1], "one element per dimension");
        let mut lower = [-1i64; 2];
        _FortranALbound(lower.as_mut_ptr().cast(), d.ptr(), 8, file(), 1);
        assert_eq!(lower, [0, -2]);
        let mut upper = [-1i16; 2];
        _FortranAUbound(upper.as_mut_ptr().cast(), d.ptr(), 2, file(), 1);
        assert_eq!(upper, [2, 1]);
        let mut upper1 = [-1i8; 2];
        _FortranAUbound(upper1.as_mut_ptr().cast(), d.ptr(), 1, file(), 1);
        assert_eq!(upper1, [2, 1]);
        let mut lower16 = [7i128; 2];
        _FortranALbound(lower16.as_mut_ptr().cast(), d.ptr(), 16, file(), 1);
        assert_eq!(lower16, [0, -2]);
        // A scalar has size 1 and no dimension; an empty array size 0.
        let (_s, scalar) = scalar(5i32);
        assert_eq!(_FortranASize(scalar.ptr(), file(), 1), 1);
        let mut untouched = [-1i32; 1];
        _FortranAShape(untouched.as_mut_ptr().cast(), scalar.ptr(), 4, file(), 1);
        assert_eq!(untouched, [-1]);
        let mut empty = Desc::empty();
        empty.establish(buf.ptr(), 4, type_code::INT32, attribute::OTHER, &[Dim { lower_bound: 1, extent: 3, byte_stride: 4 }, Dim { lower_bound: 1, extent: 0, byte_stride: 12 }], None);
        assert_eq!(_FortranASize(empty.ptr(), file(), 1), 0);
    });
    let dim = trap_message(|| {
        on_device(|| unsafe {
            let (_b, a) = array(&[1i32, 2], &[2]);
            _FortranASizeDim(a.ptr(), 2, file(), 8);
        })
    });
    assert_eq!(dim, "fatal Fortran runtime error(file.f90:8): SIZE: bad DIM=2 for ARRAY with rank=1");
    let dim = trap_message(|| {
        on_device(|| unsafe {
            let (_b, a) = array(&[1i32, 2], &[2]);
            _FortranALboundDim(a.ptr(), 0, file(), 9);
        })
    });
    assert_eq!(dim, "fatal Fortran runtime error(file.f90:9): LBOUND: bad DIM=0 for ARRAY with rank=1");
    let kind = trap_message(|| {
        on_device(|| unsafe {
            let (_b, a) = array(&[1i32, 2], &[2]);
            let mut out = [0i32; 2];
            _FortranAShape(out.as_mut_ptr().cast(), a.ptr(), 3, file(), 10);
        })
    });
    assert_eq!(kind, "fatal Fortran runtime error(file.f90:10): bad KIND=3 for the result of SHAPE, LBOUND or UBOUND");
}

#[test]
fn associated_compares_address_shape_and_strides() {
    on_device(|| unsafe {
        let buf = Buf::of(&[0i32; 12]);
        let section = |first: usize, extent: i64, stride: i64| {
            let mut d = Desc::empty();
            d.establish(
                buf.ptr().add(4 * first),
                4,
                type_code::INT32,
                attribute::POINTER,
                &[Dim { lower_bound: 1, extent, byte_stride: stride }],
                None,
            );
            d
        };
        let p = section(0, 6, 8);
        assert!(_FortranAPointerIsAssociatedWith(p.ptr(), section(0, 6, 8).ptr()));
        let mut other_bounds = section(0, 6, 8);
        other_bounds.set_dim(0, Dim { lower_bound: -4, ..other_bounds.dim(0) });
        assert!(_FortranAPointerIsAssociatedWith(p.ptr(), other_bounds.ptr()), "bounds do not matter");
        assert!(!_FortranAPointerIsAssociatedWith(p.ptr(), section(0, 12, 4).ptr()), "another shape");
        assert!(!_FortranAPointerIsAssociatedWith(p.ptr(), section(0, 6, 4).ptr()), "other strides");
        assert!(!_FortranAPointerIsAssociatedWith(p.ptr(), section(1, 6, 8).ptr()), "another address");
        assert!(!_FortranAPointerIsAssociatedWith(section(0, 0, 8).ptr(), section(0, 0, 8).ptr()), "zero-sized targets");
        assert!(_FortranAPointerIsAssociatedWith(p.ptr(), NULL));
        let mut none = section(0, 6, 8);
        none.set_base(std::ptr::null_mut());
        assert!(!_FortranAPointerIsAssociatedWith(none.ptr(), NULL));
    });
}

#[test]
fn initialize_finalize_and_assignment_to_temporaries() {
    let t = bag();
    let mut id = Comp::data(TypeCategory::Integer, 4, 0);
    id.init = Some(7i32.to_ne_bytes().to_vec());
    let tracked = TypeDesc::new(4, vec![id], vec![(special_binding::SCALAR_FINAL + 1, finish_by_descriptor_first as *const c_void, true)]);
    let other = TypeDesc::new(8, vec![Comp::data(TypeCategory::Integer, 8, 0)], vec![]);
    let (tp, kp, op) = (t.ptr() as usize, tracked.ptr() as usize, other.ptr() as usize);
    on_device(move || unsafe {
        let (tp, kp, op) = (tp as *const DerivedType, kp as *const DerivedType, op as *const DerivedType);
        let blocks = live_blocks();
        // Initialize: storage of garbage becomes two default bags.
        let storage = Buf::of(&[0xa5a5_a5a5_a5a5_a5a5u64; 14]);
        let mut d = Desc::empty();
        d.establish(storage.ptr(), 56, type_code::STRUCT, attribute::OTHER, &contiguous(&[2], &[1], 56), Some(tp));
        _FortranAInitialize(d.ptr(), file(), 1);
        assert!(bag_values(storage.ptr()).0.is_null() && bag_values(storage.ptr().add(56)).0.is_null());
        // AssignTemporary into the initialized storage: a deep copy.
        let from = Desc::allocatable_derived(tp, 0);
        _FortranAAllocatableAllocate(from.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL);
        fill_bag(from.base(), 4, &[1.0, 2.0]);
        let temp = Desc::allocatable_derived(tp, 0);
        _FortranAAssignTemporary(temp.ptr(), from.ptr(), file(), 1);
        assert_eq!(bag_values(temp.base()).1, [1.0, 2.0]);
        assert_ne!(bag_values(temp.base()).0, bag_values(from.base()).0);
        _FortranAAllocatableDeallocate(temp.ptr(), false, NULL, file(), 1);
        _FortranAAllocatableDeallocate(from.ptr(), false, NULL, file(), 1);
        assert_eq!(live_blocks(), blocks);
        // Finalize: the rank-1 final subroutine, storage kept.
        let k = Desc::allocatable_derived(kp, 1);
        _FortranAAllocatableSetBounds(k.ptr(), 0, 1, 3);
        _FortranAAllocatableAllocate(k.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL);
        FIRST_FINALIZED.store(0, Ordering::SeqCst);
        _FortranAFinalize(k.ptr(), file(), 1);
        assert_eq!(FIRST_FINALIZED.load(Ordering::SeqCst), 7 * 3, "one call with the whole array");
        assert!(!k.base().is_null());
        _FortranAAllocatableDeallocate(k.ptr(), false, NULL, file(), 1);
        // AssignPolymorphic: the left-hand side takes the right's dynamic type.
        let poly = Desc::allocatable_derived(tp, 0);
        _FortranAAllocatableAllocate(poly.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL);
        let value = Buf::of(&[42i64]);
        let mut v = Desc::empty();
        v.establish(value.ptr(), 8, type_code::STRUCT, attribute::OTHER, &[], Some(op));
        _FortranAAssignPolymorphic(poly.ptr(), v.ptr(), file(), 1);
        assert_eq!((poly.derived_type(), poly.header().elem_len, poly.read::<i64>()), (op, 8, vec![42]));
        _FortranAAllocatableDeallocate(poly.ptr(), false, NULL, file(), 1);
        assert_eq!(live_blocks(), blocks);
    });
}

static FIRST_FINALIZED: AtomicUsize = AtomicUsize::new(0);

/// A rank-1 final subroutine taking a descriptor: adds up the ids.
extern "C-unwind" fn finish_by_descriptor_first(d: *mut u8) {
    unsafe {
        let base = *(d as *const *const i32);
        let extent = *(d.add(32) as *const i64);
        for i in 0..extent as usize {
            FIRST_FINALIZED.fetch_add(*base.add(i) as usize, Ordering::SeqCst);
        }
    }
}

/// `type inner; real(8), allocatable :: v(:); end type` (48 bytes) and
/// `type outer; type(inner) :: pair(2); type(inner), allocatable :: list(:);
/// end type` (96 + 64 bytes): allocatable components nested in data and in
/// allocatable components, walked through the work list.
#[test]
fn nested_components_are_copied_and_freed_at_every_depth() {
    let inner = TypeDesc::new(48, vec![Comp::allocatable(TypeCategory::Real, 8, 1, 0)], vec![]);
    let mut pair = Comp::data(TypeCategory::Derived, 0, 0);
    pair.derived = Some(inner.ptr());
    pair.rank = 1;
    pair.bounds = vec![(1, 2)];
    let mut list = Comp::allocatable(TypeCategory::Derived, 0, 1, 96);
    list.derived = Some(inner.ptr());
    let outer = TypeDesc::new(160, vec![pair, list], vec![]);
    let (ip, op) = (inner.ptr() as usize, outer.ptr() as usize);
    on_device(move || unsafe {
        let (ip, op) = (ip as *const DerivedType, op as *const DerivedType);
        let blocks = live_blocks();
        let fill = |v: *mut c_void, values: &[f64]| {
            _FortranAAllocatableSetBounds(v, 0, 1, values.len() as i64);
            _FortranAAllocatableAllocate(v, std::ptr::null_mut(), false, NULL, file(), 1, NULL);
            std::ptr::copy_nonoverlapping(values.as_ptr(), *(v as *const *mut f64), values.len());
        };
        let values = |v: *const u8| -> Vec<f64> {
            let base = *(v as *const *const f64);
            if base.is_null() { vec![] } else { std::slice::from_raw_parts(base, *(v.add(32) as *const i64) as usize).to_vec() }
        };
        let a = Desc::allocatable_derived(op, 0);
        _FortranAAllocatableAllocate(a.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL);
        fill(a.base() as *mut c_void, &[1.0]);
        fill(a.base().add(48) as *mut c_void, &[2.0, 3.0]);
        let list = a.base().add(96) as *mut c_void;
        _FortranAAllocatableSetBounds(list, 0, 1, 3);
        _FortranAAllocatableAllocate(list, std::ptr::null_mut(), false, NULL, file(), 1, NULL);
        let items = *(list as *const *mut u8);
        assert!(values(items).is_empty(), "the list's elements are initialized");
        for i in 0..3 {
            fill(items.add(48 * i) as *mut c_void, &vec![10.0 + i as f64; i + 1]);
        }
        assert_eq!(live_blocks(), blocks + 7);
        let b = Desc::allocatable_derived(op, 0);
        _FortranAAssign(b.ptr(), a.ptr(), file(), 1);
        assert_eq!(live_blocks(), blocks + 14, "every block copied");
        let b_items = *(b.base().add(96) as *const *const u8);
        assert_ne!(b_items, items as *const u8);
        assert_eq!(values(b.base()), [1.0]);
        assert_eq!(values(b.base().add(48)), [2.0, 3.0]);
        assert_eq!((0..3).map(|i| values(b_items.add(48 * i))).collect::<Vec<_>>(), [vec![10.0], vec![11.0, 11.0], vec![12.0; 3]]);
        // Assigning again frees the old copies first.
        _FortranAAssign(b.ptr(), a.ptr(), file(), 1);
        assert_eq!(live_blocks(), blocks + 14);
        _FortranAAllocatableDeallocate(b.ptr(), false, NULL, file(), 1);
        _FortranAAllocatableDeallocate(a.ptr(), false, NULL, file(), 1);
        assert_eq!(live_blocks(), blocks, "nothing leaked at any depth");
        let _ = ip;
    });
}

/// A disassociated POINTER of `rank` (no derived type, or `t`).
fn pointer(elem_len: usize, code: i8, rank: usize, t: Option<*const DerivedType>) -> Desc {
    let mut d = Desc::empty();
    d.establish(std::ptr::null_mut(), elem_len, code, attribute::POINTER, &vec![Dim { lower_bound: 1, extent: 0, byte_stride: 0 }; rank], t);
    d
}

/// ALLOCATE and DEALLOCATE of pointers: the bounds set, default
/// initialization, and DEALLOCATE only of the whole of what ALLOCATE gave.
#[test]
fn pointers_allocate_and_deallocate_what_they_allocated() {
    let t = bag();
    let tp = t.ptr() as usize;
    on_device(move || unsafe {
        let tp = tp as *const DerivedType;
        let blocks = live_blocks();
        // real(8), pointer :: p(:,:); allocate(p(-1:1, 2:3))
        let mut p = pointer(8, type_code::DOUBLE, 2, None);
        _FortranAPointerSetBounds(p.ptr(), 0, -1, 1);
        _FortranAPointerSetBounds(p.ptr(), 1, 2, 3);
        assert_eq!(_FortranAPointerAllocate(p.ptr(), false, NULL, file(), 1, NULL), 0);
        assert_eq!(p.dims(), contiguous(&[3, 2], &[-1, 2], 8));
        assert_eq!(live_blocks(), blocks + 1);
        // A pointer to a section of it, or to storage of the program's, is
        // no allocation of its own.
        let whole = p.header().base_addr;
        let (_m, errmsg) = characters(&["?"], 20, &[]);
        p.set_dim(1, Dim { extent: 1, ..p.dim(1) });
        assert_eq!(_FortranAPointerDeallocate(p.ptr(), true, errmsg.ptr(), file(), 1), 110);
        assert_eq!(errmsg.read_bytes(), [b"DEALLOCATE of a poin".to_vec()]);
        let local = Buf::of(&[0u64; 8]);
        p.set_base(local.ptr());
        assert_eq!(_FortranAPointerDeallocate(p.ptr(), true, NULL, file(), 1), 110);
        p.set_base(whole.cast());
        p.set_dim(1, Dim { extent: 2, ..p.dim(1) });
        assert_eq!(_FortranAPointerDeallocate(p.ptr(), true, NULL, file(), 1), 0);
        assert!(p.base().is_null());
        assert_eq!(live_blocks(), blocks);
        assert_eq!(_FortranAPointerDeallocate(p.ptr(), true, NULL, file(), 1), stat::BASE_ADDR_NULL);
        // An allocatable is no pointer.
        let a = Desc::allocatable(4, type_code::INT32, 0);
        assert_eq!(_FortranAPointerAllocate(a.ptr(), true, NULL, file(), 1, NULL), 18);
        // A character of odd length: the footer still found.
        let c = pointer(3, type_code::CHAR, 1, None);
        _FortranAPointerSetBounds(c.ptr(), 0, 1, 3);
        assert_eq!(_FortranAPointerAllocate(c.ptr(), false, NULL, file(), 1, NULL), 0);
        assert_eq!(_FortranAPointerDeallocate(c.ptr(), false, NULL, file(), 1), 0);
        // type(bag), pointer :: b(:); allocate(b(2)): default-initialized,
        // its components freed by DEALLOCATE.
        let b = pointer(56, type_code::STRUCT, 1, Some(tp));
        _FortranAPointerSetBounds(b.ptr(), 0, 1, 2);
        assert_eq!(_FortranAPointerAllocate(b.ptr(), false, NULL, file(), 1, NULL), 0);
        assert!(bag_values(b.base()).0.is_null(), "the allocatable component starts unallocated");
        fill_bag(b.base().add(56), 2, &[1.0, 2.0]);
        assert_eq!(live_blocks(), blocks + 2);
        assert_eq!(_FortranAPointerDeallocate(b.ptr(), false, NULL, file(), 1), 0);
        assert_eq!(live_blocks(), blocks);
    });
    let m = trap_message(|| {
        on_device(|| unsafe {
            let (_a, x) = array(&[1i32, 2], &[2]);
            let mut p = pointer(4, type_code::INT32, 1, None);
            p.set_base(x.base());
            p.set_dim(0, x.dim(0));
            _FortranAPointerDeallocate(p.ptr(), false, NULL, file(), 5);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:5): DEALLOCATE of a pointer that is not the whole content of a pointer ALLOCATE (STAT=110)");
}

/// ALLOCATE(..., SOURCE=): a scalar source in every element, an array
/// source element by element, a derived one deep-copied.
#[test]
fn allocate_with_source_copies_the_source() {
    let t = bag();
    let tp = t.ptr() as usize;
    on_device(move || unsafe {
        let tp = tp as *const DerivedType;
        let blocks = live_blocks();
        let a = Desc::allocatable(4, type_code::INT32, 1);
        _FortranAAllocatableSetBounds(a.ptr(), 0, 0, 2);
        let (_s, seven) = scalar(7i32);
        assert_eq!(_FortranAAllocatableAllocateSource(a.ptr(), seven.ptr(), false, NULL, file(), 1), 0);
        assert_eq!((a.lower_bounds(), a.read::<i32>()), (vec![0], vec![7, 7, 7]));
        let p = pointer(4, type_code::INT32, 1, None);
        _FortranAPointerSetBounds(p.ptr(), 0, 1, 3);
        let (_v, v) = array(&[4i32, 5, 6], &[3]);
        assert_eq!(_FortranAPointerAllocateSource(p.ptr(), v.ptr(), false, NULL, file(), 1), 0);
        assert_eq!(p.read::<i32>(), [4, 5, 6]);
        assert_eq!(_FortranAPointerDeallocate(p.ptr(), false, NULL, file(), 1), 0, "an allocation of its own");
        _FortranAAllocatableDeallocate(a.ptr(), false, NULL, file(), 1);
        // type(bag), allocatable :: d(:); allocate(d(2), source=bag(9, [1, 2]))
        let src = Buf::new(56);
        let mut s = Desc::empty();
        s.establish(src.ptr(), 56, type_code::STRUCT, attribute::OTHER, &[], Some(tp));
        _FortranAInitialize(s.ptr(), file(), 1);
        fill_bag(src.ptr(), 9, &[1.0, 2.0]);
        let d = Desc::allocatable_derived(tp, 1);
        _FortranAAllocatableSetBounds(d.ptr(), 0, 1, 2);
        assert_eq!(_FortranAAllocatableAllocateSource(d.ptr(), s.ptr(), false, NULL, file(), 1), 0);
        for i in 0..2 {
            let at = d.base().add(56 * i);
            assert_eq!((*(at as *const i32), bag_values(at).1), (9, vec![1.0, 2.0]));
            assert_ne!(bag_values(at).0, bag_values(src.ptr()).0, "storage of its own");
        }
        _FortranAAllocatableDeallocate(d.ptr(), false, NULL, file(), 1);
        _FortranADestroy(s.ptr());
        assert_eq!(live_blocks(), blocks);
    });
}

/// EOSHIFT of a derived type deep-copies BOUNDARY=, and needs it; of a
/// CHARACTER without it, blanks come in.
#[test]
fn eoshift_boundaries_of_derived_and_character_arrays() {
    let t = bag();
    let tp = t.ptr() as usize;
    on_device(move || unsafe {
        let tp = tp as *const DerivedType;
        let blocks = live_blocks();
        let x = Desc::allocatable_derived(tp, 1);
        _FortranAAllocatableSetBounds(x.ptr(), 0, 1, 2);
        _FortranAAllocatableAllocate(x.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL);
        fill_bag(x.base(), 1, &[1.0]);
        fill_bag(x.base().add(56), 2, &[2.0, 3.0]);
        let src = Buf::new(56);
        let mut b = Desc::empty();
        b.establish(src.ptr(), 56, type_code::STRUCT, attribute::OTHER, &[], Some(tp));
        _FortranAInitialize(b.ptr(), file(), 1);
        fill_bag(src.ptr(), 5, &[5.0]);
        let r = Desc::empty();
        _FortranAEoshiftVector(r.ptr(), x.ptr(), -1, b.ptr(), file(), 1);
        let at = |i: usize| r.base().add(56 * i);
        assert_eq!((*(at(0) as *const i32), bag_values(at(0)).1), (5, vec![5.0]));
        assert_eq!((*(at(1) as *const i32), bag_values(at(1)).1), (1, vec![1.0]));
        assert_ne!(bag_values(at(0)).0, bag_values(src.ptr()).0, "storage of its own");
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
        _FortranAAllocatableDeallocate(x.ptr(), false, NULL, file(), 1);
        _FortranADestroy(b.ptr());
        assert_eq!(live_blocks(), blocks);
        let (_c, c) = characters(&["ab", "cd", "ef"], 2, &[3]);
        _FortranAEoshiftVector(r.ptr(), c.ptr(), 2, NULL, file(), 1);
        assert_eq!(r.read_bytes(), [b"ef".to_vec(), b"  ".to_vec(), b"  ".to_vec()]);
        _FortranAAllocatableDeallocate(r.ptr(), false, NULL, file(), 1);
    });
    let m = trap_message(move || {
        on_device(move || unsafe {
            let tp = tp as *const DerivedType;
            let x = Desc::allocatable_derived(tp, 1);
            _FortranAAllocatableSetBounds(x.ptr(), 0, 1, 0);
            _FortranAAllocatableAllocate(x.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL);
            _FortranAEoshiftVector(Desc::empty().ptr(), x.ptr(), 1, NULL, file(), 6);
        })
    });
    assert_eq!(m, "fatal Fortran runtime error(file.f90:6): EOSHIFT: BOUNDARY= is required for ARRAY= of a derived type");
}

/// `type :: base; integer :: id; end type` and `type, extends(base) ::
/// child; real(8) :: v; end type`, and `type, extends(child) :: grandchild`.
fn family() -> (TypeDesc, TypeDesc, TypeDesc) {
    let base = TypeDesc::new(4, vec![Comp::data(TypeCategory::Integer, 4, 0)], vec![]);
    let extend = |parent: &TypeDesc, size: u64, more: Vec<Comp>| {
        let mut components = vec![Comp { derived: Some(parent.ptr()), ..Comp::data(TypeCategory::Derived, 0, 0) }];
        components.extend(more);
        let mut t = TypeDesc::new(size, components, vec![]);
        t.t.has_parent = 1;
        t
    };
    let child = extend(&base, 16, vec![Comp::data(TypeCategory::Real, 8, 8)]);
    let grandchild = extend(&child, 16, vec![]);
    (base, child, grandchild)
}

/// A scalar of derived type `t` over `storage`.
fn instance(storage: &Buf, t: *const DerivedType) -> Desc {
    let mut d = Desc::empty();
    let size = unsafe { (*t).size_in_bytes as usize };
    d.establish(storage.ptr(), size, type_code::STRUCT, attribute::OTHER, &[], Some(t));
    d
}

/// `class(base), allocatable :: b; allocate(child :: b)`, `allocate(b,
/// mold=...)` and `deallocate(b)`: the dynamic type comes from the type
/// spec or the mold, and goes back to the declared type.
#[test]
fn polymorphic_allocation_takes_and_drops_the_dynamic_type() {
    let (base, child, _) = family();
    let (bp, cp) = (base.ptr() as usize, child.ptr() as usize);
    on_device(move || unsafe {
        let (bp, cp) = (bp as *const DerivedType, cp as *const DerivedType);
        let blocks = live_blocks();
        let b = Desc::allocatable_derived(bp, 0);
        _FortranAAllocatableInitDerivedForAllocate(b.ptr(), cp.cast(), 0, 0);
        assert_eq!((b.derived_type(), b.header().elem_len, b.header().attribute), (cp, 16, attribute::ALLOCATABLE));
        assert_eq!(_FortranAAllocatableAllocate(b.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL), 0);
        assert_eq!(live_blocks(), blocks + 1);
        // An allocated one keeps its type.
        _FortranAAllocatableInitDerivedForAllocate(b.ptr(), bp.cast(), 0, 0);
        assert_eq!(b.derived_type(), cp);
        assert_eq!(_FortranAAllocatableDeallocatePolymorphic(b.ptr(), bp.cast(), false, NULL, file(), 1), 0);
        assert_eq!((b.base(), b.derived_type(), b.header().elem_len), (std::ptr::null_mut(), bp, 4), "the declared type again");
        assert_eq!(live_blocks(), blocks);
        // class(base), allocatable :: v(:); allocate(v, mold=m) with m a
        // child(2:4): its type and bounds.
        let storage = Buf::new(48);
        let mut m = Desc::empty();
        m.establish(storage.ptr(), 16, type_code::STRUCT, attribute::OTHER, &contiguous(&[3], &[2], 16), Some(cp));
        let v = Desc::allocatable_derived(bp, 1);
        _FortranAAllocatableApplyMold(v.ptr(), m.ptr(), 1);
        assert_eq!((v.derived_type(), v.header().elem_len, v.lower_bounds(), v.extents()), (cp, 16, vec![2], vec![3]));
        assert_eq!(_FortranAAllocatableAllocate(v.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL), 0);
        // Allocated: left for ALLOCATE to report.
        let other = Desc::allocatable_derived(bp, 1);
        _FortranAAllocatableApplyMold(v.ptr(), other.ptr(), 1);
        assert_eq!(v.derived_type(), cp);
        assert_eq!(_FortranAAllocatableDeallocatePolymorphic(v.ptr(), bp.cast(), false, NULL, file(), 1), 0);
        // class(*), allocatable :: u; allocate(u, mold=1_8); deallocate(u):
        // no dynamic type again.
        let mut u = Desc::empty();
        u.establish(std::ptr::null_mut(), 0, type_code::OTHER, attribute::ALLOCATABLE, &[], Some(std::ptr::null()));
        let (_e, eight) = scalar(8i64);
        _FortranAAllocatableApplyMold(u.ptr(), eight.ptr(), 0);
        assert_eq!((u.header().type_code, u.header().elem_len), (type_code::INT64, 8));
        assert_eq!(_FortranAAllocatableAllocate(u.ptr(), std::ptr::null_mut(), false, NULL, file(), 1, NULL), 0);
        assert_eq!(_FortranAAllocatableDeallocatePolymorphic(u.ptr(), NULL, false, NULL, file(), 1), 0);
        assert_eq!((u.header().type_code, u.derived_type()), (type_code::OTHER, std::ptr::null()));
        assert_eq!(_FortranAAllocatableDeallocatePolymorphic(u.ptr(), NULL, true, NULL, file(), 1), stat::BASE_ADDR_NULL);
        // class(base), pointer :: p; allocate(p, mold=c); deallocate(p).
        let p = pointer(4, type_code::STRUCT, 0, Some(bp));
        let c = Buf::new(16);
        _FortranAPointerApplyMold(p.ptr(), instance(&c, cp).ptr(), 0);
        assert_eq!((p.derived_type(), p.header().elem_len), (cp, 16));
        assert_eq!(_FortranAPointerAllocate(p.ptr(), false, NULL, file(), 1, NULL), 0);
        assert_eq!(_FortranAPointerDeallocatePolymorphic(p.ptr(), bp.cast(), false, NULL, file(), 1), 0);
        assert_eq!((p.base(), p.derived_type()), (std::ptr::null_mut(), bp));
        _FortranAPointerNullifyDerived(p.ptr(), cp.cast(), 0, 0);
        assert_eq!((p.derived_type(), p.header().attribute, p.header().elem_len), (cp, attribute::POINTER, 16));
        assert_eq!(live_blocks(), blocks);
    });
}

/// `CLASS IS`, `SAME_TYPE_AS` and `EXTENDS_TYPE_OF` on the dynamic types,
/// and on unallocated unlimited polymorphic objects.
#[test]
fn type_inquiries_follow_the_parent_chain() {
    let (base, child, grandchild) = family();
    let (bp, cp, gp) = (base.ptr() as usize, child.ptr() as usize, grandchild.ptr() as usize);
    on_device(move || unsafe {
        let (bp, cp, gp) = (bp as *const DerivedType, cp as *const DerivedType, gp as *const DerivedType);
        let storage = Buf::new(16);
        let (b, c, g) = (instance(&storage, bp), instance(&storage, cp), instance(&storage, gp));
        assert!(_FortranAClassIs(g.ptr(), cp.cast()) && _FortranAClassIs(g.ptr(), bp.cast()) && _FortranAClassIs(c.ptr(), cp.cast()));
        assert!(!_FortranAClassIs(b.ptr(), cp.cast()) && !_FortranAClassIs(c.ptr(), gp.cast()));
        assert!(_FortranAExtendsTypeOf(g.ptr(), b.ptr()) && _FortranAExtendsTypeOf(c.ptr(), c.ptr()));
        assert!(!_FortranAExtendsTypeOf(b.ptr(), c.ptr()) && !_FortranAExtendsTypeOf(c.ptr(), g.ptr()));
        assert!(_FortranASameTypeAs(c.ptr(), c.ptr()) && !_FortranASameTypeAs(c.ptr(), g.ptr()) && !_FortranASameTypeAs(g.ptr(), c.ptr()));
        // class(*), allocatable :: u (unallocated): every A extends it, it
        // extends nothing, and has the type of nothing.
        let mut u = Desc::empty();
        u.establish(std::ptr::null_mut(), 0, type_code::OTHER, attribute::ALLOCATABLE, &[], Some(std::ptr::null()));
        assert!(_FortranAExtendsTypeOf(b.ptr(), u.ptr()) && _FortranAExtendsTypeOf(u.ptr(), u.ptr()));
        assert!(!_FortranAExtendsTypeOf(u.ptr(), b.ptr()));
        assert!(!_FortranASameTypeAs(u.ptr(), u.ptr()) && !_FortranASameTypeAs(u.ptr(), b.ptr()));
        // class(child), allocatable (unallocated): its declared type.
        let a = Desc::allocatable_derived(cp, 0);
        assert!(_FortranAExtendsTypeOf(a.ptr(), b.ptr()) && !_FortranAExtendsTypeOf(b.ptr(), a.ptr()));
        // Intrinsic types: the same type code.
        let (_i, i4) = scalar(1i32);
        let (_j, i8) = scalar(1i64);
        let (_k, other_i4) = array(&[1i32, 2], &[2]);
        assert!(_FortranASameTypeAs(i4.ptr(), other_i4.ptr()) && !_FortranASameTypeAs(i4.ptr(), i8.ptr()));
        assert!(!_FortranASameTypeAs(i4.ptr(), c.ptr()) && !_FortranAExtendsTypeOf(i4.ptr(), c.ptr()));
        assert!(_FortranAExtendsTypeOf(i4.ptr(), other_i4.ptr()) && !_FortranAExtendsTypeOf(i8.ptr(), i4.ptr()));
    });
}

/// `TRANSFER`: a scalar result, a vector long enough for all of SOURCE's
/// bytes, one of SIZE= elements (zero past the end of SOURCE), from a
/// strided section.
#[test]
fn transfer_reinterprets_the_bytes_of_source() {
    on_device(|| unsafe {
        let blocks = live_blocks();
        let (_s, r) = array(&[1.0f64, 2.0, 3.0, 4.0], &[4]);
        let (_m, bits) = scalar(0i64);
        let result = Desc::empty();
        _FortranATransfer(result.ptr(), r.ptr(), bits.ptr(), file(), 1);
        assert_eq!((result.header().rank, result.header().type_code), (0, type_code::INT64));
        assert_eq!(result.read::<i64>(), [1.0f64.to_bits() as i64]);
        _FortranAAllocatableDeallocate(result.ptr(), false, NULL, file(), 1);
        // transfer(r, [0_4]): 8 elements.
        let (_v, ints) = array(&[0i32], &[1]);
        _FortranATransfer(result.ptr(), r.ptr(), ints.ptr(), file(), 1);
        assert_eq!(result.extents(), [8]);
        let words: Vec<i32> = [1.0f64, 2.0, 3.0, 4.0].iter().flat_map(|x| [x.to_bits() as i32, (x.to_bits() >> 32) as i32]).collect();
        assert_eq!(result.read::<i32>(), words);
        _FortranAAllocatableDeallocate(result.ptr(), false, NULL, file(), 1);
        // transfer(r(1:4:3), 0d0, 3): r(1) and r(4), then zero.
        let mut every_third = Desc::empty();
        every_third.establish(r.base(), 8, type_code::DOUBLE, attribute::OTHER, &[Dim { lower_bound: 1, extent: 2, byte_stride: 24 }], None);
        let (_d, double) = scalar(0.0f64);
        _FortranATransferSize(result.ptr(), every_third.ptr(), double.ptr(), file(), 1, 3);
        assert_eq!(result.read::<f64>(), [1.0, 4.0, 0.0]);
        _FortranAAllocatableDeallocate(result.ptr(), false, NULL, file(), 1);
        // transfer([1, 2, 3], [0_8]): the last element half SOURCE, half zero.
        let (_t, three) = array(&[1i32, 2, 3], &[3]);
        let (_w, longs) = array(&[0i64], &[1]);
        _FortranATransfer(result.ptr(), three.ptr(), longs.ptr(), file(), 1);
        assert_eq!(result.read::<i64>(), [1 | 2 << 32, 3]);
        _FortranAAllocatableDeallocate(result.ptr(), false, NULL, file(), 1);
        // Of a zero-sized SOURCE: an empty vector.
        let mut none = Desc::empty();
        none.establish(r.base(), 8, type_code::DOUBLE, attribute::OTHER, &[Dim { lower_bound: 1, extent: 0, byte_stride: 8 }], None);
        _FortranATransfer(result.ptr(), none.ptr(), ints.ptr(), file(), 1);
        assert_eq!(result.extents(), [0]);
        _FortranAAllocatableDeallocate(result.ptr(), false, NULL, file(), 1);
        assert_eq!(live_blocks(), blocks);
    });
}
