//! GPU tests of the TF32 kernel that reads a row-major B in place (A row-major too: the
//! transposed product `wgmma_tf32_kn…`, no split pass; docs/sm90.md): against the f64 reference
//! with TF32's bound, on f32 inputs not rounded beforehand (the bound covers the input rounding),
//! and against the split-pass path bit for bit where both walk k alike (whole tiles: both round B
//! with `cvt.rna`, read A through the same TFLOAT32 map and add the same k8 products in the same
//! order). Squares, odd shapes (m, n, k not multiples of the tile), k tails, alpha/beta, leading
//! dimensions larger than the width (NaN in the gaps, which must be neither read nor written),
//! a block per tile, few blocks walking many tiles, stream-K. Without a GPU, or on a GPU other
//! than compute capability 9.0, they print "SKIPPED …" and pass.
use cust::memory::DeviceBuffer;
use host::{
    Gpu,
    sm90::{
        Blocks, Schedule, download, hopper_for_test,
        tf32::{RowMajorB, Tf32Gemm, Tf32Kind, Tf32Launch, Tf32Options},
    },
    tc::select::{TF32_ROW_MAJOR_B, tf32_options},
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rgk_core::matmul::reference::random_padded;
use rgk_core::matmul::{
    precision::Precision,
    reference::{Reference, check_with, reference},
};

/// The in-place kernel's name (the `N` row of `gpu_kernels::sm90::tf32::WGMMA_TF32`).
const IN_PLACE_KERNEL: &str = "wgmma_tf32_kn_256x128x32_s4w1";
/// The kernels whose producer threads load B (the `L` and `H` rows: one group, two).
const LOAD_KERNEL: &str = "wgmma_tf32_kl_128x256x32_s4";
const LOAD_KERNEL_2: &str = "wgmma_tf32_kl_128x256x32_s4h";

/// A and B row-major, `m x n x k`, leading dimensions padded by `pad` (A's and B's up to a
/// multiple of 4: TMA's 16-byte rule).
fn gemm(m: usize, n: usize, k: usize, pad: usize, alpha: f32, beta: f32) -> Tf32Gemm {
    Tf32Gemm {
        m,
        n,
        k,
        lda: (k + pad).next_multiple_of(4),
        ldb: (n + pad).next_multiple_of(4),
        ldc: n + pad,
        alpha,
        beta,
        kind: Tf32Kind::Tf32,
        a_k_major: true,
        b_k_major: false,
    }
}

/// Random f32 operands in [-1, 1) (not rounded to TF32) and an initial C, as stored (by `g`'s
/// layouts), NaN in the gaps of padded rows and columns.
fn operands(g: &Tf32Gemm, seed: u64) -> [Vec<f32>; 3] {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (la, lb, lc) = g.lens();
    let aw = if g.a_k_major { g.k } else { g.m };
    let bw = if g.b_k_major { g.k } else { g.n };
    [
        random_padded(la, aw, g.lda, &mut rng),
        random_padded(lb, bw, g.ldb, &mut rng),
        random_padded(lc, g.n, g.ldc, &mut rng),
    ]
}

/// C after one launch of `g` with `opts`, and the launch's kernel and split passes.
fn run(
    gpu: &Gpu,
    g: &Tf32Gemm,
    ops: &[Vec<f32>; 3],
    opts: Tf32Options,
) -> (Vec<f32>, &'static str, usize) {
    let [a, b, c0] = ops;
    let (da, db, dc) = (
        DeviceBuffer::from_slice(a).unwrap(),
        DeviceBuffer::from_slice(b).unwrap(),
        DeviceBuffer::from_slice(c0).unwrap(),
    );
    let launch = Tf32Launch::new(gpu, g, &da, &db, &dc, opts).unwrap();
    launch.launch().unwrap();
    gpu.stream.synchronize().unwrap();
    (download(&dc).unwrap(), launch.kernel(), launch.passes())
}

/// `rows x cols` of `v` whose rows are `ld` apart, dense.
fn dense(v: &[f32], rows: usize, cols: usize, ld: usize) -> Vec<f32> {
    (0..rows * cols)
        .map(|i| v[(i / cols) * ld + i % cols])
        .collect()
}

/// The f64 reference of every cell of C (alpha, beta and C's old values included), with its
/// bound.
fn expected(g: &Tf32Gemm, ops: &[Vec<f32>; 3]) -> Reference {
    let [a, b, c0] = ops;
    let mut r = reference(
        &dense(a, g.m, g.k, g.lda),
        &dense(b, g.k, g.n, g.ldb),
        g.m,
        g.n,
        g.k,
        None,
    );
    let (alpha, beta) = (f64::from(g.alpha), f64::from(g.beta));
    for i in 0..r.c.len() {
        let from_c = beta * f64::from(c0[(i / g.n) * g.ldc + i % g.n]);
        r.c[i] = alpha * r.c[i] + from_c;
        r.bound[i] = alpha.abs() * r.bound[i] + from_c.abs();
    }
    r
}

/// Checks every cell of `c` against `r` ([`expected`]) with TF32's bound, and that the gaps of
/// C's padded rows are untouched.
fn check(g: &Tf32Gemm, r: &Reference, c: &[f32], what: &str) {
    let got = check_with(
        &dense(c, g.m, g.n, g.ldc),
        r,
        Precision::Tf32.tolerance(g.k),
    );
    assert!(got.passed(), "{what} {g:?}: {got:?}");
    let gaps_ok = (0..c.len())
        .filter(|i| i % g.ldc >= g.n)
        .all(|i| c[i].is_nan());
    assert!(
        gaps_ok,
        "{what} {g:?}: a gap of C's padded rows was written"
    );
}

/// Schedules whose walk of k is whole tiles (in place and split then add the same products in
/// the same order): a block per tile, the library's persistent grid with whole tiles, and 3
/// blocks each walking many tiles (the ring's phases run on across tiles).
fn whole_tiles() -> [Schedule; 3] {
    let lib = tf32_options().schedule;
    [
        Schedule::CLASSIC,
        Schedule {
            stream_k: None,
            sk_auto: false,
            pair: false,
            ..lib
        },
        Schedule {
            blocks: Blocks::AtMost(3),
            group: 3,
            stream_k: None,
            sk_auto: false,
            pair: false,
            ..lib
        },
    ]
}

const SHAPES: [(usize, usize, usize, usize, f32, f32); 6] = [
    (512, 512, 256, 0, 1.0, 0.0),
    (300, 200, 77, 3, 1.0, 0.0),
    (777, 1000, 520, 8, 1.5, -0.5),
    (129, 257, 65, 0, -1.0, 2.0),
    (1000, 132, 33, 5, 1.0, 1.0),
    (33, 700, 300, 0, 0.5, 0.0),
];

#[test]
fn row_major_b_in_place_matches_the_reference_and_the_split_pass_bit_for_bit() {
    let Some(gpu) = hopper_for_test("sm90_tf32_in_place_rows") else {
        return;
    };
    for (i, &(m, n, k, pad, alpha, beta)) in SHAPES.iter().enumerate() {
        let g = gemm(m, n, k, pad, alpha, beta);
        let ops = operands(&g, 40 + i as u64);
        let r = expected(&g, &ops);
        for sched in whole_tiles() {
            let opts = |row_b| Tf32Options {
                schedule: sched,
                row_b,
                ..tf32_options()
            };
            let (split, kernel, passes) = run(&gpu, &g, &ops, opts(RowMajorB::Split));
            assert_eq!(passes, 1, "{kernel}: B alone is split");
            let (c, kernel, passes) = run(&gpu, &g, &ops, opts(RowMajorB::InPlace));
            assert_eq!((kernel, passes), (IN_PLACE_KERNEL, 0), "{g:?}");
            check(&g, &r, &c, &format!("in place, {sched:?}"));
            let differ: Vec<usize> = (0..c.len())
                .filter(|&j| {
                    c[j].to_bits() != split[j].to_bits() && !(c[j].is_nan() && split[j].is_nan())
                })
                .collect();
            let max = differ
                .iter()
                .map(|&j| (c[j] - split[j]).abs())
                .fold(0f32, f32::max);
            assert!(
                differ.is_empty(),
                "{g:?} {sched:?}: {} of {} cells differ from the split path (max |diff| {max:e}, first at {})",
                differ.len(),
                c.len(),
                differ[0]
            );
        }
    }
}

/// The kernels whose producer threads load B (no pass): against the reference and bit for bit
/// against the split path under every schedule, stream-K included (both run the K-major
/// kernel's consumers on the same tiles, B rounded alike, so even split tiles add the same
/// products in the same order).
#[test]
fn row_major_b_loaded_matches_the_reference_and_the_split_pass_bit_for_bit() {
    let Some(gpu) = hopper_for_test("sm90_tf32_loaded_rows") else {
        return;
    };
    let lib = tf32_options().schedule;
    let stream_k = [
        (Blocks::AtMost(3), Some(0), false),
        (Blocks::AtMost(5), Some(4096), false),
        (Blocks::PerSm, Some(1), true),
    ]
    .map(|(blocks, w, last)| Schedule {
        blocks,
        stream_k: w,
        sk_last: last,
        sk_auto: false,
        pair: false,
        ..lib
    });
    for (i, &(m, n, k, pad, alpha, beta)) in SHAPES.iter().enumerate() {
        let g = gemm(m, n, k, pad, alpha, beta);
        let ops = operands(&g, 80 + i as u64);
        let r = expected(&g, &ops);
        for sched in whole_tiles().into_iter().chain(stream_k) {
            let opts = |row_b| Tf32Options {
                schedule: sched,
                row_b,
                ..tf32_options()
            };
            let (split, _, passes) = run(&gpu, &g, &ops, opts(RowMajorB::Split));
            assert_eq!(passes, 1, "B alone is split");
            // One producer group (registers a slice ahead) and two (taking turns), each with
            // the default L2 prefetch and none, 1 slice, beyond the walk's end: the same bits.
            for (load_groups, prefetch) in [
                (1, None),
                (2, None),
                (1, Some(0)),
                (2, Some(1)),
                (1, Some(16)),
            ] {
                let base = opts(RowMajorB::Load);
                let o = Tf32Options {
                    load_groups,
                    prefetch: prefetch.unwrap_or(base.prefetch),
                    ..base
                };
                let (c, kernel, passes) = run(&gpu, &g, &ops, o);
                let want = if load_groups == 1 {
                    LOAD_KERNEL
                } else {
                    LOAD_KERNEL_2
                };
                assert_eq!((kernel, passes), (want, 0), "{g:?}");
                check(&g, &r, &c, &format!("loaded, {o:?}"));
                let differ = (0..c.len())
                    .filter(|&j| {
                        c[j].to_bits() != split[j].to_bits()
                            && !(c[j].is_nan() && split[j].is_nan())
                    })
                    .count();
                assert_eq!(differ, 0, "{g:?} {o:?}: cells differ from the split path");
            }
        }
    }
}

/// Stream-K (tiles split along k between blocks; 3 and 5 blocks, every tile split or the last
/// partial wave after whole tiles) on the in-place kernel: against the reference, and a second
/// launch gives the same bits.
#[test]
fn row_major_b_in_place_with_stream_k_matches_the_reference() {
    let Some(gpu) = hopper_for_test("sm90_tf32_in_place_rows_stream_k") else {
        return;
    };
    let lib = tf32_options().schedule;
    for (i, &(m, n, k, pad, alpha, beta)) in SHAPES.iter().enumerate() {
        let g = gemm(m, n, k, pad, alpha, beta);
        let ops = operands(&g, 60 + i as u64);
        let r = expected(&g, &ops);
        for (blocks, w, last) in [
            (Blocks::AtMost(3), Some(0), false),
            (Blocks::AtMost(5), Some(4096), false),
            (Blocks::PerSm, Some(1), true),
        ] {
            let opts = Tf32Options {
                schedule: Schedule {
                    blocks,
                    stream_k: w,
                    sk_last: last,
                    sk_auto: false,
                    pair: false,
                    ..lib
                },
                row_b: RowMajorB::InPlace,
                ..tf32_options()
            };
            let (c, kernel, _) = run(&gpu, &g, &ops, opts);
            assert_eq!(kernel, IN_PLACE_KERNEL);
            check(&g, &r, &c, &format!("stream-K {opts:?}"));
            let (again, _, _) = run(&gpu, &g, &ops, opts);
            assert!(
                c.iter()
                    .zip(&again)
                    .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())),
                "{g:?} {opts:?}: a second launch differs"
            );
        }
    }
}

