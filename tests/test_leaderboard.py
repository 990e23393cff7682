"""`python -m lm_eval_quantum leaderboard`.

* Real lm-eval runs of the replay model (a model run plain and with a chat template,
  twice plain; another model on more docs and more tasks, renamed with --name; a
  copy named by a submission.json with a hostile name): every number of the tables
  checked against the samples files (common tasks, common docs, Wilson intervals),
  the page sorted in headless Chromium.
* A synthetic board of three models at full scale (every greedy task, sampled and
  prefill variants, chat and plain rows, a model named by a local path) rendered in
  headless Chromium at 1366x768 and 390x844: no horizontal overflow outside scroll
  containers, no visible text under 10 px, sorting by clicking headers; screenshots.
"""
import csv
import hashlib
import html
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from html.parser import HTMLParser
from pathlib import Path
from statistics import NormalDist
from urllib.parse import unquote

import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum.__main__ import main as lmq_main

REPO = Path(__file__).resolve().parents[1]
# The subprocesses import this checkout, whatever the installed copy is; one sandbox
# worker per lm-eval run (four run at once).
ENV = {**os.environ, "PYTHONPATH": str(REPO), "TOKENIZERS_PARALLELISM": "false", "LMQ_WORKERS": "1",
       "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
EVIL = '<img src=x onerror="alert(1)">|evil&co'
PLOTS = ("heatmap", "frameworks", "errors")
Z95 = NormalDist().inv_cdf(0.975)
BROKEN = "```python\ndef build_circuit(n):\n    import cirq(\n```"
COMMON_GREEDY = ["quantum_qasm_debug_locate", "quantum_qasm_ghz"]


def _start(replay_lines, name, tasks, tmp, limit=2, chat=False):
    replay = tmp / f"{name.replace('/', '_')}_{len(list(tmp.glob('*.jsonl')))}.jsonl"
    replay.write_text("".join(json.dumps(line) + "\n" for line in replay_lines))
    out = tmp / f"run_{len(list(tmp.glob('run_*')))}"
    out.mkdir()
    cmd = [sys.executable, "-m", "lm_eval_quantum", "--model", "quantum-replay",
           "--model_args", f"path={replay},pretrained={name}", "--tasks", tasks, "--limit", str(limit),
           "--confirm_run_unsafe_code", "--output_path", str(out), "--log_samples",
           *(["--apply_chat_template"] if chat else [])]
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
    """org/alpha plain (greedy, sampled, label and ppl tasks), a newer plain run of one
    task, and a chat-template run with other answers; org/beta on 3 docs instead of 2,
    with a group and one more task; a copy of beta named by a submission.json; a run of
    an unknown task; a corrupt results file."""
    tmp = tmp_path_factory.mktemp("leaderboard")
    ghz = [d["canonical"] for d in lmq.load_docs("quantum_qasm_ghz")[:3]]
    qft = [d["canonical"] for d in lmq.load_docs("quantum_cirq_qft_sampled")[:3]]
    lines = [json.loads(d["check"])["accepted"][0] for d in lmq.load_docs("quantum_qasm_debug_locate")[:3]]

    def sampled(*right):        # right answers of 10 per doc
        return _answers("quantum_cirq_qft_sampled", [[qft[i]] * c + [BROKEN] * (10 - c) for i, c in enumerate(right)])

    def greedy(task, good, right):
        return _answers(task, [[good[i] if ok else "I don't know."] for i, ok in enumerate(right)])

    alpha = (greedy("quantum_qasm_ghz", ghz, [1, 0]) + sampled(3, 0)
             + _answers("quantum_qasm_debug_locate", [[f"Line {lines[0]}"], ["no idea"]])
             + _answers("quantum_qasm_ghz_ppl", [[-20.0], [-35.0]]))
    chat = (greedy("quantum_qasm_ghz", ghz, [0, 0]) + sampled(10, 5)
            + _answers("quantum_qasm_debug_locate", [[f"Line {lines[0]}"], [f"The bug is on line {lines[1]}."]]))
    beta = (greedy("quantum_qasm_ghz", ghz, [0, 1, 1]) + sampled(1, 2, 10)
            + _answers("quantum_qasm_debug_locate", [[f"Line {lines[0]}"], [f"Line {lines[1]}"], ["none"]])
            + [{"task": t, "doc_id": i, "responses": [doc["canonical"] if i == 0 or t.endswith("ghz") else "no"]}
               for t in ("quantum_qasm_random_clifford", "quantum_qasm_random_universal", "quantum_qiskit_ghz")
               for i, doc in enumerate(lmq.load_docs(t)[:3])])
    shared = "quantum_qasm_ghz,quantum_cirq_qft_sampled,quantum_qasm_debug_locate"
    # in parallel (each is mostly start-up and waiting); alpha's second plain run answers
    # every ghz doc right: whichever plain run started last (its results' date) must win
    started = [_start(alpha, "org/alpha", shared + ",quantum_qasm_ghz_ppl", tmp),
               _start(beta, "org/beta", shared + ",lmq_qasm_random_circuits,quantum_qiskit_ghz", tmp, limit=3),
               _start(greedy("quantum_qasm_ghz", ghz, [1, 1]), "org/alpha", "quantum_qasm_ghz", tmp),
               _start(chat, "org/alpha", shared, tmp, chat=True)]
    alpha_1, beta_path, alpha_2, alpha_chat = map(_wait, started)

    evil = tmp / "evil" / "org__beta"
    shutil.copytree(beta_path.parent, evil)
    (tmp / "evil" / "submission.json").write_text(json.dumps({"name": EVIL, "url": "javascript:alert(1)"}))
    (tmp / "other").mkdir()
    (tmp / "other" / "results_2025-01-01T00-00-00.000000.json").write_text(json.dumps(
        {"results": {"arc_easy": {"acc,none": 0.25}}, "model_name": "org/other", "date": 1.0}))
    (tmp / "other" / "results_2025-01-02T00-00-00.000000.json").write_text("{not json")
    files = {"alpha_1": alpha_1, "alpha_2": alpha_2, "chat": alpha_chat, "beta": beta_path,
             "evil": evil / beta_path.name}
    return tmp, {k: json.loads(p.read_text()) for k, p in files.items()}, files


@pytest.fixture(scope="module")
def board(runs):
    tmp, data, files = runs
    out = tmp / "board"
    # directories (alpha's runs) and a results file itself (beta), named on the command line
    paths = [files["alpha_1"].parents[1], files["alpha_2"].parents[1], files["chat"].parents[1],
             files["beta"], tmp / "evil", tmp / "other"]
    proc = subprocess.run([sys.executable, "-m", "lm_eval_quantum", "leaderboard", *map(str, paths),
                           "--out", str(out), "--name", f"{files['beta']}=Beta 7B"],
                          cwd=tmp, env=ENV, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stderr


def _csv(path):
    with open(path, newline="") as fh:
        return {(row["model"], row["setting"]): row for row in csv.DictReader(fh)}


def _per_doc(results_file, task):
    """doc id -> the logged sample of a task (our doc's own id)."""
    path = results_file.with_name(f"samples_{task}_{results_file.stem.removeprefix('results_')}.jsonl")
    return {s["doc"]["doc_id"]: s for s in map(json.loads, path.read_text().splitlines())}


def _expected(files, key, metric, tasks, docs):
    """Mean over tasks of the mean of `metric` over `docs` (from the samples files)."""
    def source(task):
        if key == "alpha":      # the newer plain run has ghz, the older one the rest
            newer = max([files["alpha_1"], files["alpha_2"]], key=lambda p: json.loads(p.read_text())["date"])
            return newer if task == "quantum_qasm_ghz" else files["alpha_1"]
        return files[key]
    per_task = []
    for task in tasks:
        samples = _per_doc(source(task), task)
        name = "accuracy" if task.endswith("debug_locate") and metric == "pass@1" else metric
        per_task.append(math.fsum(samples[d][name] for d in docs) / len(docs))
    return math.fsum(per_task) / len(per_task)


def _wilson(p, n):
    center = (p + Z95 ** 2 / (2 * n)) / (1 + Z95 ** 2 / n)
    half = Z95 / (1 + Z95 ** 2 / n) * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n))
    return max(0.0, center - half), min(1.0, center + half)


