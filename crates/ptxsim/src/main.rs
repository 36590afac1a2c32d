//! `ptxsim`: the command-line front of the workspace. Each subcommand is a thin layer over a
//! library crate (see `cmd/`); exit codes: 0 success, 1 kernel fault or I/O failure, 2 invalid
//! input (syntax or validation errors, bad arguments), 3 hazards found with `--fail-on-hazard`.

mod cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// mimalloc instead of the system allocator: `check` builds and frees a syntax tree per
/// function (a few small allocations per instruction), and glibc's malloc and free were ~14 %
/// of `ptxsim check`'s instructions under callgrind, mimalloc's ~5 % (crates/ptx-check/BENCHMARKS.md).
#[global_allocator]
static GLOBAL: NaturalMiMalloc = NaturalMiMalloc;

/// [`mimalloc::MiMalloc`], but a request whose alignment the plain `mi_malloc` already
/// guarantees goes to it: `MiMalloc` calls `mi_malloc_aligned` for every request, whose
/// alignment checks (and, when the first free block is not aligned, its generic path) cost
/// twice to three times the plain call. This is the test std's `System` allocator makes.
struct NaturalMiMalloc;

/// mimalloc v2's `mi_malloc_is_naturally_aligned` (src/alloc-aligned.c): a block is aligned
/// to `align` when `align <= size` and `align <= MI_MAX_ALIGN_SIZE` (16 on 64-bit targets);
/// its own aligned path hands such requests to `mi_malloc` on this test.
fn naturally_aligned(size: usize, align: usize) -> bool {
    align <= 16 && align <= size
}

// SAFETY: every method either forwards to `MiMalloc` unchanged or, when `naturally_aligned`
// holds for the (new) size and alignment, calls the plain mimalloc function, whose result
// mimalloc guarantees to be aligned so (see `naturally_aligned`). Blocks from either path are
// ordinary mimalloc blocks, freed by `mi_free` (what `MiMalloc::dealloc` calls) and resized
// by `mi_realloc`, which keeps the natural alignment of the new size.
unsafe impl std::alloc::GlobalAlloc for NaturalMiMalloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if naturally_aligned(layout.size(), layout.align()) {
            // SAFETY: see the impl.
            unsafe { libmimalloc_sys::mi_malloc(layout.size()).cast() }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if naturally_aligned(layout.size(), layout.align()) {
            // SAFETY: see the impl.
            unsafe { libmimalloc_sys::mi_zalloc(layout.size()).cast() }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: the caller's contract, passed on; `ptr` is a mimalloc block either way.
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if naturally_aligned(new_size, layout.align()) {
            // SAFETY: see the impl; `ptr` is a live mimalloc block (the caller's contract).
            unsafe { libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
        }
    }
}

/// Emulates NVIDIA PTX cache-control instructions on a CPU: validates them as ptxas does,
/// runs kernels over a model of the GPU memory hierarchy, and reports what each hint did.
#[derive(Parser)]
#[command(name = "ptxsim", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse and validate PTX files for their target and PTX version, as ptxas does.
    ///
    /// Every error in every file is reported (rich diagnostics by default, ptxas's exact
    /// line format with `--format ptxas`, or JSON). Exits 2 if any file has an error.
    Check(cmd::check::Args),
    /// Print a PTX file back in canonical layout (parse → print).
    Fmt(cmd::fmt::Args),
    /// Run a kernel on the CPU over the memory-hierarchy model.
    ///
    /// Arguments in parameter order: PATH.npy / PATH.bin (input buffers passed as device
    /// pointers), zeros:TYPE:COUNT, null, TYPE:VALUE scalars, or tensormap[KEY=VALUE,...]:BUFFER
    /// tensor maps (docs/launch-format.md). Faults (out-of-bounds or
    /// misaligned accesses, barrier deadlocks, step limit) name the CTA, thread, PTX line and
    /// address and exit 1.
    ///
    /// `--report text|json|html` adds the cache report: L1/L2 sector hit rates, DRAM bytes,
    /// evictions by priority class, per PTX line and source line, top lines by DRAM traffic.
    Run(Box<cmd::run::Args>),
    /// Run a launch under cache-hint rewrites and compare them with the original.
    ///
    /// Takes the same launch as `run` (a PTX file with options, or --launch FILE) and one or
    /// more `--variant NAME=REWRITE`. Prints the key metrics side by side; exits 1 if any
    /// variant's output buffers differ from the original's (hints must not change results).
    Compare(Box<cmd::compare::Args>),
    /// Run a launch and suggest what to change, running each suggested hint rewrite.
    ///
    /// Takes the same launch as `run`, multi-step launch files included (the rules read each
    /// kernel step; a rewrite runs the whole launch). Rules in the spirit of Nsight Compute's
    /// guided analysis (uncoalesced accesses, L1 fills never re-read, a stream evicting reused
    /// data, capped evict-last, unused prefetches, hints the target ignores, read-only loads
    /// that could use ld.global.nc) name the PTX and source line and their evidence; every
    /// suggestion that is a hint rewrite is run as a `compare` variant and its measured effect
    /// reported (docs/report.md, "Advice").
    Advise(Box<cmd::advise::Args>),
    /// Replay a text trace of memory accesses (docs/trace-format.md) through the cache model.
    ///
    /// Prints the statistics (per level, per op spelling) as text, or JSON with --json. A bad
    /// trace line is reported as FILE:LINE:COL and exits 2.
    Replay(cmd::replay::Args),
    /// Run a launch over every combination of variants, GPUs, persisting set-asides and seeds.
    ///
    /// SPEC.toml names the launch and the axes (docs/sweep.md). Points run in parallel
    /// (--jobs), each cached in DIR by a hash of its inputs; writes DIR/results.csv,
    /// results.json, timings.csv, failures.json and report.html. A failing point is reported
    /// and the rest continue; exits 1 at the end if any failed.
    Sweep(cmd::sweep::Args),
}

