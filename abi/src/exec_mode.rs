//! `OMPTgtExecModeFlags`: the kernel execution mode stored in
//! `ConfigurationEnvironment::exec_mode`.

bitflags::bitflags! {
    /// A `u8` in the kernel environment. The runtime tests the SPMD bit only:
    /// GENERIC_SPMD (a kernel openmp-opt SPMDized) behaves like SPMD.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct ExecMode: u8 {
        /// Main thread runs sequential code; workers serve parallel regions.
        const GENERIC = 1;
        /// All threads execute the region.
        const SPMD = 2;
        /// Flang's "one iteration per thread" SPMD kernels (`SPMD | 4`).
        const NO_LOOP = 4;
        /// Written by openmp-opt after SPMDization (remark OMP120).
        const GENERIC_SPMD = Self::GENERIC.bits() | Self::SPMD.bits();
        const SPMD_NO_LOOP = Self::SPMD.bits() | Self::NO_LOOP.bits();
    }
}

impl ExecMode {
    /// `ompx_bare` kernels: no kernel environment, no runtime initialisation.
    pub const BARE: ExecMode = ExecMode::empty();

    pub const fn is_spmd(self) -> bool {
        self.contains(ExecMode::SPMD)
    }
}