def test_rows_columns_and_numbers_on_common_docs(runs, board):
    from lm_eval_quantum.lmeval.metrics import pass_at_k

    tmp, data, files = runs
    out, stderr = board
    # the runs scored as designed; the newer plain ghz run won; chat is recorded
    assert data["alpha_1"]["results"]["quantum_qasm_ghz"]["pass@1,judge"] == 0.5
    assert data["alpha_2"]["results"]["quantum_qasm_ghz"]["pass@1,judge"] == 1.0
    assert data["chat"]["chat_template"] == "" and data["alpha_1"]["chat_template"] is None
    assert data["beta"]["n-samples"]["quantum_qasm_ghz"]["effective"] == 3
    assert "the newest run's numbers are kept" in stderr and "arc_easy" in stderr
    assert "unreadable results" in stderr and "org/other: no lm-eval-quantum task" in stderr

    table = _csv(out / "leaderboard.csv")
    plain, chat = "no chat template", "chat template"
    keys = {"alpha": ("org/alpha", plain), "chat": ("org/alpha", chat), "beta": ("Beta 7B", plain),
            "evil": (EVIL, plain)}
    assert set(table) == set(keys.values())             # chat and plain never merged
    assert table[keys["chat"]]["chat_template"] == "True" and table[keys["alpha"]]["chat_template"] == "False"
    assert {r["split"] for r in table.values()} == {"public"}
    assert not any("/" in name and name != "org/alpha" for name, _ in table)     # no path as a name

    docs = [0, 1]           # the docs every row has (beta ran 3)
    for key, (name, setting) in keys.items():
        row = table[(name, setting)]
        source = "beta" if key == "evil" else key
        p1 = _expected(files, source, "pass@1", COMMON_GREEDY, docs)
        assert float(row["greedy pass@1"]) == pytest.approx(p1, abs=1e-12), key
        assert (row["greedy pass@1_tasks"], row["greedy pass@1_docs"]) == ("2", "4")
        lo, hi = _wilson(p1, 4.0)           # Kish: 2 tasks x 2 docs
        assert float(row["greedy pass@1_ci_low"]) == pytest.approx(lo, abs=1e-12)
        assert float(row["greedy pass@1_ci_high"]) == pytest.approx(hi, abs=1e-12)
        fid = _expected(files, source, "fidelity", ["quantum_qasm_ghz"], docs)
        assert float(row["greedy fidelity"]) == pytest.approx(fid, abs=1e-12)
        sampled = {k: float(row[f"sampled pass@{k}"]) for k in (1, 5, 10)}
        for k in (1, 5, 10):
            assert sampled[k] == pytest.approx(
                _expected(files, source, f"pass@{k}", ["quantum_cirq_qft_sampled"], docs), abs=1e-12)
        assert sampled[1] <= sampled[5] <= sampled[10], key
        assert row["sampled pass@5_docs"] == row["sampled pass@1_docs"] == "2"
        # only alpha plain ran the ppl task: compared over that one row
        assert (row["bits/byte"] != "n/a") == (key == "alpha")
        assert row["bits/byte_ci_low"] == "n/a"
    # designed values: the newest plain ghz run (2/2 or 1/2, whichever run started last)
    # and locate 1/2; chat: 0/2 and 2/2; beta on its first two docs: ghz 1/2, locate 2/2
    # (its results, over 3 docs, say 2/3 and 2/3)
    ghz_newest = 1.0 if data["alpha_2"]["date"] > data["alpha_1"]["date"] else 0.5
    assert [float(table[keys[k]]["greedy pass@1"]) for k in ("alpha", "chat", "beta")] == [
        (ghz_newest + 0.5) / 2, 0.5, 0.75]
    beta_results = data["beta"]["results"]
    assert beta_results["quantum_qasm_ghz"]["pass@1,judge"] == 2 / 3
    assert beta_results["quantum_qasm_debug_locate"]["accuracy,none"] == 2 / 3
    # where the common docs are all a row's docs, lm-eval's own means give the same number
    chat_results = data["chat"]["results"]
    assert float(table[keys["chat"]]["greedy pass@1"]) == (chat_results["quantum_qasm_ghz"]["pass@1,judge"]
                                                         + chat_results["quantum_qasm_debug_locate"]["accuracy,none"]) / 2
    assert float(table[keys["chat"]]["sampled pass@5"]) == pytest.approx(
        chat_results["quantum_cirq_qft_sampled"]["pass@5,judge"], abs=1e-12)
    assert float(table[keys["alpha"]]["sampled pass@5"]) == pytest.approx((pass_at_k(10, 3, 5) + 0) / 2)
    ppl = data["alpha_1"]["results"]["quantum_qasm_ghz_ppl"]
    assert float(table[keys["alpha"]]["bits/byte"]) == ppl["bits_per_byte,none"]
    # beta's extra tasks (its group's, qiskit ghz) are not in any column; the suites
    # and frameworks are on the common tasks only
    assert "qiskit pass@1" not in table[keys["beta"]] and "random-circuits pass@1" not in table[keys["beta"]]
    assert float(table[keys["beta"]]["debugging pass@1"]) == 1.0

    errors = {(r["model"], r["setting"]): r for r in csv.DictReader(open(out / "errors.csv"))}
    ghz = _per_doc(files["chat"], "quantum_qasm_ghz")
    assert float(errors[keys["chat"]]["error_no_code"]) == math.fsum(ghz[d]["error_no_code"] for d in docs) / 2 == 1.0
    assert float(errors[keys["alpha"]]["ok"]) == ghz_newest

    # the Markdown and the page show the same numbers; names are escaped everywhere
    md = (out / "leaderboard.md").read_text()
    page = (out / "index.html").read_text()
    assert "greedy pass@1 (2 tasks, n = 4 docs)" in md
    assert ('<span class="h">greedy pass@1</span><span class="sub">2 tasks</span>'
            '<span class="sub">n = 4 docs</span>') in page
    for (name, setting), row in table.items():
        shown = f"{100 * float(row['greedy pass@1']):.1f} [{100 * float(row['greedy pass@1_ci_low']):.1f}, " \
                f"{100 * float(row['greedy pass@1_ci_high']):.1f}]"
        md_name = html.escape(name, quote=False).replace("|", "\\|")
        assert f"| {row['id']} | {md_name} | {setting} | {shown} |" in md
        tr = re.search(rf'<tr data-model="{re.escape(html.escape(name))}" data-id="{row["id"]}">(.*?)</tr>', page)
        tr = tr.group(1)
        assert f'data-value="{row["greedy pass@1"]}"' in tr
    assert EVIL not in page and html.escape(EVIL) in page and "<img src=x" not in md
    assert "javascript:" not in page                                # only http(s) links from a manifest
    assert str(tmp) not in page and "(see Runs and files)" in page     # no local path on the page
    for href in re.findall(r'href="([^"#]+)"', page):
        target = (out / unquote(href)).resolve()
        assert target.exists() and not href.startswith("/"), href   # relative, and resolves
    assert re.search(r'href="[^"]*samples_quantum_qasm_ghz_[^"]*\.jsonl"', page)


