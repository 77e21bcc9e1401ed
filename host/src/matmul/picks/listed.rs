//! Every committed problem list (the suite, the skinny list, every session's outside list) and
//! the library's route for each on the H200 (CPU only): `picks` pins them, so that a change of
//! the cost model moves exactly the problems it was measured on.
use gpu_kernels::matmul::Op;

use crate::matmul::{
    problem::Gemm,
    route::{Aligned, H200, Prep, Route, SplitSum, choose_route, single_t},
    skinny_split,
};

/// The committed lists (`M N K OPS BATCH` lines, as `host bench sgemm-shapes --suite` reads
/// them).
const LISTS: &[(&str, &str)] = &[
    ("suite", include_str!("../../../data/sgemm-shapes.txt")),
    (
        "skinny",
        include_str!("../../../data/sgemm-shapes-skinny.txt"),
    ),
    ("mid", include_str!("../../../data/mid/outside.txt")),
    ("tsingle", include_str!("../../../data/tsingle/outside.txt")),
    ("gemv", include_str!("../../../data/gemv/outside.txt")),
    ("s11", include_str!("../../../data/s11/outside.txt")),
    (
        "s6",
        include_str!("../../../../docs/data/session6-2026-11-24/shapes/outside.txt"),
    ),
    (
        "s7",
        include_str!("../../../../docs/data/session7-2026-11-24/shapes/outside.txt"),
    ),
    (
        "s8",
        include_str!("../../../../docs/data/session8-2026-11-24/shapes/outside.txt"),
    ),
    (
        "bops",
        include_str!("../../../../docs/data/session9-2026-11-24/bops/outside_bops.txt"),
    ),
];

/// One listed problem: its label (`MxNxK OPS xBATCH`, as the bench prints it) and the problem
/// with packed operands, as `host bench sgemm-shapes` allocates them.
pub(super) struct Listed {
    pub label: String,
    pub gemm: Gemm,
}

/// Every problem of [`LISTS`], each once (first list first).
pub(super) fn listed() -> Vec<Listed> {
    let mut out: Vec<Listed> = Vec::new();
    for (name, text) in LISTS {
        for line in text.lines() {
            let body = line.split('#').next().unwrap_or("").trim();
            if body.is_empty() {
                continue;
            }
            let f: Vec<&str> = body.split_whitespace().collect();
            assert_eq!(f.len(), 5, "{name}: {body}");
            let num = |s: &str| s.parse::<usize>().unwrap();
            let op = |c: u8| if c == b'T' { Op::T } else { Op::N };
            let ops = f[3].as_bytes();
            let gemm = Gemm::new(num(f[0]), num(f[1]), num(f[2]))
                .ops(op(ops[0]), op(ops[1]))
                .batch(num(f[4]));
            let label = format!("{}x{}x{} {} x{}", f[0], f[1], f[2], f[3], f[4]);
            if !out.iter().any(|l| l.label == label) {
                out.push(Listed { label, gemm });
            }
        }
    }
    out
}

/// Whether each packed operand allows 16-byte copies (`split_run::aligned` on buffers of
/// exactly the problem's size: the stored row width, and in a batch the stride, multiples of 4).
pub(super) fn packed_aligned(g: &Gemm) -> Aligned {
    let ok = |ld: usize, stride: usize| {
        ld.is_multiple_of(4) && (g.batch == 1 || stride.is_multiple_of(4))
    };
    Aligned {
        a: ok(g.lda, g.stride_a),
        b: ok(g.ldb, g.stride_b),
    }
}

/// The library's route for `g` (`sgemm::pick_route` without `RGK_SGEMM_ROUTE`): a thin side
/// goes to `skinny_split`, the rest to the cost model.
pub(super) fn pick(g: &Gemm) -> Route {
    if g.m <= skinny_split::THIN_SIDE || g.n <= skinny_split::THIN_SIDE {
        skinny_split::thin_route(g, &H200)
    } else {
        choose_route(g, packed_aligned(g), &H200)
    }
}

/// The kernel the direct route of a problem with a transposed operand or a batch launches
/// (`select_ops::choose_ops_kernel`, with `single_t::a_aligned_twin`), on packed operands;
/// `None` for a plain N,N problem (`select`'s choice, which the cost model leaves alone).
pub(super) fn direct_kernel(g: &Gemm) -> Option<&'static str> {
    if g.is_plain() {
        return None;
    }
    let al = packed_aligned(g);
    let vec = (g.op_a == Op::N || al.a) && (g.op_b == Op::T || al.b);
    let c = crate::matmul::select_ops::choose_ops_kernel(g, vec, &H200);
    Some(single_t::a_aligned_twin(c, g.op_a == Op::T && al.a).name)
}

/// `route` in `RGK_SGEMM_ROUTE`'s syntax (`route::parse_route`).
pub(super) fn route_name(r: &Route) -> String {
    let prep = |p: Prep| match p {
        Prep::Keep => 'K',
        Prep::Transpose => 'T',
        Prep::Repitch => 'R',
    };
    let mut parts = Vec::new();
    if r.a != Prep::Keep {
        parts.push(format!("a={}", prep(r.a)));
    }
    if r.b != Prep::Keep {
        parts.push(format!("b={}", prep(r.b)));
    }
    if let Some(s) = r.split {
        let key = match s.sum {
            SplitSum::Launch => "splits",
            SplitSum::InVariant => "fused",
            SplitSum::InFlagship => "flagship",
        };
        parts.push(format!("tile={},{key}={}", s.tile, s.splits));
    }
    if parts.is_empty() {
        "direct".into()
    } else {
        parts.join(",")
    }
}

#[test]
#[ignore = "prints every listed problem's pick: cargo test -p host --lib listed -- --ignored --nocapture"]
fn print_picks() {
    use crate::matmul::route::{candidates, route_time};
    for l in listed() {
        let r = pick(&l.gemm);
        let al = packed_aligned(&l.gemm);
        let t = |r: &Route| route_time(&l.gemm, al, r, &H200) * 1e3;
        let mut all: Vec<(f64, Route)> = candidates(&l.gemm, al, &H200)
            .into_iter()
            .map(|r| (t(&r), r))
            .collect();
        all.sort_by(|x, y| x.0.total_cmp(&y.0));
        let best: Vec<String> = all
            .iter()
            .take(4)
            .map(|(t, r)| format!("{} {t:.4}", route_name(r)))
            .collect();
        println!(
            "PICK {} | {} {} | direct {:.4} pick {:.4} | {}",
            l.label,
            route_name(&r),
            if r == Route::DIRECT {
                direct_kernel(&l.gemm).unwrap_or("")
            } else {
                ""
            },
            t(&Route::DIRECT),
            t(&r),
            best.join("; ")
        );
    }
}
