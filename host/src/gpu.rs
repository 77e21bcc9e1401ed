//! The driver layer: driver start-up, PTX loading and the [`Gpu`]; device facts (`info`), event
//! timing (`timing`), driver status codes and the free-memory check (`driver`). It imports no
//! runner: what a runner keeps per GPU is its own type, held in `state`.
mod driver;
mod info;
mod state;
mod timing;

use std::{
    ffi::c_int,
    fmt,
    path::{Path, PathBuf},
};

use anyhow::{Context as _, Result};
use cust::{
    context::Context,
    device::{Device, DeviceAttribute},
    stream::{Stream, StreamFlags},
};
use cust_raw::driver_sys;

pub use self::{
    driver::{
        DriverError, Share, check as check_driver, check_free_memory, check_shares_fit, free_memory,
    },
    info::DeviceInfo,
    timing::{Timing, median, time_interleaved, time_on_stream},
};
pub use crate::error::NoGpu;
use crate::modules::Modules;

/// Starts the driver API, naming the reason in one sentence when there is no usable GPU.
pub fn init_driver() -> std::result::Result<(), NoGpu> {
    // Called raw because cust folds CUDA_ERROR_STUB_LIBRARY into "UnknownError".
    // SAFETY: cuInit takes flags 0 and nothing else; it may be called any number of times.
    let code = unsafe { driver_sys::cuInit(0) } as c_int;
    match code {
        0 => Ok(()),
        // What the lazy loader (host/build/lazy_cuda.rs) answers when libcuda.so.1 is absent.
        34 => Err(NoGpu(
            "no NVIDIA driver was found (libcuda.so.1 is not installed); GPU commands need an \
             NVIDIA GPU and driver"
                .into(),
        )),
        100 => Err(NoGpu(
            "the NVIDIA driver found no CUDA-capable GPU (CUDA_ERROR_NO_DEVICE)".into(),
        )),
        35 => Err(NoGpu(
            "the installed NVIDIA driver is too old for this program (CUDA_ERROR_INSUFFICIENT_DRIVER)".into(),
        )),
        other => Err(NoGpu(format!(
            "the CUDA driver failed to start (cuInit returned error {other})"
        ))),
    }
}

/// Which PTX a [`Gpu`] loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PtxSource {
    /// `gpu_kernels::PTX`, built into the binary with its SASS (`crate::modules`).
    Embedded,
    /// A file given with `--ptx` or `GPU_KERNELS_PTX`.
    File(PathBuf),
}

impl fmt::Display for PtxSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PtxSource::Embedded => write!(
                f,
                "the embedded kernels ({} with SASS for sm_{} from ptxas {})",
                gpu_kernels::PTX_PATH,
                crate::fatbin::SASS_ARCHS.join(", sm_"),
                crate::modules::PTXAS_VERSION
            ),
            PtxSource::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// The PTX to load: `explicit` if given, else the file named by `GPU_KERNELS_PTX`, else the
/// PTX embedded at build time.
pub fn ptx_text(explicit: Option<&Path>) -> Result<(String, PtxSource)> {
    let path = match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => std::env::var_os("GPU_KERNELS_PTX").map(PathBuf::from),
    };
    match path {
        None => Ok((gpu_kernels::PTX.to_string(), PtxSource::Embedded)),
        Some(p) => {
            let text = std::fs::read_to_string(&p).map_err(|e| {
                rgk_core::BadInput(format!("cannot read PTX file {}: {e}", p.display()))
            })?;
            Ok((text, PtxSource::File(p)))
        }
    }
}

/// The compute capability a PTX module needs: its `.target sm_XY` line.
pub fn ptx_target(ptx: &str) -> Option<(u32, u32)> {
    let line = ptx
        .lines()
        .find_map(|l| l.trim().strip_prefix(".target "))?;
    let sm = line.split([',', ' ']).next()?.strip_prefix("sm_")?;
    let digits: String = sm.chars().take_while(char::is_ascii_digit).collect();
    let n: u32 = digits.parse().ok()?;
    Some((n / 10, n % 10))
}

/// Kernel entry points named in PTX text.
pub fn ptx_kernel_names(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| l.trim().strip_prefix(".visible .entry "))
        .map(|rest| {
            rest.split('(')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string()
        })
        .collect()
}

/// The parameter list of entry `name` in PTX text (between its parentheses), if it is there:
/// what a kernel that takes one `#[repr(C)]` struct by value must show as one `.param` of the
/// struct's size (the host passes a pointer to the struct as the only argument).
pub fn ptx_entry_params<'a>(ptx: &'a str, name: &str) -> Option<&'a str> {
    let head = format!(".visible .entry {name}(");
    let rest = &ptx[ptx.find(&head)? + head.len()..];
    Some(&rest[..rest.find(')')?])
}

