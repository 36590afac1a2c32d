//! PTX fundamental types (`.b32`, `.s8`, `.f16x2`, …).

use crate::token_enum;

token_enum! {
    /// A fundamental PTX type as written in an instruction or declaration.
    pub enum ScalarType {
        B8 = ".b8", B16 = ".b16", B32 = ".b32", B64 = ".b64", B128 = ".b128",
        U8 = ".u8", U16 = ".u16", U32 = ".u32", U64 = ".u64",
        S8 = ".s8", S16 = ".s16", S32 = ".s32", S64 = ".s64",
        F16 = ".f16", F16x2 = ".f16x2", Bf16 = ".bf16", Bf16x2 = ".bf16x2",
        Tf32 = ".tf32", F32 = ".f32", F64 = ".f64",
        E4m3 = ".e4m3", E5m2 = ".e5m2", E4m3x2 = ".e4m3x2", E5m2x2 = ".e5m2x2",
        E2m1x2 = ".e2m1x2", E2m3x2 = ".e2m3x2", E3m2x2 = ".e3m2x2", Ue8m0x2 = ".ue8m0x2",
        S4 = ".s4", U4 = ".u4", B1 = ".b1",
        Pred = ".pred",
    }
}

/// How an instruction interprets the bits of a type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// `.bN`: untyped bits (zero-extended when widened).
    Bits,
    /// `.uN`: unsigned integer (zero-extended).
    Unsigned,
    /// `.sN`: signed integer (sign-extended).
    Signed,
    /// IEEE and reduced-precision floats.
    Float,
    /// `.pred`.
    Predicate,
}

impl ScalarType {
    /// Width in bits (a `.pred` register is one bit wide).
    pub const fn bits(self) -> u32 {
        use ScalarType::*;
        match self {
            Pred | B1 => 1,
            S4 | U4 => 4,
            B8 | U8 | S8 | E4m3 | E5m2 => 8,
            B16 | U16 | S16 | F16 | Bf16 | E4m3x2 | E5m2x2 | E2m1x2 | E2m3x2 | E3m2x2 | Ue8m0x2 => {
                16
            }
            B32 | U32 | S32 | F32 | F16x2 | Bf16x2 | Tf32 => 32,
            B64 | U64 | S64 | F64 => 64,
            B128 => 128,
        }
    }

    /// Width in bytes, rounded up.
    pub const fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub const fn kind(self) -> TypeKind {
        use ScalarType::*;
        match self {
            B1 | B8 | B16 | B32 | B64 | B128 => TypeKind::Bits,
            U4 | U8 | U16 | U32 | U64 => TypeKind::Unsigned,
            S4 | S8 | S16 | S32 | S64 => TypeKind::Signed,
            Pred => TypeKind::Predicate,
            _ => TypeKind::Float,
        }
    }

    /// The bit type of the same width (`.f32` → `.b32`), if one exists.
    pub const fn bit_type(self) -> Option<ScalarType> {
        use ScalarType::*;
        match self.bits() {
            8 => Some(B8),
            16 => Some(B16),
            32 => Some(B32),
            64 => Some(B64),
            128 => Some(B128),
            _ => None,
        }
    }
}

token_enum! {
    /// Opaque types that only appear in declarations.
    pub enum OpaqueType {
        TexRef = ".texref", SamplerRef = ".samplerref", SurfRef = ".surfref",
    }
}

/// The type of a declared variable: a fundamental type or an opaque handle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VarType {
    Scalar(ScalarType),
    Opaque(OpaqueType),
}

impl VarType {
    pub fn from_token(token: &str) -> Option<Self> {
        ScalarType::from_token(token)
            .map(VarType::Scalar)
            .or_else(|| OpaqueType::from_token(token).map(VarType::Opaque))
    }

    pub fn token(self) -> &'static str {
        match self {
            VarType::Scalar(t) => t.token(),
            VarType::Opaque(t) => t.token(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_round_trips_through_its_spelling() {
        for &t in ScalarType::ALL {
            assert_eq!(ScalarType::from_token(t.token()), Some(t));
        }
        assert_eq!(ScalarType::from_token(".b33"), None);
    }

    #[test]
    fn widths_and_kinds() {
        assert_eq!(ScalarType::B128.bytes(), 16);
        assert_eq!(ScalarType::S8.kind(), TypeKind::Signed);
        assert_eq!(ScalarType::F16x2.bits(), 32);
        assert_eq!(ScalarType::F64.bit_type(), Some(ScalarType::B64));
    }
}
