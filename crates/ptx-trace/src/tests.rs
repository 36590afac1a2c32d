use super::*;
use memsys::{L1EvictionPriority, L2EvictionPriority, PrefetchSize};

fn one(line: &str) -> Result<TraceAccess, TraceError> {
    TraceParser::new()
        .parse_line(line, 7)
        .map(|a| a.expect("an access"))
}

#[test]
fn parses_the_documented_examples() {
    let a = one("3 ld.global.nc.L1::evict_last.L2::256B 0x7f0000001000 16").unwrap();
    assert_eq!(
        (a.request.sm, a.addr, a.bytes),
        (SmId(3), 0x7f00_0000_1000, 16)
    );
    assert!(a.request.non_coherent);
    assert_eq!(a.request.l1_priority, Some(L1EvictionPriority::Last));
    assert_eq!(a.request.prefetch, Some(PrefetchSize::B256));
    let s = one("0 st.global.L2::cache_hint.b32 0x1000 4 0x14f0000000000000").unwrap();
    assert_eq!(s.request.kind, AccessKind::Store);
    assert_eq!(s.request.policy, Some(0x14f0_0000_0000_0000));
}

#[test]
fn maps_every_qualifier_class() {
    let c = one("1 cp.async.cg.shared.global.L2::128B 0x100 16").unwrap();
    assert_eq!(
        (c.request.kind, c.request.operator, c.request.space),
        (
            AccessKind::AsyncCopy,
            Some(CacheOperator::Cg),
            Space::Global
        )
    );
    let r = one("0 ld.relaxed.gpu.global.L2::evict_first.v4.u32 0x0 16").unwrap();
    assert_eq!(
        (r.request.semantics, r.request.scope),
        (Semantics::Relaxed, Scope::Gpu)
    );
    assert_eq!(r.request.l2_priority, Some(L2EvictionPriority::First));
    let m = one("0 st.mmio.relaxed.sys.global.u32 0x0 4").unwrap();
    assert_eq!(m.request.semantics, Semantics::Mmio);
    let p = one("0 prefetch.global.L2::evict_last 0x80 1").unwrap();
    assert_eq!(
        (p.request.kind, p.request.operator),
        (AccessKind::Prefetch, Some(CacheOperator::Cg))
    );
    let p1 = one("0 prefetch.global.L1 0x80 1").unwrap();
    assert_eq!(p1.request.operator, Some(CacheOperator::Ca));
    let at = one("2 atom.global.add.u32 0x40 4").unwrap();
    assert_eq!(at.request.kind, AccessKind::Atomic);
    let cv = one("0 ld.global.cv.u32 0x40 4  # trailing comment").unwrap();
    assert_eq!(cv.request.operator, Some(CacheOperator::Cv));
}

#[test]
fn errors_name_line_and_column() {
    let e = one("0 ld.global.L2::evict_middle.u32 0x0 4").unwrap_err();
    assert_eq!((e.line, e.column), (7, 12));
    assert!(e
        .to_string()
        .starts_with("7:12: unknown qualifier `.L2::evict_middle`"));
    assert_eq!(one("0 ld.global.u32 1000 4").unwrap_err().column, 17);
    assert_eq!(one("x ld.global.u32 0x1000 4").unwrap_err().column, 1);
    assert!(one("0 ld.global.u32 0x1000 0").is_err());
    assert!(one("0 ld.global.u32 0x1000 4 0x14f0000000000000")
        .unwrap_err()
        .message
        .contains("cache_hint"));
    assert!(one("0 ld.global.L2::cache_hint.u32 0x1000 4")
        .unwrap_err()
        .message
        .contains("policy"));
    assert!(one("0 ld.shared.u32 0x1000 4")
        .unwrap_err()
        .message
        .contains("not cached"));
    assert!(one("0 mov.u32 0x1000 4").is_err());
    assert!(one("0 ld.global.u32 0x1000").is_err());
    assert_eq!(
        TraceParser::new().parse_line("   # just a comment", 1),
        Ok(None)
    );
}

#[test]
fn the_sm_field_may_name_the_warp() {
    // `<sm>:<warp>`: the warp picks its SM sub-partition's write-combining window; it prints
    // back the same way (only when it is not 0) and parses to the same request.
    let a = one("2:5 st.global.u32 0x7f0000000000 4").unwrap();
    assert_eq!((a.request.sm, a.request.warp), (SmId(2), 5));
    assert_eq!(format_access(&a), "2:5 st.global 0x7f0000000000 4");
    assert_eq!(
        one("2 st.global.u32 0x7f0000000000 4")
            .unwrap()
            .request
            .warp,
        0
    );
    let e = one("2:x st.global.u32 0x0 4").unwrap_err();
    assert_eq!((e.line, e.column), (7, 3));
    assert!(e.message.contains("warp index `x`"), "{e}");
    // Stores of warps 0 and 1 (sub-partitions 0 and 1) do not merge; warps 0 and 4 do.
    let two = "0 st.global.u32 0x7f0000000000 4\n0:1 st.global.u32 0x7f0000000004 4\n";
    let four = "0 st.global.u32 0x7f0000000000 4\n0:4 st.global.u32 0x7f0000000004 4\n";
    let writes = |t| {
        replay_text(GpuConfig::h100(), t)
            .unwrap()
            .0
            .total()
            .l2
            .write_sectors
    };
    assert_eq!((writes(two), writes(four)), (2, 1));
}

