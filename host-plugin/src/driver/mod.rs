//! The CUDA driver API, loaded at run time.
//!
//! Layering: cudarc provides `sys` (raw entry points, opened
//! lazily with libloading) and `result` (one `Result` per call); this module
//! is the owning layer: [`Driver`] (initialised library), [`Context`]
//! (retained primary context), [`Module`], [`Function`], [`DeviceBuffer`]
//! and [`Event`], each releasing what it holds in `Drop`. `Drop` cannot
//! return errors, so failures there are recorded in the context and surfaced
//! by the next [`Context::check`]. The rest of the crate never calls `sys`.
//!
//! Loading is dynamic so that the crate builds, and `omprt info` runs, on
//! machines without a driver; a missing library is [`DriverError::NotInstalled`]
//! instead of cudarc's panic, because we look before cudarc opens it.
//!
//! cudarc is built for the CUDA 12.2 API (`cuda-12020`): every entry point
//! used here exists under the same symbol name in all drivers since 12.0,
//! including CUDA 13 ones. Contexts are current per thread, so the handles
//! here are neither `Send` nor `Sync`.

mod error;

pub use error::DriverError;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdevice_attribute as Attr};
use std::cell::RefCell;
use std::ffi::{c_void, CString};
use std::marker::PhantomData;

/// The initialised driver library.
pub struct Driver {
    _not_send: PhantomData<*const ()>,
}

/// What `omprt devices` shows, and what launch geometry needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (i32, i32),
    pub sm_count: i32,
    pub total_memory: usize,
    pub max_threads_per_block: i32,
    pub max_grid_x: i32,
    pub warp_size: i32,
    pub shared_memory_per_block: i32,
}

impl DeviceInfo {
    /// The `--offload-arch` that matches this device, e.g. `sm_90`.
    pub fn arch(&self) -> String {
        format!("sm_{}{}", self.compute_capability.0, self.compute_capability.1)
    }
}

impl Driver {
    /// Loads libcuda and calls `cuInit`.
    pub fn init() -> Result<Driver, DriverError> {
        // SAFETY: only opens (dlopen) and closes the candidate library names;
        // the NVIDIA driver's initialisers have no preconditions on us.
        if !unsafe { sys::is_culib_present() } {
            return Err(DriverError::NotInstalled);
        }
        result::init().map_err(|e| DriverError::call("initialising the CUDA driver (cuInit)", e))?;
        Ok(Driver { _not_send: PhantomData })
    }

    /// The CUDA version the driver supports, e.g. `(12, 8)`.
    pub fn version(&self) -> Result<(i32, i32), DriverError> {
        let mut version = 0;
        // SAFETY: `version` is a valid out-pointer; cuInit succeeded.
        unsafe { sys::cuDriverGetVersion(&mut version) }
            .result()
            .map_err(|e| DriverError::call("querying the driver version", e))?;
        Ok((version / 1000, version % 1000 / 10))
    }

    pub fn device_count(&self) -> Result<usize, DriverError> {
        let n = result::device::get_count().map_err(|e| DriverError::call("counting devices", e))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    fn handle(&self, ordinal: usize) -> Result<sys::CUdevice, DriverError> {
        let what = || format!("getting device {ordinal}");
        let ordinal = i32::try_from(ordinal)
            .map_err(|_| DriverError::Usage { what: what(), detail: "ordinal out of range".into() })?;
        result::device::get(ordinal).map_err(|e| DriverError::call(what(), e))
    }

    /// Name, compute capability and limits of device `ordinal`.
    pub fn device(&self, ordinal: usize) -> Result<DeviceInfo, DriverError> {
        let dev = self.handle(ordinal)?;
        let attr = |a: Attr, what: &str| {
            // SAFETY: `dev` came from cuDeviceGet above.
            unsafe { result::device::get_attribute(dev, a) }
                .map_err(|e| DriverError::call(format!("reading {what} of device {ordinal}"), e))
        };
        Ok(DeviceInfo {
            ordinal,
            name: result::device::get_name(dev).map_err(|e| DriverError::call(format!("naming device {ordinal}"), e))?,
            compute_capability: (
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "compute capability")?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "compute capability")?,
            ),
            sm_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "SM count")?,
            // SAFETY: as above.
            total_memory: unsafe { result::device::total_mem(dev) }
                .map_err(|e| DriverError::call(format!("reading memory size of device {ordinal}"), e))?,
            max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "max threads per block")?,
            max_grid_x: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "max grid size")?,
            warp_size: attr(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE, "warp size")?,
            shared_memory_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, "shared memory per block")?,
        })
    }

    /// Retains device `ordinal`'s primary context (what libomptarget uses
    /// too) and makes it current on this thread.
    pub fn context(&self, ordinal: usize) -> Result<Context, DriverError> {
        let device = self.handle(ordinal)?;
        // SAFETY: `device` is valid; the context is released in Drop.
        let ctx = unsafe { result::primary_ctx::retain(device) }
            .map_err(|e| DriverError::call(format!("retaining the primary context of device {ordinal}"), e))?;
        let context = Context { device, ctx, deferred: RefCell::new(None) };
        context.bind()?;
        Ok(context)
    }
}

