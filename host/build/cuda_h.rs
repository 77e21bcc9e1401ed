//! The driver entry points that cuda.h declares. Shared by the host's build script (the lazy
//! libcuda loader) and `cargo xtask setup` (the link-time stub), which include this file with
//! `#[path]`, so that both agree on one list.
use std::collections::BTreeSet;

/// Every driver entry point named in cuda.h, with the versioned (`_v2`, `_ptds`, `_ptsz`)
/// symbols its `#define`s map them to: the set of names a program built against cuda.h links.
pub fn entry_points(cuda_h: &str) -> BTreeSet<String> {
    fn ident(s: &str) -> &str {
        let end = s
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(s.len());
        &s[..end]
    }
    fn is_api(name: &str) -> bool {
        name.len() > 2
            && name.starts_with("cu")
            && name[2..].starts_with(|c: char| c.is_ascii_uppercase())
    }
    let mut names = BTreeSet::new();
    for line in cuda_h.lines() {
        let line = line.trim();
        if let Some(pos) = line.find("CUDAAPI ") {
            let name = ident(line[pos + 8..].trim_start());
            if is_api(name) {
                names.insert(name.to_string());
            }
        }
        if let Some(rest) = line.strip_prefix("#define ") {
            let mut parts = rest.split_whitespace();
            let (Some(lhs), Some(rhs)) = (parts.next(), parts.next()) else {
                continue;
            };
            if !is_api(lhs) {
                continue;
            }
            for (wrapper, suffix) in [("__CUDA_API_PTDS(", "_ptds"), ("__CUDA_API_PTSZ(", "_ptsz")]
            {
                if let Some(inner) = rhs.strip_prefix(wrapper) {
                    let name = ident(inner);
                    if is_api(name) {
                        names.insert(name.to_string());
                        names.insert(format!("{name}{suffix}"));
                    }
                }
            }
            let name = ident(rhs);
            if is_api(name) {
                names.insert(name.to_string());
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_points_follow_version_defines() {
        let h = "#define cuCtxCreate cuCtxCreate_v4\n\
                 #define cuMemcpy __CUDA_API_PTDS(cuMemcpy)\n\
                 CUresult CUDAAPI cuInit(unsigned int Flags);\n\
                 CUresult CUDAAPI cuCtxCreate(CUcontext *pctx);\n\
                 #define CUDA_VERSION 13000\n";
        let names = entry_points(h);
        for n in [
            "cuInit",
            "cuCtxCreate",
            "cuCtxCreate_v4",
            "cuMemcpy",
            "cuMemcpy_ptds",
        ] {
            assert!(names.contains(n), "{n} missing from {names:?}");
        }
        assert!(!names.contains("CUDA_VERSION"));
    }
}
