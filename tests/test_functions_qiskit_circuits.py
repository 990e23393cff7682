"""Function tasks on building and manipulating Qiskit circuits (issue N): circuit generation
(qft_circuit, prepare_amplitudes, permutation_circuit, multiplexed_ry, trotter_circuit,
clifford_circuit), gate operations (gate_matrix, controlled_circuit, conditional_flip,
equivalent_circuits, pauli_conjugation, gates_commute, stabilizer_group), advanced circuit
manipulation (circuit_power, tensor_circuits, compose_circuits, circuit_connectivity,
light_cone, circuit_layers) and serialization (instruction_qubits, load_qasm2,
expanded_gate_counts).  All are Qiskit only.

* the canonical answer passes against the NumPy reference over seeded draws (docs
  {"variant": i}, 5 hidden inputs each): 10 draws by default, 100 under `slow`;
* plausible wrong answers fail on docs 0, 1 and 2: a reversed qubit or label order, an
  operand or flag convention mixed up (ctrl_state, PermutationGate's pattern, Pauli.evolve's
  frame, compose's front), an off-by-one, a removed API (`qiskit.execute`, `Aer`,
  `qiskit.extensions`, `qiskit.opflow`), and, for every task, the value printed instead of
  returned; subtler mistakes fail on some of ten docs;
* the references agree with hand-computed values on small cases, the hidden inputs are
  stable and varied, and every prompt passes the prompt lint.
"""
from __future__ import annotations


import numpy as np
import pytest
from support import canonical_edited, function_verdict
from test_prompt_lint import Doc, lint

from lm_eval_quantum.problems import get_problem, make_doc

pytest.importorskip("qiskit_qasm3_import")

BY_DIFFICULTY = {
    "basic": ("circuit_power", "tensor_circuits", "qft_circuit", "prepare_amplitudes",
              "gate_matrix", "load_qasm2", "instruction_qubits", "circuit_connectivity"),
    "intermediate": ("compose_circuits", "controlled_circuit", "conditional_flip",
                     "permutation_circuit", "multiplexed_ry", "equivalent_circuits",
                     "pauli_conjugation", "gates_commute"),
    "difficult": ("trotter_circuit", "stabilizer_group", "clifford_circuit", "light_cone",
                  "circuit_layers", "expanded_gate_counts"),
}
SLUGS = tuple(s for slugs in BY_DIFFICULTY.values() for s in slugs)
CATEGORIES = {"circuit generation", "gate operations and manipulation",
              "advanced circuit manipulation", "circuit serialization"}


def verdict(slug: str, variant: int, code: str) -> dict:
    return function_verdict(slug, "qiskit", code, variant)


def mutated(slug: str, *pairs: str) -> str:
    return canonical_edited(slug, "qiskit", *pairs)


def passes(slug, code, variants=range(3)) -> list[bool]:
    return [verdict(slug, v, code)["passed"] for v in variants]


def failures(slug: str, draws: int) -> list:
    code = get_problem(slug).code["qiskit"]
    return [(v, r["message"]) for v in range(draws)
            if not (r := verdict(slug, v, code))["passed"]]


# --- the problems and their canonical answers ------------------------------------------------------
def test_problems_are_qiskit_function_tasks():
    for level, slugs in BY_DIFFICULTY.items():
        for slug in slugs:
            problem = get_problem(slug)
            assert problem.check == "returns" and problem.frameworks == ("qiskit",), slug
            assert problem.difficulty == level and problem.category in CATEGORIES, slug
            assert set(problem.unsupported) == {"qasm", "cirq", "pennylane"}
            assert "Qiskit's" in problem.unsupported["cirq"]
    assert {get_problem(s).category for s in SLUGS} == CATEGORIES


@pytest.mark.parametrize("slug", SLUGS)
def test_canonical_passes_over_10_draws(slug):
    assert not failures(slug, 10)


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_canonical_passes_over_100_draws(slug):
    bad = failures(slug, 100)
    assert not bad, bad[:3]


