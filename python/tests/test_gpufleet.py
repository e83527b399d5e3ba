"""The Python package against the command line: same scenario and seed, same summary and
tables; bad input raises with the CLI's message; the GIL is released while simulating;
Parquet files read back by pyarrow, polars and DuckDB with the documented types and the
CSV's values.

The CLI is ``$GPUFLEET_BIN`` (default: ``target/release/gpufleet`` of the repository)."""

import csv
import json
import os
import re
import subprocess
import sys
import threading
import time

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import gpufleet

REPO = Path(__file__).resolve().parents[2]
BIN = Path(os.environ.get("GPUFLEET_BIN", REPO / "target" / "release" / "gpufleet"))
BASE = REPO / "tests" / "data" / "sweep-base.toml"


def cli(*args, check=True):
    env = {k: v for k, v in os.environ.items() if k != "RUST_LOG"}
    r = subprocess.run([str(BIN), *map(str, args)], capture_output=True, text=True, env=env)
    if check and r.returncode != 0:
        raise AssertionError(f"gpufleet {args} exited {r.returncode}: {r.stderr}")
    return r


def documented(file):
    """(column, type, nullable) of a Parquet file, from docs/outputs.md."""
    doc = (REPO / "docs" / "outputs.md").read_text()
    head = f"### {file}\n"
    rest = doc[doc.index(head) + len(head):].splitlines()
    rows = [l for l in rest[rest.index(next(l for l in rest if l.startswith("|"))):]]
    out = []
    for line in rows[2:]:
        if not line.startswith("|"):
            break
        c = [x.strip() for x in line.strip("|").split("|")]
        out.append((c[0].strip("`"), c[1], c[2] == "yes"))
    return out


def csv_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def assert_table_equals_csv(table: pa.Table, path: Path):
    rows = csv_rows(path)
    assert table.num_rows == len(rows), path
    assert table.column_names == list(rows[0].keys()) if rows else True
    cols = table.to_pydict()
    for i, row in enumerate(rows):
        for name, cell in row.items():
            v = cols[name][i]
            where = f"{path.name} row {i} {name}"
            if v is None:
                assert cell == "", where
            elif isinstance(v, str):
                assert v == cell, where
            elif isinstance(v, bool):  # before int: a bool is an int in Python
                assert cell == str(v).lower(), where
            elif isinstance(v, int):
                assert v == int(cell), where
            else:
                assert v == float(cell), f"{where}: {v} vs CSV {cell}"


def test_run_equals_the_cli(tmp_path):
    out = tmp_path / "cli"
    cli("run", BASE, "--seed", 9, "--out", out, "-q")
    r = gpufleet.run(BASE, seed=9)
    assert r.seed == 9 and r.scenario == "sweep-base"
    assert r.summary == json.loads((out / "summary.json").read_text())
    assert_table_equals_csv(r.jobs, out / "jobs.csv")
    assert_table_equals_csv(r.pools, out / "pools.csv")
    assert_table_equals_csv(r.timeline, out / "timeline.csv")
    # The built-in quickstart, as `gpufleet run` with no file.
    q = tmp_path / "q"
    cli("run", "--out", q, "-q", "--seed", 2)
    assert gpufleet.run(None, seed=2).summary == json.loads((q / "summary.json").read_text())


def test_out_writes_the_same_folder_as_the_cli(tmp_path):
    cli("run", BASE, "--out", tmp_path / "cli", "-q", "--format", "both")
    r = gpufleet.run(BASE, out=tmp_path / "py", format="both")
    assert r.out == tmp_path / "py"
    for f in ["summary.json", "jobs.csv", "pools.csv", "timeline.csv",
              "jobs.parquet", "pools.parquet", "timeline.parquet"]:
        assert (tmp_path / "py" / f).read_bytes() == (tmp_path / "cli" / f).read_bytes(), f


