"""Native ground truth of a program: does it meet its task, by the framework's own simulator?

In process, with nothing of `lm_eval_quantum.judge` or
`lm_eval_quantum.runtime.adapters`: Qiskit `Statevector`/`Operator` (OpenQASM
through `qiskit.qasm3.loads`), Cirq `final_state_vector`/`Circuit.unitary`,
PennyLane `qml.state()`/`qml.matrix`.  `ground_truth(ctx, sources)` gives a
`Truth`: *equivalent* when the program meets the task (state fidelity or
process fidelity within `thresholds`, or, for black-box algorithm tasks, a
measured distribution that is a point mass on the answer of every hidden
test, or, for protocol tasks, the channel from native per-input states AND the
parties' locality, re-implemented on the native operations and matrices in
`_native_locality`), *changing* when it does not, and *broken* when it cannot
even be built natively.

Ground truth per check kind is the table `GROUND_TRUTH`; a kind not in it
cannot be decided.  For algorithm tasks the oracle is built from
`problem.oracle(test, framework, width)` as a native matrix gate (Qiskit
`UnitaryGate`, Cirq `MatrixGate`) and handed to `build_circuit`; for OpenQASM,
``include "oracle.inc";`` is replaced by an empty-bodied ``gate Oracle ... { }``
definition and the program is loaded with `qiskit.qasm3.loads`.  Qiskit
circuits are evolved instruction by instruction with `Statevector.evolve`, the
``Oracle`` instructions (QASM) and the `UnitaryGate` (Qiskit) by the test's
cached `Operator` (so the 2^m x 2^m matrix is not copied per circuit); Cirq
uses `final_state_vector` with the `MatrixGate` in place.  The pipeline checks
an algorithm answer's circuit exactly by the same rule (see judge.grading.
grade_algorithm), with its own simulator, so no changing mutant can pass by luck.
"""
from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass

import numpy as np

from lm_eval_quantum import thresholds as th


class _Unsupported(Exception):
    """Ground truth cannot decide this task (framework/kind combination)."""


@dataclass
class Truth:
    status: str  # "equivalent" | "changing" | "broken"
    detail: str


def _exec(source: str) -> dict:
    namespace = {"__name__": "mutant"}
    exec(compile(source, "<mutant>", "exec"), namespace)  # noqa: S102 - our own mutants
    return namespace


def _oracle_matrix(problem, test, framework: str, width: int) -> np.ndarray:
    """|i> -> phase[i] |perm[i]>, big-endian over the oracle's listed qubits."""
    action = problem.oracle(test, framework, width)
    perm = np.asarray(action["perm"])
    phase = action.get("phase")
    phase = np.ones(len(perm), dtype=complex) if phase is None else np.asarray(phase, complex)
    mat = np.zeros((len(perm), len(perm)), dtype=complex)
    mat[perm, np.arange(len(perm))] = phase
    return mat


def _reverse_bits(n: int) -> np.ndarray:
    idx = np.arange(2**n)
    return sum(((idx >> k) & 1) << (n - 1 - k) for k in range(n))


def _oracle_native(ctx: dict, test: dict) -> dict:
    """The hidden test's oracle as a native matrix gate, cached per doc: {"gate":
    the object handed to build_circuit, "operator": what Qiskit evolves by}."""
    cache = ctx.setdefault("oracles", {})
    key = json.dumps(test, sort_keys=True)
    if key not in cache:
        fw, ospec = ctx["framework"], ctx["spec"]["oracle"]
        width = ospec["num_qubits"]
        big = _oracle_matrix(ctx["problem"], test, fw, width)
        if fw in ("qasm", "qiskit"):
            from qiskit.circuit.library import UnitaryGate
            from qiskit.quantum_info import Operator

            rev = _reverse_bits(width)  # Qiskit matrices are little-endian over the qargs
            gate = UnitaryGate(big[np.ix_(rev, rev)], label=ospec.get("name", "Oracle"))
            cache[key] = {"gate": gate, "operator": Operator(gate)}
        elif fw == "cirq":
            import cirq

            cache[key] = {"gate": cirq.MatrixGate(big)}  # big-endian over `.on(...)` qubits
        else:
            raise _Unsupported(f"{fw} oracles")
    return cache[key]