/// Which kernel and passes the library's options choose by layout: for A and B row-major in
/// TF32 what `tc::select::TF32_ROW_MAJOR_B` says (in place: no pass; split: B's), the K-major
/// kernel otherwise (B column-major read in place; A column-major split, and then B too), and
/// 3xTF32 always splits both.
#[test]
fn the_library_reads_row_major_b_as_selected() {
    let Some(gpu) = hopper_for_test("sm90_tf32_library_row_major_b") else {
        return;
    };
    // The library's kernel for A and B row-major in TF32 (None: the K-major one) and its passes.
    let (rows_kernel, rows_passes) = match TF32_ROW_MAJOR_B {
        RowMajorB::InPlace => (Some(IN_PLACE_KERNEL), 0),
        RowMajorB::Load => (Some(LOAD_KERNEL), 0),
        RowMajorB::Split => (None, 1),
    };
    let (m, n, k) = (300, 256, 96);
    for (a_k_major, b_k_major, kind, want_kernel, want_passes) in [
        (true, false, Tf32Kind::Tf32, rows_kernel, rows_passes),
        (true, true, Tf32Kind::Tf32, None, 0),
        (false, false, Tf32Kind::Tf32, None, 2),
        (true, false, Tf32Kind::Tf32x3, None, 2),
    ] {
        let g = Tf32Gemm {
            lda: if a_k_major { k } else { m },
            ldb: if b_k_major { k } else { n },
            kind,
            a_k_major,
            b_k_major,
            ..gemm(m, n, k, 0, 1.0, 0.0)
        };
        let ops = operands(&g, 7);
        let (_, kernel, passes) = run(&gpu, &g, &ops, tf32_options());
        let special = [IN_PLACE_KERNEL, LOAD_KERNEL, LOAD_KERNEL_2].contains(&kernel);
        assert_eq!(
            (special.then_some(kernel), passes),
            (want_kernel, want_passes),
            "{g:?}: {kernel}"
        );
    }
}
