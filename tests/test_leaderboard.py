"""`python -m lm_eval_quantum leaderboard`: tables, plots and the page over real lm-eval
runs of the replay model (two models, one of them run twice, a group run, a copy
renamed to a hostile model name), checked number by number against the results
files, and the page rendered in headless Chromium."""
import base64
import csv
import html
import json
import math
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.__main__ import main as lmq_main

REPO = Path(__file__).resolve().parents[1]
# The subprocesses import this checkout, whatever the installed copy is; one sandbox
# worker per lm-eval run (three run at once).
ENV = {**os.environ, "PYTHONPATH": str(REPO), "TOKENIZERS_PARALLELISM": "false", "LMQ_WORKERS": "1",
       "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
EVIL = '<img src=x onerror="alert(1)">|evil&co'
PLOTS = ("heatmap", "frameworks", "errors")


def _start(replay_lines, name, tasks, tmp):
    replay = tmp / f"{name.replace('/', '_')}_{len(list(tmp.glob('*.jsonl')))}.jsonl"
    replay.write_text("".join(json.dumps(line) + "\n" for line in replay_lines))
    out = tmp / f"run_{len(list(tmp.glob('run_*')))}"
    out.mkdir()
    cmd = [sys.executable, "-m", "lm_eval_quantum.cli", "--model", "quantum-replay",
           "--model_args", f"path={replay},pretrained={name}", "--tasks", tasks, "--limit", "2",
           "--confirm_run_unsafe_code", "--output_path", str(out), "--log_samples"]
    return out, subprocess.Popen(cmd, cwd=tmp, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)


def _wait(run):
    out, proc = run
    stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, f"{proc.args}\nSTDOUT:\n{stdout[-3000:]}\nSTDERR:\n{stderr[-5000:]}"
    [path] = out.rglob("results_*.json")
    return path


def _answers(task, responses):
    return [{"task": task, "doc_id": i, "responses": r} for i, r in enumerate(responses)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """org/alpha: greedy, sampled, label and ppl tasks, then a newer run of one task;
    org/beta: a group (its tasks) and one more task; a renamed copy of beta's results;
    a run of an unknown task; a corrupt results file."""
    tmp = tmp_path_factory.mktemp("leaderboard")
    ghz = [d["canonical"] for d in lmq.load_docs("quantum_qasm_ghz")[:2]]
    qft = lmq.load_docs("quantum_cirq_qft_sampled")[0]["canonical"]
    line = json.loads(lmq.load_docs("quantum_qasm_debug_locate")[0]["check"])["accepted"][0]
    alpha = (_answers("quantum_qasm_ghz", [[ghz[0]], ["I don't know."]])
             + _answers("quantum_cirq_qft_sampled", [[qft] * 3 + ["```python\ndef build_circuit(n):\n    import cirq(\n```"] * 7,
                                                     ["```python\ndef build_circuit(n):\n    import cirq(\n```"] * 10])
             + _answers("quantum_qasm_debug_locate", [[f"Line {line}"], ["no idea"]])
             + _answers("quantum_qasm_ghz_ppl", [[-20.0], [-35.0]]))
    beta = [{"task": t, "doc_id": i, "responses": [doc["canonical"] if i == 0 or t.endswith("ghz") else "no"]}
            for t in ("quantum_qasm_random_clifford", "quantum_qasm_random_universal", "quantum_qiskit_ghz")
            for i, doc in enumerate(lmq.load_docs(t)[:2])]
    # in parallel (each is mostly start-up and waiting); alpha's second run answers every
    # ghz doc right: whichever run started last (its results' date) must win
    started = [_start(alpha, "org/alpha", "quantum_qasm_ghz,quantum_cirq_qft_sampled,"
                      "quantum_qasm_debug_locate,quantum_qasm_ghz_ppl", tmp),
               _start(beta, "org/beta", "lmq_qasm_random_circuits,quantum_qiskit_ghz", tmp),
               _start(_answers("quantum_qasm_ghz", [[g] for g in ghz]), "org/alpha", "quantum_qasm_ghz", tmp)]
    alpha_1, beta_path, alpha_2 = map(_wait, started)

    evil = json.loads(beta_path.read_text())
    evil["model_name"] = EVIL
    (tmp / "evil").mkdir()
    (tmp / "evil" / beta_path.name).write_text(json.dumps(evil))
    (tmp / "other").mkdir()
    (tmp / "other" / "results_2025-01-01T00-00-00.000000.json").write_text(json.dumps(
        {"results": {"arc_easy": {"acc,none": 0.25}}, "model_name": "org/other", "date": 1.0}))
    (tmp / "other" / "results_2025-01-02T00-00-00.000000.json").write_text("{not json")
    files = {"alpha_1": alpha_1, "alpha_2": alpha_2, "beta": beta_path, "evil": tmp / "evil" / beta_path.name}
    return tmp, {k: json.loads(p.read_text()) for k, p in files.items()}, files


@pytest.fixture(scope="module")
def board(runs):
    tmp, data, files = runs
    out = tmp / "board"
    # directories (alpha's two runs) and a results file itself (beta)
    paths = [files["alpha_1"].parents[1], files["alpha_2"].parents[1], files["beta"], tmp / "evil", tmp / "other"]
    proc = subprocess.run([sys.executable, "-m", "lm_eval_quantum", "leaderboard", *map(str, paths),
                           "--out", str(out)], cwd=tmp, env=ENV, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stderr


def _expected(data):
    """Per model, task -> its results entry: alpha's ghz from the newer run."""
    older, newer = sorted([data["alpha_1"], data["alpha_2"]], key=lambda d: d["date"])
    alpha = {**older["results"], **newer["results"]}
    beta = {t: r for t, r in data["beta"]["results"].items() if not t.startswith("lmq_")}
    return {"org/alpha": alpha, "org/beta": beta, EVIL: beta}


def _mean(results, metric, keep=lambda task: True):
    values = [r[metric] for t, r in results.items() if keep(t) and metric in r and not math.isnan(r[metric])]
    return math.fsum(values) / len(values) if values else None


def _pass1(results, keep=lambda task: True):
    """pass@1 of generation tasks, accuracy of label tasks."""
    return _mean({t: {"v": r.get("pass@1,judge", r.get("accuracy,none"))} for t, r in results.items()
                  if "pass@1,judge" in r or "accuracy,none" in r}, "v", keep)


def _scope(framework=None, suite=None):
    from lm_eval_quantum.problems import get_problem
    from lm_eval_quantum.tasks import task_table

    def keep(task):
        info = task_table()[task]
        return framework in (None, info.framework) and suite in (None, get_problem(info.problem).suite)
    return keep


def _csv(path):
    with open(path, newline="") as fh:
        return {row["model"]: row for row in csv.DictReader(fh)}


def test_tables_hold_the_results_numbers_exactly(runs, board):
    _, data, _ = runs
    out, stderr = board
    expected = _expected(data)
    alpha = expected["org/alpha"]
    # the runs scored as designed, and the newer ghz run won
    assert data["alpha_1"]["results"]["quantum_qasm_ghz"]["pass@1,judge"] == 0.5
    assert data["alpha_2"]["results"]["quantum_qasm_ghz"]["pass@1,judge"] == 1.0
    assert data["alpha_1"]["date"] != data["alpha_2"]["date"]
    assert alpha["quantum_cirq_qft_sampled"]["pass@1,judge"] == pytest.approx(0.15)
    assert alpha["quantum_qasm_debug_locate"]["accuracy,none"] == 0.5
    assert alpha["quantum_qasm_ghz_ppl"]["bits_per_byte,none"] > 0
    assert "lmq_qasm_random_circuits" in data["beta"]["results"]
    assert "the newest run's numbers are kept" in stderr and "arc_easy" in stderr
    assert "unreadable results" in stderr and "org/other: no lm-eval-quantum task" in stderr

    table = _csv(out / "leaderboard.csv")
    assert set(table) == set(expected)
    for model, results in expected.items():
        row = table[model]
        want = {
            "tasks": str(len(results)),
            "pass@1": _pass1(results),
            "pass@5": _mean(results, "pass@5,judge"), "pass@10": _mean(results, "pass@10,judge"),
            "fidelity": _mean(results, "fidelity,judge"), "bits_per_byte": _mean(results, "bits_per_byte,none"),
            **{f"{fw} pass@1": _pass1(results, _scope(framework=fw)) for fw in ("qasm", "qiskit", "cirq")},
            **{f"{s} pass@1": _pass1(results, _scope(suite=s))
               for s in ("algorithm-design", "random-circuits", "debugging")},
        }
        for column, value in want.items():
            if value is None:
                assert row[column] == "n/a", (model, column)
            else:
                assert row[column] == (value if isinstance(value, str) else repr(value)), (model, column)
    newer = max(data["alpha_1"], data["alpha_2"], key=lambda d: d["date"])
    assert table["org/alpha"]["qasm pass@1"] == repr((newer["results"]["quantum_qasm_ghz"]["pass@1,judge"] + 0.5) / 2)
    assert table["org/beta"]["pass@1"] == repr(math.fsum([0.5, 0.5, 1.0]) / 3)
    assert set(table["org/alpha"]) == {"model", *want}      # no column without any value

    errors = _csv(out / "errors.csv")
    assert list(errors["org/alpha"]) == ["model", "tasks", "ok", "error_no_code", "error_syntax"]  # no empty ones
    gen = {t: r for t, r in alpha.items() if "error_syntax,judge" in r}
    assert errors["org/alpha"]["tasks"] == "2"
    assert errors["org/alpha"]["error_syntax"] == repr(_mean(gen, "error_syntax,judge")) != "0.0"
    shares = [float(errors["org/alpha"][k]) for k in errors["org/alpha"] if k.startswith("error_")]
    assert float(errors["org/alpha"]["ok"]) == pytest.approx(1 - sum(shares))

    # the Markdown and the page show the same numbers (4 decimals; the page sorts on full precision)
    md = (out / "leaderboard.md").read_text()
    page = (out / "index.html").read_text()
    for model, row in table.items():
        cells = [row[c] if c in ("model", "tasks") or row[c] == "n/a" else f"{float(row[c]):.4f}" for c in row]
        assert "| " + " | ".join([html.escape(model, quote=False).replace("|", "\\|")] + cells[1:]) + " |" in md
        tr = re.search(rf'<tr data-model="{re.escape(html.escape(model))}">(.*?)</tr>', page).group(1)
        assert re.findall(r'data-value="([^"]*)"', tr) == ["" if v == "n/a" else v for v in list(row.values())[1:]]
    assert EVIL not in page and html.escape(EVIL) in page and "<img src=x" not in md


def test_the_newest_run_of_a_model_wins(runs, tmp_path, capsys):
    """Copies of alpha's two real runs, dated either way round: the newer run's ghz
    numbers are kept, and the task only the older run has stays."""
    from lm_eval_quantum.leaderboard import read_board

    _, data, _ = runs
    for newer in ("alpha_1", "alpha_2"):
        for run in ("alpha_1", "alpha_2"):
            (tmp_path / newer / run).mkdir(parents=True)
            (tmp_path / newer / run / "results_x.json").write_text(
                json.dumps({**data[run], "date": 2.0 if run == newer else 1.0}))
        tasks = read_board([str(tmp_path / newer)]).models["org/alpha"]
        assert tasks["quantum_qasm_ghz"].metrics["pass@1"] == data[newer]["results"]["quantum_qasm_ghz"]["pass@1,judge"]
        assert tasks["quantum_qasm_ghz"].source == tmp_path / newer / newer / "results_x.json"
        assert "quantum_cirq_qft_sampled" in tasks
        assert "org/alpha: 2 runs, 1 task(s) in more than one" in capsys.readouterr().err


def test_plots_are_valid_and_the_page_is_self_contained(board):
    from PIL import Image

    out, _ = board
    for plot in PLOTS:
        with Image.open(out / f"{plot}.png") as image:
            assert image.format == "PNG" and min(image.size) > 100
            image.verify()
        assert ET.parse(out / f"{plot}.svg").getroot().tag == "{http://www.w3.org/2000/svg}svg"
    tags = _Tags()
    tags.feed((out / "index.html").read_text())
    links = [v for _, attrs in tags.tags for k, v in attrs if k in ("src", "href", "data")]
    assert links and all(v.startswith("data:") for v in links), "the page must need no other file"
    embedded = [v.removeprefix("data:image/svg+xml;base64,") for tag, attrs in tags.tags if tag == "img"
                for k, v in attrs if k == "src"]
    assert [base64.b64decode(e) for e in embedded] == [(out / f"{p}.svg").read_bytes() for p in PLOTS]


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


class _Rows(HTMLParser):
    """The models of the #leaderboard table, in DOM order, and its data-sorted-by."""

    def __init__(self):
        super().__init__()
        self.models, self.sorted_by, self._inside = [], None, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._inside = attrs.get("id") == "leaderboard"
            if self._inside:
                self.sorted_by = attrs.get("data-sorted-by")
        elif tag == "tr" and self._inside and "data-model" in attrs:
            self.models.append(attrs["data-model"])


def _chromium(*args, timeout=120):
    binary = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if binary is None:
        pytest.fail("Chromium is needed for this test (CI installs it): apt-get install -y -qq chromium")
    proc = subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu", *args],
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_page_sorts_and_renders_in_chromium(runs, board, tmp_path):
    from PIL import Image

    _, data, _ = runs
    out, _ = board
    url = (out / "index.html").as_uri()
    table = _csv(out / "leaderboard.csv")
    score = {m: float(r["pass@1"]) for m, r in table.items()}
    ranked = sorted(table, key=lambda m: (-score[m], m))
    assert ranked[0] == EVIL and ranked[-1] == "org/alpha"      # a tie, then the name decides

    def rows(fragment=""):
        dom = _chromium(f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom", url + fragment)
        parser = _Rows()
        parser.feed(dom)
        return parser.models, parser.sorted_by

    # the script ran (it marks the table) and every model row rendered, escaped names intact
    assert rows() == (ranked, "pass@1:desc")
    by_tasks = sorted(ranked, key=lambda m: int(table[m]["tasks"]))     # stable, as Array.sort
    assert by_tasks[-1] == "org/alpha"
    assert rows("#sort=tasks:asc") == (by_tasks, "tasks:asc")
    # n/a sorts last in either direction
    assert rows("#sort=bits_per_byte:asc")[0][0] == rows("#sort=bits_per_byte:desc")[0][0] == "org/alpha"

    artifacts = Path(os.environ.get("LMQ_TEST_ARTIFACTS", REPO / "test-artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    shot = artifacts / "leaderboard.png"
    shot.unlink(missing_ok=True)
    _chromium(f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1400,1000",
              "--hide-scrollbars", url)
    with Image.open(shot) as image:
        assert image.size == (1400, 1000)
        assert len(image.convert("L").getcolors(1 << 16) or []) > 10      # not a blank page


# --- bad inputs ----------------------------------------------------------------------------
def _fails(capsys, *argv):
    assert lmq_main(["leaderboard", *map(str, argv)]) == 2
    return capsys.readouterr().err


def test_bad_inputs_are_clear_errors(tmp_path, capsys):
    out = tmp_path / "out"
    assert "no such file or directory" in _fails(capsys, tmp_path / "missing", "--out", out)
    (tmp_path / "empty").mkdir()
    assert "no results_*.json found" in _fails(capsys, tmp_path / "empty", "--out", out)
    bad = tmp_path / "bad" / "m"
    bad.mkdir(parents=True)
    (bad / "results_2025-01-01T00-00-00.000000.json").write_text("{not json")
    (bad / "results_2025-01-02T00-00-00.000000.json").write_text('["a list"]')
    err = _fails(capsys, tmp_path / "bad", "--out", out)
    assert "unreadable results" in err and "not an lm-eval results file" in err and "no model" in err
    (bad / "results_2025-01-03T00-00-00.000000.json").write_text(json.dumps(
        {"results": {"lmq_qasm_random_circuits": {"pass@1,judge": 1.0}, "gsm8k": {"exact_match,none": 0.5}}}))
    err = _fails(capsys, tmp_path / "bad", "--out", out)
    assert "skipped 1 unknown task(s)" in err and "gsm8k" in err and "m: no lm-eval-quantum task" in err
    assert not out.exists()
    out.write_text("a file")
    assert "not a directory" in _fails(capsys, tmp_path / "bad", "--out", out)
    assert "Traceback" not in capsys.readouterr().err


def test_model_name_and_run_date_fallbacks(tmp_path):
    from lm_eval_quantum.leaderboard import model_name, run_date

    path = tmp_path / "org__m" / "results_2025-01-02T03-04-05.000006.json"
    assert model_name({"model_name": "a/b", "config": {"model_args": "pretrained=c/d"}}, path) == "a/b"
    assert model_name({"config": {"model_args": "dtype=float16,pretrained=c/d"}}, path) == "c/d"
    assert model_name({"config": {"model_args": {"pretrained": "e/f"}}}, path) == "e/f"
    assert model_name({"config": {"model_args": "dtype=float16"}}, path) == "org__m"
    assert run_date({"date": 5.0}, path) == 5.0
    assert run_date({}, path) > run_date({}, path.with_name("results_2025-01-01T03-04-05.000006.json"))
