//! GPU tests for the skinny SGEMM kernels (tiny N or M, matrix–vector products) through the
//! library (`gemm_device_with_kernel`, and `gemm_device`'s own choice): every kernel against the
//! f64 reference with core's bound at K = 1, M = N = 1, odd shapes, K split and not split,
//! alpha/beta, wide leading dimensions and misaligned operands (the scalar paths), NaN/Inf, and
//! the same bits on a second run (the split-K sum order is fixed). Every skinny kernel also runs
//! through `gpu_matmul.rs`'s all-kernel tests. Without a GPU they print "SKIPPED …" and pass.
use cust::memory::{CopyDestination, DeviceBuffer};
use gpu_kernels::matmul::{
    skinny::{SKINNY_COLS, SKINNY_GEMV, SKINNY_ROWS, SKINNY_ROWS_ASYNC, SkinnyKind},
    stream_k::Schedule,
};
use host::{
    Gemm, Gpu, gemm_device,
    gpu::gpu_for_test,
    matmul::{
        select::{self, Choice},
        sgemm::gemm_device_with_kernel,
        skinny::{SkinnyLaunch, geometry, skinny_config},
    },
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::reference::random_padded;
use rgk_core::matmul::reference::{self, check};

/// Strided operands for `op` with NaN in the gaps between rows (a kernel reading past a row
/// fails), `off` floats into their buffers (1: not 16-byte aligned, the scalar paths).
struct Case {
    op: Gemm,
    a: Vec<f32>,
    b: Vec<f32>,
    c0: Vec<f32>,
    off: usize,
}

impl Case {
    fn new(op: Gemm, off: usize, seed: u64) -> Case {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (la, lb, lc) = op.min_lens();
        // `off` NaNs ahead of each operand: the kernels must start at the offset they are given.
        let mut fill = |len: usize, width: usize, ld: usize| -> Vec<f32> {
            let body = random_padded(len, width, ld, &mut rng);
            std::iter::repeat_n(f32::NAN, off).chain(body).collect()
        };
        let a = fill(la, op.k, op.lda);
        let b = fill(lb, op.n, op.ldb);
        let c0 = fill(lc, op.n, op.ldc);
        Case { op, a, b, c0, off }
    }

    fn dense(m: &[f32], rows: usize, cols: usize, ld: usize) -> Vec<f32> {
        (0..rows)
            .flat_map(|r| m[r * ld..r * ld + cols].iter().copied())
            .collect()
    }

    /// Runs `kernel` (the library's choice for `None`) and checks every cell against alpha·A·B +
    /// beta·C0 in f64 (core's bound, scaled alike) and the untouched gaps of C; returns C.
    fn run(&self, gpu: &Gpu, kernel: Option<&str>) -> Vec<f32> {
        let (op, o) = (&self.op, self.off);
        let d_a = DeviceBuffer::from_slice(&self.a).unwrap();
        let d_b = DeviceBuffer::from_slice(&self.b).unwrap();
        let mut d_c = DeviceBuffer::from_slice(&self.c0).unwrap();
        let (a, b) = (&d_a[o..], &d_b[o..]);
        let c = &mut d_c[o..];
        match kernel {
            Some(name) => gemm_device_with_kernel(gpu, name, Schedule::StreamK, op, a, b, c),
            None => gemm_device(gpu, op, a, b, c),
        }
        .unwrap_or_else(|e| panic!("{kernel:?} {op:?}: {e}"));
        let mut out = vec![0f32; self.c0.len()];
        d_c.copy_to(&mut out[..]).unwrap();
        let (m, n, k) = (op.m, op.n, op.k);
        let da = Self::dense(&self.a[o..], m, k, op.lda);
        let db = Self::dense(&self.b[o..], k, n, op.ldb);
        let mut re = reference::reference(&da, &db, m, n, k, None);
        let (alpha, beta) = (f64::from(op.alpha), f64::from(op.beta));
        for row in 0..m {
            for col in 0..n {
                let i = row * n + col;
                let c0 = f64::from(self.c0[o + row * op.ldc + col]);
                let from_c = if beta == 0.0 { 0.0 } else { beta * c0 };
                re.c[i] = alpha * re.c[i] + from_c;
                re.bound[i] = alpha.abs() * re.bound[i] + from_c.abs();
            }
        }
        let r = check(&Self::dense(&out[o..], m, n, op.ldc), &re);
        assert!(
            r.passed(),
            "{kernel:?} {op:?}: {} failures, worst {:?}",
            r.failures,
            r.worst
        );
        for (i, &got) in out[o..].iter().enumerate() {
            if i % op.ldc >= n {
                assert!(got.is_nan(), "{kernel:?} {op:?}: gap {i} written");
            }
        }
        out
    }
}

/// Shapes for a kernel of `kind` and `width`: K = 1, M = N = 1, the kernel's full width and one
/// less, several groups, odd K with and without a split.
fn shapes(kind: SkinnyKind, width: usize) -> Vec<(usize, usize, usize)> {
    let small = [(1, 1), (width, 1), (width.saturating_sub(1).max(1), 3)];
    let mut out = Vec::new();
    for (w, long) in small {
        for k in [1, 5, 257, 3001] {
            let big = 33 * long + 1000;
            out.push(match kind {
                SkinnyKind::Rows => (big, w, k),
                SkinnyKind::Cols | SkinnyKind::VecMat => (w, big, k),
            });
        }
    }
    // Wider than one group.
    out.push(match kind {
        SkinnyKind::Rows => (100, 2 * width + 3, 700),
        SkinnyKind::Cols | SkinnyKind::VecMat => (2 * width + 3, 1500, 700),
    });
    out
}

#[test]
fn every_skinny_kernel_against_the_reference() {
    let Some(gpu) = gpu_for_test("every_skinny_kernel_against_the_reference") else {
        return;
    };
    for cfg in SKINNY_ROWS
        .iter()
        .chain(SKINNY_ROWS_ASYNC)
        .chain(SKINNY_COLS)
        .chain(SKINNY_GEMV)
    {
        for (i, &(m, n, k)) in shapes(cfg.kind, cfg.width as usize).iter().enumerate() {
            let seed = 500 + i as u64;
            // Dense and aligned (the 128-bit paths), then alpha/beta with wide, odd rows and
            // misaligned buffers (the scalar paths).
            Case::new(Gemm::new(m, n, k), 0, seed).run(&gpu, Some(cfg.name));
            let op = Gemm::new(m, n, k)
                .alpha(-1.5)
                .beta(0.75)
                .leading_dims(k + 3, n + 1, n + 2);
            Case::new(op, 1, seed).run(&gpu, Some(cfg.name));
        }
    }
}

#[test]
fn splits_are_summed_in_order_and_deep_k_splits() {
    let Some(gpu) = gpu_for_test("splits_are_summed_in_order_and_deep_k_splits") else {
        return;
    };
    let sms = gpu.multiprocessors().unwrap();
    for (name, m, n, k) in [
        ("sgemm_cols_m1", 1, 4096, 16384),
        ("sgemm_rows_n1", 64, 1, 16384),
        ("sgemm_rows_n8", 300, 7, 9000),
        ("sgemm_rows_async_n16", 300, 13, 9000),
        ("sgemm_rows_async_n8", 1000, 8, 5003),
        ("sgemm_cols_m16", 16, 2000, 9000),
        // The matrix–vector kernels sum their splits in the kernel (the strip's last block).
        ("sgemv_strips_u8", 1, 4096, 4096),
        ("sgemv_strips_u4", 1, 3001, 5003),
        ("sgemv_strips_u8", 3, 999, 16384),
    ] {
        let cfg = skinny_config(name).unwrap();
        let op = Gemm::new(m, n, k).alpha(2.0).beta(-0.5);
        assert!(
            geometry(cfg, &op, sms).1.splits > 1,
            "{name} does not split"
        );
        let case = Case::new(op, 0, 7);
        let first = case.run(&gpu, Some(name));
        let again = case.run(&gpu, Some(name));
        let same = first
            .iter()
            .zip(&again)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
        assert!(same, "{name} {m}x{n}x{k}: other bits on a second run");
    }
    // A launch reports its split.
    let (a, b) = (
        DeviceBuffer::from_slice(&vec![1.0f32; 16384]).unwrap(),
        DeviceBuffer::from_slice(&vec![1.0f32; 16384 * 4]).unwrap(),
    );
    let c = DeviceBuffer::from_slice(&[0.0f32; 4]).unwrap();
    let cfg = skinny_config("sgemm_cols_m1").unwrap();
    let launch = SkinnyLaunch::new(&gpu, cfg, &Gemm::new(1, 4, 16384), [&a, &b, &c]).unwrap();
    assert!(launch.split().splits > 1);
}

#[test]
fn the_library_routes_tiny_shapes_to_skinny_kernels() {
    let Some(gpu) = gpu_for_test("the_library_routes_tiny_shapes_to_skinny_kernels") else {
        return;
    };
    for (i, &(m, n, k)) in [
        (1, 1, 1),
        (2000, 1, 2049),
        (1, 2000, 2049),
        (5000, 7, 500),
        (3000, 13, 2049),
        (3, 3000, 300),
        (1, 6000, 3000),
        (1, 3000, 5000),
    ]
    .iter()
    .enumerate()
    {
        let choice = select::dense_kernel(&gpu, m, n, k).unwrap();
        assert!(
            matches!(choice, Choice::Skinny(_)),
            "{m}x{n}x{k}: {choice:?}"
        );
        if m == 1 && n > 1 {
            assert_eq!(
                choice.name(),
                host::matmul::gemv::LIBRARY_KERNEL,
                "{m}x{n}x{k}"
            );
        }
        Case::new(Gemm::new(m, n, k).beta(1.0), 0, 40 + i as u64).run(&gpu, None);
    }
}

#[test]
fn nan_and_inf_propagate() {
    let Some(gpu) = gpu_for_test("nan_and_inf_propagate") else {
        return;
    };
    for (name, m, n, k) in [
        ("sgemm_rows_n8", 70, 8, 600),
        ("sgemm_rows_n1", 70, 1, 600),
        ("sgemm_rows_async_n16", 70, 16, 600),
        ("sgemm_rows_async_n8", 70, 5, 600),
        ("sgemm_cols_m8", 8, 70, 600),
        ("sgemm_cols_m1", 1, 70, 600),
        ("sgemv_strips_u8", 1, 70, 600),
        ("sgemv_strips_u4", 1, 300, 5000),
    ] {
        let mut case = Case::new(Gemm::new(m, n, k), 0, 9);
        let (r, c) = (m / 2, n / 2);
        case.a[r * k + 3] = f32::NAN; // row r of C becomes NaN
        case.b[2 * n + c] = f32::INFINITY; // column c of C becomes ±Inf (NaN in row r)
        case.b[(k - 1) * n] = f32::NEG_INFINITY; // the last k row, column 0
        case.run(&gpu, Some(name));
    }
}
