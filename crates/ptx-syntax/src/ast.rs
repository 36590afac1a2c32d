//! The typed syntax tree of a PTX module.
//!
//! Every node carries a [`Span`]. The cache-control instructions (`ld`, `st`, `cp.async` and its
//! group forms, `createpolicy`, `prefetch`) have typed qualifier fields; every other instruction
//! keeps its opcode, modifiers and operands in [`GenericInstruction`], losing nothing.
//!
//! Typed instructions keep the qualifiers in the order they were written ([`QualifierList`]);
//! the typed fields are a classification of that list made by the parser. Anything the list
//! holds that does not fit the instruction (a second cache operator, an unknown modifier) is
//! kept in [`QualifierList::anomalies`] for the validator, so nothing is lost or guessed.

use crate::span::{Span, Spanned};
use ptx_isa::{
    CacheLevel, CacheOperator, L1EvictionPriority, L2EvictionPriority, MemorySemantics, PolicyKind,
    PrefetchSize, PtxVersion, Qualifier, ScalarType, Scope, StateSpace, VarType, VectorWidth,
};
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

/// `.entry` (kernel) or `.func` (device function).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FunctionKind {
    Entry,
    Func,
}

/// A kernel or device function, declared or defined.
#[derive(Debug, Clone, PartialEq)]
pub struct Function {
    pub linkage: Vec<Spanned<Linkage>>,
    pub kind: Spanned<FunctionKind>,
    /// `.func (.param .b32 ret) f(...)`: the return parameters.
    pub returns: Option<Vec<Param>>,
    pub name: Spanned<SmolStr>,
    /// `None` when the name is not followed by a parameter list.
    pub params: Option<Vec<Param>>,
    /// `.maxntid`, `.reqntid`, `.noreturn`, `.pragma`, … between the signature and the body.
    pub directives: Vec<FunctionDirective>,
    /// `None` for a declaration (`;` instead of a body).
    pub body: Option<Block>,
    pub span: Span,
}

/// A performance-tuning or attribute directive of a function.
#[derive(Debug, Clone, PartialEq)]
pub enum FunctionDirective {
    /// `.maxntid 128, 1, 1`, `.reqntid 256`, `.minnctapersm 2`, `.maxnreg 64`,
    /// `.maxclusterrank 8`, `.reqnctapercluster 2, 1, 1`, `.explicitcluster`, `.noreturn`,
    /// `.blocksareclusters`.
    Tuning {
        name: Spanned<SmolStr>,
        values: Vec<u64>,
        span: Span,
    },
    Pragma(Pragma),
}

/// The directives a function header may carry, with how many values each takes.
pub const FUNCTION_DIRECTIVES: &[(&str, usize, usize)] = &[
    (".maxntid", 1, 3),
    (".reqntid", 1, 3),
    (".minnctapersm", 1, 1),
    (".maxnctapersm", 1, 1),
    (".maxnreg", 1, 1),
    (".maxclusterrank", 1, 1),
    (".reqnctapercluster", 1, 3),
    (".explicitcluster", 0, 0),
    (".noreturn", 0, 0),
    (".blocksareclusters", 0, 0),
    (".abi_preserve", 1, 1),
    (".abi_preserve_control", 1, 1),
];

/// A parameter of a kernel or function.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// `.param` or `.reg`.
    pub space: Spanned<StateSpace>,
    pub align: Option<u32>,
    pub ty: Spanned<ScalarType>,
    /// `.ptr .global .align 16` (kernel pointer parameters).
    pub ptr: Option<PtrAttribute>,
    pub name: Spanned<SmolStr>,
    /// Array dimensions: `name[16]` gives `[Some(16)]`, `name[]` gives `[None]`.
    pub dims: Vec<Option<u64>>,
    pub span: Span,
}

/// The `.ptr` attribute of a kernel parameter: the space and alignment of what it points to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PtrAttribute {
    pub space: Option<StateSpace>,
    pub align: Option<u32>,
}

