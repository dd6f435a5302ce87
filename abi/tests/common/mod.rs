//! LLVM struct types as compilers emit them in textual IR, their
//! natural-alignment layout, and the Rust side to compare them with: shared
//! by the layout tests of clang's (`clang_layout.rs`) and flang's
//! (`flang_layout.rs`) types.
#![allow(dead_code)]

use std::collections::HashMap;

// ---------------------------------------------------------------------------
// A small parser for LLVM struct types and their natural-alignment layout.
// Natural alignment is right for both targets here: nvptx64's datalayout only
// adds 32-bit pointers in addrspace(6), and x86-64 aligns i64/ptr to 8.

#[derive(Debug, Clone, PartialEq)]
pub enum Ty {
    Int(u32),
    Float,
    Double,
    Ptr,
    Array(u64, Box<Ty>),
    Struct(Vec<Ty>),
    Named(String),
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    fn skip_ws(&mut self) {
        self.pos += self.rest().len() - self.rest().trim_start().len();
    }
    fn eat(&mut self, tok: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(tok) {
            self.pos += tok.len();
            true
        } else {
            false
        }
    }
    fn expect(&mut self, tok: &str) {
        assert!(self.eat(tok), "expected `{tok}` at `{}` in `{}`", self.rest(), self.s);
    }
    fn word(&mut self) -> &'a str {
        self.skip_ws();
        let n = self.rest().find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$' | '-'))).unwrap_or(self.rest().len());
        let w = &self.rest()[..n];
        self.pos += n;
        w
    }

    fn ty(&mut self) -> Ty {
        self.skip_ws();
        if self.rest().starts_with("<{") {
            panic!("packed struct types are not supported (their layout ignores alignment): `{}`", self.s);
        }
        if self.eat("{") {
            let mut fields = Vec::new();
            if !self.eat("}") {
                loop {
                    fields.push(self.ty());
                    if self.eat("}") {
                        break;
                    }
                    self.expect(",");
                }
            }
            return Ty::Struct(fields);
        }
        if self.eat("[") {
            let n = self.word().parse().unwrap_or_else(|_| panic!("bad array length in `{}`", self.s));
            self.expect("x");
            let elem = self.ty();
            self.expect("]");
            return Ty::Array(n, Box::new(elem));
        }
        if self.eat("%") {
            let name = self.word();
            assert!(!name.is_empty(), "unsupported type name at `{}` in `{}`", self.rest(), self.s);
            return Ty::Named(format!("%{name}"));
        }
        let w = self.word();
        match w {
            "ptr" => {
                assert!(!self.rest().trim_start().starts_with("addrspace"), "pointer address spaces are not supported: `{}`", self.s);
                Ty::Ptr
            }
            "float" => Ty::Float,
            "double" => Ty::Double,
            _ => match w.strip_prefix('i').and_then(|b| b.parse().ok()) {
                Some(bits) if bits > 0 => Ty::Int(bits),
                _ => panic!("unsupported LLVM type `{w}{}` in `{}`", self.rest(), self.s),
            },
        }
    }
}

pub fn parse_ty(s: &str) -> Ty {
    let mut p = Parser { s, pos: 0 };
    let t = p.ty();
    p.skip_ws();
    assert!(p.rest().is_empty(), "trailing text `{}` after type in `{s}`", p.rest());
    t
}

/// `%name = type <body>` lines, bodies kept as text so unrelated types that the
/// parser does not handle (opaque, packed) only matter if a checked type uses them.
pub fn struct_defs(ir: &str) -> HashMap<String, String> {
    ir.lines()
        .filter(|l| l.starts_with('%'))
        .filter_map(|l| l.split_once(" = type "))
        .map(|(name, body)| (name.to_string(), body.trim().to_string()))
        .collect()
}

fn round_up(x: u64, align: u64) -> u64 {
    x.div_ceil(align) * align
}

