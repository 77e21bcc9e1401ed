//! The SGEMM tuning cache: which flagship kernel (and rasterization group) won, per shape class,
//! on one GPU with one build of the kernels. `host tune` measures and writes it; the library's
//! `sgemm` reads it and trusts it only when it was written for the same GPU name, compute
//! capability, driver and commit. Anything else (unreadable, corrupt, foreign, from another
//! commit, naming a kernel this build lacks) is ignored with one sentence saying why.
use std::{
    ffi::OsString,
    fmt,
    path::{Path, PathBuf},
};

use gpu_kernels::matmul::stream_k::Schedule;
use serde::{Deserialize, Serialize};

/// The `schema` field of every cache file this version writes and accepts.
pub const SCHEMA: &str = "rgk-sgemm-tune/2";

/// Environment variable naming the cache file; `off` disables the cache (the defaults run).
pub const CACHE_ENV: &str = "RGK_SGEMM_TUNE";

/// Below this K a problem with a large output is [`ShapeClass::ShortK`]: the k-loop is too
/// short for the 128-row tiles' pipeline fill and epilogue to amortize (docs/matmul.md).
pub const SHORT_K: usize = 2048;

/// The problem shapes tuned separately: each has a representative shape that `host tune`
/// times, and [`ShapeClass::of`] says which class a problem falls in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShapeClass {
    /// Output of at most 1536² elements (few blocks per SM with large tiles), skinny shapes.
    Small,
    /// Output up to 3072², K ≥ 2048.
    Medium,
    /// Output up to 6144², K ≥ 2048.
    Large,
    /// Larger outputs, K ≥ 2048.
    Huge,
    /// Output above 1536² with K < 2048.
    ShortK,
}

impl ShapeClass {
    pub const ALL: [ShapeClass; 5] = [
        ShapeClass::Small,
        ShapeClass::Medium,
        ShapeClass::Large,
        ShapeClass::Huge,
        ShapeClass::ShortK,
    ];

    /// The class of an `m x n x k` problem.
    pub fn of(m: usize, n: usize, k: usize) -> ShapeClass {
        let area = m.saturating_mul(n);
        if area <= 1536 * 1536 {
            ShapeClass::Small
        } else if k < SHORT_K {
            ShapeClass::ShortK
        } else if area <= 3072 * 3072 {
            ShapeClass::Medium
        } else if area <= 6144 * 6144 {
            ShapeClass::Large
        } else {
            ShapeClass::Huge
        }
    }

    /// The `(m, n, k)` that `host tune` times for the class: with `vec_b` (B allows 16-byte
    /// copies) a dense shape with N a multiple of 4; without, an odd one (M one more, N one
    /// less, K one more or, for short K, one less), because that is where 4-byte copies are
    /// used, and odd shapes cost the large tiles more than aligned ones (docs/matmul.md).
    pub const fn representative(self, vec_b: bool) -> (usize, usize, usize) {
        match (self, vec_b) {
            (ShapeClass::Small, true) => (1024, 1024, 1024),
            (ShapeClass::Small, false) => (1025, 1023, 1025),
            (ShapeClass::Medium, true) => (2048, 2048, 2048),
            (ShapeClass::Medium, false) => (2049, 2047, 2049),
            (ShapeClass::Large, true) => (4096, 4096, 4096),
            (ShapeClass::Large, false) => (4097, 4095, 4097),
            (ShapeClass::Huge, true) => (8192, 8192, 8192),
            (ShapeClass::Huge, false) => (8193, 8191, 8193),
            (ShapeClass::ShortK, true) => (4096, 4096, 1024),
            (ShapeClass::ShortK, false) => (4097, 4095, 1023),
        }
    }

    /// The name used in the cache file and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            ShapeClass::Small => "small",
            ShapeClass::Medium => "medium",
            ShapeClass::Large => "large",
            ShapeClass::Huge => "huge",
            ShapeClass::ShortK => "short-k",
        }
    }
}

impl fmt::Display for ShapeClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a cache was measured on: it applies only where all four are equal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GpuIdentity {
    pub name: String,
    pub compute_capability: [u32; 2],
    pub driver: String,
    /// The commit the measuring binary was built from (kernels change between commits).
    pub commit: String,
}

impl fmt::Display for GpuIdentity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [ma, mi] = self.compute_capability;
        write!(
            f,
            "{} (compute capability {ma}.{mi}, driver {}, commit {})",
            self.name, self.driver, self.commit
        )
    }
}

/// [`Schedule`] as its name (`serde(with = …)`), in the cache and in `host tune`'s
/// measurements (the kernel crate has no serde).
pub mod schedule_name {
    use super::Schedule;
    use serde::{Deserialize, Deserializer, Serializer, de::Error};

    pub fn serialize<S: Serializer>(s: &Schedule, out: S) -> Result<S::Ok, S::Error> {
        out.serialize_str(s.name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Schedule, D::Error> {
        let name = String::deserialize(d)?;
        Schedule::from_name(&name).ok_or_else(|| {
            D::Error::custom(format!(
                "unknown schedule {name:?} (data-parallel or stream-k)"
            ))
        })
    }
}

/// The winner of one shape class for one way of copying B.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Winner {
    pub class: ShapeClass,
    /// Whether B may be copied in 16-byte pieces (`ldb % 4 == 0`, B 16-byte aligned): the
    /// winner among every kernel; otherwise among those with 4-byte B copies.
    pub vec_b: bool,
    pub kernel: String,
    /// Rasterization group (`SgemmParams::group`), at least 1.
    pub group: u32,
    /// How the grid covers the tiles: `data-parallel` or `stream-k`.
    #[serde(with = "schedule_name")]
    pub schedule: Schedule,
    /// The shape it was timed on, `[m, n, k]`.
    pub shape: [usize; 3],
    pub gflops: f64,
    /// cuBLAS FP32 on the same shape in the same run, when cuBLAS was available.
    pub cublas_gflops: Option<f64>,
    pub percent_of_cublas: Option<f64>,
}

/// A cache file's contents.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneCache {
    pub schema: String,
    pub gpu: GpuIdentity,
    /// UTC, ISO 8601.
    pub date: String,
    /// Wall time of the sweep.
    pub seconds: f64,
    pub winners: Vec<Winner>,
}

