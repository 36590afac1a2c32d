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