/// A retained primary context, current on the thread that created it.
pub struct Context {
    device: sys::CUdevice,
    ctx: sys::CUcontext,
    /// The first error a `Drop` hit, reported by [`Context::check`].
    deferred: RefCell<Option<DriverError>>,
}

impl Context {
    fn record(&self, err: DriverError) {
        self.deferred.borrow_mut().get_or_insert(err);
    }

    /// Makes this context current again: another `Context` on this thread
    /// (another device) may have replaced it since.
    fn bind(&self) -> Result<(), DriverError> {
        // SAFETY: `self.ctx` stays retained as long as `self` lives.
        unsafe { result::ctx::set_current(self.ctx) }.map_err(|e| DriverError::call("making the context current", e))
    }

    /// Returns (and clears) an error recorded while releasing resources.
    pub fn check(&self) -> Result<(), DriverError> {
        self.deferred.borrow_mut().take().map_or(Ok(()), Err)
    }

    /// Waits for all work of the context.
    pub fn synchronize(&self) -> Result<(), DriverError> {
        self.bind()?;
        result::ctx::synchronize().map_err(|e| DriverError::call("waiting for the device (cuCtxSynchronize)", e))
    }

    /// Loads a device image (a cubin extracted from an executable, or PTX).
    pub fn load_module(&self, image: &[u8]) -> Result<Module<'_>, DriverError> {
        // The driver reads the image as an ELF (aligned structures) or as a
        // NUL-terminated PTX string: give it an 8-aligned copy with a NUL after.
        let mut aligned = vec![0u64; image.len() / 8 + 1];
        // SAFETY: `aligned` has at least image.len() + 1 bytes; u64 has no
        // invalid bit patterns and the regions cannot overlap.
        unsafe { std::ptr::copy_nonoverlapping(image.as_ptr(), aligned.as_mut_ptr().cast::<u8>(), image.len()) };
        self.bind()?;
        // SAFETY: the pointer is a complete image followed by a NUL; the driver
        // copies what it needs before returning.
        let module = unsafe { result::module::load_data(aligned.as_ptr().cast::<c_void>()) }
            .map_err(|e| DriverError::call("loading the device image (cuModuleLoadData)", e))?;
        Ok(Module { ctx: self, module })
    }

    /// Allocates `bytes` of device memory (at least 1 byte).
    pub fn alloc(&self, bytes: usize) -> Result<DeviceBuffer<'_>, DriverError> {
        self.bind()?;
        // SAFETY: the context is current; the allocation is freed in Drop.
        let ptr = unsafe { result::malloc_sync(bytes.max(1)) }
            .map_err(|e| DriverError::call(format!("allocating {bytes} bytes of device memory"), e))?;
        Ok(DeviceBuffer { ctx: self, ptr, len: bytes })
    }

    /// Allocates device memory holding a copy of `data`.
    pub fn upload(&self, data: &[u8]) -> Result<DeviceBuffer<'_>, DriverError> {
        let buffer = self.alloc(data.len())?;
        buffer.copy_from_host(data)?;
        Ok(buffer)
    }

    /// An event for timing work on the default stream.
    pub fn event(&self) -> Result<Event<'_>, DriverError> {
        self.bind()?;
        let event = result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
            .map_err(|e| DriverError::call("creating an event", e))?;
        Ok(Event { ctx: self, event })
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: balances the retain in `Driver::context`; nothing borrowing
        // the context outlives it.
        let _ = unsafe { result::primary_ctx::release(self.device) };
    }
}

/// A loaded module; unloaded in Drop.
pub struct Module<'c> {
    ctx: &'c Context,
    module: sys::CUmodule,
}

impl<'c> Module<'c> {
    /// Looks up a kernel by name.
    pub fn function(&self, name: &str) -> Result<Function<'_>, DriverError> {
        let what = || format!("looking up kernel {name}");
        let cname = CString::new(name).map_err(|_| DriverError::Usage { what: what(), detail: "name contains NUL".into() })?;
        // SAFETY: `self.module` is loaded and outlives the returned Function.
        let function = unsafe { result::module::get_function(self.module, cname) }.map_err(|e| DriverError::call(what(), e))?;
        Ok(Function { module: PhantomData, function, name: name.to_owned() })
    }

    pub fn context(&self) -> &'c Context {
        self.ctx
    }
}

impl Drop for Module<'_> {
    fn drop(&mut self) {
        // SAFETY: every Function borrows the module, so none is left.
        if let Err(e) = unsafe { result::module::unload(self.module) } {
            self.ctx.record(DriverError::call("unloading a module", e));
        }
    }
}

/// A kernel of a loaded module.
pub struct Function<'m> {
    module: PhantomData<&'m ()>,
    function: sys::CUfunction,
    name: String,
}