def test_overrides_text_and_dict_scenarios(tmp_path):
    text = BASE.read_text()
    edited = text.replace('name = "rented"\ngpu_type = "H100"\nkind = "on_demand"\nnodes = 1',
                          'name = "rented"\ngpu_type = "H100"\nkind = "on_demand"\nnodes = 3')
    assert edited != text
    by_text = gpufleet.run(edited)
    by_override = gpufleet.run(BASE, **{"pools[1].nodes": 3})
    by_dunder = gpufleet.run(BASE, pools__1__nodes=3)
    strip = lambda s: {k: v for k, v in s.items() if k != "scenario_hash"}
    assert strip(by_override.summary) == strip(by_text.summary) == strip(by_dunder.summary)
    # 3 rented nodes of 8 GPUs, by hand.
    gpus = dict(zip(by_override.pools["pool"].to_pylist(), by_override.pools["gpus"].to_pylist()))
    assert gpus == {"owned": 16, "rented": 24}
    # An integer where the scenario has a float is taken as a float.
    assert gpufleet.run(BASE, **{"workload.rate_per_hour": 2}).summary["jobs"]["submitted"] > 0
    # A dict of the same structure as the file (tomllib: Python 3.11 and later).
    d = pytest.importorskip("tomllib").loads(text)
    assert strip(gpufleet.run(d).summary) == strip(gpufleet.run(BASE).summary)


