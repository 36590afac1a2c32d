//! ptx-isa (placeholder)
