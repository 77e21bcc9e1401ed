//! Writes the PTX that build.rs compiled to the paths given as arguments (the portable module,
//! then the compute_90a Hopper module), each with the
//! register cap of every kernel that has one in the registry
//! (`gpu_kernels::registry::max_registers`) as a `.maxnreg` directive: rust-cuda cannot emit one
//! (it has no launch-bounds attribute), and in the PTX the cap reaches every consumer (the
//! driver's JIT, ptxas, the xtask resource checks) with nothing else to apply it.
use std::{env, fs, path::PathBuf, process::ExitCode};

const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/gpu_kernels.ptx"));
const PTX_SM90A: &str = include_str!(concat!(env!("OUT_DIR"), "/gpu_kernels.sm90a.ptx"));

/// `ptx` with `.maxnreg N` after the parameter list of each entry that `cap` gives an `N`
/// (PTX: `.entry name (params) .maxnreg N { body }`).
fn with_maxnreg(ptx: &str, cap: impl Fn(&str) -> Option<u32>) -> String {
    let mut out = String::with_capacity(ptx.len() + 1024);
    let mut pending = None;
    for line in ptx.lines() {
        if let Some(rest) = line.trim_start().strip_prefix(".visible .entry ") {
            pending = cap(rest.split('(').next().unwrap_or_default().trim());
        }
        if let Some(n) = pending
            && line.trim() == "{"
        {
            out.push_str(&format!(".maxnreg {n}\n"));
            pending = None;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn main() -> ExitCode {
    let args: Vec<PathBuf> = env::args_os().skip(1).map(PathBuf::from).collect();
    let [out, out_sm90a] = args.as_slice() else {
        eprintln!("usage: ptx-builder OUTPUT.ptx OUTPUT.sm90a.ptx");
        return ExitCode::from(2);
    };
    for (path, ptx, arch) in [
        (out, PTX, env!("GPU_KERNELS_PTX_ARCH")),
        (out_sm90a, PTX_SM90A, "compute_90a"),
    ] {
        if let Some(dir) = path.parent()
            && let Err(e) = fs::create_dir_all(dir)
        {
            eprintln!("cannot create {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
        let ptx = with_maxnreg(ptx, gpu_kernels::registry::max_registers);
        if let Err(e) = fs::write(path, &ptx) {
            eprintln!("cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {} ({} bytes, {arch})", path.display(), ptx.len());
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maxnreg_goes_on_capped_entries_only() {
        let ptx = ".visible .entry fw_a(\n.param .u32 p\n)\n{\nret;\n}\n.visible .entry mm(\n)\n{\nret;\n}\n";
        let out = with_maxnreg(ptx, |name| (name == "fw_a").then_some(32));
        assert_eq!(out.matches(".maxnreg 32").count(), 1);
        let at = out.find(".maxnreg 32").unwrap();
        assert!(
            at > out.find("fw_a(").unwrap() && at < out.find("mm(").unwrap(),
            "{out}"
        );
        assert_eq!(out.replace(".maxnreg 32\n", ""), ptx);
    }
}
