//! Writing a large file around the page cache (`O_DIRECT` on Linux): the device reads the
//! bytes from this process's buffer instead of the kernel copying them into fresh cache
//! pages first.
//!
//! A million-job `jobs.csv` is 176 MB. Written through the page cache, the kernel's copy
//! into newly allocated cache pages cost 0.2 CPU-seconds on this project's virtual machine
//! (7 % of a `gpufleet run`'s samples, at a time when both cores were busy), and `fsync`
//! then waited for the same bytes to reach the disk. Written directly, the copy is the
//! device's (a DMA from a buffer already in memory, 176 MB in 0.11-0.13 s of I/O wait
//! measured with `dd oflag=direct`), so the CPU is free for the run's summary meanwhile.
//!
//! Direct writes need the buffer, the file offset and the length aligned to the device's
//! block; [`DirectFile`] buffers into an aligned block and writes whole blocks, and the
//! last partial block padded, then cuts the file back to its true length. Where the file
//! system refuses direct I/O (tmpfs, some network file systems) or the platform has none,
//! it writes through the page cache as any file, so the bytes are the same everywhere.

use std::fs::File;
use std::io::Write;
use std::path::Path;

/// Alignment of the buffer, offsets and lengths (a page: a multiple of every common
/// device block size).
const ALIGN: usize = 4096;

/// Bytes buffered before a write (a multiple of [`ALIGN`]).
const BUFFER: usize = 4 << 20;

/// A buffer aligned to [`ALIGN`], of [`BUFFER`] bytes.
struct Aligned {
    ptr: std::ptr::NonNull<u8>,
}

// SAFETY: the buffer is owned memory, used by one thread at a time.
unsafe impl Send for Aligned {}

impl Aligned {
    fn layout() -> std::alloc::Layout {
        // BUFFER and ALIGN are nonzero and ALIGN a power of two.
        std::alloc::Layout::from_size_align(BUFFER, ALIGN).expect("valid layout")
    }

    fn new() -> Aligned {
        // SAFETY: a nonzero size.
        let p = unsafe { std::alloc::alloc(Self::layout()) };
        let Some(ptr) = std::ptr::NonNull::new(p) else {
            std::alloc::handle_alloc_error(Self::layout())
        };
        Aligned { ptr }
    }

    fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `ptr` owns BUFFER bytes; u8 has no invalid values, and the bytes are
        // written before they are read (only `..len` is ever read).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), BUFFER) }
    }
}

impl Drop for Aligned {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr(), Self::layout()) };
    }
}

/// A file written directly to the device where it can be (see the module doc), through
/// the page cache where not. Full buffers go to the device on a thread of their own, so
/// the caller fills the next while one is written. Call [`DirectFile::finish`] at the
/// end: dropping it without leaves the last partial block unwritten.
pub struct DirectFile {
    /// The buffer being filled.
    buf: Aligned,
    /// Bytes in `buf`.
    len: usize,
    /// Bytes handed to the writer so far.
    sent: u64,
    /// CRC-32 of the bytes given so far, updated as they are copied into `buf` (while
    /// they are in the cache: on the writer thread they would be read again from another
    /// core's writes).
    crc: crc32fast::Hasher,
    /// Full buffers to the writer (closed at the end).
    to_writer: Option<std::sync::mpsc::SyncSender<Aligned>>,
    /// Written buffers back, to be filled again.
    spare: std::sync::mpsc::Receiver<Aligned>,
    /// The writer: the file when all went well.
    writer: Option<std::thread::JoinHandle<std::io::Result<Sink>>>,
}

/// Buffers in flight besides the one being filled.
const SPARE: usize = 2;

/// The file and how it is written.
struct Sink {
    file: File,
    /// Whether writes still go around the page cache.
    direct: bool,
}

/// Size and CRC-32 (`zlib.crc32`'s) of the bytes a [`DirectFile`] wrote, worked out as
/// they were given to it: a completion manifest takes them instead of reading a file of
/// hundreds of megabytes back from the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSum {
    /// The file's length.
    pub bytes: u64,
    /// CRC-32 of its bytes.
    pub crc32: u32,
}

impl Sink {
    /// Writes `bytes` (whole blocks, or the padded last one) at the file's position.
    fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        if !self.direct {
            return self.file.write_all(bytes);
        }
        match self.file.write_all(bytes) {
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                // Direct I/O refused (at the first write): on through the page cache.
                self.direct = false;
                set_direct(&self.file, false)?;
                self.file.write_all(bytes)
            }
            done => done,
        }
    }
}

impl DirectFile {
    /// Creates (or truncates) `path` for writing.
    pub fn create(path: &Path) -> std::io::Result<DirectFile> {
        let (file, direct) = open(path)?;
        Ok(DirectFile::with(file, direct))
    }

