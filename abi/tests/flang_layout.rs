//! Checks `omprt_abi::fortran` against flang 22 itself:
//! * its headers: `ISO_Fortran_binding.h` (the descriptor header, dimension,
//!   type codes, attributes, error codes) compiled by clang 22 as C, and
//!   flang's runtime headers (`descriptor-consts.h`, `assign.h`,
//!   `array-constructor-consts.h`, `Fortran-consts.h`) as C++, each with
//!   static assertions of the Rust values: a changed field or constant fails
//!   to compile;
//! * the IR flang 22 emits for a target region's derived types: the struct
//!   types of its type descriptions (`__fortran_type_info`) and of the
//!   descriptors inside them, field by field.
//!
//! Needs clang 22 and flang 22 (`bash scripts/setup.sh`) and fails without
//! them: a silent pass would hide ABI drift.

mod common;

use common::{RustLayout, Ty, assert_same_layout, parse_ty, struct_defs};
use core::mem::{offset_of, size_of};
use omprt_abi::fortran::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const FLANG_INCLUDE: &str = "/usr/lib/llvm-22/include";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn work_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("omprt-flang-layout-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The LLVM 22 tool `name`, or a panic that says how to install it.
fn tool(name: &str) -> PathBuf {
    let path = PathBuf::from(format!("/usr/lib/llvm-22/bin/{name}"));
    assert!(path.is_file(), "{} is missing: run 'bash scripts/setup.sh' (as root) to install LLVM 22's clang and flang", path.display());
    path
}

fn run(mut cmd: Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(out.status.success(), "{what} failed: {cmd:?}\n{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

// ---------------------------------------------------------------------------
// flang's headers

/// `_Static_assert`s of the Rust values against `ISO_Fortran_binding.h`.
fn iso_binding_assertions() -> String {
    let mut c = String::from("#include <stddef.h>\n#include \"ISO_Fortran_binding.h\"\n");
    let mut check = |expr: String, value: i64| c += &format!("_Static_assert({expr} == {value}, \"{expr}\");\n");
    check("CFI_VERSION".into(), CFI_VERSION.into());
    check("CFI_MAX_RANK".into(), MAX_RANK as i64);
    check("sizeof(CFI_cdesc_t)".into(), size_of::<Header>() as i64);
    check("sizeof(CFI_dim_t)".into(), size_of::<Dim>() as i64);
    for (field, offset) in [
        ("base_addr", offset_of!(Header, base_addr)),
        ("elem_len", offset_of!(Header, elem_len)),
        ("version", offset_of!(Header, version)),
        ("rank", offset_of!(Header, rank)),
        ("type", offset_of!(Header, type_code)),
        ("attribute", offset_of!(Header, attribute)),
        ("extra", offset_of!(Header, extra)),
        ("dim", size_of::<Header>()),
    ] {
        check(format!("offsetof(CFI_cdesc_t, {field})"), offset as i64);
    }
    for (field, offset) in [("lower_bound", offset_of!(Dim, lower_bound)), ("extent", offset_of!(Dim, extent)), ("sm", offset_of!(Dim, byte_stride))]
    {
        check(format!("offsetof(CFI_dim_t, {field})"), offset as i64);
    }
    check("sizeof(((CFI_cdesc_t *)0)->type)".into(), 1);
    check("(CFI_type_t)-1 < 0".into(), 1);
    check("CFI_attribute_other".into(), attribute::OTHER.into());
    check("CFI_attribute_pointer".into(), attribute::POINTER.into());
    check("CFI_attribute_allocatable".into(), attribute::ALLOCATABLE.into());
    check("CFI_ERROR_BASE_ADDR_NULL".into(), stat::BASE_ADDR_NULL.into());
    check("CFI_ERROR_BASE_ADDR_NOT_NULL".into(), stat::BASE_ADDR_NOT_NULL.into());
    check("CFI_ERROR_MEM_ALLOCATION".into(), stat::MEM_ALLOCATION.into());
    for (name, code) in TYPE_CODES {
        check(format!("CFI_type_{name}"), (*code).into());
    }
    c
}

/// Every `CFI_type_*` of flang 22's header with its Rust constant.
const TYPE_CODES: &[(&str, i8)] = &[
    ("signed_char", type_code::SIGNED_CHAR),
    ("short", type_code::SHORT),
    ("int", type_code::INT),
    ("long", type_code::LONG),
    ("long_long", type_code::LONG_LONG),
    ("size_t", type_code::SIZE_T),
    ("int8_t", type_code::INT8),
    ("int16_t", type_code::INT16),
    ("int32_t", type_code::INT32),
    ("int64_t", type_code::INT64),
    ("int128_t", type_code::INT128),
    ("int_least8_t", type_code::INT_LEAST8),
    ("int_least16_t", type_code::INT_LEAST16),
    ("int_least32_t", type_code::INT_LEAST32),
    ("int_least64_t", type_code::INT_LEAST64),
    ("int_least128_t", type_code::INT_LEAST128),
    ("int_fast8_t", type_code::INT_FAST8),
    ("int_fast16_t", type_code::INT_FAST16),
    ("int_fast32_t", type_code::INT_FAST32),
    ("int_fast64_t", type_code::INT_FAST64),
    ("int_fast128_t", type_code::INT_FAST128),
    ("intmax_t", type_code::INTMAX),
    ("intptr_t", type_code::INTPTR),
    ("ptrdiff_t", type_code::PTRDIFF),
    ("half_float", type_code::HALF_FLOAT),
    ("bfloat", type_code::BFLOAT),
    ("float", type_code::FLOAT),
    ("double", type_code::DOUBLE),
    ("extended_double", type_code::EXTENDED_DOUBLE),
    ("long_double", type_code::LONG_DOUBLE),
    ("float128", type_code::FLOAT128),
    ("half_float_Complex", type_code::HALF_FLOAT_COMPLEX),
    ("bfloat_Complex", type_code::BFLOAT_COMPLEX),
    ("float_Complex", type_code::FLOAT_COMPLEX),
    ("double_Complex", type_code::DOUBLE_COMPLEX),
    ("extended_double_Complex", type_code::EXTENDED_DOUBLE_COMPLEX),
    ("long_double_Complex", type_code::LONG_DOUBLE_COMPLEX),
    ("float128_Complex", type_code::FLOAT128_COMPLEX),
    ("Bool", type_code::BOOL),
    ("char", type_code::CHAR),
    ("cptr", type_code::CPTR),
    ("struct", type_code::STRUCT),
    ("char16_t", type_code::CHAR16),
    ("char32_t", type_code::CHAR32),
    ("uint8_t", type_code::UINT8),
    ("uint16_t", type_code::UINT16),
    ("uint32_t", type_code::UINT32),
    ("uint64_t", type_code::UINT64),
    ("uint128_t", type_code::UINT128),
    ("other", type_code::OTHER),
];

/// `static_assert`s of the Rust values against flang's runtime headers.
fn runtime_header_assertions() -> String {
    let mut c = String::from(
        "#include \"flang/Runtime/descriptor-consts.h\"\n#include \"flang/Runtime/assign.h\"\n\
         #include \"flang/Runtime/array-constructor-consts.h\"\n#include \"flang/Common/Fortran-consts.h\"\n\
         using namespace Fortran::runtime;\nusing Fortran::common::TypeCategory;\n",
    );
    let mut check = |expr: String, value: i64| c += &format!("static_assert(static_cast<long>({expr}) == {value}L, \"{expr}\");\n");
    check("_CFI_ADDENDUM_FLAG".into(), ADDENDUM_FLAG.into());
    check("_CFI_ALLOCATOR_IDX_MASK".into(), ALLOCATOR_INDEX_MASK.into());
    check("_CFI_ALLOCATOR_IDX_SHIFT".into(), ALLOCATOR_INDEX_SHIFT.into());
    for rank in [0, 1, 2, 7, MAX_RANK] {
        for (addendum, len) in [(false, 0), (true, 0), (true, 1), (true, 3)] {
            check(format!("MaxDescriptorSizeInBytes({rank}, {addendum}, {len})"), descriptor_bytes(rank, addendum, len) as i64);
        }
    }
    for (name, flag) in [
        ("MaybeReallocate", assign_flags::MAYBE_REALLOCATE),
        ("NeedFinalization", assign_flags::NEED_FINALIZATION),
        ("CanBeDefinedAssignment", assign_flags::CAN_BE_DEFINED_ASSIGNMENT),
        ("ComponentCanBeDefinedAssignment", assign_flags::COMPONENT_CAN_BE_DEFINED_ASSIGNMENT),
        ("ExplicitLengthCharacterLHS", assign_flags::EXPLICIT_LENGTH_CHARACTER_LHS),
        ("PolymorphicLHS", assign_flags::POLYMORPHIC_LHS),
        ("DeallocateLHS", assign_flags::DEALLOCATE_LHS),
        ("UpdateLHSBounds", assign_flags::UPDATE_LHS_BOUNDS),
    ] {
        check(name.into(), flag.into());
    }
    for category in [
        TypeCategory::Integer,
        TypeCategory::Unsigned,
        TypeCategory::Real,
        TypeCategory::Complex,
        TypeCategory::Character,
        TypeCategory::Logical,
        TypeCategory::Derived,
    ] {
        check(format!("TypeCategory::{category:?}"), category as i64);
    }
    check("MaxArrayConstructorVectorSizeInBytes".into(), ARRAY_CONSTRUCTOR_VECTOR_BYTES as i64);
    check("MaxArrayConstructorVectorAlignInBytes".into(), ARRAY_CONSTRUCTOR_VECTOR_ALIGN as i64);
    c
}

fn compile_assertions(tag: &str, source: &str, compiler: &str, flags: &[&str]) {
    let dir = work_dir(tag);
    let src = dir.join(format!("check.{}", if compiler == "clang++" { "cpp" } else { "c" }));
    std::fs::write(&src, source).unwrap();
    let mut cmd = Command::new(tool(compiler));
    cmd.args(["-fsyntax-only"]).args(flags).arg(&src);
    run(cmd, &format!("the {tag} assertions (a Rust value differs from flang 22's header)"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_descriptor_header_and_codes_match_iso_fortran_binding_h() {
    compile_assertions("iso", &iso_binding_assertions(), "clang", &["-I", &format!("{FLANG_INCLUDE}/flang")]);
}

#[test]
fn descriptor_sizes_flags_and_categories_match_flangs_runtime_headers() {
    compile_assertions("runtime", &runtime_header_assertions(), "clang++", &["-std=c++17", "-I", FLANG_INCLUDE]);
}

/// A changed value makes the generated assertions fail to compile: the
/// checks above cannot pass vacuously.
#[test]
fn a_wrong_value_fails_the_header_assertions() {
    let wrong = iso_binding_assertions().replace("offsetof(CFI_cdesc_t, rank) == 20", "offsetof(CFI_cdesc_t, rank) == 21");
    let dir = work_dir("wrong");
    let src = dir.join("check.c");
    std::fs::write(&src, wrong).unwrap();
    let out = Command::new(tool("clang")).args(["-fsyntax-only", "-I", &format!("{FLANG_INCLUDE}/flang")]).arg(&src).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("offsetof(CFI_cdesc_t, rank)"));
}

// ---------------------------------------------------------------------------
// The IR flang emits

/// Derived types with every kind of component a type description lists
/// (data, pointer, allocatable, derived, procedure pointer), a type-bound
/// procedure and a final procedure, used in a target region so that their
/// descriptions are emitted for the device.
const PROGRAM: &str = r#"
module layout_types
  implicit none
  type :: inner
    integer :: n = 3
  end type
  type :: outer
    real(8), allocatable :: values(:)
    type(inner), allocatable :: parts(:)
    integer, pointer :: target_of => null()
    character(len=4) :: tag = 'none'
    type(inner) :: one
    procedure(step), pointer, nopass :: hook => null()
  contains
    procedure :: total
    final :: cleanup
  end type
contains
  subroutine step()
    !$omp declare target
  end subroutine
  integer function total(self)
    !$omp declare target
    class(outer), intent(in) :: self
    total = size(self%values)
  end function
  subroutine cleanup(self)
    !$omp declare target
    type(outer), intent(inout) :: self
    self%one%n = 0
  end subroutine
end module

subroutine use_types(n)
  use layout_types
  implicit none
  integer :: n
  !$omp target map(tofrom: n)
  block
    type(outer) :: a, b
    allocate(a%values(n), a%parts(2))
    b = a
    n = total(b)
  end block
  !$omp end target
end subroutine
"#;

/// flang 22's device IR of [`PROGRAM`]. flang finds CUDA's PTX version
/// through the `ptxas` on PATH: the CUDA folder of `scripts/setup.sh` goes
/// first.
fn flang_device_ir() -> &'static str {
    static IR: OnceLock<String> = OnceLock::new();
    IR.get_or_init(|| {
        let dir = work_dir("ir");
        let src = dir.join("layout.f90");
        let out = dir.join("layout.ll");
        std::fs::write(&src, PROGRAM).unwrap();
        let cuda_bin = repo_root().join(".toolchain/cuda/bin");
        assert!(cuda_bin.join("ptxas").is_file(), "{} has no ptxas: run 'bash scripts/setup.sh'", cuda_bin.display());
        let path =
            std::env::join_paths(std::iter::once(cuda_bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()))).unwrap();
        let mut cmd = Command::new(tool("flang"));
        cmd.current_dir(&dir)
            .env("PATH", path)
            .args(["-O0", "-fopenmp", "--offload-arch=sm_90", "--offload-device-only", "-S", "-emit-llvm", "-o"])
            .arg(&out)
            .arg(&src);
        run(cmd, "flang-22's device compile of the layout program");
        let ir = std::fs::read_to_string(&out).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        ir
    })
}

/// The flattened layout of a descriptor as flang spells it in IR: the
/// header's seven members, then the dimensions (one array member, if any),
/// then the addendum's two members.
fn descriptor_layout(name: &'static str, rank: usize, addendum: bool) -> RustLayout {
    let mut fields = vec![
        ("base_addr", offset_of!(Header, base_addr), size_of::<*mut u8>()),
        ("elem_len", offset_of!(Header, elem_len), size_of::<usize>()),
        ("version", offset_of!(Header, version), size_of::<i32>()),
        ("rank", offset_of!(Header, rank), 1),
        ("type_code", offset_of!(Header, type_code), 1),
        ("attribute", offset_of!(Header, attribute), 1),
        ("extra", offset_of!(Header, extra), 1),
    ];
    let (dim, dim_bytes, after, size) = match (rank, addendum) {
        (0, false) => (24, 0, 0, size_of::<Descriptor<0>>()),
        (1, false) => (offset_of!(Descriptor<1>, dim), size_of::<[Dim; 1]>(), 0, size_of::<Descriptor<1>>()),
        (0, true) => (24, 0, offset_of!(DescriptorWithAddendum<0>, addendum), size_of::<DescriptorWithAddendum<0>>()),
        (1, true) => (
            offset_of!(DescriptorWithAddendum<1>, dim),
            size_of::<[Dim; 1]>(),
            offset_of!(DescriptorWithAddendum<1>, addendum),
            size_of::<DescriptorWithAddendum<1>>(),
        ),
        (2, true) => (
            offset_of!(DescriptorWithAddendum<2>, dim),
            size_of::<[Dim; 2]>(),
            offset_of!(DescriptorWithAddendum<2>, addendum),
            size_of::<DescriptorWithAddendum<2>>(),
        ),
        _ => panic!("no Rust descriptor type of rank {rank}"),
    };
    if rank > 0 {
        fields.push(("dim", dim, dim_bytes));
    }
    if addendum {
        fields.push(("addendum.derived_type", after + offset_of!(Addendum, derived_type), 8));
        fields.push(("addendum.len", after + offset_of!(Addendum, len), size_of::<[i64; 1]>()));
    }
    RustLayout { name, size, align: 8, fields }
}

fn value() -> RustLayout {
    rust_layout!(Value { genre, padding, value })
}
fn component() -> RustLayout {
    rust_layout!(Component { name, genre, category, kind, rank, padding, offset, character_len, derived_type, len_value, bounds, initialization })
}
fn derived_type() -> RustLayout {
    rust_layout!(DerivedType {
        binding,
        name,
        size_in_bytes,
        uninstantiated,
        kind_parameter,
        len_parameter_kind,
        component,
        proc_ptr,
        special,
        special_bitset,
        has_parent,
        no_initialization_needed,
        no_destruction_needed,
        no_finalization_needed,
        no_defined_assignment,
        padding,
    })
}
fn special_binding() -> RustLayout {
    rust_layout!(SpecialBinding { which, is_arg_descriptor_set, is_type_bound, special_case_flag, padding, proc_ })
}
fn binding() -> RustLayout {
    rust_layout!(Binding { proc_, name })
}
fn proc_ptr_component() -> RustLayout {
    rust_layout!(ProcPtrComponent { name, offset, initialization })
}

const TYPE_INFO: &str = "%_QM__fortran_type_infoT";

#[test]
fn type_descriptions_match_flangs_ir() {
    let ir = flang_device_ir();
    assert_same_layout(ir, &format!("{TYPE_INFO}value"), value());
    assert_same_layout(ir, &format!("{TYPE_INFO}component"), component());
    assert_same_layout(ir, &format!("{TYPE_INFO}derivedtype"), derived_type());
    assert_same_layout(ir, &format!("{TYPE_INFO}specialbinding"), special_binding());
    assert_same_layout(ir, &format!("{TYPE_INFO}binding"), binding());
    assert_same_layout(ir, &format!("{TYPE_INFO}procptrcomponent"), proc_ptr_component());
}

/// The descriptor members of the type descriptions, each against the Rust
/// descriptor type of that rank and addendum.
#[test]
fn descriptors_inside_type_descriptions_match_flangs_ir() {
    let ir = flang_device_ir();
    let defs = struct_defs(ir);
    let fields_of = |name: &str| match parse_ty(&defs[&format!("{TYPE_INFO}{name}")]) {
        Ty::Struct(fields) => fields,
        other => panic!("{name}: {other:?}"),
    };
    let derived = fields_of("derivedtype");
    let component = fields_of("component");
    let checks = [
        ("DerivedType::binding", &derived[0], descriptor_layout("DescriptorWithAddendum<1>", 1, true)),
        ("DerivedType::name", &derived[1], descriptor_layout("Descriptor<0>", 0, false)),
        ("DerivedType::uninstantiated", &derived[3], descriptor_layout("DescriptorWithAddendum<0>", 0, true)),
        ("DerivedType::kind_parameter", &derived[4], descriptor_layout("Descriptor<1>", 1, false)),
        ("DerivedType::component", &derived[6], descriptor_layout("DescriptorWithAddendum<1>", 1, true)),
        ("Component::derived_type", &component[8], descriptor_layout("DescriptorWithAddendum<0>", 0, true)),
        ("Component::bounds", &component[10], descriptor_layout("DescriptorWithAddendum<2>", 2, true)),
    ];
    for (what, ty, rust) in checks {
        let Ty::Struct(fields) = ty else { panic!("{what} is not a struct in flang's IR: {ty:?}") };
        let layout = common::layout_of_fields(fields, &defs);
        let got: Vec<(u64, u64)> = layout.offsets.iter().copied().zip(layout.sizes.iter().copied()).collect();
        let want: Vec<(u64, u64)> = rust.fields.iter().map(|&(_, o, s)| (o as u64, s as u64)).collect();
        assert_eq!(got, want, "{what}: flang's {ty:?} vs {}", rust.name);
        assert_eq!(layout.size, rust.size as u64, "{what}: size");
    }
}

/// The descriptors flang lays out in a derived type instance: an
/// allocatable array of an intrinsic type has no addendum, one of a derived
/// type has one.
#[test]
fn allocatable_components_are_descriptors_of_flangs_layout() {
    let ir = flang_device_ir();
    let defs = struct_defs(ir);
    let outer = match parse_ty(&defs["%_QMlayout_typesTouter"]) {
        Ty::Struct(fields) => fields,
        other => panic!("{other:?}"),
    };
    for (i, rust) in [(0, descriptor_layout("Descriptor<1>", 1, false)), (1, descriptor_layout("DescriptorWithAddendum<1>", 1, true))] {
        let Ty::Struct(fields) = &outer[i] else { panic!("component {i} of outer is not a descriptor: {:?}", outer[i]) };
        let layout = common::layout_of_fields(fields, &defs);
        let got: Vec<u64> = layout.offsets.clone();
        let want: Vec<u64> = rust.fields.iter().map(|&(_, o, _)| o as u64).collect();
        assert_eq!(got, want, "component {i} of outer vs {}", rust.name);
    }
    // flang writes CFI_VERSION into the descriptors it emits.
    assert!(ir.contains(&format!("i32 {CFI_VERSION}, i8 ")), "no descriptor with version {CFI_VERSION} in flang's IR");
}

/// The category codes flang writes into a component description are
/// `TypeCategory`'s (`outer`'s `values` real, `tag` character, `one` derived).
#[test]
fn component_categories_are_type_categories() {
    let ir = flang_device_ir();
    let line = ir.lines().find(|l| l.starts_with("@_QMlayout_typesEXcXouter = ")).expect("no component table of outer in flang's IR");
    let categories: Vec<(u8, u8)> = line
        .split("%_QM__fortran_type_infoTcomponent { ")
        .skip(1)
        .map(|c| {
            // After the name's descriptor: `}, i8 <genre>, i8 <category>, ...`.
            let rest = &c[c.find("}, i8 ").expect("component genre") + 6..];
            let nums: Vec<u8> = rest.split(", i8 ").take(2).map(|n| n.trim().parse().unwrap()).collect();
            (nums[0], nums[1])
        })
        .collect();
    assert_eq!(
        categories,
        [
            (component_genre::ALLOCATABLE, TypeCategory::Real as u8),
            (component_genre::ALLOCATABLE, TypeCategory::Derived as u8),
            (component_genre::POINTER, TypeCategory::Integer as u8),
            (component_genre::DATA, TypeCategory::Character as u8),
            (component_genre::DATA, TypeCategory::Derived as u8),
        ],
        "{line}"
    );
}
