//! Build script of `host`: links the lazy libcuda loader (see `lazy_cuda`).
mod cuda_h;
mod lazy_cuda;

fn main() {
    println!("cargo::rerun-if-changed=build");
    lazy_cuda::build();
}