/// A `{ ... }` scope.
#[derive(Debug, Clone, PartialEq)]
pub struct Block {
    pub statements: Vec<Statement>,
    pub span: Span,
}

/// A statement of a function body.
///
/// Kept at 128 bytes (a test asserts it): every statement is moved a few times while it is
/// parsed and stored, and a move of up to 128 bytes is a few vector stores where a larger one
/// is a `memcpy` call (at 192 bytes, three per statement: 1.5 % of the instructions of
/// checking a large module). Declarations and guards, the large rare parts, are boxed.
#[derive(Debug, Clone, PartialEq)]
pub enum Statement {
    Var(Box<VarDecl>),
    Label(Spanned<SmolStr>),
    Instruction(Instruction),
    Block(Block),
    Loc(Loc),
    Pragma(Pragma),
    /// `proto : .callprototype (.param .b32 _) _ (.param .b64 _);`
    CallPrototype {
        label: Spanned<SmolStr>,
        returns: Option<Vec<Param>>,
        params: Vec<Param>,
        noreturn: bool,
        span: Span,
    },
    /// `ts: .branchtargets L0, L1;` (the labels `brx.idx` chooses among) or
    /// `ft: .calltargets f, g;` (the functions an indirect `call` may reach).
    TargetList(Box<TargetList>),
}

/// A labelled target list of a function body (PTX ISA: `.branchtargets`, `.calltargets`).
#[derive(Debug, Clone, PartialEq)]
pub struct TargetList {
    pub kind: TargetListKind,
    pub label: Spanned<SmolStr>,
    /// The names as written, in order (repeats allowed: ptxas accepts `L0, L1, L0`).
    pub targets: Vec<Spanned<SmolStr>>,
    pub span: Span,
}

/// Which directive a [`TargetList`] was written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetListKind {
    /// `.branchtargets`: labels of the function, the operand of `brx.idx`.
    Branch,
    /// `.calltargets`: functions, the last operand of an indirect `call`.
    Call,
}

impl TargetListKind {
    pub fn token(self) -> &'static str {
        match self {
            TargetListKind::Branch => ".branchtargets",
            TargetListKind::Call => ".calltargets",
        }
    }
}

/// `.loc file line column[, function_name label[+off], inlined_at file line column]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Loc {
    pub file: u32,
    pub line: u32,
    pub column: u32,
    pub function_name: Option<Expr>,
    pub inlined_at: Option<(u32, u32, u32)>,
    pub span: Span,
}

/// A variable declaration in any state space.
#[derive(Debug, Clone, PartialEq)]
pub struct VarDecl {
    pub linkage: Vec<Spanned<Linkage>>,
    pub space: Spanned<StateSpace>,
    /// `.attribute(.managed)` and similar, as written inside the parentheses.
    pub attributes: Vec<Spanned<SmolStr>>,
    pub align: Option<Spanned<u64>>,
    pub vector: Option<Spanned<VectorWidth>>,
    pub ty: Spanned<VarType>,
    /// `.ptr` marker seen in some `.param` declarations inside bodies.
    pub declarators: Vec<Declarator>,
    pub span: Span,
}

/// One declared name: `%r<10>`, `buf[16][4]`, `x = 5`.
#[derive(Debug, Clone, PartialEq)]
pub struct Declarator {
    pub name: Spanned<SmolStr>,
    /// `%r<10>` declares `%r0` … `%r9`.
    pub range: Option<u32>,
    pub dims: Vec<Option<u64>>,
    pub init: Option<Initializer>,
    pub span: Span,
}

/// A variable initializer.
#[derive(Debug, Clone, PartialEq)]
pub enum Initializer {
    Expr(Expr),
    List(Vec<Initializer>, Span),
}