def _native_builder(ctx: dict, sources: dict):
    """`build(oracle_gate_or_None) -> native circuit` of a mutant (a callable for
    PennyLane).  The program is parsed / executed once per mutant."""
    fw, spec = ctx["framework"], ctx["spec"]
    args = list(spec["args"])
    if fw == "qasm":
        import qiskit.qasm3

        text = sources["qasm"]
        ospec = spec.get("oracle")
        name = (ospec or {}).get("name", "Oracle")
        if ospec:  # an empty-bodied definition; its instructions are replaced below
            qubits = ", ".join(f"_oracle{i}" for i in range(ospec["num_qubits"]))
            text = re.sub(r'^\s*include\s+"oracle\.inc"\s*;', f"gate {name} {qubits} {{ }}",
                          text, flags=re.MULTILINE)
        # customgates.inc is a list of gate definitions (its text is the include's
        # specification, defined once in the QASM adapter); qiskit inlines them
        from lm_eval_quantum.runtime.adapters.qasm_adapter import CUSTOM_GATES

        text = re.sub(r'^\s*include\s+"customgates\.inc"\s*;', lambda _: CUSTOM_GATES,
                      text, flags=re.MULTILINE)
        loaded = qiskit.qasm3.loads(text)
        return lambda gate=None: loaded  # Oracle instructions: see _qiskit_evolve
    if fw not in ("qiskit", "cirq", "pennylane"):
        raise _Unsupported(f"framework {fw}")
    entry = _exec(sources["python"])[spec["entry"]]
    if fw == "pennylane":
        def build(gate=None):
            if gate is not None:
                raise _Unsupported("PennyLane oracle tasks")
            return lambda: entry(*args)
        return build
    return lambda gate=None: entry(*args) if gate is None else entry(*args, gate)


def _qiskit_unitary_part(qc):
    """(circuit without measurements/barriers, {clbit: qubit}) of a Qiskit circuit."""
    body = qc.copy_empty_like()
    measured, cmap = set(), {}
    for inst in qc.data:
        qubits = [qc.find_bit(q).index for q in inst.qubits]
        name = inst.operation.name
        if name == "measure":
            cmap[qc.find_bit(inst.clbits[0]).index] = qubits[0]
            measured.add(qubits[0])
            continue
        if name == "barrier":
            continue
        if measured.intersection(qubits):
            raise ValueError("a gate acts on a measured qubit (mid-circuit measurement)")
        body.append(inst)
    return body, cmap


def _qiskit_evolve(ctx, qc, oracle: dict | None = None):
    """(final Statevector, {clbit: qubit}) of a Qiskit circuit whose measurements are
    terminal, evolved instruction by instruction.  The oracle (the QASM program's
    ``Oracle`` gate, or the UnitaryGate handed to build_circuit) is applied as the
    test's cached Operator, so its 2^m x 2^m matrix is not copied per circuit."""
    from qiskit.quantum_info import Statevector

    ospec = ctx["spec"].get("oracle") or {}
    name, width = ospec.get("name", "Oracle"), ospec.get("num_qubits")
    state = Statevector.from_int(0, 2**qc.num_qubits)
    measured, cmap = set(), {}
    for inst in qc.data:
        qubits = [qc.find_bit(q).index for q in inst.qubits]
        op = inst.operation
        if op.name == "measure":
            cmap[qc.find_bit(inst.clbits[0]).index] = qubits[0]
            measured.add(qubits[0])
            continue
        if op.name == "barrier":
            continue
        if measured.intersection(qubits):
            raise ValueError("a gate acts on a measured qubit (mid-circuit measurement)")
        is_oracle = len(qubits) == width and (
            op.name == name or (op.name == "unitary" and op.label == name))
        if is_oracle and oracle is not None:
            state = state.evolve(oracle["operator"], qargs=qubits)
        else:
            state = state.evolve(op, qargs=qubits)
    return state, cmap


