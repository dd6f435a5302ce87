//! LLVM offload binaries (`llvm/include/llvm/Object/OffloadBinary.h`): the
//! records clang's linker wrapper puts into a host executable's
//! `.llvm.offloading` section, one per device image, each with a string map
//! (`triple`, `arch`, ...) and the image bytes.
//!
//! Layout, little-endian, offsets relative to the start of each binary:
//!
//! ```text
//! Header  v1/v2 (32 bytes): magic 10 FF 10 AD, u32 version, u64 size,
//!                           u64 entries_offset, u64 (v1: entry size; v2: entry count)
//!         v3    (40 bytes): ... u64 entries_count, u64 inflated_size (≠ 0: compressed)
//! Entry   (40 bytes):       u16 image_kind, u16 offload_kind, u32 flags,
//!                           u64 string_offset, u64 num_strings, u64 image_offset, u64 image_size
//! String  v1 (16 bytes):    u64 key_offset, u64 value_offset          (NUL-terminated)
//!         v2+ (24 bytes):   u64 key_offset, u64 value_offset, u64 value_size
//! ```
//!
//! clang 22 writes version 1 (checked on real executables); v2/v3 follow the
//! upstream reader. Binaries follow each other in the section, each aligned
//! to 8 bytes.

use super::bytes::{c_str_at, slice, u16_at, u32_at, u64_at, utf8};
use super::error::ImageError;

pub const MAGIC: [u8; 4] = [0x10, 0xFF, 0x10, 0xAD];
const ENTRY_SIZE: u64 = 40;
/// Upper bound on entries/strings per binary: real ones have 1 and ~2–5; the
/// bound keeps a corrupted count from allocating gigabytes.
const MAX_COUNT: u64 = 4096;

/// `ImageKind`: what the image bytes are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageKind {
    None,
    /// `IMG_Object`: for nvptx64 a linked cubin (ELF, EM_CUDA).
    Object,
    Bitcode,
    Cubin,
    Fatbinary,
    Ptx,
    SpirV,
    Other(u16),
}

impl ImageKind {
    fn from_raw(raw: u16) -> ImageKind {
        match raw {
            0 => ImageKind::None,
            1 => ImageKind::Object,
            2 => ImageKind::Bitcode,
            3 => ImageKind::Cubin,
            4 => ImageKind::Fatbinary,
            5 => ImageKind::Ptx,
            6 => ImageKind::SpirV,
            other => ImageKind::Other(other),
        }
    }
    /// The name `llvm-objdump --offloading` prints.
    pub fn name(self) -> String {
        match self {
            ImageKind::None => "none".into(),
            ImageKind::Object => "elf".into(),
            ImageKind::Bitcode => "llvm ir".into(),
            ImageKind::Cubin => "cubin".into(),
            ImageKind::Fatbinary => "fatbinary".into(),
            ImageKind::Ptx => "ptx".into(),
            ImageKind::SpirV => "spir-v".into(),
            ImageKind::Other(raw) => format!("unknown({raw})"),
        }
    }
}

/// `OffloadKind`: the programming model that produced the image (a bit set).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Producer(pub u16);

impl Producer {
    pub const OPENMP: Producer = Producer(1);

    pub fn name(self) -> String {
        let names: Vec<&str> = [(1, "openmp"), (2, "cuda"), (4, "hip"), (8, "sycl")]
            .into_iter()
            .filter(|(bit, _)| self.0 & bit != 0)
            .map(|(_, name)| name)
            .collect();
        match (names.is_empty(), self.0 & !0xf) {
            (true, 0) => "none".into(),
            (_, 0) => names.join("+"),
            (_, unknown) => format!("{}unknown({unknown:#x})", names.iter().map(|n| format!("{n}+")).collect::<String>()),
        }
    }
}

/// One device image embedded in an offload binary, borrowing the input bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OffloadImage<'data> {
    /// Offset of the enclosing offload binary in the section (or file).
    pub binary_offset: u64,
    pub version: u32,
    pub kind: ImageKind,
    pub producer: Producer,
    pub flags: u32,
    /// The string map in file order (`triple`, `arch`, and anything else).
    pub strings: Vec<(&'data str, &'data str)>,
    pub image: &'data [u8],
}