def test_bad_scenario_raises_the_cli_message(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(BASE.read_text().replace('policy = "easy_backfill"', 'policy = "easy_backfil"'))
    r = cli("run", bad, "--out", tmp_path / "o", check=False)
    assert r.returncode == 2
    message = r.stderr.strip().removeprefix("error: ")
    with pytest.raises(gpufleet.ScenarioError) as e:
        gpufleet.run(bad)
    assert str(e.value) == message
    assert "line 24, column 10" in message and "did you mean `easy_backfill`?" in message
    assert isinstance(e.value, ValueError)
    # validate: the same message as `gpufleet validate`.
    r = cli("validate", bad, check=False)
    with pytest.raises(gpufleet.ScenarioError) as e:
        gpufleet.validate(bad)
    assert str(e.value) == r.stderr.strip().removeprefix("error: ")
    # A bad override names its path.
    with pytest.raises(gpufleet.ScenarioError, match=r"pools\[9\]"):
        gpufleet.run(BASE, **{"pools[9].nodes": 1})
    with pytest.raises(gpufleet.ScenarioError, match="cannot read"):
        gpufleet.run(tmp_path / "missing.toml")


def test_validate_matches_the_cli_json():
    got = gpufleet.validate(BASE)
    want = json.loads(cli("validate", BASE, "--json").stdout)
    assert got == want
    assert got["ok"] and got["gpus"] == 24


def test_the_gil_is_released_while_simulating():
    ticks = []
    stop = threading.Event()

    def count():
        n = 0
        while not stop.is_set():
            n += 1
            if n % 1000 == 0:
                ticks.append(time.perf_counter())

    t = threading.Thread(target=count)
    t.start()
    time.sleep(0.05)
    t0 = time.perf_counter()
    # About 100k jobs: long enough to see the other thread run meanwhile.
    r = gpufleet.run(BASE, **{"workload.rate_per_hour": 2000.0, "horizon": "48h"})
    t1 = time.perf_counter()
    stop.set()
    t.join()
    assert r.summary["jobs"]["submitted"] > 50_000
    # With the GIL held for the whole call, the counter could not run between t0 and t1
    # (bar a switch at the very start and end); released, it runs all along.
    lo, hi = t0 + 0.2 * (t1 - t0), t1 - 0.2 * (t1 - t0)
    inside = sum(1 for x in ticks if lo < x < hi)
    assert t1 - t0 > 0.05, "the run is too short to tell"
    # Each tick is 1,000 turns of the other thread's loop.
    assert inside >= 10, f"{inside} ticks of the other thread during {t1 - t0:.2f} s"


def test_sweep_equals_the_cli(tmp_path):
    (tmp_path / "base.toml").write_text(BASE.read_text())
    f = tmp_path / "sweep.toml"
    f.write_text('name = "p"\nscenario = "base.toml"\nseeds = 2\n'
                 '[[param]]\npath = "scheduler.policy"\nvalues = ["fifo", "sjf"]\n')
    cli("sweep", f, "--out", tmp_path / "cli", "-q", "--threads", "2")
    s = gpufleet.sweep(f, threads=2)
    assert s.out is None and s.outcome["runs"] == 4
    assert_table_equals_csv(s.runs, tmp_path / "cli" / "runs.csv")
    assert_table_equals_csv(s.points, tmp_path / "cli" / "points.csv")
    assert s.runs.schema.field("run").type == pa.int64()
    assert s.runs.schema.field("scheduler.policy").type == pa.string()
    assert s.points.schema.field("wait_s_p95_mean").type == pa.float64()


def test_parquet_files_read_back_with_documented_types(tmp_path):
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    out = tmp_path / "r"
    cli("run", BASE, "--out", out, "--format", "both", "-q")
    arrow_type = {"int64": pa.int64(), "float64": pa.float64(), "string": pa.string(),
                  "bool": pa.bool_()}
    polars_type = {"int64": pl.Int64, "float64": pl.Float64, "string": pl.String,
                   "bool": pl.Boolean}
    duck_type = {"int64": "BIGINT", "float64": "DOUBLE", "string": "VARCHAR", "bool": "BOOLEAN"}
    for stem in ["jobs", "pools", "timeline"]:
        path = out / f"{stem}.parquet"
        docs = documented(f"{stem}.parquet")
        t = pq.read_table(path)
        assert [(f.name, f.type, f.nullable) for f in t.schema] == \
            [(c, arrow_type[ty], null) for c, ty, null in docs], stem
        assert_table_equals_csv(t, out / f"{stem}.csv")
        df = pl.read_parquet(path)
        assert [(c, df.schema[c]) for c in df.columns] == [(c, polars_type[ty]) for c, ty, _ in docs]
        assert df.to_arrow().cast(t.schema).equals(t)
        con = duckdb.connect()
        desc = con.execute(f"DESCRIBE SELECT * FROM read_parquet('{path}')").fetchall()
        assert [(r[0], r[1]) for r in desc] == [(c, duck_type[ty]) for c, ty, _ in docs]
        rows = con.execute(f"SELECT * FROM read_parquet('{path}')").fetchall()
        assert rows == [tuple(r) for r in zip(*t.to_pydict().values())] or t.num_rows == 0
    # The package's tables are the files' tables.
    r = gpufleet.run(BASE)
    assert r.jobs.equals(pq.read_table(out / "jobs.parquet"))
    assert r.jobs.to_pandas().shape == (r.jobs.num_rows, r.jobs.num_columns)


def test_plan_and_compare_are_exposed_when_built():
    assert gpufleet.HAS_PLAN == hasattr(gpufleet, "plan")
    assert gpufleet.HAS_COMPARE == hasattr(gpufleet, "compare")


def test_csv_tables_are_typed_by_readers_that_infer(tmp_path):
    """The issue's polars failure: whole values written without ".0" made a float column
    look like integers to type inference (polars reads the first 100 rows). Here the first
    200 jobs have whole submit times and durations and 1-GPU requests, so the first 100
    rows of jobs.csv hold whole values only; later ones are fractional. Every reader must
    still infer the documented types."""
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    pd = pytest.importorskip("pandas")
    rows = ["job_id,submit_s,gpus,duration_s"]
    for i in range(200):
        rows.append(f"w{i},{i * 60},1,600")
    for i in range(200, 320):
        rows.append(f"f{i},{i * 60 + 0.125},0.5,{600 + i / 8}")
    (tmp_path / "trace.csv").write_text("\n".join(rows) + "\n")
    # 64 GPUs for at most 11 concurrent 1-GPU jobs: every job completes, no column is empty.
    (tmp_path / "s.toml").write_text(
        'name = "typed"\nseed = 1\nhorizon = "12h"\ntimeline_interval = "10m"\n'
        '[[pools]]\nname = "p"\ngpu_type = "H100"\nkind = "owned"\nnodes = 8\n'
        'gpus_per_node = 8\nprice_per_node_hour = 10.0\n'
        '[scheduler]\npolicy = "fifo"\n'
        '[workload]\nkind = "csv"\npath = "trace.csv"\n')
    out = tmp_path / "r"
    cli("run", tmp_path / "s.toml", "--out", out, "-q")
    assert csv_rows(out / "jobs.csv")[0]["submit_s"] == "0.0"
    polars_type = {"int64": pl.Int64, "float64": pl.Float64, "string": pl.String,
                   "bool": pl.Boolean}
    duck_type = {"int64": "BIGINT", "float64": "DOUBLE", "string": "VARCHAR", "bool": "BOOLEAN"}
    pandas_kind = {"int64": "i", "float64": "f", "string": "O", "bool": "b"}
    for stem in ["jobs", "pools", "timeline"]:
        path = out / f"{stem}.csv"
        docs = documented(f"{stem}.parquet")
        df = pl.read_csv(path)  # default inference: the first 100 rows
        assert [(c, df.schema[c]) for c in df.columns] == \
            [(c, polars_type[ty]) for c, ty, _ in docs], stem
        assert df.height == len(csv_rows(path))
        desc = duckdb.connect().execute(
            f"DESCRIBE SELECT * FROM read_csv_auto('{path}')").fetchall()
        assert [(r[0], r[1]) for r in desc] == [(c, duck_type[ty]) for c, ty, _ in docs], stem
        p = pd.read_csv(path, keep_default_na=False, na_values=[""])
        for c, ty, null in docs:
            # pandas has no nullable integers or booleans by default: a column with gaps
            # is float (integers) or object (booleans).
            # An all-empty column (reject_reason when nothing was rejected) has no values
            # for pandas to type: it reads as float NaNs.
            if null and p[c].isna().all():
                continue
            if not (ty in ("int64", "bool") and null and p[c].isna().any()):
                assert p[c].dtype.kind == pandas_kind[ty], f"{stem}.{c}: {p[c].dtype}"
    jobs = pl.read_csv(out / "jobs.csv")
    assert jobs.height == 320 and jobs["outcome"].unique().to_list() == ["completed"]
    assert jobs["submit_s"][250] == 250 * 60 + 0.125


SWEEP = REPO / "scenarios" / "sweeps" / "quickstart-mix.toml"


def test_thread_counts_are_capped_as_on_the_command_line(tmp_path):
    """`gpufleet sweep --threads` takes at most 1024; the package passed any count to the
    thread pool (threads=100_000 spawned threads until the interpreter died)."""
    with pytest.raises(ValueError, match="threads"):
        gpufleet.sweep(SWEEP, threads=1025, out=tmp_path / "s")
    assert not (tmp_path / "s").exists()
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match="threads"):
            gpufleet.sweep(SWEEP, threads=bad)
    for bad in (1.5, "2", None):
        with pytest.raises(TypeError, match="threads"):
            gpufleet.sweep(SWEEP, threads=bad)
    # The native function refuses too (it is importable).
    with pytest.raises(ValueError, match="threads"):
        gpufleet._gpufleet.sweep(SWEEP.read_text(), str(SWEEP), str(SWEEP.parent),
                                 str(tmp_path / "n"), 100_000)
    assert not (tmp_path / "n").exists()
    assert gpufleet.MAX_THREADS == 1024


