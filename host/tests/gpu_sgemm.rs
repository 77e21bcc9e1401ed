//! GPU tests for the flagship SGEMM through the library (`host::gemm_device`): shapes with
//! edges in every dimension, alpha/beta, leading dimensions wider than the matrices, NaN/Inf,
//! and bad input. Every flagship kernel also runs through `gpu_matmul.rs`'s all-kernel tests.
//! Without a GPU they print "SKIPPED …" and pass.
use cust::memory::{CopyDestination, DeviceBuffer};
use gpu_kernels::matmul::{
    FLAGSHIP,
    stream_k::{Schedule, plan},
};
use host::{Gemm, Gpu, gemm_device, gpu::gpu_for_test, matmul::sgemm::gemm_device_with_kernel};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::reference::random_padded;
use rgk_core::matmul::reference::{self, Reference, check};

/// Random strided operands for `op`, with the gaps between rows filled with NaN so that a kernel
/// reading past a row's width fails; C's gaps are checked to be untouched.
struct Case {
    op: Gemm,
    a: Vec<f32>,
    b: Vec<f32>,
    c0: Vec<f32>,
}

impl Case {
    fn new(op: Gemm, seed: u64) -> Case {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let (la, lb, lc) = op.min_lens();
        let a = random_padded(la, op.k, op.lda, &mut rng);
        let b = random_padded(lb, op.n, op.ldb, &mut rng);
        let c0 = random_padded(lc, op.n, op.ldc, &mut rng);
        Case { op, a, b, c0 }
    }

    fn dense(m: &[f32], rows: usize, cols: usize, ld: usize) -> Vec<f32> {
        (0..rows)
            .flat_map(|r| m[r * ld..r * ld + cols].iter().copied())
            .collect()
    }

    /// alpha·A·B + beta·C0 in f64 for `rows` (all when `None`), with the bound scaled alike.
    fn reference(&self, rows: Option<&[usize]>) -> Reference {
        let Gemm {
            m,
            n,
            k,
            alpha,
            beta,
            ..
        } = self.op;
        let a = Self::dense(&self.a, m, k, self.op.lda);
        let b = Self::dense(&self.b, k, n, self.op.ldb);
        let mut r = reference::reference(&a, &b, m, n, k, rows);
        let (alpha, beta) = (f64::from(alpha), f64::from(beta));
        for (ri, &row) in r.rows.clone().iter().enumerate() {
            for col in 0..n {
                let i = ri * n + col;
                let c0 = f64::from(self.c0[row * self.op.ldc + col]);
                // BLAS: beta == 0 means C is not read (C0 may be NaN then).
                let from_c = if beta == 0.0 { 0.0 } else { beta * c0 };
                r.c[i] = alpha * r.c[i] + from_c;
                r.bound[i] = alpha.abs() * r.bound[i] + from_c.abs();
            }
        }
        r
    }

    /// Runs the case (with `kernel` under a schedule, or the library's choice) and checks every
    /// cell of the sampled rows and the untouched gaps of C; returns C.
    fn run(&self, gpu: &Gpu, kernel: Option<(&str, Schedule)>, seed: u64) -> Vec<f32> {
        let op = &self.op;
        let d_a = DeviceBuffer::from_slice(&self.a).unwrap();
        // Three cells past B's last one, so the 16-byte variants may copy its final piece
        // whole (`Gemm::vector_tail_ok`); NaN, which no kernel may let into C.
        let b_tail: Vec<f32> = self.b.iter().copied().chain([f32::NAN; 3]).collect();
        let d_b = DeviceBuffer::from_slice(&b_tail).unwrap();
        let mut d_c = DeviceBuffer::from_slice(&self.c0).unwrap();
        match kernel {
            Some((name, sch)) => gemm_device_with_kernel(gpu, name, sch, op, &d_a, &d_b, &mut d_c),
            None => gemm_device(gpu, op, &d_a, &d_b, &mut d_c),
        }
        .unwrap_or_else(|e| panic!("{kernel:?} {op:?}: {e}"));
        let mut c = vec![0f32; self.c0.len()];
        d_c.copy_to(&mut c[..]).unwrap();
        let rows = (op.m > 1024).then(|| reference::sample_rows(op.m, 48, seed));
        let re = self.reference(rows.as_deref());
        // `check` wants a dense m x n result.
        let dense = Self::dense(&c, op.m, op.n, op.ldc);
        let r = check(&dense, &re);
        assert!(
            r.passed(),
            "{kernel:?} {op:?}: {} failures, worst {:?}",
            r.failures,
            r.worst
        );
        for (i, (&got, &was)) in c.iter().zip(&self.c0).enumerate() {
            if i % op.ldc >= op.n {
                assert!(
                    got.is_nan() && was.is_nan(),
                    "{kernel:?} {op:?}: gap {i} written"
                );
            }
        }
        c
    }
}