def test_the_newest_run_of_a_row_wins(runs, tmp_path, capsys):
    """Copies of alpha's two plain runs, dated either way round: the newer run's ghz
    numbers are kept, and the tasks only the older run has stay."""
    from lm_eval_quantum.report.leaderboard import read_board

    _, data, files = runs
    for newer in ("alpha_1", "alpha_2"):
        for run in ("alpha_1", "alpha_2"):
            shutil.copytree(files[run].parent, tmp_path / newer / run)
            (tmp_path / newer / run / files[run].name).write_text(
                json.dumps({**data[run], "date": 2.0 if run == newer else 1.0}))
        [row] = read_board([str(tmp_path / newer)]).rows
        tasks = row.tasks
        assert tasks["quantum_qasm_ghz"].metrics["pass@1"] == data[newer]["results"]["quantum_qasm_ghz"]["pass@1,judge"]
        assert tasks["quantum_qasm_ghz"].source == tmp_path / newer / newer / files[newer].name
        assert tasks["quantum_qasm_ghz"].docs[0][1]["pass@1"] == 1.0
        assert tasks["quantum_qasm_ghz"].docs[1][1]["pass@1"] == (1.0 if newer == "alpha_2" else 0.0)
        assert "quantum_cirq_qft_sampled" in tasks
        assert "org/alpha (no chat template): 2 runs, 1 task(s) in more than one" in capsys.readouterr().err


