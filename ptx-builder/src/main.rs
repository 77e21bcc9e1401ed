//! Writes the PTX that build.rs compiled to the path given as the only argument.
use std::{env, fs, path::PathBuf, process::ExitCode};

const PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/gpu_kernels.ptx"));

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
    if let Err(e) = fs::write(&out, PTX) {
        eprintln!("cannot write {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    println!(
        "wrote {} ({} bytes, {})",
        out.display(),
        PTX.len(),
        env!("GPU_KERNELS_PTX_ARCH")
    );
    ExitCode::SUCCESS
}
