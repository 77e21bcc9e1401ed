//! The `mma.sync` ceiling: each warp issues long unrolled runs of independent tensor-core
//! instructions on register operands only (no shared or global memory in the loop), so the
//! time is the tensor pipe's issue rate and nothing else. `MMA_PEAK_CHAINS` accumulators per
//! warp cover the instruction's latency; the launch puts several blocks of 8 warps on every SM.
//! The sums are stored so that no `mma` is dead code. See `MmaPeak` in `mod.rs`.
use cuda_std::{kernel, thread};
use seq_macro::seq;

use super::mma::{mma_16x8x8_tf32, mma_16x8x16};
use super::{MMA_PEAK_CHAINS, TcKind};

macro_rules! peak_kernels {
    ($($name:ident: $kind:ident),* $(,)?) => {$(
        /// # Safety
        /// `out` must hold one writable f32 per launched thread (grid x block), which no other
        /// code accesses during the launch.
        #[kernel]
        pub unsafe fn $name(out: *mut f32, iters: u32) {
            const KIND: TcKind = TcKind::$kind;
            const _: () = assert!(MMA_PEAK_CHAINS == 16);
            let tid = thread::thread_idx_x();
            // Operands from the thread index (their values do not change the issue rate):
            // small normal numbers in every 16-bit half (BF16 0x3c00.. ≈ 0.0078, FP16 ≈ 1.0,
            // TF32 words ≈ 0.0078), never NaN or infinite.
            let x = 0x3c00_3c00u32 | (tid & 7) | ((tid & 7) << 16);
            let a = [x, x ^ 1, x ^ 2, x ^ 3];
            let b = [x ^ 4, x ^ 5];
            let mut acc = [[0f32; 4]; 16];
            let mut i = 0;
            while i < iters {
                seq!(C in 0..16 {
                    match KIND {
                        TcKind::Bf16 => mma_16x8x16::<true>(&mut acc[C], a, b),
                        TcKind::Fp16 => mma_16x8x16::<false>(&mut acc[C], a, b),
                        _ => mma_16x8x8_tf32(&mut acc[C], a, b),
                    }
                });
                i += 1;
            }
            let mut sum = 0f32;
            seq!(C in 0..16 {
                sum += acc[C][0] + acc[C][1] + acc[C][2] + acc[C][3];
            });
            let at = thread::block_idx_x() * thread::block_dim_x() + tid;
            // SAFETY: one float per launched thread, this thread's alone (the contract).
            unsafe { *out.add(at as usize) = sum };
        }
    )*};
}
peak_kernels!(tc_mma_peak_bf16: Bf16, tc_mma_peak_fp16: Fp16, tc_mma_peak_tf32: Tf32);