/// A constant expression (initializers, debug data, operands such as `sym+4`).
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Int(Spanned<IntLit>),
    Float(Spanned<FloatLit>),
    Name(Spanned<SmolStr>),
    Unary(UnaryOp, Box<Expr>, Span),
    Binary(BinaryOp, Box<Expr>, Box<Expr>, Span),
    /// `generic(sym)` and `generic(sym)+4` in initializers, as a call of one argument.
    Call(Spanned<SmolStr>, Box<Expr>, Span),
    Paren(Box<Expr>, Span),
}

impl Expr {
    pub fn span(&self) -> Span {
        match self {
            Expr::Int(i) => i.span,
            Expr::Float(f) => f.span,
            Expr::Name(n) => n.span,
            Expr::Unary(_, _, s)
            | Expr::Binary(_, _, _, s)
            | Expr::Call(_, _, s)
            | Expr::Paren(_, s) => *s,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Not,
    BitNot,
    Plus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Shl,
    Shr,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
}

impl BinaryOp {
    pub fn token(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Mul => "*",
            Div => "/",
            Rem => "%",
            Add => "+",
            Sub => "-",
            Shl => "<<",
            Shr => ">>",
            BitAnd => "&",
            BitXor => "^",
            BitOr => "|",
            And => "&&",
            Or => "||",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            Eq => "==",
            Ne => "!=",
        }
    }

    /// Binding strength (higher binds tighter), as in C.
    pub fn precedence(self) -> u8 {
        use BinaryOp::*;
        match self {
            Mul | Div | Rem => 10,
            Add | Sub => 9,
            Shl | Shr => 8,
            Lt | Gt | Le | Ge => 7,
            Eq | Ne => 6,
            BitAnd => 5,
            BitXor => 4,
            BitOr => 3,
            And => 2,
            Or => 1,
        }
    }
}

/// An integer literal: its value (negative only through a unary minus, folded by the parser
/// into operands) and whether it had the `U` suffix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntLit {
    pub value: i128,
    pub unsigned: bool,
}

/// A floating-point literal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FloatLit {
    /// `0f3F800000`: the exact bits of an `.f32`.
    F32Bits(u32),
    /// `0d3FF0000000000000`: the exact bits of an `.f64`.
    F64Bits(u64),
    /// `1.0`, `0.25`, `1e-3`: decimal, kept as written.
    Decimal(SmolStr),
}

impl FloatLit {
    /// The value as an `f64` (exact for `F32Bits`/`F64Bits`).
    pub fn to_f64(&self) -> f64 {
        match self {
            FloatLit::F32Bits(b) => f32::from_bits(*b) as f64,
            FloatLit::F64Bits(b) => f64::from_bits(*b),
            FloatLit::Decimal(s) => s.parse().unwrap_or(f64::NAN),
        }
    }
}

/// A register, symbol or label reference, with an optional `.x/.y/.z/.w` component
/// (`%tid.x`, `%ctaid.y`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub name: SmolStr,
    pub component: Option<SmolStr>,
    pub span: Span,
}

/// An instruction operand.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A register, variable, label or special register (`%r1`, `buf`, `$L__BB0_1`, `%tid.x`).
    Name(Name),
    /// An integer immediate, sign folded (`-8` is one literal).
    Int(Spanned<IntLit>),
    Float(Spanned<FloatLit>),
    /// A compound constant expression (`sym+4`, `(1<<3)`).
    Expr(Expr),
    /// `{%r1, _, %r3}`.
    Vector(Vec<Operand>, Span),
    /// `_`: no read or no write.
    Sink(Span),
    /// `[base+offset]` in any of its forms (boxed, as the rare large forms are: an operand is
    /// moved and stored for every operand parsed, and the common ones are small).
    Address(Box<Address>),
    /// A bracketed operand that is not a plain address (`[tex, {%f1, %f2}]`).
    Bracket(Vec<Operand>, Span),
    /// `!%p`: a negated predicate.
    Not(Box<Operand>, Span),
    /// `%p|%q`: the two destinations of `setp`.
    PredPair(Box<Name>, Box<Name>, Span),
    /// `(a, b)`: the argument lists of `call`.
    List(Vec<Operand>, Span),
    /// `buf[8]`: a name followed by a bracketed operand, ptxas's array-element address (also
    /// what a missing comma such as `%r1 [%rd1]` reads as). The bracket is an
    /// [`Operand::Address`] (with its `.unified`) or an [`Operand::Bracket`].
    Indexed(Name, Box<Operand>, Span),
}