/// (size, align) of `ty`, resolving named structs through `defs`.
pub fn size_align(ty: &Ty, defs: &HashMap<String, String>) -> (u64, u64) {
    match ty {
        Ty::Int(bits) => {
            let bytes = u64::from(*bits).div_ceil(8).next_power_of_two();
            (bytes, bytes.min(16))
        }
        Ty::Float => (4, 4),
        Ty::Double | Ty::Ptr => (8, 8),
        Ty::Array(n, elem) => {
            let (size, align) = size_align(elem, defs);
            (n * size, align)
        }
        Ty::Struct(fields) => {
            let l = layout_of_fields(fields, defs);
            (l.size, l.align)
        }
        Ty::Named(name) => {
            let l = struct_layout(defs, name);
            (l.size, l.align)
        }
    }
}

#[derive(Debug)]
pub struct Layout {
    pub size: u64,
    pub align: u64,
    pub offsets: Vec<u64>,
    pub sizes: Vec<u64>,
}

pub fn layout_of_fields(fields: &[Ty], defs: &HashMap<String, String>) -> Layout {
    let (mut end, mut max_align) = (0, 1);
    let (mut offsets, mut sizes) = (Vec::new(), Vec::new());
    for f in fields {
        let (size, align) = size_align(f, defs);
        let off = round_up(end, align);
        offsets.push(off);
        sizes.push(size);
        end = off + size;
        max_align = max_align.max(align);
    }
    Layout { size: round_up(end, max_align), align: max_align, offsets, sizes }
}

pub fn struct_layout(defs: &HashMap<String, String>, name: &str) -> Layout {
    let body = defs.get(name).unwrap_or_else(|| panic!("{name} is not defined in the IR"));
    match parse_ty(body) {
        Ty::Struct(fields) => layout_of_fields(&fields, defs),
        other => panic!("{name} is not a struct type: {other:?}"),
    }
}

// ---------------------------------------------------------------------------
// The Rust side

pub struct RustLayout {
    pub name: &'static str,
    pub size: usize,
    pub align: usize,
    /// (field, offset, size) in declaration order.
    pub fields: Vec<(&'static str, usize, usize)>,
}

pub fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
    core::mem::size_of::<F>()
}

/// Lists a type's fields in declaration order. The exhaustive destructuring
/// pattern makes a forgotten or renamed field a compile error.
#[macro_export]
macro_rules! rust_layout {
    ($ty:ident { $($field:ident),* $(,)? }) => {{
        #[allow(dead_code, unused_variables)]
        fn all_fields_listed(v: $ty) {
            let $ty { $($field),* } = v;
        }
        $crate::common::RustLayout {
            name: stringify!($ty),
            size: core::mem::size_of::<$ty>(),
            align: core::mem::align_of::<$ty>(),
            fields: vec![$((stringify!($field), core::mem::offset_of!($ty, $field), $crate::common::field_size(|v: &$ty| &v.$field))),*],
        }
    }};
}

/// Field i of the LLVM struct must sit where the i-th Rust field sits, with the
/// same size; the whole struct must have the same size and alignment.
pub fn assert_same_layout(ir: &str, llvm_name: &str, rust: RustLayout) {
    let defs = struct_defs(ir);
    let llvm = struct_layout(&defs, llvm_name);
    let ctx = format!("{llvm_name} = type {} vs {}", defs[llvm_name], rust.name);
    assert_eq!(llvm.offsets.len(), rust.fields.len(), "field count differs: {ctx}");
    for (i, (&(field, off, size), (&l_off, &l_size))) in rust.fields.iter().zip(llvm.offsets.iter().zip(&llvm.sizes)).enumerate() {
        assert_eq!(off as u64, l_off, "offset of field {i} ({}::{field}) differs: {ctx}", rust.name);
        assert_eq!(size as u64, l_size, "size of field {i} ({}::{field}) differs: {ctx}", rust.name);
    }
    assert_eq!(rust.size as u64, llvm.size, "size differs: {ctx}");
    assert_eq!(rust.align as u64, llvm.align, "alignment differs: {ctx}");
}
