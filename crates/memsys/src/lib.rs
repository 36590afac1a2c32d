//! memsys (placeholder)
