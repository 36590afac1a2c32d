//! `memsys`: the GPU memory hierarchy ptxsim runs kernels on. It knows nothing of PTX text:
//! the interpreter (or a trace) hands it typed warp-level requests — SM, kind, state space,
//! cache operator, memory semantics, L1/L2 eviction priority, `createpolicy` value, prefetch
//! size, instruction id — with each active lane's address and size.
//!
//! The model:
//! - one L1 per SM that **holds its own copy of the data** and is not coherent with the other
//!   SMs, so the stale `.ca` read the PTX ISA warns about really happens and is reported
//!   ([`Outcome::stale_lanes`]);
//! - an L2 of two partitions, as the H100's: each line homed in one (the point of coherence;
//!   its data is the global image, [`MemSystem::read`]), each SM near one, and a far read
//!   looked up near, then at home over the fabric, leaving a copy near that takes capacity
//!   there; lookups counted as Nsight Compute counts them (both partitions';
//!   [`LevelCounters::all_lookup_hit_rate`]);
//! - DRAM traffic from L2 misses, prefetch fills, dirty write-backs and write-through;
//! - 128-byte lines of four 32-byte sectors, set-associative, sector-granular fills; victims
//!   are chosen evict-first < normal < evict-last, LRU within a class, with evict-last
//!   occupancy capped per set by the persisting set-aside (a setting, rounded up to whole
//!   ways, at least one: measured on an H100, [`GpuConfig::evict_last_ways`]), which keeps
//!   the most recently used evict-last lines (older ones become normal);
//! - every cache operator, `.L1::`/`.L2::` priority, `.L2::cache_hint` policy (decoded and
//!   encoded bit-exactly as CCCL does, [`CachePolicy`]) and prefetch size has its effect; the
//!   rules and their spec sentences are on [`MemSystem`]'s routing and in the README;
//! - SMs can be lent to host threads ([`MemSystem::lend`], [`SmPort`]): weak loads and stores
//!   then run on the SM's own L1 against the image plus the SM's own stores, and the L2 work
//!   is replayed in a fixed order when the phase is settled, so results do not depend on how
//!   SMs were spread over threads (the L2 holds no data, so nothing an SM reads depends on
//!   it);
//! - counters per level, per SM and per instruction ([`Stats`]), an optional L2 occupancy
//!   timeline, and a replay driver for traces ([`replay`]);
//! - the H100's L2 microbenchmarks as traces, to compare with the measurements
//!   ([`l2_microbench`]), read from the model's own counters.
//!
//! With the `isa` feature, its request enums convert both ways from ptx-isa's qualifier enums
//! (`From`, in `isa.rs`): the one mapping the lowering and the trace reader and writer share.
//!
//! Configurations ([`GpuConfig`]) come as presets (`a100`, `h100`, `b200`) with their
//! sources cited, and any field can be overridden from TOML.
//!
//! Where each rule lives:
//! - `system.rs`: [`MemSystem`]'s construction, allocation, host access and request API;
//! - `system/route.rs`: routing, one arm per PTX ISA sentence (cache operators, semantics,
//!   scopes, `.L1::`/`.L2::` priorities, policies, prefetch sizes);
//! - `system/execute.rs`: the checked request engine (coalescing, attribution, atomic passes);
//! - `system/work.rs`: one request's work on L1/L2/DRAM (fills, write-back/-through, own-L1
//!   updates, L2 priority per line); `system/prefetch_fill.rs`: the prefetch-size and
//!   fetch-granularity fill after an L2 miss (shared with the replay loop);
//! - `system/data.rs`, `system/record.rs`, `system/inspect.rs`: lane data copies (stale
//!   reads), trace recording, statistics and line/occupancy inspection;
//! - `system/engine.rs`: the compiled trace-replay loop; `system/combine.rs`: write combining;
//! - `system/l2_control.rs`: `discard`, `applypriority`, the persisting reset and the access
//!   policy window, each with its source;
//! - `system/partitions.rs`: the L2's partitions (homes, near SMs, far reads and their copies,
//!   coherence of stores), with the whitepaper sentence and the measurements behind each rule;
//! - `system/read_coalescer.rs`: the L2 request coalescer (a read joins another SM's pending
//!   L2 fill of the caller's round, [`MemSystem::begin_round`], while its group's unit still
//!   holds the line);
//! - `system/port.rs`: [`SmPort`]s, the SM side lent to host threads for an SM-parallel
//!   phase (private L1s, the image plus the SM's own stores), with the L2 work logged and
//!   replayed in the caller's turn order by [`MemSystem::settle`];
//! - `cache.rs`: the sector cache front end; `cache/packed.rs`, `cache/wide.rs`: set storage,
//!   lookup, victim choice and the evict-last cap; `cache/index.rs`: set indexing (a
//!   partition's sets indexed without the partition bits, runs of sets rotated);
//! - `policy.rs`: `createpolicy` encoding; `config.rs`/`timing.rs`: presets and latencies;
//!   `memory.rs`: the global image; `stats.rs`: counters; `replay.rs`, `l2_microbench.rs`.

mod cache;
mod config;
mod error;
#[cfg(feature = "isa")]
mod isa;
pub mod l2_microbench;
mod memory;
mod occupancy;
mod policy;
pub mod replay;
pub(crate) mod rng;
mod stats;
mod system;
mod timing;
mod types;

pub use cache::EvictionClass;
pub use config::{
    CacheConfig, GpuConfig, SetHash, MAX_ACCESS_POLICY_WINDOW_BYTES, MAX_CACHE_BYTES,
};
pub use error::{human_bytes, MemError};
pub use memory::{try_zeroed_bytes, GLOBAL_BASE};
pub use occupancy::OccupancyConfig;
pub use policy::{
    fraction_code, CachePolicy, PolicyMode, RangeHit, RangePolicy, TotalSizeOperand, FRACTION_SCALE,
};
pub use stats::{Counters, DramCounters, EvictionCounts, LevelCounters, OccupancySample, Stats};
pub use system::{
    AccessPolicyWindow, AccessProperty, DiscardOutcome, LineState, MemSystem, SmPort, MAX_LANES,
    MAX_LANE_BYTES,
};
pub use timing::TimingConfig;
pub use types::{
    AccessKind, CacheOperator, InstrId, L1EvictionPriority, L2EvictionPriority, LaneAccess,
    Outcome, PrefetchSize, Request, Scope, Semantics, SmId, Space,
};
