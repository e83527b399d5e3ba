//! Setting a value in a scenario document by its dotted path (`pools[1].nodes`,
//! `workload.duration.median`), before the scenario is validated, so any field is
//! sweepable and the scenario's own validation judges the result.

use toml_edit::{DocumentMut, Item, TableLike, Value};

/// One segment of a path: a key, and an index into an array under that key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The key.
    pub key: String,
    /// `[i]` after the key.
    pub index: Option<usize>,
}

/// A path that does not name a settable field of the document.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PathError {
    /// An empty path.
    #[error("the path is empty")]
    Empty,
    /// `key[...` without the closing bracket.
    #[error("`{0}`: expected `key[index]`")]
    NoClosingBracket(String),
    /// `key[x]` where `x` is not a number.
    #[error("`{segment}`: `{index}` is not an index")]
    NotAnIndex {
        /// The segment.
        segment: String,
        /// What stands between the brackets.
        index: String,
    },
    /// A segment that is not a bare key.
    #[error("`{0}` is not a key")]
    NotAKey(String),
    /// A key the document does not have; `within` is "the top level" or a quoted path.
    #[error("no `{key}` in {within}")]
    Missing {
        /// The key.
        key: String,
        /// Where it was looked for.
        within: String,
    },
    /// An index past the end of an array.
    #[error("no `{at}`: `{array}` has {len} entries")]
    OutOfRange {
        /// The indexed path.
        at: String,
        /// The array's path.
        array: String,
        /// Its length.
        len: usize,
    },
    /// A path ending at one table of an array of tables.
    #[error("`{0}` is a whole table; name one of its fields")]
    WholeTable(String),
    /// A path going into something that is not a table.
    #[error("`{0}` is not a table")]
    NotATable(String),
    /// An index into something that is not an array.
    #[error("`{0}` is not an array")]
    NotAnArray(String),
    /// A path ending at a table, which cannot be set to a value.
    #[error("`{0}` is a table; name one of its fields")]
    TableNotValue(String),
    /// The new value cannot be written.
    #[error(transparent)]
    Value(#[from] super::value::ParamValueError),
    /// `key[name]` where no table of the array `key` has that `name`.
    #[error("no `{array}` named {name:?} (names: {known})")]
    NoSuchName {
        /// The array's path.
        array: String,
        /// The name asked for.
        name: String,
        /// The names the array has, comma-separated.
        known: String,
    },
}

/// Parses `a.b[2].c`.
pub fn parse_path(path: &str) -> Result<Vec<Segment>, PathError> {
    let mut out = Vec::new();
    if path.trim().is_empty() {
        return Err(PathError::Empty);
    }
    for seg in path.split('.') {
        let (key, index) = match seg.find('[') {
            Some(i) => {
                let inner = seg[i + 1..]
                    .strip_suffix(']')
                    .ok_or_else(|| PathError::NoClosingBracket(seg.to_string()))?;
                let n = inner.parse::<usize>().map_err(|_| PathError::NotAnIndex {
                    segment: seg.to_string(),
                    index: inner.to_string(),
                })?;
                (&seg[..i], Some(n))
            }
            None => (seg, None),
        };
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(PathError::NotAKey(seg.to_string()));
        }
        out.push(Segment {
            key: key.to_string(),
            index,
        });
    }
    Ok(out)
}

