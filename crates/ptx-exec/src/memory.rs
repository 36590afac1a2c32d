//! Address windows of generic addressing and the state spaces outside the caches.
//!
//! Global addresses are memsys device addresses (from 0x7f00_0000_0000) and are their own
//! generic addresses. The other spaces appear in the generic address space through windows of
//! 4 GiB each, placed below the global heap; `cvta` adds or removes a window base and
//! `isspacep` tests membership. The shared window maps to the executing CTA's shared memory,
//! the local window to the executing thread's local memory. (Real GPUs place these windows at
//! addresses the driver chooses; kernels only observe them through `cvta`/`isspacep` and
//! generic loads, which behave the same here.)

use crate::program::Space;

/// Base of the shared-memory window in the generic address space.
pub const SHARED_WINDOW: u64 = 0x0000_6000_0000_0000;
/// Base of the local-memory window.
pub const LOCAL_WINDOW: u64 = 0x0000_6100_0000_0000;
/// Base of the kernel-parameter window.
pub const KERNEL_PARAM_WINDOW: u64 = 0x0000_6200_0000_0000;
/// Base of the constant-bank window.
pub const CONST_WINDOW: u64 = 0x0000_6300_0000_0000;
/// Size of each window.
pub const WINDOW_SIZE: u64 = 1 << 32;

/// Base of the device addresses the cache model sees for local memory (below the global heap,
/// which starts at `memsys::GLOBAL_BASE`, 0x7f00_0000_0000), and the span they stay in.
pub const LOCAL_DEVICE_BASE: u64 = 0x0000_7e00_0000_0000;
pub const LOCAL_DEVICE_SPAN: u64 = 1 << 40;

/// The device address of byte `offset` of lane `lane`'s local memory, in the window of the
/// warp numbered `warp_linear` in the grid, each lane holding `local_bytes`. Local memory is
/// interleaved by 32-bit word across the warp's lanes (CUDA C++ Programming Guide, "Device
/// Memory Accesses", local memory: "organized such that consecutive 32-bit words are accessed
/// by consecutive thread IDs"): word `w` of lane `l` sits at `(w * 32 + l) * 4` in the window,
/// so a warp's access to the same word is one 128-byte line. Windows wrap within
/// [`LOCAL_DEVICE_SPAN`], as the GPU reuses a resident warp slot's local memory.
pub fn local_device_addr(warp_linear: u64, local_bytes: u32, lane: u32, offset: u64) -> u64 {
    let window = u64::from(local_bytes.div_ceil(4)).max(1) * 128;
    // The lower half of the span; the upper half holds the call frames.
    let windows = (LOCAL_DEVICE_SPAN / 2 / window).max(1);
    LOCAL_DEVICE_BASE
        + (warp_linear % windows) * window
        + (offset / 4) * 128
        + u64::from(lane) * 4
        + offset % 4
}

/// Call depths the call-frame area distinguishes (deeper frames share its slots).
pub const FRAME_DEPTHS: u64 = 64;

/// The device address of word `word` of lane `lane`'s call-frame save area at call depth
/// `depth` (1 = a function the kernel called) of warp `warp_linear`: in the upper half of the
/// local span, interleaved by lane like the rest of local memory (the saves are `STL`s of one
/// register per lane), each depth `MAX_FRAME_SAVE_WORDS` words.
pub fn frame_save_addr(warp_linear: u64, depth: u64, word: u32, lane: u32) -> u64 {
    let words = u64::from(crate::program::MAX_FRAME_SAVE_WORDS);
    let window = FRAME_DEPTHS * words * 128;
    let windows = LOCAL_DEVICE_SPAN / 2 / window;
    LOCAL_DEVICE_BASE
        + LOCAL_DEVICE_SPAN / 2
        + (warp_linear % windows) * window
        + ((depth % FRAME_DEPTHS) * words + u64::from(word)) * 128
        + u64::from(lane) * 4
}

/// Splits a generic address into its space and the address within that space (global
/// addresses are returned unchanged).
pub fn classify_generic(addr: u64) -> (Space, u64) {
    for (base, space) in [
        (SHARED_WINDOW, Space::Shared),
        (LOCAL_WINDOW, Space::Local),
        (KERNEL_PARAM_WINDOW, Space::KernelParam),
        (CONST_WINDOW, Space::Const),
    ] {
        if addr >= base && addr - base < WINDOW_SIZE {
            return (space, addr - base);
        }
    }
    (Space::Global, addr)
}

/// The generic address of an address in `space`.
pub fn to_generic(space: Space, addr: u64) -> u64 {
    match space {
        Space::Shared => SHARED_WINDOW + (addr & (WINDOW_SIZE - 1)),
        Space::Local => LOCAL_WINDOW + (addr & (WINDOW_SIZE - 1)),
        Space::KernelParam | Space::Param => KERNEL_PARAM_WINDOW + (addr & (WINDOW_SIZE - 1)),
        Space::Const => CONST_WINDOW + (addr & (WINDOW_SIZE - 1)),
        Space::Global | Space::Generic => addr,
    }
}

/// The name of a space in messages.
pub fn space_name(space: Space) -> &'static str {
    match space {
        Space::Global => "global",
        Space::Shared => "shared",
        Space::Local => "local",
        Space::Param => "param",
        Space::KernelParam => "kernel-param",
        Space::Const => "const",
        Space::Generic => "generic",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_round_trip() {
        for space in [
            Space::Shared,
            Space::Local,
            Space::KernelParam,
            Space::Const,
        ] {
            let g = to_generic(space, 0x1234);
            assert_eq!(classify_generic(g), (space, 0x1234));
        }
        assert_eq!(
            classify_generic(0x7f00_0000_0010),
            (Space::Global, 0x7f00_0000_0010)
        );
    }
}
