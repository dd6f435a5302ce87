//! Callback types clang 22 generates for reductions
//! (docs/abi.md#parallel-reductions, #teams-reductions).

/// `void(void *reduce_data, i16 lane_id, i16 lane_offset, i16 algo_version)`.
pub type ShuffleReduceFn = unsafe extern "C" fn(*mut core::ffi::c_void, i16, i16, i16);
/// `void(void *reduce_data, i32 num_warps)`.
pub type InterWarpCopyFn = unsafe extern "C" fn(*mut core::ffi::c_void, i32);
/// `void(void *buffer, i32 idx, void *reduce_data)`.
pub type ListGlobalFn = unsafe extern "C" fn(*mut core::ffi::c_void, i32, *mut core::ffi::c_void);
