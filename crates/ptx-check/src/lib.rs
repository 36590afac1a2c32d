//! ptx-check (placeholder)
