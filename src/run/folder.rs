//! Output folders that tell the truth: a run writes into a fresh temporary folder beside
//! its target and, once every file is complete, swaps it into place in one rename
//! (`renameat2(RENAME_EXCHANGE)` on Linux, so the target is at every instant either the
//! old run or the new one, never a mix). The old run is then removed. A failed or killed
//! write leaves only the hidden temporary folder, which the next run into the same target
//! removes. Its last file is the completion manifest `complete.json` (checksums of the
//! data files), which `gpufleet plot` checks.
//!
//! The target must be absent, empty, or look like an output folder: only files with the
//! extensions gpufleet writes (`.csv`, `.json`, `.svg`, `.png`, `.parquet`, leftovers
//! ending in `.tmp`), no subfolders, not a symbolic link. Anything else is refused (bad
//! input) rather than replaced. A target without `complete.json` (an older gpufleet's
//! folder) is replaced only if the new folder holds every file it holds: a file the new
//! run would not write back (the user's own, or one of an older version) is refused, not
//! deleted, once the new folder is complete.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why an output folder cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// The target is not something a run may replace (bad input).
    #[error("{}: {reason}", path.display())]
    Target {
        /// The target.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The file system failed (the environment).
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Extensions of the files a run folder may hold.
const OUTPUT_EXTENSIONS: [&str; 6] = ["csv", "json", "svg", "png", "parquet", "tmp"];

/// Temporary folders made by this process so far (names stay unique across threads).
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A run folder being written: files go into [`FreshFolder::path`]; [`FreshFolder::commit`]
/// puts it in place of the target. Dropped without a commit, it is removed.
#[derive(Debug)]
pub struct FreshFolder {
    target: PathBuf,
    tmp: PathBuf,
    done: bool,
    /// Files whose size and checksum their writer worked out (for the manifest).
    known: Vec<(String, crate::report::FileSum)>,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FolderError + '_ {
    move |source| FolderError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// The hidden prefix of temporary folders for `name`.
fn tmp_prefix(name: &str) -> String {
    format!(".{name}.gpufleet-")
}

impl FreshFolder {
    /// Checks `target` and makes a fresh temporary folder beside it.
    pub fn begin(target: &Path) -> Result<FreshFolder, FolderError> {
        check_target(target)?;
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .ok_or_else(|| FolderError::Target {
                path: target.to_path_buf(),
                reason: "not a folder name".into(),
            })?;
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(io(&parent))?;
        remove_stale(&parent, &name);
        let tmp = parent.join(format!(
            "{}{}-{}.tmp",
            tmp_prefix(&name),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&tmp).map_err(io(&tmp))?;
        Ok(FreshFolder {
            target: target.to_path_buf(),
            tmp,
            done: false,
            known: Vec::new(),
        })
    }

    /// Where the files are written until the commit.
    pub fn path(&self) -> &Path {
        &self.tmp
    }

    /// Tells the manifest the size and checksum of `name`, a file of this folder, as its
    /// writer worked them out (so it is not read back at the commit).
    pub fn note_sum(&mut self, name: &str, sum: crate::report::FileSum) {
        self.known.push((name.to_string(), sum));
    }

    /// Puts the written folder in place of the target (the old one, if any, removed),
    /// its completion manifest ([`crate::report::write_complete_known`]) written last.
    pub fn commit(mut self) -> Result<(), FolderError> {
        crate::report::write_complete_known(&self.tmp, &self.known).map_err(io(&self.tmp))?;
        self.check_unmanifested_target()?;
        let parent = self.tmp.parent().map(Path::to_path_buf).unwrap_or_default();
        match std::fs::symlink_metadata(&self.target) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                std::fs::rename(&self.tmp, &self.target).map_err(io(&self.target))?;
            }
            Err(e) => return Err(io(&self.target)(e)),
            Ok(_) => {
                if exchange(&self.tmp, &self.target).is_err() {
                    // No atomic exchange here: move the old run aside, then the new one in.
                    let old = self.tmp.with_extension("old");
                    std::fs::rename(&self.target, &old).map_err(io(&self.target))?;
                    std::fs::rename(&self.tmp, &self.target).map_err(io(&self.target))?;
                    let _ = std::fs::remove_dir_all(&old);
                } else {
                    // `tmp` now holds the old run.
                    let _ = std::fs::remove_dir_all(&self.tmp);
                }
            }
        }
        self.done = true;
        if let Ok(d) = std::fs::File::open(&parent) {
            let _ = d.sync_all();
        }
        Ok(())
    }
}

impl FreshFolder {
    /// Refuses to replace a target without a completion manifest (an older gpufleet's
    /// folder, or a tampered one) that holds an entry the new folder does not: a file the
    /// user added by hand (`notes.csv` beside an old `summary.json`) was deleted with
    /// exit 0. With a manifest, [`check_target`] already refused files it does not list.
    /// Checked once the new folder is complete, since only then is its list of files
    /// known; the new folder is then removed (the target untouched).
    fn check_unmanifested_target(&self) -> Result<(), FolderError> {
        if crate::report::complete_names(&self.target).is_some() {
            return Ok(());
        }
        let Ok(entries) = std::fs::read_dir(&self.target) else {
            return Ok(());
        };
        let mut foreign: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".tmp") && !self.tmp.join(n).exists())
            .collect();
        if foreign.is_empty() {
            return Ok(());
        }
        foreign.sort();
        let n = foreign.len();
        foreign.truncate(3);
        Err(FolderError::Target {
            path: self.target.clone(),
            reason: format!(
                "has no {} (an older gpufleet's folder, or not gpufleet's) and holds {} that this run does not write ({}{}): replacing the folder would delete {}; move {} out, or choose another output folder",
                crate::report::COMPLETE,
                if n == 1 { "an entry".to_string() } else { format!("{n} entries") },
                foreign.join(", "),
                if n > 3 { ", ..." } else { "" },
                if n == 1 { "it" } else { "them" },
                if n == 1 { "it" } else { "them" },
            ),
        })
    }
}

