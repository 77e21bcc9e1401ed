//! Compile-time checks of every float list row (`FW_FLOAT`, `float.rs`): the geometry the
//! kernels of `fw_float.rs`, `fw_float_tile.rs`, `fw_float_at.rs` and `fw_float_persist.rs` rely
//! on. A row that breaks one fails the build. Apart from `float.rs` so that the list and its
//! config type stay one concept a file.
use super::float::{FW_FLOAT, eq};

// The geometry the kernels rely on.
const _: () = {
    let mut i = 0;
    while i < FW_FLOAT.len() {
        let c = FW_FLOAT[i];
        assert!(c.block.is_multiple_of(c.pivot_threads));
        assert!(c.pivot_threads * c.pivot_threads <= 1024);
        // Cells in groups of 4 (16 or 32 bytes), groups spread 4 * threads apart.
        assert!(c.tile_threads_x * c.tile_cols == c.block && c.tile_cols.is_multiple_of(4));
        assert!(c.tile_threads_y * c.tile_rows == c.block && c.tile_rows.is_multiple_of(4));
        assert!(c.block.is_multiple_of(c.k_chunk) && c.k_chunk.is_multiple_of(4));
        assert!(
            c.stages == 1
                || (c.stages == 2 && c.block / c.k_chunk >= 2)
                || (c.stages == 3 && c.block / c.k_chunk >= 3)
        );
        // A ring of 3: A rows unpadded and swizzled (rows of a multiple of 128 bytes, a
        // thread's rows 4 apart in groups of 4), a grid kernel.
        assert!(
            c.stages != 3
                || ((c.k_chunk * c.cell_bytes).is_multiple_of(128)
                    && c.tile_threads_y.is_multiple_of(4)
                    && !c.persistent
                    && !c.own_late)
        );
        // 32-bit offsets: the early own read, nothing asked of L2, a grid kernel; columns in
        // pairs and the 16-byte pad only with them, pairs with one own block of 4 columns a
        // group today.
        assert!(!c.offsets32 || (!c.own_late && c.prefetch_ahead == 0 && !c.persistent));
        assert!(!c.a_pad16 || c.offsets32);
        assert!(!c.b_pairs || (c.a_pad16 && c.phase3_tiles == 1 && c.tile_cols.is_multiple_of(4)));
        assert!(c.a_load_k == 2 || c.a_load_k == 4);
        // A late own read prefetches its own block; no second block to ask for.
        assert!(!(c.own_late && c.prefetch_ahead > 0));
        assert!(c.tile_shared_bytes() <= 48 * 1024);
        assert!(c.phase3_shared_bytes() <= 48 * 1024);
        assert!(c.k_unroll == 1 || c.k_unroll == 2);
        assert!(c.k_chunk.is_multiple_of(c.k_unroll * c.a_load_k));
        // Two own blocks per phase-3 block: the lean copies, the plain own read, and A rows of
        // a multiple of 128 bytes (the swizzle permutes 16-byte quads inside 64-byte groups,
        // so the 4 rows a warp reads at once, 4 rows apart, fall in different banks).
        assert!(c.phase3_tiles == 1 || c.phase3_tiles == 2);
        assert!(
            c.phase3_tiles == 1
                || (c.lean_copy
                    && !c.own_late
                    && c.prefetch_ahead == 0
                    && !c.a_via_l1
                    && (c.persistent || (c.k_chunk * c.cell_bytes).is_multiple_of(128)))
        );
        // A persistent phase 3: two stages of at least two slices per item, lean copies, the
        // own cells read first, nothing asked of L2 ahead but its next item's own block.
        assert!(
            !c.persistent
                || (c.stages == 2
                    && c.block / c.k_chunk >= 2
                    && c.lean_copy
                    && !c.own_late
                    && c.prefetch_ahead == 0
                    && !c.a_via_l1)
        );
        // A^T (`fw_float_at.rs`): its one shape, slices of 64 or 32 k, 32-bit offsets.
        assert!(
            !c.a_transposed
                || (c.cell_bytes == 4
                    && c.block == 64
                    && (c.k_chunk == 64 || c.k_chunk == 32)
                    && c.stages == 1
                    && c.tile_threads_x == 8
                    && c.tile_threads_y == 8
                    && c.tile_rows == 8
                    && c.tile_cols == 8
                    && c.offsets32
                    && c.lean_copy)
        );
        // `nonneg`: an A^T shape, f32, the k steps of a slice in pairs (8·KK + u, KK even).
        assert!(
            !c.nonneg || (c.a_transposed && c.cell_bytes == 4 && (c.k_chunk / 8).is_multiple_of(2))
        );
        // Whole 16-byte quads per operand row, and each thread copies a whole number of them.
        let threads = c.tile_threads();
        assert!((c.k_chunk * c.cell_bytes).is_multiple_of(16));
        assert!((c.block * c.k_chunk * c.cell_bytes / 16).is_multiple_of(threads));
        // Lean copies: each thread copies one quad column of rows a fixed step apart (threads a
        // multiple of the quads per row), at most 16 quads per operand.
        let (qa, qb) = (c.k_chunk * c.cell_bytes / 16, c.block * c.cell_bytes / 16);
        let copiers = threads * c.phase3_tiles;
        assert!(
            !c.lean_copy
                || (threads.is_multiple_of(qa)
                    && copiers.is_multiple_of(qa)
                    && threads.is_multiple_of(qb)
                    && (c.block * qa).is_multiple_of(copiers)
                    && c.block * qa / threads <= 16
                    && c.k_chunk * qb / threads <= 16)
        );
        // The host's pitch: a multiple of B is a multiple of 16 bytes for both types.
        assert!((c.block * c.cell_bytes).is_multiple_of(16));
        // Variant names are unique per weight type.
        let mut j = 0;
        while j < i {
            let o = FW_FLOAT[j];
            assert!(!(eq(o.weight, c.weight) && eq(o.variant, c.variant)));
            j += 1;
        }
        i += 1;
    }
};
