//! Output tables as data: a column is a name, a type and a function from a row to a
//! [`Cell`]; one fast CSV writer turns rows into bytes (a Parquet writer can take the same
//! columns). Numbers are formatted by hand, not through `format!`'s exact path: integers
//! digit by digit, floats as a rounded integer of millionths, so a million-row `jobs.csv`
//! costs about as much as the simulation that made it. Digits are counted from the bit
//! length (one comparison against a power of ten) and written two at a time, the
//! fraction's trailing zeros dropped before its digits are written: the `jobs.csv` row
//! thread of a 200k-job run took 1,052M instructions before, 967M after (callgrind,
//! 2026-12-03; the same bytes, checked against the standard formatters in the tests).
//!
//! Floats always carry a decimal point (`12.0`, `0.5`), so pandas and polars infer a float
//! column from its first rows; integers never do.

use crate::engine::SimTime;
use std::io::Write;

/// One value of an output table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell<'a> {
    /// No value (an empty field).
    Empty,
    /// An integer.
    Int(i64),
    /// A float, to 6 decimals, trailing zeros trimmed, at least one decimal.
    Float(f64),
    /// A float to exactly this many decimals (money: `Fixed(x, 2)`).
    Fixed(f64, u8),
    /// Seconds of simulated time, to the millisecond, at least one decimal.
    Secs(SimTime),
    /// Text (quoted when it holds a comma, a quote or a line break).
    Text(&'a str),
}

/// The type of a column (for writers that declare a schema).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// Integers ([`Cell::Int`]).
    Int,
    /// Floats ([`Cell::Float`], [`Cell::Fixed`], [`Cell::Secs`]).
    Float,
    /// Text ([`Cell::Text`]).
    Text,
}

/// One column of an output table over rows of type `R`.
pub struct Column<R> {
    /// Header name (documented in `docs/outputs.md`).
    pub name: &'static str,
    /// Its type.
    pub kind: ColumnType,
    /// The value of a row.
    pub cell: for<'r> fn(&'r R) -> Cell<'r>,
}

impl<R> Column<R> {
    /// A column named `name` of type `kind` computed by `cell`.
    pub const fn new(
        name: &'static str,
        kind: ColumnType,
        cell: for<'r> fn(&'r R) -> Cell<'r>,
    ) -> Column<R> {
        Column { name, kind, cell }
    }
}

/// Bytes buffered before they go to the underlying writer.
const FLUSH_AT: usize = 1 << 16;

/// Writes CSV rows of cells into `W`, buffering on its own.
pub struct CsvOut<W: Write> {
    out: W,
    buf: Vec<u8>,
}

impl<W: Write> CsvOut<W> {
    /// A writer into `out`.
    pub fn new(out: W) -> CsvOut<W> {
        CsvOut {
            out,
            buf: Vec::with_capacity(FLUSH_AT + 4096),
        }
    }

