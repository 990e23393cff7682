"""Function tasks of quantum-information utilities and counts post-processing (check kind
`returns`, issue N): state_fidelity, reduced_density_matrix, entanglement_entropy,
pauli_decomposition (Qiskit, Cirq, PennyLane), counts_expectation and marginal_counts
(Qiskit only: a dict of bitstring counts is Qiskit's result format).

For every problem: the canonical of every supported framework passes the judge (in process,
support.judge_in_process) against the independent NumPy reference on the hidden inputs of 100
seeded instances; plausible wrong answers (a convention flipped, qubits reversed, tracing out
the wrong qubits, a deprecated or removed API, printing instead of returning) fail; and every
prompt passes the prompt lint.
"""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from support import judge_in_process
from test_prompt_lint import Doc, lint

from lm_eval_quantum.problems import get_problem, make_doc

SLUGS = ("state_fidelity", "reduced_density_matrix", "entanglement_entropy", "counts_expectation",
         "marginal_counts", "pauli_decomposition")
DRAWS = 100
# the problems whose signature has builtin annotations only (nothing to import for them)
BUILTIN_SIGNATURES = {"state_fidelity", "entanglement_entropy", "counts_expectation",
                      "marginal_counts"}


def doc_of(slug: str, framework: str, variant: int) -> dict:
    return make_doc(get_problem(slug), framework, {"variant": variant}, variant, "test")


def judge(doc: dict, code: str) -> dict:
    with warnings.catch_warnings():      # scipy's sqrtm warns on singular (pure) states
        warnings.simplefilter("ignore")
        return judge_in_process(doc, {"python": code})


CASES = [(slug, fw) for slug in SLUGS for fw in get_problem(slug).frameworks]


# --- the canonicals pass against the reference ---------------------------------------------------
@pytest.mark.parametrize("slug,framework", CASES)
def test_canonical_passes_on_100_seeded_instances(slug, framework):
    problem = get_problem(slug)
    failed = []
    for variant in range(DRAWS):
        verdict = judge(doc_of(slug, framework, variant), problem.code[framework])
        if not verdict["passed"]:
            failed.append(f"variant {variant}: {verdict['message']}")
    assert not failed, "\n".join(failed)


def test_the_supported_frameworks_are_as_documented():
    for slug in ("state_fidelity", "reduced_density_matrix", "entanglement_entropy",
                 "pauli_decomposition"):
        assert get_problem(slug).frameworks == ("qiskit", "cirq", "pennylane")
    for slug in ("counts_expectation", "marginal_counts"):
        problem = get_problem(slug)
        assert problem.frameworks == ("qiskit",)
        assert set(problem.unsupported) == {"qasm", "cirq", "pennylane"}


def test_hidden_inputs_cover_sizes_and_kinds():
    """The draws exercise the function: several sizes, both kinds of state, unsorted indices."""
    sizes = {slug: set() for slug in SLUGS}
    kinds, unsorted = set(), 0
    for variant in range(20):
        for slug in SLUGS:
            for args in get_problem(slug).hidden_inputs({"variant": variant}):
                first = args[0]
                if isinstance(first, dict):
                    sizes[slug].add(len(next(iter(first))))
                else:
                    sizes[slug].add(len(first).bit_length() - 1)
                if slug == "state_fidelity":
                    kinds.add(tuple(np.asarray(a).ndim for a in args))
                if slug == "marginal_counts" and args[1] != sorted(args[1]):
                    unsorted += 1
    assert sizes["state_fidelity"] == {1, 2, 3, 4}
    assert sizes["pauli_decomposition"] == {1, 2, 3, 4}
    assert sizes["reduced_density_matrix"] == {2, 3, 4, 5, 6}
    assert sizes["entanglement_entropy"] == {2, 3, 4, 5, 6, 7}
    assert sizes["counts_expectation"] == set(range(1, 9))
    assert sizes["marginal_counts"] == set(range(2, 9))
    assert kinds == {(2, 2), (2, 3), (3, 2), (3, 3)}    # pure = [re, im] list of depth 2
    assert unsorted >= 30


