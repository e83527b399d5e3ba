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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_lines_of_paths() {
        let text = "name = \"x\"\n\n[[pools]]\nname = \"a\"\nnodes = 1\n\n[[pools]]\nname = \"b\"\nnodes = -2\n[workload]\nduration = { kind = \"fixed\", value = \"1h\" }\n";
        assert_eq!(line_of_path(text, "name"), Some(1));
        assert_eq!(line_of_path(text, "pools[1].nodes"), Some(9));
        assert_eq!(line_of_path(text, "pools[0].name"), Some(4));
        assert_eq!(line_of_path(text, "workload.duration.value"), Some(11));
        assert_eq!(line_of_path(text, "nope"), None);
    }
}