@pytest.mark.parametrize("slug", SLUGS)
def test_prompts_pass_the_lint(slug):
    problem = get_problem(slug)
    for split in ("test", "fewshot"):
        for i, params in enumerate(problem.instances(split)):
            d = make_doc(problem, "qiskit", params, i, split)
            assert lint(Doc.of(d)) == [], (split, i, lint(Doc.of(d)))
            assert problem.function in d["prompt"]


# --- plausible wrong answers fail -------------------------------------------------------------------
EXECUTE = ("from qiskit import QuantumCircuit", "from qiskit import QuantumCircuit, execute")
WRONG = {   # slug: {name: (old, new, ...)} on the canonical; each fails on docs 0, 1, 2
    "circuit_power": {
        "k - 1 repetitions": (".power(k)", ".power(k - 1)"),
        "inverse power": (".power(k)", ".power(-k)"),
        "qiskit.extensions (removed)": ("from qiskit import QuantumCircuit, qasm3",
                                        "from qiskit import QuantumCircuit, qasm3\n"
                                        "from qiskit.extensions import UnitaryGate"),
    },
    "tensor_circuits": {
        "operands swapped": ("return a.tensor(b)", "return b.tensor(a)"),
        "OpenQASM 2 loader": ("a, b = qasm3.loads(qasm_a), qasm3.loads(qasm_b)",
                              "from qiskit import qasm2\n"
                              "    a, b = qasm2.loads(qasm_a), qasm2.loads(qasm_b)"),
        "Aer (removed from qiskit)": ("from qiskit import QuantumCircuit, qasm3",
                                      "from qiskit import Aer, QuantumCircuit, qasm3"),
    },
    "compose_circuits": {
        "front flag inverted": ("front=front)", "front=not front)"),
        "inplace returns None": ("front=front)", "front=front, inplace=True)"),
        "qiskit.execute (removed)": EXECUTE,
    },
    "qft_circuit": {
        "inverse ignored": ("inverse=inverse)", "inverse=False)"),
        "swaps always": ("do_swaps=do_swaps", "do_swaps=True"),
        "qubits reversed": ("inverse=inverse)", "inverse=inverse).reverse_bits()"),
        "qiskit.execute (removed)": EXECUTE,
    },
    "prepare_amplitudes": {
        "conjugated amplitudes": ("complex(re, im)", "complex(re, -im)"),
        "big-endian amplitudes": ("    return circuit", "    return circuit.reverse_bits()"),
        "qiskit.extensions (removed)": ("from qiskit.circuit.library import StatePreparation",
                                        "from qiskit.extensions import Initialize as StatePreparation"),
    },
    "gate_matrix": {
        "big-endian operands": ("Operator(gate).data", "Operator(gate).reverse_qargs().data"),
        "conjugated": ("Operator(gate).data", "Operator(gate).data.conj()"),
        "matrix of the inverse": ("base_class(*params)", "base_class(*params).inverse()"),
    },
    "load_qasm2": {
        "OpenQASM 3 loader": ("from qiskit import QuantumCircuit, qasm2",
                              "from qiskit import QuantumCircuit, qasm3 as qasm2"),
        "qubits reversed": ("qasm2.loads(qasm)", "qasm2.loads(qasm).reverse_bits()"),
        "inverse": ("qasm2.loads(qasm)", "qasm2.loads(qasm).inverse()"),
    },
    "instruction_qubits": {
        "index within its register": ("circuit.find_bit(q).index", "circuit.find_bit(q).registers[0][1]"),
        "Qubit.index (removed)": ("circuit.find_bit(q).index", "q.index"),
        "OpenQASM 3 loader": ("from qiskit import qasm2", "from qiskit import qasm3 as qasm2"),
    },
    "circuit_connectivity": {
        "every gate counted": ("circuit.num_nonlocal_gates()", "circuit.size()"),
        "Aer (removed from qiskit)": ("from qiskit import qasm3", "from qiskit import Aer, qasm3"),
        "components as the width": ('"components": circuit.num_connected_components()',
                                    '"components": circuit.num_qubits'),
    },
    "controlled_circuit": {
        "controls last": ("out.append(gate, range(out.num_qubits))",
                          "out.append(gate, list(range(num_controls, out.num_qubits))"
                          " + list(range(num_controls)))"),
        "controlled on 0": (".control(num_controls)", ".control(num_controls, ctrl_state=0)"),
        "inverse": ("u.to_gate()", "u.inverse().to_gate()"),
    },
    "conditional_flip": {
        "ctrl_state not reversed": ("ctrl_state=pattern[::-1]", "ctrl_state=pattern"),
        "pattern ignored": ("MCXGate(k, ctrl_state=pattern[::-1])", "MCXGate(k)"),
        "target first": ("range(k + 1))", "[k] + list(range(k)))"),
    },
    "permutation_circuit": {
        "pattern is the inverse": ("PermutationGate(pattern)", "PermutationGate(list(perm))"),
        "qubits reversed": ("    return circuit", "    return circuit.reverse_bits()"),
        "qiskit.execute (removed)": EXECUTE,
    },
    "multiplexed_ry": {
        "angles reversed": ("UCRYGate(list(angles))", "UCRYGate(list(angles)[::-1])"),
        "target last": ("range(k + 1))", "list(range(1, k + 1)) + [0])"),
        "half angles": ("UCRYGate(list(angles))", "UCRYGate([a / 2 for a in angles])"),
    },
    "equivalent_circuits": {
        "phase-sensitive ==": ("a.equiv(b)", "a == b"),
        "program text compared": ("return bool(a.equiv(b))", "return qasm_a == qasm_b"),
        "qiskit.opflow (removed)": ("from qiskit.quantum_info import Operator",
                                    "from qiskit.opflow import MatrixOp as Operator"),
    },
    "pauli_conjugation": {
        "Heisenberg frame (U^dagger P U)": ('frame="s"', 'frame="h"'),
        "sign dropped": (".to_label()", '.to_label().lstrip("-")'),
        "label read left to right": ("Pauli(label)", "Pauli(label[::-1])"),
    },
    "gates_commute": {
        "up to a global phase": ("circuit(gate_a, gate_b) == circuit(gate_b, gate_a)",
                                 "circuit(gate_a, gate_b).equiv(circuit(gate_b, gate_a))"),
        "commute iff disjoint": ("return bool(circuit(gate_a, gate_b) == circuit(gate_b, gate_a))",
                                 "return not set(gate_a[1]) & set(gate_b[1])"),
        "always True": ("return bool(circuit(gate_a, gate_b) == circuit(gate_b, gate_a))",
                        "return True"),
    },
    "trotter_circuit": {
        "orders swapped": ("if order == 1", "if order == 2"),
        "one step whatever steps": ("reps=steps", "reps=1"),
        "exact exponential": ("    return synthesis.synthesize(gate)",
                              "    circuit = QuantumCircuit(gate.num_qubits)\n"
                              "    circuit.append(gate, range(gate.num_qubits))\n"
                              "    return circuit"),
        "labels read left to right": ("(label, coeff) for", "(label[::-1], coeff) for"),
    },
    "stabilizer_group": {
        "generators only": ("for mask in range(2 ** n):", "for mask in (2 ** j for j in range(n)):"),
        "destabilizers": ('to_labels(mode="S")', 'to_labels(mode="D")'),
        "signs dropped": ('group.append(label if label[0] == "-" else "+" + label)',
                          'group.append("+" + label.lstrip("-"))'),
    },
    "clifford_circuit": {
        "X and Z images swapped": ('{"destabilizer": list(x_images), "stabilizer": list(z_images)}',
                                   '{"destabilizer": list(z_images), "stabilizer": list(x_images)}'),
        "inverse": ("clifford.to_circuit()", "clifford.to_circuit().inverse()"),
        "qubits reversed": ("clifford.to_circuit()", "clifford.to_circuit().reverse_bits()"),
    },
    "light_cone": {
        "forward cone": ("range(len(circuit.data) - 1, -1, -1)", "range(len(circuit.data))"),
        "set never grows": ("            reached |= qubits\n", ""),
        "numbered from 1": ("cone.append(index)", "cone.append(index + 1)"),
    },
    "circuit_layers": {
        "serial layers": (".layers()", ".serial_layers()"),
        "last layer first": ("    return layers", "    return layers[::-1]"),
        "qubits reversed": ("    layers = []\n",
                            "    layers = []\n    circuit = circuit.reverse_bits()\n"),
    },
    "expanded_gate_counts": {
        "one level only": ("    while True:\n", "    for _ in range(1):\n",
                           "gates_to_decompose=sorted(defined))",
                           "gates_to_decompose=sorted(defined))\n"
                           "    return dict(circuit.count_ops())"),
        "standard gates rewritten": ("circuit.decompose(gates_to_decompose=sorted(defined))",
                                     "circuit.decompose()"),
        "not expanded": ("    circuit = qasm2.loads(qasm)\n",
                         "    return dict(qasm2.loads(qasm).count_ops())\n"),
    },
}