#[test]
fn library_on_edge_shapes() {
    let Some(gpu) = gpu_for_test("library_on_edge_shapes") else {
        return;
    };
    let shapes = [
        (1024, 1024, 1024),
        (1, 1, 1),
        (17, 33, 5),
        (4099, 1, 4097),
        (1000, 777, 129),
        (4097, 4095, 1023),
    ];
    for (i, &(m, n, k)) in shapes.iter().enumerate() {
        Case::new(Gemm::new(m, n, k), 100 + i as u64).run(&gpu, None, i as u64);
    }
}

#[test]
fn every_flagship_kernel_at_an_aligned_and_an_odd_shape() {
    let Some(gpu) = gpu_for_test("every_flagship_kernel_at_an_aligned_and_an_odd_shape") else {
        return;
    };
    // Every kernel `host tune` may pick; B rows a multiple of 4 apart so the 16-byte-copy
    // kernels run too (the odd shape's N, M and K are not tile multiples).
    for (i, &(m, n, k)) in [(512, 1024, 256), (1001, 515, 263)].iter().enumerate() {
        let op = Gemm::new(m, n, k).leading_dims(k, n.next_multiple_of(4), n);
        let case = Case::new(op, 300 + i as u64);
        for cfg in FLAGSHIP {
            for sch in Schedule::ALL {
                case.run(&gpu, Some((cfg.name, sch)), i as u64);
            }
        }
    }
}

#[test]
fn alpha_beta_leading_dimensions_and_partial_k() {
    let Some(gpu) = gpu_for_test("alpha_beta_leading_dimensions_and_partial_k") else {
        return;
    };
    // (m, n, k, alpha, beta, extra columns of A, B, C); k values are not multiples of 8 or 16.
    let cases = [
        (300, 520, 77, -1.5, 0.75, 3, 5, 7),
        (129, 257, 9, 2.0, -1.0, 1, 0, 4),
        (1000, 777, 129, 0.5, 0.0, 0, 3, 1),
        (256, 512, 1000, 1.0, 1.0, 4, 4, 4),
    ];
    for (i, &(m, n, k, alpha, beta, xa, xb, xc)) in cases.iter().enumerate() {
        let op = Gemm::new(m, n, k)
            .alpha(alpha)
            .beta(beta)
            .leading_dims(k + xa, n + xb, n + xc);
        let case = Case::new(op, 200 + i as u64);
        case.run(&gpu, None, i as u64);
        // Every kernel whose B copies suit this layout.
        for cfg in FLAGSHIP {
            if !cfg.vec_b || op.ldb % 4 == 0 {
                for sch in Schedule::ALL {
                    case.run(&gpu, Some((cfg.name, sch)), i as u64);
                }
            }
        }
    }
}

