//! The `gpufleet` binary: parses the command line and hands over to the library.

use clap::Parser;

fn main() {
    let cli = gpufleet::cli::Cli::parse();
    if let Err(e) = gpufleet::cli::main_with(cli) {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
}
