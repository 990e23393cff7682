"""Qiskit-only function tasks of simulation, quantum-information analysis, counts
post-processing and small algorithms (check kind `returns`, issue N):

basic: bloch_vector, qubit_probabilities, qft_amplitudes, measurement_collapse,
circuit_entropy, pauli_tomography, hellinger_fidelity, qpe_readout;
intermediate: concurrence, negativity, mutual_information, schmidt_coefficients,
kraus_channel, gate_fidelity, pauli_basis_probabilities, bv_oracle_secret;
difficult: tomography_counts, readout_mitigation, channel_steady_state,
amplitude_amplification, noisy_expectation, clifford_propagation.

* the canonical answer passes against the independent NumPy reference on 10 seeded docs
  (5+ hidden inputs each) by default and on 100 under `slow`, graded in process by the
  judge's session (support.judge_in_process);
* plausible wrong answers fail on docs 0, 1 and 2: a reversed qubit or bit order, a sign or
  a convention (frame, vectorisation, logarithm base, depolarizing weights), an off-by-one,
  a removed API (`qiskit.execute`, `Aer`, `qiskit.opflow`, primitives V1), and the value
  printed instead of returned (every problem);
* the references agree with hand-computed values and with Qiskit on known inputs;
* every prompt passes the prompt lint; Cirq and PennyLane are unsupported, with a reason.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from support import canonical_edited, function_doc, function_verdict
from test_prompt_lint import Doc, lint

from lm_eval_quantum.problems import get_problem, make_doc
from lm_eval_quantum.problems.base import DIFFICULTIES, HUMANEVAL_CATEGORIES

pytest.importorskip("qiskit_qasm3_import")

SLUGS = {   # slug: difficulty
    "bloch_vector": "basic", "qubit_probabilities": "basic", "qft_amplitudes": "basic",
    "measurement_collapse": "basic", "circuit_entropy": "basic", "pauli_tomography": "basic",
    "hellinger_fidelity": "basic", "qpe_readout": "basic",
    "concurrence": "intermediate", "negativity": "intermediate",
    "mutual_information": "intermediate", "schmidt_coefficients": "intermediate",
    "kraus_channel": "intermediate", "gate_fidelity": "intermediate",
    "pauli_basis_probabilities": "intermediate", "bv_oracle_secret": "intermediate",
    "tomography_counts": "difficult", "readout_mitigation": "difficult",
    "channel_steady_state": "difficult", "amplitude_amplification": "difficult",
    "noisy_expectation": "difficult", "clifford_propagation": "difficult",
}
FEW, DRAWS = 10, 100


def doc(slug: str, variant: int) -> dict:
    return function_doc(slug, "qiskit", variant)


def verdict(slug: str, variant: int, code: str) -> dict:
    return function_verdict(slug, "qiskit", code, variant)


def mutated(slug: str, *pairs: str) -> str:
    return canonical_edited(slug, "qiskit", *pairs)


def printed(slug: str) -> str:
    """The canonical with its last `return value` turned into `print(value)`."""
    lines = get_problem(slug).code["qiskit"].split("\n")
    i = max(k for k, line in enumerate(lines) if line.startswith("    return "))
    lines[i] = "    print(" + lines[i][len("    return "):] + ")"
    return "\n".join(lines)


# --- the canonical answers pass against the references --------------------------------------------
def _canonical_failures(slug, variants):
    code = get_problem(slug).code["qiskit"]
    return [(v, r["message"]) for v in variants if not (r := verdict(slug, v, code))["passed"]]


@pytest.mark.parametrize("slug", SLUGS)
def test_canonical_passes(slug):
    assert not _canonical_failures(slug, range(FEW))


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_canonical_passes_over_100_draws(slug):
    assert not _canonical_failures(slug, range(DRAWS))


def test_levels_categories_and_frameworks():
    levels = {slug: get_problem(slug).difficulty for slug in SLUGS}
    assert levels == SLUGS
    assert [list(levels.values()).count(d) for d in DIFFICULTIES] == [8, 8, 6]
    for slug in SLUGS:
        problem = get_problem(slug)
        assert problem.category in HUMANEVAL_CATEGORIES
        assert problem.category in ("simulation and execution", "state preparation and analysis",
                                    "visualization and post-processing", "algorithm implementation")
        assert problem.frameworks == ("qiskit",)
        assert set(problem.unsupported) == {"qasm", "cirq", "pennylane"}
        assert all(len(reason) > 40 for reason in problem.unsupported.values())


@pytest.mark.parametrize("slug", SLUGS)
def test_prompts_pass_the_lint(slug):
    problem = get_problem(slug)
    for split in ("test", "fewshot"):
        for i, params in enumerate(problem.instances(split)):
            d = make_doc(problem, "qiskit", params, i, split)
            assert lint(Doc.of(d)) == [], (split, i, lint(Doc.of(d)))
            assert problem.function in d["prompt"]


def test_hidden_inputs_are_stable_and_distinct():
    for slug in SLUGS:
        problem = get_problem(slug)
        inputs = [args for v in range(6) for args in problem.hidden_inputs({"variant": v})]
        assert problem.hidden_inputs({"variant": 2}) == problem.hidden_inputs({"variant": 2})
        assert len({str(args) for args in inputs}) >= 0.9 * len(inputs), slug
        assert len(problem.hidden_inputs({"variant": 0})) >= 5


# --- plausible wrong answers fail ---------------------------------------------------------------------
REMOVED_EXECUTE = ("from qiskit import qasm3", "from qiskit import execute, qasm3")
WRONG = {   # slug: {name: (old, new, ...)} on the canonical; each fails on docs 0, 1 and 2
    "bloch_vector": {
        "qubit n-1-k": ("[qubit])", "[state.num_qubits - 1 - qubit])"),
        "components Z, Y, X": ('for p in "XYZ"', 'for p in "ZYX"'),
        "sign of Y": ("Pauli(p), [qubit]", "Pauli(p) if p != 'Y' else -Pauli(p), [qubit]"),
        "qiskit.execute (removed)": REMOVED_EXECUTE,
    },
    "qubit_probabilities": {
        "qubits sorted": ("qargs=list(qubits)", "qargs=sorted(qubits)"),
        "qubits[0] most significant": ("qargs=list(qubits)", "qargs=list(qubits)[::-1]"),
        "all qubits": ("state.probabilities(qargs=list(qubits))", "state.probabilities()"),
        "Aer (removed from qiskit)": ("from qiskit import qasm3", "from qiskit import Aer, qasm3"),
    },
    "qft_amplitudes": {
        "inverse QFT": ("QFTGate(len(qubits))", "QFTGate(len(qubits)).inverse()"),
        "register reversed": ("list(qubits))    #", "list(qubits)[::-1])    #"),
        "qubits sorted": ("list(qubits))    #", "sorted(qubits))    #"),
        "qiskit.execute (removed)": REMOVED_EXECUTE,
    },
    "measurement_collapse": {
        "qubit n-1-k": ("qargs=[qubit]", "qargs=[state.num_qubits - 1 - qubit]",
                        "probabilities([qubit])", "probabilities([state.num_qubits - 1 - qubit])"),
        "not renormalised": ("after.data / np.sqrt(p)", "after.data"),
        "other outcome's probability": ("[qubit])[outcome]", "[qubit])[1 - outcome]"),
    },
    "circuit_entropy": {
        "natural logarithm": ("base=2", "base=math.e", "import DensityMatrix, entropy",
                              "import DensityMatrix, entropy\nimport math"),
        "one minus the purity": ("float(entropy(rho, base=2))", "float(1 - rho.purity().real)"),
        "resets left out": ("rho = DensityMatrix(qasm3.loads(qasm))",
                            "rho = DensityMatrix(qasm3.loads('\\n'.join(\n"
                            "        line for line in qasm.splitlines() if not line.startswith('reset'))))"),
    },
    "pauli_tomography": {
        "labels read left to right": ("list(expectations.items())",
                                      "[(k[::-1], v) for k, v in expectations.items()]"),
        "factor 4^-n": ("/ 2**n", "/ 4**n"),
        "transposed": ("operator.to_matrix() / 2**n", "operator.to_matrix().T / 2**n"),
        "qiskit.opflow (removed)": ("from qiskit.quantum_info import SparsePauliOp",
                                    "from qiskit.opflow import PauliSumOp as SparsePauliOp"),
    },
    "hellinger_fidelity": {
        "Bhattacharyya coefficient, unsquared": (
            "float(hellinger_fidelity(counts_a, counts_b))",
            "float(hellinger_fidelity(counts_a, counts_b)) ** 0.5"),
        "Hellinger distance": ("import hellinger_fidelity",
                               "import hellinger_distance as hellinger_fidelity"),
        "one minus the distance": ("float(hellinger_fidelity(counts_a, counts_b))",
                                   "1 - float(hellinger_distance(counts_a, counts_b))",
                                   "import hellinger_fidelity",
                                   "import hellinger_distance, hellinger_fidelity"),
    },
    "qpe_readout": {
        "key read left to right": ("values = Counts(counts).int_outcomes()",
                                   "values = {int(k[::-1], 2): v for k, v in counts.items()}"),
        "ties: the largest y": ("(-values[v], v)", "(-values[v], -v)"),
        "divided by 2^(t-1)": ("y / 2**t", "y / 2**(t - 1)"),
        "most_frequent raises on ties": ("y = min(values, key=lambda v: (-values[v], v))",
                                         "y = int(Counts(counts).most_frequent(), 2)"),
    },
    "concurrence": {
        "twice the negativity": (
            "float(qiskit_concurrence(Statevector(z) if z.ndim == 1 else DensityMatrix(z)))",
            "2 * float(negativity(DensityMatrix(Statevector(z)) if z.ndim == 1 else DensityMatrix(z), [0]))",
            "import numpy as np", "import numpy as np\nfrom qiskit.quantum_info import negativity"),
        "entanglement of formation": ("from qiskit.quantum_info import concurrence as qiskit_concurrence",
                                      "from qiskit.quantum_info import entanglement_of_formation as "
                                      "qiskit_concurrence"),
        "eigenvalues without square roots": (
            "    return float(qiskit_concurrence(",
            "    if z.ndim == 2:\n"
            "        yy = np.kron([[0, -1j], [1j, 0]], [[0, -1j], [1j, 0]])\n"
            "        lam = np.sort(np.linalg.eigvals(z @ yy @ z.conj() @ yy).real)[::-1]\n"
            "        return float(max(0.0, lam[0] - lam[1] - lam[2] - lam[3]))\n"
            "    return float(qiskit_concurrence("),
    },
    "negativity": {
        "natural logarithm": ("math.log2(2 * value + 1)", "math.log(2 * value + 1)"),
        "no factor 1/2": ("value = float(qiskit_negativity(rho, list(qubits)))",
                          "value = 2 * float(qiskit_negativity(rho, list(qubits)))"),
        "qubit n-1-k": ("list(qubits)))", "[rho.num_qubits - 1 - q for q in qubits]))"),
        "qiskit.execute (removed)": REMOVED_EXECUTE,
    },
    "mutual_information": {
        "natural logarithm": ("base=2", "base=math.e", "from qiskit import qasm3",
                              "import math\nfrom qiskit import qasm3"),
        "S(AB) of the whole register": ("- s(list(qubits_a) + list(qubits_b))",
                                        "- s(list(range(n)))"),
        "2 S(A)": ("return s(qubits_a) + s(qubits_b) - s(list(qubits_a) + list(qubits_b))",
                   "return 2 * s(qubits_a)"),
    },
    "schmidt_coefficients": {
        "squares": ("(float(s) for s,", "(float(s) ** 2 for s,"),
        "increasing order": ("reverse=True)", "reverse=False)"),
        "zeros left out": ("return (values + [0.0] * size)[:size]", "return values"),
        "qiskit.execute (removed)": REMOVED_EXECUTE,
    },
    "kraus_channel": {
        "qubits reversed": ("qargs=list(qubits)", "qargs=list(qubits)[::-1]"),
        "K^dagger rho K": ("Kraus([m[..., 0] + 1j * m[..., 1] for m in matrices])",
                           "Kraus([(m[..., 0] + 1j * m[..., 1]).conj().T for m in matrices])"),
        "matrices transposed": ("Kraus([m[..., 0] + 1j * m[..., 1] for m in matrices])",
                                "Kraus([(m[..., 0] + 1j * m[..., 1]).T for m in matrices])"),
        "qiskit.execute (removed)": REMOVED_EXECUTE,
    },
    "gate_fidelity": {
        "inverse circuit as the target": ("Operator(qasm3.loads(target_qasm))",
                                          "Operator(qasm3.loads(target_qasm).inverse())"),
        "target qubits reversed": ("Operator(qasm3.loads(target_qasm))",
                                   "Operator(qasm3.loads(target_qasm).reverse_bits())"),
        "(d F + 1) / d": ("float(average_gate_fidelity(channel, target))",
                          "float((2 ** target.num_qubits * process_fidelity(channel, target) + 1) "
                          "/ 2 ** target.num_qubits)"),
    },
    "pauli_basis_probabilities": {
        "S for S^dagger": ("circuit.sdg(q)", "circuit.s(q)"),
        "bases read left to right": ("basis = bases[n - 1 - q]", "basis = bases[q]"),
        "keys with qubit 0 leftmost": ("{key: float(p)", "{key[::-1]: float(p)"),
        "qiskit.execute (removed)": REMOVED_EXECUTE,
    },
    "bv_oracle_secret": {
        "key read with s_0 first": ("key=probabilities.get))", "key=probabilities.get))[::-1]"),
        "output qubit in |+>": ("    qc.x(n)\n", ""),
        "output qubit in the key": ("qargs=list(range(n))", "qargs=list(range(n + 1))"),
        "qiskit.execute (removed)": ("from qiskit import QuantumCircuit, qasm3",
                                     "from qiskit import QuantumCircuit, execute, qasm3"),
    },
    "tomography_counts": {
        "one setting only (identities as Z)": (
            "if all(setting[n - 1 - q] == label[n - 1 - q] for q in support):",
            "if setting == label.replace('I', 'Z'):"),
        "labels read left to right": ("terms.append((label, signed / shots))",
                                      "terms.append((label[::-1], signed / shots))"),
        "factor 4^-n": ("to_matrix() / 2**n", "to_matrix() / 4**n"),
        "qiskit.opflow (removed)": ("from qiskit.quantum_info import SparsePauliOp",
                                    "from qiskit.opflow import PauliSumOp as SparsePauliOp"),
    },
    "readout_mitigation": {
        "Kronecker product reversed": ("for cal in reversed(calibrations):", "for cal in calibrations:"),
        "A transposed": ("np.linalg.solve(a, p)", "np.linalg.solve(a.T, p)"),
        "clip and renormalise": (
            "    nearest = quasi.nearest_probability_distribution()\n",
            "    clipped = {k: max(v, 0.0) for k, v in quasi.items()}\n"
            "    nearest = {k: v / sum(clipped.values()) for k, v in clipped.items()}\n"),
        "quasi-probabilities": ("    nearest = quasi.nearest_probability_distribution()\n",
                                "    nearest = quasi\n"),
    },
    "channel_steady_state": {
        "reshaped row by row": ('reshape(dim, dim, order="F")', "reshape(dim, dim)"),
        "trace (and phase) left unnormalised": ("    rho = rho / np.trace(rho)\n", ""),
        "one application to |0...0>": ("    channel = SuperOp(qasm3.loads(qasm))",
                                       "    from qiskit.quantum_info import DensityMatrix\n"
                                       "    return DensityMatrix(qasm3.loads(qasm)).data\n"
                                       "    channel = SuperOp(qasm3.loads(qasm))"),
        "qiskit.execute (removed)": REMOVED_EXECUTE,
    },
    "amplitude_amplification": {
        "Hadamard preparation": ("grover_operator(oracle, state_preparation=a)", "grover_operator(oracle)"),
        "k + 1 iterations": ("range(iterations)", "range(iterations + 1)"),
        "good keys with qubit 0 leftmost": ("marked = {int(key, 2) for key in good}",
                                            "marked = {int(key[::-1], 2) for key in good}",
                                            "probabilities.get(key, 0.0)",
                                            "probabilities.get(key[::-1], 0.0)"),
        "qiskit.execute (removed)": ("from qiskit import QuantumCircuit, qasm3",
                                     "from qiskit import QuantumCircuit, execute, qasm3"),
    },
    "noisy_expectation": {
        "noise once at the end": (
            "        rho = rho.evolve(depolarizing(len(qargs), p), qargs=qargs)\n",
            "    rho = rho.evolve(depolarizing(circuit.num_qubits, p))\n"),
        "weights p / (4^k - 1)": ("[1 - p + p / 4**k] + [p / 4**k] * (4**k - 1)",
                                  "[1 - p] + [p / (4**k - 1)] * (4**k - 1)"),
        "labels read left to right": ("[(label, c) for label, c in observable]",
                                      "[(label[::-1], c) for label, c in observable]"),
        "primitives V1 (removed)": ("from qiskit import qasm3",
                                    "from qiskit import qasm3\nfrom qiskit.primitives import Estimator"),
    },
    "clifford_propagation": {
        "frame h (U^dagger P U)": ('evolve(clifford, frame="s")', "evolve(clifford)"),
        "label read left to right": ("Pauli(pauli)", "Pauli(pauli[::-1])"),
        "sign dropped": ('return str(Pauli(pauli).evolve(clifford, frame="s"))',
                         'return str(Pauli(pauli).evolve(clifford, frame="s")).lstrip("-")'),
        "qiskit.execute (removed)": ("from qiskit import qasm3", "from qiskit import execute, qasm3"),
    },
}


@pytest.mark.parametrize("slug, name", [(s, n) for s in SLUGS for n in WRONG[s]])
def test_wrong_answer_fails(slug, name):
    code = mutated(slug, *WRONG[slug][name])
    assert [verdict(slug, v, code)["passed"] for v in range(3)] == [False] * 3


@pytest.mark.parametrize("slug", SLUGS)
def test_printed_value_fails(slug):
    results = [verdict(slug, v, printed(slug)) for v in range(3)]
    assert all(not r["passed"] and r["tests_passed"] == 0 for r in results)


def test_every_problem_has_three_wrong_answers():
    assert all(len(WRONG[slug]) >= 3 for slug in SLUGS)


def test_end_to_end_through_the_sandbox():
    """One doc of some tasks through the real sandbox: the canonicals pass (complex arrays,
    strings and dicts travel back), a printed value and a removed API fail."""
    from support import score_with_canonicals

    docs = [doc(slug, 1) for slug in ("qft_amplitudes", "kraus_channel", "bv_oracle_secret",
                                      "readout_mitigation", "clifford_propagation")]
    removed = mutated("clifford_propagation", *WRONG["clifford_propagation"]["qiskit.execute (removed)"])
    _, (v_printed, v_removed) = score_with_canonicals(docs, [
        (doc("qft_amplitudes", 1), f"```python\n{printed('qft_amplitudes')}\n```"),
        (doc("clifford_propagation", 1), f"```python\n{removed}\n```")])
    assert not v_printed["passed"] and v_printed["tests_passed"] == 0
    assert not v_removed["passed"] and "execute" in v_removed["message"]


# --- the references on hand-computed values and against Qiskit -------------------------------------
BELL = 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[2] q;\nh q[0];\ncx q[0], q[1];\n'


def program(n: int, *lines: str) -> str:
    return "\n".join(['OPENQASM 3.0;', 'include "stdgates.inc";', f"qubit[{n}] q;", *lines]) + "\n"


def test_state_references_on_known_states():
    ref = lambda slug, *args: get_problem(slug).reference("qiskit", *args)   # noqa: E731
    # X on q[1] of 3 qubits: qubit 1 points down, the others up
    flip = program(3, "x q[1];")
    assert ref("bloch_vector", flip, 1) == pytest.approx([0, 0, -1])
    assert ref("bloch_vector", flip, 0) == pytest.approx([0, 0, 1])
    assert ref("bloch_vector", BELL, 0) == pytest.approx([0, 0, 0])
    # qubits [1, 0]: index 1 is qubit 1 = 1, qubit 0 = 0
    assert list(ref("qubit_probabilities", flip, [1, 0])) == pytest.approx([0, 1, 0, 0])
    assert list(ref("qubit_probabilities", flip, [0, 1])) == pytest.approx([0, 0, 1, 0])
    # the QFT of |x> on one register: amplitudes exp(2 pi i x k / 4) / 2
    three = program(2, "x q[0];", "x q[1];")
    k = np.arange(4)
    assert ref("qft_amplitudes", three, [0, 1]) == pytest.approx(np.exp(2j * np.pi * 3 * k / 4) / 2)
    one = program(2, "x q[0];")     # x = 1 read with qubits [1, 0]: x = 2
    assert ref("qft_amplitudes", one, [1, 0]) == pytest.approx(
        np.exp(2j * np.pi * 2 * np.array([0, 2, 1, 3]) / 4) / 2)
    p, state = ref("measurement_collapse", BELL, 1, 1)
    assert p == pytest.approx(0.5) and state == pytest.approx([0, 0, 0, 1])
    assert ref("schmidt_coefficients", BELL, [1]) == pytest.approx([2**-0.5, 2**-0.5])
    assert ref("schmidt_coefficients", flip, [2, 0]) == pytest.approx([1, 0])
    reset = program(2, "h q[0];", "cx q[0], q[1];", "reset q[0];")
    assert ref("circuit_entropy", reset) == pytest.approx(1.0)
    assert ref("mutual_information", BELL, [0], [1]) == pytest.approx(2.0)
    assert ref("mutual_information", reset, [0], [1]) == pytest.approx(0.0, abs=1e-9)
    assert ref("negativity", BELL, [0]) == pytest.approx([0.5, 1.0])
    assert ref("bv_oracle_secret", program(4, "cx q[2], q[3];", "x q[3];")) == "100"
    assert ref("clifford_propagation", program(1, "h q[0];"), "X") == "Z"
    assert ref("clifford_propagation", program(1, "s q[0];"), "X") == "Y"
    assert ref("clifford_propagation", program(1, "sdg q[0];"), "X") == "-Y"
    # CX(0 -> 1): X on the control spreads to the target, Z on the target to the control
    assert ref("clifford_propagation", program(2, "cx q[0], q[1];"), "IX") == "XX"
    assert ref("clifford_propagation", program(2, "cx q[0], q[1];"), "ZI") == "ZZ"
    assert ref("clifford_propagation", program(2, "h q[1];", "cz q[0], q[1];"), "XZ") == "ZZ"
    assert ref("clifford_propagation", program(1, "h q[0];"), "Y") == "-Y"
    # the Y basis: S^dagger-then-H maps |+i> (S H|0>) to bit 0
    plus_i = program(1, "h q[0];", "s q[0];")
    assert ref("pauli_basis_probabilities", plus_i, "Y") == pytest.approx({"0": 1.0})
    assert ref("pauli_basis_probabilities", program(2, "h q[0];"), "ZX") == pytest.approx({"00": 1.0})


def test_channel_references_on_known_channels():
    from lm_eval_quantum.problems.state_fidelity import as_json

    ref = lambda slug, *args: get_problem(slug).reference("qiskit", *args)   # noqa: E731
    # amplitude damping with gamma = 1 on qubit 1 of |11>: |01>
    k0, k1 = np.diag([1.0, 0.0]), np.array([[0.0, 1.0], [0.0, 0.0]])
    out = ref("kraus_channel", program(2, "x q[0];", "x q[1];"), [as_json(k0), as_json(k1)], [1])
    assert np.diag(out).real == pytest.approx([0, 1, 0, 0])
    # a two-qubit Kraus matrix on qubits [1, 0]: index bit 0 is qubit 1; CNOT(1 -> 0) on |10>
    cnot_10 = np.eye(4)[[0, 3, 2, 1]]           # little-endian over (qubits[0], qubits[1])
    out = ref("kraus_channel", program(2, "x q[1];"), [as_json(cnot_10)], [1, 0])
    assert np.diag(out).real == pytest.approx([0, 0, 0, 1])
    # the ideal gate: fidelities 1; a full depolarizing channel on one qubit: F_pro = 1/4
    assert ref("gate_fidelity", [as_json(np.eye(2))], program(1)) == pytest.approx([1, 1])
    paulis = [np.eye(2), np.array([[0, 1], [1, 0]]), np.array([[0, -1j], [1j, 0]]), np.diag([1, -1])]
    assert ref("gate_fidelity", [as_json(p / 2) for p in paulis], program(1)) == pytest.approx([0.25, 0.5])
    # noise p = 1 after the last gate: the maximally mixed state, <Z> = 0
    assert ref("noisy_expectation", program(1, "x q[0];"), 1.0, [["Z", 1.0]]) == pytest.approx(0)
    assert ref("noisy_expectation", program(1, "x q[0];"), 0.3, [["Z", 2.0]]) == pytest.approx(-1.4)
    # swap, then reset q[0] and prepare |+i> on it: two runs leave |+i>|+i> from any state
    fixed = ref("channel_steady_state", program(2, "swap q[0], q[1];", "reset q[0];", "h q[0];",
                                                "s q[0];"))
    plus_i = np.array([1, 1j]) / np.sqrt(2)
    assert fixed == pytest.approx(np.kron(np.outer(plus_i, plus_i.conj()), np.outer(plus_i, plus_i.conj())))


def test_counts_references_against_qiskit():
    from qiskit.quantum_info import hellinger_fidelity
    from qiskit.result import QuasiDistribution

    from lm_eval_quantum.problems.readout_mitigation import simplex_projection

    rng = np.random.default_rng(7)
    ref = lambda slug, *args: get_problem(slug).reference("qiskit", *args)   # noqa: E731
    for _ in range(20):
        a, b = {"00": int(rng.integers(1, 9)), "01": 3}, {"01": int(rng.integers(1, 9)), "11": 2}
        assert ref("hellinger_fidelity", a, b) == pytest.approx(hellinger_fidelity(a, b))
        v = rng.normal(size=8)
        v = v - (v.sum() - 1) / 8
        ours = simplex_projection(v)
        theirs = QuasiDistribution(dict(enumerate(v))).nearest_probability_distribution()
        assert ours == pytest.approx([theirs.get(i, 0.0) for i in range(8)], abs=1e-12)
    # QPE: counting qubit 0 is the rightmost character; ties go to the smallest y
    assert ref("qpe_readout", {"001": 5, "100": 3}) == pytest.approx(1 / 8)
    assert ref("qpe_readout", {"110": 4, "011": 4}) == pytest.approx(3 / 8)
    # error-free calibrations leave the frequencies as they are
    ident = [[1.0, 0.0], [0.0, 1.0]]
    assert ref("readout_mitigation", {"01": 30, "10": 10}, [ident, ident]) == pytest.approx(
        {"01": 0.75, "10": 0.25})
    # qubit 0 misread 0 -> 1 with probability 0.1, 100 shots all "1": P(1) = 1 after mitigation
    cal = [[0.9, 0.0], [0.1, 1.0]]
    assert ref("readout_mitigation", {"1": 100}, [cal]) == pytest.approx({"1": 1.0})


def test_tomography_references_recover_the_state():
    from lm_eval_quantum.problems.pauli_tomography import label_matrix, labels
    from lm_eval_quantum.problems.tomography_counts import setting_probabilities

    ref = lambda slug, *args: get_problem(slug).reference("qiskit", *args)   # noqa: E731
    psi = np.array([0.6, 0.8j, 0, 0])                       # qubit 0 in 0.6|0> + 0.8i|1>
    rho = np.outer(psi, psi.conj())
    exact = {label: float(np.trace(rho @ label_matrix(label)).real) for label in labels(2)}
    assert exact["IY"] == pytest.approx(2 * 0.6 * 0.8) and exact["YI"] == pytest.approx(0)
    assert ref("pauli_tomography", exact) == pytest.approx(rho)
    # counts proportional to the exact probabilities: the estimate is exact
    data = {}
    for setting in ("XX", "XY", "XZ", "YX", "YY", "YZ", "ZX", "ZY", "ZZ"):
        p = setting_probabilities(rho, setting)
        data[setting] = {format(i, "02b"): int(round(1000 * x)) for i, x in enumerate(p) if x > 1e-9}
    assert ref("tomography_counts", data) == pytest.approx(rho, abs=1e-3)


def test_amplitude_amplification_reference_matches_grover():
    """Uniform preparation, one good state of 8: the textbook Grover probabilities."""
    ref = get_problem("amplitude_amplification").reference
    uniform = program(3, "h q[0];", "h q[1];", "h q[2];")
    theta = math.asin(math.sqrt(1 / 8))
    for k in range(4):
        assert ref("qiskit", uniform, ["101"], k) == pytest.approx(math.sin((2 * k + 1) * theta) ** 2)
    assert ref("qiskit", uniform, ["101"], 2) == pytest.approx(0.9453125)
