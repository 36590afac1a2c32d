//! `createpolicy` values against what an H100 returned (`tests/data/h100-policy/`, copied from
//! `../shared/hw/h100/policy/` by `gen_policy_data.py`): every register fraction, every range
//! policy (each priority pair, `.global` and generic), every literal fraction, every `cvt`.

use std::path::PathBuf;

use memsys::{CachePolicy, L2EvictionPriority, TotalSizeOperand};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/h100-policy")
        .join(name)
}

fn npy<T: npyz::Deserialize>(name: &str) -> Vec<T> {
    let bytes = std::fs::read(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    npyz::NpyFile::new(&bytes[..]).unwrap().into_vec().unwrap()
}

fn priority(name: &str) -> L2EvictionPriority {
    match name {
        "evict_last" => L2EvictionPriority::Last,
        "evict_normal" => L2EvictionPriority::Normal,
        "evict_first" => L2EvictionPriority::First,
        "evict_unchanged" => L2EvictionPriority::Unchanged,
        other => panic!("unknown priority {other}"),
    }
}

/// Compares and reports every difference (not just the first), so a failure says how far off.
fn assert_all_equal(what: &str, got: &[u64], want: &[u64]) {
    assert_eq!(got.len(), want.len(), "{what}: case count");
    let bad: Vec<String> = (0..got.len())
        .filter(|&i| got[i] != want[i])
        .map(|i| format!("case {i}: ptxsim {:#018x}, H100 {:#018x}", got[i], want[i]))
        .collect();
    assert!(
        bad.is_empty(),
        "{what}: {} of {} differ, first: {:?}",
        bad.len(),
        got.len(),
        &bad[..bad.len().min(5)]
    );
}

#[test]
fn register_fractions_match_the_h100() {
    use L2EvictionPriority::{First, Last};
    let fractions: Vec<f32> = npy("createpolicy_sweep.fraction.npy");
    let want: Vec<u64> = npy("createpolicy_sweep.fractional_value.npy");
    let got: Vec<u64> = fractions
        .iter()
        .map(|&f| CachePolicy::fractional(Last, First, f).unwrap())
        .collect();
    assert_all_equal("createpolicy_sweep fractions", &got, &want);

    let fractions: Vec<f32> = npy("createpolicy_probe.fraction.npy");
    let values: Vec<u64> = npy("createpolicy_probe.values.npy");
    let got: Vec<u64> = fractions
        .iter()
        .map(|&f| CachePolicy::fractional(Last, First, f).unwrap())
        .collect();
    assert_all_equal(
        "createpolicy_probe fractions",
        &got,
        &values[228..228 + 256],
    );
}

#[test]
fn literal_fractions_match_the_h100() {
    let cases: Vec<(String, Option<String>, Option<f64>)> =
        serde_json::from_slice(&std::fs::read(data("createpolicy_probe.literals.json")).unwrap())
            .unwrap();
    let values: Vec<u64> = npy("createpolicy_probe.values.npy");
    let got: Vec<u64> = cases
        .iter()
        .map(|(p, s, f)| {
            let secondary = s.as_deref().map_or(L2EvictionPriority::Unchanged, priority);
            // No operand: the spec's default fraction, 1.0.
            let fraction = f.map_or(1.0, |f| f as f32);
            CachePolicy::fractional(priority(p), secondary, fraction).unwrap()
        })
        .collect();
    assert_all_equal("createpolicy_probe literals", &got, &values[..228]);
}

#[test]
fn register_ranges_match_the_h100() {
    use L2EvictionPriority::{First, Last};
    let reg = TotalSizeOperand::Register;
    let address: Vec<u64> = npy("createpolicy_sweep.address.npy");
    let primary: Vec<u32> = npy("createpolicy_sweep.primary_size.npy");
    let total: Vec<u32> = npy("createpolicy_sweep.total_size.npy");
    let want: Vec<u64> = npy("createpolicy_sweep.range_value.npy");
    let got: Vec<u64> = (0..address.len())
        .map(|i| CachePolicy::range(address[i], primary[i], total[i], reg, Last, First).unwrap())
        .collect();
    assert_all_equal("createpolicy_sweep ranges", &got, &want);

    // The probe: primary evict_last, evict_normal, evict_first, evict_unchanged x secondary
    // evict_first, evict_unchanged x `.global` then generic (the same value), over 256 cases
    // whose primary sizes are 0 or above the total size.
    let address: Vec<u64> = npy("createpolicy_probe.address.npy");
    let primary: Vec<u32> = npy("createpolicy_probe.primary_size.npy");
    let total: Vec<u32> = npy("createpolicy_probe.total_size.npy");
    let values: Vec<u64> = npy("createpolicy_probe.values.npy");
    let mut block = 228 + 256;
    for p in [
        "evict_last",
        "evict_normal",
        "evict_first",
        "evict_unchanged",
    ] {
        for s in ["evict_first", "evict_unchanged"] {
            for space in ["global", "generic"] {
                let got: Vec<u64> = (0..256)
                    .map(|i| {
                        CachePolicy::range(
                            address[i],
                            primary[i],
                            total[i],
                            reg,
                            priority(p),
                            priority(s),
                        )
                        .unwrap()
                    })
                    .collect();
                let what = format!("createpolicy_probe range {p}/{s} {space}");
                assert_all_equal(&what, &got, &values[block..block + 256]);
                block += 256;
            }
        }
    }
    assert_eq!(block + 256, values.len());
}

#[test]
fn cvt_returns_its_operand() {
    // createpolicy.cvt.L2.b64 returned its operand unchanged in every case: the interpreter
    // copies it (Op::CreatePolicyCvt); here the data's claim itself is checked, and that the
    // decoder round-trips each of those values.
    let input: Vec<u64> = npy("createpolicy_probe.cvt_input.npy");
    let values: Vec<u64> = npy("createpolicy_probe.values.npy");
    assert_eq!(&values[values.len() - 256..], &input[..]);
}

#[test]
fn lg2_thresholds_follow_the_h100_tables() {
    // gen_policy_data.py derives the thresholds from the H100's LG2 tables; the rule in
    // policy.rs must give ceil(log2) = e + 1 exactly from those mantissas on.
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(data("lg2_ceil_min_mantissa.json")).unwrap())
            .unwrap();
    let rows = json["min_mantissa_from_exponent"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    for (k, row) in rows.iter().enumerate() {
        let first_e = row[0].as_u64().unwrap() as u32;
        let min_m = row[1].as_u64().unwrap() as u32;
        let last_e = rows
            .get(k + 1)
            .map_or(32, |r| r[0].as_u64().unwrap() as u32 - 1);
        for e in first_e..=last_e.min(31) {
            // A total whose f32 has mantissa m: 2^e * (1 + m * 2^-23), exact when e >= 23.
            if e < 23 {
                continue;
            }
            let at = |m: u32| (1u64 << e) + (u64::from(m) << (e - 23));
            let block_code = |t: u64| {
                let v = CachePolicy::range(
                    0,
                    0,
                    t as u32,
                    TotalSizeOperand::Register,
                    L2EvictionPriority::Last,
                    L2EvictionPriority::First,
                )
                .unwrap();
                CachePolicy::decode(v).block_size_code
            };
            if e > 19 && at(min_m) <= u64::from(u32::MAX) {
                assert_eq!(block_code(at(min_m)), (e + 1 - 19) as u8, "e {e} m {min_m}");
                assert_eq!(
                    block_code(at(min_m - 1)),
                    (e - 19) as u8,
                    "e {e} m {}",
                    min_m - 1
                );
            }
        }
    }
}
