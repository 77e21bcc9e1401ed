//! GPU tests for the SGEMM kernels. Without a GPU they print "SKIPPED …" and pass; they run on
//! the GPU machine through scripts/gpu-run.sh.
use host::{
    gpu::gpu_for_test,
    matmul::gpu::{self as mgpu, Kernel, Problem},
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::reference::{self, check};

fn check_kernel(gpu: &host::gpu::Gpu, kernel: &Kernel, m: usize, n: usize, k: usize, seed: u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let a = reference::random_matrix(m, k, &mut rng);
    let b = reference::random_matrix(k, n, &mut rng);
    let r = mgpu::run(
        gpu,
        kernel,
        &Problem {
            a: &a,
            b: &b,
            m,
            n,
            k,
        },
        1,
    )
    .unwrap_or_else(|e| panic!("{}: {e:#}", kernel.name));
    let rows = if m > 1024 {
        Some(reference::sample_rows(m, 48, seed))
    } else {
        None
    };
    let re = reference::reference(&a, &b, m, n, k, rows.as_deref());
    let c = check(&r.c, &re);
    assert!(
        c.passed(),
        "{} on {m}x{n}x{k}: {} failures, worst {:?}",
        kernel.name,
        c.failures,
        c.worst
    );
}

#[test]
fn every_kernel_square_1024() {
    let Some(gpu) = gpu_for_test("every_kernel_square_1024") else {
        return;
    };
    for kernel in mgpu::kernels() {
        check_kernel(&gpu, &kernel, 1024, 1024, 1024, 1);
    }
}

#[test]
fn every_kernel_odd_shapes() {
    let Some(gpu) = gpu_for_test("every_kernel_odd_shapes") else {
        return;
    };
    // (m, n, k)
    for (i, &(m, n, k)) in [
        (1, 1, 1),
        (17, 33, 5),
        (1000, 777, 129),
        (4099, 1, 4097),
        (4097, 4095, 1023),
    ]
    .iter()
    .enumerate()
    {
        for kernel in mgpu::kernels() {
            check_kernel(&gpu, &kernel, m, n, k, 10 + i as u64);
        }
    }
}

#[test]
fn nan_and_inf_propagate_like_the_reference() {
    let Some(gpu) = gpu_for_test("nan_and_inf_propagate_like_the_reference") else {
        return;
    };
    let (m, n, k) = (70, 65, 67);
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut a = reference::random_matrix(m, k, &mut rng);
    let mut b = reference::random_matrix(k, n, &mut rng);
    a[5 * k + 3] = f32::NAN; // row 5 of C becomes NaN
    b[2 * n + 7] = f32::INFINITY; // column 7 of C becomes ±Inf (or NaN where it meets row 5)
    let re = reference::reference(&a, &b, m, n, k, None);
    assert!(
        re.c[5 * n].is_nan() && re.c[7].is_infinite(),
        "test inputs must produce NaN and Inf"
    );
    for kernel in mgpu::kernels() {
        let r = mgpu::run(
            &gpu,
            &kernel,
            &Problem {
                a: &a,
                b: &b,
                m,
                n,
                k,
            },
            1,
        )
        .unwrap();
        let c = check(&r.c, &re);
        assert!(
            c.passed(),
            "{}: {} failures, worst {:?}",
            kernel.name,
            c.failures,
            c.worst
        );
    }
}
