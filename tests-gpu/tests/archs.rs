//! Every supported arch links (docs/install.md, "Toolkit per architecture"):
//! a subset of the corpus (`xtask::corpus::ARCH_LINKS`) for sm_70 ... sm_120
//! with the project's CUDA folder, each image a cubin for its arch. sm_70 is
//! linked by libnvJitLink through the folder's `nvlink` (CUDA 13's nvlink
//! refuses it: `Value 'sm_70' is not defined for option 'arch'`).

use xtask::corpus;

#[test]
fn the_corpus_subset_links_for_every_supported_arch() {
    let summary = corpus::check_archs(&corpus::Options::default()).unwrap_or_else(|e| panic!("{e}"));
    println!("{}", summary.render());
    assert_eq!(summary.builds.len(), corpus::SUPPORTED_ARCHS.len() * corpus::ARCH_LINKS.len());
    assert!(summary.ok(), "links that failed:\n{}", summary.render());
    for arch in ["sm_70", "sm_80", "sm_90"] {
        assert!(summary.builds.iter().any(|b| b.program == "saxpy.c" && b.opt.starts_with(arch)), "saxpy is not linked for {arch}");
    }
}
