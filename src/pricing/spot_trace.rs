//! Spot availability traces: the `date,availability` CSV (1 = a spot node could be had)
//! and the GCP probe CSV (16 requested, n created), read into one per-tick form.
//! No text cell is kept: dates and counts are parsed (a control character in one fails
//! the parse, naming row and column), and a probe row's zone is only compared with the
//! scenario's zone (a row of another zone, control characters or not, is skipped), so
//! neither reader checks for control characters.

use crate::engine::SimTime;
use std::path::Path;

/// A spot trace that could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpotTraceError {
    /// The file could not be opened or read.
    #[error("{file}: cannot read: {message}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        message: String,
    },
    /// A row is wrong.
    #[error("{file}: line {line}, field {field}: {message}")]
    Row {
        /// The file.
        file: String,
        /// 1-based line.
        line: usize,
        /// The field.
        field: String,
        /// What is wrong.
        message: String,
    },
}

/// Availability per tick: `available[k]` is the share of requested spot capacity that could
/// be had at tick `k` (0 or 1 in the AWS traces, `created / requested` in the GCP probes).
#[derive(Debug, Clone, PartialEq)]
pub struct AvailabilityTrace {
    /// Seconds since the Unix epoch of each tick (UTC).
    pub epoch_s: Vec<i64>,
    /// Available share per tick, 0..=1.
    pub available: Vec<f64>,
}

impl AvailabilityTrace {
    /// Ticks in the trace.
    pub fn len(&self) -> usize {
        self.available.len()
    }

    /// True if there are no ticks.
    pub fn is_empty(&self) -> bool {
        self.available.is_empty()
    }

    /// The mean available share over ticks (each tick weighs the same).
    pub fn available_fraction(&self) -> f64 {
        if self.available.is_empty() {
            return 0.0;
        }
        self.available.iter().sum::<f64>() / self.available.len() as f64
    }

    /// The typical tick: (last - first) / (ticks - 1), at least 1 s.
    pub fn tick(&self) -> SimTime {
        let n = self.epoch_s.len();
        if n < 2 {
            return SimTime::from_secs(1);
        }
        let span = (self.epoch_s[n - 1] - self.epoch_s[0]).max(1) as f64;
        SimTime::from_secs_f64((span / (n - 1) as f64).max(1.0))
    }

    /// Whether a whole node can be had at tick `k` (the share is 1 for the AWS traces; for
    /// probes, at least one of the requested instances launched).
    pub fn up(&self, k: usize) -> bool {
        self.available.get(k).is_some_and(|&a| a > 0.0)
    }

    /// Stock-out check: can capacity be had at `t` (ticks from the first row, held)?
    pub fn can_launch(&self, t: SimTime) -> bool {
        let k = (t.0 / self.tick().0.max(1)) as usize;
        self.up(k.min(self.len().saturating_sub(1)))
    }
}

/// A spot trace's time ([`crate::engine::parse_datetime`]: `YYYY-MM-DD HH:MM:SS`, a `T`
/// for the space, a fraction of a second, a zone `Z` or `±HH:MM`) as Unix seconds (UTC; a
/// time without a zone is taken as UTC), the fraction dropped.
fn unix_secs(text: &str) -> Option<i64> {
    crate::engine::parse_datetime(text).map(|t| t.utc_ms().div_euclid(1000))
}

/// The largest spot trace or price file read (256 MiB; the shipped ones are a few MB):
/// the readers hold a row, or a JSON file, in memory, so the file's size bounds them.
pub const MAX_SPOT_FILE_BYTES: u64 = 256 << 20;

