//! Bounds-checked little-endian reads over `&[u8]`. Offsets and lengths in
//! images are attacker-controlled `u64`s, so every read goes through
//! [`slice`], which does checked arithmetic and never indexes out of range.

use super::error::ImageError;

/// `len` bytes at `offset` of `data`, or an error naming `what`.
pub(crate) fn slice<'d>(data: &'d [u8], offset: u64, len: u64, what: &'static str) -> Result<&'d [u8], ImageError> {
    let oob = || ImageError::OutOfBounds { what, offset, len, available: data.len() as u64 };
    let start = usize::try_from(offset).map_err(|_| oob())?;
    let len_usize = usize::try_from(len).map_err(|_| oob())?;
    let end = start.checked_add(len_usize).ok_or_else(oob)?;
    data.get(start..end).ok_or_else(oob)
}

fn array<const N: usize>(data: &[u8], offset: u64, what: &'static str) -> Result<[u8; N], ImageError> {
    let bytes = slice(data, offset, N as u64, what)?;
    let mut out = [0u8; N];
    out.copy_from_slice(bytes);
    Ok(out)
}

pub(crate) fn u16_at(data: &[u8], offset: u64, what: &'static str) -> Result<u16, ImageError> {
    array(data, offset, what).map(u16::from_le_bytes)
}

pub(crate) fn u32_at(data: &[u8], offset: u64, what: &'static str) -> Result<u32, ImageError> {
    array(data, offset, what).map(u32::from_le_bytes)
}

pub(crate) fn i32_at(data: &[u8], offset: u64, what: &'static str) -> Result<i32, ImageError> {
    array(data, offset, what).map(i32::from_le_bytes)
}

pub(crate) fn u64_at(data: &[u8], offset: u64, what: &'static str) -> Result<u64, ImageError> {
    array(data, offset, what).map(u64::from_le_bytes)
}

/// The NUL-terminated UTF-8 string starting at `offset`.
pub(crate) fn c_str_at<'d>(data: &'d [u8], offset: u64, what: &'static str) -> Result<&'d str, ImageError> {
    let available = data.len() as u64;
    let tail = usize::try_from(offset)
        .ok()
        .and_then(|start| data.get(start..))
        .ok_or(ImageError::OutOfBounds { what, offset, len: 1, available })?;
    let end = tail.iter().position(|&b| b == 0).ok_or_else(|| ImageError::Invalid {
        what,
        detail: format!("string at offset {offset:#x} has no terminating NUL"),
    })?;
    utf8(&tail[..end], what)
}

pub(crate) fn utf8<'d>(bytes: &'d [u8], what: &'static str) -> Result<&'d str, ImageError> {
    std::str::from_utf8(bytes).map_err(|e| ImageError::Invalid { what, detail: format!("not UTF-8: {e}") })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounds_checked_without_overflow() {
        let data = [1u8, 2, 3, 4, 5, 0];
        assert_eq!(u32_at(&data, 0, "x"), Ok(0x0403_0201));
        assert_eq!(u16_at(&data, 4, "x"), Ok(5));
        assert!(matches!(u32_at(&data, 3, "x"), Err(ImageError::OutOfBounds { .. })));
        assert!(slice(&data, u64::MAX, 2, "x").is_err());
        assert!(slice(&data, 2, u64::MAX, "x").is_err());
        assert_eq!(slice(&data, 6, 0, "x"), Ok(&[][..]));
        assert_eq!(c_str_at(&data, 0, "x").map(str::len), Ok(5));
        assert!(c_str_at(&data[..5], 0, "x").is_err());
        assert!(c_str_at(&data, 7, "x").is_err());
    }
}