def test_seeds_out_of_range_or_of_the_wrong_type_name_the_seed():
    """A seed is 0 to 2**64-1: others raised OverflowError or TypeError with pyo3's words
    ("can't convert negative int to unsigned"), naming nothing."""
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match="seed"):
            gpufleet.run(BASE, seed=bad)
    for bad in (1.5, "7", [7]):
        with pytest.raises(TypeError, match="seed"):
            gpufleet.run(BASE, seed=bad)
    assert gpufleet.run(BASE, seed=2**64 - 1).seed == 2**64 - 1


def test_sweep_of_none_is_a_type_error():
    """None is the quickstart *scenario* for run and validate; for sweep it used the
    scenario as a sweep file, raising about the quickstart's `description` field."""
    with pytest.raises(TypeError, match="sweep"):
        gpufleet.sweep(None)


def test_a_file_not_in_utf8_names_the_file(tmp_path):
    f = tmp_path / "latin1.toml"
    f.write_bytes(BASE.read_bytes().replace(b'name = "sweep-base"', b'name = "caf\xe9"'))
    with pytest.raises(gpufleet.ScenarioError, match=r"(?s)latin1\.toml.*not UTF-8"):
        gpufleet.run(f)
    with pytest.raises(gpufleet.ScenarioError, match=r"(?s)latin1\.toml.*not UTF-8"):
        gpufleet.sweep(f)


