//! The `ironstep` binary.

fn main() {}
