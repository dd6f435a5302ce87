//! `SIZE`, `SHAPE`, `LBOUND` and `UBOUND` where flang asks the runtime
//! (flang-rt's `inquiry.cpp`): of an assumed-rank dummy (`x(..)`), whose
//! rank flang does not know. Each reads the descriptor's dimensions; the
//! whole-array forms store one integer per dimension, of the kind flang
//! passes, into flang's contiguous result.

use super::descriptor::Desc;
use super::memory::Addr;
use super::reduction::store_integer;
use super::terminator::{self, Site};

/// The dimension `dim` (1-based) of `array`, checked: `SIZE`'s and
/// `LBOUND`'s error otherwise.
fn dimension(array: Desc, dim: i32, name: &[u8], site: Site) -> usize {
    if dim < 1 || dim as usize > array.rank() {
        terminator::crash(site, |m| {
            m.text(name).text(b": bad DIM=").int(dim.into()).text(b" for ARRAY with rank=").int(array.rank() as i64);
        });
    }
    dim as usize - 1
}

/// `SIZE(array)`: the product of the extents (1 for a scalar).
pub fn size(array: Desc) -> i64 {
    (0..array.rank()).map(|j| array.extent(j)).product()
}

/// `SIZE(array, dim)`.
pub fn size_dim(array: Desc, dim: i32, site: Site) -> i64 {
    array.extent(dimension(array, dim, b"SIZE", site))
}

/// `LBOUND(array, dim)`.
pub fn lbound_dim(array: Desc, dim: i32, site: Site) -> i64 {
    array.lower_bound(dimension(array, dim, b"LBOUND", site))
}

/// What [`store_per_dimension`] stores for each dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PerDimension {
    /// `SHAPE`: the extents.
    Extent,
    /// `LBOUND`: the lower bounds.
    Lower,
    /// `UBOUND`: the upper bounds, lower bound plus extent less one.
    Upper,
}

/// `SHAPE(array, kind)`, `LBOUND(array, kind)` or `UBOUND(array, kind)`:
/// one INTEGER(`kind`) per dimension of `array`, stored one after another
/// from `result`.
pub fn store_per_dimension(result: Addr, array: Desc, what: PerDimension, kind: i32, site: Site) {
    let bytes = match kind {
        1 | 2 | 4 | 8 | 16 => kind as usize,
        _ => terminator::crash(site, |m| {
            m.text(b"bad KIND=").int(kind.into()).text(b" for the result of SHAPE, LBOUND or UBOUND");
        }),
    };
    for j in 0..array.rank() {
        let value = match what {
            PerDimension::Extent => array.extent(j),
            PerDimension::Lower => array.lower_bound(j),
            PerDimension::Upper => array.lower_bound(j) + array.extent(j) - 1,
        };
        let at = result.plus(j * bytes);
        if bytes == 16 {
            // INTEGER(16): the value sign-extended over two words.
            at.store(value);
            at.plus(8).store(value >> 63);
        } else {
            store_integer(at, bytes, value);
        }
    }
}