/// Rewrites every `key[name]` segment of `path` (a name where an index would stand, e.g.
/// `pools[owned-h100].nodes`) into `key[i]`, `i` being the table of the array of tables
/// `key` whose `name` field is `name`. Numeric indexes are kept; a path that does not lead
/// through arrays of tables is returned as it was, for [`set_path`] to judge.
pub fn resolve_names(doc: &DocumentMut, path: &str) -> Result<String, PathError> {
    let mut out: Vec<String> = Vec::new();
    let mut here: Option<&dyn TableLike> = Some(doc.as_table());
    for seg in path.split('.') {
        let Some(open) = seg.find('[') else {
            here = here
                .and_then(|t| t.get(seg))
                .and_then(|i| i.as_table_like());
            out.push(seg.to_string());
            continue;
        };
        let key = &seg[..open];
        let inner = seg[open + 1..]
            .strip_suffix(']')
            .ok_or_else(|| PathError::NoClosingBracket(seg.to_string()))?;
        let aot = here
            .and_then(|t| t.get(key))
            .and_then(|i| i.as_array_of_tables());
        let index = match (inner.parse::<usize>(), aot) {
            (Ok(i), _) => Some(i),
            (Err(_), Some(aot)) => {
                let name_of = |t: &toml_edit::Table| {
                    t.get("name").and_then(|v| v.as_str()).map(str::to_string)
                };
                match aot
                    .iter()
                    .position(|t| name_of(t).as_deref() == Some(inner))
                {
                    Some(i) => Some(i),
                    None => {
                        let known: Vec<String> = aot.iter().filter_map(name_of).collect();
                        let at = out
                            .iter()
                            .cloned()
                            .chain([key.to_string()])
                            .collect::<Vec<_>>();
                        return Err(PathError::NoSuchName {
                            array: at.join("."),
                            name: inner.to_string(),
                            known: known.join(", "),
                        });
                    }
                }
            }
            (Err(_), None) => None,
        };
        match index {
            Some(i) => {
                here = aot.and_then(|a| a.get(i)).map(|t| t as &dyn TableLike);
                out.push(format!("{key}[{i}]"));
            }
            None => {
                here = None;
                out.push(seg.to_string());
            }
        }
    }
    Ok(out.join("."))
}

/// A function making the new value from the old one (if the field was present).
type Make<'a> = &'a mut dyn FnMut(Option<&Value>) -> Result<Value, PathError>;

/// Sets the field at `path` to what `make` returns. The parent must exist; the field
/// itself may be absent (the scenario's validation then decides whether it may be set).
pub fn set_path(
    doc: &mut DocumentMut,
    path: &str,
    make: &mut dyn FnMut(Option<&Value>) -> Result<Value, PathError>,
) -> Result<(), PathError> {
    let segs = parse_path(path)?;
    set_in_table(doc.as_table_mut(), &segs, make, "")
}

/// The value at `path`, if present and a plain value.
pub fn get_path(doc: &DocumentMut, path: &str) -> Option<Value> {
    let mut copy = doc.clone();
    let mut found = None;
    // The copy is thrown away, so what is written into it does not matter.
    let _ = set_path(&mut copy, path, &mut |old| {
        found = old.cloned();
        Ok(Value::from(false))
    });
    found
}

fn join(done: &str, key: &str) -> String {
    if done.is_empty() {
        key.to_string()
    } else {
        format!("{done}.{key}")
    }
}

fn set_in_table(
    t: &mut dyn TableLike,
    segs: &[Segment],
    make: Make,
    done: &str,
) -> Result<(), PathError> {
    let Some((seg, rest)) = segs.split_first() else {
        return Err(PathError::Empty);
    };
    let here = join(done, &seg.key);
    if seg.index.is_none() && rest.is_empty() {
        return match t.get_mut(&seg.key) {
            Some(item) => replace(item, make, &here),
            None => {
                let v = make(None)?;
                t.insert(&seg.key, Item::Value(v));
                Ok(())
            }
        };
    }
    let where_ = if done.is_empty() {
        "the top level".to_string()
    } else {
        format!("`{done}`")
    };
    if seg.index.is_none() && t.get(&seg.key).is_none() {
        // A table the scenario leaves out (`scheduler.policy` on a scenario without a
        // `[scheduler]`) is made, as writing it would; the scenario's validation then
        // names a key that is no section (`schedular`), with a suggestion.
        t.insert(&seg.key, toml_edit::table());
    }
    let child = t.get_mut(&seg.key).ok_or_else(|| PathError::Missing {
        key: seg.key.clone(),
        within: where_,
    })?;
    if let Some(i) = seg.index {
        let here_i = format!("{here}[{i}]");
        if let Some(aot) = child.as_array_of_tables_mut() {
            let n = aot.len();
            let tab = aot.get_mut(i).ok_or_else(|| PathError::OutOfRange {
                at: here_i.clone(),
                array: here.clone(),
                len: n,
            })?;
            if rest.is_empty() {
                return Err(PathError::WholeTable(here_i));
            }
            return set_in_table(tab, rest, make, &here_i);
        }
        if let Some(arr) = child.as_array_mut() {
            let n = arr.len();
            let v = arr.get_mut(i).ok_or_else(|| PathError::OutOfRange {
                at: here_i.clone(),
                array: here.clone(),
                len: n,
            })?;
            if rest.is_empty() {
                let new = make(Some(v))?;
                *v = new;
                return Ok(());
            }
            let Some(it) = v.as_inline_table_mut() else {
                return Err(PathError::NotATable(here_i));
            };
            return set_in_table(it, rest, make, &here_i);
        }
        return Err(PathError::NotAnArray(here));
    }
    let Some(sub) = child.as_table_like_mut() else {
        return Err(PathError::NotATable(here));
    };
    set_in_table(sub, rest, make, &here)
}

