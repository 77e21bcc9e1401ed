//! Shared libraries loaded at run time (cuBLAS, NCCL), so that the binary starts without them:
//! the first of a list of candidate names that loads, and its entry points resolved into typed
//! function pointers. Each user resolves its table once per process (a `OnceLock`) and keeps the
//! library loaded for the rest of it, so the pointers stay valid.
use std::fmt;

use libloading::Library;

/// Why a run-time library cannot be used.
#[derive(Clone, Debug)]
pub enum LoadError {
    /// None of the candidate names loaded: each with the loader's reason.
    NotFound {
        library: &'static str,
        tried: Vec<String>,
    },
    /// The library loaded but lacks an entry point (a version too old, say).
    MissingSymbol {
        path: String,
        symbol: &'static str,
        reason: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NotFound { library, tried } => {
                write!(f, "{library} could not be loaded ({})", tried.join("; "))
            }
            LoadError::MissingSymbol {
                path,
                symbol,
                reason,
            } => write!(f, "{path} has no entry point {symbol} ({reason})"),
        }
    }
}

impl std::error::Error for LoadError {}

/// A loaded library and the file it came from.
pub struct Loaded {
    pub lib: Library,
    pub path: String,
}

/// The first of `candidates` (file names or paths, as `dlopen` takes them) that loads;
/// `library` names it in the error.
pub fn open_first(library: &'static str, candidates: &[String]) -> Result<Loaded, LoadError> {
    let mut tried = Vec::new();
    for path in candidates {
        // SAFETY: loading runs the library's initialisers. The candidates are the CUDA
        // libraries named by their standard file names (or the user's override of them), whose
        // initialisers only set up the library itself.
        match unsafe { Library::new(path) } {
            Ok(lib) => {
                return Ok(Loaded {
                    lib,
                    path: path.clone(),
                });
            }
            Err(e) => tried.push(format!("{path}: {e}")),
        }
    }
    Err(LoadError::NotFound { library, tried })
}

impl Loaded {
    /// The entry point `symbol` as a `T` (a function pointer type).
    ///
    /// # Safety
    /// `T` must be the type of `symbol` as the library's C header declares it, and the pointer
    /// may be called only while `self` is loaded.
    pub unsafe fn symbol<T: Copy>(&self, symbol: &'static str) -> Result<T, LoadError> {
        // SAFETY: the caller promises that `T` is the symbol's type.
        unsafe { self.lib.get::<T>(symbol.as_bytes()) }
            .map(|s| *s)
            .map_err(|e| LoadError::MissingSymbol {
                path: self.path.clone(),
                symbol,
                reason: e.to_string(),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_names_every_candidate() {
        let names = ["/nonexistent/libnothing.so.1".to_string()];
        let e = open_first("the nothing library", &names)
            .err()
            .expect("no such file");
        let text = e.to_string();
        assert!(
            text.starts_with("the nothing library could not be loaded (/nonexistent/libnothing"),
            "{text}"
        );
        assert!(!text.contains('\n'), "{text}");
    }
}
