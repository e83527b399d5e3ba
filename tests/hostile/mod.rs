//! The hostile-input suite: one case per class of input that once ran forever, ate memory,
//! dropped data silently or lied about its output (issue 18). Each case runs the real
//! `gpufleet` binary under an address-space cap (`RLIMIT_AS`, as `ulimit -v` would: 2 GiB,
//! or `GPUFLEET_HOSTILE_MEM_MIB`) and a wall-clock watchdog, and must end with exit code 0,
//! 1 or 2 and, when it fails, a message naming what is wrong. A panic (101), a signal (an
//! abort on allocation failure, a stack overflow) or the watchdog fails the case.

mod beside;
mod cells;
mod folders;
mod limits;
mod readers;
mod tampered;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The address-space cap of each child, in MiB.
pub fn mem_cap_mib() -> u64 {
    std::env::var("GPUFLEET_HOSTILE_MEM_MIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2048)
}

/// The longest a case may run (generous for a loaded 2-core machine; a case that hangs
/// or loops over a time span in fine steps takes minutes).
const WATCHDOG: Duration = Duration::from_secs(60);

/// How a hostile run ended.
#[derive(Debug)]
pub struct Ended {
    /// Exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Wall time.
    pub secs: f64,
}

impl Ended {
    /// Asserts the run failed with `code` and its message holds every one of `parts`.
    #[track_caller]
    pub fn refused(&self, code: i32, parts: &[&str]) {
        assert_eq!(self.code, code, "exit code; {self:#?}");
        for p in parts {
            assert!(
                self.stderr.contains(p),
                "message lacks {p:?}; stderr:\n{}",
                self.stderr
            );
        }
    }
}

/// A scratch folder for one case.
pub fn scratch() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

/// Writes `text` to `dir/name` and returns the path.
pub fn put(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("writing a test input");
    p
}

/// A file of `bytes` zero bytes (sparse: it costs no disk), the "2 GB file of zeros".
pub fn zeros(dir: &Path, name: &str, bytes: u64) -> PathBuf {
    let p = dir.join(name);
    let f = std::fs::File::create(&p).expect("creating a sparse file");
    f.set_len(bytes).expect("sizing a sparse file");
    p
}

/// Runs `gpufleet args...` in `dir` under the memory cap and the watchdog; panics (fails
/// the test) on a signal, a panic or a hang.
#[track_caller]
pub fn gpufleet(dir: &Path, args: &[&str]) -> Ended {
    let out = dir.join(".stdout");
    let err = dir.join(".stderr");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpufleet"));
    cmd.args(args)
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", "2")
        .env("MALLOC_ARENA_MAX", "2")
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"));
    let cap = mem_cap_mib() << 20;
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(move || {
            let lim = libc::rlimit {
                rlim_cur: cap,
                rlim_max: cap,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let clock = Instant::now();
    let mut child = cmd.spawn().expect("spawning gpufleet");
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for gpufleet") {
            break s;
        }
        if clock.elapsed() > WATCHDOG {
            let _ = child.kill();
            let _ = child.wait();
            panic!("gpufleet {args:?} still running after {WATCHDOG:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let ended = Ended {
        code: status.code().unwrap_or(-1),
        stdout: std::fs::read_to_string(&out).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err).unwrap_or_default(),
        secs: clock.elapsed().as_secs_f64(),
    };
    {
        use std::os::unix::process::ExitStatusExt;
        assert!(
            status.signal().is_none(),
            "gpufleet {args:?} killed by signal {:?} (abort, overflow or the memory cap); {ended:#?}",
            status.signal()
        );
    }
    assert!(
        matches!(ended.code, 0..=2),
        "gpufleet {args:?}: exit code {} (a panic is 101); {ended:#?}",
        ended.code
    );
    assert!(
        !ended.stderr.contains("panicked"),
        "gpufleet {args:?} panicked; {ended:#?}"
    );
    if ended.code != 0 {
        assert!(
            ended.stderr.trim().len() > 10,
            "gpufleet {args:?} failed without a message; {ended:#?}"
        );
    }
    let _ = std::io::stderr().flush();
    ended
}

/// `gpufleet trace inspect FILE --format FORMAT`, run in `dir`.
pub fn inspect(dir: &Path, file: &Path, format: &str) -> Ended {
    gpufleet(
        dir,
        &[
            "trace",
            "inspect",
            file.to_str().unwrap(),
            "--format",
            format,
        ],
    )
}

/// A small cluster: one owned pool of `nodes` 8-GPU H100 nodes.
pub fn pools(nodes: u32) -> String {
    format!(
        r#"[[pools]]
name = "p"
gpu_type = "H100"
kind = "owned"
nodes = {nodes}
gpus_per_node = 8
price_per_node_hour = 12.0
"#
    )
}

/// A scenario: a name, `top` (top-level keys), two nodes and `rest` (the tables).
pub fn scenario(top: &str, rest: &str) -> String {
    format!(
        "name = \"hostile\"\nseed = 1\n{top}\n{}\n{rest}\n",
        pools(2)
    )
}

/// A FIFO at `dir/name` that a thread fills with `text` once, for the first reader to
/// open it (a pipe given as a file: `<(zcat trace.csv.gz)`). A second open finds no
/// writer and waits forever: a command that reads such a file twice hangs.
pub fn fifo(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    let c = std::ffi::CString::new(p.to_str().expect("a UTF-8 path")).expect("no NUL");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let (q, text) = (p.clone(), text.to_string());
    std::thread::spawn(move || {
        if let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&q) {
            let _ = f.write_all(text.as_bytes());
        }
    });
    p
}