impl<'data> OffloadImage<'data> {
    pub fn string(&self, key: &str) -> Option<&'data str> {
        self.strings.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }
    pub fn triple(&self) -> Option<&'data str> {
        self.string("triple")
    }
    pub fn arch(&self) -> Option<&'data str> {
        self.string("arch")
    }
}

/// Every image of every offload binary stored back to back in `section`.
pub fn parse_section(section: &[u8]) -> Result<Vec<OffloadImage<'_>>, ImageError> {
    let mut images = Vec::new();
    let mut offset = 0u64;
    while offset < section.len() as u64 {
        let rest = slice(section, offset, section.len() as u64 - offset, "offload binary")?;
        let (size, found) = parse_binary(rest, offset)?;
        images.extend(found);
        // `size` >= the header size (checked), so this always advances.
        offset = offset
            .checked_add(size)
            .and_then(|end| end.checked_next_multiple_of(8))
            .ok_or(ImageError::Invalid { what: "offload binary size", detail: format!("{size:#x} overflows") })?;
    }
    Ok(images)
}

/// One offload binary at the start of `data`: its size and its images.
fn parse_binary(data: &[u8], at: u64) -> Result<(u64, Vec<OffloadImage<'_>>), ImageError> {
    if slice(data, 0, 4, "offload binary magic")? != MAGIC {
        return Err(ImageError::BadMagic { offset: at });
    }
    let version = u32_at(data, 4, "offload binary version")?;
    let header_size = match version {
        1 | 2 => 32,
        3 => 40,
        _ => return Err(ImageError::UnsupportedVersion { version }),
    };
    let size = u64_at(data, 8, "offload binary size")?;
    if size < header_size {
        return Err(ImageError::Invalid { what: "offload binary size", detail: format!("{size} is smaller than its header") });
    }
    let binary = slice(data, 0, size, "offload binary (its header's size field)")?;
    let entries_offset = u64_at(binary, 16, "offload binary entries offset")?;
    let field_24 = u64_at(binary, 24, "offload binary entry size/count")?;
    let count = if version == 1 {
        if field_24 != ENTRY_SIZE {
            return Err(ImageError::Invalid { what: "offload binary entry size", detail: format!("{field_24}, expected 40") });
        }
        1
    } else {
        field_24
    };
    if version == 3 && u64_at(binary, 32, "offload binary inflated size")? != 0 {
        return Err(ImageError::Compressed);
    }
    if count > MAX_COUNT {
        return Err(ImageError::Invalid { what: "offload binary entry count", detail: format!("{count} entries") });
    }
    let string_entry_size = if version == 1 { 16 } else { 24 };
    let mut images = Vec::new();
    for index in 0..count {
        let entry_at = entries_offset
            .checked_add(index * ENTRY_SIZE)
            .ok_or(ImageError::Invalid { what: "offload entry offset", detail: "overflows".into() })?;
        let entry = slice(binary, entry_at, ENTRY_SIZE, "offload entry")?;
        let num_strings = u64_at(entry, 16, "offload entry string count")?;
        if num_strings > MAX_COUNT {
            return Err(ImageError::Invalid { what: "offload entry string count", detail: format!("{num_strings} strings") });
        }
        let strings_at = u64_at(entry, 8, "offload entry string offset")?;
        let table = slice(binary, strings_at, num_strings * string_entry_size, "offload string map")?;
        let mut strings = Vec::new();
        for i in 0..num_strings {
            let at = i * string_entry_size;
            let key = c_str_at(binary, u64_at(table, at, "string map key offset")?, "string map key")?;
            let value_at = u64_at(table, at + 8, "string map value offset")?;
            let value = if version == 1 {
                c_str_at(binary, value_at, "string map value")?
            } else {
                let len = u64_at(table, at + 16, "string map value size")?;
                utf8(slice(binary, value_at, len, "string map value")?, "string map value")?
            };
            strings.push((key, value));
        }
        let image = slice(
            binary,
            u64_at(entry, 24, "offload entry image offset")?,
            u64_at(entry, 32, "offload entry image size")?,
            "device image",
        )?;
        images.push(OffloadImage {
            binary_offset: at,
            version,
            kind: ImageKind::from_raw(u16_at(entry, 0, "offload entry image kind")?),
            producer: Producer(u16_at(entry, 2, "offload entry offload kind")?),
            flags: u32_at(entry, 4, "offload entry flags")?,
            strings,
            image,
        });
    }
    Ok((size, images))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A version-1 binary the way clang 22 lays it out: header, entry,
    /// string map, strings, padding, image.
    pub(crate) fn v1_binary(arch: &str, image: &[u8]) -> Vec<u8> {
        let strtab = format!("\0arch\0triple\0nvptx64-nvidia-cuda\0{arch}\0");
        let strtab_at = 32 + 40 + 2 * 16;
        let image_at = (strtab_at + strtab.len()).next_multiple_of(8);
        let size = (image_at + image.len()).next_multiple_of(8);
        let key = |s: &str| (strtab_at + strtab.find(&format!("\0{s}\0")).unwrap() + 1) as u64;
        let mut out = Vec::new();
        out.extend(MAGIC);
        out.extend(1u32.to_le_bytes());
        for v in [size as u64, 32, 40] {
            out.extend(v.to_le_bytes());
        }
        out.extend(1u16.to_le_bytes()); // IMG_Object
        out.extend(1u16.to_le_bytes()); // OFK_OpenMP
        out.extend(0u32.to_le_bytes());
        for v in [32 + 40, 2, image_at as u64, image.len() as u64] {
            out.extend(v.to_le_bytes());
        }
        for v in [key("triple"), key("nvptx64-nvidia-cuda"), key("arch"), key(arch)] {
            out.extend(v.to_le_bytes());
        }
        out.extend(strtab.as_bytes());
        out.resize(image_at, 0);
        out.extend(image);
        out.resize(size, 0);
        out
    }

    #[test]
    fn reads_back_to_back_v1_binaries() {
        let mut section = v1_binary("sm_90", b"first image");
        section.extend(v1_binary("sm_80", b"second"));
        let images = parse_section(&section).unwrap();
        assert_eq!(images.len(), 2);
        assert_eq!(images[0].triple(), Some("nvptx64-nvidia-cuda"));
        assert_eq!(images[0].arch(), Some("sm_90"));
        assert_eq!(images[0].image, b"first image");
        assert_eq!(images[0].kind, ImageKind::Object);
        assert_eq!(images[0].producer.name(), "openmp");
        assert_eq!(images[1].arch(), Some("sm_80"));
        assert_eq!(images[1].image, b"second");
    }

    #[test]
    fn rejects_bad_headers_with_a_named_field() {
        let good = v1_binary("sm_90", b"x");
        let mut bad_magic = good.clone();
        bad_magic[0] = 0;
        assert_eq!(parse_section(&bad_magic), Err(ImageError::BadMagic { offset: 0 }));
        let mut v9 = good.clone();
        v9[4] = 9;
        assert_eq!(parse_section(&v9), Err(ImageError::UnsupportedVersion { version: 9 }));
        let mut huge = good.clone();
        huge[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(parse_section(&huge).unwrap_err().to_string().contains("header's size field"));
        let mut tiny = good.clone();
        tiny[8..16].copy_from_slice(&8u64.to_le_bytes());
        assert!(matches!(parse_section(&tiny), Err(ImageError::Invalid { what: "offload binary size", .. })));
        assert!(parse_section(&good[..20]).is_err());
    }

    #[test]
    fn producer_names() {
        assert_eq!(Producer(0).name(), "none");
        assert_eq!(Producer(3).name(), "openmp+cuda");
        assert_eq!(Producer(0x21).name(), "openmp+unknown(0x20)");
    }
}