def test_references_depend_on_the_bit_order_where_they_should():
    """Amplitudes and matrix rows are read in the framework's own bitstring basis: Qiskit's
    reference differs from Cirq's (identical to PennyLane's) on the same hidden input."""
    for slug in ("reduced_density_matrix", "entanglement_entropy", "pauli_decomposition"):
        problem = get_problem(slug)
        qiskit, cirq_, pennylane = (problem.expected(fw, {"variant": 0})
                                    for fw in ("qiskit", "cirq", "pennylane"))
        assert cirq_ == pennylane and qiskit != cirq_, slug
    problem = get_problem("state_fidelity")
    assert problem.expected("qiskit", {"variant": 0}) == problem.expected("cirq", {"variant": 0})


def test_reference_values_on_known_states():
    """The references on hand-made inputs (independent of the draws)."""
    def cx(z):
        z = np.asarray(z, dtype=complex)
        return np.stack([z.real, z.imag], axis=-1).tolist()

    fid = get_problem("state_fidelity")
    plus, zero = np.array([1, 1]) / np.sqrt(2), np.array([1, 0])
    assert fid.reference("qiskit", cx(plus), cx(zero)) == pytest.approx(0.5)
    assert fid.reference("qiskit", cx(np.eye(2) / 2), cx(zero)) == pytest.approx(0.5)
    half = np.diag([0.5, 0.5, 0, 0])
    assert fid.reference("qiskit", cx(np.eye(4) / 4), cx(half)) == pytest.approx(0.5)

    # |psi> = |1> on qubit 0 (Qiskit order: index 1) with qubit 1 in |+>
    rdm = get_problem("reduced_density_matrix")
    psi = np.kron(plus, [0, 1])          # index = 2*q1 + q0 in Qiskit's order
    assert np.allclose(rdm.reference("qiskit", cx(psi), [0]), np.diag([0, 1]))
    assert np.allclose(rdm.reference("qiskit", cx(psi), [1]), np.full((2, 2), 0.5))
    assert np.allclose(rdm.reference("cirq", cx(psi), [0]), np.full((2, 2), 0.5))

    ent = get_problem("entanglement_entropy")
    bell = np.array([1, 0, 0, 1]) / np.sqrt(2)
    assert ent.reference("qiskit", cx(bell), [0]) == pytest.approx(1.0)
    mixed = np.diag([0.5, 0.5, 0, 0])    # Qiskit: qubit 0 maximally mixed, qubit 1 in |0>
    assert ent.reference("qiskit", cx(mixed), [0]) == pytest.approx(1.0)
    assert ent.reference("qiskit", cx(mixed), [1]) == pytest.approx(0.0)
    assert ent.reference("cirq", cx(mixed), [0]) == pytest.approx(0.0)

    counts = {"01": 30, "11": 10}        # qubit 0 always 1; qubit 1 is 1 a quarter of the time
    exp = get_problem("counts_expectation")
    assert exp.reference("qiskit", counts, [[1.0, [0]]]) == pytest.approx(-1.0)
    assert exp.reference("qiskit", counts, [[2.0, [1]], [0.5, []]]) == pytest.approx(1.5)
    assert exp.reference("qiskit", counts, [[1.0, [0, 1]]]) == pytest.approx(-0.5)

    marg = get_problem("marginal_counts")
    assert marg.reference("qiskit", {"100": 3, "001": 2}, [2, 0]) == {"01": 3, "10": 2}
    assert marg.reference("qiskit", {"100": 3, "001": 2}, [1]) == {"0": 5}

    pauli = get_problem("pauli_decomposition")
    zx = np.kron(np.diag([1, -1]), [[0, 1], [1, 0]])     # Z (x) X: the most significant factor is Z
    assert pauli.reference("qiskit", cx(zx)) == {"$pauli_sum": [[[[0, "X"], [1, "Z"]], 1.0, 0.0]]}
    assert pauli.reference("cirq", cx(zx)) == {"$pauli_sum": [[[[0, "Z"], [1, "X"]], 1.0, 0.0]]}