def _native_state(ctx, native) -> np.ndarray:
    """Final state in the bitstring basis of the framework."""
    fw, width = ctx["framework"], ctx["width"]
    if fw in ("qasm", "qiskit"):
        return np.asarray(_qiskit_evolve(ctx, native)[0].data)
    if fw == "cirq":
        import cirq

        return cirq.final_state_vector(native, qubit_order=cirq.LineQubit.range(width),
                                       ignore_terminal_measurements=True, dtype=np.complex128)
    import pennylane as qml

    dev = qml.device("default.qubit", wires=width)

    @qml.qnode(dev)
    def circuit():
        native()
        return qml.state()

    return np.asarray(circuit())


def _native_unitary(ctx, native) -> np.ndarray:
    fw, width = ctx["framework"], ctx["width"]
    if fw in ("qasm", "qiskit"):
        from qiskit.quantum_info import Operator

        return np.asarray(Operator(_qiskit_unitary_part(native)[0]).data)
    if fw == "cirq":
        import cirq

        return cirq.drop_terminal_measurements(native).unitary(
            qubit_order=cirq.LineQubit.range(width), dtype=np.complex128)
    import pennylane as qml

    return np.asarray(qml.matrix(native, wire_order=list(range(width)))())


def _marginal(probs: np.ndarray, n: int, bits: list) -> dict[str, float]:
    """{key: probability}: key character j is the bit of qubit bits[j] = (k, big_endian)
    of the basis index (None: a constant '0')."""
    idx = np.arange(len(probs))
    code = np.zeros(len(probs), dtype=np.int64)
    for entry in bits:
        code <<= 1
        if entry is not None:
            k, big = entry
            code |= (idx >> (n - 1 - k if big else k)) & 1
    sums = np.bincount(code, weights=probs, minlength=2 ** len(bits))
    return {format(int(c), f"0{len(bits)}b") if bits else "": float(sums[c])
            for c in np.flatnonzero(sums > 1e-15)}


def _native_distribution(ctx, native, oracle: dict | None = None,
                         key: str | None = None) -> dict[str, float]:
    """Exact distribution of the measured bits, keyed as the framework prints them:
    Qiskit clbits (clbit 0 rightmost); Cirq measurement key `key` (else every
    measurement, in circuit order) with its qubits in order.  A circuit that
    measures nothing gives the distribution over all qubits in the framework's
    bitstring order (PennyLane: always, `qml.probs`)."""
    fw = ctx["framework"]
    if fw in ("qasm", "qiskit"):
        state, cmap = _qiskit_evolve(ctx, native, oracle)
        # key character j (from the left) is clbit ncl-1-j; basis index bit k is qubit k;
        # with no measurement at all, every qubit (qubit 0 rightmost)
        bits = ([(cmap[c], False) if c in cmap else None
                 for c in reversed(range(native.num_clbits))] if cmap
                else [(k, False) for k in reversed(range(native.num_qubits))])
        return _marginal(state.probabilities(), native.num_qubits, bits)
    if fw == "cirq":
        import cirq

        if not native.are_all_measurements_terminal():
            raise ValueError("mid-circuit measurement")
        measures = [op for op in native.all_operations() if cirq.is_measurement(op)]
        keyed = [op for op in measures if cirq.measurement_key_name(op) == key] or measures
        qubits = cirq.LineQubit.range(ctx["width"])
        order = ([qubits.index(q) for op in keyed for q in op.qubits] if keyed
                 else list(range(ctx["width"])))  # no measurement: every qubit, 0 leftmost
        psi = cirq.final_state_vector(native, qubit_order=qubits,
                                      ignore_terminal_measurements=True, dtype=np.complex128)
        # cirq's state index is big-endian: qubit k is bit width-1-k
        return _marginal(np.abs(psi) ** 2, ctx["width"], [(k, True) for k in order])
    if fw == "pennylane":
        import pennylane as qml

        width = ctx["width"]

        @qml.qnode(qml.device("default.qubit", wires=width))
        def circuit():
            native()
            return qml.probs(wires=list(range(width)))  # wire 0 leftmost (big-endian)

        return _marginal(np.asarray(circuit()), width, [(k, True) for k in range(width)])
    raise _Unsupported(f"{fw} distributions")


