"""The `returns` check kind: a function that computes a value.

returns (calls, expected, compare, tolerance): the sandbox calls the candidate's function
  once per hidden input (`calls`, drawn per doc and never in the prompt) and sends back what
  it returned as plain data (runtime/adapters/values.py); each value is compared with the
  reference's (`expected`, computed from the canonical answer when the doc is built; it
  never enters the sandbox) by the task's rule:

  * "exact": equal plain data (numbers equal as numbers, 3 == 3.0; strings, lists, dicts
    and counts equal);
  * "close": the same structure, every number within `tolerance` (absolute, or relative to
    its size above 1), arrays of the same shape;
  * "operator": the same sum of Pauli strings (terms collected, coefficients within
    `tolerance`);
  * "unitary": a returned circuit (or matrix) with the reference's unitary, up to global
    phase (process fidelity >= 1 - PROCESS_FIDELITY_EPS);
  * "state": a returned circuit (or vector) preparing the reference's state from |0...0>,
    up to global phase (fidelity >= 1 - STATE_FIDELITY_EPS).

  A returned circuit may carry the layout a transpiler gave it ({"$routed": {"circuit",
  "initial", "final"}}: virtual qubit i starts on physical qubit initial[i] and ends on
  final[i], both permutations of the circuit's qubits); its unitary is then read through
  that layout, as Qiskit's `Operator.from_circuit` reads it.  `circuit_rules` (gate_set,
  coupling: judge/structure.py; `coupling_arg`: the call's argument that is the coupling
  map) are rules every returned circuit must keep, for tasks that ask for a circuit over a
  basis or a device's coupling map; a broken rule is reported by which rule it is, never by
  the gate or qubits (they come from a hidden input).

  Passes when every test does; `tests_passed` is the share of tests passed.  The verdict
  names how many tests passed and, for the first failure, only what kind of value came back
  (never an input, an expected value or a returned value).
"""
from __future__ import annotations

import math

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import simulate, structure
from lm_eval_quantum.judge.grading import CheckFailure, Grade
from lm_eval_quantum.judge.kinds import Kind
from lm_eval_quantum.runtime import wire

_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class _Opaque:
    """A value the candidate's framework object became ($object): equal to nothing."""

    def __init__(self, name):
        self.name = name


def decode(value):
    """Plain tagged data -> Python values: numbers, str, lists, dicts (a `$dict` as a list
    of pairs), NumPy arrays, ("circuit", wire circuit, layout or None), ("pauli_sum",
    {term: coefficient})."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (tag, body), = value.items()
        if tag == "$float":
            return _FLOATS.get(body, math.nan)
        if tag == "$complex":
            return complex(float(body[0]), float(body[1]))
        if tag == "$array":
            re = np.array([decode(x) for x in body["re"]], dtype=float)
            data = re if body["im"] is None else re + 1j * np.array(
                [decode(x) for x in body["im"]], dtype=float)
            return data.reshape([int(s) for s in body["shape"]])
        if tag == "$dict":
            return [(decode(k), decode(v)) for k, v in body]
        if tag == "$circuit":
            return ("circuit", body, None)
        if tag == "$routed" and isinstance(body, dict) and set(body) == {"circuit", "initial", "final"}:
            return ("circuit", body["circuit"], (body["initial"], body["final"]))
        if tag == "$pauli_sum":
            return ("pauli_sum", pauli_terms(body))
        if tag == "$object":
            return _Opaque(body)
    return {k: decode(v) for k, v in value.items()}


def pauli_terms(terms, atol: float = 0.0) -> dict:
    """{((qubit, letter), ...) sorted: coefficient}, equal terms collected, zeros dropped."""
    out: dict = {}
    for ops, re, im in terms:
        key = tuple(sorted((int(q), str(p)) for q, p in ops))
        out[key] = out.get(key, 0) + complex(decode(re), decode(im))
    return {k: c for k, c in out.items() if abs(c) > atol}


def what(value) -> str:
    """The kind of a decoded value, for messages (never the value itself)."""
    if value is None:
        return "nothing (None)"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, (int, float, complex)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, np.ndarray):
        return "an array"
    if isinstance(value, tuple):
        return {"circuit": "a circuit", "pauli_sum": "a Pauli sum"}[value[0]]
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a dict"
    return f"an object the judge cannot read ({value.name})"


class Mismatch(Exception):
    """Why a returned value is not the reference's (a kind of value, never a value)."""


