//! Build script of `host`: links the lazy libcuda loader (see `lazy_cuda`) and records the
//! commit the binary is built from (`RGK_BUILD_COMMIT`, see `commit`).
mod commit;
mod cuda_h;
mod lazy_cuda;

fn main() {
    println!("cargo::rerun-if-changed=build");
    lazy_cuda::build();
    commit::build();
}