impl Operand {
    pub fn span(&self) -> Span {
        match self {
            Operand::Name(n) => n.span,
            Operand::Int(i) => i.span,
            Operand::Float(f) => f.span,
            Operand::Expr(e) => e.span(),
            Operand::Address(a) => a.span,
            Operand::Vector(_, s)
            | Operand::Sink(s)
            | Operand::Bracket(_, s)
            | Operand::Not(_, s)
            | Operand::PredPair(_, _, s)
            | Operand::List(_, s)
            | Operand::Indexed(_, _, s) => *s,
        }
    }

    /// The register or symbol name, if this operand is one.
    pub fn as_name(&self) -> Option<&Name> {
        match self {
            Operand::Name(n) => Some(n),
            _ => None,
        }
    }
}

/// `[%rd1]`, `[%rd1+8]`, `[%rd1+-8]`, `[buf+4]`, `[100]`, optionally followed by `.unified`.
#[derive(Debug, Clone, PartialEq)]
pub struct Address {
    /// The register or variable; `None` for an immediate address.
    pub base: Option<Name>,
    pub offset: i64,
    /// What ptxas reports about the offset's constant expression (a float offset, an integer
    /// combined with a float); empty for a plain integer.
    pub offset_issues: Vec<crate::consteval::ConstIssue>,
    /// `ld ... [a].unified`.
    pub unified: bool,
    pub span: Span,
}

/// `@%p` or `@!%p`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    pub negated: bool,
    pub predicate: Name,
    pub span: Span,
}

/// One instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// Boxed, as most instructions have none (see [`Statement`] on its size).
    pub guard: Option<Box<Guard>>,
    pub op: Op,
    /// The opcode with its modifiers (`ld.global.nc.b32`).
    pub opcode_span: Span,
    /// From the guard (or opcode) to the `;`.
    pub span: Span,
    /// What ptxas reports about the constant expressions among the operands (address offsets,
    /// immediates such as `1.5*2`), in operand order; the expressions themselves are folded
    /// into literals. Nearly always empty (which allocates nothing).
    pub const_issues: Box<[crate::consteval::ConstIssue]>,
}

/// The instruction proper: typed for the cache-control instructions, generic otherwise.
///
/// The typed forms are boxed: their qualifier fields take up to 216 bytes, against 80 for a
/// generic instruction, and every statement of a body would otherwise be as large as an `ld`
/// (and be copied at that size while it is parsed and stored).
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Ld(Box<LoadStore>),
    St(Box<LoadStore>),
    CpAsync(Box<CpAsync>),
    CpAsyncCommitGroup(Box<GroupOp>),
    CpAsyncWaitGroup(Box<GroupOp>),
    CpAsyncWaitAll(Box<GroupOp>),
    CpAsyncMbarrierArrive(Box<MbarrierArrive>),
    CreatePolicy(Box<CreatePolicy>),
    Prefetch(Box<Prefetch>),
    Generic(GenericInstruction),
}

impl Op {
    /// The opcode as ptxas names it in messages (`ld`, `cp.async`, `createpolicy`, …).
    pub fn mnemonic(&self) -> &str {
        match self {
            Op::Ld(_) => "ld",
            Op::St(_) => "st",
            Op::CpAsync(_) => "cp.async",
            Op::CpAsyncCommitGroup(_) => "cp.async.commit_group",
            Op::CpAsyncWaitGroup(_) => "cp.async.wait_group",
            Op::CpAsyncWaitAll(_) => "cp.async.wait_all",
            Op::CpAsyncMbarrierArrive(_) => "cp.async.mbarrier.arrive",
            Op::CreatePolicy(_) => "createpolicy",
            Op::Prefetch(p) => {
                if p.uniform {
                    "prefetchu"
                } else {
                    "prefetch"
                }
            }
            Op::Generic(g) => &g.opcode.value,
        }
    }

