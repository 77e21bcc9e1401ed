//! The library's error type: callers can tell "no GPU" from "bad input" from a failure on the GPU.
use std::fmt;

/// No usable GPU: no NVIDIA driver, no CUDA device, a driver too old, or a GPU the kernels
/// cannot run on. The CLI reports it in one sentence with exit code 3; GPU tests skip on it.
#[derive(Debug, Clone)]
pub struct NoGpu(pub String);

impl fmt::Display for NoGpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NoGpu {}

/// What went wrong in a library call.
#[derive(Debug)]
pub enum Error {
    /// There is no GPU to run on (see [`NoGpu`]).
    NoGpu(NoGpu),
    /// The arguments or the input data are invalid; the message names the problem.
    BadInput(String),
    /// The GPU or the driver failed while working (out of memory, a launch error, …).
    Gpu(anyhow::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoGpu(e) => write!(f, "{e}"),
            Error::BadInput(msg) => f.write_str(msg),
            Error::Gpu(e) => write!(f, "{e:#}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::NoGpu(e) => Some(e),
            Error::BadInput(_) => None,
            Error::Gpu(e) => Some(e.as_ref()),
        }
    }
}

impl From<NoGpu> for Error {
    fn from(e: NoGpu) -> Self {
        Error::NoGpu(e)
    }
}

/// Sorts an internal error into the public kinds: a [`NoGpu`] or an
/// [`rgk_core::BadInput`] anywhere in the chain decides the kind.
impl From<anyhow::Error> for Error {
    fn from(e: anyhow::Error) -> Self {
        if let Some(no_gpu) = e.downcast_ref::<NoGpu>() {
            return Error::NoGpu(no_gpu.clone());
        }
        if e.chain().any(|c| c.is::<rgk_core::BadInput>()) {
            return Error::BadInput(format!("{e:#}"));
        }
        Error::Gpu(e)
    }
}

impl From<cust::error::CudaError> for Error {
    fn from(e: cust::error::CudaError) -> Self {
        Error::Gpu(e.into())
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