def test_plots_are_valid_and_the_page_needs_no_asset(board):
    from PIL import Image

    out, _ = board
    for plot in PLOTS:
        with Image.open(out / f"{plot}.png") as image:
            assert image.format == "PNG" and 100 < min(image.size) and max(image.size) <= 1600
            image.verify()
        assert ET.parse(out / f"{plot}.svg").getroot().tag == "{http://www.w3.org/2000/svg}svg"
    tags = _Tags()
    tags.feed((out / "index.html").read_text())
    assets = [v for tag, attrs in tags.tags for k, v in attrs
              if (tag, k) in (("img", "src"), ("script", "src"), ("link", "href"), ("iframe", "src"))]
    assert assets == [], "the page must load no other file"
    assert any(tag == "a" for tag, _ in tags.tags)          # links to the runs' files


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))


class _Rows(HTMLParser):
    """The row ids of the #leaderboard table, in DOM order, and its data-sorted-by."""

    def __init__(self):
        super().__init__()
        self.ids, self.sorted_by, self._inside = [], None, False

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._inside = attrs.get("id") == "leaderboard"
            if self._inside:
                self.sorted_by = attrs.get("data-sorted-by")
        elif tag == "tr" and self._inside and "data-id" in attrs:
            self.ids.append(attrs["data-id"])


def _chromium(profile, *args, timeout=120):
    binary = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    if binary is None:
        pytest.fail("Chromium is needed for this test (CI installs it): apt-get install -y -qq chromium")
    proc = subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_page_sorts_in_chromium(board, tmp_path):
    out, _ = board
    url = (out / "index.html").as_uri()
    table = {row["id"]: row for row in _csv(out / "leaderboard.csv").values()}

    def rows(fragment=""):
        parser = _Rows()
        parser.feed(_chromium(tmp_path / "profile", "--dump-dom", url + fragment))
        return parser.ids, parser.sorted_by

    def order(key, reverse):
        have = sorted((i for i in table if table[i][key] != "n/a"), key=lambda i: float(table[i][key]),
                      reverse=reverse)
        return have + [i for i in table if table[i][key] == "n/a"]

    # ids are given in rank order: greedy pass@1, best first, then by name
    ranked = sorted(table, key=lambda i: int(i[1:]))
    scores = [float(table[i]["greedy pass@1"]) for i in ranked]
    assert scores == sorted(scores, reverse=True) and table[ranked[0]]["model"] == EVIL
    assert rows() == (ranked, "greedy pass@1:desc")       # the script ran and marked the table
    got, by = rows("#sort=sampled pass@5:asc")
    assert by == "sampled pass@5:asc" and [float(table[i]["sampled pass@5"]) for i in got] == \
        sorted(float(table[i]["sampled pass@5"]) for i in table)
    # n/a sorts last in either direction
    assert rows("#sort=bits/byte:asc")[0][0] == rows("#sort=bits/byte:desc")[0][0] == order("bits/byte", False)[0]


