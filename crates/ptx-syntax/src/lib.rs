//! ptx-syntax (placeholder)
