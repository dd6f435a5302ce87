//! The image reader on executables clang 22 really builds: the facts
//! `llvm-objdump-22 --offloading` and `llvm-readelf-22` show for them.

mod common;

use omprt_abi::ExecMode;
use omprt_host::image::{self, Container, ImageKind, Producer};

#[test]
fn saxpy_o2_has_one_sm90_cubin_with_one_spmd_kernel() {
    let bytes = common::build("saxpy.c", "-O2");
    let input = image::read(&bytes).unwrap();
    assert_eq!(input.container, Container::HostExecutable);
    assert_eq!(input.images.len(), 1);
    let img = &input.images[0];
    assert_eq!((img.triple.as_ref(), img.arch.as_ref()), ("nvptx64-nvidia-cuda", "sm_90"));
    // clang 22 labels a linked cubin IMG_Object ("elf" in llvm-objdump).
    assert_eq!(img.kind, ImageKind::Object);
    assert_eq!(img.producer, Some(Producer::OPENMP));
    let cubin = img.cubin().expect("a cubin").unwrap();
    assert_eq!(cubin.sm, 90);
    assert_eq!(cubin.kernels.len(), 1, "{:#?}", cubin.kernels);
    let k = &cubin.kernels[0];
    assert!(k.name.starts_with("__omp_offloading_") && k.name.ends_with("_main_l13"), "{}", k.name);
    let env = k.environment.expect("kernel environment");
    assert_eq!(k.mode(), ExecMode::SPMD);
    assert_eq!((env.use_generic_state_machine, env.min_threads, env.max_threads), (0, 1, 128));
    assert!(!env.has_teams_reduction());
    assert_eq!(k.max_ntid, Some([128, 1, 1]), "nvvm.maxntid from the default thread limit");
    assert!(k.registers.is_some_and(|r| (1..=255).contains(&r)), "{:?}", k.registers);
    assert!(k.stack_bytes.is_some());
    // openmp-opt folds every access to the runtime's team state in this kernel
    // (lowering.rs checks how); the generic kernel below keeps it.
    assert_eq!(k.static_shared_bytes, 0, "saxpy's team state is folded away");
    assert!([0, image::cubin::RESERVED_SHARED_BYTES].contains(&k.reserved_shared_bytes));
    // saxpy's kernel takes the launch environment plus 4 mapped arguments.
    assert_eq!(k.param_bytes, Some(8 * 5));
}

#[test]
fn teams_o0_has_a_generic_kernel_and_no_outlined_functions_listed() {
    let bytes = common::build("teams.c", "-O0");
    let input = image::read(&bytes).unwrap();
    let cubin = input.images[0].cubin().unwrap().unwrap();
    // At -O0 the outlined parallel body is a local `__omp_offloading_*_omp_outlined`
    // function: not a kernel.
    assert_eq!(cubin.kernels.len(), 1, "{:#?}", cubin.kernels);
    let k = &cubin.kernels[0];
    assert_eq!(image::mode_name(k.mode()), "GENERIC");
    assert_eq!(k.environment.map(|e| e.use_generic_state_machine), Some(1));
    assert!(k.static_shared_bytes > 0, "the runtime keeps its team state in shared memory");
    // ... but a function with its own resources, and the kernel needs at least
    // the registers of every function (it reaches them all here).
    let outlined = cubin.functions.iter().find(|f| f.name.ends_with("_omp_outlined")).expect("the outlined body");
    assert!(outlined.registers.is_some() && outlined.frame_bytes.is_some(), "{outlined:?}");
    assert!(cubin.functions.iter().any(|f| f.name == "__kmpc_target_init"), "{:#?}", cubin.functions);
    assert!(!cubin.functions.iter().any(|f| f.name == k.name), "the kernel is not listed again");
    let most = cubin.functions.iter().filter_map(|f| f.registers).max().unwrap();
    assert!(k.registers.unwrap() >= most, "kernel {:?} < a function's {most}", k.registers);
    let report = omprt_host::report::functions("teams", &input);
    assert!(report.contains("__kmpc_target_init") && report.lines().any(|l| l.trim_start().starts_with(&most.to_string())), "{report}");
}

#[test]
fn an_extracted_cubin_reads_like_the_embedded_one() {
    let bytes = common::build("parallel_for.c", "-O2");
    let input = image::read(&bytes).unwrap();
    let embedded = input.images[0].cubin().unwrap().unwrap();
    let alone = image::read(input.images[0].bytes).unwrap();
    assert_eq!(alone.container, Container::Cubin);
    assert_eq!(alone.images[0].arch, "sm_90");
    assert_eq!(alone.images[0].cubin().unwrap().unwrap(), embedded);
    assert_eq!(embedded.kernels.len(), 2);
    let report = omprt_host::report::info("parallel_for", &input);
    assert!(report.contains("SPMD") && report.contains("max-threads"), "{report}");
}