# --- wrong answers fail --------------------------------------------------------------------------
_FID_HEAD = '''\
import numpy as np
from qiskit.quantum_info import DensityMatrix, Statevector, state_fidelity


def as_state(data):
    a = np.asarray(data, dtype=float)
    z = a[..., 0] + 1j * a[..., 1]
    return Statevector(z) if z.ndim == 1 else DensityMatrix(z)

'''
_RDM_HEAD = '''\
import numpy as np
from qiskit.quantum_info import Statevector, partial_trace

'''
_ENT_HEAD = '''\
import numpy as np
from qiskit.quantum_info import DensityMatrix, Statevector, entropy, partial_trace


def as_state(state):
    a = np.asarray(state, dtype=float)
    z = a[..., 0] + 1j * a[..., 1]
    return Statevector(z) if z.ndim == 1 else DensityMatrix(z)

'''

WRONG = {
    "state_fidelity": {
        # the root fidelity (no square)
        "qiskit/root fidelity": _FID_HEAD + '''
def fidelity(rho, sigma):
    return float(np.sqrt(state_fidelity(as_state(rho), as_state(sigma))))''',
        # the Hilbert-Schmidt overlap Tr(rho sigma): right only when one state is pure
        "qiskit/Tr(rho sigma)": _FID_HEAD + '''
def fidelity(rho, sigma):
    a, b = DensityMatrix(as_state(rho)), DensityMatrix(as_state(sigma))
    return float(np.trace(a.data @ b.data).real)''',
        # the imaginary parts dropped
        "qiskit/real parts only": '''\
import numpy as np
from qiskit.quantum_info import DensityMatrix, Statevector, state_fidelity


def fidelity(rho, sigma):
    states = []
    for data in (rho, sigma):
        z = np.asarray(data, dtype=float)[..., 0]
        z = z / (np.linalg.norm(z) if z.ndim == 1 else np.trace(z))
        states.append(Statevector(z) if z.ndim == 1 else DensityMatrix(z))
    return float(state_fidelity(*states))''',
        "qiskit/printed": _FID_HEAD + '''
def fidelity(rho, sigma):
    print(state_fidelity(as_state(rho), as_state(sigma)))''',
        # qiskit.opflow was removed in Qiskit 1.0
        "qiskit/opflow": '''\
from qiskit.opflow import StateFn


def fidelity(rho, sigma):
    a, b = StateFn(rho), StateFn(sigma)
    return abs((~a @ b).eval()) ** 2''',
        "cirq/root fidelity": '''\
import cirq
import numpy as np


def fidelity(rho, sigma):
    a, b = (np.asarray(x, dtype=float) for x in (rho, sigma))
    a, b = a[..., 0] + 1j * a[..., 1], b[..., 0] + 1j * b[..., 1]
    n = a.shape[0].bit_length() - 1
    return float(np.sqrt(cirq.fidelity(a, b, qid_shape=(2,) * n)))''',
        "pennylane/Tr(rho sigma)": '''\
import numpy as np
import pennylane as qml


def density(data):
    a = np.asarray(data, dtype=float)
    z = a[..., 0] + 1j * a[..., 1]
    return qml.math.dm_from_state_vector(z) if z.ndim == 1 else z


def fidelity(rho, sigma):
    return float(np.real(np.trace(density(rho) @ density(sigma))))''',
    },
    "reduced_density_matrix": {
        # partial_trace's second argument is what is traced OUT
        "qiskit/traces out keep": _RDM_HEAD + '''
def reduced_density_matrix(state, keep):
    psi = Statevector(np.array([complex(re, im) for re, im in state]))
    return partial_trace(psi, keep).data''',
        # the amplitudes read with qubit 0 as the most significant bit
        "qiskit/big endian": '''\
import numpy as np


def reduced_density_matrix(state, keep):
    psi = np.array([complex(re, im) for re, im in state])
    n, k = len(psi).bit_length() - 1, len(keep)
    t = np.moveaxis(psi.reshape((2,) * n), keep, range(k)).reshape(2**k, -1)
    return t @ t.conj().T''',
        # rho^T = rho* (|psi><psi| without the conjugate on the bra)
        "qiskit/transposed": _RDM_HEAD + '''
def reduced_density_matrix(state, keep):
    psi = Statevector(np.array([complex(re, im) for re, im in state]))
    traced = [q for q in range(psi.num_qubits) if q not in keep]
    return partial_trace(psi, traced).data.T''',
        "qiskit/execute": '''\
import numpy as np
from qiskit import QuantumCircuit, execute
from qiskit.quantum_info import partial_trace


def reduced_density_matrix(state, keep):
    n = len(state).bit_length() - 1
    qc = QuantumCircuit(n)
    qc.initialize([complex(re, im) for re, im in state])
    qc.save_statevector()
    psi = execute(qc, backend=None).result().get_statevector()
    return partial_trace(psi, [q for q in range(n) if q not in keep]).data''',
        # Cirq's qubit 0 is the most significant bit: n-1-q is Qiskit's qubit q
        "cirq/reversed qubits": '''\
import cirq
import numpy as np


def reduced_density_matrix(state, keep):
    amplitudes = np.array([complex(re, im) for re, im in state])
    n = len(amplitudes).bit_length() - 1
    return cirq.density_matrix_from_state_vector(
        amplitudes, indices=[n - 1 - q for q in keep], qid_shape=(2,) * n)''',
        # the kept wires in reverse order (keep[0] least significant)
        "pennylane/kept order reversed": '''\
import numpy as np
import pennylane as qml


def reduced_density_matrix(state, keep):
    amplitudes = np.array([complex(re, im) for re, im in state])
    return np.asarray(qml.math.reduce_statevector(amplitudes, indices=keep[::-1]))''',
    },
    "entanglement_entropy": {
        "qiskit/natural log": _ENT_HEAD + '''
def entanglement_entropy(state, subsystem):
    rho = as_state(state)
    traced = [q for q in range(rho.num_qubits) if q not in subsystem]
    return float(entropy(partial_trace(rho, traced), base=np.e))''',
        # the entropy of the rest: equal for a pure state, not for a mixed one
        "qiskit/traces out subsystem": _ENT_HEAD + '''
def entanglement_entropy(state, subsystem):
    rho = as_state(state)
    if len(subsystem) == rho.num_qubits:
        return float(entropy(DensityMatrix(rho), base=2))
    return float(entropy(partial_trace(rho, subsystem), base=2))''',
        "qiskit/linear entropy": _ENT_HEAD + '''
def entanglement_entropy(state, subsystem):
    rho = as_state(state)
    traced = [q for q in range(rho.num_qubits) if q not in subsystem]
    return float(1 - partial_trace(rho, traced).purity().real)''',
        "qiskit/reversed qubits": _ENT_HEAD + '''
def entanglement_entropy(state, subsystem):
    rho = as_state(state)
    n = rho.num_qubits
    traced = [n - 1 - q for q in range(n) if q not in subsystem]
    return float(entropy(partial_trace(rho, traced), base=2))''',
        "qiskit/printed": _ENT_HEAD + '''
def entanglement_entropy(state, subsystem):
    rho = as_state(state)
    traced = [q for q in range(rho.num_qubits) if q not in subsystem]
    print(entropy(partial_trace(rho, traced), base=2))''',
        # PennyLane's vn_entropy uses the natural logarithm unless base=2
        "pennylane/no base": '''\
import numpy as np
import pennylane as qml


def entanglement_entropy(state, subsystem):
    a = np.asarray(state, dtype=float)
    z = a[..., 0] + 1j * a[..., 1]
    rho = qml.math.dm_from_state_vector(z) if z.ndim == 1 else z
    return float(qml.math.vn_entropy(rho, indices=subsystem))''',
        "cirq/reversed qubits": '''\
import cirq
import numpy as np


def entanglement_entropy(state, subsystem):
    a = np.asarray(state, dtype=float)
    z = a[..., 0] + 1j * a[..., 1]
    n, k = z.shape[0].bit_length() - 1, len(subsystem)
    keep = [n - 1 - q for q in subsystem]
    if z.ndim == 1:
        rho = cirq.density_matrix_from_state_vector(z, indices=keep, qid_shape=(2,) * n)
    else:
        rho = cirq.partial_trace(z.reshape((2,) * (2 * n)), keep).reshape(2**k, 2**k)
    return float(cirq.von_neumann_entropy(rho, qid_shape=(2,) * k))''',
    },
    "counts_expectation": {
        # qubit q read as the q-th character from the LEFT
        "qiskit/left to right": '''\
def counts_expectation(counts, observable):
    shots = sum(counts.values())
    total = 0.0
    for c, qubits in observable:
        for key, n in counts.items():
            total += c * n * (-1) ** sum(int(key[q]) for q in qubits) / shots
    return total''',
        # the label built left to right: Qiskit labels put qubit 0 on the right
        "qiskit/label order": '''\
from qiskit.quantum_info import SparsePauliOp
from qiskit.result import sampled_expectation_value


def counts_expectation(counts, observable):
    m = len(next(iter(counts)))
    labels = ["".join("Z" if q in qubits else "I" for q in range(m)) for _, qubits in observable]
    op = SparsePauliOp.from_list([(label, c) for label, (c, _) in zip(labels, observable)])
    return float(sampled_expectation_value(counts, op))''',
        # averaged over distinct outcomes, not over shots
        "qiskit/per outcome": '''\
def counts_expectation(counts, observable):
    total = 0.0
    for c, qubits in observable:
        for key, n in counts.items():
            total += c * n * (-1) ** sum(int(key[-1 - q]) for q in qubits)
    return total / len(counts)''',
        # Z read as +1 on bit 1
        "qiskit/opposite sign": '''\
def counts_expectation(counts, observable):
    shots = sum(counts.values())
    total = 0.0
    for c, qubits in observable:
        for key, n in counts.items():
            total += c * n * (-1) ** sum(1 - int(key[-1 - q]) for q in qubits) / shots
    return total''',
        "qiskit/opflow": '''\
from qiskit.opflow import PauliSumOp


def counts_expectation(counts, observable):
    m = len(next(iter(counts)))
    op = PauliSumOp.from_list([("Z" * m, 1.0)])
    return float(op.eval(counts))''',
    },
    "marginal_counts": {
        # marginal_counts sorts the indices
        "qiskit/marginal_counts sorts": '''\
from qiskit.result import marginal_counts


def marginalize_counts(counts, indices):
    return dict(marginal_counts(counts, indices))''',
        # indices[0] written leftmost
        "qiskit/indices[0] leftmost": '''\
def marginalize_counts(counts, indices):
    out = {}
    for key, n in counts.items():
        marginal = "".join(key[-1 - b] for b in indices)
        out[marginal] = out.get(marginal, 0) + n
    return out''',
        # bit b read as the b-th character from the LEFT
        "qiskit/left to right": '''\
def marginalize_counts(counts, indices):
    out = {}
    for key, n in counts.items():
        marginal = "".join(key[b] for b in reversed(indices))
        out[marginal] = out.get(marginal, 0) + n
    return out''',
        "qiskit/probabilities": '''\
from qiskit.result import marginal_distribution


def marginalize_counts(counts, indices):
    shots = sum(counts.values())
    return {k: v / shots for k, v in marginal_distribution(counts, indices).items()}''',
    },
    "pauli_decomposition": {
        # H^T: every term with an odd number of Y changes sign
        "qiskit/transposed": '''\
import numpy as np
from qiskit.quantum_info import SparsePauliOp


def pauli_decomposition(matrix):
    a = np.asarray(matrix, dtype=float)
    return SparsePauliOp.from_operator((a[..., 0] + 1j * a[..., 1]).T)''',
        # labels built with qubit 0 on the left
        "qiskit/reversed labels": '''\
import numpy as np
from qiskit.quantum_info import SparsePauliOp


def pauli_decomposition(matrix):
    a = np.asarray(matrix, dtype=float)
    op = SparsePauliOp.from_operator(a[..., 0] + 1j * a[..., 1])
    return SparsePauliOp([label[::-1] for label in op.paulis.to_labels()], op.coeffs)''',
        # Tr(P H) without the 1/2^n
        "qiskit/no normalisation": '''\
import itertools
from functools import reduce

import numpy as np
from qiskit.quantum_info import SparsePauliOp

P = {"I": np.eye(2), "X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]),
     "Z": np.diag([1, -1])}


def pauli_decomposition(matrix):
    a = np.asarray(matrix, dtype=float)
    h = a[..., 0] + 1j * a[..., 1]
    n = h.shape[0].bit_length() - 1
    terms = []
    for label in itertools.product("IXYZ", repeat=n):
        c = np.trace(reduce(np.kron, [P[p] for p in label]) @ h)
        if abs(c) > 1e-12:
            terms.append(("".join(label), c))
    return SparsePauliOp.from_list(terms)''',
        "qiskit/opflow": '''\
import numpy as np
from qiskit.opflow import MatrixOp


def pauli_decomposition(matrix):
    a = np.asarray(matrix, dtype=float)
    return MatrixOp(a[..., 0] + 1j * a[..., 1]).to_pauli_op()''',
        "cirq/reversed qubits": '''\
import cirq
import numpy as np


def pauli_decomposition(matrix):
    a = np.asarray(matrix, dtype=float)
    h = a[..., 0] + 1j * a[..., 1]
    n = h.shape[0].bit_length() - 1
    qubits = cirq.LineQubit.range(n)
    coefficients = cirq.expand_matrix_in_orthogonal_basis(
        h, cirq.kron_bases(cirq.PAULI_BASIS, repeat=n))
    total = cirq.PauliSum()
    for name, c in coefficients.items():
        total += cirq.DensePauliString(name, coefficient=c).on(*reversed(qubits))
    return total''',
        "pennylane/reversed wires": '''\
import numpy as np
import pennylane as qml


def pauli_decomposition(matrix):
    a = np.asarray(matrix, dtype=float)
    h = a[..., 0] + 1j * a[..., 1]
    n = h.shape[0].bit_length() - 1
    return qml.pauli_decompose(h, wire_order=list(range(n))[::-1])''',
    },
}

