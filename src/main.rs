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
    // A failed write to stdout other than a closed pipe (a full disk, `> /dev/full`) is the
    // environment's failure: exit 1 with a message, where `println!` panicked (101).
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let p = info.payload();
        let msg = p
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| p.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if let Some(why) = msg.strip_prefix("failed printing to stdout: ") {
            eprintln!("error: writing to stdout: {why}");
            std::process::exit(1);
        }
        default_hook(info)
    }));
    let cli = gpufleet::cli::Cli::parse();
    if let Err(e) = gpufleet::cli::main_with(cli) {
        eprintln!("error: {e}");
        std::process::exit(e.exit_code());
    }
    // Output still buffered (`print!` without a newline) is written now, or said lost.
    if let Err(e) = std::io::Write::flush(&mut std::io::stdout()) {
        eprintln!("error: writing to stdout: {e}");
        std::process::exit(1);
    }
}