/// Refuses a spot data file larger than [`MAX_SPOT_FILE_BYTES`], or that is not a regular
/// file: a device or FIFO has no size to check (`/dev/zero` was read as one endless row
/// until the memory ran out), a folder no rows.
pub(crate) fn check_size(path: &Path) -> Result<(), SpotTraceError> {
    let meta = std::fs::metadata(path).map_err(|e| SpotTraceError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    })?;
    if !meta.is_file() {
        return Err(SpotTraceError::Io {
            file: path.display().to_string(),
            message: if meta.is_dir() {
                "a folder, not a file".into()
            } else {
                "not a regular file (a pipe, FIFO or device has no size to check); copy it to a file"
                    .into()
            },
        });
    }
    let len = meta.len();
    if len > MAX_SPOT_FILE_BYTES {
        return Err(SpotTraceError::Io {
            file: path.display().to_string(),
            message: format!(
                "{len} bytes, more than the {MAX_SPOT_FILE_BYTES} a spot file may have"
            ),
        });
    }
    Ok(())
}

/// The longest line of a spot CSV: 1 MiB (the shipped ones' are under 100 bytes).
pub const MAX_SPOT_LINE_BYTES: u64 = 1 << 20;

/// A spot data file as read: at most [`MAX_SPOT_FILE_BYTES`] in all and, for a CSV, lines
/// of at most [`MAX_SPOT_LINE_BYTES`]. A device or FIFO has no length for [`check_size`] to
/// refuse it by: `/dev/zero` as a trace was read into one endless record until the
/// allocator aborted.
pub(crate) struct Capped<R> {
    inner: R,
    left: u64,
    line: u64,
    max_line: Option<u64>,
}

impl<R: std::io::Read> std::io::Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let too_much = |what: String| std::io::Error::new(std::io::ErrorKind::InvalidData, what);
        if self.left == 0 {
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(too_much(format!(
                    "more than the {MAX_SPOT_FILE_BYTES} bytes a spot file may have"
                ))),
            };
        }
        let n = buf.len().min(self.left.min(1 << 16) as usize);
        let got = self.inner.read(&mut buf[..n])?;
        self.left -= got as u64;
        if let Some(max) = self.max_line {
            for &b in &buf[..got] {
                self.line = if b == b'\n' { 0 } else { self.line + 1 };
                if self.line > max {
                    return Err(too_much(format!(
                        "a line longer than {max} bytes, the most a spot CSV line may have"
                    )));
                }
            }
        }
        Ok(got)
    }
}

/// Opens a spot data file for reading within the limits ([`Capped`]); `csv` adds the
/// line limit.
pub(crate) fn open_capped(path: &Path, csv: bool) -> Result<Capped<std::fs::File>, SpotTraceError> {
    check_size(path)?;
    let f = std::fs::File::open(path).map_err(|e| SpotTraceError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    })?;
    Ok(Capped {
        inner: f,
        left: MAX_SPOT_FILE_BYTES,
        line: 0,
        max_line: csv.then_some(MAX_SPOT_LINE_BYTES),
    })
}

type SpotCsv = csv::Reader<Capped<std::fs::File>>;

fn open(path: &Path) -> Result<SpotCsv, SpotTraceError> {
    Ok(csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(open_capped(path, true)?))
}

fn header_index(rdr: &mut SpotCsv, path: &Path, name: &str) -> Result<usize, SpotTraceError> {
    let file = path.display().to_string();
    let h = rdr.headers().map_err(|e| SpotTraceError::Io {
        file: file.clone(),
        message: e.to_string(),
    })?;
    h.iter().position(|c| c == name).ok_or(SpotTraceError::Row {
        file,
        line: 1,
        field: name.into(),
        message: format!("missing column {name:?}"),
    })
}