def truth_state(ctx, sources) -> Truth:
    """State fidelity with the target on the data qubits; declared ancillas must end
    in |0> ("clean") or are traced out ("free")."""
    spec = ctx["spec"]
    native = _native_builder(ctx, sources)()
    psi = _native_state(ctx, native)
    target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    ancillas = spec.get("ancillas") or []
    if psi.shape != (2 ** ctx["width"],):
        return Truth("changing", f"state of dimension {psi.shape[0]}")
    if ancillas:
        n = ctx["width"]
        axis = (lambda q: n - 1 - q) if ctx["framework"] in ("cirq", "pennylane") else (lambda q: q)
        data = [q for q in range(n) if q not in ancillas]
        # a (data, ancilla) matrix, each index in the framework's own bit order
        order = sorted(data, key=axis, reverse=True) + sorted(ancillas, key=axis, reverse=True)
        m = psi.reshape((2,) * n).transpose([n - 1 - axis(q) for q in order]).reshape(
            2 ** len(data), -1)
        if spec.get("ancilla_policy", "clean") == "free":
            fidelity = float(np.real(np.vdot(target, (m @ m.conj().T) @ target)))
        else:
            fidelity = float(abs(np.vdot(target, m[:, 0])) ** 2)
    else:
        fidelity = float(abs(np.vdot(target, psi)) ** 2)
    ok = fidelity >= 1 - th.STATE_FIDELITY_EPS
    protocol = spec.get("protocol")
    broken = (_native_locality(protocol, _native_ops(ctx, native))
              if isinstance(protocol, dict) else None)
    if broken:
        return Truth("changing", f"protocol violation ({broken}); state fidelity {fidelity:.6f}")
    return _with_gate_set(ctx, native, Truth("equivalent" if ok else "changing",
                                             f"state fidelity {fidelity:.6f}"))


def _native_gate_set(gate_set: dict, ops) -> str | None:
    """The gate-set rule of `judge.gateset`, decided on the native operations: a
    one-qubit rotation about an axis is a unitary commuting with that Pauli, a
    fixed gate or a CNOT / CZ / Toffoli (any orientation) has |Tr(F^dag U)| = dim."""
    atol = th.GATE_SET_ATOL
    paulis = {"rx": np.array([[0, 1], [1, 0]]), "ry": np.array([[0, -1j], [1j, 0]]),
              "rz": np.diag([1, -1])}
    t = np.exp(1j * np.pi / 4)
    fixed = {"h": np.array([[1, 1], [1, -1]]) / np.sqrt(2), "x": paulis["rx"],
             "s": np.diag([1, 1j]), "sdg": np.diag([1, -1j]), "t": np.diag([1, t]),
             "tdg": np.diag([1, t.conjugate()])}

    def perm(k, f):   # the permutation matrix of the basis map f on k qubits
        u = np.zeros((2**k, 2**k))
        for x in range(2**k):
            u[f(x), x] = 1
        return u

    multi = {"cx": [perm(2, lambda x: x ^ 1 if x & 2 else x), perm(2, lambda x: x ^ 2 if x & 1 else x)],
             "cz": [np.diag([1, 1, 1, -1])],
             "ccx": [perm(3, lambda x, b=b: x ^ b if (x | b) == 7 else x) for b in (1, 2, 4)]}

    def same(u, f):
        return abs(abs(np.trace(f.conj().T @ u)) - len(u)) <= atol * len(u)

    def allowed(u):
        for name in gate_set["gates"]:
            if len(u) == 2 and (name == "1q" or (name in paulis and np.abs(
                    u @ paulis[name] - paulis[name] @ u).max() <= atol)
                    or (name in fixed and same(u, fixed[name]))):
                return True
            if name in multi and any(f.shape == u.shape and same(u, f) for f in multi[name]):
                return True
        return False

    gates = two = 0
    for name, qubits, u in ops:
        if u is None or same(u, np.eye(len(u))):
            continue
        if not allowed(u):
            return f"{name} on {qubits} is outside the gate set"
        gates += 1
        two += len(qubits) == 2
    for key, count in (("max_two_qubit", two), ("max_gates", gates)):
        if count > gate_set.get(key, count):
            return f"{count} gates over the limit {key} = {gate_set[key]}"
    return None


