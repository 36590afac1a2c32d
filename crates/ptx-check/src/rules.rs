//! Validation rules for the cache-control instructions.

use crate::{CheckOptions, Diagnostic};
use ptx_syntax::Module;

/// Every finding of the rules for `module`, in source order.
pub fn check_module(_module: &Module, _options: &CheckOptions) -> Vec<Diagnostic> {
    Vec::new()
}