    /// The operands as written.
    pub fn operands(&self) -> &[Operand] {
        match self {
            Op::Ld(x) | Op::St(x) => &x.operands,
            Op::CpAsync(x) => &x.operands,
            Op::CpAsyncCommitGroup(x) | Op::CpAsyncWaitGroup(x) | Op::CpAsyncWaitAll(x) => {
                &x.operands
            }
            Op::CpAsyncMbarrierArrive(x) => &x.operands,
            Op::CreatePolicy(x) => &x.operands,
            Op::Prefetch(x) => &x.operands,
            Op::Generic(x) => &x.operands,
        }
    }

    /// The qualifier list of a typed instruction.
    pub fn qualifiers(&self) -> Option<&QualifierList> {
        Some(match self {
            Op::Ld(x) | Op::St(x) => &x.qualifiers,
            Op::CpAsync(x) => &x.qualifiers,
            Op::CpAsyncCommitGroup(x) | Op::CpAsyncWaitGroup(x) | Op::CpAsyncWaitAll(x) => {
                &x.qualifiers
            }
            Op::CpAsyncMbarrierArrive(x) => &x.qualifiers,
            Op::CreatePolicy(x) => &x.qualifiers,
            Op::Prefetch(x) => &x.qualifiers,
            Op::Generic(_) => return None,
        })
    }
}

/// The qualifiers of a typed instruction in written order, and what did not fit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct QualifierList {
    /// Every modifier after the opcode, in order; unknown ones as [`Modifier::Unknown`].
    pub written: Vec<Spanned<Modifier>>,
    /// Modifiers the typed fields could not take.
    pub anomalies: Vec<Anomaly>,
}

/// One written modifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Modifier {
    Known(Qualifier),
    Unknown(SmolStr),
}

impl Modifier {
    pub fn text(&self) -> &str {
        match self {
            Modifier::Known(q) => q.token(),
            Modifier::Unknown(s) => s,
        }
    }
}

/// A modifier that did not fit the instruction's typed fields.
#[derive(Debug, Clone, PartialEq)]
pub enum Anomaly {
    /// Not a qualifier PTX knows.
    Unknown(Spanned<SmolStr>),
    /// A known qualifier this instruction has no field for (e.g. `.L1` on `ld`).
    NotApplicable(Spanned<Qualifier>),
    /// A second qualifier of a class that takes one (two cache operators, two state spaces…);
    /// `first` is the one kept in the typed field.
    Repeated {
        first: Span,
        again: Spanned<Qualifier>,
    },
    /// `.vec` written after `.type` (ptxas: "Vector Type not specified properly").
    VectorAfterType(Span),
}

/// `ld` and `st` (including `ld.global.nc` and the `.mmio` forms).
#[derive(Debug, Clone, PartialEq)]
pub struct LoadStore {
    pub qualifiers: QualifierList,
    pub semantics: Option<Spanned<MemorySemantics>>,
    pub mmio: Option<Span>,
    pub scope: Option<Spanned<Scope>>,
    pub space: Option<Spanned<StateSpace>>,
    pub cache_op: Option<Spanned<CacheOperator>>,
    /// `.nc` (only meaningful on `ld.global`).
    pub nc: Option<Span>,
    pub l1_priority: Option<Spanned<L1EvictionPriority>>,
    pub l2_priority: Option<Spanned<L2EvictionPriority>>,
    pub cache_hint: Option<Span>,
    pub prefetch_size: Option<Spanned<PrefetchSize>>,
    pub vector: Option<Spanned<VectorWidth>>,
    pub ty: Option<Spanned<ScalarType>>,
    /// As written: `d, [a]{, policy}` for ld, `[a], b{, policy}` for st.
    pub operands: Vec<Operand>,
}

