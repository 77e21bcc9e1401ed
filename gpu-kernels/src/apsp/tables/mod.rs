//! The tables of the APSP kernels added beside the three-phase ones: paths, small graphs,
//! batches, out-of-core. Each is one `for_each_*!` list (the single source of its kernels, which
//! expand it in `..`) and the typed table the host and the registry read. `#[macro_use]` so the
//! lists are in scope for the kernel modules declared after `tables` in `apsp/mod.rs`.
#[macro_use]
mod batch;
#[macro_use]
mod ooc;
#[macro_use]
mod paths;
#[macro_use]
mod small;

pub use batch::*;
pub use ooc::*;
pub use paths::*;
pub use small::*;