def _with_gate_set(ctx, native, truth: Truth) -> Truth:
    """A truth made "changing" when the task's gate set is violated."""
    gate_set = ctx["spec"].get("gate_set")
    broken = _native_gate_set(gate_set, _native_ops(ctx, native)) if gate_set else None
    if broken and truth.status == "equivalent":
        return Truth("changing", f"{broken}; {truth.detail}")
    return truth


def _clean_ancilla_block(u: np.ndarray, width: int, ancillas: list, framework: str) -> np.ndarray:
    """The block of a native unitary (framework's bitstring basis) from inputs with
    the ancillas in |0> to outputs with the ancillas in |0>, indexed over the data
    qubits in the same bit order."""
    data = [q for q in range(width) if q not in ancillas]
    big_endian = framework in ("cirq", "pennylane")

    def full_index(x: int) -> int:   # data index (framework order) -> full index
        bits = {q: (x >> (len(data) - 1 - i if big_endian else i)) & 1 for i, q in enumerate(data)}
        return sum(bits[q] << (width - 1 - q if big_endian else q) for q in data)

    rows = [full_index(x) for x in range(2 ** len(data))]
    return u[np.ix_(rows, rows)]


def truth_unitary(ctx, sources) -> Truth:
    """Process fidelity with the target (over the clean-ancilla block), or with a
    declared `subspace`: |sum_x <T x|U x>|^2 / |S|^2 over its inputs x (bitstring basis)."""
    spec = ctx["spec"]
    native = _native_builder(ctx, sources)()
    u = _native_unitary(ctx, native)
    target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    if spec.get("ancillas") and u.shape == (2 ** ctx["width"],) * 2:
        u = _clean_ancilla_block(u, ctx["width"], spec["ancillas"], ctx["framework"])
    if u.shape != target.shape:
        return Truth("changing", f"unitary of dimension {u.shape[0]}, target {target.shape[0]}")
    inputs = spec.get("subspace")
    if inputs is None:
        fidelity = float(abs(np.trace(target.conj().T @ u) / u.shape[0]) ** 2)
    else:
        overlap = sum(np.vdot(target[:, x], u[:, x]) for x in inputs)
        fidelity = float(abs(overlap / len(inputs)) ** 2)
    ok = fidelity >= 1 - th.PROCESS_FIDELITY_EPS
    return _with_gate_set(ctx, native, Truth("equivalent" if ok else "changing",
                                             f"process fidelity {fidelity:.6f}"))


def truth_classifier(ctx, sources) -> Truth:
    """Equivalent iff, for every argument list of the batch, <Z> of the readout qubit
    on the native final state has the label's sign with the margin (or is within the
    tolerance of the value)."""
    spec, n = ctx["spec"], ctx["width"]
    readout = spec["readout"]
    bit = n - 1 - readout if ctx["framework"] in ("cirq", "pennylane") else readout
    labels = spec.get("labels")
    targets = labels if labels is not None else spec["values"]
    zs = []
    for args, target in zip(spec["batch"], targets):
        entry_ctx = {**ctx, "spec": {**spec, "args": args}}
        psi = _native_state(entry_ctx, _native_builder(entry_ctx, sources)())
        sign = 1 - 2 * ((np.arange(len(psi)) >> bit) & 1)
        zs.append(float(np.dot(sign, np.abs(psi) ** 2)))
    if labels is not None:
        ok = all(y * z >= th.CLASSIFIER_MARGIN for y, z in zip(labels, zs))
    else:
        ok = all(abs(z - y) <= th.REGRESSION_TOLERANCE for y, z in zip(targets, zs))
    return Truth("equivalent" if ok else "changing", "<Z> " + ", ".join(f"{z:.3f}" for z in zs))


