//! libnvJitLink (CUDA 12's device linker as a library), loaded at run time.
//!
//! The only `unsafe` code of this crate: `dlopen`/`dlsym` and the calls of
//! the library's C API, each checked against the result codes of
//! `nvJitLink.h`. Every handle is destroyed before this module returns.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::Path;

unsafe extern "C" {
    fn dlopen(filename: *const c_char, flag: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}

const RTLD_NOW: c_int = 2;
/// `NVJITLINK_INPUT_ANY`: the library tells cubin, PTX, fatbin and LTO-IR apart.
const INPUT_ANY: c_int = 10;

type Handle = *mut c_void;
type Create = unsafe extern "C" fn(*mut Handle, u32, *const *const c_char) -> c_int;
type Destroy = unsafe extern "C" fn(*mut Handle) -> c_int;
type AddData = unsafe extern "C" fn(Handle, c_int, *const c_void, usize, *const c_char) -> c_int;
type Complete = unsafe extern "C" fn(Handle) -> c_int;
type Size = unsafe extern "C" fn(Handle, *mut usize) -> c_int;
type Bytes = unsafe extern "C" fn(Handle, *mut c_void) -> c_int;
type Version = unsafe extern "C" fn(*mut u32, *mut u32) -> c_int;

/// The entry points of a loaded libnvJitLink.
pub struct Library {
    create: Create,
    destroy: Destroy,
    add_data: AddData,
    complete: Complete,
    cubin_size: Size,
    cubin: Bytes,
    error_log_size: Size,
    error_log: Bytes,
    version: Version,
}

/// The names `nvJitLink.h` gives its result codes.
fn result_name(code: c_int) -> &'static str {
    match code {
        1 => "UNRECOGNIZED_OPTION",
        2 => "MISSING_ARCH",
        3 => "INVALID_INPUT",
        4 => "PTX_COMPILE",
        5 => "NVVM_COMPILE",
        6 => "INTERNAL",
        7 => "THREADPOOL",
        8 => "UNRECOGNIZED_INPUT",
        9 => "FINALIZE",
        _ => "unknown error",
    }
}

