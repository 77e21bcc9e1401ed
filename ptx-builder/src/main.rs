//! Writes the PTX that build.rs compiled to the path given as the only argument, with the
//! register cap of every kernel that has one in the registry
//! (`gpu_kernels::registry::max_registers`) as a `.maxnreg` directive: rust-cuda cannot emit one
//! (it has no launch-bounds attribute), and in the PTX the cap reaches every consumer (the
//! driver's JIT, ptxas, the xtask resource checks) with nothing else to apply it.
use std::{env, fs, path::PathBuf, process::ExitCode};

const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/gpu_kernels.ptx"));

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
    let Some(out) = env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: ptx-builder OUTPUT.ptx");
        return ExitCode::from(2);
    };
    if let Some(dir) = out.parent()
        && let Err(e) = fs::create_dir_all(dir)
    {
        eprintln!("cannot create {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    let ptx = with_maxnreg(PTX, gpu_kernels::registry::max_registers);
    if let Err(e) = fs::write(&out, &ptx) {
        eprintln!("cannot write {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    println!(
        "wrote {} ({} bytes, {})",
        out.display(),
        ptx.len(),
        env!("GPU_KERNELS_PTX_ARCH")
    );
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
