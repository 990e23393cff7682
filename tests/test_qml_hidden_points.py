"""QML behaviour tasks are judged off the listed points too (issue I, class 7).

The classifier, re-uploading and regression checks call `build_circuit` on the
points listed in the prompt and on unlisted ("hidden") points drawn from the rule
the prompt states.  Through the real sandbox and judge (`lm_eval_quantum.api.score`),
in every framework of each problem:

* a lookup table of the listed points (flip exactly on the listed -1 points, or
  RY(acos(target)) per listed x; the best constant elsewhere) now fails, with every
  listed point right;
* the canonical and an expert answer written here from the stated rule alone
  (no training, not the canonical's model) pass;
* the hidden inputs and targets are in no prompt and no verdict message.  They are
  in the sandbox job's batch by necessity (the candidate's function is called on
  them), but their targets never are: the adapted form of test_data's
  `test_hidden_data_never_enters_the_prompt_or_the_job` for batch checks.
"""
from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

import lm_eval_quantum as lmq
from lm_eval_quantum import thresholds as th
from lm_eval_quantum.scoring import session_for
from lm_eval_quantum.problems import get_problem
from lm_eval_quantum.thresholds import SandboxLimits

pytest.importorskip("cirq")
pytest.importorskip("pennylane")

SLUGS = ("qml_classifier", "data_reuploading", "vqc_regression")
FRAMEWORKS = ("qiskit", "cirq", "pennylane")
ROW = re.compile(r"^  x = (\(?[-\d., ]+\)?), (label|target) ([-+\d.]+)$", re.MULTILINE)
NUMBER = r"-?\d+(?:\.\d+)?"


def listed_rows(doc) -> tuple[list, list]:
    """The (x, target) rows the prompt lists, as a model reads them."""
    rows = ROW.findall(doc["prompt"])
    xs = [json.loads(x.replace("(", "[").replace(")", "]")) for x, _, _ in rows]
    return xs, [float(y) for _, _, y in rows]


def hidden_part(doc) -> tuple[list, list]:
    spec = json.loads(doc["check"])
    targets = spec.get("labels", spec.get("values"))
    k = spec["listed"]
    return [b[0] for b in spec["batch"][k:]], targets[k:]


def stated_constants(doc) -> dict:
    """The rule's constants as the prompt states them."""
    prompt = doc["prompt"]
    if doc["problem"] == "qml_classifier":
        a, b = re.search(rf"y = sign\(cos\(x0 \+ a\) cos\(x1 \+ b\)\) with a = ({NUMBER}), "
                         rf"b = ({NUMBER});", prompt).groups()
        return {"a": float(a), "b": float(b)}
    if doc["problem"] == "data_reuploading":
        s, c = re.search(rf"y = sign\(cos\(2 \(x - s\)\) - c\) with s = ({NUMBER}), c = ({NUMBER});",
                         prompt).groups()
        return {"s": float(s), "c": float(c)}
    text = re.search(r"^  f\(x\) = (.*)$", prompt, re.MULTILINE).group(1)
    m = re.fullmatch(rf"({NUMBER}) \+ ({NUMBER}) cos\(x ([+-]) ([\d.]+)\)", text)
    if m:
        a, b, sign, c = m.groups()
        return {"a": float(a), "b": float(b), "c": float(sign + c)}
    d, s1, c1, s2, c2 = re.fullmatch(
        rf"({NUMBER}) cos\(x ([+-]) ([\d.]+)\) cos\(x ([+-]) ([\d.]+)\)", text).groups()
    return {"d": float(d), "c1": float(s1 + c1), "c2": float(s2 + c2)}


def rule(doc, x) -> float:
    """The stated rule's value at x (its sign is the label), from the prompt alone."""
    c = stated_constants(doc)
    if doc["problem"] == "qml_classifier":
        return math.cos(x[0] + c["a"]) * math.cos(x[1] + c["b"])
    if doc["problem"] == "data_reuploading":
        return math.cos(2 * (x - c["s"])) - c["c"]
    if "d" in c:
        return c["d"] * math.cos(x + c["c1"]) * math.cos(x + c["c2"])
    return c["a"] + c["b"] * math.cos(x + c["c"])


