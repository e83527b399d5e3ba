//! A scenario error as people read it: each problem with its line and column, the line of
//! the file, and the offending text underlined, as compilers show errors.
//!
//! ```text
//! scenarios/x.toml: 1 problem
//!   scheduler.policy (line 12, column 10): unknown variant `fiffo`, expected ...
//!      |
//!   12 | policy = "fiffo"
//!      |          ^^^^^^^
//! ```
//!
//! The spans are found again in the text: the value written at the problem's field path,
//! or, for a problem the TOML parser found, the span the parser reports.

use super::{Problem, ScenarioError};
use std::ops::Range;
use toml_edit::{ImDocument, Item, TableLike};

/// Byte span of the value at `path` (`pools[1].nodes`, `workload.sizes[0].weight`) in
/// `text`, or of the deepest part of the path that exists.
pub fn span_of_path(text: &str, path: &str) -> Option<Range<usize>> {
    let doc = ImDocument::parse(text).ok()?;
    let mut table: &dyn TableLike = doc.as_table();
    let mut span = None;
    for seg in path.split('.').filter(|s| !s.is_empty()) {
        let (key, index) = match seg.find('[') {
            Some(i) => (
                &seg[..i],
                seg[i + 1..].trim_end_matches(']').parse::<usize>().ok(),
            ),
            None => (seg, None),
        };
        let Some((k, v)) = table.get_key_value(key) else {
            break;
        };
        span = k.span().or(span);
        if let Item::Value(x) = v {
            span = x.span().or(span);
        }
        let mut next: Option<&dyn TableLike> = None;
        match index {
            None => next = v.as_table_like(),
            Some(i) => {
                if let Some(t) = v.as_array_of_tables().and_then(|a| a.get(i)) {
                    span = t.span().or(span);
                    next = Some(t);
                } else if let Some(x) = v.as_array().and_then(|a| a.get(i)) {
                    span = x.span().or(span);
                    if let Some(t) = x.as_inline_table() {
                        next = Some(t);
                    }
                }
            }
        }
        match next {
            Some(t) => table = t,
            None => break,
        }
    }
    span
}

/// The span of the parse error at 1-based `line`, if the TOML parser reports one there.
fn parse_span(text: &str, line: usize) -> Option<Range<usize>> {
    let span = match toml::from_str::<toml::Table>(text) {
        Err(e) => e.span(),
        Ok(_) => toml::from_str::<super::raw::RawScenario>(text)
            .err()
            .and_then(|e| e.span()),
    }?;
    (super::locate::line_of_offset(text, span.start) == line).then_some(span)
}

/// Start offset of 1-based `line`.
fn line_start(text: &str, line: usize) -> Option<usize> {
    if line == 1 {
        return Some(0);
    }
    text.match_indices('\n').nth(line - 2).map(|(i, _)| i + 1)
}

/// Where a problem is: its span in the text, if found.
fn span_of(text: &str, p: &Problem) -> Option<Range<usize>> {
    let line = p.line?;
    let span = if p.path.is_empty() {
        parse_span(text, line)
    } else {
        span_of_path(text, &p.path).filter(|s| super::locate::line_of_offset(text, s.start) == line)
    };
    span.or_else(|| {
        // Underline the line's text.
        let start = line_start(text, line)?;
        let end = text[start..].find('\n').map_or(text.len(), |e| start + e);
        let body = &text[start..end];
        let lead = body.len() - body.trim_start().len();
        let trail = body.len() - body.trim_end().len();
        (end - trail > start + lead).then(|| start + lead..end - trail)
    })
}

/// The 1-based column (in characters) where problem `p` starts in `text`, when its line
/// is known and its span can be found.
pub fn column_of(text: &str, p: &Problem) -> Option<usize> {
    let span = span_of(text, p)?;
    let start = line_start(text, p.line?)?;
    Some(text[start..span.start].chars().count() + 1)
}

/// One problem, rendered: the heading with line and column, then the snippet.
fn render_problem(text: &str, p: &Problem, out: &mut String) {
    let span = span_of(text, p);
    let (line, col) = match (&span, p.line) {
        (Some(s), Some(l)) => {
            let start = line_start(text, l).unwrap_or(0);
            (Some(l), Some(text[start..s.start].chars().count() + 1))
        }
        (_, l) => (l, None),
    };
    let at = match (p.path.is_empty(), line, col) {
        (true, Some(l), Some(c)) => format!("line {l}, column {c}"),
        (true, Some(l), None) => format!("line {l}"),
        (true, None, _) => String::new(),
        (false, Some(l), Some(c)) => format!("{} (line {l}, column {c})", p.path),
        (false, Some(l), None) => format!("{} (line {l})", p.path),
        (false, None, _) => p.path.clone(),
    };
    // A message can quote the value (a string of a megabyte): each line is cut short.
    let mut message = p.message.lines().map(|m| crate::workload::clip(m, 600));
    let first = message.next().unwrap_or_default();
    if at.is_empty() {
        out.push_str(&format!("  {first}\n"));
    } else {
        out.push_str(&format!("  {at}: {first}\n"));
    }
    for more in message {
        out.push_str(&format!("    {more}\n"));
    }
    let (Some(s), Some(l), Some(c)) = (span, line, col) else {
        return;
    };
    let start = line_start(text, l).unwrap_or(0);
    let end = text[start..].find('\n').map_or(text.len(), |e| start + e);
    let body = text[start..end].trim_end_matches('\r');
    let width = text[s.start..s.end.min(end).max(s.start)]
        .chars()
        .count()
        .max(1);
    // A long line is shown as a window of it around the problem, marked `...` where cut.
    let chars = body.chars().count();
    let (from, to) = if chars <= WINDOW {
        (0, chars)
    } else {
        let from = (c - 1).saturating_sub(WINDOW / 4).min(chars - WINDOW);
        (from, from + WINDOW)
    };
    let shown: String = body.chars().skip(from).take(to - from).collect();
    let (pre, post) = (
        if from > 0 { "..." } else { "" },
        if to < chars { "..." } else { "" },
    );
    let col = pre.len() + (c - 1).saturating_sub(from);
    let width = width.min((to + pre.len()).saturating_sub(col).max(1));
    let gutter = " ".repeat(l.to_string().len());
    out.push_str(&format!("  {gutter} |\n"));
    out.push_str(&format!("  {l} | {pre}{shown}{post}\n"));
    out.push_str(&format!(
        "  {gutter} | {}{}\n",
        " ".repeat(col),
        "^".repeat(width)
    ));
}

