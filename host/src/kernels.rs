//! Every kernel of the registry (`gpu_kernels::registry`) with its launch block, and its
//! occupancy: the project's calculator beside the driver's answer.
use anyhow::{Context as _, Result};
use cust::function::{BlockSize, FunctionAttribute};
use gpu_kernels::registry::{KERNELS, KernelSpec};
use serde::Serialize;

use rgk_core::occupancy::{self, KernelResources, SmLimits};

use crate::gpu::Gpu;

/// Every kernel with its launch geometry, in registry order: what `host occupancy` and `host
/// bench` iterate, so a kernel added to a list is measured without another edit.
pub fn launches() -> impl Iterator<Item = &'static KernelSpec> {
    KERNELS.iter()
}

#[derive(Clone, Debug, Serialize)]
pub struct OccupancyRow {
    pub kernel: &'static str,
    /// The kernel's `gpu_kernels::registry::Family`, by name.
    pub family: &'static str,
    pub threads: u32,
    pub registers: u32,
    pub static_shared_bytes: u32,
    pub dynamic_shared_bytes: u32,
    pub blocks_per_sm: u32,
    pub driver_blocks_per_sm: u32,
    pub occupancy: f64,
    pub limiter: String,
    pub summary: String,
}

impl OccupancyRow {
    pub fn matches_driver(&self) -> bool {
        self.blocks_per_sm == self.driver_blocks_per_sm
    }
}

pub fn occupancy_rows(gpu: &Gpu) -> Result<Vec<OccupancyRow>> {
    let info = gpu.info()?;
    let (major, minor) = info.compute_capability;
    let limits = SmLimits::for_compute_capability(major, minor).with_context(|| {
        format!("the occupancy calculator has no limits for compute capability {major}.{minor}")
    })?;
    let mut rows = Vec::new();
    for l in launches() {
        // Arch-specific kernels (sm_90a) exist on their one GPU only.
        if gpu_kernels::ModuleGroup::of(l.name).is_some_and(|g| !gpu.has_group(g)) {
            continue;
        }
        // Allowed its dynamic shared memory first, as launches do.
        let f = match l.dynamic_shared_bytes {
            0 => gpu.function(l.name)?,
            bytes => gpu.function_with_shared(l.name, bytes)?,
        };
        let registers = f.get_attribute(FunctionAttribute::NumRegisters)? as u32;
        let static_shared_bytes = f.get_attribute(FunctionAttribute::SharedMemorySizeBytes)? as u32;
        let threads = l.block.0 * l.block.1;
        let res = KernelResources {
            threads_per_block: threads,
            registers_per_thread: registers,
            static_shared_bytes,
            dynamic_shared_bytes: l.dynamic_shared_bytes,
        };
        let occ =
            occupancy::occupancy(&limits, &res).map_err(|e| anyhow::anyhow!("{}: {e}", l.name))?;
        let driver = f.max_active_blocks_per_multiprocessor(
            BlockSize::xy(l.block.0, l.block.1),
            l.dynamic_shared_bytes as usize,
        )?;
        rows.push(OccupancyRow {
            kernel: l.name,
            family: l.family.name(),
            threads,
            registers,
            static_shared_bytes,
            dynamic_shared_bytes: l.dynamic_shared_bytes,
            blocks_per_sm: occ.blocks_per_sm,
            driver_blocks_per_sm: driver,
            occupancy: occ.occupancy,
            limiter: occ.limiter.as_str().to_string(),
            summary: occupancy::describe(&occ),
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use gpu_kernels::registry::{self, Family};

    use crate::gpu::ptx_kernel_names;

    /// The registry and the committed PTX name the same kernels: a row added to a `for_each_*!`
    /// list is a registry entry (with its family, geometry and cap) and, once `cargo xtask
    /// build-ptx` has run, a PTX entry; a kernel in the PTX without a registry entry fails here.
    #[test]
    fn the_registry_is_the_ptx_entry_list() {
        let mut in_ptx = ptx_kernel_names(gpu_kernels::PTX);
        in_ptx.extend(ptx_kernel_names(gpu_kernels::PTX_SM90A));
        let mut in_registry: Vec<String> = super::launches().map(|k| k.name.into()).collect();
        in_ptx.sort();
        in_registry.sort();
        assert_eq!(in_ptx, in_registry);
    }

    /// Each entry of the committed PTX carries the register cap the registry gives it, and no
    /// other (ptx-builder writes them; a stale PTX fails here).
    #[test]
    fn the_ptx_carries_the_registry_register_caps() {
        let mut caps = Vec::new();
        let mut current = None;
        for line in gpu_kernels::PTX
            .lines()
            .chain(gpu_kernels::PTX_SM90A.lines())
        {
            if let Some(rest) = line.trim().strip_prefix(".visible .entry ") {
                current = rest.split('(').next().map(str::trim);
                caps.push((current.unwrap(), None));
            } else if let Some(n) = line.trim().strip_prefix(".maxnreg ") {
                let last = caps.last_mut().expect(".maxnreg before any entry");
                assert_eq!(Some(last.0), current);
                last.1 = Some(n.parse::<u32>().unwrap());
            }
        }
        assert!(
            caps.iter().any(|c| c.1.is_some()),
            "no capped kernel in the PTX"
        );
        for (name, cap) in caps {
            assert_eq!(cap, registry::max_registers(name), "{name}");
        }
    }

    #[test]
    fn launches_cover_every_family() {
        for f in Family::ALL {
            assert!(super::launches().any(|k| k.family == f), "{f}");
        }
    }
}