impl LoadStore {
    /// The effective memory semantics (`.weak` when none is written).
    pub fn effective_semantics(&self) -> MemorySemantics {
        self.semantics.map_or(MemorySemantics::Weak, |s| s.value)
    }
}

/// `cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB} [dst], [src], size{, src-size | ignore-src}{, policy}`.
#[derive(Debug, Clone, PartialEq)]
pub struct CpAsync {
    pub qualifiers: QualifierList,
    pub cache_op: Option<Spanned<CacheOperator>>,
    /// The first state space written (the destination).
    pub dst_space: Option<Spanned<StateSpace>>,
    /// The second state space written (the source).
    pub src_space: Option<Spanned<StateSpace>>,
    pub cache_hint: Option<Span>,
    pub prefetch_size: Option<Spanned<PrefetchSize>>,
    pub operands: Vec<Operand>,
}

/// `cp.async.commit_group`, `cp.async.wait_group N`, `cp.async.wait_all`.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupOp {
    pub qualifiers: QualifierList,
    pub operands: Vec<Operand>,
}

/// `cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr]`.
#[derive(Debug, Clone, PartialEq)]
pub struct MbarrierArrive {
    pub qualifiers: QualifierList,
    pub noinc: Option<Span>,
    pub space: Option<Spanned<StateSpace>>,
    pub ty: Option<Spanned<ScalarType>>,
    pub operands: Vec<Operand>,
}

/// `createpolicy.range/.fractional/.cvt`.
#[derive(Debug, Clone, PartialEq)]
pub struct CreatePolicy {
    pub qualifiers: QualifierList,
    pub kind: Option<Spanned<PolicyKind>>,
    /// `.global` of `createpolicy.range.global`.
    pub space: Option<Spanned<StateSpace>>,
    pub primary: Option<Spanned<L2EvictionPriority>>,
    pub secondary: Option<Spanned<L2EvictionPriority>>,
    /// `.L2` of `createpolicy.cvt.L2`.
    pub level: Option<Spanned<CacheLevel>>,
    pub ty: Option<Spanned<ScalarType>>,
    pub operands: Vec<Operand>,
}

/// `prefetch{.space}.level [a]`, `prefetch.global.L2::evict_*`, `prefetchu.L1`,
/// `prefetch{.space}.tensormap`.
#[derive(Debug, Clone, PartialEq)]
pub struct Prefetch {
    pub qualifiers: QualifierList,
    /// `prefetchu`.
    pub uniform: bool,
    pub space: Option<Spanned<StateSpace>>,
    pub level: Option<Spanned<CacheLevel>>,
    pub l2_priority: Option<Spanned<L2EvictionPriority>>,
    pub tensormap: Option<Span>,
    pub operands: Vec<Operand>,
}

/// Any other instruction: opcode, modifiers and operands as written.
#[derive(Debug, Clone, PartialEq)]
pub struct GenericInstruction {
    pub opcode: Spanned<SmolStr>,
    pub modifiers: Vec<Spanned<SmolStr>>,
    pub operands: Vec<Operand>,
}

impl GenericInstruction {
    /// True if `modifier` (with its dot) is among the modifiers.
    pub fn has(&self, modifier: &str) -> bool {
        self.modifiers.iter().any(|m| m.value == modifier)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A move of more than 128 bytes is a `memcpy` call, and every statement is moved a few
    /// times while a body is parsed (see [`Statement`]).
    #[test]
    fn a_statement_fits_in_128_bytes() {
        assert!(std::mem::size_of::<Statement>() <= 128);
        assert!(std::mem::size_of::<Instruction>() <= 128);
    }
}