/// Reads a `date,availability` CSV (1 = available, 0 = not); rows must be in time order.
pub fn read_availability_csv(path: &Path) -> Result<AvailabilityTrace, SpotTraceError> {
    let file = path.display().to_string();
    let mut rdr = open(path)?;
    let di = header_index(&mut rdr, path, "date")?;
    let ai = header_index(&mut rdr, path, "availability")?;
    let mut t = AvailabilityTrace {
        epoch_s: Vec::new(),
        available: Vec::new(),
    };
    for (i, rec) in rdr.records().enumerate() {
        let line = i + 2;
        let err = |field: &str, message: String| SpotTraceError::Row {
            file: file.clone(),
            line,
            field: field.into(),
            message,
        };
        let rec = rec.map_err(|e| err("", e.to_string()))?;
        let date = rec.get(di).unwrap_or("");
        let s = unix_secs(date).ok_or_else(|| {
            err(
                "date",
                format!("{date:?} is not a YYYY-MM-DD HH:MM:SS time"),
            )
        })?;
        if t.epoch_s.last().is_some_and(|&p| s < p) {
            return Err(err("date", "rows go back in time".into()));
        }
        let a = match rec.get(ai).map(str::trim) {
            Some("1") => 1.0,
            Some("0") => 0.0,
            other => return Err(err("availability", format!("{other:?} is not 0 or 1"))),
        };
        t.epoch_s.push(s);
        t.available.push(a);
    }
    Ok(t)
}

/// Reads one zone of a GCP probe CSV (`scheduled_at, zone, instances_requested,
/// instances_created`, ...): the available share of each probe is created / requested.
pub fn read_gcp_probes(path: &Path, zone: &str) -> Result<AvailabilityTrace, SpotTraceError> {
    let file = path.display().to_string();
    let mut rdr = open(path)?;
    let si = header_index(&mut rdr, path, "scheduled_at")?;
    let zi = header_index(&mut rdr, path, "zone")?;
    let ri = header_index(&mut rdr, path, "instances_requested")?;
    let ci = header_index(&mut rdr, path, "instances_created")?;
    let mut t = AvailabilityTrace {
        epoch_s: Vec::new(),
        available: Vec::new(),
    };
    for (i, rec) in rdr.records().enumerate() {
        let line = i + 2;
        let err = |field: &str, message: String| SpotTraceError::Row {
            file: file.clone(),
            line,
            field: field.into(),
            message,
        };
        let rec = rec.map_err(|e| err("", e.to_string()))?;
        if rec.get(zi) != Some(zone) {
            continue;
        }
        let when = rec.get(si).unwrap_or("");
        let s = unix_secs(when)
            .ok_or_else(|| err("scheduled_at", format!("{when:?} is not an ISO time")))?;
        let int = |idx: usize, field: &str| -> Result<u32, SpotTraceError> {
            let v = rec.get(idx).unwrap_or("");
            v.trim()
                .parse()
                .map_err(|_| err(field, format!("{v:?} is not a whole number")))
        };
        let req = int(ri, "instances_requested")?;
        let got = int(ci, "instances_created")?;
        if req == 0 || got > req {
            return Err(err(
                "instances_created",
                format!("{got} created of {req} requested"),
            ));
        }
        t.epoch_s.push(s);
        t.available.push(got as f64 / req as f64);
    }
    if t.is_empty() {
        return Err(SpotTraceError::Row {
            file,
            line: 1,
            field: "zone".into(),
            message: format!("no probes for zone {zone:?}"),
        });
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        // 2023-02-15 22:08:16 UTC = 1676498896 (date -u -d '2023-02-15 22:08:16' +%s).
        assert_eq!(unix_secs("2023-02-15 22:08:16"), Some(1_676_498_896));
        // 17:10 at -07:00 is 00:10 UTC next day: 2025-10-04 00:10:00 = 1759536600.
        assert_eq!(
            unix_secs("2025-10-03T17:10:00.002281-07:00"),
            Some(1_759_536_600)
        );
        assert_eq!(unix_secs("2023-13-01 00:00:00"), None);
        // No February 31st, no signed fields, the seconds after a colon.
        assert_eq!(unix_secs("2023-02-31 00:00:00"), None);
        assert_eq!(unix_secs("2024-02-29 00:00:00"), Some(1_709_164_800));
        assert_eq!(unix_secs("2023-+1-01 00:00:00"), None);
        assert_eq!(unix_secs("2023-01-01 00:00x00"), None);
    }
}
