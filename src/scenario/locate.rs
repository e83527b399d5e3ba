//! Finding the line of a field path (`pools[2].nodes`) in scenario text, so validation
//! errors point at the line to fix.

use toml_edit::{ImDocument, Item};

/// 1-based line of byte `offset` in `text`.
pub fn line_of_offset(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The line where the value at `path` is written, if the path exists in `text`.
pub fn line_of_path(text: &str, path: &str) -> Option<usize> {
    let doc = ImDocument::parse(text).ok()?;
    let mut item: &Item = doc.as_item();
    let mut span = None;
    for seg in path.split('.').filter(|s| !s.is_empty()) {
        let (key, index) = match seg.find('[') {
            Some(i) => (
                &seg[..i],
                seg[i + 1..].trim_end_matches(']').parse::<usize>().ok(),
            ),
            None => (seg, None),
        };
        let table = item.as_table_like()?;
        let (k, v) = table.get_key_value(key)?;
        span = k.span().or(span);
        item = v;
        if let Some(i) = index {
            if let Some(aot) = item.as_array_of_tables() {
                let t = aot.get(i)?;
                span = t.span().or(span);
                // Descend into the table of the array of tables.
                return descend_rest(text, t, path, seg)
                    .or(span.map(|s| line_of_offset(text, s.start)));
            }
            if let Some(arr) = item.as_array() {
                let v = arr.get(i)?;
                span = v.span().or(span);
                return span.map(|s| line_of_offset(text, s.start));
            }
        }
    }
    span.map(|s| line_of_offset(text, s.start))
}

fn descend_rest(text: &str, table: &toml_edit::Table, path: &str, upto: &str) -> Option<usize> {
    let rest = path.split_once(upto)?.1.trim_start_matches('.');
    let mut span = table.span();
    let mut cur: &dyn toml_edit::TableLike = table;
    for seg in rest.split('.').filter(|s| !s.is_empty()) {
        let key = seg.split('[').next().unwrap_or(seg);
        let (k, v) = cur.get_key_value(key)?;
        span = k.span().or(span);
        match v.as_table_like() {
            Some(t) => cur = t,
            None => break,
        }
    }
    span.map(|s| line_of_offset(text, s.start))
}

/// Floats in `text` written with non-zero digits that TOML reads as zero or as a denormal
/// (`1e-999`, `4.9e-324`): `(line, field path, the float as written)` of each, in file
/// order. A field would otherwise see a plain 0 (or a value off by most of its digits)
/// and its error say "got 0" of a number the file does not hold.
pub fn lost_floats(text: &str) -> Vec<(usize, String, String)> {
    if !may_hold_tiny_floats(text) {
        return Vec::new();
    }
    let Ok(doc) = ImDocument::parse(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    lost_in_item(text, doc.as_item(), "", &mut out);
    out.sort();
    out
}

/// False only when no float in `text` can be under 2.2e-308 (so [`lost_floats`] need not
/// parse it again: a sweep checks every point's text). A TOML float that small has either
/// an exponent of `-100` or less, written `e-` (or `E-`) and at least three digits
/// (underscores may sit between them), or, with an exponent of two digits at most, over
/// 200 zeros after its decimal point (underscores between them too). Anything else
/// (strings, comments) that looks so only costs the parse.
fn may_hold_tiny_floats(text: &str) -> bool {
    let b = text.as_bytes();
    let mut zeros = 0usize;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'0' => {
                zeros += 1;
                if zeros > 200 {
                    return true;
                }
            }
            b'_' => {}
            b'e' | b'E' if b.get(i + 1) == Some(&b'-') => {
                zeros = 0;
                let digits = b[i + 2..]
                    .iter()
                    .take_while(|d| d.is_ascii_digit() || **d == b'_')
                    .filter(|d| d.is_ascii_digit())
                    .count();
                if digits >= 3 {
                    return true;
                }
            }
            _ => zeros = 0,
        }
    }
    false
}

/// `path.key`, or `key` at the top.
fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

fn lost_in_item(text: &str, item: &Item, path: &str, out: &mut Vec<(usize, String, String)>) {
    match item {
        Item::Value(v) => lost_in_value(text, v, path, out),
        Item::Table(t) => t
            .iter()
            .for_each(|(k, i)| lost_in_item(text, i, &join(path, k), out)),
        Item::ArrayOfTables(a) => a.iter().enumerate().for_each(|(n, t)| {
            t.iter()
                .for_each(|(k, i)| lost_in_item(text, i, &join(&format!("{path}[{n}]"), k), out))
        }),
        Item::None => {}
    }
}

