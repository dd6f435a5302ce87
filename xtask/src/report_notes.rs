//! The explanations `cargo xtask report` prints beside each computed case
//! where omprt is worse than LLVM 19's runtime. The cases themselves come
//! from the tables; a note here says why one holds. The report test fails on
//! a note that matches no case, so a closed case takes its note with it.

/// Why one kernel's figure is above LLVM 19's: the table (`-O2`, `-O0`,
/// `--lto`, `--bench`, as `cargo xtask static-cost` takes them), the program,
/// the kernel as the table shows it (`l74`; for `--bench`, `function l21`),
/// and the figure (`registers`, `stack bytes`, `shared bytes`).
pub struct CostNote {
    pub table: &'static str,
    pub program: &'static str,
    pub kernel: &'static str,
    pub what: &'static str,
    pub why: &'static str,
}

/// Why omprt's compiles get an openmp-opt remark that LLVM 19's do not.
pub struct RemarkNote {
    pub id: &'static str,
    pub why: &'static str,
}

/// No corpus kernel needs more than with LLVM 19's runtime: the lowering
/// tests `no_kernel_costs_more_than_with_llvm19*` hold that bar, so a note
/// here is for a benchmark kernel, which those tests do not check.
pub const COST_NOTES: &[CostNote] = &[CostNote {
    table: "--bench",
    program: "launch.c",
    kernel: "empty_spmd l23",
    what: "registers",
    why: "An empty `target teams distribute parallel for`, whose code is all the runtime's: the kernel \
          start, the distribute loop and a parallel region per chunk. launch.c also has a generic-mode \
          kernel, and `__kmpc_target_init`, called by both kernels when openmp-opt runs (before the \
          inliner), stores each kernel's mode in the team state: openmp-opt cannot fold the mode the \
          region reads in every chunk. The same kernel alone in a file takes 9 registers (the mode \
          folds), and 6 with `-foffload-lto`, whose link runs openmp-opt again after inlining. With \
          any loop body (stream.c's copy, sched.c's loops) omprt's kernel needs fewer registers than \
          LLVM 19's.",
}];

pub const REMARK_NOTES: &[RemarkNote] = &[RemarkNote {
    id: "OMP113",
    why: "\"could not move globalized variable to the stack\", reported without a source line: the \
          variable is the runtime's own, not the user's. The runtime calls an outlined region with N \
          captured variables through `call_with::<N>` (device-rtl's parallel region call), a function \
          of its own while openmp-opt runs, so that clang inlines it only afterwards \
          (`.omprt.always_inline_later`, see xtask's `ir_rewrite`); its indirect call may capture the \
          pointers it passes. The variables the user's code globalizes get the same remarks as with \
          LLVM 19 (the table above), and no `__kmpc_*` function is left out of line in the \
          programs' -O2 images (lowering test \
          `corpus_links_passes_ptxas_and_finds_every_entry_point_with_its_exact_type`).",
}];