def truth_algorithm(ctx, sources) -> Truth:
    """Equivalent iff on every hidden test the canonical post-processing is right
    at least as often as with the canonical circuit (`problem.answer_probability`
    of the mutant's exact measured distribution >= the canonical's exact success
    probability - ALGORITHM_SUCCESS_EPS)."""
    spec = ctx["spec"]
    canonical = spec.get("canonical_success", 1.0)
    tests = spec["hidden"]
    build = _native_builder(ctx, sources)
    p_of = {}
    for test in tests:
        key = json.dumps(test, sort_keys=True)
        if key not in p_of:
            oracle = _oracle_native(ctx, test)
            dist = _native_distribution(ctx, build(oracle["gate"]), oracle, key="result")
            if canonical == 1.0:   # the judge samples deterministic algorithms uniformly
                possible = [k for k, p in dist.items() if p >= th.SUPPORT_FLOOR]
                dist = {k: 1.0 / len(possible) for k in possible}
            p_of[key] = ctx["problem"].answer_probability(dist, test, ctx["framework"])
    p_right = [p_of[json.dumps(t, sort_keys=True)] for t in tests]
    worst = min(p_right)
    ok = all(p >= canonical - th.ALGORITHM_SUCCESS_EPS for p in p_right)
    detail = (f"P(answer) >= {worst:.3f} on all {len(tests)} tests" if ok else
              f"P(answer) per test: {', '.join(f'{p:.3f}' for p in p_right)}")
    return Truth("equivalent" if ok else "changing", detail)


def truth_distribution(ctx, sources) -> Truth:
    """Exact protocol: equivalent iff TVD(target, exact distribution) <= eps."""
    spec = ctx["spec"]
    if spec.get("protocol", "exact") != "exact":
        raise _Unsupported(f"the {spec['protocol']!r} distribution protocol")
    target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    dist = _native_distribution(ctx, _native_builder(ctx, sources)())
    width = {len(k) for k in target}
    if {len(k) for k in dist} != width:
        return Truth("changing", f"outcomes of {sorted({len(k) for k in dist})} bits")
    tvd = 0.5 * sum(abs(target.get(k, 0.0) - dist.get(k, 0.0)) for k in set(target) | set(dist))
    ok = tvd <= th.DISTRIBUTION_TVD_EPS
    return Truth("equivalent" if ok else "changing", f"total variation distance {tvd:.6f}")


def truth_variational(ctx, sources) -> Truth:
    """Equivalent iff the exact objective of the output state is within
    VARIATIONAL_TOLERANCE x |reference| of the spec's optimum."""
    spec, fw, width = ctx["spec"], ctx["framework"], ctx["width"]
    objective = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    psi = _native_state(ctx, _native_builder(ctx, sources)())
    if psi.shape != (2**width,):
        return Truth("changing", f"state of dimension {psi.shape[0]}")
    if objective.get("basis") == "qubit" and fw in ("cirq", "pennylane"):
        psi = psi[_reverse_bits(width)]  # bitstring (big-endian) -> bit k of the index = qubit k
    if "diagonal" in objective:
        value = float(np.dot(np.abs(psi) ** 2, np.asarray(objective["diagonal"], dtype=float)))
    else:
        h = np.asarray(objective["matrix"], dtype=complex)
        value = float(np.real(np.vdot(psi, h @ psi)))
    gap = spec["optimum"] - value if spec.get("sense", "max") == "max" else value - spec["optimum"]
    ok = gap <= th.VARIATIONAL_TOLERANCE * abs(spec["reference"]) + 1e-9  # float slack
    return Truth("equivalent" if ok else "changing",
                 f"objective {value:.6f} (optimum {spec['optimum']:.6f})")


# --- protocol tasks (kind "channel"): the parties' locality and the channel, natively ---------
def _native_ops(ctx, native) -> list[tuple[str, list[int], np.ndarray | None]]:
    """The circuit's operations in order: (name, qubits, matrix big-endian over the
    qubits, or None for measurements, barriers and resets), by the framework's own
    objects (Qiskit `Operator`, `cirq.unitary`, `qml.matrix`)."""
    fw = ctx["framework"]
    out = []
    if fw in ("qasm", "qiskit"):
        from qiskit.quantum_info import Operator

        for inst in native.data:
            qubits = [native.find_bit(q).index for q in inst.qubits]
            name = inst.operation.name
            if name in ("measure", "barrier", "reset", "delay"):
                out.append((name, qubits, None))
                continue
            rev = _reverse_bits(len(qubits))   # Qiskit matrices are little-endian over qargs
            out.append((name, qubits, np.asarray(Operator(inst.operation).data)[np.ix_(rev, rev)]))
        return out
    if fw == "cirq":
        import cirq

        for op in native.all_operations():
            qubits = [q.x for q in op.qubits]
            if cirq.is_measurement(op):
                out.append(("measure", qubits, None))
            elif qubits:
                out.append((str(op.gate or op), qubits, cirq.unitary(op)))
        return out
    import pennylane as qml

    for op in qml.tape.make_qscript(native)().operations:
        wires = [int(w) for w in op.wires]
        if op.name == "Barrier" or not wires:
            continue
        out.append((op.name, wires, np.asarray(qml.matrix(op, wire_order=op.wires))))
    return out


