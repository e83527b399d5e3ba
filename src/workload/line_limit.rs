//! A bound on line length for every reader of user files: no reader holds more than one
//! line (or one JSON object) of at most [`MAX_LINE_BYTES`], so a file of a few gigabytes
//! without a line break (zero bytes, a binary file given by mistake) fails at once, naming
//! the line, instead of being read into memory whole.
//!
//! It also reads Windows line ends (`\r\n`) and classic Mac ones (a lone `\r`) as `\n`:
//! the `csv` crate numbers every record after a `\r\n` one line too low
//! (BurntSushi/rust-csv#395), so errors in a CRLF trace named the line above the bad row;
//! it counts no line at a lone `\r` at all, so every error of a CR-only trace named line
//! 1, the SWF reader read such a file as one line (a comment: "no jobs"), and one of more
//! than 1 MiB was refused as a single overlong line. One inside a quoted field goes too:
//! such a field reads with a Unix line end.

use std::io::{BufRead, Read};
use std::path::Path;

/// The longest line a reader accepts: 1 MiB, far above any real trace row (the widest
/// real rows, Philly's attempt lists, are a few kilobytes).
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The error a [`LineLimit`] reader returns (inside an [`std::io::Error`] of kind
/// `InvalidData`) when a line is longer than its limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "line {line} is longer than {limit} bytes (the limit of a line; not a trace of this format?)"
)]
pub struct LineTooLong {
    /// The line (1-based).
    pub line: u64,
    /// The limit in bytes.
    pub limit: usize,
}

/// A reader that fails once a line is longer than its limit (and keeps failing), counting
/// lines as it goes.
pub struct LineLimit<R> {
    inner: R,
    limit: usize,
    /// Bytes since the last line break.
    run: usize,
    /// Line breaks seen.
    breaks: u64,
    failed: Option<LineTooLong>,
    /// A `\r` ended the last chunk read and was held back: dropped if a `\n` follows.
    cr_held: bool,
    /// A byte read but not yet handed out (a read into a one-byte buffer).
    pending: Option<u8>,
}

impl<R: Read> LineLimit<R> {
    /// `inner` with lines of at most [`MAX_LINE_BYTES`].
    pub fn new(inner: R) -> LineLimit<R> {
        LineLimit::with_limit(inner, MAX_LINE_BYTES)
    }

    /// `inner` with lines of at most `limit` bytes.
    pub fn with_limit(inner: R, limit: usize) -> LineLimit<R> {
        LineLimit {
            inner,
            limit,
            run: 0,
            breaks: 0,
            failed: None,
            cr_held: false,
            pending: None,
        }
    }
}

impl<R: Read> Read for LineLimit<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(e) = self.failed {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e));
        }
        let n = self.read_lf(buf)?;
        let mut start = 0;
        for i in memchr::memchr_iter(b'\n', &buf[..n]) {
            if self.run + (i - start) > self.limit {
                return self.fail(self.breaks);
            }
            self.run = 0;
            self.breaks += 1;
            start = i + 1;
        }
        self.run += n - start;
        if self.run > self.limit {
            return self.fail(self.breaks);
        }
        Ok(n)
    }
}

impl<R: Read> LineLimit<R> {
    /// Reads from `inner` into `buf` with every `\r\n` made `\n` (a `\r` ending a chunk
    /// is held back until the next byte is known); 0 only at the end of input.
    fn read_lf(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(b) = self.pending.take() {
            match buf.first_mut() {
                Some(x) => *x = b,
                None => {
                    self.pending = Some(b);
                    return Ok(0);
                }
            }
            return Ok(1);
        }
        if buf.len() < 2 {
            // Too small to hold a held-back `\r` and what follows it: read two bytes and
            // keep the second for the next call.
            let Some(first) = buf.first_mut() else {
                return Ok(0);
            };
            let mut two = [0u8; 2];
            let n = self.read_lf(&mut two)?;
            if n == 0 {
                return Ok(0);
            }
            *first = two[0];
            if n == 2 {
                self.pending = Some(two[1]);
            }
            return Ok(1);
        }
        loop {
            let held = std::mem::take(&mut self.cr_held);
            let at = usize::from(held);
            let m = self.inner.read(&mut buf[at..])?;
            if held {
                // Before what was read now; the end of input if nothing was.
                buf[0] = b'\r';
            }
            if m == 0 {
                if held {
                    // A lone `\r` ends the input: a line end.
                    buf[0] = b'\n';
                }
                return Ok(at);
            }
            let end = at + m;
            // Drop each `\r` right before a `\n` and make a lone one (not last: that one
            // waits for the next byte) a `\n` (memchr finds the first `\r`; a file without
            // one costs that scan only).
            let mut n = match memchr::memchr(b'\r', &buf[..end]) {
                None => end,
                Some(first) => {
                    let mut w = first;
                    for r in first..end {
                        let mut b = buf[r];
                        if b == b'\r' && r + 1 < end {
                            if buf[r + 1] == b'\n' {
                                continue;
                            }
                            b = b'\n';
                        }
                        buf[w] = b;
                        w += 1;
                    }
                    w
                }
            };
            if buf[n - 1] == b'\r' {
                self.cr_held = true;
                n -= 1;
            }
            if n > 0 {
                return Ok(n);
            }
        }
    }
}