def _number_close(a, b, tol: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if not isinstance(a, (int, float, complex)) or not isinstance(b, (int, float, complex)):
        return False
    if tol == 0:
        return a == b
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return abs(a - b) <= tol * max(1.0, abs(b))


def _as_array(value):
    """A nested list of numbers as an array, or None (and the list kept)."""
    try:
        arr = np.asarray(value, dtype=complex)
    except (TypeError, ValueError):
        return None
    return arr if arr.dtype != object else None


def same(got, want, tol: float) -> None:
    """Raise Mismatch unless `got` equals `want` (numbers within `tol`; tol 0: exactly).  A
    list of numbers and an array are the same value (a model returns either)."""
    if isinstance(want, list) and isinstance(got, np.ndarray) and _as_array(want) is not None:
        want = _as_array(want)
    elif isinstance(want, np.ndarray) and isinstance(got, list):
        got = _as_array(got) if _as_array(got) is not None else got
    if isinstance(want, (bool, int, float, complex)) and not isinstance(want, np.ndarray):
        if isinstance(got, np.ndarray) and got.shape == ():
            got = got.item()
        if not _number_close(got, want, tol):
            raise Mismatch(f"returned {what(got)} that differs from the reference's"
                           if isinstance(got, (int, float, complex)) and not isinstance(got, bool)
                           else f"returned {what(got)} where {what(want)} is expected")
        return
    if isinstance(want, np.ndarray):
        try:
            arr = np.asarray(got, dtype=complex)
        except (TypeError, ValueError):
            raise Mismatch(f"returned {what(got)} where an array is expected") from None
        if arr.shape != want.shape:
            raise Mismatch("returned an array of another shape than the reference's")
        if not np.allclose(arr, want, rtol=tol, atol=tol) if tol else not np.array_equal(arr, want):
            raise Mismatch("returned an array whose entries differ from the reference's")
        return
    if isinstance(want, tuple) and want[0] == "pauli_sum":
        if not (isinstance(got, tuple) and got[0] == "pauli_sum"):
            raise Mismatch(f"returned {what(got)} where a Pauli sum is expected")
        g, w = ({k: c for k, c in x[1].items() if abs(c) > tol} for x in (got, want))
        if set(g) != set(w) or any(abs(g[k] - w[k]) > tol * max(1.0, abs(w[k])) for k in w):
            raise Mismatch("returned a Pauli sum that differs from the reference's")
        return
    if type(got) is not type(want) and not (isinstance(got, list) and isinstance(want, list)):
        raise Mismatch(f"returned {what(got)} where {what(want)} is expected")
    if isinstance(want, str):
        if got != want:
            raise Mismatch("returned a string that differs from the reference's")
    elif isinstance(want, list):
        if len(got) != len(want):
            raise Mismatch("returned a list of another length than the reference's")
        for g, w in zip(got, want):
            same(g, w, tol)
    elif isinstance(want, dict):
        if set(got) != set(want):
            raise Mismatch("returned a dict with other keys than the reference's")
        for k in want:
            same(got[k], want[k], tol)
    elif isinstance(want, tuple) and want[0] == "circuit":
        raise Mismatch("circuits are compared by the unitary or state rule")
    elif want is not None or got is not None:
        raise Mismatch(f"returned {what(got)} where {what(want)} is expected")


def _circuit(value) -> dict:
    try:
        return wire.check_circuit(value[1], th.MAX_QUBITS_OTHER_KINDS, th.MAX_OPS)
    except wire.SizeLimitError:
        raise
    except wire.WireError as exc:
        raise Mismatch(f"returned a circuit the judge cannot read ({exc})") from None


def _permutation(p, n: int) -> list[int]:
    if not isinstance(p, list) or sorted(x if type(x) is int else -1 for x in p) != list(range(n)):
        raise Mismatch("returned a circuit whose layout is not a permutation of its qubits "
                       "(a transpiled circuit with ancilla qubits: route on a map of exactly the "
                       "circuit's qubits)")
    return p


def through_layout(matrix: np.ndarray, n: int, initial: list[int], final: list[int]) -> np.ndarray:
    """The virtual-qubit operator of a physical one (little-endian, n qubits): virtual
    qubit i enters on physical qubit initial[i] and leaves on final[i]."""
    # tensor axes of a little-endian index: axis a is qubit n - 1 - a (outputs, then inputs)
    t = matrix.reshape((2,) * (2 * n))
    out_axes = [n - 1 - final[n - 1 - a] for a in range(n)]
    in_axes = [n + n - 1 - initial[n - 1 - a] for a in range(n)]
    return t.transpose(out_axes + in_axes).reshape(2**n, 2**n)


def _operator(value, kind: str) -> np.ndarray:
    """A returned circuit's unitary or state (little-endian, read through its layout), or a
    returned matrix / vector."""
    if isinstance(value, tuple) and value[0] == "circuit":
        circuit = _circuit(value)
        n = circuit["num_qubits"]
        layout = value[2] and (_permutation(value[2][0], n), _permutation(value[2][1], n))
        try:
            if kind == "unitary":
                if n > th.MAX_UNITARY_QUBITS:
                    raise wire.SizeLimitError(f"a returned circuit of {n} "
                                              f"qubits (unitaries up to {th.MAX_UNITARY_QUBITS})")
                u = simulate.unitary(circuit)
                return through_layout(u, n, *layout) if layout else u
            psi = simulate.statevector(circuit)
            if layout:    # |0...0> is the same on every layout: only the outputs move
                psi = through_layout(np.outer(psi, np.eye(2**n)[0]), n, list(range(n)), layout[1])[:, 0]
            return psi
        except simulate.SimulationError as exc:
            raise Mismatch(f"returned a circuit the judge cannot simulate as a {kind} ({exc})") from None
    if isinstance(value, np.ndarray):
        return value
    raise Mismatch(f"returned {what(value)} where a circuit is expected")


def _rules(rules: dict, args: list) -> dict:
    """The rules of one call: `coupling_arg` k names the call's argument that is the coupling
    map (a task whose device differs between hidden inputs)."""
    if "coupling_arg" not in rules:
        return rules
    return {**{k: v for k, v in rules.items() if k != "coupling_arg"},
            "coupling": args[rules["coupling_arg"]]}


def _keeps_rules(value, rules: dict) -> None:
    """A returned circuit keeps the task's `circuit_rules` (the rule named, not the gate)."""
    if not (isinstance(value, tuple) and value[0] == "circuit"):
        return
    circuit = _circuit(value)
    for key, text in (("gate_set", "uses a gate outside the task's gate set"),
                      ("coupling", "applies a two-qubit operation to a pair the task's coupling "
                                   "map does not connect")):
        if key in rules and structure.violation(circuit, {key: rules[key]}):
            raise Mismatch(f"returned a circuit that {text}")


def _equal_up_to_phase(got: np.ndarray, want: np.ndarray, eps: float, kind: str) -> None:
    if got.shape != want.shape:
        raise Mismatch(f"returned a {kind} on another number of qubits than the reference's")
    d = want.shape[0]
    overlap = abs(np.vdot(want.reshape(-1), got.reshape(-1))) ** 2
    norm = float(np.vdot(want.reshape(-1), want.reshape(-1)).real) ** 2
    fidelity = overlap / norm if kind == "state" else overlap / d**2
    if fidelity < 1 - eps:
        raise Mismatch(f"returned a circuit whose {kind} differs from the reference's")


def grade_returns(session, circuit) -> Grade:
    spec = session.spec
    calls, expected = spec["calls"], spec["expected"]
    rule, tol = spec.get("compare", "exact"), float(spec.get("tolerance") or 0.0)
    if rule not in RULES:
        raise CheckFailure("infra", f"unknown comparison rule {rule!r}")
    passed, first = 0, None
    for t in range(len(calls)):
        reply = session.answers.get(t)
        try:
            if not isinstance(reply, dict) or len(reply) != 1:
                raise Mismatch("returned nothing the judge could read")
            if "$raised" in reply:
                raise Mismatch(f"raised {str(reply['$raised'])[:64]}")
            got, want = decode(reply.get("$returned")), decode(expected[t])
            _keeps_rules(got, _rules(spec.get("circuit_rules") or {}, calls[t]))
            if rule in ("unitary", "state"):
                eps = th.PROCESS_FIDELITY_EPS if rule == "unitary" else th.STATE_FIDELITY_EPS
                _equal_up_to_phase(_operator(got, rule), _operator(want, rule), eps, rule)
            else:
                same(got, want, tol if rule != "exact" else 0.0)
            passed += 1
        except Mismatch as exc:
            if first is None:
                first = f"test {t} {exc}"
    n = len(calls)
    message = f"{passed} of {n} hidden tests passed" + (f"; {first}" if first else "")
    return Grade(passed == n, passed / n if n else 0.0, message, {"tests_passed": passed / n if n else 0.0})


RULES = ("exact", "close", "operator", "unitary", "state")

KIND = Kind(
    name="returns", grade=grade_returns, metrics=("tests_passed",),
    seed_free=True, by_category=False, reads_circuit=False,
    rule="the function, called by the judge on every hidden input of the doc (never shown), "
         "returns the reference's value each time: equal plain data (\"exact\"), numbers within "
         "the task's tolerance (\"close\"), the same Pauli sum (\"operator\"), or a circuit with "
         f"the reference's unitary (process fidelity >= 1 - {th.PROCESS_FIDELITY_EPS:g}) or state "
         f"(fidelity >= 1 - {th.STATE_FIDELITY_EPS:g}) up to global phase; `tests_passed` is the "
         "share of hidden tests passed")
