//! `.nv.info` attribute records (NVIDIA's undocumented "EIATTR" list) that
//! ptxas writes into a cubin: resource usage the CUDA driver reads at load
//! time.
//!
//! Each record is `u8 format, u8 attribute`, then by format:
//! `0x01` (NVAL), `0x02` (BVAL), `0x03` (HVAL): a `u16` value (4 bytes in all);
//! `0x04` (SVAL): a `u16` size and that many payload bytes.
//! Checked against clang-22/ptxas-12.9 cubins: every record of every
//! `.nv.info*` section parses to exactly its end, and records are 4-aligned
//! (which is why NVAL/BVAL also carry two bytes; ptxas 12.9 emits no NVAL).
//!
//! Per-function resource records (registers, frame, stack) live in the global
//! `.nv.info` with an SVAL payload `u32 symbol index, u32 value`.

use super::error::ImageError;

pub const EIFMT_NVAL: u8 = 0x01;
pub const EIFMT_BVAL: u8 = 0x02;
pub const EIFMT_HVAL: u8 = 0x03;
pub const EIFMT_SVAL: u8 = 0x04;

/// `EIATTR_MAX_THREADS`: the kernel's `.maxntid` (3 x u32).
pub const EIATTR_MAX_THREADS: u8 = 0x05;
pub const EIATTR_FRAME_SIZE: u8 = 0x11;
pub const EIATTR_MIN_STACK_SIZE: u8 = 0x12;
/// `EIATTR_CBANK_PARAM_SIZE`: bytes of kernel parameters (HVAL).
pub const EIATTR_CBANK_PARAM_SIZE: u8 = 0x19;
pub const EIATTR_MAX_STACK_SIZE: u8 = 0x23;
pub const EIATTR_REGCOUNT: u8 = 0x2f;

/// One record: its attribute and value bytes (the `u16` for NVAL/BVAL/HVAL,
/// the payload for SVAL).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attribute<'data> {
    pub format: u8,
    pub attribute: u8,
    pub value: &'data [u8],
}

impl Attribute<'_> {
    /// The `u16` of an NVAL/BVAL/HVAL record.
    pub fn half(&self) -> Option<u16> {
        match (self.format, self.value) {
            (EIFMT_NVAL | EIFMT_BVAL | EIFMT_HVAL, &[lo, hi]) => Some(u16::from_le_bytes([lo, hi])),
            _ => None,
        }
    }
    /// The `n`th little-endian `u32` of an SVAL payload.
    pub fn word(&self, n: usize) -> Option<u32> {
        if self.format != EIFMT_SVAL {
            return None;
        }
        let bytes = self.value.get(n.checked_mul(4)?..n.checked_mul(4)?.checked_add(4)?)?;
        Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
    }
    /// For per-function SVAL records (`u32 symbol, u32 value`): `(symbol, value)`.
    pub fn per_function(&self) -> Option<(u32, u32)> {
        (self.value.len() == 8).then(|| Some((self.word(0)?, self.word(1)?))).flatten()
    }
}

/// All records of one `.nv.info*` section; `section` names it in errors.
pub fn parse<'data>(data: &'data [u8], section: &str) -> Result<Vec<Attribute<'data>>, ImageError> {
    let mut out = Vec::new();
    let mut at = 0usize;
    let err = |offset, detail| ImageError::NvInfo { section: section.to_owned(), offset, detail };
    while at < data.len() {
        let header = data.get(at..at + 4).ok_or_else(|| err(at, "truncated record header"))?;
        let (format, attribute, half) = (header[0], header[1], u16::from_le_bytes([header[2], header[3]]));
        let value = match format {
            EIFMT_NVAL | EIFMT_BVAL | EIFMT_HVAL => {
                at += 4;
                &header[2..4]
            }
            EIFMT_SVAL => {
                let start = at + 4;
                let payload = data.get(start..start + usize::from(half)).ok_or_else(|| err(at, "SVAL payload runs past the section"))?;
                at = start + usize::from(half);
                payload
            }
            _ => return Err(err(at, "unknown record format (expected 1..=4)")),
        };
        out.push(Attribute { format, attribute, value });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_record_formats_ptxas_writes() {
        // Bytes from a clang-22 sm_90 cubin: FRAME_SIZE and REGCOUNT for
        // symbol 3, then CBANK_PARAM_SIZE (HVAL) and a BVAL.
        let data = [
            0x04, 0x11, 0x08, 0x00, 3, 0, 0, 0, 0x20, 0, 0, 0, //
            0x04, 0x2f, 0x08, 0x00, 3, 0, 0, 0, 0x26, 0, 0, 0, //
            0x03, 0x19, 0x18, 0x00, //
            0x02, 0x4c, 0x09, 0x00,
        ];
        let attrs = parse(&data, ".nv.info").unwrap();
        assert_eq!(attrs.len(), 4);
        assert_eq!((attrs[0].attribute, attrs[0].per_function()), (EIATTR_FRAME_SIZE, Some((3, 32))));
        assert_eq!((attrs[1].attribute, attrs[1].per_function()), (EIATTR_REGCOUNT, Some((3, 38))));
        assert_eq!((attrs[2].attribute, attrs[2].half()), (EIATTR_CBANK_PARAM_SIZE, Some(24)));
        assert_eq!(attrs[3].half(), Some(9));
        assert_eq!(attrs[2].word(0), None);
    }

    #[test]
    fn malformed_records_are_errors_with_their_offset() {
        let e = parse(&[0x04, 0x2f, 0x08, 0x00, 3, 0], "s").unwrap_err();
        assert_eq!(e, ImageError::NvInfo { section: "s".into(), offset: 0, detail: "SVAL payload runs past the section" });
        assert!(parse(&[0x03, 0x19, 0x18, 0x00, 0x03], "s").is_err());
        assert!(parse(&[0x07, 0x19, 0x18, 0x00], "s").is_err());
        assert_eq!(parse(&[], "s"), Ok(vec![]));
    }
}
