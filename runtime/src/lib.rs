//! Placeholder, replaced by the host tensor type.
