//! Helpers shared by the end-to-end tests in this folder.
