//! ptx-exec (placeholder)
