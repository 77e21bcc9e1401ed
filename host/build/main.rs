//! Build script of `host`: links the lazy libcuda loader (see `lazy_cuda`), compiles the kernels'
//! machine code into the fatbinaries the host embeds (see `sass`), and records the source
//! revision for the `commit` field of every JSON output (see `commit`).
mod commit;
mod cuda_h;
// Shared with the host (host::fatbin), which also reads fatbinaries back.
#[allow(dead_code)]
#[path = "../src/fatbin.rs"]
mod fatbin;
mod lazy_cuda;
mod sass;

fn main() {
    println!("cargo::rerun-if-changed=build");
    println!("cargo::rerun-if-changed=src/fatbin.rs");
    lazy_cuda::build();
    sass::build();
    commit::build();
}