@pytest.mark.parametrize("slug, name", [(slug, name) for slug in SLUGS for name in WRONG[slug]])
def test_wrong_answer_fails(slug, name):
    code = mutated(slug, *WRONG[slug][name])
    assert passes(slug, code) == [False, False, False]


def test_every_problem_has_three_wrong_answers():
    assert set(WRONG) == set(SLUGS) and all(len(w) >= 3 for w in WRONG.values())


@pytest.mark.parametrize("slug", SLUGS)
def test_printed_value_fails(slug):
    name = get_problem(slug).function
    code = (get_problem(slug).code["qiskit"]
            + f"\n\n_computed = {name}\n\n\ndef {name}(*args):\n    print(_computed(*args))\n")
    results = [verdict(slug, v, code) for v in range(3)]
    assert not any(r["passed"] for r in results)
    assert all(r["tests_passed"] == 0 for r in results)


# Subtler mistakes fail on the docs where the inputs exercise them (not on every doc).
SUBTLE = {
    "gate_matrix": {"transposed": ("Operator(gate).data", "Operator(gate).data.T")},
    "circuit_connectivity": {
        "components by subtraction": ('"components": circuit.num_connected_components()',
                                      '"components": circuit.num_qubits - circuit.num_nonlocal_gates()'),
        "idle qubits not counted": (
            '"components": circuit.num_connected_components()',
            '"components": circuit.num_connected_components() - circuit.num_qubits'
            ' + len({q for instruction in circuit.data for q in instruction.qubits})')},
    "circuit_power": {"inverse dropped": (".power(k)", ".power(abs(k))")},
    "compose_circuits": {"qubit map reversed": ("qubits=qubits,", "qubits=qubits[::-1],")},
    "instruction_qubits": {"qubits sorted": ("[circuit.find_bit(q).index for q in instruction.qubits]",
                                             "sorted(circuit.find_bit(q).index for q in instruction.qubits)")},
    "expanded_gate_counts": {"barriers dropped": (
        "return dict(circuit.count_ops())",
        'return {k: v for k, v in circuit.count_ops().items() if k != "barrier"}')},
    "circuit_layers": {"layer order unsorted": ("layers.append(sorted(gates, key=lambda g: (g[1], g[0])))",
                                                "layers.append(gates)")},
    "equivalent_circuits": {"always True": ("return bool(a.equiv(b))", "return True")},
}


