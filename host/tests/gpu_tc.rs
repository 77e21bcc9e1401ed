//! GPU tests of the tensor-core GEMM (`host::tc::gemm_tc`): every `mma.sync` kernel (each
//! precision and layout pair, and the ladder's rungs) against the f64 reference under its
//! precision's bound (rgk_core::matmul::precision), on squares, odd shapes, K not a multiple of
//! the tile depth, alpha/beta and leading dimensions wider than the matrices (their gaps NaN, C's
//! checked untouched); 3xTF32's error against FP32 SGEMM's; bad input. Without a GPU they print
//! "SKIPPED …" and pass.
use cust::memory::{CopyDestination, DeviceBuffer};
use gpu_kernels::tc::{TC, TcConfig, TcKind};
use host::{
    Gemm, Gpu, gemm_device,
    gpu::gpu_for_test,
    tc::{Layout, Operand, TcGemm, gemm_tc, gemm_tc_with_kernel},
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::{
    precision::{Precision, encode_16, error_stats, round_input},
    reference::{self, Reference, check_with},
};

fn precision_of(kind: TcKind) -> Precision {
    match kind {
        TcKind::Bf16 => Precision::Bf16,
        TcKind::Fp16 => Precision::Fp16,
        TcKind::Tf32 => Precision::Tf32,
        TcKind::Tf32x3 => Precision::Tf32x3,
    }
}

/// Operands of `op` in their layouts, rounded to `p`'s inputs, the gaps past each line NaN.
struct Case {
    p: Precision,
    op: TcGemm,
    a: Vec<f32>,
    b: Vec<f32>,
    c0: Vec<f32>,
}

fn up(x: usize, to: usize) -> usize {
    x.div_ceil(to) * to
}

impl Case {
    /// `op` of shape (m, n, k) with leading dimensions rounded up to 16 bytes plus `extra`.
    fn new(
        p: Precision,
        (m, n, k): (usize, usize, usize),
        lay: (Layout, Layout),
        extra: usize,
        seed: u64,
    ) -> Case {
        let per = 16 / p.input_bytes();
        let mut op = TcGemm::new(m, n, k).layouts(lay.0, lay.1);
        op = op.leading_dims(up(op.lda, per) + extra, up(op.ldb, per) + extra, n + extra);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (la, lb, lc) = op.min_lens();
        let mut fill = |len: usize, width: usize, ld: usize| -> Vec<f32> {
            (0..len)
                .map(|i| {
                    if i % ld < width {
                        round_input(p, rng.gen_range(-1.0f32..1.0))
                    } else {
                        f32::NAN
                    }
                })
                .collect()
        };
        let a = fill(la, op.a_dims().1, op.lda);
        let b = fill(lb, op.b_dims().1, op.ldb);
        let c0 = fill(lc, n, op.ldc);
        Case { p, op, a, b, c0 }
    }

    /// Element (r, c) of a `rows x cols` operand stored in `layout` with `ld`.
    fn at(x: &[f32], layout: Layout, ld: usize, r: usize, c: usize) -> f32 {
        match layout {
            Layout::RowMajor => x[r * ld + c],
            Layout::ColMajor => x[c * ld + r],
        }
    }

    /// alpha·A·B + beta·C0 in f64, with the bound scaled alike (C0 unread when beta == 0).
    fn reference(&self) -> Reference {
        let TcGemm {
            m,
            n,
            k,
            alpha,
            beta,
            ..
        } = self.op;
        let a: Vec<f32> = (0..m * k)
            .map(|i| Self::at(&self.a, self.op.a_layout, self.op.lda, i / k, i % k))
            .collect();
        let b: Vec<f32> = (0..k * n)
            .map(|i| Self::at(&self.b, self.op.b_layout, self.op.ldb, i / n, i % n))
            .collect();
        let mut r = reference::reference(&a, &b, m, n, k, None);
        let (alpha, beta) = (f64::from(alpha), f64::from(beta));
        for i in 0..m * n {
            let c0 = f64::from(self.c0[i / n * self.op.ldc + i % n]);
            let from_c = if beta == 0.0 { 0.0 } else { beta * c0 };
            r.c[i] = alpha * r.c[i] + from_c;
            r.bound[i] = alpha.abs() * r.bound[i] + from_c.abs();
        }
        r
    }

    /// Runs it (through `kernel`, or the library's path) and returns C as dense rows after
    /// checking C's gaps are untouched.
    fn run(&self, gpu: &Gpu, kernel: Option<&str>) -> Vec<f32> {
        let (da, db) = (
            DeviceBuffer::from_slice(&self.a).unwrap(),
            DeviceBuffer::from_slice(&self.b).unwrap(),
        );
        let halves = encode_16(self.p, &self.a).zip(encode_16(self.p, &self.b));
        let h = halves.map(|(a, b)| {
            (
                DeviceBuffer::from_slice(&a).unwrap(),
                DeviceBuffer::from_slice(&b).unwrap(),
            )
        });
        let (oa, ob) = match &h {
            Some((a, b)) => (Operand::Bits16(a), Operand::Bits16(b)),
            None => (Operand::F32(&da), Operand::F32(&db)),
        };
        let mut dc = DeviceBuffer::from_slice(&self.c0).unwrap();
        match kernel {
            Some(name) => gemm_tc_with_kernel(gpu, self.p, name, &self.op, oa, ob, &mut dc),
            None => gemm_tc(gpu, self.p, &self.op, oa, ob, &mut dc),
        }
        .unwrap_or_else(|e| panic!("{kernel:?} {:?}: {e:#}", self.op));
        let mut c = vec![0f32; self.c0.len()];
        dc.copy_to(&mut c[..]).unwrap();
        let (n, ldc) = (self.op.n, self.op.ldc);
        for (i, (&got, &was)) in c.iter().zip(&self.c0).enumerate() {
            if i % ldc >= n {
                assert!(
                    got.is_nan() && was.is_nan(),
                    "{kernel:?}: C's gap at {i} was written"
                );
            }
        }
        (0..self.op.m * n).map(|i| c[i / n * ldc + i % n]).collect()
    }

    fn check(&self, gpu: &Gpu, kernel: Option<&str>) {
        let c = self.run(gpu, kernel);
        let r = check_with(&c, &self.reference(), self.p.tolerance(self.op.k));
        assert!(r.passed(), "{kernel:?} {} {:?}: {r:?}", self.p, self.op);
    }
}

fn layouts(c: &TcConfig) -> (Layout, Layout) {
    let l = |row| {
        if row {
            Layout::RowMajor
        } else {
            Layout::ColMajor
        }
    };
    (l(c.a_rows), l(c.b_rows))
}

const SHAPES: [(usize, usize, usize); 5] = [
    (128, 128, 128),
    (77, 45, 19),
    (257, 130, 100),
    (33, 200, 8),
    (1, 1, 1),
];

#[test]
fn every_kernel_matches_the_reference_on_squares_and_odd_shapes() {
    let Some(gpu) = gpu_for_test("every_kernel_matches_the_reference_on_squares_and_odd_shapes")
    else {
        return;
    };
    for (i, cfg) in TC.iter().enumerate() {
        let p = precision_of(cfg.kind);
        for (j, &shape) in SHAPES.iter().enumerate() {
            let extra = if j % 2 == 1 { 16 } else { 0 };
            Case::new(p, shape, layouts(cfg), extra, (i * 10 + j) as u64)
                .check(&gpu, Some(cfg.name));
        }
    }
}

/// The 16-bit kernels of sessions 6 to 8 (64 x 64 warp tiles, fragment prefetch across slices,
/// `lean` addressing, 16-warp blocks, 64-deep slices): K over many slices with a remainder (not
/// a multiple of 32 or 64), M and N over several 128 x 256 tiles with partial ones, leading
/// dimensions wider than the matrices, alpha and beta.
#[test]
fn prefetching_and_wide_kernels_on_deep_k_with_alpha_beta() {
    let Some(gpu) = gpu_for_test("prefetching_and_wide_kernels_on_deep_k_with_alpha_beta") else {
        return;
    };
    let wide = TC
        .iter()
        .filter(|c| c.prefetch || c.lean || c.warp_n() == 64 || c.threads() > 256);
    for (i, cfg) in wide.enumerate() {
        let p = precision_of(cfg.kind);
        for (j, shape) in [(300, 520, 999), (129, 257, 327), (64, 64, 2048)]
            .into_iter()
            .enumerate()
        {
            let (alpha, beta) = [(1.5f32, -0.5f32), (1.0, 0.0), (-0.25, 1.0)][j];
            let mut case = Case::new(
                p,
                shape,
                layouts(cfg),
                16 * (j % 2),
                (100 + i * 10 + j) as u64,
            );
            case.op = case.op.alpha(alpha).beta(beta);
            case.check(&gpu, Some(cfg.name));
        }
    }
}

/// The `lean` kernels (session 7) copy the slices of tiles wholly inside C with no bounds
/// checks: C covered by whole tiles with whole k-slices (every copy unchecked), whole tiles with
/// a K tail beside a partial tile row and column (both paths in one launch), and K below one
/// slice (every copy checked); leading dimensions wider than the matrices, alpha and beta.
#[test]
fn lean_kernels_on_whole_tiles_and_edges() {
    let Some(gpu) = gpu_for_test("lean_kernels_on_whole_tiles_and_edges") else {
        return;
    };
    for (i, cfg) in TC.iter().filter(|c| c.lean).enumerate() {
        let p = precision_of(cfg.kind);
        let (bm, bn) = (cfg.bm as usize, cfg.bn as usize);
        for (j, shape) in [
            (2 * bm, 2 * bn, 256),
            (2 * bm + 40, bn + 24, 136),
            (bm, bn, 8),
        ]
        .into_iter()
        .enumerate()
        {
            let (alpha, beta) = [(1.0f32, 0.0f32), (0.5, 2.0), (-1.5, -0.25)][j];
            let extra = 16 / p.input_bytes() * j;
            let mut case = Case::new(p, shape, layouts(cfg), extra, (300 + i * 10 + j) as u64);
            case.op = case.op.alpha(alpha).beta(beta);
            case.check(&gpu, Some(cfg.name));
        }
    }
}

/// TF32 and 3xTF32 through the library on odd shapes, K not a multiple of the tile depth (32 on
/// the Hopper path, where the library runs the f32 `wgmma` kernels and their split pass) and
/// every layout.
#[test]
fn f32_precisions_through_the_library_on_odd_shapes_and_every_layout() {
    let Some(gpu) =
        gpu_for_test("f32_precisions_through_the_library_on_odd_shapes_and_every_layout")
    else {
        return;
    };
    for p in [Precision::Tf32, Precision::Tf32x3] {
        for (i, &shape) in SHAPES.iter().enumerate() {
            for (j, lay) in [
                (Layout::RowMajor, Layout::RowMajor),
                (Layout::RowMajor, Layout::ColMajor),
                (Layout::ColMajor, Layout::RowMajor),
                (Layout::ColMajor, Layout::ColMajor),
            ]
            .into_iter()
            .enumerate()
            {
                Case::new(p, shape, lay, 4 * (i % 2), (i * 4 + j) as u64).check(&gpu, None);
            }
        }
    }
}

#[test]
fn alpha_beta_and_every_layout_through_the_library() {
    let Some(gpu) = gpu_for_test("alpha_beta_and_every_layout_through_the_library") else {
        return;
    };
    for p in Precision::ALL.into_iter().filter(|p| p.tensor_cores()) {
        for (i, lay) in [
            (Layout::RowMajor, Layout::RowMajor),
            (Layout::RowMajor, Layout::ColMajor),
            (Layout::ColMajor, Layout::RowMajor),
            (Layout::ColMajor, Layout::ColMajor),
        ]
        .into_iter()
        .enumerate()
        {
            for (alpha, beta) in [(1.5f32, -0.5f32), (-1.0, 0.0), (0.25, 1.0)] {
                let mut case = Case::new(p, (190, 140, 300), lay, 8 * (i % 2), i as u64);
                case.op = case.op.alpha(alpha).beta(beta);
                case.check(&gpu, None);
            }
        }
    }
}

/// 3xTF32 and TF32 on the same inputs, and the flagship FP32 SGEMM; returns their error
/// distributions (`|c - ref| / Σ|a||b|`) in that order.
fn three_way(gpu: &Gpu) -> [rgk_core::matmul::precision::ErrorStats; 3] {
    let (m, n, k) = (256, 256, 4096);
    let case = Case::new(
        Precision::Tf32x3,
        (m, n, k),
        (Layout::RowMajor, Layout::RowMajor),
        0,
        3,
    );
    let re = case.reference();
    let e3 = error_stats(&case.run(gpu, None), &re);
    let (da, db) = (
        DeviceBuffer::from_slice(&case.a).unwrap(),
        DeviceBuffer::from_slice(&case.b).unwrap(),
    );
    let mut dc = DeviceBuffer::from_slice(&vec![0f32; m * n]).unwrap();
    gemm_device(gpu, &Gemm::new(m, n, k), &da, &db, &mut dc).unwrap();
    let mut c1 = vec![0f32; m * n];
    dc.copy_to(&mut c1[..]).unwrap();
    let e1 = error_stats(&c1, &re);
    let tf = Case {
        p: Precision::Tf32,
        ..case
    };
    let et = error_stats(&tf.run(gpu, None), &re);
    eprintln!("3xTF32 {e3:?}\nTF32 {et:?}\nFP32 SGEMM {e1:?}");
    [e3, et, e1]
}

/// 3xTF32 recovers most of what TF32 loses (measured on the H200: mean 4.7e-7 against TF32's
/// ~3e-6 at K = 4096).
#[test]
fn three_tf32_is_far_more_accurate_than_tf32() {
    let Some(gpu) = gpu_for_test("three_tf32_is_far_more_accurate_than_tf32") else {
        return;
    };
    let [e3, et, _] = three_way(&gpu);
    assert!(et.mean > 5.0 * e3.mean, "TF32 {et:?} vs 3xTF32 {e3:?}");
}

/// Issue #21's requirement: 3xTF32's error no worse than FP32 SGEMM's. Met on the Hopper path
/// (accumulation outside the tensor cores; H200 2026-11-24: mean 3.7e-9 against SGEMM's 6.7e-9
/// at this depth); the `mma.sync` kernel alone does not meet it (docs/tensor-cores.md).
#[test]
fn three_tf32_is_as_accurate_as_fp32_sgemm() {
    let Some(gpu) = gpu_for_test("three_tf32_is_as_accurate_as_fp32_sgemm") else {
        return;
    };
    if !host::sm90::supported(&gpu) {
        rgk_core::testdata::skip(
            "three_tf32_is_as_accurate_as_fp32_sgemm",
            "3xTF32 reaches FP32's accuracy on the Hopper path only (compute capability 9.0)",
        );
        return;
    }
    let [e3, _, e1] = three_way(&gpu);
    assert!(
        e3.mean <= 1.05 * e1.mean && e3.p99 <= 1.25 * e1.p99,
        "3xTF32 {e3:?} vs FP32 {e1:?}"
    );
}

#[test]
fn bad_input_is_named() {
    let Some(gpu) = gpu_for_test("bad_input_is_named") else {
        return;
    };
    let a = DeviceBuffer::from_slice(&[0u16; 64]).unwrap();
    let f = DeviceBuffer::from_slice(&[0f32; 64]).unwrap();
    let mut c = DeviceBuffer::from_slice(&[0f32; 64]).unwrap();
    let op = TcGemm::new(8, 8, 8);
    let cases: [(Precision, Operand, &str); 3] = [
        (Precision::Bf16, Operand::F32(&f), "A holds 4-byte elements"),
        (
            Precision::Tf32,
            Operand::Bits16(&a),
            "A holds 2-byte elements",
        ),
        (
            Precision::Fp16,
            Operand::Bits16(&a),
            "lda = 12 is not a multiple of 8",
        ),
    ];
    for (i, (p, x, want)) in cases.into_iter().enumerate() {
        let op = if i == 2 {
            op.leading_dims(12, 8, 8)
        } else {
            op
        };
        let e = gemm_tc(&gpu, p, &op, x, x, &mut c).unwrap_err();
        assert!(matches!(e, host::Error::BadInput(_)), "{e:?}");
        assert!(e.to_string().contains(want), "{e}");
    }
}
