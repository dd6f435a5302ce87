//! Cubins (ELF, `EM_CUDA` = 190): the OpenMP kernels in one, each with its
//! `<kernel>_kernel_environment` and the resources ptxas assigned to it.
//!
//! What marks a kernel: a `FUNC` symbol named `__omp_offloading_*` that is a
//! CUDA entry point (`st_other & STO_CUDA_ENTRY`) or not local. The outlined
//! parallel bodies clang emits at -O0 (`..._omp_outlined`) share the prefix
//! but are local device functions, so the prefix alone is not enough.
//!
//! Where things are (checked on clang 22 / ptxas 12.9 sm_80 and sm_90 cubins):
//! * the kernel environment: a 48-byte `OBJECT` in `.nv.global.init` (or a
//!   constant bank), at `st_value - sh_addr` of the section it points into;
//!   its two pointers are relocations, so only the 28-byte configuration is read;
//! * registers, frame and stack: per-symbol records in the global `.nv.info`;
//! * `.maxntid` and parameter bytes: `.nv.info.<kernel>`;
//! * static shared memory: the size of the `NOBITS` section `.nv.shared.<kernel>`,
//!   less the 1 KiB window the driver reserves per block when the cubin uses
//!   it (it then references `.nv.reservedSmem.offset0`; ptxas 12.9 does so
//!   for sm_90, not sm_80). Checked on an H100: section 1760 bytes,
//!   `cuFuncGetAttribute(SHARED_SIZE_BYTES)` 736.

use super::bytes::{i32_at, slice, utf8};
use super::error::{ElfContext, ImageError};
use super::nvinfo::{self, Attribute};
use object::elf::{FileHeader64, SHN_LORESERVE, SHN_UNDEF, SHT_NOBITS, SHT_SYMTAB, STB_LOCAL, STT_FUNC};
use object::read::elf::{FileHeader, SectionHeader, SectionTable, Sym};
use object::LittleEndian;
use omprt_abi::symbols::{KERNEL_ENVIRONMENT_SUFFIX, KERNEL_PREFIX};
use omprt_abi::{ConfigurationEnvironment, ExecMode};
use std::collections::HashMap;

/// `st_other` bit ptxas sets on `.entry` functions.
pub const STO_CUDA_ENTRY: u8 = 0x10;
const KERNEL_ENVIRONMENT_SIZE: u64 = 48;
/// Symbol a cubin references when its shared sections include the
/// driver-reserved window (`CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK`).
const RESERVED_SMEM_SYMBOL: &[u8] = b".nv.reservedSmem.offset0";
/// Size of that window on sm_80 and later.
pub const RESERVED_SHARED_BYTES: u64 = 1024;

type Elf = FileHeader64<LittleEndian>;

/// Whether `data` is a 64-bit little-endian ELF for `EM_CUDA`.
pub fn is_cubin(data: &[u8]) -> bool {
    Elf::parse(data).is_ok_and(|h| h.e_machine(LittleEndian) == object::elf::EM_CUDA)
}

/// What one cubin holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Cubin<'data> {
    /// `sm_NN` from `e_flags` (ptxas' EF_CUDA_SM field, see [`sm_of`]).
    pub sm: u32,
    /// Kernels in symbol-table order.
    pub kernels: Vec<Kernel<'data>>,
    /// The other functions with resource records (device functions: the
    /// runtime's and clang's outlined regions), in symbol-table order. A
    /// kernel's registers and stack are the maximum over what it can reach,
    /// these included, so they say where a kernel's figures come from.
    pub functions: Vec<Function<'data>>,
}

/// A device function that is not a kernel, with what ptxas recorded for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Function<'data> {
    pub name: &'data str,
    pub registers: Option<u32>,
    /// Bytes of its own stack frame (EIATTR_FRAME_SIZE).
    pub frame_bytes: Option<u32>,
}

/// One OpenMP kernel and its resources. `None` means the cubin has no record
/// of that resource (ptxas omits zero-valued ones for some attributes).
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel<'data> {
    pub name: &'data str,
    /// `None` for `ompx_bare` kernels, which have no kernel environment.
    pub environment: Option<ConfigurationEnvironment>,
    pub registers: Option<u32>,
    /// Bytes of the kernel's own stack frame (EIATTR_FRAME_SIZE).
    pub frame_bytes: Option<u32>,
    /// Stack the driver must reserve per thread, including callees:
    /// EIATTR_MAX_STACK_SIZE when present, else EIATTR_MIN_STACK_SIZE.
    pub stack_bytes: Option<u32>,
    /// Static shared memory as the driver counts it: `.nv.shared.<kernel>`
    /// without the reserved window (0 when there is no such section).
    pub static_shared_bytes: u64,
    /// The driver-reserved window included in `.nv.shared.<kernel>`: 0 or
    /// [`RESERVED_SHARED_BYTES`].
    pub reserved_shared_bytes: u64,
    /// `.maxntid` (EIATTR_MAX_THREADS), clang's constant thread bound.
    pub max_ntid: Option<[u32; 3]>,
    /// Bytes of kernel parameters (EIATTR_CBANK_PARAM_SIZE).
    pub param_bytes: Option<u16>,
}

