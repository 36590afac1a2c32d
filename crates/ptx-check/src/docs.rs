//! The generated reference pages: `docs/features.md` (from the feature table of `ptx-isa`) and
//! `docs/diagnostics.md` (from [`crate::codes::CODES`]). Tests compare the committed files with
//! these functions' output, so the docs always say what the checker does.