# --- the synthetic full-scale board, rendered ----------------------------------------------
N_DOCS = 6


def _synthetic_run(directory, *, config, model_name, chat, tasks, skill, seed, date, split=None):
    """A results file and its samples files, as lm-eval writes them, for `tasks`."""
    from lm_eval_quantum.lmeval.metrics import pass_at_k
    from lm_eval_quantum.problems import get_problem
    from lm_eval_quantum.lmeval.tasks import ERROR_CATEGORIES, task_table

    table, rng = task_table(), random.Random(seed)
    stamp = datetime.fromtimestamp(date, timezone.utc).strftime("%Y-%m-%dT%H-%M-%S.%f")
    directory.mkdir(parents=True)
    results, counts, versions, configs = {}, {}, {}, {}
    for task in tasks:
        info = table[task]
        problem = get_problem(info.problem)
        p = skill(info, problem)
        samples = []
        for i in range(N_DOCS):
            record = {"doc_id": i, "doc": {"doc_id": i}, "doc_hash": hashlib.sha256(f"{task}/{i}".encode()).hexdigest()}
            if problem.check == "label":
                record["accuracy"] = float(rng.random() < p)
            elif info.variant == "ppl":
                record["bits_per_byte"] = [-rng.uniform(20, 80), 120]
            else:
                n = 10 if info.variant == "sampled" else 1
                c = sum(rng.random() < p for _ in range(n))
                record.update({f"pass@{k}": pass_at_k(n, c, k) for k in (1, 5, 10) if k <= n})
                if problem.check in ("state", "unitary", "channel"):
                    record["fidelity"] = (c + (n - c) * rng.uniform(0, 0.9)) / n
                failed = rng.choice(ERROR_CATEGORIES[:-1])
                record.update({f"error_{e}": (n - c) / n if e == failed else 0.0 for e in ERROR_CATEGORIES})
            samples.append(record)
        (directory / f"samples_{task}_{stamp}.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
        metrics = [m for m in samples[0] if m not in ("doc_id", "doc", "doc_hash")]
        entry = {"alias": task, "sample_len": N_DOCS}
        for m in metrics:
            flt = "none" if m in ("accuracy", "bits_per_byte") else "judge"
            if m == "bits_per_byte":
                entry[f"{m},{flt}"] = -sum(s[m][0] for s in samples) / sum(s[m][1] for s in samples) / math.log(2)
            else:
                entry[f"{m},{flt}"] = sum(s[m] for s in samples) / N_DOCS
            entry[f"{m}_stderr,{flt}"] = "N/A"
        results[task] = entry
        counts[task] = {"original": N_DOCS, "effective": N_DOCS}
        versions[task] = problem.version
        kwargs = {"task_file": info.data_file, **({"split": split} if split else {})}
        configs[task] = {"task": task, "dataset_kwargs": kwargs, "test_split": "test",
                         "metadata": {"version": problem.version}}
    (directory / f"results_{stamp}.json").write_text(json.dumps({
        "results": results, "group_subtasks": {}, "configs": configs, "versions": versions,
        "n-shot": {t: 0 for t in tasks}, "n-samples": counts, "config": {**config, "gen_kwargs": None},
        "date": date, "model_name": model_name, "chat_template": "{{ messages }}" if chat else None,
        "chat_template_sha": "abc" if chat else None, "fewshot_as_multiturn": None if not chat else False,
        "system_instruction": None}))


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """Three models: a hub model plain and with a chat template (every greedy task,
    qasm sampled, qiskit prefill, a few ppl), a local checkpoint with a chat template
    (no pennylane), a replayed submission named by its submission.json (some greedy
    tasks missing)."""
    from lm_eval_quantum.frameworks import FRAMEWORKS
    from lm_eval_quantum.lmeval.tasks import SUITES, task_table

    root = tmp_path_factory.mktemp("synthetic")
    table = task_table()
    greedy = sorted(t for t, i in table.items() if i.variant == "")
    sampled = sorted(t for t, i in table.items() if i.variant == "sampled" and i.framework == "qasm")
    prefill = sorted(t for t, i in table.items() if i.variant == "prefill" and i.framework == "qiskit")
    ppl = sorted(t for t, i in table.items() if i.variant == "ppl")[:12]

    def skill(base):
        return lambda info, problem: min(0.97, max(0.02, base + 0.06 * FRAMEWORKS.index(info.framework)
                                                   - 0.07 * SUITES.index(problem.suite)
                                                   + (0.1 if info.variant == "prefill" else 0.0)))
    hub = {"model": "hf", "model_args": "pretrained=meta-llama/Llama-3.1-8B-Instruct,dtype=bfloat16"}
    local = {"model": "hf", "model_args": {"pretrained": "/models/checkpoints/qwen2.5-coder-7b/checkpoint-1200"}}
    replay = {"model": "quantum-replay", "model_args": {"path": "/srv/submissions/acme/generations.jsonl"}}
    _synthetic_run(root / "llama" / "plain", config=hub, model_name="meta-llama/Llama-3.1-8B-Instruct", chat=False,
                   tasks=greedy + sampled + prefill + ppl, skill=skill(0.55), seed=1, date=1.75e9)
    _synthetic_run(root / "llama" / "chat", config=hub, model_name="meta-llama/Llama-3.1-8B-Instruct", chat=True,
                   tasks=greedy + sampled + prefill, skill=skill(0.62), seed=2, date=1.75e9 + 60)
    _synthetic_run(root / "qwen", config=local, model_name=local["model_args"]["pretrained"], chat=True,
                   tasks=[t for t in greedy + sampled if table[t].framework != "pennylane"], skill=skill(0.45),
                   seed=3, date=1.75e9 + 120)
    _synthetic_run(root / "acme" / "out", config=replay, model_name=replay["model_args"]["path"], chat=False,
                   tasks=greedy[5:] + sampled + prefill, skill=skill(0.7), seed=4, date=1.75e9 + 180)
    (root / "acme" / "submission.json").write_text(json.dumps(
        {"name": "Acme QuantumCoder 34B (API)", "url": "https://example.org/acme"}))
    out = root / "board"
    assert lmq_main(["leaderboard", *(str(root / m) for m in ("llama", "qwen", "acme")), "--out", str(out)]) == 0
    return root, out


# Chromium's headless window is at least 500 px wide, so the page is measured and shot
# in an iframe of exactly the size wanted (same origin: --allow-file-access-from-files).
FRAME = """<!doctype html><html><body style="margin:0">
<iframe id="f" src="index.html" style="border:0;display:block;width:{width}px;height:{height}px"></iframe>
<script>const f = document.getElementById("f");</script>{script}</body></html>"""
OPEN_DETAILS = """<script>f.addEventListener("load", () =>
  f.contentDocument.querySelectorAll("details").forEach(d => { d.open = !!d.querySelector("table"); }));</script>"""
MEASURE = """<script>
f.addEventListener("load", () => {
  const w = f.contentWindow, d = w.document, doc = d.documentElement;
  const res = {innerWidth: w.innerWidth, innerHeight: w.innerHeight, clientWidth: doc.clientWidth};
  d.querySelectorAll("details").forEach(x => { x.open = true; });          // measure everything
  res.scrollWidth = doc.scrollWidth;
  res.small = []; res.outside = []; res.clipped = []; res.texts = 0;
  const where = el => el.tagName + "." + el.className + ": " + el.textContent.trim().slice(0, 50);
  for (const el of d.body.querySelectorAll("*")) {
    if (el.tagName === "SCRIPT" || el.tagName === "STYLE") continue;
    const style = w.getComputedStyle(el), rect = el.getBoundingClientRect();
    const text = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    if (text && style.visibility !== "hidden" && rect.width > 0 && rect.height > 0) {
      res.texts++;
      if (parseFloat(style.fontSize) < 10) res.small.push(style.fontSize + " " + where(el));
      if ((rect.right > doc.clientWidth + 0.5 || rect.left < -0.5) && !el.closest(".scroll"))
        res.outside.push(where(el));
    }
    if (["hidden", "clip"].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1)
      res.clipped.push(where(el));
  }
  res.scrollers = Array.from(d.querySelectorAll(".scroll")).map(x =>
    [x.querySelector("table").className, w.getComputedStyle(x).overflowX, x.scrollWidth > x.clientWidth + 1]);
  const table = d.getElementById("leaderboard"), heads = Array.from(table.tHead.rows[0].cells);
  const order = () => Array.from(table.tBodies[0].rows).map(r => r.dataset.id);
  const click = key => { heads.find(th => th.dataset.key === key).click(); return [order(), table.dataset.sortedBy]; };
  res.initial = [order(), table.dataset.sortedBy];
  res.clicks = [click("model"), click("model"), click("sampled pass@5"), click("sampled pass@5")];
  const out = document.createElement("pre");
  out.id = "lmq-measure"; out.textContent = JSON.stringify(res); document.body.appendChild(out);
});
</script>"""


def _frame(out, width, height, script):
    page = out / f"_frame_{width}x{height}.html"
    page.write_text(FRAME.format(width=width, height=height, script=script))
    return ["--allow-file-access-from-files", f"--window-size={max(width, 800)},{height + 100}", page.as_uri()]


def _measure(out, profile, width, height):
    dom = _chromium(profile, "--dump-dom", *_frame(out, width, height, MEASURE))
    return json.loads(html.unescape(re.search(r'<pre id="lmq-measure">(.*?)</pre>', dom, re.S).group(1)))


def _screenshot(out, profile, width, height, path, script=""):
    from PIL import Image

    _chromium(profile, f"--screenshot={path}", *_frame(out, width, height, script))
    with Image.open(path) as image:
        shot = image.crop((0, 0, width, height))
    shot.save(path)
    return shot


def test_page_layout_in_chromium(synthetic, tmp_path):
    from lm_eval_quantum.lmeval.tasks import task_table

    root, out = synthetic
    page = (out / "index.html").read_text()
    table = {row["id"]: row for row in _csv(out / "leaderboard.csv").values()}
    names = {(r["model"], r["setting"]) for r in table.values()}
    assert names == {("meta-llama/Llama-3.1-8B-Instruct", "no chat template"),
                     ("meta-llama/Llama-3.1-8B-Instruct", "chat template"),
                     ("qwen2.5-coder-7b/checkpoint-1200", "chat template"),
                     ("Acme QuantumCoder 34B (API)", "no chat template")}
    assert "/models/" not in page and "/srv/" not in page and 'href="https://example.org/acme"' in page
    # one common greedy set: every greedy task but pennylane's and the 5 acme lacks, stated
    greedy = [t for t, i in task_table().items() if i.variant == "" and i.framework != "pennylane"]
    common = len([t for t in greedy if t not in sorted(t for t, i in task_table().items() if i.variant == "")[:5]])
    assert {r["greedy pass@1_tasks"] for r in table.values()} == {str(common)}
    assert {r["greedy pass@1_docs"] for r in table.values()} == {str(common * N_DOCS)}
    assert f"greedy: {common} common task(s), {common * N_DOCS} docs, compared over 4 row(s)" in page
    for row in table.values():
        if row["sampled pass@1"] != "n/a":
            assert float(row["sampled pass@1"]) <= float(row["sampled pass@5"]) <= float(row["sampled pass@10"])
        assert float(row["greedy pass@1_ci_low"]) < float(row["greedy pass@1"]) < float(row["greedy pass@1_ci_high"])
    assert [r["prefill pass@1"] == "n/a" for r in table.values()] == [
        r["model"].startswith("qwen") for r in table.values()]             # qwen ran no prefill task

    shots = tmp_path / "shots"
    shots.mkdir()
    profile = tmp_path / "profile"
    for width, height in ((1366, 768), (390, 844)):
        m = _measure(out, profile, width, height)
        assert (m["innerWidth"], m["innerHeight"], m["texts"] > 500) == (width, height, True), m
        assert m["scrollWidth"] <= m["clientWidth"], f"{width}px: the page scrolls sideways"
        assert m["outside"] == [], f"{width}px: text outside the viewport: {m['outside'][:5]}"
        assert m["small"] == [], f"{width}px: text under 10px: {m['small'][:5]}"
        assert m["clipped"] == [], f"{width}px: clipped content: {m['clipped'][:5]}"
        assert m["scrollers"] and all(overflow == "auto" for _, overflow, _ in m["scrollers"])
        if width == 1366:       # on a laptop the tables and heatmaps fit without scrolling
            assert [s for s in m["scrollers"] if s[2]] == []
        else:                   # on a phone the wide tables scroll inside their containers
            assert any(s[2] for s in m["scrollers"] if "main" in s[0])
        # clicking headers sorts: model name ascending then descending; pass@5 desc then asc
        ranked = sorted(table, key=lambda i: int(i[1:]))
        assert m["initial"] == [ranked, "greedy pass@1:desc"]
        names = sorted(table[i]["model"].lower() for i in table)
        (asc, key_asc), (desc, key_desc), (p5_desc, _), (p5_asc, key_p5) = m["clicks"]
        assert (key_asc, key_desc, key_p5) == ("model:asc", "model:desc", "sampled pass@5:asc")
        assert [table[i]["model"].lower() for i in asc] == names
        assert [table[i]["model"].lower() for i in desc] == names[::-1]
        values = [float(table[i]["sampled pass@5"]) for i in p5_desc]
        assert values == sorted(values, reverse=True) and p5_asc == p5_desc[::-1]

        view = _screenshot(out, profile, width, height, shots / f"leaderboard_{width}x{height}.png")
        assert len(view.convert("L").getcolors(1 << 16) or []) > 10      # not a blank page
        full = _screenshot(out, profile, width, 2400 if width > 1000 else 4000,
                           shots / f"leaderboard_{width}_long_open.png", OPEN_DETAILS)
        assert len(full.convert("L").getcolors(1 << 16) or []) > 10
    print(f"\nleaderboard screenshots: {shots}")
    artifacts = os.environ.get("LMQ_TEST_ARTIFACTS")
    if artifacts:
        shutil.copytree(shots, Path(artifacts) / "leaderboard", dirs_exist_ok=True)


def test_splits_are_sections_never_compared(synthetic, tmp_path):
    """A run on another split (dataset_kwargs split) is its own section and row."""
    from lm_eval_quantum.report.leaderboard import build_sections, read_board
    from lm_eval_quantum.lmeval.tasks import task_table

    root, _ = synthetic
    tasks = sorted(t for t, i in task_table().items() if i.variant == "" and i.framework == "qasm")[:4]
    _synthetic_run(tmp_path / "private", config={"model": "hf", "model_args": "pretrained=org/m"},
                   model_name="org/m", chat=False, tasks=tasks, skill=lambda *_: 0.5, seed=9, date=1.8e9,
                   split="private-2026")
    board = read_board([str(root / "qwen"), str(tmp_path / "private")])
    sections = build_sections(board)
    assert [(s.split, [r.name for r in s.rows]) for s in sections] == [
        ("public", ["qwen2.5-coder-7b/checkpoint-1200"]), ("private-2026", ["org/m"])]
    assert sections[1].sizes["greedy pass@1"] == (4, 4 * N_DOCS)
    assert any("named after its model path" in n for n in board.notes)


def test_two_models_with_one_readable_name_stay_apart(tmp_path):
    """Two local checkpoints whose paths end alike: two rows, told apart, no path shown."""
    from lm_eval_quantum.report.leaderboard import build_sections, read_board
    from lm_eval_quantum.lmeval.tasks import task_table

    tasks = sorted(t for t, i in task_table().items() if i.variant == "" and i.framework == "cirq")[:3]
    for k, where in enumerate(("/data/a/run7/final", "/data/b/run7/final")):
        _synthetic_run(tmp_path / f"m{k}", config={"model": "hf", "model_args": f"pretrained={where}"},
                       model_name=where, chat=False, tasks=tasks, skill=lambda *_: 0.5, seed=k, date=1.8e9 + k)
    board = read_board([str(tmp_path)])
    names = sorted(r.name for r in board.rows)
    assert len(names) == 2 and names[0] != names[1]
    assert all(re.fullmatch(r"run7/final #[0-9a-f]{6}", n) for n in names), names
    [section] = build_sections(board)
    assert section.sizes["greedy pass@1"] == (3, 3 * N_DOCS)


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
    assert "expected KEY=NAME" in _fails(capsys, tmp_path / "bad", "--out", out, "--name", "nothing")
    (tmp_path / "bad" / "submission.json").write_text("[1]")
    assert "submission.json: not a JSON object" in _fails(capsys, tmp_path / "bad", "--out", out)
    assert not out.exists()
    out.write_text("a file")
    assert "not a directory" in _fails(capsys, tmp_path / "bad", "--out", out)
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("data, directory, name, from_path", [
    ({"model_name": "a/b", "config": {"model_args": "pretrained=c/d"}}, "x", "a/b", False),
    ({"config": {"model_args": "dtype=float16,pretrained=c/d"}}, "x", "c/d", False),
    ({"config": {"model_args": {"pretrained": "e/f", "revision": "v2"}}}, "x", "e/f@v2", False),
    ({"config": {"model_args": "dtype=float16"}}, "org__m", "org/m", False),
    ({"model_name": "/home/u/models/llama-3-8b/", "config": {"model_args": "pretrained=/home/u/models/llama-3-8b/"}},
     "x", "llama-3-8b", True),
    ({"model_name": "/ckpt/run7/checkpoint-500"}, "x", "run7/checkpoint-500", True),
    ({"model_name": "C:\\models\\phi-3.gguf"}, "x", "phi-3", True),
    ({"model_name": "/tmp/s/generations.jsonl",
      "config": {"model": "quantum-replay", "model_args": {"path": "/tmp/s/generations.jsonl"}}},
     "x", "replay of generations", True),
    ({"model_name": "/adapters/my-lora", "config": {"model_args": "pretrained=org/base,peft=/adapters/my-lora"}},
     "x", "org/base + my-lora", True),
    ({"model_name": "gpt-4o-mini", "config": {"model": "local-chat-completions",
                                               "model_args": "model=gpt-4o-mini,base_url=http://h/v1"}},
     "x", "gpt-4o-mini", False),
])
def test_model_names_are_readable_never_paths(tmp_path, data, directory, name, from_path):
    from lm_eval_quantum.report.leaderboard import model_name

    identity, shown, by_path = model_name(data, tmp_path / directory / "results_x.json")
    assert (shown, by_path) == (name, from_path)
    assert identity and not shown.startswith(("/", "C:"))


def test_run_date_fallbacks(tmp_path):
    from lm_eval_quantum.report.leaderboard import run_date

    path = tmp_path / "org__m" / "results_2025-01-02T03-04-05.000006.json"
    assert run_date({"date": 5.0}, path) == 5.0
    assert run_date({}, path) > run_date({}, path.with_name("results_2025-01-01T03-04-05.000006.json"))