/// Stream-K where it splits the tail of a grid larger than the GPU: tiles split in two (K = 67
/// and 1000) and blocks with two whole one-slice tiles (K = 8); correct against the reference
/// with alpha, beta and wide rows, and the same bits when run again (the sum order is fixed,
/// and the counters are left at zero for the next launch).
#[test]
fn stream_k_splits_are_summed_in_order() {
    let Some(gpu) = gpu_for_test("stream_k_splits_are_summed_in_order") else {
        return;
    };
    let sms = gpu.multiprocessors().unwrap();
    let big = FLAGSHIP
        .iter()
        .find(|c| c.bm == 128 && c.bn == 256)
        .unwrap();
    // 17 x 17 tiles of 128x256 (more than the SMs of any GPU up to 289): a partial last wave.
    let (m, n) = (17 * 128 - 5, 17 * 256 - 3);
    for (i, &k) in [67, 8, 1000].iter().enumerate() {
        let split = plan(Schedule::StreamK, big.tiles(m, n), big.ktiles(k), sms);
        assert!(
            split.sk_blocks > 0,
            "{m}x{n}x{k} does not exercise stream-K here"
        );
        let op = Gemm::new(m as usize, n as usize, k as usize)
            .alpha(-1.25)
            .beta(0.5)
            .leading_dims(
                k as usize + 1,
                (n as usize + 1).next_multiple_of(4),
                n as usize + 2,
            );
        let case = Case::new(op, 400 + i as u64);
        let first = case.run(&gpu, Some((big.name, Schedule::StreamK)), i as u64);
        let again = case.run(&gpu, Some((big.name, Schedule::StreamK)), i as u64);
        let same = first
            .iter()
            .zip(&again)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
        assert!(
            same,
            "{m}x{n}x{k}: stream-K gave other bits on a second run"
        );
    }
}

#[test]
fn beta_zero_does_not_read_c() {
    let Some(gpu) = gpu_for_test("beta_zero_does_not_read_c") else {
        return;
    };
    let op = Gemm::new(70, 65, 67).alpha(3.0);
    let mut case = Case::new(op, 7);
    case.c0.iter_mut().for_each(|x| *x = f32::NAN);
    // The reference ignores C0 for beta == 0, so any NaN from C fails the check.
    case.run(&gpu, None, 7);
}

#[test]
fn nan_and_inf_propagate() {
    let Some(gpu) = gpu_for_test("nan_and_inf_propagate") else {
        return;
    };
    for (m, n, k) in [(70, 65, 67), (300, 260, 40)] {
        let mut case = Case::new(Gemm::new(m, n, k), 9);
        case.a[5 * k + 3] = f32::NAN; // row 5 of C becomes NaN
        case.b[2 * n + 7] = f32::INFINITY; // column 7 of C becomes ±Inf (NaN in row 5)
        case.b[(k - 1) * n + 64] = f32::NEG_INFINITY; // a B value in the last k row
        let re = case.reference(None);
        assert!(re.c[5 * n].is_nan() && re.c[7].is_infinite());
        case.run(&gpu, None, 9);
    }
}

#[test]
fn bad_input_is_named() {
    let Some(gpu) = gpu_for_test("bad_input_is_named") else {
        return;
    };
    let a = DeviceBuffer::from_slice(&[1.0f32; 64]).unwrap();
    let b = DeviceBuffer::from_slice(&[1.0f32; 64]).unwrap();
    let mut c = DeviceBuffer::from_slice(&[1.0f32; 64]).unwrap();
    let cases = [
        (Gemm::new(0, 4, 4), "M = 0"),
        (Gemm::new(4, 4, 20000), "K = 20000"),
        (Gemm::new(4, 4, 4).leading_dims(3, 4, 4), "lda = 3"),
        (Gemm::new(4, 4, 4).leading_dims(4, 4, 2), "ldc = 2"),
        (Gemm::new(8, 9, 8), "B has 64 elements"),
        (
            Gemm::new(4, 4, 4).leading_dims(4, 4, 40),
            "C has 64 elements",
        ),
    ];
    for (op, want) in cases {
        let e = gemm_device(&gpu, &op, &a, &b, &mut c).unwrap_err();
        assert!(matches!(e, host::Error::BadInput(_)), "{op:?}: {e}");
        let msg = e.to_string();
        assert!(msg.contains(want), "{op:?}: {msg}");
        assert!(!msg.contains('\n'), "one sentence: {msg}");
    }
    // C sharing memory with A: only unsafe code can build such slices, and the library
    // still refuses them.
    let op = Gemm::new(2, 2, 2);
    let mut whole = DeviceBuffer::from_slice(&[1.0f32; 16]).unwrap();
    let ptr = whole.as_device_ptr();
    // SAFETY: the aliasing slices live only for this call, which must reject them unread.
    let alias = unsafe { cust::memory::DeviceSlice::from_raw_parts(ptr, 16) };
    let e = gemm_device(&gpu, &op, alias, &b, &mut whole).unwrap_err();
    assert!(e.to_string().contains("C overlaps A"), "{e}");
}
