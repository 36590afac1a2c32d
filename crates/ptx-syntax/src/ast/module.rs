//! The module level: the module itself, its top-level items and their directives
//! (`.version`, `.target`, `.file`, `.section`, `.pragma`, linkage).

use super::{Expr, Function, VarDecl};
use crate::span::{Span, Spanned};
use ptx_isa::{PtxVersion, ScalarType};
use smol_str::SmolStr;

/// A parsed module: its top-level items in source order.
#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    pub items: Vec<Item>,
    pub span: Span,
}

impl Module {
    /// The `.version` directive's value.
    pub fn version(&self) -> Option<Spanned<PtxVersion>> {
        self.items.iter().find_map(|item| match item {
            Item::Version(v) => Some(*v),
            _ => None,
        })
    }

    /// The `.target` directive.
    pub fn target(&self) -> Option<&TargetDirective> {
        self.items.iter().find_map(|item| match item {
            Item::Target(t) => Some(t),
            _ => None,
        })
    }

    /// The `.address_size` value (32 or 64).
    pub fn address_size(&self) -> Option<Spanned<u32>> {
        self.items.iter().find_map(|item| match item {
            Item::AddressSize(a) => Some(*a),
            _ => None,
        })
    }

    /// Every function (kernels and device functions, with or without bodies).
    pub fn functions(&self) -> impl Iterator<Item = &Function> {
        self.items.iter().filter_map(|item| match item {
            Item::Function(f) => Some(f),
            _ => None,
        })
    }

    /// The function or kernel named `name` that has a body.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions()
            .find(|f| f.name.value == name && f.body.is_some())
    }

    /// Module-scope variable declarations.
    pub fn variables(&self) -> impl Iterator<Item = &VarDecl> {
        self.items.iter().filter_map(|item| match item {
            Item::Var(v) => Some(v),
            _ => None,
        })
    }

    /// `.file` directives (for mapping `.loc` to source files).
    pub fn files(&self) -> impl Iterator<Item = &FileDirective> {
        self.items.iter().filter_map(|item| match item {
            Item::File(f) => Some(f),
            _ => None,
        })
    }
}

/// A top-level item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Version(Spanned<PtxVersion>),
    Target(TargetDirective),
    AddressSize(Spanned<u32>),
    File(FileDirective),
    Section(Section),
    Var(VarDecl),
    Function(Function),
    Pragma(Pragma),
    /// `.alias a, b;`
    Alias {
        alias: Spanned<SmolStr>,
        aliasee: Spanned<SmolStr>,
        span: Span,
    },
}

/// `.target sm_90a, texmode_independent, debug`.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetDirective {
    /// Every comma-separated entry as written (`sm_80`, `texmode_unified`, `debug`, `map_f64_to_f32`).
    pub entries: Vec<Spanned<SmolStr>>,
    pub span: Span,
}

impl TargetDirective {
    /// The architecture entry (`sm_XX…` or `compute_XX…`), parsed.
    pub fn arch(&self) -> Option<Spanned<Result<ptx_isa::SmTarget, ptx_isa::TargetParseError>>> {
        self.entries
            .iter()
            .find(|e| e.value.starts_with("sm_") || e.value.starts_with("compute_"))
            .map(|e| Spanned::new(ptx_isa::SmTarget::parse(&e.value), e.span))
    }
}

/// `.file 1 "/path/k.cu", 1700000000, 1234`.
#[derive(Debug, Clone, PartialEq)]
pub struct FileDirective {
    pub index: u32,
    pub path: String,
    /// Optional timestamp and file size.
    pub extra: Vec<u64>,
    pub span: Span,
}

/// `.pragma "nounroll";` (the strings as written, without quotes).
#[derive(Debug, Clone, PartialEq)]
pub struct Pragma {
    pub strings: Vec<String>,
    pub span: Span,
}

/// `.section .debug_info { ... }`: labels and data directives.
#[derive(Debug, Clone, PartialEq)]
pub struct Section {
    pub name: Spanned<SmolStr>,
    pub entries: Vec<SectionEntry>,
    pub span: Span,
}

/// One line of a `.section` body.
#[derive(Debug, Clone, PartialEq)]
pub enum SectionEntry {
    Label(Spanned<SmolStr>),
    /// `.b8 1, 2, 3` or `.b32 $L__end - $L__begin`.
    Data {
        ty: Spanned<ScalarType>,
        values: Vec<Expr>,
        span: Span,
    },
}

/// Linkage and visibility directives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Linkage {
    Visible,
    Extern,
    Weak,
    Common,
}

impl Linkage {
    pub fn from_token(t: &str) -> Option<Self> {
        Some(match t {
            ".visible" => Linkage::Visible,
            ".extern" => Linkage::Extern,
            ".weak" => Linkage::Weak,
            ".common" => Linkage::Common,
            _ => return None,
        })
    }

    pub fn token(self) -> &'static str {
        match self {
            Linkage::Visible => ".visible",
            Linkage::Extern => ".extern",
            Linkage::Weak => ".weak",
            Linkage::Common => ".common",
        }
    }
}
