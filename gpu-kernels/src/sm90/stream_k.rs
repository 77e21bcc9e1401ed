//! Stream-K's fix-up for the Hopper kernels whose consumer warp groups hold an m64n256 f32
//! accumulator fragment (`[u32; 128]` a thread: the 16-bit and TF32 kernels). `pipeline::Walk`
//! cuts the last tiles along k into one contiguous run of slices per block; a tile split between
//! blocks is finished by its *owner*, the block that computed its first slices:
//!
//! - a block whose unit starts inside a tile (`kb > 0`, only ever its first unit) stores its
//!   partial sums raw to its own slot of the workspace (each consumer thread its 128 registers,
//!   coalesced), and its warp group's lead thread releases the slot's flag;
//! - the owner (`kb == 0`, `ke < ktiles`) waits for the flag of each later block whose run starts
//!   inside the tile, in block order, adds that block's partial sums to its own, resets the flag
//!   for the next launch and then stores the tile as a whole tile (alpha, beta).
//!
//! The order of the additions is fixed by the grid (own slices, then the next block's, then the
//! one after), so results repeat bit for bit. An owner waits only for blocks of higher index
//! whose partial is their first unit, and takes its own part of the tile last (after its
//! data-parallel tiles, `pipeline::Walk::next`), so with data-parallel tiles to do it finds the
//! partials done; without, it may spin, but never in a cycle, and the host keeps the grid
//! within one block per SM, so every block is resident.
use super::asm90::{flag_acquire_reset, flag_release, grid_blocks, ld_global_cg_v4, named_barrier};
use super::pipeline::{Unit, Walk};
use super::{CONSUMERS, SK_PARTIAL_WORDS};
use crate::ptx::{fresh_ctaid_x, fresh_tid_x, st_global};
use seq_macro::seq;

/// Words of one consumer warp group's partial fragment (128 threads x 128 registers).
const PART_WORDS: u32 = SK_PARTIAL_WORDS / CONSUMERS;

/// One consumer warp group's view of a stream-K launch. The block, grid and thread are read
/// anew where needed (special registers), so that nothing extra stays live through the k loop.
#[derive(Clone, Copy)]
pub(super) struct StreamK {
    /// The workspace: `grid` slots of [`SK_PARTIAL_WORDS`], then `grid · CONSUMERS` flags.
    work: *mut u32,
    walk: Walk,
}

impl StreamK {
    #[inline(always)]
    pub(super) fn new(work: *mut u32, walk: Walk) -> StreamK {
        StreamK { work, walk }
    }

    /// This thread's consumer warp group (0..CONSUMERS) and its index in it (0..128).
    #[inline(always)]
    fn thread() -> (u32, u32) {
        let tid = fresh_tid_x();
        (tid / 128 - 1, tid % 128)
    }

    /// Block `b`'s partial fragment of this warp group: this thread's first word.
    #[inline(always)]
    fn part(&self, b: u32) -> *mut u32 {
        let (cw, t) = Self::thread();
        let slot = (b * CONSUMERS + cw) as usize * PART_WORDS as usize;
        self.work.wrapping_add(slot + 4 * t as usize)
    }

    /// Block `b`'s flag for this warp group.
    #[inline(always)]
    fn flag(&self, b: u32) -> *mut u32 {
        let (cw, _) = Self::thread();
        let at = grid_blocks() as usize * SK_PARTIAL_WORDS as usize + (b * CONSUMERS + cw) as usize;
        self.work.wrapping_add(at)
    }

    /// Finishes unit `u` of this warp group's accumulators `acc`: a partial unit is handed to
    /// the tile's owner; an owner first adds the others' partials; a whole tile, or an owner's
    /// combined sums, goes to `store` with the tile's origin in C.
    ///
    /// # Safety
    /// Every thread of the warp group calls this for the same unit, after every wgmma writing
    /// `acc` retired; `work` holds the workspace of this launch's grid (zeroed flags before the
    /// first launch; each launch leaves them zero), and every block of the grid is resident.
    #[inline(always)]
    pub(super) unsafe fn finish(
        &self,
        acc: &mut [u32; 128],
        u: Unit,
        store: impl FnOnce(&mut [u32; 128], u32, u32),
    ) {
        let (cw, t) = Self::thread();
        let bar = 1 + cw;
        if u.kb > 0 {
            let p = self.part(fresh_ctaid_x());
            // SAFETY: this block's own slot (one partial unit a block), 16-byte aligned (the
            // workspace is, and every offset is a multiple of 4 words); the flag is released
            // once all 128 threads stored (named barrier first).
            unsafe {
                seq!(R in 0..32 {
                    st_global::<4>(p.add(R * 512), [acc[R * 4], acc[R * 4 + 1], acc[R * 4 + 2], acc[R * 4 + 3]]);
                });
                named_barrier(bar, 128);
                if t == 0 {
                    flag_release(self.flag(fresh_ctaid_x()));
                }
            }
            return;
        }
        let ktiles = self.walk.ktiles();
        if u.ke < ktiles {
            // The tile's slices end here in the stream-K order; every later block starting
            // before that end holds a partial of it.
            let end = (u.tile - self.walk.dp_tiles() + 1) * ktiles;
            let grid = grid_blocks();
            let mut b = fresh_ctaid_x() + 1;
            while b < grid && self.walk.sk_start(b, grid) < end {
                // SAFETY: block b's slot is complete once its flag reads 1 (acquire by the
                // lead thread, then the named barrier orders the others' loads after it).
                unsafe {
                    if t == 0 {
                        flag_acquire_reset(self.flag(b));
                    }
                    named_barrier(bar, 128);
                    let p = self.part(b);
                    seq!(R in 0..32 {
                        let v = ld_global_cg_v4(p.add(R * 512));
                        seq!(I in 0..4 {
                            acc[R * 4 + I] = (f32::from_bits(acc[R * 4 + I]) + f32::from_bits(v[I])).to_bits();
                        });
                    });
                }
                b += 1;
            }
        }
        let (m0, n0) = self.walk.origin(u.tile);
        store(acc, m0, n0);
    }
}