/// GPUs the driver sees (after [`init_driver`]).
pub fn device_count() -> Result<u32> {
    Device::num_devices().context("counting GPUs")
}

/// A context on one device (device 0 unless [`Gpu::on_device`]) with the project's kernels,
/// whose modules load on first use ([`Gpu::function`]).
pub struct Gpu {
    modules: Modules,
    /// What runners keep on this GPU between calls (their device memory is freed before the
    /// context, which is dropped last).
    runner_state: state::RunnerState,
    pub stream: Stream,
    pub device: Device,
    ordinal: u32,
    /// Which PTX was loaded.
    pub ptx_source: PtxSource,
    /// The kernels [`Gpu::function`] can load: the PTX's entries that belong to a module group
    /// (all of the embedded PTX's; a `--ptx` file's others are never loaded).
    pub kernels: Vec<String>,
    // Dropped last: everything above lives in this context.
    _context: Context,
}

impl Gpu {
    /// Device 0 with the project's kernels: the embedded PTX unless `ptx` (or the environment
    /// variable `GPU_KERNELS_PTX`) names a file. Fails with [`NoGpu`] where there is no driver,
    /// no GPU, or a GPU older than the PTX's target.
    pub fn new(ptx: Option<&Path>) -> crate::Result<Gpu> {
        Self::open(0, ptx).map_err(crate::Error::from)
    }

    /// As [`Gpu::new`] on device `ordinal` (as the driver numbers them; [`device_count`]).
    /// Its context (the device's primary context) is made current on this thread; with several
    /// `Gpu`s, call [`Gpu::make_current`] before working on one.
    pub fn on_device(ordinal: u32, ptx: Option<&Path>) -> crate::Result<Gpu> {
        Self::open(ordinal, ptx).map_err(crate::Error::from)
    }

    /// Makes this GPU's context current on the calling thread: launches, copies, streams and
    /// events then go to this GPU.
    pub fn make_current(&self) -> Result<()> {
        cust::context::CurrentContext::set_current(&self._context)
            .context("making a GPU's context current")
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> u32 {
        self.ordinal
    }

    fn open(ordinal: u32, ptx: Option<&Path>) -> Result<Gpu> {
        init_driver()?;
        let device =
            Device::get_device(ordinal).with_context(|| format!("opening GPU {ordinal}"))?;
        let (text, ptx_source) = ptx_text(ptx)?;
        let have = (
            device.get_attribute(DeviceAttribute::ComputeCapabilityMajor)? as u32,
            device.get_attribute(DeviceAttribute::ComputeCapabilityMinor)? as u32,
        );
        if let Some(need) = ptx_target(&text)
            && have < need
        {
            return Err(NoGpu(format!(
                "GPU {ordinal} ({}) has compute capability {}.{}, but the kernels need {}.{} or newer \
                 (asynchronous global-to-shared copies and the larger shared memory of Ampere)",
                device.name()?,
                have.0,
                have.1,
                need.0,
                need.1
            ))
            .into());
        }
        let context = Context::new(device).context("creating a CUDA context")?;
        let modules = match ptx_source {
            PtxSource::Embedded => Modules::embedded(have),
            PtxSource::File(_) => Modules::from_ptx(&text, have),
        };
        // The Hopper kernels come from their own module, where this GPU may load it.
        let mut kernels = ptx_kernel_names(&text);
        if modules.available(gpu_kernels::ModuleGroup::Hopper) {
            kernels.extend(ptx_kernel_names(gpu_kernels::PTX_SM90A));
        }
        let stream = Stream::new(StreamFlags::NON_BLOCKING, None)?;
        Ok(Gpu {
            modules,
            runner_state: Default::default(),
            kernels: kernels
                .into_iter()
                .filter(|n| gpu_kernels::ModuleGroup::of(n).is_some())
                .collect(),
            stream,
            device,
            ordinal,
            ptx_source,
            _context: context,
        })
    }

    /// A kernel by name, from the module of its group (`gpu_kernels::ModuleGroup`), which is
    /// loaded on first use: from the SASS built into the binary, or JIT-compiled from `--ptx`'s
    /// file, each kernel under the register cap its PTX entry carries (`.maxnreg`). A missing
    /// kernel names the PTX it was looked for in (a stale `--ptx` file, say).
    pub fn function(&self, name: &str) -> Result<cust::function::Function<'_>> {
        self.modules.function(name)?.with_context(|| {
            format!(
                "kernel {name} is not in {} (rebuild it with `cargo xtask build-ptx`)",
                self.ptx_source
            )
        })
    }

