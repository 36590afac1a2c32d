//! `.target sm_XX` and `.version X.Y` as ordered values.

use core::fmt;
use serde::{Deserialize, Serialize};

/// The suffix of an architecture name: `sm_90a` is architecture-specific, `sm_100f` is
/// family-specific.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ArchSuffix {
    /// `sm_90`: portable within the forward-compatible line.
    None,
    /// `sm_100f`: the family-specific feature set.
    Family,
    /// `sm_90a`: the architecture-specific feature set.
    Specific,
}

/// A `.target` architecture such as `sm_80` or `sm_90a`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SmTarget {
    /// `80` for `sm_80`, `100` for `sm_100a`.
    pub number: u32,
    pub suffix: ArchSuffix,
}

/// A `.target` or `--target` string that is not `sm_<digits>[a|f]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetParseError(pub String);

impl fmt::Display for TargetParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a target of the form sm_XX, sm_XXa or sm_XXf",
            self.0
        )
    }
}

impl std::error::Error for TargetParseError {}

impl SmTarget {
    pub const fn new(number: u32) -> Self {
        SmTarget {
            number,
            suffix: ArchSuffix::None,
        }
    }

    /// Parses `sm_80`, `sm_90a`, `sm_100f` (and `compute_80`, which names the same feature set).
    pub fn parse(text: &str) -> Result<Self, TargetParseError> {
        let err = || TargetParseError(text.to_string());
        let rest = text
            .strip_prefix("sm_")
            .or_else(|| text.strip_prefix("compute_"))
            .ok_or_else(err)?;
        let (digits, suffix) = match rest.as_bytes().last() {
            Some(b'a') => (&rest[..rest.len() - 1], ArchSuffix::Specific),
            Some(b'f') => (&rest[..rest.len() - 1], ArchSuffix::Family),
            _ => (rest, ArchSuffix::None),
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) || digits.len() > 4 {
            return Err(err());
        }
        let number = digits.parse().map_err(|_| err())?;
        Ok(SmTarget { number, suffix })
    }

    /// True if this target has every feature of `sm_<min>` (the "requires sm_XX or higher" rule).
    pub fn at_least(self, min: u32) -> bool {
        self.number >= min
    }
}

impl fmt::Display for SmTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = match self.suffix {
            ArchSuffix::None => "",
            ArchSuffix::Family => "f",
            ArchSuffix::Specific => "a",
        };
        write!(f, "sm_{}{}", self.number, suffix)
    }
}

/// A PTX ISA version (`.version 8.3`), ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PtxVersion {
    pub major: u32,
    pub minor: u32,
}

impl PtxVersion {
    pub const fn new(major: u32, minor: u32) -> Self {
        PtxVersion { major, minor }
    }

    /// The newest version ptxas 13.5 accepts.
    pub const NEWEST: PtxVersion = PtxVersion::new(9, 5);

