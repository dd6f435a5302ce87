//! omprt's OpenMP corpus. The programs live in `programs/` (each with a
//! `.expected` output for GPU runs); `tests/lowering.rs` compiles them with
//! clang 22 against the runtime through `xtask::corpus`; `results/` records
//! on-GPU runs (`scripts/gpu-bundle.sh` + `scripts/gpu-run.sh`).