    fn with(file: File, direct: bool) -> DirectFile {
        let (to_writer, full) = std::sync::mpsc::sync_channel::<Aligned>(SPARE);
        let (back, spare) = std::sync::mpsc::channel();
        for _ in 0..SPARE {
            let _ = back.send(Aligned::new());
        }
        let writer = std::thread::spawn(move || {
            let mut sink = Sink { file, direct };
            for mut buf in full {
                sink.put(buf.bytes())?;
                // The filler may be gone (an error on its side): nothing to give back to.
                let _ = back.send(buf);
            }
            Ok(sink)
        });
        DirectFile {
            buf: Aligned::new(),
            len: 0,
            sent: 0,
            crc: crc32fast::Hasher::new(),
            to_writer: Some(to_writer),
            spare,
            writer: Some(writer),
        }
    }

    /// The writer's result once it stopped (after an error, or at the end).
    fn join(&mut self) -> std::io::Result<Sink> {
        self.to_writer = None;
        match self.writer.take().map(|w| w.join()) {
            Some(Ok(done)) => done,
            _ => Err(std::io::Error::other("the file's writer thread failed")),
        }
    }

    /// Hands the full buffer to the writer and takes an empty one.
    fn hand_over(&mut self) -> std::io::Result<()> {
        let spare = match self.spare.recv() {
            Ok(b) => b,
            // The writer stopped: its error.
            Err(_) => return self.join().map(|_| ()),
        };
        let full = std::mem::replace(&mut self.buf, spare);
        let sent = self.to_writer.as_ref().map(|w| w.send(full));
        if !matches!(sent, Some(Ok(()))) {
            return self.join().map(|_| ());
        }
        self.sent += BUFFER as u64;
        self.len = 0;
        Ok(())
    }

    /// Writes what is buffered, the last partial block included (padded with zeros to a
    /// whole block in direct mode, then cut off), and returns the file with its size and
    /// checksum.
    pub fn finish(mut self) -> std::io::Result<(File, FileSum)> {
        let mut sink = self.join()?;
        let len = self.len;
        if len > 0 {
            if sink.direct {
                let padded = len.div_ceil(ALIGN) * ALIGN;
                let bytes = self.buf.bytes();
                bytes[len..padded].fill(0);
                sink.put(&bytes[..padded])?;
            } else {
                sink.put(&self.buf.bytes()[..len])?;
            }
        }
        // The padding goes: the file ends where the bytes do.
        let bytes = self.sent + len as u64;
        sink.file.set_len(bytes)?;
        let crc32 = self.crc.finalize();
        Ok((sink.file, FileSum { bytes, crc32 }))
    }
}

impl Write for DirectFile {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let mut rest = data;
        while !rest.is_empty() {
            let n = rest.len().min(BUFFER - self.len);
            let at = self.len;
            self.buf.bytes()[at..at + n].copy_from_slice(&rest[..n]);
            self.crc.update(&rest[..n]);
            self.len += n;
            rest = &rest[n..];
            if self.len == BUFFER {
                self.hand_over()?;
            }
        }
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        // Only whole buffers can go before the end; `finish` writes the rest.
        Ok(())
    }
}

#[cfg(target_os = "linux")]
fn open(path: &Path) -> std::io::Result<(File, bool)> {
    use std::os::unix::fs::OpenOptionsExt;
    let direct = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_DIRECT)
        .open(path);
    match direct {
        Ok(f) => Ok((f, true)),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Ok((File::create(path)?, false)),
        Err(e) => Err(e),
    }
}

#[cfg(not(target_os = "linux"))]
fn open(path: &Path) -> std::io::Result<(File, bool)> {
    Ok((File::create(path)?, false))
}

#[cfg(target_os = "linux")]
fn set_direct(f: &File, on: bool) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = f.as_raw_fd();
    // SAFETY: `fd` is an open file of `f` for the duration of the calls.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let flags = if on {
        flags | libc::O_DIRECT
    } else {
        flags & !libc::O_DIRECT
    };
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd, libc::F_SETFL, flags) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
fn set_direct(_: &File, _: bool) -> std::io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file holds exactly the bytes written, whatever their sizes and the block
    /// boundaries they cross: against the same bytes written by `std::fs::write`.
    #[test]
    fn the_file_holds_exactly_the_bytes_written() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = 12345u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 33
        };
        for total in [
            0usize,
            1,
            4095,
            4096,
            4097,
            BUFFER - 1,
            BUFFER,
            BUFFER + 1,
            3 * BUFFER + 777,
        ] {
            let mut want = Vec::with_capacity(total);
            let path = dir.path().join(format!("f{total}"));
            // Odd sizes alternate between direct writes and writes through the page
            // cache (the path taken where a file system refuses direct I/O).
            let mut f = if total % 2 == 0 {
                DirectFile::create(&path).unwrap()
            } else {
                DirectFile::with(File::create(&path).unwrap(), false)
            };
            while want.len() < total {
                let n = ((next() % 70_000) as usize).min(total - want.len());
                let chunk: Vec<u8> = (0..n).map(|_| (next() % 251) as u8).collect();
                f.write_all(&chunk).unwrap();
                want.extend_from_slice(&chunk);
            }
            let (file, written) = f.finish().unwrap();
            file.sync_all().unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), want, "{total} bytes");
            // The size and checksum it reports are those of the bytes given, not of the
            // padded blocks that went to the device.
            assert_eq!(written.bytes, total as u64);
            assert_eq!(written.crc32, crc32fast::hash(&want), "{total} bytes");
        }
    }
}
