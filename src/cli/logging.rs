//! Log output on stderr through `tracing`: warnings by default, more with `-v` (info),
//! `-vv` (debug), `-vvv` (trace), errors only with `-q`; `RUST_LOG` (an env-filter
//! directive such as `gpufleet=debug`) overrides the flags.

use tracing_subscriber::EnvFilter;

/// The filter directive for `-v` given `verbose` times, or `-q`.
pub fn level(verbose: u8, quiet: bool) -> &'static str {
    match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        _ => "trace",
    }
}

/// Installs the stderr logger (once; a second call keeps the first).
pub fn init(verbose: u8, quiet: bool) {
    let filter = match std::env::var("RUST_LOG") {
        Ok(v) if !v.trim().is_empty() => {
            EnvFilter::try_new(v).unwrap_or_else(|_| EnvFilter::new(level(verbose, quiet)))
        }
        _ => EnvFilter::new(level(verbose, quiet)),
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .without_time()
        .with_ansi(false)
        .try_init();
}

#[cfg(test)]
mod tests {
    #[test]
    fn flags_map_to_levels() {
        assert_eq!(super::level(0, false), "warn");
        assert_eq!(super::level(1, false), "info");
        assert_eq!(super::level(2, false), "debug");
        assert_eq!(super::level(5, false), "trace");
        assert_eq!(super::level(3, true), "error");
    }
}
