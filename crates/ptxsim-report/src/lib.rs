//! ptxsim-report (placeholder)
