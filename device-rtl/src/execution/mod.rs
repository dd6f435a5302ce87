//! The execution model: how a kernel starts and ends ([`kernel`]), its
//! parallel regions ([`parallel`]), the team and thread state with the ICVs
//! ([`state`]), and who is who ([`mapping`], over the hardware [`ids`]).

pub mod ids;
pub mod kernel;
pub mod mapping;
pub mod parallel;
pub mod state;