#[test]
fn replays_a_trace_with_per_op_counters() {
    // Two SMs read the same sector with .ca: two L1 misses, one L2 miss, then a miss in SM 1's
    // near L2 partition (the line is homed in SM 0's) that hits at home over the fabric; SM 0
    // reads it again: an L1 hit. The .cg op bypasses L1 (counted as an L1 lookup that
    // misses, as Nsight Compute counts it: memsys README "Counting as Nsight Compute does")
    // and hits L2.
    let trace = "\
# sm op addr bytes
0 ld.global.ca.u32 0x7f0000000000 4
1 ld.global.ca.u32 0x7f0000000000 4
0 ld.global.ca.u32 0x7f0000000004 4
0 ld.global.cg.u32 0x7f0000000008 4
";
    let (stats, ops) = replay_text(GpuConfig::a100(), trace).unwrap();
    assert_eq!(
        ops,
        vec![
            "ld.global.ca.u32".to_string(),
            "ld.global.cg.u32".to_string()
        ]
    );
    let t = stats.total();
    assert_eq!((t.l1.read_hits, t.l1.read_misses), (1, 3));
    assert_eq!((t.l2.read_hits, t.l2.read_misses), (1, 2));
    assert_eq!(
        t.l2.fabric_read_hits, 2,
        "the missed sector and its granule's other"
    );
    assert_eq!(stats.per_instr[1].l2.read_hits, 1);
    let bad = replay_text(
        GpuConfig::a100(),
        "0 ld.global.u32 0x0 4\n999 ld.global.u32 0x0 4\n",
    )
    .unwrap_err();
    assert_eq!(bad.line, 2);
}

#[test]
fn the_first_error_in_line_order_is_reported() {
    // Line 2 names an SM the A100 lacks; line 4 does not parse: line 2 wins.
    let text = "0 ld.global.u32 0x0 4\n999 ld.global.u32 0x0 4\n# c\n0 ld.global.bogus 0x0 4\n";
    let e = replay_text(GpuConfig::a100(), text).unwrap_err();
    assert_eq!((e.line, e.column), (2, 1));
    assert!(e.message.contains("SM 999"), "{e}");
    // Without it, the parse error at line 3 (column 13, the qualifier) is reported.
    let text = "0 ld.global.u32 0x0 4\n\n0 ld.global.bogus 0x0 4\n";
    let e = replay_text(GpuConfig::a100(), text).unwrap_err();
    assert_eq!((e.line, e.column), (3, 12));
}

#[test]
fn cached_op_spellings_still_check_the_policy_field() {
    let mut p = TraceParser::new();
    let op = "st.global.L2::cache_hint.b32";
    assert!(p
        .parse_line(&format!("0 {op} 0x0 4 0x14f0000000000000"), 1)
        .is_ok());
    let e = p.parse_line(&format!("0 {op} 0x0 4"), 2).unwrap_err();
    assert!(e.message.contains("needs a <hex-policy>"), "{e}");
    // A rejected line does not intern its spelling; an accepted one reuses the id.
    let e = p.parse_line("0 ld.global.u32 0x0 4 0x1", 3).unwrap_err();
    assert!(e.message.contains("needs `.L2::cache_hint`"), "{e}");
    assert_eq!(p.ops(), [op.to_string()]);
    let a = p.parse_line("1 ld.global.u32 0x0 4", 4).unwrap().unwrap();
    let b = p.parse_line("2 ld.global.u32 0x80 8", 5).unwrap().unwrap();
    assert_eq!((a.request.instr, b.request.instr), (InstrId(1), InstrId(1)));
    assert_eq!((b.request.sm, b.addr, b.bytes), (SmId(2), 0x80, 8));
}