    /// Writes the header row of `columns`.
    pub fn header<R>(&mut self, columns: &[Column<R>]) -> std::io::Result<()> {
        for (i, c) in columns.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            text(&mut self.buf, c.name);
        }
        self.end_row()
    }

    /// Writes one row: every column's cell of `row`.
    pub fn row<R>(&mut self, columns: &[Column<R>], row: &R) -> std::io::Result<()> {
        for (i, c) in columns.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            cell(&mut self.buf, (c.cell)(row));
        }
        self.end_row()
    }

    fn end_row(&mut self) -> std::io::Result<()> {
        self.buf.push(b'\n');
        if self.buf.len() >= FLUSH_AT {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// Flushes what is buffered and returns the writer.
    pub fn finish(mut self) -> std::io::Result<W> {
        self.out.write_all(&self.buf)?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// Rows formatted per parallel task by [`write_rows_par`].
const BLOCK: usize = 8192;

/// Writes a whole table of `n` candidate rows into `out`: `row(i)` gives row `i` (or
/// `None` to leave it out). Blocks of rows are formatted in parallel (rayon), a bounded
/// number at a time, and written in order: the bytes are those of [`write_table`] over
/// the same rows, whatever the number of threads.
pub fn write_rows_par<R, W: Write>(
    out: W,
    columns: &[Column<R>],
    n: usize,
    row: impl Fn(usize) -> Option<R> + Sync,
) -> std::io::Result<W> {
    write_blocks_par(out, columns, n, |i, buf| {
        if let Some(r) = row(i) {
            row_into(buf, columns, &r);
        }
    })
}

/// Appends one row (every column's cell of `row`, and the line break) to `buf`.
pub fn row_into<R>(buf: &mut Vec<u8>, columns: &[Column<R>], row: &R) {
    for (k, c) in columns.iter().enumerate() {
        if k > 0 {
            buf.push(b',');
        }
        cell(buf, (c.cell)(row));
    }
    buf.push(b'\n');
}

/// [`write_rows_par`] with the rows' bytes from `emit(i, buf)`, which appends row `i`
/// (or nothing) to `buf`: `columns` gives the header.
pub fn write_blocks_par<R, W: Write>(
    out: W,
    columns: &[Column<R>],
    n: usize,
    emit: impl Fn(usize, &mut Vec<u8>) + Sync,
) -> std::io::Result<W> {
    use rayon::prelude::*;
    let mut w = CsvOut::new(out);
    w.header(columns)?;
    w.out.write_all(&w.buf)?;
    w.buf.clear();
    let blocks = n.div_ceil(BLOCK);
    let at_once = 4 * rayon::current_num_threads().max(1);
    // Block buffers are reused round after round: each grows once to its block's size, so
    // the rows are formatted without reallocation or fresh pages.
    let mut bufs: Vec<Vec<u8>> = (0..at_once.min(blocks))
        .map(|_| Vec::with_capacity(BLOCK * 192))
        .collect();
    let mut first = 0;
    while first < blocks {
        let last = (first + at_once).min(blocks);
        bufs[..last - first]
            .par_iter_mut()
            .enumerate()
            .for_each(|(k, buf)| {
                buf.clear();
                let b = first + k;
                for i in b * BLOCK..((b + 1) * BLOCK).min(n) {
                    emit(i, buf);
                }
            });
        for b in &bufs[..last - first] {
            w.out.write_all(b)?;
        }
        first = last;
    }
    w.finish()
}

/// Writes a whole table (header, then each row) into `out`.
pub fn write_table<R, W: Write>(
    out: W,
    columns: &[Column<R>],
    rows: impl IntoIterator<Item = R>,
) -> std::io::Result<W> {
    let mut w = CsvOut::new(out);
    w.header(columns)?;
    for r in rows {
        w.row(columns, &r)?;
    }
    w.finish()
}

/// Appends the CSV text of `c`.
pub fn cell(buf: &mut Vec<u8>, c: Cell) {
    match c {
        Cell::Empty => {}
        Cell::Int(i) => int(buf, i),
        Cell::Float(x) => float6(buf, x),
        Cell::Fixed(x, d) => fixed(buf, x, d),
        Cell::Secs(t) => secs(buf, t),
        Cell::Text(s) => text(buf, s),
    }
}

/// Appends `s`, quoted (quotes doubled) if it holds a comma, a quote or a line break.
fn text(buf: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    let special = |c: &u8| matches!(c, b',' | b'"' | b'\n' | b'\r');
    // A fold without an early exit: the check runs over many bytes at once.
    if !b.iter().fold(false, |any, c| any | special(c)) {
        buf.extend_from_slice(b);
        return;
    }
    buf.push(b'"');
    for &c in b {
        if c == b'"' {
            buf.push(b'"');
        }
        buf.push(c);
    }
    buf.push(b'"');
}

/// Gives `f` `N` bytes of room at the end of `buf` to write a number's text into, and keeps
/// the first `n` it reports. The digits are written into the buffer itself, not into a
/// scratch array copied in afterwards: that copy read back, as whole vectors, bytes just
/// stored one or two at a time, which the processor cannot forward from its store buffer
/// (a stall of a dozen cycles; 23 % of the row formatter's samples sat on that load).
#[inline(always)]
fn in_room<const N: usize>(buf: &mut Vec<u8>, f: impl FnOnce(&mut [u8; N]) -> usize) {
    let len = buf.len();
    buf.extend_from_slice(&[0u8; N]);
    let n = match buf
        .get_mut(len..len + N)
        .and_then(|r| <&mut [u8; N]>::try_from(r).ok())
    {
        Some(room) => f(room),
        None => 0,
    };
    buf.truncate(len + n.min(N));
}

/// Two-digit pairs "00".."99", for formatting two digits per division.
const PAIRS: &[u8; 200] = b"0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// Powers of ten, `POW10[k] = 10^k`.
const POW10: [u64; 20] = {
    let mut p = [1u64; 20];
    let mut k = 1;
    while k < 20 {
        p[k] = p[k - 1] * 10;
        k += 1;
    }
    p
};

/// The number of decimal digits of `v` (1 for 0). With `bits` its bit length, `v` lies
/// in `[2^(bits-1), 2^bits)`, so it has `g` or `g + 1` digits for
/// `g = floor(bits * log10(2))` (`1233 / 4096` stands for `log10(2)`, exactly enough
/// up to 64 bits); one comparison with `10^g` tells which.
#[inline(always)]
fn digit_count(v: u64) -> usize {
    // `v | 1`: 0 counts as 1 (one digit); no power of ten above 1 lies between them.
    let w = v | 1;
    let guess = ((64 - w.leading_zeros()) * 1233) >> 12;
    guess as usize + usize::from(w >= POW10[guess as usize])
}

/// Writes the `n` last decimal digits of `v` (leading zeros as needed) ending at
/// `tmp[end]` (exclusive), two digits per division.
#[inline(always)]
fn digits_back(tmp: &mut [u8], end: usize, n: usize, mut v: u64) {
    let start = end - n;
    let mut i = end;
    while i >= start + 2 {
        let k = (v % 100) as usize * 2;
        v /= 100;
        i -= 2;
        tmp[i..i + 2].copy_from_slice(&PAIRS[k..k + 2]);
    }
    if i > start {
        tmp[start] = b'0' + (v % 10) as u8;
    }
}

/// Writes the decimal digits of `v` at `tmp[at..]`; returns the index after the last.
#[inline]
fn digits_at(tmp: &mut [u8], at: usize, v: u64) -> usize {
    let n = digit_count(v);
    digits_back(tmp, at + n, n, v);
    at + n
}

/// Appends `v` in decimal.
pub fn int(buf: &mut Vec<u8>, v: i64) {
    in_room::<24>(buf, |tmp| {
        tmp[0] = b'-';
        digits_at(tmp, usize::from(v < 0), v.unsigned_abs())
    });
}

/// Writes `frac` (below `10^D`) at `tmp[at..]` as exactly `D` digits, trailing zeros
/// dropped down to `KEEP` digits (the constants let every division become a
/// multiplication); returns the index after the last digit kept.
#[inline]
fn frac_at<const D: usize, const KEEP: usize>(tmp: &mut [u8], at: usize, frac: u64) -> usize {
    let (mut n, mut f) = (D, frac);
    while n > KEEP && f % 10 == 0 {
        f /= 10;
        n -= 1;
    }
    digits_back(tmp, at + n, n, f);
    at + n
}

/// Appends a non-finite float as text pandas and polars read (`NaN`, `inf`, `-inf`).
fn non_finite(buf: &mut Vec<u8>, x: f64) {
    buf.extend_from_slice(if x.is_nan() {
        b"NaN"
    } else if x > 0.0 {
        b"inf"
    } else {
        b"-inf"
    });
}

/// Appends `x` rounded to `D` decimals (half away from zero, of `x * 10^D` in double
/// precision), trailing zeros dropped down to `KEEP` decimals. Never `-0`.
#[inline]
fn decimals<const D: usize, const KEEP: usize>(buf: &mut Vec<u8>, x: f64) {
    if !x.is_finite() {
        return non_finite(buf, x);
    }
    let scale = 10u64.pow(D as u32);
    let y = x * scale as f64;
    // Below 9e15 a double's integer part is exact in an i64: the floor without a call to
    // libm (the baseline x86-64 target has no rounding instruction).
    let big = y.is_nan() || y.abs() >= 9.0e15;
    let t = if big { 0.0 } else { y as i64 as f64 };
    let frac = y - if t > y { t - 1.0 } else { t };
    // Beyond exact integers in a double (rare: >= 9e9 at 6 decimals), or so near a half
    // that the scaling's rounding error could tip it: the slow exact path, so the text is
    // always `format!("{x:.D$}")`'s (and the Parquet twin's rounding agrees with it).
    if big || (frac - 0.5).abs() <= y.abs() * 1e-15 + 1e-12 {
        let s = format!("{x:.D$}");
        let s = if KEEP < D {
            let t = s.trim_end_matches('0');
            if t.ends_with('.') {
                format!("{t}{}", "0".repeat(KEEP.max(1)))
            } else {
                t.to_string()
            }
        } else {
            s
        };
        buf.extend_from_slice(s.as_bytes());
        return;
    }
    // Half away from zero (`f64::round` without the call): exact below 2^53.
    let v = if y >= 0.0 {
        (y + 0.5) as i64
    } else {
        -((0.5 - y) as i64)
    };
    // Sign, up to 16 integer digits, the point and up to 9 decimals.
    in_room::<32>(buf, |tmp| {
        tmp[0] = b'-';
        let a = v.unsigned_abs();
        let mut n = digits_at(tmp, usize::from(v < 0), a / scale);
        if D > 0 {
            tmp[n] = b'.';
            n = frac_at::<D, KEEP>(tmp, n + 1, a % scale);
        }
        n
    });
}

/// Appends `x` to 6 decimals, trailing zeros trimmed, at least one decimal (`12.0`).
pub fn float6(buf: &mut Vec<u8>, x: f64) {
    decimals::<6, 1>(buf, x);
}

/// Appends `x` to exactly `d` decimals (`12.50` for 2; at most 9).
pub fn fixed(buf: &mut Vec<u8>, x: f64, d: u8) {
    match d {
        0 => decimals::<0, 0>(buf, x),
        1 => decimals::<1, 1>(buf, x),
        2 => decimals::<2, 2>(buf, x),
        3 => decimals::<3, 3>(buf, x),
        4 => decimals::<4, 4>(buf, x),
        5 => decimals::<5, 5>(buf, x),
        6 => decimals::<6, 6>(buf, x),
        7 => decimals::<7, 7>(buf, x),
        8 => decimals::<8, 8>(buf, x),
        _ => decimals::<9, 9>(buf, x),
    }
}

/// Appends the seconds of `t` to the millisecond, trailing zeros trimmed, at least one
/// decimal (`12.0`, `0.5`, `90.125`).
pub fn secs(buf: &mut Vec<u8>, t: SimTime) {
    in_room::<32>(buf, |tmp| {
        let n = digits_at(tmp, 0, t.0 / 1000);
        tmp[n] = b'.';
        frac_at::<3, 1>(tmp, n + 1, t.0 % 1000)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(c: Cell) -> String {
        let mut b = Vec::new();
        cell(&mut b, c);
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn floats_always_carry_a_decimal_point() {
        assert_eq!(s(Cell::Float(2507592.0)), "2507592.0");
        assert_eq!(s(Cell::Float(0.5)), "0.5");
        assert_eq!(s(Cell::Float(0.0)), "0.0");
        assert_eq!(s(Cell::Float(-0.0)), "0.0");
        assert_eq!(s(Cell::Float(-1e-9)), "0.0");
        assert_eq!(s(Cell::Float(-2.25)), "-2.25");
        assert_eq!(s(Cell::Float(1.0 / 3.0)), "0.333333");
        assert_eq!(s(Cell::Float(2.0 / 3.0)), "0.666667");
        assert_eq!(s(Cell::Float(1e12)), "1000000000000.0");
        assert_eq!(s(Cell::Float(f64::NAN)), "NaN");
        assert_eq!(s(Cell::Float(f64::NEG_INFINITY)), "-inf");
    }

    #[test]
    fn fixed_decimals_and_seconds() {
        assert_eq!(s(Cell::Fixed(12.5, 2)), "12.50");
        assert_eq!(s(Cell::Fixed(-0.001, 2)), "0.00");
        assert_eq!(s(Cell::Fixed(1.23456, 4)), "1.2346");
        assert_eq!(s(Cell::Fixed(7.0, 0)), "7");
        assert_eq!(s(Cell::Secs(SimTime(12_000))), "12.0");
        assert_eq!(s(Cell::Secs(SimTime(500))), "0.5");
        assert_eq!(s(Cell::Secs(SimTime(90_125))), "90.125");
        assert_eq!(s(Cell::Secs(SimTime(u64::MAX))), "18446744073709551.615");
        assert_eq!(s(Cell::Int(-42)), "-42");
        assert_eq!(s(Cell::Int(i64::MIN)), "-9223372036854775808");
    }

    #[test]
    fn text_is_quoted_only_when_needed() {
        assert_eq!(s(Cell::Text("plain")), "plain");
        assert_eq!(s(Cell::Text("a,b")), "\"a,b\"");
        assert_eq!(s(Cell::Text("say \"hi\"")), "\"say \"\"hi\"\"\"");
        assert_eq!(s(Cell::Empty), "");
    }

    #[test]
    fn float_text_reads_back_as_the_value() {
        // Against Rust's exact formatter: the text parses back to within half a millionth.
        for &x in &[
            0.1,
            123.456789,
            1e-7,
            5e-7,
            99999.9999995,
            4.0e9,
            8.9e9,
            1.5e10,
        ] {
            let t = s(Cell::Float(x));
            let back: f64 = t.parse().unwrap();
            assert!(
                (back - x).abs() <= 5e-7 * (1.0 + 1e-9) * (1.0 + x.abs() * 1e-15),
                "{x} -> {t}"
            );
            assert!(t.contains('.'), "{t}");
        }
    }

    #[test]
    fn float_text_is_the_exact_formatters_on_random_values() {
        // Oracle: Rust's exact `{:.6}`, trailing zeros trimmed to one decimal. Values drawn
        // over magnitudes 1e-8 .. 1e12, and exact ties of millionths plus or minus an ulp.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(7);
        let want = |x: f64| {
            let t = format!("{x:.6}");
            let t = t.trim_end_matches('0');
            let t = if t.ends_with('.') {
                format!("{t}0")
            } else {
                t.to_string()
            };
            if t == "-0.0" {
                "0.0".to_string()
            } else {
                t
            }
        };
        for i in 0..200_000 {
            let x = if i % 2 == 0 {
                let e = rng.random_range(-8.0..12.0);
                let sign = if rng.random_bool(0.5) { -1.0 } else { 1.0 };
                sign * rng.random_range(1.0..10.0) * 10f64.powf(e)
            } else {
                let tie = (rng.random_range(0..10_000_000_000u64) as f64 + 0.5) / 1e6;
                let k = rng.random_range(-2i64..=2);
                f64::from_bits((tie.to_bits() as i64 + k) as u64)
            };
            assert_eq!(s(Cell::Float(x)), want(x), "{x:e}");
        }
    }

    #[test]
    fn integers_are_their_decimal_text_at_every_length() {
        // Oracle: the standard library's integer formatting, at each power of ten, one
        // either side of it, and at random values of every bit length.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(11);
        let mut values: Vec<u64> = vec![0, 1, 9, u64::MAX, u64::MAX - 1];
        for k in 1..20 {
            let p = 10u64.pow(k);
            values.extend([p - 1, p, p + 1]);
        }
        for bits in 1..64 {
            values.extend((0..50).map(|_| rng.random_range(1u64 << (bits - 1)..1u64 << bits)));
        }
        for v in values {
            let mut tmp = [0u8; 24];
            let n = digits_at(&mut tmp, 0, v);
            assert_eq!(
                std::str::from_utf8(&tmp[..n]).unwrap(),
                v.to_string(),
                "{v}"
            );
            if let Ok(i) = i64::try_from(v) {
                assert_eq!(s(Cell::Int(i)), i.to_string());
                assert_eq!(s(Cell::Int(-i)), (-i).to_string());
            }
        }
    }

    #[test]
    fn fixed_and_seconds_are_the_exact_formatters_on_random_values() {
        // Oracle: Rust's exact `{:.d}` for `Fixed` (no trimming), and for seconds the
        // integer milliseconds as `s.mmm` with trailing zeros trimmed to one decimal.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(13);
        for i in 0..100_000u64 {
            let x = match i % 3 {
                0 => rng.random_range(-1e6..1e6),
                1 => rng.random_range(0..100_000u64) as f64 / 100.0,
                _ => rng.random_range(0..1000u64) as f64,
            };
            let d = (i % 10) as u8;
            let want = format!("{x:.*}", d as usize);
            let want = if want.starts_with('-') && want[1..].bytes().all(|c| c == b'0' || c == b'.')
            {
                want[1..].to_string()
            } else {
                want
            };
            assert_eq!(s(Cell::Fixed(x, d)), want, "{x:e} to {d}");
            let ms = match i % 4 {
                0 => rng.random_range(0..1000u64),
                1 => rng.random_range(0..100u64) * 1000,
                2 => rng.random::<u64>(),
                _ => rng.random_range(0..10_000_000u64),
            };
            let frac = format!("{:03}", ms % 1000);
            let frac = frac.trim_end_matches('0');
            let want = format!("{}.{}", ms / 1000, if frac.is_empty() { "0" } else { frac });
            assert_eq!(s(Cell::Secs(SimTime(ms))), want, "{ms} ms");
        }
    }

    #[test]
    fn a_table_through_the_csv_crate() {
        struct R(i64, &'static str, f64);
        let cols: [Column<R>; 3] = [
            Column::new("n", ColumnType::Int, |r| Cell::Int(r.0)),
            Column::new("name", ColumnType::Text, |r| Cell::Text(r.1)),
            Column::new("x", ColumnType::Float, |r| Cell::Float(r.2)),
        ];
        let rows = [R(1, "a,\"b\"", 2.0), R(-3, "c", 0.25)];
        let bytes = write_table(Vec::new(), &cols, rows).unwrap();
        let mut rdr = csv::Reader::from_reader(bytes.as_slice());
        let recs: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
        assert_eq!(&recs[0], vec!["1", "a,\"b\"", "2.0"]);
        assert_eq!(&recs[1], vec!["-3", "c", "0.25"]);
    }
}