def _keeps_z(u: np.ndarray, j: int) -> bool:
    """u (big-endian over k qubits) commutes with Z on its j-th qubit."""
    k = int(round(np.log2(u.shape[0])))
    z = np.array([1 - 2 * ((i >> (k - 1 - j)) & 1) for i in range(2**k)])
    return bool(np.abs(u * z[None, :] - z[:, None] * u).max() <= 2 * th.CLASSICAL_CONTROL_ATOL)


def _native_locality(protocol: dict, ops) -> str | None:
    """The protocol rules of `judge.locality`, re-implemented on native operations:
    a multi-qubit gate needs a party that can still hold every qubit (qubits move
    forward along their owner lists only, as little as possible), or it is a gate
    controlled by qubits the receiver cannot hold (commuting with Z on them, sent
    over an allowed classical channel), after which those qubits only take gates
    that commute with Z on them.  Returns a description of the first violation."""
    owners = protocol["owners"]
    channels = {tuple(c) for c in protocol.get("classical", ())}
    parties = []
    for seq in owners:
        parties += [p for p in seq if p not in parties]
    at = [0] * len(owners)
    sent = set()

    def slot(q, party):
        return owners[q].index(party) if party in owners[q][at[q]:] else None

    for name, qubits, u in ops:
        if u is None:
            continue
        keeps = {q: _keeps_z(u, j) for j, q in enumerate(qubits)}
        if any(q in sent and not keeps[q] for q in qubits):
            return f"{name} on {qubits} changes a qubit sent as a classical control"
        if len(qubits) < 2:
            continue
        moves = []
        for party in parties:
            slots = {q: slot(q, party) for q in qubits}
            if None not in slots.values():
                moves.append((sum(s - at[q] for q, s in slots.items()), slots, {}))
        if not moves:
            for receiver in parties:
                here = {q: slot(q, receiver) for q in qubits}
                recv = {q: s for q, s in here.items() if s is not None}
                ctrl = {}
                for q in qubits:
                    if q in recv or not keeps[q]:
                        continue
                    for s in range(at[q], len(owners[q])):
                        if (owners[q][s], receiver) in channels:
                            ctrl[q] = s
                            break
                if recv and ctrl and len(recv) + len(ctrl) == len(qubits):
                    moves.append((sum(s - at[q] for q, s in recv.items()), recv, ctrl))
        if not moves:
            return f"{name} on {qubits} couples parties"
        _, recv, ctrl = min(moves, key=lambda m: m[0])
        for q, s in {**recv, **ctrl}.items():
            at[q] = s
        sent.update(ctrl)
    return None


def _native_channel_states(ctx, native, inputs: list[int]):
    """Yield (x, final state as an n-axis tensor, axis q = qubit q) for every basis
    input x (bit j = value of inputs[j]; the other qubits |0>)."""
    fw, n = ctx["framework"], ctx["width"]
    xs = range(2 ** len(inputs))

    def little(x):
        return sum(((x >> j) & 1) << q for j, q in enumerate(inputs))

    def big(x):
        return sum(((x >> j) & 1) << (n - 1 - q) for j, q in enumerate(inputs))

    if fw in ("qasm", "qiskit"):
        from qiskit.quantum_info import Statevector

        body = _qiskit_unitary_part(native)[0]
        for x in xs:
            data = Statevector.from_int(little(x), 2**n).evolve(body).data
            yield x, np.asarray(data).reshape((2,) * n).transpose(range(n - 1, -1, -1))
    elif fw == "cirq":
        import cirq

        if not native.are_all_measurements_terminal():
            raise ValueError("mid-circuit measurement")
        for x in xs:
            psi = cirq.final_state_vector(native, initial_state=big(x),
                                          qubit_order=cirq.LineQubit.range(n),
                                          ignore_terminal_measurements=True, dtype=np.complex128)
            yield x, psi.reshape((2,) * n)
    else:
        import pennylane as qml

        states = np.zeros((len(xs), 2**n), dtype=complex)
        states[np.arange(len(xs)), [big(x) for x in xs]] = 1

        @qml.qnode(qml.device("default.qubit", wires=n))
        def circuit():
            qml.StatePrep(states, wires=range(n))
            native()
            return qml.state()

        out = np.asarray(circuit()).reshape((len(xs),) + (2,) * n)
        for x in xs:
            yield x, out[x]