impl<R> LineLimit<R> {
    /// Fails with the line after `breaks` line breaks.
    fn fail(&mut self, breaks: u64) -> std::io::Result<usize> {
        let e = LineTooLong {
            line: breaks + 1,
            limit: self.limit,
        };
        self.failed = Some(e);
        Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }
}

/// The [`LineTooLong`] inside `e`, if that is what it is.
pub fn too_long(e: &std::io::Error) -> Option<LineTooLong> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<LineTooLong>())
        .copied()
}

/// The [`LineTooLong`] inside a CSV error, if that is what it is.
pub fn csv_too_long(e: &csv::Error) -> Option<LineTooLong> {
    match e.kind() {
        csv::ErrorKind::Io(io) => too_long(io),
        _ => None,
    }
}

/// The largest scenario or sweep file read: 16 MiB (the largest shipped is a few KB).
pub const MAX_SCENARIO_BYTES: u64 = 16 << 20;

/// The largest whole-file data file read (failure traces, JSON price files): 256 MiB.
pub const MAX_DATA_FILE_BYTES: u64 = 256 << 20;

/// Why `path`, a data file a scenario names, cannot be read as one: it does not exist, is a
/// folder, or is a pipe, FIFO or device (a run reads its data files again: at validation,
/// and once per run of a sweep or comparison; a FIFO has nothing left for the second read,
/// `/dev/zero` never ends). `None` for a regular file (or a link to one).
pub fn not_a_data_file(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Some(format!("{} does not exist", path.display()))
        }
        Err(e) => Some(format!("{}: {e}", path.display())),
        Ok(m) if m.is_dir() => Some(format!("{} is a folder, not a file", path.display())),
        Ok(m) if !m.is_file() => Some(format!(
            "{} is not a regular file (a pipe, FIFO or device: a scenario's data files are \
             read more than once); copy it to a file",
            path.display()
        )),
        Ok(_) => None,
    }
}

/// Opens `path` as a buffered reader with lines of at most [`MAX_LINE_BYTES`].
pub fn open_limited(path: &Path) -> std::io::Result<std::io::BufReader<LineLimit<std::fs::File>>> {
    let f = std::fs::File::open(path)?;
    Ok(std::io::BufReader::with_capacity(
        1 << 16,
        LineLimit::new(f),
    ))
}

/// Reads a whole text file of at most `max_bytes` (scenario files, small JSON price files):
/// a larger file is an error naming its size and the limit, not a read into memory.
///
/// A command reads its scenario file more than once (to tell its kind, to load it, to
/// underline an error): a pipe, FIFO or device (`gpufleet run <(envsubst < s.toml)`)
/// gives its text to the first read only, so the next one waited for a writer forever or
/// read nothing. Such a file's text is kept, by path, from its first whole read.
pub fn read_small_text(path: &Path, max_bytes: u64) -> std::io::Result<String> {
    // Looked up before opening: opening a FIFO waits for a writer.
    let meta = std::fs::metadata(path)?;
    if meta.is_file() || meta.is_dir() {
        let f = std::fs::File::open(path)?;
        let len = f.metadata()?.len();
        return read_small_from(f, len, max_bytes);
    }
    let kept = |p: &Path| -> Option<String> {
        let m = STREAMS_READ.lock().ok()?;
        m.iter().find(|(q, _)| q == p).map(|(_, t)| t.clone())
    };
    if let Some(t) = kept(path) {
        return check_len(t, max_bytes);
    }
    let text = read_small_from(std::fs::File::open(path)?, 0, max_bytes)?;
    if let Ok(mut m) = STREAMS_READ.lock() {
        m.push((path.to_path_buf(), text.clone()));
    }
    Ok(text)
}

/// The text of each pipe, FIFO or device read whole, by path (see [`read_small_text`]):
/// a few files of at most [`MAX_DATA_FILE_BYTES`] each.
static STREAMS_READ: std::sync::Mutex<Vec<(std::path::PathBuf, String)>> =
    std::sync::Mutex::new(Vec::new());

/// `text` if it is within `max_bytes`.
fn check_len(text: String, max_bytes: u64) -> std::io::Result<String> {
    if text.len() as u64 > max_bytes {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("more than the {max_bytes} bytes such a file may have"),
        ));
    }
    Ok(text)
}