def test_a_dict_key_that_is_not_a_string_names_where():
    with pytest.raises(gpufleet.ScenarioError, match=r"scheduler.*1.*not a string"):
        gpufleet.run({"name": "x", "scheduler": {1: "fifo"}})


def test_a_non_finite_override_says_so():
    """json.dumps(nan) is `NaN`, which is not JSON: the message was serde_json's
    "expected value at line 1 column 1"."""
    for bad in (float("nan"), float("inf"), [1.0, float("-inf")]):
        with pytest.raises(gpufleet.ScenarioError,
                           match=r"workload\.rate_per_hour.*not a finite number"):
            gpufleet.run(BASE, **{"workload.rate_per_hour": bad})


def test_empty_deep_and_meaningless_inputs_raise_clearly():
    # "" was read as the path "." ("cannot read: Is a directory: '.'").
    with pytest.raises(gpufleet.ScenarioError, match="empty"):
        gpufleet.run("")
    # A dict nested past Python's recursion limit raised a bare RecursionError.
    d = 1
    for _ in range(5000):
        d = {"a": d}
    with pytest.raises(gpufleet.ScenarioError, match="nested"):
        gpufleet.run({"name": "x", "x": d})
    with pytest.raises(gpufleet.ScenarioError, match="nested"):
        gpufleet.run(BASE, **{"scheduler.policy": d})
    # resume=True without out had nothing to resume: it was dropped without a word.
    with pytest.raises(ValueError, match="resume"):
        gpufleet.sweep(SWEEP, resume=True)


def test_format_without_out_is_refused(tmp_path):
    """format chooses the files of the output folder: without out no file was written and
    the request was dropped without a word."""
    with pytest.raises(ValueError, match="format"):
        gpufleet.run(BASE, format="parquet")
    with pytest.raises(ValueError, match="format"):
        gpufleet.sweep(SWEEP, format="both")
    assert gpufleet.run(BASE, out=tmp_path / "r", format="parquet").out == tmp_path / "r"
    assert (tmp_path / "r" / "jobs.parquet").is_file()


def test_an_override_integer_beyond_64_bits_is_named_not_made_a_float():
    """TOML integers are signed 64-bit: a larger override reached the scenario as a float
    ("invalid type: floating point `9223372036854776000.0`"), a number the user never
    wrote."""
    with pytest.raises(gpufleet.ScenarioError, match=r"pools\[0\]\.nodes"):
        gpufleet.run(BASE, **{"pools[0].nodes": 10**5000})  # more digits than int->str allows
    for bad in (2**63, -(2**63) - 1, [1, 2**70]):
        with pytest.raises(gpufleet.ScenarioError, match=r"pools\[0\]\.nodes.*64-bit") as e:
            gpufleet.run(BASE, **{"pools[0].nodes": bad})
        assert "floating point" not in str(e.value)
    with pytest.raises(gpufleet.ScenarioError, match=r"pools\[0\]\.nodes.*between 1 and"):
        gpufleet.run(BASE, **{"pools[0].nodes": 2**63 - 1})
    # A list holding itself ends (json.dumps calls it a circular reference).
    loop = [1]
    loop.append(loop)
    with pytest.raises(gpufleet.ScenarioError, match=r"pools\[0\]\.nodes.*itself"):
        gpufleet.run(BASE, **{"pools[0].nodes": loop})
    # A list used twice is not a loop.
    two = [1]
    with pytest.raises(gpufleet.ScenarioError, match=r"line \d+.*\n(.|\n)*nodes = \{ a = \[1\], b = \[1\] \}"):
        gpufleet.run(BASE, **{"pools[0].nodes": {"a": two, "b": two}})