def truth_channel(ctx, sources) -> Truth:
    """Equivalent iff the protocol's locality holds (re-implemented on the native
    operations) and the channel inputs -> outputs meets the spec: entanglement
    fidelity with the identity >= 1 - PROCESS_FIDELITY_EPS ("quantum"), or every basis
    input's output distribution within DISTRIBUTION_TVD_EPS of the target ("classical")."""
    spec, n = ctx["spec"], ctx["width"]
    native = _native_builder(ctx, sources)()
    inputs, outputs = list(spec["inputs"]), list(spec["outputs"])
    if spec["mode"] == "quantum":
        total = 0
        for x, psi in _native_channel_states(ctx, native, inputs):
            out_bits = tuple((x >> j) & 1 for j in range(len(outputs)))
            total = total + psi[tuple(out_bits[outputs.index(q)] if q in outputs else slice(None)
                                      for q in range(n))]
        fidelity = float(np.sum(np.abs(total) ** 2) / 4 ** len(inputs))
        ok, detail = fidelity >= 1 - th.PROCESS_FIDELITY_EPS, f"entanglement fidelity {fidelity:.6f}"
    else:
        target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
        worst = 0.0
        for x, psi in _native_channel_states(ctx, native, inputs):
            probs = np.abs(psi) ** 2
            rest = tuple(q for q in range(n) if q not in outputs)
            marg = probs.sum(axis=rest)           # remaining axes: outputs in qubit order
            order = sorted(outputs)
            dist = {}
            for bits in itertools.product((0, 1), repeat=len(outputs)):
                p = float(marg[tuple(bits[outputs.index(q)] for q in order)])
                if p > 1e-15:
                    dist["".join(map(str, bits))] = p
            want = target["".join(str((x >> j) & 1) for j in range(len(inputs)))]
            worst = max(worst, 0.5 * sum(abs(want.get(k, 0.0) - dist.get(k, 0.0))
                                         for k in set(want) | set(dist)))
        ok, detail = worst <= th.DISTRIBUTION_TVD_EPS, f"largest TVD over inputs {worst:.6f}"
    broken = _native_locality(spec["protocol"], _native_ops(ctx, native)) if spec.get("protocol") else None
    if broken:
        return Truth("changing", f"protocol violation ({broken}); {detail}")
    return Truth("equivalent" if ok else "changing", detail)


def truth_repair(ctx, sources) -> Truth:
    """A fixed program: the ground truth of its declared equivalence kind."""
    return GROUND_TRUTH[ctx["spec"]["equivalence"]](ctx, sources)


# Ground truth by check kind: a new kind adds its entry (CONTRIBUTING.md, "Add a check kind").
GROUND_TRUTH = {"state": truth_state, "unitary": truth_unitary, "algorithm": truth_algorithm,
                "distribution": truth_distribution, "variational": truth_variational,
                "channel": truth_channel, "classifier": truth_classifier, "repair": truth_repair}


def ground_truth(ctx: dict, sources: dict) -> Truth:
    decide = GROUND_TRUTH.get(ctx["spec"]["kind"])
    if decide is None:   # a new check kind whose native ground truth is not written yet
        raise _Unsupported(f"check kind {ctx['spec']['kind']!r} (no entry in GROUND_TRUTH)")
    try:
        return decide(ctx, sources)
    except _Unsupported:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to build natively
        return Truth("broken", f"{type(exc).__name__}: {str(exc)[:200]}")
