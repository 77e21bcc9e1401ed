//! The properties that the fuzz target `graph_reader` (`fuzz/`) asserts on every input, shared
//! with the test that replays the kept corpus (`core/tests/fuzz_regressions.rs`) so that both
//! check the same things. Each check panics on a violation; libFuzzer reports the panic as a
//! crash. The benchmark records' properties are in `report/tests/fuzz_props`.

pub mod shared;

use rgk_core::BadInput;
use rgk_core::apsp::format::{Graph, MAX_WEIGHT, parse_graph};
use shared::assert_one_line_sentence;

const HEADER_BYTES: usize = 8;
const EDGE_BYTES: usize = 12;

fn le_i32(bytes: &[u8], at: usize) -> i64 {
    i64::from(i32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()))
}

/// The file format restated from its description, independently of the reader: `V >= 1`,
/// `0 <= E <= V(V-1)`, exactly `8 + 12E` bytes, every edge with both ends in `0..V`, no
/// self-loop, a weight in `0..=MAX_WEIGHT`.
fn is_valid_graph_file(bytes: &[u8]) -> bool {
    if bytes.len() < HEADER_BYTES {
        return false;
    }
    let (v, e) = (le_i32(bytes, 0), le_i32(bytes, 4));
    let edges = &bytes[HEADER_BYTES..];
    v >= 1
        && (0..=v * (v - 1)).contains(&e)
        && edges.len() as i64 == EDGE_BYTES as i64 * e
        && edges.chunks_exact(EDGE_BYTES).all(|edge| {
            let (src, dst, w) = (le_i32(edge, 0), le_i32(edge, 4), le_i32(edge, 8));
            (0..v).contains(&src)
                && (0..v).contains(&dst)
                && src != dst
                && (0..=i64::from(MAX_WEIGHT)).contains(&w)
        })
}

/// The file the writer would make of `g`, field by field (not through the reader's cast).
fn encode(g: &Graph) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_BYTES + EDGE_BYTES * g.edges.len());
    out.extend_from_slice(&i32::try_from(g.vertices).unwrap().to_le_bytes());
    out.extend_from_slice(&i32::try_from(g.edges.len()).unwrap().to_le_bytes());
    for e in &g.edges {
        for field in [e.src, e.dst, e.w] {
            out.extend_from_slice(&field.to_le_bytes());
        }
    }
    out
}

/// `parse_graph` accepts exactly the valid files; what it accepts satisfies the invariants of
/// `Graph` and re-encodes to the input bytes; what it rejects gets a one-line `BadInput` that
/// names the byte offset of the problem. Returns whether the input was accepted.
pub fn check_graph(bytes: &[u8]) -> bool {
    let valid = is_valid_graph_file(bytes);
    match parse_graph(bytes) {
        Ok(g) => {
            assert!(valid, "accepted an invalid file of {} bytes", bytes.len());
            assert!(g.vertices >= 1, "V = 0 accepted");
            assert_eq!((bytes.len() - HEADER_BYTES) % EDGE_BYTES, 0);
            assert_eq!(g.edges.len(), (bytes.len() - HEADER_BYTES) / EDGE_BYTES);
            for (i, e) in g.edges.iter().enumerate() {
                let ends = 0..g.vertices;
                assert!(
                    ends.contains(&(e.src as usize)) && ends.contains(&(e.dst as usize)),
                    "edge {i} out of range: {e:?}"
                );
                assert_ne!(e.src, e.dst, "edge {i} is a self-loop");
                assert!((0..=MAX_WEIGHT).contains(&e.w), "edge {i} weight {}", e.w);
            }
            assert_eq!(encode(&g), bytes, "re-encoding changed the bytes");
            // The in-memory constructor validates like the file reader.
            let again = Graph::from_edges(g.vertices, g.edges.clone()).unwrap();
            assert_eq!(again, g);
            true
        }
        Err(e) => {
            assert!(!valid, "rejected a valid file: {e:#}");
            assert!(
                e.downcast_ref::<BadInput>().is_some(),
                "not BadInput: {e:?}"
            );
            let message = format!("{e:#}");
            assert_one_line_sentence(&message);
            assert!(message.contains("byte offset"), "no byte offset: {message}");
            false
        }
    }
}