fn replace(item: &mut Item, make: Make, here: &str) -> Result<(), PathError> {
    match item {
        Item::Value(v) => {
            let new = make(Some(v))?;
            *v = new;
            Ok(())
        }
        Item::None => {
            *item = Item::Value(make(None)?);
            Ok(())
        }
        _ => Err(PathError::TableNotValue(here.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "name = \"x\"\n[[pools]]\nnodes = 1\n[[pools]]\nnodes = 2\n[workload]\nrate = 1.5\nsizes = [{ gpus = 1, weight = 2 }]\nduration = { kind = \"fixed\", value = \"1h\" }\n";

    fn set(path: &str, v: Value) -> Result<String, String> {
        let mut d: DocumentMut = DOC.parse().unwrap();
        set_path(&mut d, path, &mut |_| Ok(v.clone())).map_err(|e| e.to_string())?;
        Ok(d.to_string())
    }

    #[test]
    fn sets_fields_anywhere() {
        assert!(set("pools[1].nodes", 7.into())
            .unwrap()
            .contains("nodes = 7"));
        assert!(set("workload.sizes[0].weight", 9.into())
            .unwrap()
            .contains("weight = 9"));
        assert!(set("workload.duration.value", "2h".into())
            .unwrap()
            .contains("\"2h\""));
        assert!(set("seed", 3.into()).unwrap().contains("seed = 3"));
        // A section the document leaves out is made, at the top level or inline.
        let t = set("scheduler.policy", "sjf".into()).unwrap();
        let back: toml::Table = t.parse().unwrap();
        assert_eq!(back["scheduler"]["policy"].as_str(), Some("sjf"), "{t}");
        let t = set("workload.duration.by.x", 1.into()).unwrap();
        let back: toml::Table = t.parse().unwrap();
        assert_eq!(
            back["workload"]["duration"]["by"]["x"].as_integer(),
            Some(1),
            "{t}"
        );
        let d: DocumentMut = DOC.parse().unwrap();
        assert_eq!(
            get_path(&d, "pools[1].nodes").unwrap().as_integer(),
            Some(2)
        );
    }

    #[test]
    fn names_resolve_to_indexes() {
        let d: DocumentMut =
            "[[pools]]\nname = \"a\"\nnodes = 1\n[[pools]]\nname = \"b-2\"\nnodes = 2\n"
                .parse()
                .unwrap();
        assert_eq!(
            resolve_names(&d, "pools[b-2].nodes").unwrap(),
            "pools[1].nodes"
        );
        assert_eq!(
            resolve_names(&d, "pools[0].nodes").unwrap(),
            "pools[0].nodes"
        );
        assert_eq!(resolve_names(&d, "seed").unwrap(), "seed");
        assert_eq!(
            resolve_names(&d, "pools[c].nodes").unwrap_err().to_string(),
            "no `pools` named \"c\" (names: a, b-2)"
        );
    }

    #[test]
    fn bad_paths_say_why() {
        assert_eq!(
            set("pools[5].nodes", 1.into()).unwrap_err(),
            "no `pools[5]`: `pools` has 2 entries"
        );
        // A missing table is made (the scenario's validation judges its name).
        assert!(set("nope.x", 1.into()).is_ok());
        assert_eq!(
            set("nope[0].x", 1.into()).unwrap_err(),
            "no `nope` in the top level"
        );
        assert!(set("pools", 1.into()).is_err());
        assert!(set("pools[x].nodes", 1.into()).is_err());
        assert!(set("name.x", 1.into()).unwrap_err().contains("not a table"));
    }
}
