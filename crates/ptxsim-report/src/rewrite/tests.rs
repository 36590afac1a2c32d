use super::*;
use ptx_syntax::ast::Function;

/// A Triton-style kernel (the loads are copied from the corpus's Triton `vadd_evict_last`):
/// a createpolicy, two hinted loads, an nc load, a volatile load, a store and cp.async forms.
const K: &str = ".version 8.8
.target sm_100
.address_size 64
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)
{
	.reg .pred %p<3>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<12>;
	.shared .align 16 .b8 sh[64];
	ld.param.u64 %rd1, [k_param_0];
	ld.param.u64 %rd6, [k_param_1];
	setp.ne.s64 %p1, %rd1, 0;
	createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;
	@%p1 ld.global.L1::evict_last.L2::cache_hint.v4.b32 { %r1, %r2, %r3, %r4 }, [ %rd1 + 0 ], %rd2;
	ld.global.nc.f32 %r5, [%rd1+16];
	ld.volatile.global.u32 %r6, [%rd1+20];
	ld.global.cs.u32 %r7, [%rd1+24];
	ld.global.v4.b64 {%rd7, %rd8, %rd9, %rd10}, [%rd1+64];
	@%p1 st.global.v4.b32 [ %rd6 + 0 ], { %r1, %r2, %r3, %r4 };
	mov.u32 %r8, sh;
	cp.async.ca.shared.global [%r8], [%rd1], 4;
	cp.async.ca.shared.global [%r8+16], [%rd1+16], 16;
	cp.async.cg.shared.global.L2::cache_hint [%r8+32], [%rd1+32], 16, %rd2;
	cp.async.wait_all;
	prefetch.global.L2::evict_last [%rd1];
	ld.shared.u32 %r9, [%r8];
	ret;
}
";