# --- answers: gate lists rendered in each framework ------------------------------------------
def render(fw: str, n: int, body: str, prelude: str = "") -> str:
    """An answer whose build_circuit(x) runs `body`, a list of lines calling
    ry(angle, q), rx(angle, q), x(q) and cx(control, target)."""
    head = {"qiskit": "from qiskit import QuantumCircuit",
            "cirq": "import cirq", "pennylane": "import pennylane as qml"}[fw]
    gates = {
        "qiskit": ["    qc = QuantumCircuit(WIDTH)", "    ry = lambda t, k: qc.ry(t, k)",
                   "    rx = lambda t, k: qc.rx(t, k)", "    x_ = lambda k: qc.x(k)",
                   "    cx = lambda c, t: qc.cx(c, t)"],
        "cirq": ["    q = cirq.LineQubit.range(WIDTH)", "    ops = []",
                 "    ry = lambda t, k: ops.append(cirq.ry(t).on(q[k]))",
                 "    rx = lambda t, k: ops.append(cirq.rx(t).on(q[k]))",
                 "    x_ = lambda k: ops.append(cirq.X(q[k]))",
                 "    cx = lambda c, t: ops.append(cirq.CNOT(q[c], q[t]))"],
        "pennylane": ["    ry = lambda t, k: qml.RY(t, wires=k)", "    rx = lambda t, k: qml.RX(t, wires=k)",
                      "    x_ = lambda k: qml.PauliX(wires=k)", "    cx = lambda c, t: qml.CNOT(wires=[c, t])"],
    }[fw]
    tail = {"qiskit": ["    return qc"], "cirq": ["    return cirq.Circuit(ops)"], "pennylane": []}[fw]
    lines = [head, "import math", "", prelude, "", "def build_circuit(x):",
             *[g.replace("WIDTH", str(n)) for g in gates],
             *[f"    {line}" for line in body.strip().splitlines()],
             # every qubit is touched (a 2-qubit circuit stays 2 qubits wide in every framework)
             *[f"    ry(0.0, {k})" for k in range(n)], *tail]
    return "```python\n" + "\n".join(lines) + "\n```"


def lookup_answer(doc) -> str:
    """A table of the listed points, read from the prompt: the label (an X flips <Z> to
    -1) or RY(acos(target)) per listed x; elsewhere the best constant of the table."""
    xs, ys = listed_rows(doc)
    table = {json.dumps(x): y for x, y in zip(xs, ys)}
    if doc["problem"] == "vqc_regression":
        default = float(np.mean(ys))
        body = ("y = TABLE.get(json.dumps(round(x, 2)), DEFAULT)\n"
                "ry(math.acos(y), 0)")
    else:
        default = 1.0 if ys.count(1.0) >= ys.count(-1.0) else -1.0
        body = ("key = [round(v, 2) for v in x] if isinstance(x, list) else round(x, 2)\n"
                "if TABLE.get(json.dumps(key), DEFAULT) < 0:\n"
                "    x_(0)")
    prelude = f"import json\n\nTABLE = {table!r}\nDEFAULT = {default!r}"
    return render(doc["framework"], doc["num_qubits"], body, prelude)


def expert_answer(doc) -> str:
    """A circuit whose <Z> on qubit 0 is the stated rule (scaled), derived by hand:
    * checkerboard: RY(x0 + a), RY(x1 + b), CNOT 1 -> 0 gives cos(x0 + a) cos(x1 + b);
    * re-uploading: RX(al) RY(2 (x - s)) RX(be) gives cos(al) cos(be) cos(2 (x - s)) -
      sin(al) sin(be), = cos^2(al) (cos(2 (x - s)) - c) for tan^2(al) = |c|, be = sign(c) al;
    * a + b cos(x + c): the same with cos(al) cos(be) = b, sin(al) sin(be) = -a;
    * d cos(x + c1) cos(x + c2): RY(x + c1), RY(x + c2), CNOT 1 -> 0, then RX(acos(d)).
    """
    c = stated_constants(doc)
    if doc["problem"] == "qml_classifier":
        body = f"ry(x[0] + {c['a']!r}, 0)\nry(x[1] + {c['b']!r}, 1)\ncx(1, 0)"
    elif doc["problem"] == "data_reuploading":
        al = math.atan(math.sqrt(abs(c["c"])))
        be = math.copysign(al, c["c"])
        body = f"rx({al!r}, 0)\nry(2 * (x - {c['s']!r}), 0)\nrx({be!r}, 0)"
    elif "d" in c:
        body = (f"ry(x + {c['c1']!r}, 0)\nry(x + {c['c2']!r}, 1)\ncx(1, 0)\n"
                f"rx({math.acos(c['d'])!r}, 0)")
    else:
        minus, plus = math.acos(c["b"] - c["a"]), math.acos(c["b"] + c["a"])
        al, be = (minus + plus) / 2, (plus - minus) / 2   # al - be = minus, al + be = plus
        body = f"rx({al!r}, 0)\nry(x + {c['c']!r}, 0)\nrx({be!r}, 0)"
    return render(doc["framework"], doc["num_qubits"], body)