def test_a_bool_is_not_a_seed_or_a_thread_count(tmp_path):
    """True is an int to Python: seed=True ran seed 1 and threads=True one thread. A bool
    is refused as seed="7" is, naming the argument (the native functions too)."""
    for bad in (True, False):
        with pytest.raises(TypeError, match="seed.*bool"):
            gpufleet.run(BASE, seed=bad)
        with pytest.raises(TypeError, match="threads.*bool"):
            gpufleet.sweep(SWEEP, threads=bad, out=tmp_path / "s")
    assert not (tmp_path / "s").exists()
    with pytest.raises(TypeError, match=r"(?s)bool.*'seed'"):
        gpufleet._gpufleet.run(BASE.read_text(), str(BASE), str(BASE.parent), True)
    with pytest.raises(TypeError, match=r"(?s)bool.*'threads'"):
        gpufleet._gpufleet.sweep(SWEEP.read_text(), str(SWEEP), str(SWEEP.parent),
                                 str(tmp_path / "n"), True)
    assert not (tmp_path / "n").exists()


def test_a_path_holding_a_nul_byte_is_bad_input_naming_the_argument(tmp_path):
    """No file has a NUL byte in its name: such a path raised a bare ValueError
    ("embedded null byte") for the scenario or sweep file, and an OSError after the run
    for out."""
    for bad in ("a\0b", Path("a\0b")):
        with pytest.raises(gpufleet.ScenarioError, match="scenario.*NUL"):
            gpufleet.run(bad)
        with pytest.raises(gpufleet.ScenarioError, match="scenario.*NUL"):
            gpufleet.validate(bad)
        with pytest.raises(gpufleet.ScenarioError, match="sweep_file.*NUL"):
            gpufleet.sweep(bad)
    with pytest.raises(gpufleet.ScenarioError, match="out.*NUL"):
        gpufleet.run(BASE, out=str(tmp_path / "r\0un"))
    with pytest.raises(gpufleet.ScenarioError, match="out.*NUL"):
        gpufleet.sweep(SWEEP, out=str(tmp_path / "s\0weep"))
    assert list(tmp_path.iterdir()) == []


SHARED = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
import gpufleet
d = {}
for _ in range(40):
    d = {"a": d, "b": d}
try:
    if sys.argv[1] == "override":
        gpufleet.run(sys.argv[2], **{"scheduler.policy": d})
    else:
        gpufleet.run({"name": "x", "x": d})
except gpufleet.ScenarioError as e:
    print(e)
"""


def test_a_value_sharing_one_dict_at_every_level_ends_at_once():
    """A dict used for both keys of its parent, 40 levels down, is 41 objects; written out
    it is 2**40 leaves, and json.dumps (overrides) or the dict-to-TOML writer (scenario
    dicts) went on until the memory ran out. It is measured once per object now and
    refused at the 16 MiB a scenario file may be. Run in a child process capped at 2 GiB
    and a minute, so that a regression fails instead of taking the machine's memory."""
    for kind, where in (("override", r"override scheduler\.policy"),
                        ("dict", r"<scenario dict>")):
        start = time.monotonic()
        r = subprocess.run([sys.executable, "-c", SHARED, kind, str(BASE)],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr[-2000:]
        assert re.search(f"{where}.*16 MiB", r.stdout), r.stdout
        assert time.monotonic() - start < 30