impl Drop for FreshFolder {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.tmp);
        }
    }
}

/// Subfolders a sweep or plan writes into its output folder before its manifest: run
/// records, kept job tables, Slurm scripts and logs, and the shards of a Slurm sweep.
const WORK_FOLDERS: [&str; 4] = ["runs", "jobs", "slurm", "shards"];

/// Checks that `target` may take a sweep's or a plan's output, which is written in place
/// (its runs are resumed there): absent, empty (hidden files aside), holding `manifest`
/// (`sweep.json`, `plan.json`), or, before the manifest is written, only the subfolders
/// they work in ([`WORK_FOLDERS`]). Other files with no manifest are refused as bad input:
/// the user's `plan.md` or `points.csv` was overwritten (and a plan's `runs/` removed)
/// with exit 0.
pub fn check_reusable(target: &Path, manifest: &str) -> Result<(), FolderError> {
    if let Some(reason) = wrong_folder(target) {
        // A plan into a file was "afile/runs: Not a directory", exit 1 (the environment).
        return Err(FolderError::Target {
            path: target.to_path_buf(),
            reason,
        });
    }
    let Ok(entries) = std::fs::read_dir(target) else {
        // Absent (made later), or not a folder (the callers' own checks say so).
        return Ok(());
    };
    let mut foreign = None;
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name == manifest {
            return Ok(());
        }
        let work = WORK_FOLDERS.contains(&name.as_str()) && e.path().is_dir();
        if !name.starts_with('.') && !work && foreign.is_none() {
            foreign = Some(name);
        }
    }
    match foreign {
        None => Ok(()),
        Some(name) => Err(FolderError::Target {
            path: target.to_path_buf(),
            reason: format!(
                "holds {name:?} but no {manifest}: not an output folder gpufleet wrote, and its files would be overwritten; give a new or empty folder"
            ),
        }),
    }
}

/// Swaps `a` and `b` atomically (Linux `renameat2` with `RENAME_EXCHANGE`).
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let ca = CString::new(a.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    let cb = CString::new(b.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    // SAFETY: both paths are valid NUL-terminated strings that outlive the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// No atomic exchange on this system.
#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> std::io::Result<()> {
    Err(std::io::Error::from(std::io::ErrorKind::Unsupported))
}

/// The first folder of `path` (above it) that is not a folder, if any: `notes.txt/run` (or
/// `/dev/null/run`) given as an output folder is a wrong path (bad input), not a failing
/// file system.
pub fn file_in_path(path: &Path) -> Option<&Path> {
    path.ancestors()
        .skip(1)
        .find(|a| std::fs::metadata(a).is_ok_and(|m| !m.is_dir()))
}

/// What is wrong with an output folder `path` that has a file among its folders.
pub fn not_a_folder(path: &Path) -> String {
    let at = file_in_path(path).unwrap_or(path);
    let what = if at.is_file() {
        "a file, not a folder"
    } else {
        "not a folder"
    };
    format!("{} is {what}: choose another output folder", at.display())
}

/// Why `target` cannot be an output folder whatever it holds: it exists and is not a
/// folder (a file, `/dev/null`), or one of its folders is not one. `None` otherwise.
pub fn wrong_folder(target: &Path) -> Option<String> {
    if std::fs::metadata(target).is_ok_and(|m| !m.is_dir()) {
        return Some("exists and is not a folder: choose another output folder".into());
    }
    file_in_path(target).map(|_| not_a_folder(target))
}

fn check_target(target: &Path) -> Result<(), FolderError> {
    let bad = |reason: String| FolderError::Target {
        path: target.to_path_buf(),
        reason,
    };
    let meta = match std::fs::symlink_metadata(target) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        // A file where a folder of the path should be (`--out notes.txt/run`): the path
        // given is wrong, not the file system.
        Err(_) if file_in_path(target).is_some() => {
            return Err(bad(not_a_folder(target)));
        }
        Err(e) => return Err(io(target)(e)),
        Ok(m) => m,
    };
    if meta.file_type().is_symlink() {
        return Err(bad(
            "is a symbolic link: give the folder it points to as the output folder".into(),
        ));
    }
    if !meta.is_dir() {
        return Err(bad(
            "exists and is not a folder: choose another output folder".into(),
        ));
    }
    let mut foreign = Vec::new();
    for entry in std::fs::read_dir(target).map_err(io(target))? {
        let entry = entry.map_err(io(target))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        let ext = Path::new(&name)
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !is_file || !OUTPUT_EXTENSIONS.contains(&ext.as_str()) {
            foreign.push(name);
        }
    }
    if foreign.is_empty() {
        foreign = not_written_here(target)?;
    }
    if foreign.is_empty() {
        return Ok(());
    }
    foreign.sort();
    let n = foreign.len();
    foreign.truncate(3);
    Err(bad(format!(
        "holds {} that a run does not write ({}{}): a run replaces its whole folder, so choose another output folder or empty this one",
        if n == 1 { "an entry".to_string() } else { format!("{n} entries") },
        foreign.join(", "),
        if n > 3 { ", ..." } else { "" }
    )))
}