impl Kernel<'_> {
    /// The execution mode; BARE when there is no kernel environment, the way
    /// LLVM's plugin treats such kernels.
    pub fn mode(&self) -> ExecMode {
        self.environment.map_or(ExecMode::BARE, |e| e.mode())
    }
}

/// The display name of an execution mode (docs/abi.md#execution-modes).
pub fn mode_name(mode: ExecMode) -> String {
    match mode.bits() {
        0 => "BARE".into(),
        1 => "GENERIC".into(),
        2 => "SPMD".into(),
        3 => "GENERIC_SPMD".into(),
        6 => "SPMD_NO_LOOP".into(),
        other => format!("unknown({other})"),
    }
}

/// Resources ptxas recorded for one function symbol.
#[derive(Default, Clone, Copy)]
struct Resources {
    registers: Option<u32>,
    frame: Option<u32>,
    min_stack: Option<u32>,
    max_stack: Option<u32>,
}

impl Resources {
    fn apply(&mut self, attr: &Attribute<'_>) {
        let Some((_, value)) = attr.per_function() else { return };
        match attr.attribute {
            nvinfo::EIATTR_REGCOUNT => self.registers = Some(value),
            nvinfo::EIATTR_FRAME_SIZE => self.frame = Some(value),
            nvinfo::EIATTR_MIN_STACK_SIZE => self.min_stack = Some(value),
            nvinfo::EIATTR_MAX_STACK_SIZE => self.max_stack = Some(value),
            _ => {}
        }
    }
}

/// The `sm_NN` number in a cubin's `e_flags`: bits 8..16 in the ELF ABI
/// version 8 that CUDA 13's tools write, the low byte in version 7 (CUDA 12's
/// ptxas and libnvJitLink: sm_70 is `0x460546`, where bits 8..16 hold 5).
pub fn sm_of(abi_version: u8, e_flags: u32) -> u32 {
    if abi_version >= 8 { (e_flags >> 8) & 0xff } else { e_flags & 0xff }
}

/// Reads the kernels of a cubin.
pub fn parse(data: &[u8]) -> Result<Cubin<'_>, ImageError> {
    let header = Elf::parse(data).reading("cubin ELF header")?;
    let endian = LittleEndian;
    if header.e_machine(endian) != object::elf::EM_CUDA {
        return Err(ImageError::UnsupportedElf { what: "e_machine is not EM_CUDA (190)" });
    }
    let sm = sm_of(header.e_ident().abi_version, header.e_flags(endian));
    let sections = header.sections(endian, data).reading("cubin section headers")?;
    let symbols = sections.symbols(endian, data, SHT_SYMTAB).reading("cubin symbol table")?;

    // Per-symbol resources from the global `.nv.info`.
    let mut resources: HashMap<u32, Resources> = HashMap::new();
    if let Some((_, info)) = sections.section_by_name(endian, b".nv.info") {
        let bytes = info.data(endian, data).reading(".nv.info contents")?;
        for attr in nvinfo::parse(bytes, ".nv.info")? {
            if let Some((symbol, _)) = attr.per_function() {
                resources.entry(symbol).or_default().apply(&attr);
            }
        }
    }

    let mut environments: HashMap<&[u8], &object::elf::Sym64<LittleEndian>> = HashMap::new();
    let mut candidates = Vec::new();
    let mut functions = Vec::new();
    let mut uses_reserved_smem = false;
    for (index, symbol) in symbols.enumerate() {
        let name = symbols.symbol_name(endian, symbol).reading("cubin symbol name")?;
        if name == RESERVED_SMEM_SYMBOL {
            uses_reserved_smem = true;
        } else if name.ends_with(KERNEL_ENVIRONMENT_SUFFIX.as_bytes()) {
            environments.insert(name, symbol);
        } else if symbol.st_type() == STT_FUNC
            && symbol.st_shndx(endian) != SHN_UNDEF
            // Every entry point (GCC names its kernels `f$_omp_fn$N`), and
            // clang's kernels even where the entry flag is missing.
            && (symbol.st_other() & STO_CUDA_ENTRY != 0
                || (name.starts_with(KERNEL_PREFIX.as_bytes()) && symbol.st_bind() != STB_LOCAL))
        {
            candidates.push((index.0, utf8(name, "kernel symbol name")?));
        } else if symbol.st_type() == STT_FUNC
            && let Some(own) = resources.get(&(index.0 as u32))
        {
            functions.push(Function { name: utf8(name, "function symbol name")?, registers: own.registers, frame_bytes: own.frame });
        }
    }

    let mut kernels = Vec::with_capacity(candidates.len());
    for (index, name) in candidates {
        let env_name = format!("{name}{KERNEL_ENVIRONMENT_SUFFIX}");
        let environment = match environments.get(env_name.as_bytes()) {
            Some(symbol) => Some(read_environment(&sections, data, symbol, name)?),
            None => None,
        };
        let mut own = resources.get(&(index as u32)).copied().unwrap_or_default();
        let mut max_ntid = None;
        let mut param_bytes = None;
        let info_name = format!(".nv.info.{name}");
        if let Some((_, info)) = sections.section_by_name(endian, info_name.as_bytes()) {
            let bytes = info.data(endian, data).reading("per-kernel .nv.info contents")?;
            for attr in nvinfo::parse(bytes, &info_name)? {
                match attr.attribute {
                    nvinfo::EIATTR_MAX_THREADS => {
                        max_ntid = match (attr.word(0), attr.word(1), attr.word(2)) {
                            (Some(x), Some(y), Some(z)) => Some([x, y, z]),
                            _ => None,
                        }
                    }
                    nvinfo::EIATTR_CBANK_PARAM_SIZE => param_bytes = attr.half(),
                    // Some ptxas versions put the per-function records here.
                    _ if attr.per_function().is_some_and(|(sym, _)| sym as usize == index) => own.apply(&attr),
                    _ => {}
                }
            }
        }
        let shared_name = format!(".nv.shared.{name}");
        let section_bytes = sections.section_by_name(endian, shared_name.as_bytes()).map_or(0, |(_, s)| s.sh_size(endian));
        let reserved_shared_bytes = if uses_reserved_smem { section_bytes.min(RESERVED_SHARED_BYTES) } else { 0 };
        kernels.push(Kernel {
            name,
            environment,
            registers: own.registers,
            frame_bytes: own.frame,
            stack_bytes: own.max_stack.or(own.min_stack),
            static_shared_bytes: section_bytes - reserved_shared_bytes,
            reserved_shared_bytes,
            max_ntid,
            param_bytes,
        });
    }
    Ok(Cubin { sm, kernels, functions })
}