    /// Parses `8.3`.
    pub fn parse(text: &str) -> Option<Self> {
        let (major, minor) = text.split_once('.')?;
        let ok = |s: &str| !s.is_empty() && s.len() <= 4 && s.bytes().all(|b| b.is_ascii_digit());
        if !ok(major) || !ok(minor) {
            return None;
        }
        Some(PtxVersion::new(major.parse().ok()?, minor.parse().ok()?))
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Every `.target` ptxas 13.5 accepts, with the lowest `.version` that supports it (below it
/// ptxas reports `PTX .version X does not support .target sm_NN`). Measured:
/// `docs/ptxas-rules.md` §2.2.
pub const KNOWN_TARGETS: &[(&str, PtxVersion)] = &[
    // Targets ptxas 13.5 no longer compiles for but still accepts in `.target` (with
    // `-arch` sm_75), measured.
    ("sm_10", PtxVersion::new(1, 0)),
    ("sm_11", PtxVersion::new(1, 0)),
    ("sm_12", PtxVersion::new(1, 2)),
    ("sm_13", PtxVersion::new(1, 2)),
    ("sm_20", PtxVersion::new(2, 0)),
    ("sm_21", PtxVersion::new(2, 0)),
    ("sm_30", PtxVersion::new(3, 0)),
    ("sm_32", PtxVersion::new(4, 0)),
    ("sm_35", PtxVersion::new(3, 1)),
    ("sm_37", PtxVersion::new(4, 1)),
    ("sm_50", PtxVersion::new(4, 0)),
    ("sm_52", PtxVersion::new(4, 1)),
    ("sm_53", PtxVersion::new(4, 2)),
    ("sm_60", PtxVersion::new(5, 0)),
    ("sm_61", PtxVersion::new(5, 0)),
    ("sm_62", PtxVersion::new(5, 0)),
    ("sm_70", PtxVersion::new(5, 1)),
    ("sm_72", PtxVersion::new(6, 1)),
    ("sm_75", PtxVersion::new(6, 3)),
    ("sm_80", PtxVersion::new(7, 0)),
    ("sm_86", PtxVersion::new(7, 1)),
    ("sm_87", PtxVersion::new(7, 4)),
    ("sm_88", PtxVersion::new(9, 0)),
    ("sm_89", PtxVersion::new(7, 8)),
    ("sm_90", PtxVersion::new(7, 8)),
    ("sm_90a", PtxVersion::new(8, 0)),
    ("sm_100", PtxVersion::new(8, 6)),
    ("sm_100a", PtxVersion::new(8, 6)),
    ("sm_100f", PtxVersion::new(8, 8)),
    ("sm_103", PtxVersion::new(8, 8)),
    ("sm_103a", PtxVersion::new(8, 8)),
    ("sm_103f", PtxVersion::new(8, 8)),
    ("sm_107", PtxVersion::new(9, 4)),
    ("sm_107a", PtxVersion::new(9, 4)),
    ("sm_107f", PtxVersion::new(9, 4)),
    ("sm_110", PtxVersion::new(9, 0)),
    ("sm_110a", PtxVersion::new(9, 0)),
    ("sm_110f", PtxVersion::new(9, 0)),
    ("sm_120", PtxVersion::new(8, 7)),
    ("sm_120a", PtxVersion::new(8, 7)),
    ("sm_120f", PtxVersion::new(8, 8)),
    ("sm_121", PtxVersion::new(8, 8)),
    ("sm_121a", PtxVersion::new(8, 8)),
    ("sm_121f", PtxVersion::new(8, 8)),
];

/// The `.version` values ptxas 13.5 accepts: the minor versions that exist of each major.
pub const SUPPORTED_VERSIONS: &[(u32, u32)] = &[
    (1, 5),
    (2, 3),
    (3, 2),
    (4, 3),
    (5, 1),
    (6, 5),
    (7, 8),
    (8, 8),
    (9, 5),
];

impl SmTarget {
    /// The lowest `.version` supporting this target, or `None` if ptxas 13.5 does not know it.
    pub fn min_version(self) -> Option<PtxVersion> {
        let name = self.to_string();
        KNOWN_TARGETS
            .iter()
            .find(|(t, _)| *t == name)
            .map(|&(_, v)| v)
    }
}

impl PtxVersion {
    /// The version ptxas means by `major.minor` as written: it reads the number as
    /// `major * 10 + minor`, so `.version 7.10` is 8.0 and `.version 1.50` is 6.0.
    pub fn normalized(self) -> PtxVersion {
        let code = self.major * 10 + self.minor;
        PtxVersion::new(code / 10, code % 10)
    }

    /// True if ptxas 13.5 accepts this `.version` (`1.0`–`1.5`, …, `9.0`–`9.5`).
    pub fn is_supported(self) -> bool {
        SUPPORTED_VERSIONS
            .iter()
            .any(|&(major, last)| self.major == major && self.minor <= last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_and_order() {
        let t = SmTarget::parse("sm_90a").unwrap();
        assert_eq!(t.number, 90);
        assert_eq!(t.suffix, ArchSuffix::Specific);
        assert_eq!(t.to_string(), "sm_90a");
        assert!(t.at_least(80) && !t.at_least(100));
        assert_eq!(
            SmTarget::parse("sm_100f").unwrap().suffix,
            ArchSuffix::Family
        );
        assert!(SmTarget::parse("sm_").is_err());
        assert!(SmTarget::parse("sm_9x").is_err());
        assert!(SmTarget::parse("gfx90a").is_err());
    }

    #[test]
    fn versions_parse_and_order() {
        assert!(PtxVersion::parse("7.4").unwrap() < PtxVersion::parse("7.10").unwrap());
        assert!(PtxVersion::parse("8.3").unwrap() > PtxVersion::new(7, 8));
        assert_eq!(PtxVersion::parse("8"), None);
        assert_eq!(PtxVersion::parse("x.1"), None);
        assert!(PtxVersion::new(9, 5).is_supported());
        assert!(!PtxVersion::new(9, 6).is_supported());
        assert!(!PtxVersion::new(6, 6).is_supported());
        assert!(PtxVersion::new(7, 8).is_supported());
    }

    #[test]
    fn known_targets() {
        let t = SmTarget::parse("sm_90a").unwrap();
        assert_eq!(t.min_version(), Some(PtxVersion::new(8, 0)));
        assert_eq!(SmTarget::parse("sm_81").unwrap().min_version(), None);
        assert_eq!(SmTarget::parse("sm_90f").unwrap().min_version(), None);
    }
}
