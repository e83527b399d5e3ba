//! "Did you mean": a message that names an unknown field, variant or name and lists the
//! known ones gets the closest known one appended, when one is close enough to be a typo.

/// The known name closest to `word`, if it is close enough to be a misspelling: an edit
/// distance (Damerau-Levenshtein, case-insensitive) of at most a third of the longer
/// name, and at least 1; or `word` being a prefix (`easy` for `easy_backfill`).
pub fn closest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    let w = word.to_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for &k in known {
        let kl = k.to_lowercase();
        if kl == w {
            return None;
        }
        let d = strsim::damerau_levenshtein(&w, &kl);
        let limit = (w.chars().count().max(kl.chars().count()) / 3).max(1);
        let prefix = w.len() >= 3 && kl.starts_with(&w);
        if d <= limit || prefix {
            let score = if prefix { d.min(limit) } else { d };
            if best.is_none_or(|(b, _)| score < b) {
                best = Some((score, k));
            }
        }
    }
    best.map(|(_, k)| k)
}

/// The first text between a pair of delimiters `open`/`close` after `from`.
fn quoted_after(msg: &str, from: usize, open: char, close: char) -> Option<&str> {
    let rest = &msg[from..];
    let a = rest.find(open)? + open.len_utf8();
    let b = rest[a..].find(close)?;
    Some(&rest[a..a + b])
}

/// The unknown word and the known names of a message such as ``unknown field `polcy`,
/// expected one of `policy`, `placement` ``, ``unknown variant `fiffo`, expected `fifo` or
/// `sjf` ``, or `unknown failure preset "x" (known: a, b)`.
fn parse(msg: &str) -> Option<(String, Vec<String>)> {
    let at = msg.find("unknown ")?;
    let word = quoted_after(msg, at, '`', '`').or_else(|| quoted_after(msg, at, '"', '"'))?;
    let list = if let Some(i) = msg.find("expected one of ") {
        &msg[i + "expected one of ".len()..]
    } else if let Some(i) = msg.find("(known: ") {
        &msg[i + "(known: ".len()..]
    } else if let Some(i) = msg.find("(built in: ") {
        &msg[i + "(built in: ".len()..]
    } else if let Some(i) = msg.find("expected ") {
        &msg[i + "expected ".len()..]
    } else {
        return None;
    };
    let list = list.split(')').next().unwrap_or(list);
    let known: Vec<String> = list
        .split(", ")
        .flat_map(|s| s.split(" or "))
        .map(|s| s.trim().trim_matches(|c| c == '`' || c == '"').to_string())
        .filter(|s| !s.is_empty() && !s.contains(' '))
        .collect();
    if known.is_empty() {
        return None;
    }
    Some((word.to_string(), known))
}

/// `msg` with "; did you mean `x`?" appended when it names an unknown word close to a
/// known one it lists; `msg` unchanged otherwise.
pub fn with_suggestion(msg: &str) -> String {
    if msg.contains("did you mean") {
        return msg.to_string();
    }
    let Some((word, known)) = parse(msg) else {
        return msg.to_string();
    };
    let known: Vec<&str> = known.iter().map(String::as_str).collect();
    match closest(&word, &known) {
        Some(k) => format!("{msg}; did you mean `{k}`?"),
        None => msg.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_near_name() {
        let m = "unknown field `polcy`, expected one of `policy`, `placement`, `pool_order`";
        assert_eq!(with_suggestion(m), format!("{m}; did you mean `policy`?"));
        let m = "unknown variant `easy_backfil`, expected one of `fifo`, `easy_backfill`";
        assert!(with_suggestion(m).ends_with("did you mean `easy_backfill`?"));
        let m = "unknown variant `fiffo`, expected `fifo` or `sjf`";
        assert!(with_suggestion(m).ends_with("did you mean `fifo`?"));
        let m = "unknown failure preset \"llama-h100\" (known: llama3-h100, none)";
        assert!(with_suggestion(m).ends_with("did you mean `llama3-h100`?"));
    }

    #[test]
    fn stays_quiet_when_nothing_is_close() {
        // "zzz" is 3+ edits from every name: no guess.
        let m = "unknown field `zzz`, expected one of `policy`, `placement`";
        assert_eq!(with_suggestion(m), m);
        assert_eq!(with_suggestion("must be at least 1"), "must be at least 1");
    }

    #[test]
    fn distance_limit_scales_with_length() {
        // One transposition in a 4-letter name is a typo; two edits in 4 letters are not.
        assert_eq!(closest("fiof", &["fifo", "sjf"]), Some("fifo"));
        assert_eq!(closest("xyfo", &["fifo"]), None);
        // A prefix of at least three letters: easy -> easy_backfill.
        assert_eq!(
            closest("easy", &["fifo", "easy_backfill"]),
            Some("easy_backfill")
        );
        // Case does not count.
        assert_eq!(closest("H10", &["H100", "A100"]), Some("H100"));
    }
}
