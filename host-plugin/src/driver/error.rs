//! Errors of the CUDA driver layer: the CUDA error name (`CUDA_ERROR_*`) and
//! what omprt was attempting, plus the two "no GPU here" cases the CLI maps
//! to exit code 3.

use cudarc::driver::sys::CUresult;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DriverError {
    /// No `libcuda.so` could be loaded: no NVIDIA driver is installed.
    NotInstalled,
    /// The driver loaded but reports no usable GPU.
    NoDevice { detail: String },
    /// A driver call failed.
    Call { what: String, name: String, code: u32 },
    /// omprt refused to make a call (bad sizes, argument count mismatch...).
    Usage { what: String, detail: String },
}

impl DriverError {
    /// Wraps a failed driver call made while doing `what`.
    pub(crate) fn call(what: impl Into<String>, err: cudarc::driver::DriverError) -> DriverError {
        let code = err.0;
        if matches!(code, CUresult::CUDA_ERROR_NO_DEVICE) {
            return DriverError::NoDevice { detail: format!("{} while {}", name_of(code), what.into()) };
        }
        // The enum's variant names are the C names, so no FFI call is needed.
        DriverError::Call { what: what.into(), name: name_of(code), code: code as u32 }
    }

    /// Whether this means "no GPU here" (the CLI's exit code 3) rather than a failure.
    pub fn is_no_gpu(&self) -> bool {
        matches!(self, DriverError::NotInstalled | DriverError::NoDevice { .. })
    }
}

fn name_of(code: CUresult) -> String {
    format!("{code:?}")
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DriverError::NotInstalled => write!(
                f,
                "no CUDA driver: libcuda.so could not be loaded (install the NVIDIA driver, or run on a machine with a GPU)"
            ),
            DriverError::NoDevice { detail } => write!(f, "no CUDA GPU available ({detail})"),
            DriverError::Call { what, name, code } => write!(f, "{what}: {name} ({code})"),
            DriverError::Usage { what, detail } => write!(f, "{what}: {detail}"),
        }
    }
}

impl std::error::Error for DriverError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_cuda_error_and_the_attempt() {
        let e = DriverError::call("loading module", cudarc::driver::DriverError(CUresult::CUDA_ERROR_INVALID_IMAGE));
        assert_eq!(e.to_string(), "loading module: CUDA_ERROR_INVALID_IMAGE (200)");
        assert!(!e.is_no_gpu());
        let none = DriverError::call("cuInit", cudarc::driver::DriverError(CUresult::CUDA_ERROR_NO_DEVICE));
        assert!(none.is_no_gpu(), "{none:?}");
        assert!(DriverError::NotInstalled.to_string().contains("libcuda"));
    }
}
