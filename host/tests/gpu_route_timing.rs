//! Timings behind the route model's constants (`host::matmul::route`, docs/matmul.md "Routes"):
//! for problems of each class the routes target (deep K, transposes, odd sizes, batches), the
//! median time of cuBLAS's matching call, of the direct route, of the model's pick and of every
//! candidate route (and, for batches, of every tile of the variant), each printed beside the
//! model's estimate. Ignored by default (it measures, it checks nothing; the routes'
//! correctness is `gpu_route.rs`'s); on the GPU machine:
//! `tests/gpu_route_timing --ignored --nocapture` (scripts/gpu-shapes-route.sh).
use cust::memory::DeviceBuffer;
use gpu_kernels::matmul::{Op, stream_k::Schedule};
use host::{
    Gemm, Gpu,
    gpu::{gpu_for_test, time_on_stream},
    matmul::{
        layout::{self, Operand},
        route::{self, Prep, Route, SplitK, SplitSum, TILES},
        sgemm::{gemm_device_with_kernel, gemm_device_with_route},
        split_run,
    },
    reference::cublas::Cublas,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const REPS: usize = 15;

fn problems() -> Vec<Gemm> {
    let g = |m, n, k, a, b, batch| Gemm::new(m, n, k).ops(a, b).batch(batch);
    use Op::{N, T};
    vec![
        // Deep K (the suite's and others).
        g(128, 128, 16384, N, N, 1),
        g(256, 256, 16384, N, N, 1),
        g(512, 512, 16384, N, N, 1),
        g(1024, 1024, 16384, N, N, 1),
        g(384, 384, 12000, N, N, 1),
        g(768, 640, 8192, N, N, 1),
        g(256, 256, 16384, T, T, 1),
        // Transposes.
        g(4096, 4096, 4096, T, N, 1),
        g(4096, 4096, 4096, N, T, 1),
        g(4096, 4096, 4096, T, T, 1),
        g(1000, 777, 1025, T, N, 1),
        g(1000, 777, 1025, N, T, 1),
        g(1000, 777, 1025, T, T, 1),
        g(2000, 3000, 1500, N, T, 1),
        // Odd and medium.
        g(333, 555, 777, N, N, 1),
        g(4097, 4095, 1023, N, N, 1),
        g(1025, 1023, 1023, N, N, 1),
        g(1000, 1000, 1000, N, N, 1),
        g(1024, 1024, 1024, N, N, 1),
        g(700, 700, 2000, N, N, 1),
        g(2048, 512, 8192, N, N, 1),
        g(777, 1000, 129, N, N, 1),
        g(3000, 3000, 3000, N, N, 1),
        // Batches of 256³ and larger.
        g(256, 256, 256, N, N, 512),
        g(256, 256, 256, T, N, 512),
        g(256, 256, 256, N, T, 512),
        g(256, 256, 256, T, T, 512),
        g(512, 512, 512, N, N, 128),
        g(384, 384, 384, N, T, 100),
    ]
}

fn routes(op: &Gemm, al: route::Aligned) -> Vec<Route> {
    let mut out = vec![Route::DIRECT];
    let preps = [Prep::Keep, Prep::Transpose, Prep::Repitch];
    for a in preps {
        for b in preps {
            out.push(Route { a, b, split: None });
        }
    }
    if op.batch == 1 {
        for (a, b) in [
            (Prep::Keep, Prep::Keep),
            (Prep::Transpose, Prep::Keep),
            (Prep::Keep, Prep::Repitch),
            (Prep::Transpose, Prep::Repitch),
        ]
        .into_iter()
        .filter(|&(_, b)| b == Prep::Keep || !al.b)
        {
            for tile in 0..TILES.len() {
                for splits in route::SPLIT_COUNTS {
                    let c = route::variant([op.op_a, op.op_b], tile, true);
                    let blocks = c.tiles(op.m as u32, op.n as u32) as usize * splits as usize;
                    if op.k / splits as usize >= 128 && blocks <= 2048 {
                        out.push(Route {
                            a,
                            b,
                            split: Some(SplitK {
                                tile,
                                splits,
                                sum: SplitSum::Launch,
                            }),
                        });
                    }
                }
                for splits in route::FUSED_COUNTS {
                    if op.k / splits as usize >= route::MIN_FUSED_K {
                        for sum in [SplitSum::InVariant, SplitSum::InFlagship] {
                            out.push(Route {
                                a,
                                b,
                                split: Some(SplitK { tile, splits, sum }),
                            });
                        }
                    }
                }
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|r| seen.insert(*r));
    out
}

fn label(op: &Gemm) -> String {
    format!(
        "{}x{}x{} {}{} x{}",
        op.m,
        op.n,
        op.k,
        op.op_a.letter(),
        op.op_b.letter(),
        op.batch
    )
}

fn time(gpu: &Gpu, mut f: impl FnMut() -> host::Result<()>) -> f64 {
    time_on_stream(&gpu.stream, 2, REPS, || Ok(f()?))
        .map(|t| t.median_ms)
        .unwrap_or(f64::NAN)
}

#[test]
#[ignore = "timings for the route model; run on the GPU machine with --ignored"]
fn route_timings() {
    let Some(gpu) = gpu_for_test("route_timings") else {
        return;
    };
    let cublas = Cublas::load(&gpu).expect("cuBLAS");
    let machine = split_run::machine(&gpu).unwrap();
    println!("machine {machine:?}");
    // `ROUTE_TIMING_ONLY`: `;`-separated labels ("333x555x777 NN x1") to time only those.
    let only = std::env::var("ROUTE_TIMING_ONLY").ok();
    let wanted = |op: &Gemm| {
        only.as_deref()
            .is_none_or(|o| o.split(';').any(|l| l.trim() == label(op)))
    };
    for op in problems().into_iter().filter(wanted) {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let [a, b, c] =
            [Operand::A, Operand::B, Operand::C].map(|w| layout::random_buffer(&op, w, &mut rng));
        let d_a = DeviceBuffer::from_slice(&a).unwrap();
        let d_b = DeviceBuffer::from_slice(&b).unwrap();
        let mut d_c = DeviceBuffer::from_slice(&c).unwrap();
        let al = split_run::aligned(&op, &d_a, &d_b);
        let cub = time(&gpu, || Ok(cublas.gemm(&op, &d_a, &d_b, &d_c)?));
        let lib = time(&gpu, || host::gemm_device(&gpu, &op, &d_a, &d_b, &mut d_c));
        let pick = route::choose_route(&op, al, &machine);
        println!(
            "P {} | cublas {cub:.4} | library {lib:.4} ({:.1}%) | pick {pick:?} | aligned {al:?}",
            label(&op),
            100.0 * cub / lib
        );
        let mut best = (f64::INFINITY, Route::DIRECT);
        for r in routes(&op, al) {
            let ms = time(&gpu, || {
                gemm_device_with_route(&gpu, r, &op, &d_a, &d_b, &mut d_c)
            });
            let model = 1e3 * route::route_time(&op, al, &r, &machine);
            println!(
                "R {} | {r:?} | {ms:.4} | {:.1}% | model {model:.4}",
                label(&op),
                100.0 * cub / ms
            );
            if ms < best.0 {
                best = (ms, r);
            }
        }
        println!(
            "B {} | best {:?} {:.4} ({:.1}%)",
            label(&op),
            best.1,
            best.0,
            100.0 * cub / best.0
        );
        if op.batch > 1 || op.op_a != Op::N || op.op_b != Op::N {
            let vec = op.straight_vector_ok(&d_a, &d_b);
            for tile in 0..TILES.len() {
                let cfg = route::variant([op.op_a, op.op_b], tile, vec);
                let ms = time(&gpu, || {
                    gemm_device_with_kernel(
                        &gpu,
                        cfg.name,
                        Schedule::StreamK,
                        &op,
                        &d_a,
                        &d_b,
                        &mut d_c,
                    )
                });
                println!(
                    "K {} | {} | {ms:.4} | {:.1}%",
                    label(&op),
                    cfg.name,
                    100.0 * cub / ms
                );
            }
        }
    }
}
