//! The one error type of the image reader. Every variant names what was being
//! read, so `omprt info` on a damaged file says which field is wrong instead
//! of "parse error". Values are cheap (`&'static str` plus a few numbers) so
//! the property tests can produce millions of them.

use std::fmt;

/// Why an input file or one of its embedded device images could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageError {
    /// Neither an ELF file nor an LLVM offload binary.
    UnknownFormat,
    /// An ELF file that is neither a host executable with `.llvm.offloading`
    /// nor a 64-bit little-endian cubin.
    UnsupportedElf { what: &'static str },
    /// The `object` crate rejected an ELF structure.
    Elf { what: &'static str, source: object::Error },
    /// A host ELF without an `.llvm.offloading` section: not an offload program.
    NoOffloadSection,
    /// A read of `len` bytes at `offset` goes past the end of the enclosing data.
    OutOfBounds { what: &'static str, offset: u64, len: u64, available: u64 },
    /// An offload binary's header has the wrong magic.
    BadMagic { offset: u64 },
    /// An offload binary version this reader does not know.
    UnsupportedVersion { version: u32 },
    /// A version-3 offload binary with a compressed body (zlib/zstd).
    Compressed,
    /// A value that is present but inconsistent (sizes, counts, strings).
    Invalid { what: &'static str, detail: String },
    /// `<kernel>_kernel_environment` is malformed.
    KernelEnvironment { kernel: String, detail: String },
    /// A record of `.nv.info` / `.nv.info.<kernel>` is malformed.
    NvInfo { section: String, offset: usize, detail: &'static str },
}

impl fmt::Display for ImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImageError::UnknownFormat => {
                write!(f, "not an ELF file or LLVM offload binary (expected a clang-22 OpenMP executable or a cubin)")
            }
            ImageError::UnsupportedElf { what } => write!(f, "unsupported ELF file: {what}"),
            ImageError::Elf { what, source } => write!(f, "reading {what}: {source}"),
            ImageError::NoOffloadSection => {
                write!(f, "no .llvm.offloading section: not built with -fopenmp --offload-arch")
            }
            ImageError::OutOfBounds { what, offset, len, available } => write!(
                f,
                "reading {what}: {len} bytes at offset {offset:#x} run past the end of the data ({available} bytes)"
            ),
            ImageError::BadMagic { offset } => {
                write!(f, "offload binary at offset {offset:#x}: magic is not 0x10FF10AD")
            }
            ImageError::UnsupportedVersion { version } => {
                write!(f, "offload binary version {version} is not supported (1, 2 and 3 are)")
            }
            ImageError::Compressed => write!(f, "compressed offload binaries are not supported"),
            ImageError::Invalid { what, detail } => write!(f, "reading {what}: {detail}"),
            ImageError::KernelEnvironment { kernel, detail } => {
                write!(f, "kernel environment of {kernel}: {detail}")
            }
            ImageError::NvInfo { section, offset, detail } => {
                write!(f, "section {section}, record at offset {offset:#x}: {detail}")
            }
        }
    }
}

impl std::error::Error for ImageError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ImageError::Elf { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Attaches "what was being read" to an `object` error, in the spirit of
/// object's own `.read_error("...")`.
pub(crate) trait ElfContext<T> {
    fn reading(self, what: &'static str) -> Result<T, ImageError>;
}

impl<T> ElfContext<T> for Result<T, object::Error> {
    fn reading(self, what: &'static str) -> Result<T, ImageError> {
        self.map_err(|source| ImageError::Elf { what, source })
    }
}