fn lost_in_value(
    text: &str,
    v: &toml_edit::Value,
    path: &str,
    out: &mut Vec<(usize, String, String)>,
) {
    use toml_edit::Value;
    match v {
        Value::Float(f) if f.value().is_finite() && !f.value().is_normal() => {
            let Some(span) = f.span() else { return };
            let written = text.get(span.clone()).unwrap_or("");
            let mantissa = written.split(['e', 'E']).next().unwrap_or("");
            if mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
                let line = line_of_offset(text, span.start);
                out.push((line, path.to_string(), written.to_string()));
            }
        }
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(n, x)| lost_in_value(text, x, &format!("{path}[{n}]"), out)),
        Value::InlineTable(t) => t
            .iter()
            .for_each(|(k, x)| lost_in_value(text, x, &join(path, k), out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quick pass never says "none" of a text in which the full parse finds a float
    /// read as zero or a denormal: floats written every way TOML allows (leading zeros,
    /// underscores, exponents with leading zeros, a sign), as a value, in an array and in
    /// an inline table, small and not.
    #[test]
    fn the_quick_pass_misses_no_tiny_float() {
        let mut state = 99u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        let (mut tiny, mut passed) = (0, 0);
        for _ in 0..4000 {
            let digits = |count: u64, first_nonzero: bool, next: &mut dyn FnMut(u64) -> u64| {
                let mut d = String::new();
                for k in 0..count {
                    if k > 0 && next(4) == 0 {
                        d.push('_');
                    }
                    let lo = if k == 0 && first_nonzero { 1 } else { 0 };
                    d.push(char::from(b'0' + (lo + next(10 - lo)) as u8));
                }
                d
            };
            // A mantissa: `I.F` with F led by up to 400 zeros, or an integer.
            let lead = match next(3) {
                0 => next(400),
                1 => 195 + next(20),
                _ => next(5),
            };
            let mut zeros = String::new();
            for k in 0..lead {
                if k > 0 && next(5) == 0 {
                    zeros.push('_');
                }
                zeros.push('0');
            }
            let frac = digits(1 + next(4), true, &mut next);
            let mantissa = if next(4) == 0 {
                digits(1 + next(3), true, &mut next)
            } else {
                format!("0.{zeros}{}{frac}", if zeros.is_empty() { "" } else { "_" })
            };
            let exp = match next(3) {
                0 => String::new(),
                1 => format!("e-{}", digits(1 + next(2), false, &mut next)),
                _ => {
                    let e = 280 + next(60);
                    let pad = "0".repeat(next(3) as usize);
                    format!("{}-{pad}{e}", if next(2) == 0 { 'e' } else { 'E' })
                }
            };
            let lit = format!("{}{mantissa}{exp}", ["", "+", "-"][next(3) as usize]);
            let text = match next(3) {
                0 => format!("name = \"x\"\nrate = {lit}\n"),
                1 => format!("v = [1.5, {lit}]\n"),
                _ => format!("[workload]\nd = {{ kind = \"x\", mean = {lit} }}\n"),
            };
            let Ok(doc) = ImDocument::parse(text.as_str()) else {
                continue;
            };
            passed += 1;
            let mut found = Vec::new();
            lost_in_item(&text, doc.as_item(), "", &mut found);
            if !found.is_empty() {
                tiny += 1;
                assert!(may_hold_tiny_floats(&text), "missed: {text}");
            }
        }
        // Both kinds occur (else the test says nothing).
        assert!(passed > 2000 && tiny > 200, "{passed} parsed, {tiny} tiny");
    }

    #[test]
    fn finds_lines_of_paths() {
        let text = "name = \"x\"\n\n[[pools]]\nname = \"a\"\nnodes = 1\n\n[[pools]]\nname = \"b\"\nnodes = -2\n[workload]\nduration = { kind = \"fixed\", value = \"1h\" }\n";
        assert_eq!(line_of_path(text, "name"), Some(1));
        assert_eq!(line_of_path(text, "pools[1].nodes"), Some(9));
        assert_eq!(line_of_path(text, "pools[0].name"), Some(4));
        assert_eq!(line_of_path(text, "workload.duration.value"), Some(11));
        assert_eq!(line_of_path(text, "nope"), None);
    }

    #[test]
    fn finds_floats_that_read_as_zero() {
        let text = "a = 1e-999\nb = 0.0\nc = -0e5\n[[p]]\nx = [1.0, 4.9e-324]\ny = { z = -1E-400 }\nw = 2.5e-308\n";
        let lost = lost_floats(text);
        let want = [
            (1, "a", "1e-999"),
            (5, "p[0].x[1]", "4.9e-324"),
            (6, "p[0].y.z", "-1E-400"),
        ];
        assert_eq!(lost.len(), want.len(), "{lost:?}");
        for (got, (line, path, written)) in lost.iter().zip(want) {
            assert_eq!(
                (got.0, got.1.as_str(), got.2.as_str()),
                (line, path, written)
            );
        }
    }
}