impl TuneCache {
    /// Parses a cache file's text and checks it on its own terms: the schema, every winner's
    /// kernel known to this build with the right B copies (`kernel_vec_b(name)` is
    /// `Some(vec_b)` for a known flagship kernel), groups ≥ 1, one winner per (class, vec_b).
    /// The error is one sentence (without the file's name).
    pub fn parse(
        text: &str,
        kernel_vec_b: impl Fn(&str) -> Option<bool>,
    ) -> Result<TuneCache, String> {
        let cache: TuneCache = serde_json::from_str(text)
            .map_err(|e| format!("it is not a valid tuning cache ({e})"))?;
        if cache.schema != SCHEMA {
            return Err(format!("its schema is {:?}, not {SCHEMA:?}", cache.schema));
        }
        for (i, w) in cache.winners.iter().enumerate() {
            match kernel_vec_b(&w.kernel) {
                None => {
                    return Err(format!(
                        "it names a kernel this build does not have ({:?})",
                        w.kernel
                    ));
                }
                Some(v) if v && !w.vec_b => {
                    return Err(format!(
                        "it picks {} (16-byte B copies) for the {} class with 4-byte B copies",
                        w.kernel, w.class
                    ));
                }
                Some(_) => {}
            }
            if w.group == 0 {
                return Err(format!("its {} winner has rasterization group 0", w.class));
            }
            if cache.winners[..i]
                .iter()
                .any(|o| o.class == w.class && o.vec_b == w.vec_b)
            {
                return Err(format!("it has two winners for the {} class", w.class));
            }
        }
        Ok(cache)
    }

    /// `Ok` when the cache was written for `here`; else one sentence saying what differs.
    pub fn check_identity(&self, here: &GpuIdentity) -> Result<(), String> {
        let theirs = &self.gpu;
        if theirs.name != here.name || theirs.compute_capability != here.compute_capability {
            return Err(format!(
                "it was written for another GPU: {theirs}, this is {here}"
            ));
        }
        if theirs.driver != here.driver {
            return Err(format!(
                "it was written under driver {}, this is driver {}",
                theirs.driver, here.driver
            ));
        }
        if theirs.commit != here.commit {
            return Err(format!(
                "it was written by commit {}, this build is commit {}",
                theirs.commit, here.commit
            ));
        }
        Ok(())
    }

    /// The winner for `class` and B copies `vec_b`, if the sweep measured one.
    pub fn choice(&self, class: ShapeClass, vec_b: bool) -> Option<&Winner> {
        self.winners
            .iter()
            .find(|w| w.class == class && w.vec_b == vec_b)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a tuning cache always serializes")
    }
}

/// The outcome of looking for a cache.
#[derive(Debug)]
pub enum Loaded {
    /// Disabled (`RGK_SGEMM_TUNE=off`), no cache directory, or no file: the defaults run.
    Absent,
    /// A cache written for this GPU and build.
    Usable(TuneCache),
    /// A cache that must not be trusted; the sentence names the file and the reason.
    Ignored(String),
}

/// Reads, parses and matches the cache at `path` against `here`.
pub fn load(
    path: &Path,
    here: &GpuIdentity,
    kernel_vec_b: impl Fn(&str) -> Option<bool>,
) -> Loaded {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Loaded::Absent,
        Err(e) => return ignored(path, &format!("it cannot be read ({e})")),
    };
    match TuneCache::parse(&text, kernel_vec_b).and_then(|c| c.check_identity(here).map(|()| c)) {
        Ok(c) => Loaded::Usable(c),
        Err(why) => ignored(path, &why),
    }
}

fn ignored(path: &Path, why: &str) -> Loaded {
    Loaded::Ignored(format!(
        "ignoring the SGEMM tuning cache {}: {why}; using the default kernels (run `host tune` to \
         refresh it)",
        path.display()
    ))
}

/// The cache file: `$RGK_SGEMM_TUNE` if set (`None` for `off`), else
/// `$XDG_CACHE_HOME/rust-gpu-kernels/sgemm-tune.json`, else
/// `$HOME/.cache/rust-gpu-kernels/sgemm-tune.json`; `None` without any of them. `env` reads
/// an environment variable (a parameter so tests need not change the process's environment).
pub fn cache_path(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let nonempty = |k: &str| env(k).filter(|v| !v.is_empty());
    if let Some(p) = nonempty(CACHE_ENV) {
        return (p != "off").then(|| PathBuf::from(p));
    }
    let dir = match nonempty("XDG_CACHE_HOME") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(nonempty("HOME")?).join(".cache"),
    };
    Some(dir.join("rust-gpu-kernels").join("sgemm-tune.json"))
}

/// [`cache_path`] from the process's environment.
pub fn default_cache_path() -> Option<PathBuf> {
    cache_path(|k| std::env::var_os(k))
}

#[cfg(test)]
mod tests;