@pytest.mark.parametrize("slug, name", [(slug, name) for slug in SUBTLE for name in SUBTLE[slug]])
def test_subtle_wrong_answer_fails_somewhere(slug, name):
    code = mutated(slug, *SUBTLE[slug][name])
    assert not all(passes(slug, code, range(10))), name


# --- the references ----------------------------------------------------------------------------------
QASM3 = 'OPENQASM 3.0;\ninclude "stdgates.inc";\nqubit[{n}] q;\n{body}'


def test_references_on_hand_computed_cases():
    cx = np.eye(4)[[0, 3, 2, 1]]       # little-endian: control qubit 0
    assert np.allclose(get_problem("gate_matrix").reference("qiskit", "cx", []), cx)
    assert get_problem("pauli_conjugation").reference(
        "qiskit", QASM3.format(n=2, body="h q[0];\ncx q[0], q[1];\n"), "IZ") == "XX"
    assert get_problem("pauli_conjugation").reference(
        "qiskit", QASM3.format(n=1, body="h q[0];\n"), "Y") == "-Y"
    assert get_problem("stabilizer_group").reference(
        "qiskit", QASM3.format(n=2, body="x q[0];\n")) == ["+II", "+ZI", "-IZ", "-ZZ"]
    assert get_problem("light_cone").reference(
        "qiskit", QASM3.format(n=3, body="h q[2];\ncx q[0], q[1];\nx q[1];\ncx q[2], q[1];\nz q[0];\n"),
        1) == [0, 1, 2, 3]
    assert get_problem("circuit_layers").reference(
        "qiskit", QASM3.format(n=3, body="h q[1];\ncx q[1], q[0];\nx q[2];\n")) == [
        [["h", [1]], ["x", [2]]], [["cx", [1, 0]]]]
    assert get_problem("circuit_connectivity").reference(
        "qiskit", QASM3.format(n=4, body="cx q[0], q[2];\nh q[1];\ncz q[2], q[0];\n")) == {
        "nonlocal": 2, "components": 3}
    flip = get_problem("conditional_flip").reference("qiskit", "10")   # q0 = 1, q1 = 0: index 1
    assert flip[1 + 4, 1] == 1 and flip[1, 1] == 0
    perm = get_problem("permutation_circuit").reference("qiskit", [1, 2, 0])
    assert perm[2, 1] == 1                                        # qubit 0's 1 moves to qubit 1
    program = ('OPENQASM 2.0;\ninclude "qelib1.inc";\ngate mix a, b { h a; cx a, b; }\n'
               "gate layer a, b { mix b, a; mix a, b; }\nqreg a[1];\nqreg b[2];\nlayer b[1], a[0];\n"
               "h b;\nbarrier b;\n")
    assert get_problem("instruction_qubits").reference("qiskit", program) == [
        ["layer", [2, 0]], ["h", [1]], ["h", [2]], ["barrier", [1, 2]]]
    assert get_problem("expanded_gate_counts").reference("qiskit", program) == {
        "h": 4, "cx": 2, "barrier": 1}