/// The most characters of a line a snippet shows.
const WINDOW: usize = 120;

impl ScenarioError {
    /// The error with each problem's line and column and the offending text of `text`
    /// (the scenario as parsed) underlined. Without `text`, or where a problem has no
    /// line, it reads as [`std::fmt::Display`] does.
    pub fn render(&self, text: &str) -> String {
        let n = self.problems.len();
        let mut out = format!(
            "{}: {} problem{}\n",
            self.file.display(),
            n,
            if n == 1 { "" } else { "s" }
        );
        for p in &self.problems {
            render_problem(text, p, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn err(path: &str, line: usize, message: &str) -> ScenarioError {
        ScenarioError {
            file: PathBuf::from("s.toml"),
            problems: vec![Problem {
                path: path.into(),
                line: Some(line),
                message: message.into(),
            }],
        }
    }

    #[test]
    fn underlines_the_value_at_the_path() {
        let text = "name = \"x\"\n[[pools]]\nname = \"a\"\nnodes = -2\n";
        let r = err("pools[0].nodes", 4, "must be at least 1").render(text);
        // "nodes = -2": the value starts in column 9 and is two characters long.
        assert_eq!(
            r,
            "s.toml: 1 problem\n  pools[0].nodes (line 4, column 9): must be at least 1\n    |\n  4 | nodes = -2\n    |         ^^\n"
        );
    }

    #[test]
    fn underlines_a_parse_error_where_the_parser_points() {
        let text = "name = \"x\"\nseed = \"seven\"\n";
        let r = err("", 2, "invalid type").render(text);
        // The parser points at the string "seven" (column 8, 7 characters with quotes).
        assert!(r.contains("line 2, column 8: invalid type"), "{r}");
        assert!(
            r.ends_with("  2 | seed = \"seven\"\n    |        ^^^^^^^\n"),
            "{r}"
        );
    }

    #[test]
    fn a_long_line_is_shown_as_a_window_around_the_problem() {
        // A value of 10,000 characters starting at column 8: the window starts at the
        // line's start and is cut at its end.
        let text = format!(
            "name = \"x\"\n[[pools]]\nname = \"{}\"\nnodes = -2\n",
            "y".repeat(10_000)
        );
        let r = err("pools[0].name", 3, "too long").render(&text);
        let lines: Vec<&str> = r.lines().collect();
        // Heading, gutter, the window (120 characters and the markers), the underline.
        assert!(lines[3].len() < 140, "{}", lines[3].len());
        assert!(lines[3].starts_with("  3 | name = \"yyy"), "{}", lines[3]);
        assert!(lines[3].ends_with("yyy..."), "{}", lines[3]);
        // The value starts in column 8: the caret under it, cut at the window's end.
        assert!(lines[4].starts_with("    |        ^^^"), "{}", lines[4]);
        assert!(lines[4].len() <= 6 + 3 + 120, "{}", lines[4].len());
        // A problem far along the line: the window starts before it, marked.
        let sizes = vec!["{ gpus = 1, weight = 1 }"; 300].join(", ");
        let text = format!("[workload]\nsizes = [{sizes}, {{ gpus = 1, weight = -5 }}]\n");
        let r = err("workload.sizes[300].weight", 2, "must be positive").render(&text);
        let lines: Vec<&str> = r.lines().collect();
        // "sizes = [" is 9 characters, each size and its ", " 26, then 21 to the value:
        // 9 + 300 x 26 + 21 = 7,830 characters before it, column 7,831.
        assert!(lines[1].contains("column 7831"), "{}", lines[1]);
        assert!(
            lines[3].starts_with("  2 | ...") && lines[3].len() < 140,
            "{}",
            lines[3]
        );
        assert!(lines[3].ends_with("weight = -5 }]"), "{}", lines[3]);
        // The caret is under the "-5" of the window.
        let at = lines[4].find('^').unwrap();
        assert_eq!(&lines[3][at..at + 2], "-5", "{r}");
        let many = format!("k = \"{}\"\n", "w".repeat(5_000));
        let r = err("", 1, &format!("unknown variant `{}`", "w".repeat(5_000))).render(&many);
        assert!(r.len() < 2_000, "{}", r.len());
    }

    #[test]
    fn a_problem_without_a_line_has_no_snippet() {
        let mut e = err("workload", 1, "missing");
        e.problems[0].line = None;
        assert_eq!(
            e.render("name = 1\n"),
            "s.toml: 1 problem\n  workload: missing\n"
        );
    }
}
