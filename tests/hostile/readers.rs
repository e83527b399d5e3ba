//! Hostile traces for every reader: a 3 GB file of zero bytes (one endless "line"), a line
//! longer than the limit, a bad field, a job no pool can hold. Each ends in seconds,
//! under the memory cap, with exit 2 and the file, the line or row and the field named.

use super::{gpufleet, put, scenario, scratch, zeros};

/// Every trace format `--format` takes.
const FORMATS: &[&str] = &[
    "generic", "swf", "helios", "pai", "philly", "tiresias", "openb",
];

#[test]
fn a_file_of_zero_bytes_is_refused_by_every_reader() {
    // 3 GiB of zeros: above the 2 GiB memory cap, so a reader that holds the "line" whole
    // (or the file) dies on allocation instead of answering.
    let d = scratch();
    let f = zeros(d.path(), "zeros.trace", 3 << 30);
    for format in FORMATS {
        let e = gpufleet(
            d.path(),
            &["trace", "inspect", f.to_str().unwrap(), "--format", format],
        );
        e.refused(2, &["zeros.trace"]);
        assert!(e.secs < 30.0, "{format}: {e:#?}");
        // The message says which line, or that the file is not text of this format.
        let msg = e.stderr.to_lowercase();
        assert!(
            msg.contains("line") || msg.contains("row") || msg.contains("byte"),
            "{format}: no position in {msg}"
        );
    }
}

#[test]
fn a_zero_byte_trace_in_a_scenario_is_refused() {
    let d = scratch();
    zeros(d.path(), "t.csv", 3 << 30);
    let body = "[workload]\nkind = \"csv\"\npath = \"t.csv\"\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    for cmd in ["validate", "run"] {
        gpufleet(d.path(), &[cmd, f.to_str().unwrap()]).refused(2, &["t.csv", "line 1"]);
    }
}

#[test]
fn a_bad_field_names_file_line_and_field() {
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nb,10,one,60\nc,20,1,60\n",
    );
    let e = gpufleet(
        d.path(),
        &["trace", "inspect", "t.csv", "--format", "generic"],
    );
    e.refused(2, &["t.csv", "3", "gpus"]);
}

#[test]
fn a_bad_swf_field_names_file_line_and_field() {
    // SWF: 18 whitespace-separated fields; field 5 (allocated processors) is not a number.
    let d = scratch();
    put(
        d.path(),
        "t.swf",
        "; comment\n1 0 5 100 4 -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n2 10 5 100 four -1 -1 4 100 -1 1 1 1 -1 1 -1 -1 -1\n",
    );
    let e = gpufleet(d.path(), &["trace", "inspect", "t.swf", "--format", "swf"]);
    e.refused(2, &["t.swf", "3"]);
}

#[test]
fn a_job_no_pool_can_hold_is_an_error_unless_rejected() {
    // 64 GPUs on two 8-GPU nodes: no pool can ever hold rows 3 and 4.
    let d = scratch();
    put(
        d.path(),
        "t.csv",
        "job_id,submit_s,gpus,duration_s\na,0,1,60\nhuge,10,64,60\nhuger,20,128,60\nd,30,2,60\n",
    );
    let body = "[workload]\nkind = \"csv\"\npath = \"t.csv\"\n";
    let f = put(d.path(), "s.toml", &scenario("", body));
    for cmd in ["validate", "run"] {
        let e = gpufleet(d.path(), &[cmd, f.to_str().unwrap()]);
        e.refused(2, &["t.csv", "huge", "huger", "2 jobs", "oversized"]);
    }
    // With oversized = "reject": the run succeeds, says how many and why, and jobs.csv
    // gives each rejected job its reason.
    let f = put(
        d.path(),
        "r.toml",
        &scenario("oversized = \"reject\"", body),
    );
    let e = gpufleet(d.path(), &["run", "-q", f.to_str().unwrap(), "--out", "o"]);
    assert_eq!(e.code, 0, "{e:#?}");
    assert!(e.stderr.contains("rejected 2 jobs"), "{}", e.stderr);
    let jobs = std::fs::read_to_string(d.path().join("o/jobs.csv")).unwrap();
    let mut rows = csv::Reader::from_reader(jobs.as_bytes());
    let head = rows.headers().unwrap().clone();
    let col = |n: &str| head.iter().position(|h| h == n).unwrap();
    let (name, outcome, why) = (col("name"), col("outcome"), col("reject_reason"));
    let mut rejected = Vec::new();
    for r in rows.records() {
        let r = r.unwrap();
        if &r[outcome] == "rejected" {
            assert!(!r[why].is_empty(), "a rejected job without a reason: {r:?}");
            rejected.push(r[name].to_string());
        } else {
            assert!(r[why].is_empty(), "a reason on a job that ran: {r:?}");
        }
    }
    assert_eq!(rejected, ["huge", "huger"]);
}

#[test]
fn an_error_quoting_a_huge_cell_stays_short() {
    // A header (or first line) of 900 KB, under the line limit: every reader's message
    // names the file and stays a few lines long instead of echoing the cell.
    let d = scratch();
    let f = put(
        d.path(),
        "wide.trace",
        &format!("{}\n1,2,3\n", "[".repeat(900_000)),
    );
    for format in FORMATS {
        let e = gpufleet(
            d.path(),
            &["trace", "inspect", f.to_str().unwrap(), "--format", format],
        );
        e.refused(2, &["wide.trace"]);
        assert!(e.stderr.len() < 4_000, "{format}: {} bytes", e.stderr.len());
    }
    // A scenario whose bad line is 2 MB long.
    let s = put(
        d.path(),
        "s.toml",
        &format!("name = \"x\"\nseed = {}\n", "9".repeat(2_000_000)),
    );
    let e = gpufleet(d.path(), &["validate", s.to_str().unwrap()]);
    e.refused(2, &["s.toml", "line 2"]);
    assert!(e.stderr.len() < 4_000, "{} bytes", e.stderr.len());
}
