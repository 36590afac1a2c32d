//! The diagnostic codes: one per kind of finding, stable across releases. `docs/diagnostics.md`
//! is generated from [`CODES`] (a test keeps the committed file up to date).

/// One diagnostic code.
#[derive(Debug, Clone, Copy)]
pub struct CodeInfo {
    pub code: &'static str,
    pub title: &'static str,
    /// The ptxas messages reported under this code (templates: `«x»` is a placeholder).
    pub ptxas: &'static [&'static str],
    /// What it means and how to fix it.
    pub explanation: &'static str,
    /// A line that triggers it, for the docs.
    pub example: &'static str,
}

macro_rules! codes {
    ($($name:ident = $code:literal, $title:literal, [$($ptxas:literal),* $(,)?], $expl:literal, $ex:literal;)+) => {
        $(pub const $name: &str = $code;)+
        /// Every code, in order.
        pub const CODES: &[CodeInfo] = &[$(CodeInfo {
            code: $code, title: $title, ptxas: &[$($ptxas),*], explanation: $expl, example: $ex,
        }),+];
    };
}

codes! {
    SYNTAX = "E0001", "syntax error",
        ["Parsing error near '«token»': syntax error"],
        "The statement does not parse. ptxas stops reading the file at the first one (later statements are not checked).",
        "ld.global.b32 %r1, [%rd1-8];";
    MISSING_DIRECTIVE = "E0002", "missing `.version` or `.target`",
        ["Missing .version directive at start of file '«file»'", "Missing .target directive at start of file '«file»'"],
        "Every module starts with `.version` and then `.target`.",
        ".target sm_80   (no .version before it)";
    UNSUPPORTED_VERSION = "E0003", "unsupported `.version`",
        ["Unsupported .version «v»; current version is '9.5'"],
        "ptxas 13.5 knows PTX ISA 1.0–9.5, only the minor versions that exist (6.0–6.5, 7.0–7.8, 8.0–8.8, 9.0–9.5, …).",
        ".version 8.9";
    UNKNOWN_TARGET = "E0004", "unknown `.target`",
        ["Unsupported .target '«t»'"],
        "The target is not one ptxas 13.5 knows (sm_50 … sm_121f; see docs/features.md).",
        ".target sm_81";
    VERSION_TARGET = "E0005", "`.version` too old for `.target`",
        ["PTX .version «v» does not support .target «t»"],
        "Each target needs a minimum PTX ISA version (sm_80: 7.0, sm_90: 7.8, sm_100: 8.6, …). ptxas reports it after every other message of the file.",
        ".version 7.0 + .target sm_90";
    BAD_ADDRESS_SIZE = "E0006", "bad `.address_size`",
        ["Illegal value for .address_size directive (must be 32 or 64)"],
        "`.address_size` is 32 or 64 (ptxas 13.5 only compiles 64-bit code).",
        ".address_size 16";
    TARGET_TOO_OLD = "E0100", "feature needs a newer target",
        ["Feature '«f»' requires .target sm_«n» or higher", "Modifier '«m»' requires .target sm_«n» or higher", "Modifier '«m»' on '«op»' requires .target sm_«n» or higher", "Instruction '«i»' requires .target sm_«n» or higher"],
        "The instruction uses a feature the module's `.target` does not have. The help line names the lowest target that has it (docs/features.md lists them all).",
        "cp.async.ca.shared.global [s], [%rd1], 16;   (.target sm_75)";
    VERSION_TOO_OLD = "E0101", "feature needs a newer PTX ISA version",
        ["Feature '«f»' requires PTX ISA .version «v» or later", "Modifier '«m»' requires PTX ISA .version «v» or later", "Modifier '«m»' on '«op»' requires PTX ISA .version «v» or later", "Instruction '«i»' requires PTX ISA .version «v» or later"],
        "The feature exists only from a later `.version`; the help line names it.",
        "ld.global.L2::cache_hint.b32 %r1, [%rd1], %rd2;   (.version 7.0)";
    NOT_ON_TARGET = "E0102", "instruction not available on this target",
        ["«subject» not supported on .target '«t»'", "«subject» cannot be compiled for architecture '«t»'", "Instruction '«op»' without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4", "Instruction '«op»' without '.sync' may produce unpredictable results on sm_70 and later architectures"],
        "The instruction exists only on architecture-specific targets (`wgmma`, `setmaxnreg`, `tcgen05` …: sm_90a, sm_100a …); a later target of another family does not have it either. docs/features.md lists the targets of each.",
        "wgmma.fence.sync.aligned;   (.target sm_90)";
    DEPRECATED = "E0103", "directive removed from PTX",
        ["Deprecated feature: '«f»' not supported as of PTX version «v»"],
        "The directive was removed from the PTX ISA (`.maxnctapersm`, removed in PTX 2.1: write `.minnctapersm`).",
        ".visible .entry k() .maxnctapersm 2 { ret; }";
    UNKNOWN_INSTRUCTION = "E0200", "unknown instruction",
        ["Not a name of any known instruction: '«op»'"],
        "The opcode (with its kind word, such as `createpolicy.fractional` or `cp.async`) is not a PTX instruction. Opcodes are case-sensitive.",
        "LD.global.b32 %r1, [%rd1];";
    UNKNOWN_MODIFIER = "E0201", "unknown modifier",
        ["Unknown modifier '«m»'"],
        "The dotted word is not a modifier ptxas knows for this instruction.",
        "ld.global.L2::32B.b32 %r1, [%rd1];";
    REPEATED_MODIFIER = "E0202", "modifier given twice",
        ["Multiple cache operation modifiers specified", "Multiple scope modifiers specified", "Multiple vector modifiers specified", "Multiple cache prefetching modifiers specified", "Multiple .L2::cache_hint modifiers specified", "Multiple .noinc modifiers specified", "Multiple cache eviction priority modifiers specified", "Duplicate .«sem» modifier", "Unexpected number of '«what»' modifiers specified", "Duplicate '«level»::eviction_priority' modifier specified for instruction '«op»'"],
        "Two modifiers of a kind that takes one value (two cache operators, two scopes, two memory orders, three eviction priorities …). ptxas goes on with the last one written.",
        "ld.global.ca.cg.b32 %r1, [%rd1];";
    ILLEGAL_MODIFIER = "E0203", "modifier not allowed on this instruction",
        ["Illegal modifier '«m»' for instruction '«op»'", "Illegal modifier '«m»' for instruction '«op»' with '«m2»'", "Illegal cache operation for instruction 'ld.nc'", "Illegal reduction operation for instruction '«op»'"],
        "The modifier exists but this instruction does not take it (a store cache operator on ld, `.acquire` on st, `.L2::256B` on st, `.sync` on cp.async …). The help line lists what the instruction takes.",
        "ld.global.wb.b32 %r1, [%rd1];";
    CONFLICTING_MODIFIERS = "E0204", "modifiers that cannot be combined",
        ["Modifier '«a»' cannot be combined with modifier '«b»'"],
        "Both modifiers are legal on their own but not together: an L1 eviction priority replaces the cache operator, `.volatile`/`.relaxed`/`.acquire`/`.release` exclude cache operators and `.nc`, `.mmio` needs scope `.sys` and no vector …",
        "ld.global.cg.L1::evict_first.b32 %r1, [%rd1];";
    MISSING_MODIFIER = "E0205", "a required modifier is missing",
        ["Modifier '«m»' requires scope with '«op»' instruction", "Modifier '«scope»' requires memory order with '«op»' instruction", "Modifier '.mmio' requires modifier '«orders»' for instruction '«op»'", "'.ca or .cg' modifier required for instruction 'cp.async'", ".L2::cache_hint modifier required for instruction '«op»' with «n» arguments", "cache eviction priority modifier required for instruction '«op»'", ".L2 modifier required for instruction '«op»'", "Cache level modifier required for instruction '«op»'", "Modifier '«m»' requires cache level L2 with '«op»' instruction"],
        "The instruction or one of its modifiers needs another modifier: a scope with `.relaxed`/`.acquire`/`.release`/`.mmio`, a memory order with a scope, `.L2::cache_hint` with a cache-policy operand, a cache level on prefetch …",
        "ld.relaxed.global.b32 %r1, [%rd1];";
    EVICTION_SYNTAX = "E0206", "malformed eviction priorities",
        ["'.level::eviction_priority' syntax expected for instruction '«op»'", "Incorrect '.level::eviction_priority' modifier specified for instruction '«op»'"],
        "Eviction priorities are written with their cache level (`.L1::evict_last`, `.L2::evict_first`), at most one per level.",
        "ld.global.evict_last.b32 %r1, [%rd1];";
    BAD_TYPE = "E0207", "instruction type not allowed",
        ["Unexpected instruction types specified for '«op»'", "Vector type too large, exceeds 128 bit limit", "Instruction '«op»' requires '.v8.b32/.v4.b64' type with '«m»' modifier.", "Vector qualifier is not allowed for instruction '«op»'"],
        "The instruction needs exactly one type of its own type set (ld/st: `.b8`–`.b128`, `.u8`–`.u64`, `.s8`–`.s64`, `.f32`, `.f64`; createpolicy and cp.async.mbarrier.arrive: `.b64`; cp.async: none), vectors of at most 128 bits (256 with `.v8` 32-bit / `.v4` 64-bit from sm_100), and `.L2::evict_*` only on the 256-bit forms.",
        "ld.global.f16 %h1, [%rd1];";
    BAD_PRIORITY = "E0208", "eviction priority not supported here",
        ["Unsupported modifier '«p»' as primary_priority for instruction '«op»'", "Unsupported modifier '«p»' as secondary_priority for instruction '«op»'"],
        "createpolicy's primary priority is one of `.L2::evict_last/normal/first/unchanged`; the secondary one `.L2::evict_first` or `.L2::evict_unchanged`.",
        "createpolicy.fractional.L2::evict_last.L2::evict_last.b64 %rd1, 0.5;";
    BAD_SPACE = "E0300", "state space not allowed",
        ["State space incorrect for instruction '«op»'", "State space incorrect for feature '«f»'", "Unexpected number of state spaces specified in instruction '«op»'", "Modifier '«m»' cannot be applied to '«ss»' space", "Modifier '«m»' cannot be applied to '«ss»' space for instruction '«op»'", "Modifier '.nc' requires .global space", "global state space expected for feature '«f»'", "No state space qualifier expected for instruction '«op»'", "Illegal state space for address operand '«sub»' with instruction '«op»'"],
        "The instruction or a modifier does not work in the written state space (st to `.const`, `.nc` off `.global`, memory orders on `.local`/`.const`/`.param`, cache hints and L1 priorities off generic/`.global` …), or more than one space is written.",
        "st.const.b32 [cbuf], %r1;";
    SPACE_MISMATCH = "E0301", "variable in another state space",
        ["State space mismatch between instruction and address in instruction '«op»'"],
        "The address names a variable declared in a different state space than the instruction's (generic addressing takes `.global`, `.shared` and `.local` variables).",
        "ld.shared.b32 %r1, [gbuf];";
    PARAM_ACCESS = "E0302", "illegal parameter access",
        ["Illegal to write to function input parameter '«p»'", "Illegal to read function return parameter '«p»'", "Illegal to predicate instruction '«op».param' with operand '«p»'", "Function call sequence invalid: 'ld.param' of '«p»' without corresponding call"],
        "Kernel and function input parameters are read-only, a function's return parameter write-only, call arguments are written before the `call` and its return value read after it, and most `.param` accesses cannot be predicated.",
        "st.param.b32 [kernel_param], %r1;";
    OPERANDS = "E0400", "operands do not fit the instruction",
        ["Arguments mismatch for instruction '«op»'", "Argument vector size mismatch for instruction '«op»'", "Result vector expected", "Argument «k» of instruction '«op»': must be register", "Result register required for instruction '«op»'", "Result discard mode is not allowed for instruction '«op»'", "Label expected for argument «k» of instruction '«op»'", "Special register argument not allowed for instruction '«op»'"],
        "The operand list has the wrong number or kind of operands, or a register that does not fit the type (the relaxed type-checking rules: a `.bN` type takes any register of at least N bits, `.uN`/`.sN` integer registers of at least N bits, `.fN` a float register of N bits or a bit register of at least N bits).",
        "ld.global.b64 %r1, [%rd1];";
    BAD_ADDRESS = "E0401", "bad address operand",
        ["Illegal to use symbol '«r»' of type .«t» as address operand. Use integer or bit only.", "Illegal operand type to instruction '«op»'", "Immediate addresses allowed only for .local state space", "Illegal operand type for address/array-index", "Array indexing on non-array", "Illegal use of attribute '.unified' for instruction '«op»'"],
        "Addresses are integer or bit registers, variables, `var+imm`, or (with `.local` only) immediates.",
        "ld.global.b32 %r1, [%f1];";
    VECTOR_EXPRESSION = "E0402", "bad vector operand",
        ["Illegal expression '«x»'", "Unable to infer type of vector elements (assuming .b8)", "Incompatible elements of vector expression", "Illegal vector size: «n»", "Sink '_' not allowed as a source operand"],
        "A braced vector holds 1, 2, 4 or 8 registers (or immediates) of one width; a store's vector may contain `_` only in the 256-bit forms.",
        "ld.global.v4.b32 {%r1, %rd2, %r3, %r4}, [%rd1];";
    OUT_OF_RANGE = "E0403", "operand value not allowed",
        ["Argument 2 of instruction 'cp.async': unexpected value '«v»', expected to be «values»", "Argument 3 of instruction 'cp.async': value '«v»' out of range, expected to be in range [0..«n»]", "Argument 2 of instruction 'createpolicy.fractional': value '«f»' out of range, expected to be in range (0.000000 .. 1.000000]", "Argument 3 of instruction 'createpolicy.range': value '«p»' must be less than or equal to the value '«t»' of argument 4"],
        "An immediate operand outside its legal values: cp.async copies 4, 8 or 16 bytes (`.cg`: 16) and src-size is at most cp-size; createpolicy's fraction is in (0, 1] and the primary size at most the total size.",
        "cp.async.cg.shared.global [s], [%rd1], 8;";
    UNKNOWN_SYMBOL = "E0404", "unknown symbol",
        ["Unknown symbol '«name»'"],
        "The register or variable is not declared in scope. ptxas reports these at the end of the function.",
        "ld.global.b32 %r99, [%rd1];   (%r<10> declared)";
    PREDICATE_EXPECTED = "E0405", "guard is not a predicate",
        ["Predicate expression expected"],
        "`@x` guards take a `.pred` register.",
        "@%r1 ld.global.b32 %r2, [%rd1];";
    ADDRESS_32BIT = "E0406", "32-bit addressing",
        [" 32-Bit compilation is no longer supported", " 32-Bit ABI (--machine 32 or 32-Bit addressing) is not supported on sm_90 or higher architectures."],
        "With `.address_size 64` a generic or `.global` address in a 32-bit register makes ptxas fall back to 32-bit compilation, which it no longer supports. Use a 64-bit register (`cvt.u64.u32` first).",
        "ld.global.b32 %r1, [%r2];";
    CONST_EXPR = "E0407", "bad constant expression",
        ["Integer constant expression expected", "Constant expression type mismatch", "Constant expression has division by zero"],
        "Address offsets and immediates may be C constant expressions (`[%rd1+4*8]`, `[%rd1+(1<<4)]`); an address offset must come out an integer, integers and floats cannot be mixed in one operator, and division by zero stops the file.",
        "ld.global.b32 %r1, [%rd1+1.5];";
    DUPLICATE_DEFINITION = "E0408", "name defined twice",
        ["Duplicate definition of variable '«name»'", "Duplicate definition of label '«name»'", "Duplicate definition of function '«name»'", "'.extern' variable '«name»' cannot be resolved by a '.static'"],
        "A scope declares the name twice: registers, variables, parameters and labels of one `{ }` block (a function's parameters belong to its outermost block) share one namespace, and a register range `%r<N>` declares `%r0` … `%r«N-1»` (ptxas names a repeated range `'%r<'`). A nested block may redeclare an outer name, and a function may shadow a module variable. A function may be declared any number of times but defined (given a body) once, and not declared again after its definition. An `.extern` variable's definition must be `.visible` (or `.weak`, `.common`).",
        ".reg .b32 %r<4>;  .reg .u32 %r0;";
    INCONSISTENT_PROTOTYPE = "E0409", "declarations of a function disagree",
        ["Inconsistent prototypes of '«f»', number of parameters differ", "Inconsistent prototypes of '«f»', parameter types differ", "Inconsistent prototypes of '«f»', parameter alignment differ", "Inconsistent prototypes of '«f»', parameter state space differ", "Inconsistent redefinition of variable '«name»'", "Inconsistent redefinition of '«f»' as entry and function", "Function definition conflicts with '.extern' declaration for function '«f»'", "Inconsistent redefinition of symbol '«name»'"],
        "A function declared (or defined) again must have the same return and input parameters as its previous declaration (count, then per parameter: type and array size, alignment, state space), be of the same kind (`.entry` or `.func`), be `.extern` in all declarations or none (and an `.extern` function is not defined in the module), and not reuse a module variable's name.",
        ".func f(.param .b32 a);  .func f() { ret; }";
    UNRESOLVED_EXTERN = "E0410", "declared but never defined",
        ["Unresolved extern function '«f»'", "Unresolved extern variable '«name»' in whole program compilation, ignoring extern qualifier", "Unresolved extern variable '«name»'"],
        "ptxas compiles the module as a whole program: a function declared without `.extern`, or an `.extern` one that is called (the system calls `vprintf`, `malloc`, `free` and `__assertfail` excepted), must be defined in the module (a fatal error), an `.extern` variable that is never defined is made a plain definition (a warning), unless it is an unsized array `name[]` (a fatal error; but `.extern .shared … name[]` is the dynamic shared memory). Reported at the end, only if the module has no error.",
        ".func f();   (never defined)";
    PARAM_BOUNDS = "I0001", "access wider than the parameter",
        ["Potential out of bound access while accessing symbol '«p»' of type '«t»' with instruction type '«t2»'."],
        "The instruction's type is wider than the `.param` variable it reads or writes; ptxas only informs.",
        "ld.param.b64 %rd1, [p32];";
    VECTOR_TYPE_ORDER = "W0001", "vector modifier not followed by the type",
        ["Vector Type not specified properly"],
        "ptxas expects the type right after `.v2`/`.v4` (`.v4.b32`); the instruction is still accepted.",
        "ld.global.b32.v4 {%r1, %r2, %r3, %r4}, [%rd1];";
    NARROW_ADDRESS = "W0002", "address register narrower than `.address_size`",
        ["Program uses «n»-bit address on line '«line»' which is conflicting with .address_size 64"],
        "A generic or `.global` address in a 16- or 32-bit register under `.address_size 64`.",
        "ld.global.b32 %r1, [%rs1];";
    IGNORED_DIRECTIVE = "W0003", "header directive without effect",
        [".minnctapersm is ignored when neither .maxntid nor .reqntid is specified."],
        "`.minnctapersm` only takes effect with `.maxntid` or `.reqntid` on the same kernel; ptxas drops it and says so.",
        ".visible .entry k() .minnctapersm 2 { ret; }";
}

/// Looks a code up.
pub fn info(code: &str) -> Option<&'static CodeInfo> {
    CODES.iter().find(|c| c.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_sorted() {
        for w in CODES.windows(2) {
            assert!(w[0].code < w[1].code, "{} then {}", w[0].code, w[1].code);
        }
    }
}
