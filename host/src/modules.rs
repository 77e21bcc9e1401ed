//! The kernels' modules on one GPU, one per [`ModuleGroup`], each loaded on first use: a command
//! loads only the groups whose kernels it runs. The embedded kernels load from the fatbinaries
//! the build made (SASS for the GPUs in [`crate::fatbin::SASS_ARCHS`], PTX for any other);
//! a PTX file (`--ptx`, `GPU_KERNELS_PTX`) is cut into the same groups and JIT-compiled group by
//! group, under the same register caps.
//!
//! The Hopper group (sm_90a code, arch-specific) is handed to the driver on compute capability
//! 9.0 alone ([`image_for`]); a `--ptx` file replaces the portable groups only.
use std::cell::OnceCell;

use anyhow::{Context as _, Result, bail};
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

/// The embedded fatbinary of `group` for a GPU of compute capability `cc`, or `None` where the
/// group's code is arch-specific to another one ([`ModuleGroup::only_on`]): the one place that
/// decides whether a GPU may receive sm_90a code.
pub fn image_for(group: ModuleGroup, cc: (u32, u32)) -> Option<&'static [u8]> {
    match group.only_on() {
        Some(only) if only != cc => None,
        _ => Some(embedded_fatbin(group)),
    }
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
    /// The GPU's compute capability, which decides whether arch-specific groups may load.
    cc: (u32, u32),
    loaded: [OnceCell<Module>; ModuleGroup::ALL.len()],
}

impl Modules {
    /// The kernels built into the binary, for a GPU of compute capability `cc`.
    pub(crate) fn embedded(cc: (u32, u32)) -> Modules {
        Modules {
            images: Images::Embedded,
            cc,
            loaded: Default::default(),
        }
    }

    /// The kernels of a PTX text, for the driver to JIT-compile (the Hopper group still comes
    /// from the binary: the text is one compute_80-style module).
    pub(crate) fn from_ptx(ptx: &str, cc: (u32, u32)) -> Modules {
        Modules {
            cc,
            images: Images::Ptx(
                ModuleGroup::ALL
                    .iter()
                    .map(|&g| group_ptx(ptx, g))
                    .collect(),
            ),
            loaded: Default::default(),
        }
    }

    /// Whether this GPU may load `group` (arch-specific groups load on their one GPU only).
    pub(crate) fn available(&self, group: ModuleGroup) -> bool {
        image_for(group, self.cc).is_some()
    }

    /// The module of `group`, loaded on first use in the current context.
    pub(crate) fn module(&self, group: ModuleGroup) -> Result<&Module> {
        let cell = &self.loaded[group.index()];
        if let Some(m) = cell.get() {
            return Ok(m);
        }
        let Some(fatbin) = image_for(group, self.cc) else {
            let (major, minor) = group.only_on().unwrap_or_default();
            bail!(
                "the {} kernels are machine code for compute capability {major}.{minor} only, and this GPU is {}.{}",
                group.name(),
                self.cc.0,
                self.cc.1
            );
        };
        let m = match &self.images {
            Images::Ptx(texts) if group.only_on().is_none() => {
                Module::from_ptx(&texts[group.index()], &[])
            }
            _ => Module::from_fatbin(fatbin, &[]),
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
    use crate::fatbin::{ImageKind, elf_sm, images, sass_archs};

    /// Without a GPU, the next best check: every embedded fatbinary holds an ELF for each
    /// architecture listed, built for that architecture, and the PTX for any other GPU.
    #[test]
    fn embedded_fatbins_hold_sass_for_every_arch_and_the_ptx() {
        for g in ModuleGroup::ALL {
            let ptx_sm: u32 = crate::gpu::ptx_target(g.source_ptx())
                .map(|(major, minor)| major * 10 + minor)
                .expect("the PTX has a .target");
            let imgs = images(embedded_fatbin(g)).unwrap_or_else(|e| panic!("{}: {e}", g.name()));
            for arch in sass_archs(g) {
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
            assert_eq!(imgs.len(), sass_archs(g).len() + 1, "{}: images", g.name());
        }
    }

    /// Whether a fatbinary holds arch-specific code: sm_90a SASS, or PTX for compute_90a.
    fn arch_specific(fatbin: &[u8]) -> bool {
        images(fatbin).unwrap().iter().any(|i| {
            i.arch_specific
                || (i.kind == ImageKind::Ptx
                    && String::from_utf8_lossy(i.payload).contains(".target sm_90a"))
        })
    }

    /// An sm_80 device (or any but 9.0) never receives sm_90a code; a 9.0 device receives the
    /// Hopper group, and every device every portable group.
    #[test]
    fn sm90a_code_goes_to_compute_capability_9_0_only() {
        let ccs = [
            (8, 0),
            (8, 6),
            (8, 7),
            (8, 9),
            (9, 0),
            (10, 0),
            (10, 3),
            (12, 0),
        ];
        for cc in ccs {
            for g in ModuleGroup::ALL {
                match image_for(g, cc) {
                    Some(fatbin) => assert!(
                        cc == (9, 0) || !arch_specific(fatbin),
                        "{}: sm_90a code for {cc:?}",
                        g.name()
                    ),
                    None => assert!(g.only_on().is_some() && cc != (9, 0), "{}", g.name()),
                }
                let m = Modules::embedded(cc);
                assert_eq!(m.available(g), image_for(g, cc).is_some());
            }
        }
        // The Hopper fatbinary is the one with sm_90a code, and 9.0 gets it.
        let hopper = image_for(ModuleGroup::Hopper, (9, 0)).expect("9.0 loads the Hopper group");
        assert!(arch_specific(hopper));
        for g in ModuleGroup::ALL
            .into_iter()
            .filter(|&g| g != ModuleGroup::Hopper)
        {
            assert!(!arch_specific(embedded_fatbin(g)), "{}", g.name());
        }
        // Loading it elsewhere fails with one sentence, before the driver sees any image.
        let modules = Modules::embedded((8, 0));
        let Err(err) = modules.module(ModuleGroup::Hopper) else {
            panic!("the Hopper group loaded on 8.0");
        };
        let err = err.to_string();
        assert!(
            err.contains("compute capability 9.0 only") && err.contains("8.0"),
            "{err}"
        );
    }

    #[test]
    fn each_kernel_is_in_the_cubins_of_its_group() {
        // The ELF's string table names every kernel it holds: the group's SASS must hold its
        // own kernels and no other group's.
        let mut names = crate::gpu::ptx_kernel_names(gpu_kernels::PTX);
        names.extend(crate::gpu::ptx_kernel_names(gpu_kernels::PTX_SM90A));
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