fn apply_ok(spec: &str) -> Rewritten {
    let r: Rewrite = spec.parse().unwrap();
    apply(K, &r).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn body(text: &str) -> Vec<(u32, Instruction)> {
    let m = ptx_syntax::parse(text).unwrap();
    let lines = LineIndex::new(text);
    let f: &Function = m.function("k").unwrap();
    f.body
        .as_ref()
        .unwrap()
        .statements
        .iter()
        .filter_map(|s| match s {
            Statement::Instruction(i) => Some((lines.line(i.span.start), i.clone())),
            _ => None,
        })
        .collect()
}

fn ls_at(text: &str, line: u32) -> LoadStore {
    body(text)
        .into_iter()
        .find_map(|(l, i)| match i.op {
            Op::Ld(x) | Op::St(x) if l == line => Some(*x),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no ld/st on line {line}"))
}

fn cp_at(text: &str, line: u32) -> CpAsync {
    body(text)
        .into_iter()
        .find_map(|(l, i)| match i.op {
            Op::CpAsync(x) if l == line => Some(*x),
            _ => None,
        })
        .unwrap()
}

fn line_of(needle: &str) -> u32 {
    K.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
}

/// The typed fields the parser derives agree with what was written, and every line but the
/// changed ones is byte-identical.
fn check_shape(out: &Rewritten) {
    assert_eq!(out.text.lines().count(), K.lines().count());
    let changed: BTreeSet<u32> = out.changes.iter().map(|c| c.line).collect();
    for (n, (a, b)) in K.lines().zip(out.text.lines()).enumerate() {
        let n = n as u32 + 1;
        if !changed.contains(&n) && !b.contains(POLICY_REGISTER) {
            assert_eq!(a, b, "line {n} changed but was not reported");
        }
    }
    // Printing the re-parsed module gives the same text as printing the rewritten one:
    // the typed fields and the written list agree.
    let m = ptx_syntax::parse(&out.text).unwrap();
    let again = ptx_syntax::parse(&ptx_syntax::print(&m)).unwrap();
    assert_eq!(m, again);
}

#[test]
fn strip_hints_removes_operators_priorities_and_the_policy_operand() {
    let out = apply_ok("strip-hints");
    check_shape(&out);
    let ld = ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"));
    assert_eq!(ld.l1_priority, None);
    assert_eq!(ld.cache_hint, None);
    assert_eq!(ld.operands.len(), 2, "policy operand dropped");
    assert!(ld.vector.is_some() && ld.ty.is_some());
    let cs = ls_at(&out.text, line_of("ld.global.cs"));
    assert_eq!(cs.cache_op, None);
    // nc and volatile are not hints.
    assert!(ls_at(&out.text, line_of("ld.global.nc")).nc.is_some());
    assert!(ls_at(&out.text, line_of("ld.volatile")).semantics.is_some());
    // cp.async keeps its mandatory operator, loses the hint and its operand.
    let cp = cp_at(&out.text, line_of("cp.async.cg"));
    assert_eq!(cp.cache_op.map(|c| c.value), Some(CacheOperator::Cg));
    assert_eq!(cp.cache_hint, None);
    assert_eq!(cp.operands.len(), 3);
    assert!(
        out.text.contains("prefetch.global.L2 [%rd1];"),
        "{}",
        out.text
    );
    // Changed: the hinted ld, ld.cs, the hinted cp.async, the prefetch.
    assert_eq!(out.changes.len(), 4, "{:?}", out.changes);
}

#[test]
fn loads_evict_first_is_tritons_l1_priority_plus_l2_policy() {
    let out = apply_ok("loads=evict_first");
    check_shape(&out);
    for needle in [
        "L1::evict_last.L2::cache_hint",
        "ld.global.nc",
        "ld.global.cs",
    ] {
        let ld = ls_at(&out.text, line_of(needle));
        assert_eq!(
            ld.l1_priority.map(|p| p.value),
            Some(L1EvictionPriority::EvictFirst),
            "{needle}"
        );
        assert_eq!(ld.l2_priority, None, ".L2::evict_* needs a 256-bit access");
        assert_eq!(
            ld.cache_op, None,
            "operator and priorities exclude each other"
        );
        assert!(ld.cache_hint.is_some());
        assert_eq!(
            ld.operands[2].as_name().map(|n| n.name.as_str()),
            Some("%ptxsim_policy0")
        );
    }
    assert!(out
        .text
        .contains("createpolicy.fractional.L2::evict_first.b64 %ptxsim_policy0, 0f3F800000;"));
    let nc = ls_at(&out.text, line_of("ld.global.nc"));
    assert!(nc.nc.is_some());
    assert!(out.text.contains(
        "ld.global.nc.L1::evict_first.L2::cache_hint.f32 %r5, [%rd1+16], %ptxsim_policy0;"
    ));
    assert!(ls_at(&out.text, line_of("ld.volatile"))
        .l1_priority
        .is_none());
    assert!(out.skipped.iter().any(|s| s.line == line_of("ld.volatile")));
    assert_eq!(ls_at(&out.text, line_of("st.global")).l1_priority, None);
    assert_eq!(
        ls_at(&out.text, line_of("ld.param.u64 %rd1")).l1_priority,
        None
    );
    assert_eq!(ls_at(&out.text, line_of("ld.shared")).l1_priority, None);
}

#[test]
fn an_l1_priority_keeps_the_policy() {
    let out = apply_ok("loads=.L1::no_allocate");
    let ld = ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"));
    assert_eq!(
        ld.l1_priority.map(|p| p.value),
        Some(L1EvictionPriority::NoAllocate)
    );
    assert!(ld.cache_hint.is_some());
    assert_eq!(ld.operands.len(), 3);
}

#[test]
fn stores_and_cache_operators() {
    let out = apply_ok("stores=cs+loads=cg");
    check_shape(&out);
    let st = ls_at(&out.text, line_of("st.global"));
    assert_eq!(st.cache_op.map(|c| c.value), Some(CacheOperator::Cs));
    let ld = ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"));
    assert_eq!(ld.cache_op.map(|c| c.value), Some(CacheOperator::Cg));
    assert_eq!(ld.l1_priority, None);
    assert!(ld.cache_hint.is_some(), "a cache operator keeps the policy");
    // The operator goes before .nc, as the ISA writes ld.global.cg.nc.
    assert!(out.text.contains("ld.global.cg.nc.f32"), "{}", out.text);
}

#[test]
fn one_line() {
    let n = line_of("ld.global.cs");
    let out = apply_ok(&format!("line:{n}=.L1::evict_last"));
    assert_eq!(out.changes.len(), 1);
    assert_eq!(out.changes[0].line, n);
    assert_eq!(out.changes[0].before, "ld.global.cs.u32 %r7, [%rd1+24];");
    let ld = ls_at(&out.text, n);
    assert_eq!(
        ld.l1_priority.map(|p| p.value),
        Some(L1EvictionPriority::EvictLast)
    );
    assert_eq!(ld.cache_op, None);
    // .L2::evict_* only on 256-bit accesses (PTX ISA, ld.global.nc and st).
    let r: Rewrite = format!("line:{n}=.L2::evict_last").parse().unwrap();
    let e = apply(K, &r).unwrap_err().to_string();
    assert!(e.contains("256-bit"), "{e}");
    let wide = line_of("ld.global.v4.b64");
    let out = apply_ok(&format!("line:{wide}=.L2::evict_last"));
    assert_eq!(
        ls_at(&out.text, wide).l2_priority.map(|p| p.value),
        Some(L2EvictionPriority::EvictLast)
    );
    let out = apply_ok("loads=.L2::evict_first");
    assert_eq!(
        out.changes.len(),
        1,
        "only the 256-bit load: {:?}",
        out.changes
    );
    assert!(out.skipped.iter().any(|k| k.reason.contains("256-bit")));
    // ld.global.nc takes .ca, .cg or .cs only.
    let out = apply_ok("loads=cv");
    assert!(ls_at(&out.text, line_of("ld.global.nc")).cache_op.is_none());
    assert!(out
        .skipped
        .iter()
        .any(|k| k.line == line_of("ld.global.nc") && k.reason.contains("ld.global.nc takes")));
    let r: Rewrite = "line:3=cg".parse().unwrap();
    assert!(matches!(
        apply(K, &r),
        Err(RewriteError::Invalid { line: 3, .. })
    ));
    let r: Rewrite = format!("line:{}=.cg", line_of("ld.shared"))
        .parse()
        .unwrap();
    assert!(apply(K, &r).is_err(), "shared loads take no hints");
    let r: Rewrite = format!("line:{}=wt", line_of("ld.global.cs"))
        .parse()
        .unwrap();
    assert!(apply(K, &r).is_err(), ".wt is not a load operator");
}

#[test]
fn cp_async_operator_respects_cp_size() {
    let out = apply_ok("cp.async=cg");
    check_shape(&out);
    let four = cp_at(&out.text, line_of("[%r8], [%rd1], 4"));
    assert_eq!(four.cache_op.map(|c| c.value), Some(CacheOperator::Ca));
    assert!(out
        .skipped
        .iter()
        .any(|s| s.line == line_of("[%r8], [%rd1], 4") && s.reason.contains("16 bytes")));
    let sixteen = cp_at(&out.text, line_of("[%r8+16]"));
    assert_eq!(sixteen.cache_op.map(|c| c.value), Some(CacheOperator::Cg));
    let out = apply_ok("cp.async=ca");
    let hinted = cp_at(&out.text, line_of("cp.async.cg"));
    assert_eq!(hinted.cache_op.map(|c| c.value), Some(CacheOperator::Ca));
    assert!(hinted.cache_hint.is_some());
    assert_eq!(hinted.operands.len(), 4, "policy operand kept");
    let out = apply_ok("cp.async=.L2::128B");
    assert_eq!(
        cp_at(&out.text, line_of("[%r8+16]"))
            .prefetch_size
            .map(|p| p.value),
        Some(PrefetchSize::B128)
    );
}

#[test]
fn fraction_policy_is_created_per_function_and_used_by_every_access() {
    let out = apply_ok("policy=fraction:0.5:evict_last");
    check_shape(&out);
    let open = K.lines().position(|l| l == "{").unwrap();
    let line = out.text.lines().nth(open).unwrap();
    assert_eq!(
        line,
        "{ .reg .b64 %ptxsim_policy0; createpolicy.fractional.L2::evict_last.b64 %ptxsim_policy0, 0f3F000000;"
    );
    for needle in ["L1::evict_last.L2::cache_hint", "ld.global.cs", "st.global"] {
        let x = ls_at(&out.text, line_of(needle));
        assert!(x.cache_hint.is_some(), "{needle}");
        assert_eq!(
            x.operands[2].as_name().map(|n| n.name.as_str()),
            Some("%ptxsim_policy0")
        );
    }
    let kept = ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"));
    assert!(kept.l1_priority.is_some(), "L1 priority kept");
    let cp = cp_at(&out.text, line_of("[%r8+16]"));
    assert!(cp.cache_hint.is_some());
    assert_eq!(cp.operands.len(), 4);
    let cp = cp_at(&out.text, line_of("cp.async.cg"));
    assert_eq!(cp.operands.len(), 4, "the old policy operand is replaced");
    assert!(ls_at(&out.text, line_of("ld.volatile"))
        .cache_hint
        .is_none());
    // The module still lowers.
    let m = ptx_syntax::parse(&out.text).unwrap();
    ptx_exec::Session::new(&m, &out.text, memsys::GpuConfig::a100()).unwrap();

    let out = apply_ok("policy=none");
    assert!(ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"))
        .cache_hint
        .is_none());
    assert_eq!(out.changes.len(), 2);
}

#[test]
fn policies_per_selector_get_their_own_registers() {
    let out = apply_ok(
        "cp.async=policy:fraction:1.0:evict_last+stores=policy:fraction:0.5:evict_first:evict_unchanged",
    );
    check_shape(&out);
    let open = K.lines().position(|l| l == "{").unwrap();
    assert_eq!(
        out.text.lines().nth(open).unwrap(),
        "{ .reg .b64 %ptxsim_policy0; createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %ptxsim_policy0, 0f3F000000; \
         .reg .b64 %ptxsim_policy1; createpolicy.fractional.L2::evict_last.b64 %ptxsim_policy1, 0f3F800000;",
        "numbered in the order of first use: the st comes first"
    );
    let cp = cp_at(&out.text, line_of("[%r8], [%rd1], 4"));
    assert_eq!(
        cp.operands
            .last()
            .and_then(|o| o.as_name())
            .map(|n| n.name.as_str()),
        Some("%ptxsim_policy1")
    );
    assert!(cp.cache_hint.is_some());
    let st = ls_at(&out.text, line_of("st.global"));
    assert_eq!(
        st.operands[2].as_name().map(|n| n.name.as_str()),
        Some("%ptxsim_policy0")
    );
    // Loads are untouched: the original policy operand stays.
    let ld = ls_at(&out.text, line_of("L1::evict_last.L2::cache_hint"));
    assert_eq!(
        ld.operands[2].as_name().map(|n| n.name.as_str()),
        Some("%rd2")
    );
    let m = ptx_syntax::parse(&out.text).unwrap();
    ptx_exec::Session::new(&m, &out.text, memsys::GpuConfig::a100()).unwrap();
    // A line-scoped policy removal.
    let n = line_of("L1::evict_last.L2::cache_hint");
    let out = apply_ok(&format!("line:{n}=policy:none"));
    assert_eq!(out.changes.len(), 1);
    assert!(ls_at(&out.text, n).cache_hint.is_none());
    assert_eq!(ls_at(&out.text, n).operands.len(), 2);
}

#[test]
fn every_rewrite_of_the_kernel_lowers() {
    for spec in [
        "strip-hints",
        "loads=evict_last",
        "loads=evict_normal",
        "loads=evict_unchanged",
        "loads=no_allocate",
        "loads=ca",
        "loads=cv",
        "loads=lu",
        "loads=none",
        "stores=wt",
        "stores=wb",
        "stores=evict_first",
        "stores=.L1::no_allocate.L2::evict_last",
        "cp.async=ca",
        "cp.async=none",
        "loads=.L2::256B",
        "policy=fraction:1.0:evict_first:evict_unchanged",
        "strip-hints+policy=fraction:0.25:evict_last:evict_first",
        "loads=policy:fraction:0.75:evict_normal",
    ] {
        let out = apply_ok(spec);
        check_shape(&out);
        let m = ptx_syntax::parse(&out.text).unwrap();
        ptx_exec::Session::new(&m, &out.text, memsys::GpuConfig::a100())
            .unwrap_or_else(|e| panic!("{spec}: {e}"));
    }
}

#[test]
fn a_rewrite_invalid_for_the_target_is_an_error() {
    // createpolicy and .L2::cache_hint need sm_80: on an sm_75 module the checker rejects
    // the inserted policy and the hinted loads.
    let old = K.replace(".target sm_100", ".target sm_75");
    let r: Rewrite = "stores=policy:fraction:0.5:evict_last".parse().unwrap();
    let e = apply(&old, &r).unwrap_err();
    assert!(matches!(e, RewriteError::Invalid { .. }), "{e}");
    assert!(e.to_string().contains("not valid for this module"), "{e}");
    // A rewrite that only touches legal lines still applies.
    apply(&old, &"stores=cs".parse().unwrap()).unwrap();
}

#[test]
fn malformed_specs_are_explained() {
    for (spec, words) in [
        ("", "empty"),
        ("loads", "expected strip-hints"),
        ("loads=wt", "store operator"),
        ("stores=lu", "load operator"),
        ("stores=.L2::128B", "prefetch"),
        ("cp.async=evict_last", "eviction-priority"),
        ("cp.async=cs", ".ca or .cg"),
        ("line:0=cg", "line:N"),
        ("lines=cg", "unknown target"),
        ("loads=.cg.L1::evict_first", "cannot be combined"),
        ("loads=.v4", "not a cache hint"),
        ("loads=.L2::evict_unchanged", "createpolicy"),
        ("loads=fast", "use none"),
        ("policy=fraction:2:evict_last", "(0, 1]"),
        ("policy=fraction:0.5:evict_sometimes", "evict_first"),
        ("policy=fraction:0.5:evict_last:evict_last", "secondary"),
        ("policy=range:1", "fraction:F"),
        ("loads=policy:fraction:0:evict_last", "(0, 1]"),
    ] {
        let e = spec.parse::<Rewrite>().unwrap_err().to_string();
        assert!(e.contains(words), "{spec}: {e}");
    }
}

/// `nc` makes a weak `ld.global` an `ld.global.nc` (after its cache operator, before its
/// priorities and type, as the ISA orders them); an `st`, a volatile load or a generic one
/// cannot take it.
#[test]
fn nc_makes_a_read_only_path_load() {
    let n = line_of("ld.global.cs");
    let out = apply_ok(&format!("line:{n}=nc"));
    check_shape(&out);
    assert_eq!(out.changes.len(), 1);
    assert_eq!(out.changes[0].after, "ld.global.cs.nc.u32 %r7, [%rd1+24];");
    let wide = line_of("ld.global.v4.b64");
    let out = apply_ok(&format!("line:{wide}=nc"));
    assert!(
        out.changes[0].after.starts_with("ld.global.nc.v4.b64"),
        "{:?}",
        out.changes
    );
    // A hinted load keeps its priority and policy after `.nc`.
    let hinted = line_of("ld.global.L1::evict_last");
    let out = apply_ok(&format!("line:{hinted}=nc"));
    assert!(
        out.changes[0]
            .after
            .contains("ld.global.nc.L1::evict_last.L2::cache_hint.v4.b32"),
        "{:?}",
        out.changes
    );
    let r: Rewrite = format!("line:{}=nc", line_of("ld.volatile"))
        .parse()
        .unwrap();
    assert!(apply(K, &r).is_err(), "volatile loads keep their semantics");
    assert!("stores=nc".parse::<Rewrite>().is_err());
    assert!("cp.async=nc".parse::<Rewrite>().is_err());
    // Every weak global load but the one already `.nc`.
    let out = apply_ok("loads=nc");
    assert!(out.changes.iter().all(|c| c.after.contains(".nc")));
    assert!(!out
        .changes
        .iter()
        .any(|c| c.line == line_of("ld.global.nc")));
}