/// What the driver says about a loaded kernel (`cuFuncGetAttribute`), to
/// compare with what the image reader found in the cubin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionAttributes {
    pub registers: i32,
    pub static_shared_bytes: i32,
    /// Per-thread local memory (stack frame and spills).
    pub local_bytes: i32,
    /// The most threads a block of this kernel can have.
    pub max_threads_per_block: i32,
}

impl Function<'_> {
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn attributes(&self) -> Result<FunctionAttributes, DriverError> {
        use sys::CUfunction_attribute as A;
        let get = |a: A| {
            // SAFETY: the function handle is valid while the module is borrowed.
            unsafe { result::function::get_function_attribute(self.function, a) }
                .map_err(|e| DriverError::call(format!("reading {a:?} of {}", self.name), e))
        };
        Ok(FunctionAttributes {
            registers: get(A::CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            static_shared_bytes: get(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            local_bytes: get(A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)?,
            max_threads_per_block: get(A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        })
    }

    /// Enqueues the kernel on the default stream.
    ///
    /// # Safety
    /// `params` must hold one pointer per kernel parameter, in order, each to
    /// a value of exactly that parameter's type; any device pointers passed
    /// must stay valid until the kernel has finished.
    pub unsafe fn launch_raw(
        &self,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        params: &mut [*mut c_void],
    ) -> Result<(), DriverError> {
        // SAFETY: forwarded to the caller (see above); the function handle is
        // valid while the module is borrowed.
        unsafe {
            result::launch_kernel(
                self.function,
                (grid[0], grid[1], grid[2]),
                (block[0], block[1], block[2]),
                shared_bytes,
                result::stream::null(),
                params,
            )
        }
        .map_err(|e| DriverError::call(format!("launching {} with grid {grid:?} block {block:?}", self.name), e))
    }
}

/// Device memory; freed in Drop.
pub struct DeviceBuffer<'c> {
    ctx: &'c Context,
    ptr: sys::CUdeviceptr,
    len: usize,
}

impl DeviceBuffer<'_> {
    /// The device address, as a kernel argument.
    pub fn device_ptr(&self) -> u64 {
        self.ptr
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn check_len(&self, n: usize, what: &str) -> Result<(), DriverError> {
        if n > self.len {
            return Err(DriverError::Usage { what: what.into(), detail: format!("{n} bytes do not fit a buffer of {}", self.len) });
        }
        Ok(())
    }

    pub fn copy_from_host(&self, data: &[u8]) -> Result<(), DriverError> {
        self.check_len(data.len(), "copying to the device")?;
        // SAFETY: the destination holds at least data.len() bytes (checked).
        unsafe { result::memcpy_htod_sync(self.ptr, data) }
            .map_err(|e| DriverError::call(format!("copying {} bytes to the device", data.len()), e))
    }

    pub fn copy_to_host(&self, out: &mut [u8]) -> Result<(), DriverError> {
        self.check_len(out.len(), "copying from the device")?;
        // SAFETY: the source holds at least out.len() bytes (checked).
        unsafe { result::memcpy_dtoh_sync(out, self.ptr) }
            .map_err(|e| DriverError::call(format!("copying {} bytes from the device", out.len()), e))
    }

    pub fn zero(&self) -> Result<(), DriverError> {
        // SAFETY: writes exactly the allocation.
        unsafe { result::memset_d8_sync(self.ptr, 0, self.len) }.map_err(|e| DriverError::call("zeroing device memory", e))
    }
}

impl Drop for DeviceBuffer<'_> {
    fn drop(&mut self) {
        // SAFETY: allocated by `Context::alloc`, freed once. Callers that
        // launched kernels using it synchronised first (see `launch`).
        if let Err(e) = unsafe { result::free_sync(self.ptr) } {
            self.ctx.record(DriverError::call("freeing device memory", e));
        }
    }
}

/// A CUDA event on the default stream.
pub struct Event<'c> {
    ctx: &'c Context,
    event: sys::CUevent,
}

impl Event<'_> {
    pub fn record(&self) -> Result<(), DriverError> {
        // SAFETY: the event is alive.
        unsafe { result::event::record(self.event, result::stream::null()) }.map_err(|e| DriverError::call("recording an event", e))
    }
    pub fn synchronize(&self) -> Result<(), DriverError> {
        // SAFETY: the event is alive.
        unsafe { result::event::synchronize(self.event) }.map_err(|e| DriverError::call("waiting for an event", e))
    }
    /// Milliseconds from `start` to `self`; both must have completed.
    pub fn elapsed_ms_since(&self, start: &Event<'_>) -> Result<f32, DriverError> {
        // SAFETY: both events are alive and were recorded on the same stream.
        unsafe { result::event::elapsed(start.event, self.event) }.map_err(|e| DriverError::call("reading elapsed time", e))
    }
}

impl Drop for Event<'_> {
    fn drop(&mut self) {
        // SAFETY: created by `Context::event`, destroyed once.
        if let Err(e) = unsafe { result::event::destroy(self.event) } {
            self.ctx.record(DriverError::call("destroying an event", e));
        }
    }
}