impl Library {
    /// Opens the library at `path` (a file name alone searches the loader's path).
    pub fn open(path: &Path) -> Result<Library, String> {
        let name = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| format!("{} has a NUL byte", path.display()))?;
        // SAFETY: dlopen takes a NUL-terminated name; a null result is an
        // error whose text dlerror returns (a static or thread-local string).
        let lib = unsafe { dlopen(name.as_ptr(), RTLD_NOW) };
        if lib.is_null() {
            // SAFETY: as above; dlerror is read before any other dl call.
            let why = unsafe { dlerror() };
            let why = if why.is_null() { "unknown error".into() } else { unsafe { CStr::from_ptr(why) }.to_string_lossy().into_owned() };
            return Err(format!("cannot load {}: {why}", path.display()));
        }
        let symbol = |name: &str| -> Result<*mut c_void, String> {
            let c = CString::new(name).expect("symbol names have no NUL");
            // SAFETY: lib is a live handle from dlopen, never closed.
            let f = unsafe { dlsym(lib, c.as_ptr()) };
            if f.is_null() { Err(format!("{} has no {name}: not a libnvJitLink", path.display())) } else { Ok(f) }
        };
        // SAFETY: each symbol has the C type nvJitLink.h declares for it,
        // which the matching fn type spells; the library stays loaded.
        unsafe {
            Ok(Library {
                create: std::mem::transmute::<*mut c_void, Create>(symbol("nvJitLinkCreate")?),
                destroy: std::mem::transmute::<*mut c_void, Destroy>(symbol("nvJitLinkDestroy")?),
                add_data: std::mem::transmute::<*mut c_void, AddData>(symbol("nvJitLinkAddData")?),
                complete: std::mem::transmute::<*mut c_void, Complete>(symbol("nvJitLinkComplete")?),
                cubin_size: std::mem::transmute::<*mut c_void, Size>(symbol("nvJitLinkGetLinkedCubinSize")?),
                cubin: std::mem::transmute::<*mut c_void, Bytes>(symbol("nvJitLinkGetLinkedCubin")?),
                error_log_size: std::mem::transmute::<*mut c_void, Size>(symbol("nvJitLinkGetErrorLogSize")?),
                error_log: std::mem::transmute::<*mut c_void, Bytes>(symbol("nvJitLinkGetErrorLog")?),
                version: std::mem::transmute::<*mut c_void, Version>(symbol("nvJitLinkVersion")?),
            })
        }
    }

    /// The library's (major, minor) version.
    pub fn version(&self) -> Result<(u32, u32), String> {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: two valid out-pointers.
        let r = unsafe { (self.version)(&mut major, &mut minor) };
        if r == 0 { Ok((major, minor)) } else { Err(format!("nvJitLinkVersion failed: {}", result_name(r))) }
    }

    /// Links `inputs` (name, contents) with `options` (`-arch=sm_70`, ...)
    /// into an executable cubin.
    pub fn link(&self, options: &[String], inputs: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
        let options: Vec<CString> =
            options.iter().map(|o| CString::new(o.as_str()).map_err(|_| format!("option {o} has a NUL byte"))).collect::<Result<_, _>>()?;
        let pointers: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        let mut handle: Handle = std::ptr::null_mut();
        // SAFETY: pointers holds options.len() NUL-terminated strings that
        // outlive the call; handle is a valid out-pointer.
        let r = unsafe { (self.create)(&mut handle, pointers.len() as u32, pointers.as_ptr()) };
        if r != 0 {
            return Err(format!("nvJitLinkCreate({}) failed: {}", options.iter().map(|o| o.to_string_lossy()).collect::<Vec<_>>().join(" "), result_name(r)));
        }
        let linked = self.link_with(handle, inputs);
        // SAFETY: handle came from a successful create and is destroyed once.
        unsafe { (self.destroy)(&mut handle) };
        linked
    }

    fn link_with(&self, handle: Handle, inputs: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
        for (name, data) in inputs {
            let cname = CString::new(name.as_str()).map_err(|_| format!("{name} has a NUL byte"))?;
            // SAFETY: data and cname outlive the call, which copies what it keeps.
            let r = unsafe { (self.add_data)(handle, INPUT_ANY, data.as_ptr().cast(), data.len(), cname.as_ptr()) };
            if r != 0 {
                return Err(format!("{name}: {}{}", result_name(r), self.error_log(handle)));
            }
        }
        // SAFETY: a live handle.
        let r = unsafe { (self.complete)(handle) };
        if r != 0 {
            return Err(format!("the link failed: {}{}", result_name(r), self.error_log(handle)));
        }
        let mut size = 0usize;
        // SAFETY: a live, completed handle and a valid out-pointer.
        let r = unsafe { (self.cubin_size)(handle, &mut size) };
        if r != 0 {
            return Err(format!("nvJitLinkGetLinkedCubinSize failed: {}", result_name(r)));
        }
        let mut cubin = vec![0u8; size];
        // SAFETY: cubin has the size the library just reported.
        let r = unsafe { (self.cubin)(handle, cubin.as_mut_ptr().cast()) };
        if r != 0 {
            return Err(format!("nvJitLinkGetLinkedCubin failed: {}", result_name(r)));
        }
        Ok(cubin)
    }

    /// The handle's error log, as `":\n<log>"`, or nothing.
    fn error_log(&self, handle: Handle) -> String {
        let mut size = 0usize;
        // SAFETY: a live handle and a valid out-pointer.
        if unsafe { (self.error_log_size)(handle, &mut size) } != 0 || size <= 1 {
            return String::new();
        }
        let mut log = vec![0u8; size];
        // SAFETY: log has the size the library just reported, NUL included.
        if unsafe { (self.error_log)(handle, log.as_mut_ptr().cast()) } != 0 {
            return String::new();
        }
        let text = String::from_utf8_lossy(&log);
        format!(":\n{}", text.trim_end_matches('\0').trim_end())
    }
}