/// mimalloc's `mi_option_allow_large_os_pages` (`mi_option_e` in mimalloc v2's mimalloc.h:
/// the seventh option, 6).
const MI_OPTION_ALLOW_LARGE_OS_PAGES: std::os::raw::c_int = 6;

extern "C" {
    /// mimalloc v2's `void mi_option_set(mi_option_t option, long value)` (`mi_option_t` is a
    /// C enum, an `int`), in the mimalloc library `libmimalloc-sys` builds and links.
    fn mi_option_set(option: std::os::raw::c_int, value: std::os::raw::c_long);
}

/// Lets mimalloc back its segments with 2 MiB pages (it asks with `madvise(MADV_HUGEPAGE)`),
/// unless the user set `MIMALLOC_ALLOW_LARGE_OS_PAGES` (or the legacy
/// `MIMALLOC_LARGE_OS_PAGES`) themselves. A launch allocates hundreds of MB of warp register
/// files and cache data that it touches once: with 4 KiB pages the kernel zeroed them one page
/// fault at a time, 27 % of a 1024^3 matmul's time (`clear_page_erms`, perf), 0.43 s of system
/// time against 0.01 s with large pages, at the same peak memory (crates/ptx-exec/BENCHMARKS.md).
fn allow_large_pages() {
    let set_by_user = ["MIMALLOC_ALLOW_LARGE_OS_PAGES", "MIMALLOC_LARGE_OS_PAGES"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    if !set_by_user {
        // SAFETY: `mi_option_set` is declared as the C header declares it (an `int` enum and
        // a `long`, passed by value) and the symbol is mimalloc's, linked in as the global
        // allocator's. The header says it is not thread safe: this runs first in `main`, before
        // the program starts any thread, and it only stores the option's value, which mimalloc
        // reads when it next asks the OS for memory.
        unsafe { mi_option_set(MI_OPTION_ALLOW_LARGE_OS_PAGES, 1) };
    }
}

fn main() -> ExitCode {
    allow_large_pages();
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => cmd::check::run(args),
        Command::Fmt(args) => cmd::fmt::run(args),
        Command::Run(args) => cmd::run::run(*args),
        Command::Compare(args) => cmd::compare::run(*args),
        Command::Advise(args) => cmd::advise::run(*args),
        Command::Replay(args) => cmd::replay::run(args),
        Command::Sweep(args) => cmd::sweep::run(args),
    }
}