/// The compiled replay counts exactly what performing each parsed line in turn does.
#[test]
fn compiled_replay_counts_like_line_by_line_access() {
    let ops = [
        "ld.global.nc.L1::evict_last.L2::256B",
        "ld.global.cs.u32",
        "ld.global.cg.L2::evict_first.v4.u32",
        "st.global.wb.u32",
        "st.global.cs.v2.u32",
        "cp.async.cg.shared.global.L2::128B",
        "ld.global.L1::no_allocate.L2::cache_hint.u32",
        "atom.global.add.u32",
        "prefetch.global.L2::evict_last",
        "ld.volatile.global.u32",
    ];
    let mut text = String::new();
    let mut x = 0x1234_5678u64;
    for i in 0..20_000u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let op = ops[(x % ops.len() as u64) as usize];
        let addr = 0x7f00_0000_0000 + (x >> 20) % (1 << 22) / 16 * 16;
        let policy = if op.contains("cache_hint") {
            if i % 2 == 0 {
                " 0x14f0000000000000"
            } else {
                " 0x12f0000000000000"
            }
        } else {
            ""
        };
        text.push_str(&format!("{} {op} {addr:#x} 16{policy}\n", (x >> 8) % 16));
    }
    let (stats, ops_seen) = replay_text(GpuConfig::a100(), &text).unwrap();
    let mut mem = MemSystem::tags_only(GpuConfig::a100()).unwrap();
    let mut parser = TraceParser::new();
    for (i, l) in text.lines().enumerate() {
        let a = parser.parse_line(l, i + 1).unwrap().unwrap();
        mem.access(&a.request, a.addr, a.bytes).unwrap();
    }
    assert_eq!(stats, mem.stats());
    assert_eq!(ops_seen, parser.ops());
    assert_eq!(stats.requests, 20_000);
}

#[test]
fn hex_numbers() {
    assert_eq!(parse_hex("0x0"), Some(0));
    assert_eq!(parse_hex("0X7f0000001000"), Some(0x7f00_0000_1000));
    assert_eq!(parse_hex("0xFFFFffffFFFFffff"), Some(u64::MAX));
    // Leading zeros do not count towards the 16 digits.
    assert_eq!(parse_hex("0x00000000000000000001"), Some(1));
    assert_eq!(parse_hex("0x10000000000000000"), None);
    for bad in ["0x", "0x+1", "0x1g", "1000", "0x 1", "0x-1", "x10", "0x1_0"] {
        assert_eq!(parse_hex(bad), None, "{bad}");
    }
}

#[test]
fn spaces_tabs_and_other_ascii_whitespace_separate_fields() {
    for l in [
        "3 ld.global.u32 0x10 4",
        "  3\tld.global.u32   0x10\t\t4  ",
        "3\x0Cld.global.u32\x0B0x10\r4",
        "3 ld.global.u32 0x10 4 # comment 0x20",
    ] {
        let a = one(l).unwrap();
        assert_eq!((a.request.sm, a.addr, a.bytes), (SmId(3), 0x10, 4), "{l:?}");
    }
    let e = one("3 ld.global.u32\t0x10 4 5 6").unwrap_err();
    assert_eq!(e.column, 1);
    let e = one("3 ld.global.u32\t0xz0 4").unwrap_err();
    assert_eq!(e.column, 17);
}

#[test]
fn any_unicode_whitespace_separates_fields() {
    let a = one("3\u{a0}ld.global.u32\t0x10\u{b}4  ").unwrap();
    assert_eq!((a.request.sm, a.addr, a.bytes), (SmId(3), 0x10, 4));
    // Columns count bytes: the address starts after a 2-byte no-break space.
    let e = one("é ld.global.u32 0x0 4").unwrap_err();
    assert_eq!(e.column, 1);
    let e = one("1\u{a0}ld.global.u32 zz 4").unwrap_err();
    assert_eq!(e.column, 18);
}

#[test]
fn formatted_accesses_parse_back() {
    let mut p = TraceParser::new();
    let mut check = |a: TraceAccess| {
        let text = format_access(&a);
        let b = p.parse_line(&text, 1).unwrap().unwrap();
        let same = TraceAccess {
            request: Request {
                instr: a.request.instr,
                ..b.request
            },
            ..b
        };
        assert_eq!(same, a, "{text}");
    };
    for a in memsys::replay::synthetic(5).take(2000) {
        check(a);
    }
    for a in memsys::replay::streaming().take(100) {
        check(a);
    }
    // Whatever the parser makes from the documented examples and the qualifier classes.
    for l in [
        "3 ld.global.nc.L1::evict_last.L2::256B 0x7f0000001000 16",
        "0 st.global.L2::cache_hint.b32 0x1000 4 0x14f0000000000000",
        "1 cp.async.cg.shared.global.L2::128B 0x100 16",
        "0 ld.relaxed.gpu.global.L2::evict_first.v4.u32 0x0 16",
        "0 st.mmio.relaxed.sys.global.u32 0x0 4",
        "0 prefetch.global.L2::evict_last 0x80 1",
        "0 prefetch.global.L1 0x80 1",
        "2 atom.global.add.u32 0x40 4",
        "0 ld.global.cv.u32 0x40 4",
        "4 ld.volatile.local.L1::no_allocate.u8 0x3 1",
        "4 ld.acquire.cta.const.lu.u8 0x3 1",
        "5 st.release.cluster.param.wt.L1::evict_unchanged.L2::evict_normal.b16 0x2 2",
    ] {
        let a = TraceParser::new().parse_line(l, 1).unwrap().unwrap();
        check(a);
    }
}
