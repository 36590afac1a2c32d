//! The directives between a function's signature and its body (PTX ISA "Performance-Tuning
//! Directives" and the cluster and ABI directives), as one enum: [`TuningDirective`]. The
//! validator matches on it (its version and target gates, `.maxnctapersm`'s removal).

use crate::token_enum;

token_enum! {
    /// A function header directive (`.maxntid 128, 1, 1`, `.noreturn`, …); `.pragma` is
    /// not among them (the parser keeps its strings).
    pub enum TuningDirective {
        Maxnreg = ".maxnreg", Maxntid = ".maxntid", Reqntid = ".reqntid",
        Minnctapersm = ".minnctapersm", Maxnctapersm = ".maxnctapersm", Noreturn = ".noreturn",
        Reqnctapercluster = ".reqnctapercluster", Explicitcluster = ".explicitcluster",
        Maxclusterrank = ".maxclusterrank", Blocksareclusters = ".blocksareclusters",
        AbiPreserve = ".abi_preserve", AbiPreserveControl = ".abi_preserve_control",
    }
}
