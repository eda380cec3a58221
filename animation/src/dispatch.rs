//! Hot kernels built twice, for AVX2 and for the target's baseline, with a
//! dispatcher that calls the AVX2 build where the processor has it.
//!
//! The pose jobs are short runs of 4-wide float arithmetic (quaternions and
//! matrix columns). Built for the x86-64 baseline (SSE2), each operation
//! takes two operands, one of which it overwrites, so the compiler copies
//! registers before most of them, and a scalar it multiplies a vector by
//! is loaded and then broadcast in two steps. Built with AVX2 the same
//! operations take three operands and broadcast straight from memory:
//! about a quarter fewer instructions for the same work (measured with
//! Callgrind on `tests/cost`, see BENCHMARKS.md). Both builds run the same
//! IEEE operations in the same order (no fused multiply-add, which Rust
//! never introduces on its own), so they give the same bits; each kernel's
//! tests compare the two.

/// Defines `$vis fn $name` (with its attributes and documentation) whose
/// body is compiled twice: as `$kernel`, an always-inlined function built
/// for the target's baseline, and inside a private AVX2 build; `$name` calls
/// the AVX2 build when the processor has AVX2 (one cached flag test per
/// call) and `$kernel` otherwise. Tests call `$kernel` to compare the
/// baseline build with the dispatched one. Arguments are plain identifiers
/// (no patterns) so that they can be passed on.
macro_rules! avx2_builds {
    (
        kernel = $kernel:ident;
        $(#[$meta:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block
    ) => {
        #[doc = concat!("The body of [`", stringify!($name), "`], inlined into each of its builds.")]
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        pub(crate) fn $kernel($($arg: $ty),*) $(-> $ret)? $body

        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            {
                /// The kernel built for processors with AVX2.
                #[target_feature(enable = "avx2")]
                fn avx2($($arg: $ty),*) $(-> $ret)? {
                    $kernel($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the processor has AVX2 (checked just above),
                    // the only requirement of this `target_feature`
                    // function.
                    return unsafe { avx2($($arg),*) };
                }
            }
            $kernel($($arg),*)
        }
    };
}
