//! The `gpufleet` binary: parses the command line and hands over to the library.

use clap::Parser;

fn main() {
    // Die quietly when the reader of our output goes away (`gpufleet run | head`), as
    // Unix tools do, instead of panicking on a failed write to a closed pipe.
    #[cfg(unix)]
    // SAFETY: restoring the default action of SIGPIPE before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = gpufleet::cli::Cli::parse();
    if let Err(e) = gpufleet::cli::main_with(cli) {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}