/// Decodes the configuration part of `<kernel>_kernel_environment`.
fn read_environment<'data>(
    sections: &SectionTable<'data, Elf, &'data [u8]>,
    data: &'data [u8],
    symbol: &object::elf::Sym64<LittleEndian>,
    kernel: &str,
) -> Result<ConfigurationEnvironment, ImageError> {
    let endian = LittleEndian;
    let fail = |detail: String| ImageError::KernelEnvironment { kernel: kernel.to_owned(), detail };
    let size = symbol.st_size(endian);
    if size != KERNEL_ENVIRONMENT_SIZE {
        return Err(fail(format!("symbol size is {size}, expected {KERNEL_ENVIRONMENT_SIZE}")));
    }
    let shndx = symbol.st_shndx(endian);
    if shndx == SHN_UNDEF || shndx >= SHN_LORESERVE {
        return Err(fail(format!("symbol is not in a regular section (index {shndx:#x})")));
    }
    let section = sections
        .section(object::SectionIndex(usize::from(shndx)))
        .map_err(|e| fail(format!("section index {shndx}: {e}")))?;
    if section.sh_type(endian) == SHT_NOBITS {
        return Err(fail("symbol points into a NOBITS section (no initial value)".into()));
    }
    let contents = section.data(endian, data).map_err(|e| fail(format!("section contents: {e}")))?;
    let offset = symbol
        .st_value(endian)
        .checked_sub(section.sh_addr(endian))
        .ok_or_else(|| fail("symbol value lies below its section's address".into()))?;
    let env = slice(contents, offset, KERNEL_ENVIRONMENT_SIZE, "kernel environment")
        .map_err(|e| fail(e.to_string()))?;
    let word = |at: u64| i32_at(env, at, "kernel environment field");
    Ok(ConfigurationEnvironment {
        use_generic_state_machine: env[0],
        may_use_nested_parallelism: env[1],
        exec_mode: env[2],
        min_threads: word(4)?,
        max_threads: word(8)?,
        min_teams: word(12)?,
        max_teams: word(16)?,
        reduction_data_size: word(20)?,
        reduction_buffer_length: word(24)?,
    })
}

#[cfg(test)]
mod tests {
    use super::sm_of;

    #[test]
    fn the_arch_is_read_where_each_elf_abi_version_puts_it() {
        // e_flags of `ptxas -c` 12.9 (sm_70, sm_90), nvlink 13 (sm_90).
        assert_eq!(sm_of(7, 0x0046_0546), 70);
        assert_eq!(sm_of(7, 0x005a_055a), 90);
        assert_eq!(sm_of(8, 0x0600_5a04), 90);
    }
}