    /// The kernel `name`, allowed `bytes` of dynamic shared memory per block: above the default
    /// 48 KB a function's `MAX_DYNAMIC_SHARED_SIZE_BYTES` must be raised before it is launched
    /// (or asked for its occupancy) with that much. The one place every runner does it.
    pub fn function_with_shared(
        &self,
        name: &str,
        bytes: u32,
    ) -> Result<cust::function::Function<'_>> {
        let func = self.function(name)?;
        // SAFETY: a valid function handle of a loaded module; the attribute takes a byte count.
        let status = unsafe {
            driver_sys::cuFuncSetAttribute(
                func.to_raw(),
                driver_sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                bytes as i32,
            )
        };
        check_driver(status, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)").with_context(
            || format!("{name} needs {bytes} B of shared memory per block, which this GPU does not allow"),
        )?;
        Ok(func)
    }

    /// Whether this GPU may load the kernels of `group` (the Hopper group needs compute
    /// capability 9.0).
    pub fn has_group(&self, group: gpu_kernels::ModuleGroup) -> bool {
        self.modules.available(group)
    }

    /// The runner state of type `T` on this GPU, made with `T::default()` on first use (see
    /// `state`). Held no longer than the `Gpu` is borrowed.
    pub(crate) fn runner_state<T: Default + 'static>(&self) -> std::rc::Rc<T> {
        self.runner_state.get()
    }

    pub fn info(&self) -> Result<DeviceInfo> {
        DeviceInfo::of(self.device)
    }

    /// The GPU's streaming multiprocessors.
    pub fn multiprocessors(&self) -> Result<u32> {
        Ok(self
            .device
            .get_attribute(cust::device::DeviceAttribute::MultiprocessorCount)
            .context("reading the multiprocessor count")? as u32)
    }
}

/// For GPU tests: the GPU, or `None` after printing why the test is skipped. With
/// `REQUIRE_GPU` set ([`rgk_core::testdata::require_gpu`]; scripts/gpu-run.sh sets it on the GPU
/// machine) a missing GPU fails the test instead, so that a broken driver setup cannot pass as
/// a run of skips.
pub fn gpu_for_test(test: &str) -> Option<Gpu> {
    if let Err(e) = init_driver() {
        if rgk_core::testdata::require_gpu() {
            panic!("{test}: REQUIRE_GPU is set but {e}");
        }
        rgk_core::testdata::skip(test, &e.to_string());
        return None;
    }
    Some(
        Gpu::new(None)
            .unwrap_or_else(|e| panic!("{test}: a GPU is present but setup failed: {e:#}")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_names_from_ptx() {
        let ptx =
            ".visible .entry matmul_tiled_t16(\n.param .u64 a\n)\n.visible .entry fw_phase1_b64(";
        assert_eq!(
            ptx_kernel_names(ptx),
            vec!["matmul_tiled_t16", "fw_phase1_b64"]
        );
        assert_eq!(
            ptx_entry_params(ptx, "matmul_tiled_t16"),
            Some("\n.param .u64 a\n")
        );
        assert_eq!(ptx_entry_params(ptx, "fw_phase1_b64"), None, "unclosed");
        assert_eq!(ptx_entry_params(ptx, "matmul_tiled"), None);
    }

    #[test]
    fn explicit_missing_ptx_is_named() {
        let err = ptx_text(Some(Path::new("/nonexistent/k.ptx"))).unwrap_err();
        assert!(err.is::<rgk_core::BadInput>());
        assert!(err.to_string().contains("/nonexistent/k.ptx"), "{err}");
    }

    #[test]
    fn target_of_ptx() {
        assert_eq!(ptx_target(".version 8.8\n.target sm_80\n"), Some((8, 0)));
        assert_eq!(ptx_target(".target sm_90a, debug\n"), Some((9, 0)));
        assert_eq!(ptx_target("no target"), None);
    }

    #[test]
    fn embedded_ptx_is_a_module() {
        // The committed PTX must be what the host embeds: a module with every kernel the
        // launch tables name.
        let mut names = ptx_kernel_names(gpu_kernels::PTX);
        names.extend(ptx_kernel_names(gpu_kernels::PTX_SM90A));
        assert!(ptx_target(gpu_kernels::PTX).is_some(), "no .target line");
        assert_eq!(ptx_target(gpu_kernels::PTX_SM90A), Some((9, 0)));
        for k in crate::kernels::launches() {
            assert!(names.iter().any(|n| n == k.name), "{} missing", k.name);
        }
    }
}
