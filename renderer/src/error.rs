//! The renderer's error type: every failure names what went wrong and, where
//! a person can fix it, how.

use std::path::PathBuf;

/// Everything the renderer can report instead of panicking.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No adapter: the machine has neither a GPU driver nor a software one.
    #[error(
        "no GPU adapter found ({0}); install a Vulkan driver, e.g. the software one: \
         `apt-get install --no-install-recommends mesa-vulkan-drivers`, or try the OpenGL \
         backend with `WGPU_BACKEND=gl`"
    )]
    NoAdapter(String),
    /// The device was lost (driver reset, GPU removed, device destroyed).
    #[error(
        "the GPU device was lost ({0}); everything on it is gone: restart the program \
         (nothing unsaved was written)"
    )]
    DeviceLost(String),
    /// The GPU reported an error outside any call (a validation or
    /// out-of-memory error in submitted work).
    #[error("GPU error: {0}")]
    Gpu(String),
    /// The adapter refused to create a device with the features we need.
    #[error("could not create the GPU device: {0}")]
    Device(String),
    /// The window surface could not be created or configured.
    #[error("window surface: {0}")]
    Surface(String),
    /// A mesh given to the renderer is malformed.
    #[error("mesh `{mesh}`: {reason}")]
    InvalidMesh {
        /// The mesh's label.
        mesh: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A world shape (tile, wedge, ladder, backdrop) is malformed.
    #[error("world shape {shape}: {reason}")]
    InvalidShape {
        /// Which shape, e.g. `wedge 3`.
        shape: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A frame refers to something the renderer does not hold, or breaks a limit.
    #[error("frame: {0}")]
    InvalidFrame(String),
    /// Reading a GPU buffer or texture back failed.
    #[error("GPU readback failed: {0}")]
    Readback(String),
    /// Reading or writing a PNG failed.
    #[error("PNG `{path}`: {reason}")]
    Png {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_adapter_error_says_what_to_install() {
        let msg = RenderError::NoAdapter("no adapters".into()).to_string();
        assert!(msg.contains("mesa-vulkan-drivers"), "{msg}");
        assert!(msg.contains("no adapters"), "{msg}");
        assert!(msg.contains("WGPU_BACKEND=gl"), "{msg}");
    }
}