WRONG_CASES = [(slug, name) for slug in SLUGS for name in WRONG[slug]]


def test_every_problem_has_three_wrong_answers():
    for slug in SLUGS:
        assert len(WRONG[slug]) >= 3, slug


@pytest.mark.parametrize("slug,name", WRONG_CASES)
def test_wrong_answer_fails(slug, name):
    framework = name.split("/")[0]
    for variant in range(5):
        verdict = judge(doc_of(slug, framework, variant), WRONG[slug][name])
        assert not verdict["passed"], f"variant {variant}: {verdict['message']}"


def test_a_failure_names_no_value():
    """The verdict of a wrong answer says what kind of value came back, never a value."""
    doc = doc_of("counts_expectation", "qiskit", 0)
    verdict = judge(doc, WRONG["counts_expectation"]["qiskit/left to right"])
    assert "differs from the reference" in verdict["message"]
    calls = json.loads(doc["check"])["calls"]
    assert not any(key in verdict["message"] for args in calls for key in args[0])


# --- prompts -------------------------------------------------------------------------------------
@pytest.mark.parametrize("slug,framework", CASES)
def test_prompt_passes_the_lint(slug, framework):
    problem = get_problem(slug)
    for split in ("test", "fewshot"):
        for i, params in enumerate(problem.instances(split)):
            doc = make_doc(problem, framework, params, i, split)
            assert lint(Doc.of(doc)) == [], (split, i)
            # a signature of builtin types needs no import, and the prompt offers none
            assert ("for the annotations" in doc["prompt"]) == (slug not in BUILTIN_SIGNATURES)


def test_prompt_states_the_conventions():
    text = {(slug, fw): doc_of(slug, fw, 0)["prompt"] for slug, fw in CASES}
    assert "squared convention" in text["state_fidelity", "qiskit"]
    assert "log2" in text["entanglement_entropy", "pennylane"]
    assert "least significant bit of the row index" in text["reduced_density_matrix", "qiskit"]
    assert "most significant bit of the row index" in text["reduced_density_matrix", "cirq"]
    assert "`key[m - 1 - q]` is the bit of qubit q" in text["counts_expectation", "qiskit"]
    assert "bit indices[0] is the rightmost character" in text["marginal_counts", "qiskit"]
    assert "from the RIGHT of a Pauli label" in text["pauli_decomposition", "qiskit"]
    assert "import numpy as np` for the annotations" in text["reduced_density_matrix", "cirq"]


def test_prefill_ends_at_the_functions_signature():
    """The prefill variant stops at the first `def`: the function itself, not a helper."""
    for slug, framework in CASES:
        prefill = doc_of(slug, framework, 0)["prefill"]
        assert prefill.rstrip().splitlines()[-1].startswith(f"def {get_problem(slug).function}(")
