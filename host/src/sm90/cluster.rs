//! Launching the pair kernels in thread-block clusters (`cuLaunchKernelEx`: cust launches without
//! cluster dimensions) and counting how many clusters the GPU holds at once.
use std::ffi::c_void;

use anyhow::{Context as _, Result};
use cust::function::Function;
use cust_raw::driver_sys;
use gpu_kernels::sm90::WgmmaConfig;

use super::Sm90Launch;
use crate::gpu::Gpu;

/// The `cuLaunchKernelEx` configuration of `cfg` in clusters of `cfg.cluster` blocks along x,
/// `grid` blocks, on `stream`; `attr` receives the cluster dimension the config points to.
fn cluster_config(
    cfg: &WgmmaConfig,
    grid: u32,
    stream: driver_sys::CUstream,
    attr: &mut driver_sys::CUlaunchAttribute,
) -> driver_sys::CUlaunchConfig {
    attr.id = driver_sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim = driver_sys::CUlaunchAttributeValue_union__bindgen_ty_1 {
        x: cfg.cluster,
        y: 1,
        z: 1,
    };
    driver_sys::CUlaunchConfig {
        gridDimX: grid,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: cfg.threads(),
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: cfg.shared_bytes(),
        hStream: stream,
        attrs: attr,
        numAttrs: 1,
    }
}

/// How many clusters of `cfg` the GPU holds at once (`cuOccupancyMaxActiveClusters`). Not the
/// SM count over the cluster size: a cluster's blocks must share one GPC, and a GPC with an odd
/// number of free SMs leaves one idle, so a persistent grid of `SMs / 2` pairs would start
/// some pairs only after others finished (session 7's pair kernels at 56-73 % of cuBLAS).
pub(super) fn max_active_clusters(gpu: &Gpu, func: &Function, cfg: &WgmmaConfig) -> Result<u32> {
    // SAFETY: a launch-attribute value is plain data; zero is a valid start for the union.
    let mut attr: driver_sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    let config = cluster_config(
        cfg,
        cfg.cluster * gpu.multiprocessors()?,
        gpu.stream.as_inner() as driver_sys::CUstream,
        &mut attr,
    );
    let mut n: std::os::raw::c_int = 0;
    // SAFETY: `func` is a loaded kernel whose dynamic shared memory limit was raised to the
    // config's (`function_with_shared`); `config` and `attr` outlive the call; `n` is written.
    let status =
        unsafe { driver_sys::cuOccupancyMaxActiveClusters(&mut n, func.to_raw(), &config) };
    crate::gpu::check_driver(status, "cuOccupancyMaxActiveClusters")
        .with_context(|| format!("clusters of {}", cfg.name))?;
    match u32::try_from(n) {
        Ok(n) if n > 0 => Ok(n),
        _ => anyhow::bail!("{} fits no cluster on this GPU", cfg.name),
    }
}

impl Sm90Launch<'_> {
    /// A pair kernel's launch: clusters of `cfg.cluster` blocks along x (`cuLaunchKernelEx`;
    /// cust launches without cluster dimensions).
    pub(super) fn launch_clusters(&self, args: &[*mut c_void; 1]) -> Result<()> {
        // SAFETY: a launch-attribute value is plain data; zero is a valid start for the union.
        let mut attr: driver_sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        let config = cluster_config(
            self.cfg,
            self.grid,
            self.gpu.stream.as_inner() as driver_sys::CUstream,
            &mut attr,
        );
        // SAFETY: as `launch` (the same argument, buffers, maps and shared memory); the grid is
        // a multiple of the cluster size (`Schedule::pair_grid`), the kernel a pair kernel, which
        // needs exactly these cluster dimensions; `config` and `attr` outlive the call.
        let status = unsafe {
            driver_sys::cuLaunchKernelEx(
                &config,
                self.func.to_raw(),
                args.as_ptr() as *mut *mut c_void,
                std::ptr::null_mut(),
            )
        };
        crate::gpu::check_driver(status, "cuLaunchKernelEx")
            .with_context(|| format!("launching {}", self.cfg.name))
    }
}
