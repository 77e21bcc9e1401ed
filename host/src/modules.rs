//! The kernels' modules on one GPU, one per [`ModuleGroup`], each loaded on first use: a command
//! loads only the groups whose kernels it runs. The embedded kernels load from the fatbinaries
//! the build made (SASS for the GPUs in [`crate::fatbin::SASS_ARCHS`], PTX for any other);
//! a PTX file (`--ptx`, `GPU_KERNELS_PTX`) is cut into the same groups and JIT-compiled group by
//! group, under the same register caps.
use std::cell::OnceCell;

use anyhow::{Context as _, Result};
use cust::{error::CudaError, function::Function, module::Module};
use gpu_kernels::ModuleGroup;

use crate::fatbin::group_ptx;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/fatbins.rs"));
}

/// The fatbinary of `group` built into this binary.
pub fn embedded_fatbin(group: ModuleGroup) -> &'static [u8] {
    embedded::FATBINS[group.index()]
}

/// The version of the ptxas that built the embedded SASS (`V13.0.88`).
pub const PTXAS_VERSION: &str = embedded::PTXAS_VERSION;

/// What the modules are loaded from.
enum Images {
    Embedded,
    /// A PTX file's text, cut per group (in the order of [`ModuleGroup::ALL`]).
    Ptx(Vec<String>),
}

pub(crate) struct Modules {
    images: Images,
    loaded: [OnceCell<Module>; ModuleGroup::ALL.len()],
}

impl Modules {
    /// The kernels built into the binary.
    pub(crate) fn embedded() -> Modules {
        Modules {
            images: Images::Embedded,
            loaded: Default::default(),
        }
    }

    /// The kernels of a PTX text, for the driver to JIT-compile.
    pub(crate) fn from_ptx(ptx: &str) -> Modules {
        Modules {
            images: Images::Ptx(
                ModuleGroup::ALL
                    .iter()
                    .map(|&g| group_ptx(ptx, g))
                    .collect(),
            ),
            loaded: Default::default(),
        }
    }

    /// The module of `group`, loaded on first use in the current context.
    pub(crate) fn module(&self, group: ModuleGroup) -> Result<&Module> {
        let cell = &self.loaded[group.index()];
        if let Some(m) = cell.get() {
            return Ok(m);
        }
        let m = match &self.images {
            Images::Embedded => Module::from_fatbin(embedded_fatbin(group), &[]),
            Images::Ptx(texts) => Module::from_ptx(&texts[group.index()], &[]),
        }
        .with_context(|| format!("the driver could not load the {} kernels", group.name()))?;
        Ok(cell.get_or_init(|| m))
    }

    /// A kernel by name, from its group's module; `None` for a name in no group or not in its
    /// group's module.
    pub(crate) fn function(&self, name: &str) -> Result<Option<Function<'_>>> {
        let Some(group) = ModuleGroup::of(name) else {
            return Ok(None);
        };
        match self.module(group)?.get_function(name) {
            Ok(f) => Ok(Some(f)),
            Err(CudaError::NotFound) => Ok(None),
            Err(e) => Err(e).with_context(|| format!("looking up kernel {name}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fatbin::{ImageKind, SASS_ARCHS, elf_sm, images};

    /// Without a GPU, the next best check: every embedded fatbinary holds an ELF for each
    /// architecture listed, built for that architecture, and the PTX for any other GPU.
    #[test]
    fn embedded_fatbins_hold_sass_for_every_arch_and_the_ptx() {
        let ptx_sm: u32 = crate::gpu::ptx_target(gpu_kernels::PTX)
            .map(|(major, minor)| major * 10 + minor)
            .expect("the PTX has a .target");
        for g in ModuleGroup::ALL {
            let imgs = images(embedded_fatbin(g)).unwrap_or_else(|e| panic!("{}: {e}", g.name()));
            for arch in SASS_ARCHS {
                let specific = arch.ends_with('a');
                let sm: u32 = arch.trim_end_matches('a').parse().unwrap();
                let elf = imgs
                    .iter()
                    .find(|i| i.kind == ImageKind::Elf && i.sm == sm && i.arch_specific == specific)
                    .unwrap_or_else(|| panic!("{}: no SASS for sm_{arch}", g.name()));
                assert_eq!(
                    elf_sm(elf.payload),
                    Some(sm),
                    "{}: sm_{arch} ELF header",
                    g.name()
                );
                assert!(!elf.compressed, "{}: sm_{arch} compressed", g.name());
            }
            let ptx: Vec<_> = imgs.iter().filter(|i| i.kind == ImageKind::Ptx).collect();
            assert_eq!(ptx.len(), 1, "{}: PTX images", g.name());
            assert_eq!(ptx[0].sm, ptx_sm, "{}: PTX target", g.name());
            assert_eq!(imgs.len(), SASS_ARCHS.len() + 1, "{}: images", g.name());
        }
    }

    #[test]
    fn each_kernel_is_in_the_cubins_of_its_group() {
        // The ELF's string table names every kernel it holds: the group's SASS must hold its
        // own kernels and no other group's.
        let names = crate::gpu::ptx_kernel_names(gpu_kernels::PTX);
        for g in ModuleGroup::ALL {
            let imgs = images(embedded_fatbin(g)).unwrap();
            let elf = imgs.iter().find(|i| i.kind == ImageKind::Elf).unwrap();
            let strings: std::collections::HashSet<&[u8]> =
                elf.payload.split(|&b| b == 0).collect();
            let has = |n: &str| strings.contains(n.as_bytes());
            for n in &names {
                let mine = ModuleGroup::of(n) == Some(g);
                assert_eq!(has(n), mine, "{n} in the {} SASS", g.name());
            }
        }
    }
}