def test_clifford_reference_rebuilds_the_circuit():
    problem = get_problem("clifford_circuit")
    from lm_eval_quantum.problems.circuit_power import program_unitary
    from lm_eval_quantum.problems.pauli_conjugation import label_matrix, signed_label
    u = program_unitary(QASM3.format(n=2, body="h q[0];\ns q[1];\ncx q[0], q[1];\n"))
    images = [[signed_label(u @ label_matrix(label) @ u.conj().T, 2) for label in labels]
              for labels in (("IX", "XI"), ("IZ", "ZI"))]       # X_0, X_1; Z_0, Z_1
    assert images == [["IZ", "YZ"], ["XX", "ZZ"]]   # hand-computed: H, S, then CX
    x_images, z_images = (["+" + x if x[0] != "-" else x for x in row] for row in images)
    v = problem.reference("qiskit", x_images, z_images)
    assert abs(np.vdot(u.reshape(-1), v.reshape(-1))) / 4 == pytest.approx(1)


def test_hidden_inputs_are_stable_and_varied():
    for slug in SLUGS:
        problem = get_problem(slug)
        inputs = [args for v in range(10) for args in problem.hidden_inputs({"variant": v})]
        assert problem.hidden_inputs({"variant": 3}) == problem.hidden_inputs({"variant": 3})
        if slug not in ("qft_circuit", "conditional_flip", "gate_matrix", "permutation_circuit"):    # small input spaces
            assert len({str(a) for a in inputs}) >= 0.9 * len(inputs), slug
        assert len({str(a) for a in inputs}) >= 15, slug


def test_boolean_tasks_have_both_answers():
    for slug in ("equivalent_circuits", "gates_commute"):
        problem = get_problem(slug)
        for v in range(3):
            answers = {problem.reference("qiskit", *args) for args in problem.hidden_inputs({"variant": v})}
            assert answers == {True, False}, (slug, v)