# --- the data -----------------------------------------------------------------------------------
@pytest.mark.parametrize("slug", SLUGS)
def test_hidden_points_follow_the_stated_rule_and_stay_out_of_the_prompt(slug):
    problem = get_problem(slug)
    for fw in FRAMEWORKS:
        docs = lmq.load_docs(f"quantum_{fw}_{slug}") + lmq.load_docs(f"quantum_{fw}_{slug}", "fewshot")
        for doc in docs:
            spec = json.loads(doc["check"])
            xs, ys = listed_rows(doc)
            hx, hy = hidden_part(doc)
            assert [b[0] for b in spec["batch"][:spec["listed"]]] == xs   # listed first, as stated
            assert len(hx) == problem.hidden_count >= 16
            assert f"each of {len(hx)} unlisted" in doc["prompt"]
            keys = [json.dumps(np.round(x, 2).tolist()) for x in hx]
            assert len(set(keys)) == len(keys) and not set(keys) & {json.dumps(x) for x in xs}
            for x, y in zip(hx, hy):
                assert np.all(np.abs(x) <= np.pi) and np.allclose(x, np.round(x, 2), atol=1e-12)
                # not listed: no row of the prompt shows the point
                shown = (f"({x[0]:.2f}, {x[1]:.2f})" if isinstance(x, list) else f"{x:.2f}")
                assert f"  x = {shown}," not in doc["prompt"]
                value = rule(doc, x)
                if "labels" in spec:   # the stated rule, with the stated margin
                    margin = float(re.search(r"kept only when .*? >= (\d+(?:\.\d+)?)", doc["prompt"]).group(1))
                    assert y == (1 if value > 0 else -1) and abs(value) >= margin
                else:
                    assert y == pytest.approx(round(value, 4), abs=1e-9)
            # no constant answer passes the hidden part
            if "labels" in spec:
                assert min(hy.count(1), hy.count(-1)) >= len(hy) / 4
            else:
                assert np.ptp(hy) > 2 * th.REGRESSION_TOLERANCE
            # the sandbox job carries the inputs (build_circuit must be called on them),
            # never their labels or values
            job = session_for(doc).job({"python": "x"}, SandboxLimits())
            assert job["batch"] == spec["batch"]
            assert not {"labels", "values", "listed", "readout"} & set(job)


# --- through the sandbox and the judge -------------------------------------------------------------
MESSAGE = re.compile(
    r"(\d+)/(\d+) listed and (\d+)/(\d+) unlisted inputs \(drawn from the stated rule\) give <Z> on "
    r"qubit 0 with (?:the sign of the label with \|<Z>\| >= 0\.05|the target within 0\.05)"
    r"(?:; input (\d+) gives <Z> = -?\d+\.\d{4})?")


def _counts(doc, verdict) -> tuple[int, int, int, int]:
    """The verdict message's counts; the message is exactly the template, so it holds
    no hidden input, target, index or <Z> (a failing input is named only if listed)."""
    m = MESSAGE.fullmatch(verdict["message"])
    assert m, verdict["message"]
    if m.group(5) is not None:
        assert int(m.group(5)) < json.loads(doc["check"])["listed"]
    return tuple(int(v) for v in m.groups()[:4])


@pytest.mark.parametrize("slug", SLUGS)
def test_a_lookup_table_fails_and_a_model_of_the_rule_passes(slug):
    for fw in FRAMEWORKS:
        task = f"quantum_{fw}_{slug}"
        docs = lmq.load_docs(task)
        for doc in (docs[0], docs[-1]):   # the smallest and the largest (regression: 1 and 2 qubits)
            answers = {"canonical": doc["canonical"], "lookup": lookup_answer(doc),
                       "expert": expert_answer(doc)}
            verdicts = dict(zip(answers, lmq.score(task, doc, list(answers.values()))))
            listed, hidden = json.loads(doc["check"])["listed"], len(hidden_part(doc)[0])
            for name in ("canonical", "expert"):
                v = verdicts[name]
                assert v["passed"] and v["category"] == "ok", (task, name, v["message"])
                assert _counts(doc, v) == (listed, listed, hidden, hidden), v["message"]
            v = verdicts["lookup"]
            assert not v["passed"] and v["category"] == "wrong_answer", (task, v["category"], v["message"])
            right, total, hidden_right, hidden_total = _counts(doc, v)
            assert (right, total, hidden_total) == (listed, listed, hidden), v["message"]
            assert hidden_right < hidden
            assert v["score"] == pytest.approx((listed + hidden_right) / (listed + hidden))


@pytest.mark.parametrize("slug", SLUGS)
def test_an_error_message_never_spells_out_a_hidden_input(slug):
    """A program that raises on the first unlisted input, with the input in its message:
    the verdict keeps the category and withholds the message.  An error on a listed input
    keeps its message (the input is in the prompt anyway)."""
    doc = lmq.load_docs(f"quantum_qiskit_{slug}")[0]
    listed = json.loads(doc["check"])["listed"]
    hidden = hidden_part(doc)[0]
    # the judge calls build_circuit on the listed inputs first, then on the hidden ones
    leak = render("qiskit", doc["num_qubits"],
                  f"CALLS.append(x)\nif len(CALLS) > {listed}:\n"
                  "    raise ValueError(f'hidden input {x!r}')", "CALLS = []")
    early = render("qiskit", doc["num_qubits"], "raise ValueError(f'listed input {x!r}')")
    v_leak, v_early = lmq.score(f"quantum_qiskit_{slug}", doc, [leak, early])
    assert v_leak["category"] == "runtime" and "withheld" in v_leak["message"], v_leak["message"]
    assert not [x for x in hidden if repr(x) in v_leak["message"]]
    assert "ValueError" not in v_leak["message"]    # nothing of the candidate's text
    assert v_early["category"] == "runtime" and "listed input" in v_early["message"], v_early["message"]
