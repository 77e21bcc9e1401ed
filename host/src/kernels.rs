//! Every kernel in the PTX with its launch block, and its occupancy: the project's calculator
//! beside the driver's answer.
use anyhow::{Context as _, Result};
use cust::function::{BlockSize, FunctionAttribute};
use gpu_kernels::apsp::FW_CONFIGS;
use serde::Serialize;

use rgk_core::occupancy::{self, KernelResources, SmLimits};

use crate::{gpu::Gpu, matmul};

#[derive(Clone, Copy, Debug, Serialize)]
pub struct Launch {
    pub name: &'static str,
    pub family: &'static str,
    pub block: (u32, u32),
    /// Dynamic shared memory per block (the flagship SGEMM kernels'; 0 for the others).
    pub dynamic_shared_bytes: u32,
}

pub fn launches() -> Vec<Launch> {
    let mut all: Vec<Launch> = matmul::gpu::kernels()
        .into_iter()
        .map(|k| Launch {
            name: k.name,
            family: k.family,
            block: k.block,
            dynamic_shared_bytes: matmul::flagship::flagship_config(k.name)
                .map_or(0, |c| c.shared_bytes()),
        })
        .collect();
    for c in FW_CONFIGS {
        for (name, t) in [
            (c.phase1, c.threads),
            (c.phase2, c.phase2_threads()),
            (c.phase3, c.phase3_threads),
        ] {
            all.push(Launch {
                name,
                family: "floyd-warshall",
                block: (t, t),
                dynamic_shared_bytes: 0,
            });
        }
    }
    all
}

#[derive(Clone, Debug, Serialize)]
pub struct OccupancyRow {
    pub kernel: &'static str,
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
        let f = match matmul::flagship::flagship_config(l.name) {
            // Allowed its dynamic shared memory first, as launches do.
            Ok(cfg) => matmul::flagship::flagship_function(gpu, cfg)?,
            Err(_) => gpu.function(l.name)?,
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
            family: l.family,
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