/// Reads the open file `f` of `len` bytes (0: unknown) whole, up to `max_bytes`.
fn read_small_from(f: std::fs::File, len: u64, max_bytes: u64) -> std::io::Result<String> {
    if len > max_bytes {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{len} bytes, more than the {max_bytes} bytes such a file may have"),
        ));
    }
    // Read in fixed chunks up to the limit: a file that grows while it is read, or a
    // device with no length (`/dev/zero`), still stops at the limit, in a few thousand
    // reads (`read_to_string` through `take` probed such a device a few bytes at a time:
    // 16 MiB took 3 million reads and 10 s).
    let mut f = f;
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match f.read(&mut chunk) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n == 0 {
            break;
        }
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > max_bytes {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("more than the {max_bytes} bytes such a file may have"),
            ));
        }
    }
    String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        )
    })
}

/// Reads lines of at most [`MAX_LINE_BYTES`] from `input` into `buf` (cleared first),
/// without the limit ever being exceeded in memory; `Ok(false)` at the end of input.
pub fn read_line_limited<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
    line: u64,
) -> std::io::Result<bool> {
    buf.clear();
    loop {
        let avail = match input.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if avail.is_empty() {
            return Ok(!buf.is_empty());
        }
        let (take, done) = match memchr::memchr(b'\n', avail) {
            Some(i) => (i + 1, true),
            None => (avail.len(), false),
        };
        if buf.len() + take > MAX_LINE_BYTES + 1 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                LineTooLong {
                    line,
                    limit: MAX_LINE_BYTES,
                },
            ));
        }
        buf.extend_from_slice(&avail[..take]);
        input.consume(take);
        if done {
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(data: &[u8], limit: usize, chunk: usize) -> Result<Vec<u8>, LineTooLong> {
        // A reader that hands out `chunk` bytes at a time, to cross chunk boundaries.
        struct Chunks<'a>(&'a [u8], usize);
        impl Read for Chunks<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.1.min(buf.len()).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut r = LineLimit::with_limit(Chunks(data, chunk), limit);
        let mut out = Vec::new();
        r.read_to_end(&mut out)
            .map(|_| out)
            .map_err(|e| too_long(&e).expect("a LineTooLong error"))
    }

    #[test]
    fn windows_line_ends_read_as_unix_ones_whatever_the_chunking() {
        // A CR right before an LF goes; a lone CR (in the middle, the first of two, at
        // the end) is a line end too.
        let data = b"a,b\r\nc\rd\r\r\n\r\ne\r";
        let want = b"a,b\nc\nd\n\n\ne\n";
        for chunk in 1..20 {
            assert_eq!(read_all(data, 100, chunk).unwrap(), want, "chunk {chunk}");
        }
        // Read into one-byte buffers (a held CR was handed out as it was).
        let mut r = LineLimit::with_limit(&data[..], 100);
        let mut out = Vec::new();
        let mut one = [0u8; 1];
        while r.read(&mut one).unwrap() == 1 {
            out.push(one[0]);
        }
        assert_eq!(out, want);
        // Line lengths are those of the lines read (line 2 is 6 bytes without its CR).
        let e = read_all(b"ab\r\ncdefgh\r\n", 5, 3).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(read_all(b"ab\r\ncdefg\r\n", 5, 3).is_ok());
    }

    #[test]
    fn lines_up_to_the_limit_pass() {
        let data = b"abcd\nefgh\n\nijkl";
        for chunk in 1..8 {
            assert_eq!(read_all(data, 4, chunk).unwrap(), data);
        }
    }

    #[test]
    fn a_long_line_is_named_by_number_whatever_the_chunking() {
        // Line 3 has 6 bytes, over a limit of 5.
        let data = b"ab\ncde\nfghijk\nlm\n";
        for chunk in 1..20 {
            let e = read_all(data, 5, chunk).unwrap_err();
            assert_eq!(e.line, 3, "chunk {chunk}");
        }
        // Without any line break.
        let zeros = vec![0u8; 100];
        assert_eq!(read_all(&zeros, 10, 7).unwrap_err().line, 1);
    }

    #[test]
    fn read_line_limited_stops_at_the_limit() {
        let mut data = b"short\n".to_vec();
        data.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        let mut r = std::io::BufReader::new(data.as_slice());
        let mut buf = Vec::new();
        assert!(read_line_limited(&mut r, &mut buf, 1).unwrap());
        assert_eq!(buf, b"short\n");
        let e = read_line_limited(&mut r, &mut buf, 2).unwrap_err();
        assert_eq!(too_long(&e).unwrap().line, 2);
        assert!(buf.len() <= MAX_LINE_BYTES + 1);
    }
}
