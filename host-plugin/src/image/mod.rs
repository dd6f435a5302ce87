//! Reading OpenMP offload programs without a GPU: which device images a
//! clang-22 executable embeds, and for each cubin its kernels, their kernel
//! environments and the resources ptxas gave them (`omprt info`).
//!
//! Zero-copy over the input bytes (`object`'s low-level ELF API plus the
//! bounds-checked reads in `bytes`); every structure is validated as it is
//! read, so malformed input is an [`ImageError`], never a panic.
//!
//! ```no_run
//! let bytes = std::fs::read("saxpy").unwrap();
//! let input = omprt_host::image::read(&bytes).unwrap();
//! for image in &input.images {
//!     if let Some(Ok(cubin)) = image.cubin() {
//!         for k in &cubin.kernels {
//!             println!("{} {}", k.name, omprt_host::image::mode_name(k.mode()));
//!         }
//!     }
//! }
//! ```

mod bytes;
pub mod cubin;
mod error;
pub mod nvinfo;
pub mod offload;

pub use cubin::{mode_name, Cubin, Function, Kernel};
pub use error::ImageError;
pub use offload::{ImageKind, Producer};

use error::ElfContext;
use object::elf::{FileHeader64, EM_CUDA};
use object::read::elf::{FileHeader, SectionHeader};
use object::LittleEndian;
use std::borrow::Cow;

/// `SHT_LLVM_OFFLOADING`: the section type of `.llvm.offloading`.
pub const SHT_LLVM_OFFLOADING: u32 = 0x6fff_4c0b;
const OFFLOADING_SECTION: &[u8] = b".llvm.offloading";

/// What kind of file the images came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// A host ELF with an `.llvm.offloading` section (what clang links).
    HostExecutable,
    /// A bare LLVM offload binary (`clang-offload-packager` output).
    OffloadBinary,
    /// A device image on its own.
    Cubin,
}

/// One embedded device image, borrowing the input.
#[derive(Clone, Debug, PartialEq)]
pub struct DeviceImage<'data> {
    pub triple: Cow<'data, str>,
    pub arch: Cow<'data, str>,
    pub kind: ImageKind,
    /// `None` for a bare cubin, which does not record its producer.
    pub producer: Option<Producer>,
    pub bytes: &'data [u8],
}

impl<'data> DeviceImage<'data> {
    /// Whether the bytes are a cubin (whatever the offload entry calls them:
    /// clang 22 labels linked NVPTX images `IMG_Object`).
    pub fn is_cubin(&self) -> bool {
        cubin::is_cubin(self.bytes)
    }
    /// The cubin's kernels, or `None` when the image is not a cubin.
    pub fn cubin(&self) -> Option<Result<Cubin<'data>, ImageError>> {
        self.is_cubin().then(|| cubin::parse(self.bytes))
    }
}

/// The device images of one input file.
#[derive(Clone, Debug, PartialEq)]
pub struct Input<'data> {
    pub container: Container,
    pub images: Vec<DeviceImage<'data>>,
}

/// Reads a host executable, an offload binary or a cubin.
pub fn read(data: &[u8]) -> Result<Input<'_>, ImageError> {
    if data.starts_with(&offload::MAGIC) {
        let images = offload::parse_section(data)?.into_iter().map(from_offload).collect();
        return Ok(Input { container: Container::OffloadBinary, images });
    }
    if !data.starts_with(b"\x7fELF") {
        return Err(ImageError::UnknownFormat);
    }
    let header = FileHeader64::<LittleEndian>::parse(data)
        .map_err(|_| ImageError::UnsupportedElf { what: "not a 64-bit little-endian ELF file" })?;
    let endian = LittleEndian;
    if header.e_machine(endian) == EM_CUDA {
        let sm = cubin::parse(data)?.sm;
        let image = DeviceImage {
            triple: Cow::Borrowed("nvptx64-nvidia-cuda"),
            arch: Cow::Owned(format!("sm_{sm}")),
            kind: ImageKind::Cubin,
            producer: None,
            bytes: data,
        };
        return Ok(Input { container: Container::Cubin, images: vec![image] });
    }
    let sections = header.sections(endian, data).reading("host section headers")?;
    let mut images = Vec::new();
    let mut found = false;
    for section in sections.iter() {
        let name = sections.section_name(endian, section).reading("host section name")?;
        if section.sh_type(endian) != SHT_LLVM_OFFLOADING && name != OFFLOADING_SECTION {
            continue;
        }
        found = true;
        let bytes = section.data(endian, data).reading(".llvm.offloading contents")?;
        images.extend(offload::parse_section(bytes)?.into_iter().map(from_offload));
    }
    if !found {
        return Err(ImageError::NoOffloadSection);
    }
    Ok(Input { container: Container::HostExecutable, images })
}

fn from_offload(image: offload::OffloadImage<'_>) -> DeviceImage<'_> {
    DeviceImage {
        triple: Cow::Borrowed(image.triple().unwrap_or("?")),
        arch: Cow::Borrowed(image.arch().unwrap_or("?")),
        kind: image.kind,
        producer: Some(image.producer),
        bytes: image.image,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_offload_binaries_are_read() {
        let bytes = offload::tests::v1_binary("sm_90", b"not a cubin");
        let input = read(&bytes).unwrap();
        assert_eq!(input.container, Container::OffloadBinary);
        assert_eq!(input.images[0].arch, "sm_90");
        assert_eq!(input.images[0].cubin(), None);
    }

    #[test]
    fn other_files_are_named_errors() {
        assert_eq!(read(b"#!/bin/sh\n"), Err(ImageError::UnknownFormat));
        assert!(matches!(read(b"\x7fELF\x01\x01"), Err(ImageError::UnsupportedElf { .. })));
        assert_eq!(read(&[]), Err(ImageError::UnknownFormat));
    }
}