/// Files of output folders that name the command which wrote them, for a folder without a
/// completion manifest (an older gpufleet's): a run's, a comparison's, a TCO's.
const MAIN_FILES: [&str; 3] = ["summary.json", "compare.json", "tco.csv"];

/// The data files of `target` that no gpufleet command wrote there, which replacing the
/// folder would delete: with a completion manifest, those it does not list; without one,
/// all of them unless the folder holds a command's main file ([`MAIN_FILES`]). A folder
/// holding only the trace a run reads (`--out traces` with `traces/t.csv`) was replaced,
/// the trace deleted, exit 0.
fn not_written_here(target: &Path) -> Result<Vec<String>, FolderError> {
    let mut data = Vec::new();
    for entry in std::fs::read_dir(target).map_err(io(target))? {
        let name = entry.map_err(io(target))?.file_name();
        let name = name.to_string_lossy().into_owned();
        if crate::report::is_data_file(&name) {
            data.push(name);
        }
    }
    Ok(match crate::report::complete_names(target) {
        Some(listed) => data.into_iter().filter(|n| !listed.contains(n)).collect(),
        None if data.iter().any(|n| MAIN_FILES.contains(&n.as_str())) => Vec::new(),
        None => data,
    })
}

/// Removes temporary folders for `name` in `parent` left by processes no longer running.
fn remove_stale(parent: &Path, name: &str) {
    let prefix = tmp_prefix(name);
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = file.strip_prefix(&prefix) else {
            continue;
        };
        let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|p| !alive(p)) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// True when process `pid` is running (or cannot be told).
#[cfg(unix)]
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    // SAFETY: signal 0 only checks that the process exists.
    let r = unsafe { libc::kill(pid as libc::pid_t, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

/// True when process `pid` is running (or cannot be told).
#[cfg(not(unix))]
fn alive(_: u32) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rerun_replaces_the_whole_folder() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("out");
        let f = FreshFolder::begin(&target).unwrap();
        std::fs::write(f.path().join("a.csv"), "old").unwrap();
        std::fs::write(f.path().join("b.csv"), "old").unwrap();
        f.commit().unwrap();
        let f = FreshFolder::begin(&target).unwrap();
        std::fs::write(f.path().join("a.csv"), "new").unwrap();
        // Before the commit the target is still the old run.
        assert_eq!(
            std::fs::read_to_string(target.join("a.csv")).unwrap(),
            "old"
        );
        f.commit().unwrap();
        assert_eq!(
            std::fs::read_to_string(target.join("a.csv")).unwrap(),
            "new"
        );
        assert!(
            !target.join("b.csv").exists(),
            "no file of the old run is left"
        );
        let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "only the output folder remains");
    }

    #[test]
    fn a_failed_write_leaves_nothing_behind() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("out");
        {
            let f = FreshFolder::begin(&target).unwrap();
            std::fs::write(f.path().join("a.csv"), "half").unwrap();
        }
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }

    #[test]
    fn foreign_targets_are_refused() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("f");
        std::fs::write(&file, "x").unwrap();
        assert!(matches!(
            FreshFolder::begin(&file),
            Err(FolderError::Target { .. })
        ));
        let home = d.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::fs::write(home.join("notes.md"), "mine").unwrap();
        let e = FreshFolder::begin(&home).unwrap_err().to_string();
        assert!(e.contains("notes.md"), "{e}");
        assert!(home.join("notes.md").exists());
    }

    #[test]
    fn stale_temporary_folders_of_dead_processes_go() {
        let d = tempfile::tempdir().unwrap();
        // pid 0x7fff_fff0 is beyond any pid_max: not running.
        let stale = d.path().join(".out.gpufleet-2147483632-0.tmp");
        std::fs::create_dir(&stale).unwrap();
        let f = FreshFolder::begin(&d.path().join("out")).unwrap();
        assert!(!stale.exists());
        f.commit().unwrap();
    }
}
