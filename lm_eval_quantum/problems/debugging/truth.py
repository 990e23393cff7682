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

Dynamic programs (mid-circuit measurement, reset, classical control; `_is_dynamic`, the
judge's rule on native instructions) are run exactly over all measurement branches
(`_exact`): Qiskit / OpenQASM branch by branch with `Statevector.evolve` and Qiskit's own
conditions (Aer's density-matrix method samples one outcome per measurement and shot, so
it is not exact), Cirq through `cirq.defer_measurements` and `final_state_vector`,
PennyLane through `qml.defer_measurements` and `default.qubit`.  Channel inputs are
prepared entangled with reference qubits, so one run gives the Choi matrix
(`_native_choi`).  On that: `state` (fidelity of the data qubits' density matrix),
`channel` (modes quantum / classical / channel), `classical_answer` and
`code_correction` (errors inserted after the first top-level barrier), each by its kind's
rule (judge/kinds/*.py docstrings, thresholds.py), and the parties' locality with
feed-forward (a conditioned operation needs a holder that receives the condition's bits).
`idle_noise` (dynamical decoupling) inserts each draw's noise exp(-iH) natively after
every top-level barrier (a Qiskit `UnitaryGate`, `cirq.DiagonalGate`,
`qml.DiagonalQubitUnitary`) and compares the framework's own unitary with the target.
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


# --- dynamic programs: mid-circuit measurement, reset and classical control, natively ----------
# A program that measures mid-circuit, resets or conditions operations on measured bits is
# run exactly, over all measurement branches, in its framework:
#   * Qiskit and OpenQASM (loaded by qiskit.qasm3): the circuit is followed instruction by
#     instruction, gates by `Statevector.evolve` with the instruction's own `Operator`, and
#     every measurement or reset splits each branch into its two outcomes (projected and,
#     for a reset, flipped back to |0>); `if_else` / `switch_case` / `while_loop` /
#     `for_loop` / `box` blocks run on the branches whose record satisfies Qiskit's own
#     condition (a (bit, value) or (register, value) pair, or a classical `expr` evaluated
#     here).  (Aer's density-matrix method is NOT exact here: it samples one outcome per
#     measurement and shot, so its saved density matrix is a Monte Carlo average.)
#   * Cirq: `cirq.defer_measurements` (measurements onto fresh ancillas, classical controls,
#     sympy conditions included, turned into quantum controls on them); a reset becomes
#     Cirq's measurement and an X conditioned on it first (right after a one-qubit
#     measurement of the same qubit: an X conditioned on that measurement), and a terminal
#     measurement a CNOT onto a fresh qubit, so the deferred circuit is unitary and
#     `cirq.final_state_vector` gives the purification; the extra qubits are the environment.
#   * PennyLane: `qml.defer_measurements` on the recorded tape (mid-circuit measurements,
#     `reset=True` and `qml.cond` become controlled operations on new wires) and the state of
#     `default.qubit`; the new wires are the environment.
# The result is a (B, 2, ..., 2) array: B unnormalised vectors (branches, or environment
# basis states), axis 1 + q holding qubit q (q < n: the program's qubits, then the
# reference qubits the check adds): the final density matrix of the program's qubits and
# the references is the sum of their projectors.
MAX_DEFERRED_QUBITS = 24    # Cirq / PennyLane: program + references + deferred ancillas (256 MiB)
_PRUNE = 1e-15              # Qiskit: a branch of smaller probability is dropped


class _Mismatch(Exception):
    """The program does not fit the task's register (its width or qubit types)."""


class _NoBarrier(Exception):
    """code_correction: the program has no top-level barrier marking where errors strike."""


def _is_dynamic(ctx, native) -> bool:
    """Mid-circuit measurement (an operation after a measurement of its qubit), a reset or
    classical control, by the framework's own instruction types (the rule that makes the
    judge read a program branch by branch)."""
    fw = ctx["framework"]
    measured = set()
    if fw in ("qasm", "qiskit"):
        from qiskit.circuit import ControlFlowOp

        for inst in native.data:
            qubits = {native.find_bit(q).index for q in inst.qubits}
            name = inst.operation.name
            if isinstance(inst.operation, ControlFlowOp) or name == "reset":
                return True
            if name == "measure":
                measured |= qubits
            elif name != "barrier" and measured & qubits:
                return True
        return False
    if fw == "cirq":
        import cirq

        for op in cirq.unroll_circuit_op(native, deep=True, tags_to_check=None).all_operations():
            if op.classical_controls or isinstance(op.gate, cirq.ResetChannel):
                return True
            if cirq.is_measurement(op):
                measured |= set(op.qubits)
            elif "barrier" not in op.tags and measured & set(op.qubits):
                return True
        return False
    import pennylane as qml

    for op in qml.tape.make_qscript(native)().operations:
        if isinstance(op, qml.ops.Conditional) or (isinstance(op, qml.ops.MidMeasure) and op.reset):
            return True
        if isinstance(op, qml.ops.MidMeasure):
            measured |= set(op.wires)
        elif not isinstance(op, qml.Barrier) and measured & set(op.wires):
            return True
    return False


# --- Qiskit: branch by branch ----------------------------------------------------------------
def _qiskit_condition_bits(op, cmap) -> set:
    """The global clbit indices a control-flow instruction's condition reads."""
    from qiskit.circuit import Clbit, ClassicalRegister
    from qiskit.circuit.classical import expr

    cond = getattr(op, "condition", None) if op.name != "switch_case" else op.target
    if cond is None:
        return set()
    targets = [cond[0]] if isinstance(cond, tuple) else (
        [cond] if isinstance(cond, (Clbit, ClassicalRegister)) else
        [v.var for v in expr.iter_vars(cond)])
    bits = set()
    for t in targets:
        bits |= {cmap[t]} if isinstance(t, Clbit) else {cmap[b] for b in t}
    return bits


def _qiskit_read(target, record, cmap):
    from qiskit.circuit import Clbit, ClassicalRegister

    if isinstance(target, Clbit):
        return bool(record[cmap[target]])
    if isinstance(target, ClassicalRegister):
        return sum(int(record[cmap[b]]) << i for i, b in enumerate(target))
    raise _Unsupported(f"classical variable {target!r}")


def _qiskit_expr(e, record, cmap):
    """Qiskit's classical expression on a branch's record (bits and registers)."""
    from qiskit.circuit.classical import expr, types

    def width_mask(t):
        return 1 if isinstance(t, types.Bool) else (1 << t.width) - 1

    if isinstance(e, expr.Var):
        return _qiskit_read(e.var, record, cmap)
    if isinstance(e, expr.Value):
        return e.value
    if isinstance(e, expr.Cast):
        v = _qiskit_expr(e.operand, record, cmap)
        return bool(v) if isinstance(e.type, types.Bool) else int(v) & width_mask(e.type)
    if isinstance(e, expr.Index):
        value = int(_qiskit_expr(e.target, record, cmap))
        return bool((value >> int(_qiskit_expr(e.index, record, cmap))) & 1)
    if isinstance(e, expr.Unary):
        v = _qiskit_expr(e.operand, record, cmap)
        if e.op is expr.Unary.Op.LOGIC_NOT:
            return not v
        if e.op is expr.Unary.Op.BIT_NOT:
            return (not v) if isinstance(e.type, types.Bool) else ~int(v) & width_mask(e.type)
        raise _Unsupported(f"classical operation {e.op.name}")
    if isinstance(e, expr.Binary):
        a, b = _qiskit_expr(e.left, record, cmap), _qiskit_expr(e.right, record, cmap)
        O = expr.Binary.Op
        table = {O.BIT_AND: lambda: a & b, O.BIT_OR: lambda: a | b, O.BIT_XOR: lambda: a ^ b,
                 O.LOGIC_AND: lambda: bool(a) and bool(b), O.LOGIC_OR: lambda: bool(a) or bool(b),
                 O.EQUAL: lambda: a == b, O.NOT_EQUAL: lambda: a != b, O.LESS: lambda: a < b,
                 O.LESS_EQUAL: lambda: a <= b, O.GREATER: lambda: a > b,
                 O.GREATER_EQUAL: lambda: a >= b,
                 O.SHIFT_LEFT: lambda: (a << b) & width_mask(e.type), O.SHIFT_RIGHT: lambda: a >> b}
        if e.op not in table:
            raise _Unsupported(f"classical operation {e.op.name}")
        return table[e.op]()
    raise _Unsupported(f"classical expression {type(e).__name__}")


def _qiskit_holds(cond, record, cmap) -> bool:
    if isinstance(cond, tuple):
        return int(_qiskit_read(cond[0], record, cmap)) == int(cond[1])
    return bool(_qiskit_expr(cond, record, cmap))


class _QiskitBranches:
    """Runs a Qiskit circuit on (record, state) branches: state a little-endian vector
    over the circuit's qubits then the reference qubits."""

    def __init__(self, total: int):
        self.total = total
        self.operators = {}

    def gate(self, branches, op, qubits):
        from qiskit.quantum_info import Operator, Statevector

        if id(op) not in self.operators:
            self.operators[id(op)] = (op, Operator(op))   # op kept: its id stays unique
        u = self.operators[id(op)][1]
        return [(rec, Statevector(vec).evolve(u, qargs=qubits).data) for rec, vec in branches]

    def split(self, branches, qubit, clbit):
        """Measure `qubit` (clbit None: reset it) on every branch."""
        out = []
        for rec, vec in branches:
            view = vec.reshape(2 ** (self.total - 1 - qubit), 2, 2**qubit)
            for outcome in (0, 1):
                part = np.zeros_like(view)
                part[:, 0 if clbit is None else outcome] = view[:, outcome]
                part = part.reshape(-1)
                if np.vdot(part, part).real <= _PRUNE:
                    continue
                new = rec
                if clbit is not None:
                    new = rec[:clbit] + (outcome,) + rec[clbit + 1:]
                out.append((new, part))
        return out

    def run(self, instructions, qmap, cmap, branches):
        from qiskit.circuit import CASE_DEFAULT, ControlFlowOp

        for inst in instructions:
            if not branches:
                return branches
            op, name = inst.operation, inst.operation.name
            qubits = [qmap[q] for q in inst.qubits]
            if name in ("barrier", "delay"):
                continue
            if name == "measure":
                branches = self.split(branches, qubits[0], cmap[inst.clbits[0]])
                continue
            if name == "reset":
                branches = self.split(branches, qubits[0], None)
                continue
            if not isinstance(op, ControlFlowOp):
                branches = self.gate(branches, op, qubits)
                continue

            def inner(block, blist):
                return self.run(block.data, dict(zip(block.qubits, qubits)),
                                {**cmap, **{b: cmap[c] for b, c in zip(block.clbits, inst.clbits)}},
                                blist)

            if name == "if_else":
                yes = [b for b in branches if _qiskit_holds(op.condition, b[0], cmap)]
                no = [b for b in branches if not _qiskit_holds(op.condition, b[0], cmap)]
                other = op.blocks[1] if len(op.blocks) > 1 else None
                branches = inner(op.blocks[0], yes) + (inner(other, no) if other is not None else no)
            elif name == "switch_case":
                out, left = [], branches
                for values, block in op.cases_specifier():
                    take = [b for b in left if CASE_DEFAULT in values or any(
                        int(_qiskit_read(op.target, b[0], cmap)) == int(v) for v in values)]
                    left = [b for b in left if not any(b is t for t in take)]
                    out += inner(block, take)
                branches = out + left
            elif name == "while_loop":
                done = []
                for _ in range(th.MAX_WHILE_PASSES):
                    inside = [b for b in branches if _qiskit_holds(op.condition, b[0], cmap)]
                    done += [b for b in branches if not _qiskit_holds(op.condition, b[0], cmap)]
                    if sum(np.vdot(v, v).real for _, v in inside) <= th.WHILE_TAIL_EPS:
                        break
                    branches = inner(op.blocks[0], inside)
                else:
                    raise _Unsupported(f"a while loop running past {th.MAX_WHILE_PASSES} passes")
                branches = done
            elif name == "for_loop":
                indexset, param, body = op.params
                for value in indexset:
                    block = body.assign_parameters({param: value}) if param is not None else body
                    branches = self.run(block.data, dict(zip(block.qubits, qubits)),
                                        {**cmap, **{b: cmap[c] for b, c in zip(block.clbits, inst.clbits)}},
                                        branches)
            elif name == "box":
                branches = inner(op.blocks[0], branches)
            else:
                raise _Unsupported(f"Qiskit control flow {name}")
        return branches


def _qiskit_exact(ctx, qc, init, cut):
    n = ctx["width"]
    if qc.num_qubits != n:
        raise _Mismatch(f"a circuit of {qc.num_qubits} qubits, the task has {n}")
    total = init.ndim
    data = list(qc.data)
    if cut is not None:
        at = next((i for i, inst in enumerate(data) if inst.operation.name == "barrier"), None)
        if at is None:
            raise _NoBarrier("the program has no barrier outside classical control")
    runner = _QiskitBranches(total)
    vec = np.ascontiguousarray(init.transpose(range(total - 1, -1, -1))).reshape(-1)
    branches = [((0,) * qc.num_clbits, vec.astype(complex))]
    qmap = {q: i for i, q in enumerate(qc.qubits)}
    cmap = {c: i for i, c in enumerate(qc.clbits)}
    if cut is None:
        branches = runner.run(data, qmap, cmap, branches)
    else:
        branches = runner.run(data[:at], qmap, cmap, branches)
        if cut != "prefix":
            from qiskit.circuit.library import XGate, YGate, ZGate

            paulis = {"x": XGate(), "y": YGate(), "z": ZGate()}
            for pauli, q in cut:
                branches = runner.gate(branches, paulis[pauli], [q])
            branches = runner.run(data[at + 1:], qmap, cmap, branches)
    if not branches:
        return np.zeros((0,) + (2,) * total, dtype=complex)
    stacked = np.array([v for _, v in branches]).reshape((len(branches),) + (2,) * total)
    return stacked.transpose([0] + list(range(total, 0, -1)))   # axis 1 + q = qubit q


# --- Cirq: cirq.defer_measurements --------------------------------------------------------------
def _cirq_unrolled(circuit, line):
    """The Cirq circuit with its sub-circuits unrolled, on the qubits `line` only (a
    `repeat_until` loop, which Cirq can neither unroll nor defer, is unsupported)."""
    import cirq

    if any(isinstance(op.untagged, cirq.CircuitOperation) and op.untagged.repeat_until is not None
           for op in circuit.all_operations()):
        raise _Unsupported("a Cirq repeat_until loop (cirq cannot unroll or defer it)")
    circuit = cirq.unroll_circuit_op(circuit, deep=True, tags_to_check=None)
    strange = set(circuit.all_qubits()) - set(line)
    if strange:
        raise _Mismatch(f"qubits outside cirq.LineQubit.range({len(line)}): "
                        f"{sorted(map(str, strange))}")
    return circuit


def _cirq_exact(ctx, circuit, init, cut):
    import cirq

    n, total = ctx["width"], init.ndim
    line = cirq.LineQubit.range(n)
    circuit = _cirq_unrolled(circuit, line)
    if cut is not None:
        found = next(((i, op) for i, moment in enumerate(circuit) for op in moment
                      if "barrier" in op.tags and not op.classical_controls), None)
        if found is None:
            raise _NoBarrier("the program has no operation tagged \"barrier\"")
        i, barrier = found
        before = [op for op in circuit[i].operations]
        before = before[:before.index(barrier)]
        if cut == "prefix":
            circuit = circuit[:i] + cirq.Circuit(cirq.Moment(before))
        else:
            errors = [getattr(cirq, p.upper())(line[q]) for p, q in cut]
            circuit = circuit[:i + 1] + cirq.Circuit(errors) + circuit[i + 1:]
    # resets -> a measurement and an X conditioned on it (the measurement that just read
    # the qubit, when there is one), so that defer_measurements leaves a unitary circuit
    last, replace, fresh = {}, {}, 0
    for index, moment in enumerate(circuit):
        for op in moment:
            if isinstance(op.gate, cirq.ResetChannel) and not op.classical_controls:
                (q,) = op.qubits
                key = last.get(q)
                if key is None:
                    key = f"_truth_reset_{fresh}"
                    fresh += 1
                    replace[(index, op)] = [cirq.measure(q, key=key),
                                            cirq.X(q).with_classical_controls(key)]
                else:
                    replace[(index, op)] = [cirq.X(q).with_classical_controls(key)]
            for q in op.qubits:
                last[q] = (cirq.measurement_key_name(op) if cirq.is_measurement(op)
                           and len(op.qubits) == 1 and not op.classical_controls else None)
    if replace:
        circuit = cirq.map_operations_and_unroll(
            circuit, lambda op, index: replace.get((index, op), op))
    deferred = cirq.defer_measurements(circuit)
    # what defer_measurements leaves measured: its records (traced out below, nothing to
    # do) and terminal measurements of the program's qubits (dephasing: a CNOT onto a
    # fresh qubit)
    ops, extra = [], []
    for op in deferred.all_operations():
        if cirq.is_measurement(op):
            for q in op.qubits:
                if q in line:
                    extra.append(cirq.NamedQubit(f"_truth_dephase_{len(extra)}"))
                    ops.append(cirq.CNOT(q, extra[-1]))
            continue
        ops.append(op)
    unitary = cirq.Circuit(ops)
    refs = [cirq.NamedQubit(f"_truth_ref_{j}") for j in range(total - n)]
    env = sorted(set(unitary.all_qubits()) - set(line) - set(refs), key=str)
    if total + len(env) > MAX_DEFERRED_QUBITS:
        raise _Unsupported(f"a deferred circuit of {total + len(env)} qubits (over "
                           f"{MAX_DEFERRED_QUBITS})")
    start = np.zeros((2**total, 2 ** len(env)), dtype=np.complex128)
    start[:, 0] = init.reshape(-1)
    psi = cirq.final_state_vector(unitary, initial_state=start.reshape(-1),
                                  qubit_order=list(line) + refs + env,
                                  ignore_terminal_measurements=True, dtype=np.complex128)
    out = np.asarray(psi).reshape(2**total, 2 ** len(env)).T
    out = out[np.abs(out).max(axis=1) > 0]
    return out.reshape((len(out),) + (2,) * total)


# --- PennyLane: qml.defer_measurements --------------------------------------------------------
def _pennylane_exact(ctx, native, init, cut):
    import pennylane as qml

    n, total = ctx["width"], init.ndim
    ops = list(qml.tape.make_qscript(native)().operations)
    if any(isinstance(op, qml.ops.MidMeasure) and op.postselect is not None for op in ops):
        raise ValueError("postselection (keeping only chosen outcomes) is not a program")
    wires = {w for op in ops for w in op.wires}
    if not wires <= set(range(n)):
        raise _Mismatch(f"wires outside 0..{n - 1}: {sorted(map(str, wires - set(range(n))))}")
    if cut is not None:
        at = next((i for i, op in enumerate(ops) if isinstance(op, qml.Barrier)), None)
        if at is None:
            raise _NoBarrier("the program has no qml.Barrier")
        if cut == "prefix":
            ops = ops[:at]
        else:
            paulis = {"x": qml.PauliX, "y": qml.PauliY, "z": qml.PauliZ}
            ops = ops[:at + 1] + [paulis[p](wires=q) for p, q in cut] + ops[at + 1:]
    # an identity on every measured wire at the end: PennyLane then records every
    # measurement on a new wire (else a wire measured last is its own record, left coherent)
    measured = list(dict.fromkeys(op.wires[0] for op in ops if isinstance(op, qml.ops.MidMeasure)))
    ends = [qml.Identity(wires=w) for w in measured]
    prep = qml.StatePrep(init.reshape(-1), wires=range(total))
    (deferred,), _ = qml.defer_measurements(qml.tape.QuantumScript([prep] + ops + ends, []))
    env = [w for w in deferred.wires if w not in range(total)]
    if total + len(env) > MAX_DEFERRED_QUBITS:
        raise _Unsupported(f"a deferred circuit of {total + len(env)} wires (over "
                           f"{MAX_DEFERRED_QUBITS})")
    device = qml.device("default.qubit", wires=list(range(total)) + env)
    (psi,) = qml.execute([qml.tape.QuantumScript(deferred.operations, [qml.state()])], device)
    out = np.asarray(psi, dtype=complex).reshape(2**total, 2 ** len(env)).T
    out = out[np.abs(out).max(axis=1) > 0]
    return out.reshape((len(out),) + (2,) * total)


def _exact(ctx, native, init: np.ndarray, cut=None) -> np.ndarray:
    """The program run exactly on `init` (an (2,)*N tensor, axis q = qubit q; qubits n..N-1
    are references the program does not touch): (B, 2, ..., 2) vectors whose projectors sum
    to the final density matrix.  `cut`: None, "prefix" (the program up to its first
    top-level barrier) or [(pauli, qubit)] (those errors inserted right after it)."""
    fw = ctx["framework"]
    if fw in ("qasm", "qiskit"):
        return _qiskit_exact(ctx, native, init, cut)
    if fw == "cirq":
        return _cirq_exact(ctx, native, init, cut)
    return _pennylane_exact(ctx, native, init, cut)


def _prepared(n: int, inputs: list[int], vectors: np.ndarray) -> np.ndarray:
    """sum_i |i>_refs |v_i>_inputs / sqrt(S) (every other qubit |0>): the S = vectors.shape[1]
    states (index bit j of a vector = value of inputs[j]) entangled with ceil(log2 S)
    reference qubits n, n+1, ... (bit j of i = reference n + j)."""
    count = vectors.shape[1]
    r = max(1, int(np.ceil(np.log2(count)))) if count > 1 else 0
    init = np.zeros((2,) * (n + r), dtype=complex)
    for i in range(count):
        for x in range(vectors.shape[0]):
            index = [0] * (n + r)
            for j, q in enumerate(inputs):
                index[q] = (x >> j) & 1
            for j in range(r):
                index[n + j] = (i >> j) & 1
            init[tuple(index)] += vectors[x, i] / np.sqrt(count)
    return init


def _group(states: np.ndarray, first: list[int], second: list[int]) -> np.ndarray:
    """(2^|first| * 2^|second|, rest) matrices stacked over the branches: row index
    = (a, b) with bit j of a the value of qubit first[j] and of b of second[j] (first
    major), columns every other qubit and the branch."""
    total = states.ndim - 1
    lead = [1 + q for q in reversed(first)] + [1 + q for q in reversed(second)]
    rest = [a for a in range(1, total + 1) if a not in lead]
    moved = states.transpose([0] + lead + rest).reshape(
        len(states), 2 ** (len(first) + len(second)), -1)
    return moved.transpose(1, 0, 2).reshape(2 ** (len(first) + len(second)), -1)


def _native_choi(ctx, native, inputs, outputs, cut=None) -> np.ndarray:
    """The Choi matrix J (output index o major, input x minor; bit j of o / x = value of
    outputs[j] / inputs[j]; every other qubit and every record traced out), from the
    program run natively on the maximally entangled state of the inputs and references."""
    n, d = ctx["width"], 2 ** len(inputs)
    states = _exact(ctx, native, _prepared(n, inputs, np.eye(d)), cut)
    refs = list(range(n, n + len(inputs)))
    v = _group(states, list(outputs), refs)
    return d * (v @ v.conj().T)


def truth_state(ctx, sources) -> Truth:
    """State fidelity with the target on the data qubits; declared ancillas must end
    in |0> ("clean") or are traced out ("free")."""
    spec = ctx["spec"]
    native = _native_builder(ctx, sources)()
    target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    ancillas = spec.get("ancillas") or []
    if _is_dynamic(ctx, native):
        try:
            fidelity = _dynamic_state_fidelity(ctx, native, target, ancillas)
        except _Mismatch as exc:
            return Truth("changing", str(exc))
        return _state_truth(ctx, native, fidelity, "state fidelity over every measurement branch")
    psi = _native_state(ctx, native)
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
    return _state_truth(ctx, native, fidelity, "state fidelity")


def _state_truth(ctx, native, fidelity: float, what: str) -> Truth:
    ok = fidelity >= 1 - th.STATE_FIDELITY_EPS
    protocol = ctx["spec"].get("protocol")
    broken = (_native_locality(protocol, _native_ops(ctx, native))
              if isinstance(protocol, dict) else None)
    if broken:
        return Truth("changing", f"protocol violation ({broken}); {what} {fidelity:.6f}")
    return _with_rules(ctx, native, Truth("equivalent" if ok else "changing",
                                             f"{what} {fidelity:.6f}"))


def _dynamic_state_fidelity(ctx, native, target, ancillas) -> float:
    """<target| rho |target> of the data qubits' final density matrix (framework's
    bitstring order), the program run natively over all its measurement branches: with
    "free" ancillas traced out, with "clean" ones the part where they all end in |0>."""
    n = ctx["width"]
    data = [q for q in range(n) if q not in ancillas]
    big_endian = ctx["framework"] in ("cirq", "pennylane")
    states = _exact(ctx, native, _prepared(n, [], np.ones((1, 1))))
    m = _group(states, data[::-1] if big_endian else data, list(ancillas))
    m = m.reshape(2 ** len(data), 2 ** len(ancillas), -1)
    if ctx["spec"].get("ancilla_policy", "clean") != "free":
        m = m[:, :1]
    overlap = np.einsum("a,abc->bc", np.asarray(target, dtype=complex).conj(), m)
    return float(np.sum(np.abs(overlap) ** 2))


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
    for name, qubits, u, *_ in ops:
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


def _native_structure(spec: dict, ops) -> str | None:
    """The rules of `judge.structure` beside the gate set, decided on the native
    operations: two-qubit operations only on coupled pairs, the two-qubit depth, and an
    operation conditioned on a bit measured before it (or, in a loop, inside it)."""
    gates = [(qubits, u) for _, qubits, u, what, _ in ops if what == "gate" and u is not None]
    if spec.get("coupling") is not None:
        pairs = {frozenset(p) for p in spec["coupling"]}
        far = [q for q, _ in gates if len(q) > 2 or (len(q) == 2 and frozenset(q) not in pairs)]
        if far:
            return f"an operation on qubits {far[0]} outside the coupling map"
    if spec.get("max_two_qubit_depth") is not None:
        level: dict = {}
        for qubits, _ in gates:
            if len(qubits) >= 2:
                d = 1 + max(level.get(q, 0) for q in qubits)
                level.update((q, d) for q in qubits)
        if max(level.values(), default=0) > spec["max_two_qubit_depth"]:
            return f"two-qubit depth {max(level.values())} over {spec['max_two_qubit_depth']}"
    if spec.get("feed_forward") == "required":
        measured, live = set(), False
        for i, (_, _, _, what, bits) in enumerate(ops):
            if what == "measure":
                measured.update(map(repr, bits))
            elif what == "begin":
                depth, inside = 0, []
                for later in ops[i + 1:]:
                    depth += {"begin": 1, "end": -1}.get(later[3], 0)
                    if depth < 0:
                        break
                    inside.append(later)
                written = measured | {repr(b) for o in inside if o[3] == "measure" for b in o[4]}
                live = live or (bool(written.intersection(map(repr, bits)))
                                and any(o[3] not in ("barrier", "begin", "end") for o in inside))
        if not live:
            return "no operation conditioned on a measured bit (feed-forward required)"
    return None


def _with_rules(ctx, native, truth: Truth) -> Truth:
    """A truth made "changing" when a rule the task states beside its check (a gate set,
    judge.gateset; a coupling map, a two-qubit depth, feed-forward: judge.structure) is
    broken by the native program."""
    spec = ctx["spec"]
    if truth.status != "equivalent" or not any(
            spec.get(k) is not None for k in ("gate_set", "coupling", "max_two_qubit_depth", "feed_forward")):
        return truth
    ops = _native_ops(ctx, native)
    broken = (_native_gate_set(spec["gate_set"], ops) if spec.get("gate_set") else None) \
        or _native_structure(spec, ops)
    return Truth("changing", f"{broken}; {truth.detail}") if broken else truth


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
    return _with_rules(ctx, native, Truth("equivalent" if ok else "changing",
                                             f"process fidelity {fidelity:.6f}"))


def truth_unitary_pattern(ctx, sources) -> Truth:
    """Equivalent iff the native unitary has the target's pattern of zero and nonzero
    entries (magnitude < the spec's tolerance, default UNITARY_PATTERN_TOL, is zero)."""
    native = _native_builder(ctx, sources)()
    u = _native_unitary(ctx, native)
    pattern = np.asarray(ctx["problem"].target_for(ctx["params"], ctx["framework"])) != 0
    if u.shape != pattern.shape:
        return Truth("changing", f"unitary of dimension {u.shape[0]}, pattern {pattern.shape[0]}")
    tolerance = float(ctx["spec"].get("tolerance", th.UNITARY_PATTERN_TOL))
    wrong = int(((np.abs(u) >= tolerance) != pattern).sum())
    return _with_rules(ctx, native, Truth("equivalent" if not wrong else "changing",
                                             f"{wrong} entries off the pattern"))


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
def _native_ops(ctx, native) -> list[tuple]:
    """The circuit's operations in order, classical control flattened: (name, qubits,
    matrix big-endian over the qubits or None, what, bits) by the framework's own objects
    (Qiskit `Operator`, `cirq.unitary`, `qml.matrix`).  `what` is "gate", "measure" (bits:
    the bits it writes), "reset", "barrier", or "begin" / "end" around the operations of
    a block conditioned on measured bits (bits: the bits its condition reads).  A bit is
    named by the framework: a Qiskit clbit index, a Cirq (key, qubit position), a
    PennyLane mid-circuit measurement."""
    fw = ctx["framework"]
    out = []
    if fw in ("qasm", "qiskit"):
        from qiskit.circuit import ControlFlowOp
        from qiskit.quantum_info import Operator

        def walk(circuit, qmap, cmap):
            for inst in circuit.data:
                qubits = [qmap[q] for q in inst.qubits]
                op, name = inst.operation, inst.operation.name
                if isinstance(op, ControlFlowOp):
                    out.append((name, [], None, "begin", sorted(_qiskit_condition_bits(op, cmap))))
                    for block in op.blocks:
                        if block is not None:
                            walk(block, dict(zip(block.qubits, qubits)),
                                 {**cmap, **{b: cmap[c] for b, c in zip(block.clbits, inst.clbits)}})
                    out.append((name, [], None, "end", []))
                elif name == "measure":
                    out.append((name, qubits, None, "measure", [cmap[c] for c in inst.clbits]))
                elif name in ("barrier", "delay"):
                    out.append((name, qubits, None, "barrier", []))
                elif name == "reset":
                    out.append((name, qubits, None, "reset", []))
                else:
                    rev = _reverse_bits(len(qubits))   # Qiskit matrices are little-endian over qargs
                    out.append((name, qubits, np.asarray(Operator(op).data)[np.ix_(rev, rev)],
                                "gate", []))

        walk(native, {q: i for i, q in enumerate(native.qubits)},
             {c: i for i, c in enumerate(native.clbits)})
        return out
    if fw == "cirq":
        import cirq

        widths = {}

        def add(op):
            qubits = [q.x for q in op.qubits]
            if op.classical_controls:
                keys = sorted({str(k) for c in op.classical_controls for k in c.keys})
                out.append(("if", [], None, "begin",
                            [(k, j) for k in keys for j in range(widths.get(k, 1))]))
                add(op.without_classical_controls())
                out.append(("if", [], None, "end", []))
            elif cirq.is_measurement(op):
                key = cirq.measurement_key_name(op)
                widths[key] = len(qubits)
                out.append(("measure", qubits, None, "measure", [(key, j) for j in range(len(qubits))]))
            elif isinstance(op.gate, cirq.ResetChannel):
                out.append(("reset", qubits, None, "reset", []))
            elif "barrier" in op.tags:
                out.append(("barrier", qubits, None, "barrier", []))
            elif qubits:
                out.append((str(op.gate or op), qubits, cirq.unitary(op), "gate", []))

        for op in cirq.unroll_circuit_op(native, deep=True, tags_to_check=None).all_operations():
            add(op)
        return out
    import pennylane as qml

    for op in qml.tape.make_qscript(native)().operations:
        wires = [int(w) for w in op.wires]
        if isinstance(op, qml.ops.MidMeasure):
            out.append(("measure", wires, None, "measure", [id(op)]))
            if op.reset:
                out.append(("reset", wires, None, "reset", []))
        elif isinstance(op, qml.ops.Conditional):
            out.append(("cond", [], None, "begin", [id(m) for m in op.meas_val.measurements]))
            out.append((op.base.name, wires, np.asarray(qml.matrix(op.base, wire_order=op.base.wires)),
                        "gate", []))
            out.append(("cond", [], None, "end", []))
        elif isinstance(op, qml.Barrier):
            out.append(("Barrier", wires, None, "barrier", []))
        elif wires:
            out.append((op.name, wires, np.asarray(qml.matrix(op, wire_order=op.wires)), "gate", []))
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
    that commute with Z on them.  Feed-forward: a measured bit belongs to the party
    holding its qubit when measured; an operation conditioned on bits is applied by a
    party that can hold its qubits and receives (over an allowed classical channel)
    every bit of another party it depends on.  Returns the first violation."""
    owners = protocol["owners"]
    channels = {tuple(c) for c in protocol.get("classical", ())}
    parties = []
    for seq in owners:
        parties += [p for p in seq if p not in parties]
    at = [0] * len(owners)
    sent = set()
    bit_party, blocks = {}, []

    def slot(q, party):
        return owners[q].index(party) if party in owners[q][at[q]:] else None

    def conditioned(qubits, senders, name):
        for party in parties:
            slots = {q: slot(q, party) for q in qubits}
            if None in slots.values() or any((s, party) not in channels for s in senders - {party}):
                continue
            for q, s in slots.items():
                at[q] = s
            return None
        return f"{name} on {qubits} is conditioned on bits of {sorted(senders)} no holder receives"

    for name, qubits, u, what, bits in ops:
        if what == "begin":
            blocks.append({bit_party[b] for b in bits if b in bit_party})
            continue
        if what == "end":
            blocks.pop()
            continue
        senders = set().union(*blocks)
        if what == "measure":
            for q, b in zip(qubits, bits):
                bit_party[b] = owners[q][at[q]]
        if u is None:
            broken = (conditioned(qubits[:1], senders, name)
                      if qubits and senders and what != "barrier" else None)
            if broken:
                return broken
            continue
        keeps = {q: _keeps_z(u, j) for j, q in enumerate(qubits)}
        if any(q in sent and not keeps[q] for q in qubits):
            return f"{name} on {qubits} changes a qubit sent as a classical control"
        if len(qubits) >= 2:
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
        if senders:
            broken = conditioned(qubits, senders, name)
            if broken:
                return broken
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
    if spec["mode"] == "channel" or _is_dynamic(ctx, native):
        return _truth_channel_exact(ctx, native, inputs, outputs)
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
            worst = max(worst, _tvd(want, dist))
        ok, detail = worst <= th.DISTRIBUTION_TVD_EPS, f"largest TVD over inputs {worst:.6f}"
    return _with_protocol(ctx, spec, native, ok, detail)


def _identity_fidelity(j: np.ndarray, d: int) -> float:
    """<Phi| J |Phi> / d^2 with Phi = sum_x |x>_out |x>_in (Choi index o * d + x)."""
    index = [x * d + x for x in range(d)]
    return float(np.real(j[np.ix_(index, index)].sum())) / d**2


def _truth_channel_exact(ctx, native, inputs, outputs) -> Truth:
    """The channel of a dynamic program (or any program, mode "channel") from its native
    Choi matrix: the identity (entanglement fidelity), the target distributions of basis
    inputs (its diagonal), or the target channel (trace distance of the Choi states)."""
    spec, d = ctx["spec"], 2 ** len(inputs)
    try:
        j = _native_choi(ctx, native, inputs, outputs)
    except _Mismatch as exc:
        return Truth("changing", str(exc))
    if spec["mode"] == "quantum":
        fidelity = _identity_fidelity(j, d) if len(outputs) == len(inputs) else 0.0
        ok, detail = fidelity >= 1 - th.PROCESS_FIDELITY_EPS, f"entanglement fidelity {fidelity:.6f}"
    elif spec["mode"] == "channel":
        target = np.asarray(ctx["problem"].target_for(ctx["params"], ctx["framework"]), dtype=complex)
        if target.shape != j.shape:
            return Truth("changing", f"Choi matrix of shape {j.shape}, target {target.shape}")
        diff = (j - target) / d
        trace = 0.5 * float(np.abs(np.linalg.eigvalsh((diff + diff.conj().T) / 2)).sum())
        ok, detail = trace <= th.CHANNEL_TRACE_EPS, f"Choi trace distance {trace:.3g}"
    else:
        target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
        probs = np.real(np.diag(j)).reshape(2 ** len(outputs), d)   # P(o | x)
        worst = 0.0
        for x in range(d):
            want = target["".join(str((x >> i) & 1) for i in range(len(inputs)))]
            have = {"".join(str((o >> i) & 1) for i in range(len(outputs))): float(probs[o, x])
                    for o in range(2 ** len(outputs))}
            worst = max(worst, _tvd(want, have))
        ok, detail = worst <= th.DISTRIBUTION_TVD_EPS, f"largest TVD over inputs {worst:.6f}"
    return _with_protocol(ctx, spec, native, ok, detail)


def _tvd(want: dict, have: dict) -> float:
    return 0.5 * sum(abs(want.get(k, 0.0) - have.get(k, 0.0)) for k in set(want) | set(have))


def _with_protocol(ctx, spec, native, ok: bool, detail: str) -> Truth:
    """The channel's truth, unless the parties' locality or a stated rule is broken natively."""
    broken = _native_locality(spec["protocol"], _native_ops(ctx, native)) if spec.get("protocol") else None
    if broken:
        return Truth("changing", f"protocol violation ({broken}); {detail}")
    return _with_rules(ctx, native, Truth("equivalent" if ok else "changing", detail))


def truth_classical_answer(ctx, sources) -> Truth:
    """The rule of judge/kinds/classical_answer.py, natively: each of the task's states
    prepared on the inputs (all of them at once, entangled with reference qubits), the
    program run over all its measurement branches, the answer read from the answer qubits
    (bit i = answer_qubits[i]) at the end; the prior-weighted probability of the right
    answer must reach the optimum within CLASSICAL_ANSWER_EPS (unambiguous tasks: and a
    wrong answer's probability stay within it)."""
    spec, n = ctx["spec"], ctx["width"]
    target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    native = _native_builder(ctx, sources)()
    vectors = np.array(target["states"], dtype=complex).T
    count = vectors.shape[1]
    try:
        states = _exact(ctx, native, _prepared(n, list(spec["inputs"]), vectors))
    except _Mismatch as exc:
        return Truth("changing", str(exc))
    refs = list(range(n, states.ndim - 1))
    v = _group(states, list(spec["answer_qubits"]), refs)
    probs = (count * np.sum(np.abs(v) ** 2, axis=1)).reshape(-1, 2 ** len(refs))[:, :count]
    priors = np.asarray(target["priors"], dtype=float)
    right = np.array([probs[a, i] for i, a in enumerate(target["answers"])])
    success, optimum = float(priors @ right), float(target["optimum"])
    detail = f"P(right answer) {success:.9f} (optimum {optimum:.9f})"
    ok = success >= optimum - th.CLASSICAL_ANSWER_EPS
    if target.get("unambiguous"):
        wrong = float(priors @ (1 - right - probs[target["inconclusive"], :]))
        ok = ok and wrong <= th.CLASSICAL_ANSWER_EPS
        detail += f", P(wrong answer) {wrong:.3g}"
    return _with_rules(ctx, native, Truth("equivalent" if ok else "changing", detail))


def truth_game(ctx, sources) -> Truth:
    """The rule of judge/kinds/game.py, natively: every allowed question prepared on the
    question qubits (all at once, entangled with reference qubits), the program run over
    all its measurement branches, the answers read from the answer qubits (bit j =
    outputs[j]); the uniform average of the winning probability must reach `min_win`, and
    the players' locality hold."""
    spec, n = ctx["spec"], ctx["width"]
    table = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    keys = sorted(table)
    inputs, outputs = list(spec["inputs"]), list(spec["outputs"])
    xs = [sum(int(c) << j for j, c in enumerate(key)) for key in keys]
    vectors = np.eye(2 ** len(inputs), dtype=complex)[:, xs]
    native = _native_builder(ctx, sources)()
    count = len(keys)
    try:
        states = _exact(ctx, native, _prepared(n, inputs, vectors))
    except _Mismatch as exc:
        return Truth("changing", str(exc))
    refs = list(range(n, states.ndim - 1))
    v = _group(states, outputs, refs)
    probs = (count * np.sum(np.abs(v) ** 2, axis=1)).reshape(-1, 2 ** len(refs))[:, :count]
    win = float(np.mean([sum(probs[sum(int(c) << j for j, c in enumerate(out)), i]
                             for out in table[key]) for i, key in enumerate(keys)]))
    ok = win >= float(spec["min_win"])
    return _with_protocol(ctx, spec, native, ok, f"win probability {win:.9f} (bound {spec['min_win']:.9f})")


def truth_success_probability(ctx, sources) -> Truth:
    """The rule of judge/kinds/success_probability.py, natively: the program run exactly
    from |0...0> over all its measurement branches, the answer read from the answer
    qubits (bit i = answer_qubits[i]) at the end; the probability that it is one of the
    accepted answers must be at least min_success."""
    spec, n = ctx["spec"], ctx["width"]
    target = ctx["problem"].target_for(ctx["params"], ctx["framework"])
    native = _native_builder(ctx, sources)()
    try:
        states = _exact(ctx, native, _prepared(n, [], np.ones((1, 1), dtype=complex)))
    except _Mismatch as exc:
        return Truth("changing", str(exc))
    v = _group(states, list(spec["answer_qubits"]), [])
    probs = np.sum(np.abs(v) ** 2, axis=1)
    success = float(sum(probs[int(a)] for a in set(target["accepted"])))
    bound = float(spec["min_success"])
    ok = success >= bound
    detail = f"P(accepted answer) {success:.9f} (bound {bound:g})"
    return _with_rules(ctx, native, Truth("equivalent" if ok else "changing", detail))


def truth_code_correction(ctx, sources) -> Truth:
    """The rule of judge/kinds/code_correction.py, natively: at the program's first
    top-level barrier every qubit outside `data` is |0> (probability of 1 at most
    PROCESS_FIDELITY_EPS, averaged over the basis inputs); for no error and every error of
    the spec, inserted right after that barrier, the logical channel inputs -> outputs
    (the native Choi matrix, every measurement branch) is the identity: entanglement
    fidelity >= 1 - PROCESS_FIDELITY_EPS."""
    spec, n = ctx["spec"], ctx["width"]
    inputs, outputs = list(spec["inputs"]), list(spec["outputs"])
    d = 2 ** len(inputs)
    native = _native_builder(ctx, sources)()
    try:
        before = _exact(ctx, native, _prepared(n, inputs, np.eye(d)), cut="prefix")
        for q in range(n):
            excited = float(np.sum(np.abs(before.take(1, axis=1 + q)) ** 2))
            if q not in spec["data"] and excited > th.PROCESS_FIDELITY_EPS:
                return Truth("changing", f"qubit {q} is |1> with probability {excited:.3g} "
                                         "where errors strike")
        worst, worst_error = 1.0, None
        for error in [[], *spec["errors"]]:
            cut = [(e["pauli"], e["qubit"]) for e in error]
            j = _native_choi(ctx, native, inputs, outputs, cut=cut)
            fidelity = _identity_fidelity(j, d) if len(outputs) == len(inputs) else 0.0
            if worst_error is None or fidelity < worst:
                worst, worst_error = fidelity, cut
    except (_Mismatch, _NoBarrier) as exc:
        return Truth("changing", str(exc))
    ok = worst >= 1 - th.PROCESS_FIDELITY_EPS
    return Truth("equivalent" if ok else "changing",
                 f"worst entanglement fidelity {worst:.6f} (error {worst_error or 'none'})")


def _noise_diagonal(n: int, draw: dict, big_endian: bool) -> np.ndarray:
    """exp(-i H) of one noise draw of an idle_noise spec, as the diagonal of a matrix over
    qubits 0..n-1 in the framework's bitstring basis (big-endian: qubit 0 the most
    significant bit of the index, Cirq / PennyLane; else qubit 0 the least, Qiskit)."""
    def z(q: int, i: int) -> int:
        return 1 - 2 * ((i >> (n - 1 - q if big_endian else q)) & 1)

    energies = [sum(t * z(q, i) for q, t in enumerate(draw["detunings"]))
                + sum(j * z(a, i) * z(b, i) for a, b, j in draw.get("crosstalk", []))
                for i in range(2**n)]
    return np.exp(-1j * np.array(energies, dtype=float))


class _NotUnitary(Exception):
    """idle_noise: the program measures, resets or conditions operations on bits."""


def _qiskit_idle_noise(ctx, qc, draw):
    """(the unitary with the noise after every top-level barrier, barriers): the
    circuit's instructions copied into a new circuit (for loops unrolled, boxes inlined)
    with exp(-iH) as a `UnitaryGate` of its diagonal matrix after each barrier, then
    `Operator`."""
    from qiskit import QuantumCircuit
    from qiskit.circuit import ControlFlowOp
    from qiskit.circuit.library import UnitaryGate
    from qiskit.quantum_info import Operator

    n = ctx["width"]
    if qc.num_qubits != n:
        raise _Mismatch(f"a circuit of {qc.num_qubits} qubits, the task has {n}")
    out = QuantumCircuit(n)
    # Qiskit matrices are little-endian over the qargs: qarg j = qubit j, index bit j
    noise = UnitaryGate(np.diag(_noise_diagonal(n, draw, big_endian=False)), label="noise")
    barriers = 0

    def copy(circuit, qmap):
        nonlocal barriers
        for inst in circuit.data:
            op, qubits = inst.operation, [qmap[q] for q in inst.qubits]
            if op.name == "for_loop":
                indexset, param, body = op.params
                for value in indexset:
                    block = body.assign_parameters({param: value}) if param is not None else body
                    copy(block, dict(zip(block.qubits, qubits)))
            elif op.name == "box":
                copy(op.blocks[0], dict(zip(op.blocks[0].qubits, qubits)))
            elif isinstance(op, ControlFlowOp) or op.name in ("measure", "reset"):
                raise _NotUnitary(f"a {op.name} instruction")
            elif op.name == "barrier":
                barriers += 1
                out.append(noise, list(range(n)))
            elif op.name != "delay":
                out.append(op, qubits)

    copy(qc, {q: i for i, q in enumerate(qc.qubits)})
    return np.asarray(Operator(out).data), barriers


def _cirq_idle_noise(ctx, circuit, draw):
    """The Cirq circuit (sub-circuits unrolled) with a `cirq.DiagonalGate` of exp(-iH) on
    LineQubit.range(n) after every operation tagged "barrier", then `cirq.unitary`."""
    import cirq

    n = ctx["width"]
    line = cirq.LineQubit.range(n)
    circuit = _cirq_unrolled(circuit, line)
    angles = np.angle(_noise_diagonal(n, draw, big_endian=True))   # diag(exp(i angles))
    noise = cirq.DiagonalGate(list(angles)).on(*line)
    ops, barriers = [], 0
    for op in circuit.all_operations():
        if op.classical_controls or cirq.is_measurement(op) or isinstance(op.gate, cirq.ResetChannel):
            raise _NotUnitary(f"the operation {op}")
        ops.append(op)
        if "barrier" in op.tags:
            barriers += 1
            ops.append(noise)
    # one moment per operation: the order of the program, whatever the moments' packing
    unitary = cirq.Circuit(cirq.Moment(op) for op in ops).unitary(
        qubit_order=line, dtype=np.complex128)
    return np.asarray(unitary), barriers


def _pennylane_idle_noise(ctx, native, draw):
    """The recorded tape with a `qml.DiagonalQubitUnitary` of exp(-iH) on wires 0..n-1
    after every `qml.Barrier`, then `qml.matrix`."""
    import pennylane as qml

    n = ctx["width"]
    ops = list(qml.tape.make_qscript(native)().operations)
    wires = {w for op in ops for w in op.wires}
    if not wires <= set(range(n)):
        raise _Mismatch(f"wires outside 0..{n - 1}: {sorted(map(str, wires - set(range(n))))}")
    diagonal = _noise_diagonal(n, draw, big_endian=True)
    noisy, barriers = [], 0
    for op in ops:
        if isinstance(op, (qml.ops.MidMeasure, qml.ops.Conditional)):
            raise _NotUnitary(f"the operation {op.name}")
        noisy.append(op)
        if isinstance(op, qml.Barrier):
            barriers += 1
            noisy.append(qml.DiagonalQubitUnitary(diagonal, wires=range(n)))
    tape = qml.tape.QuantumScript(noisy, [])
    return np.asarray(qml.matrix(tape, wire_order=list(range(n)))), barriers


def truth_idle_noise(ctx, sources) -> Truth:
    """The rule of judge/kinds/idle_noise.py, natively: no measurement, reset or classical
    control, exactly `windows` barriers, and for every noise draw of the spec the native
    circuit with exp(-iH) inserted natively after every top-level barrier (Qiskit
    `UnitaryGate` and `Operator`, `cirq.DiagonalGate` and `cirq.unitary`,
    `qml.DiagonalQubitUnitary` and `qml.matrix`) is the target up to global phase:
    process fidelity >= 1 - PROCESS_FIDELITY_EPS."""
    spec, fw = ctx["spec"], ctx["framework"]
    native = _native_builder(ctx, sources)()
    target = np.asarray(ctx["problem"].target_for(ctx["params"], fw), dtype=complex)
    run = {"qasm": _qiskit_idle_noise, "qiskit": _qiskit_idle_noise, "cirq": _cirq_idle_noise,
           "pennylane": _pennylane_idle_noise}[fw]
    worst = 1.0
    try:
        for draw in spec["noise"]:
            u, barriers = run(ctx, native, draw)
            if barriers != spec["windows"]:
                return Truth("changing", f"{barriers} barriers, the task has {spec['windows']} "
                                         "idle windows")
            if u.shape != target.shape:
                return Truth("changing", f"unitary of dimension {u.shape[0]}, target "
                                         f"{target.shape[0]}")
            worst = min(worst, float(abs(np.trace(target.conj().T @ u) / u.shape[0]) ** 2))
    except (_Mismatch, _NotUnitary) as exc:
        return Truth("changing", f"not a unitary pulse sequence on the register: {exc}")
    ok = worst >= 1 - th.PROCESS_FIDELITY_EPS
    return Truth("equivalent" if ok else "changing",
                 f"worst process fidelity over {len(spec['noise'])} noise draws {worst:.6f}")


def truth_repair(ctx, sources) -> Truth:
    """A fixed program: the ground truth of its declared equivalence kind."""
    return GROUND_TRUTH[ctx["spec"]["equivalence"]](ctx, sources)


# Ground truth by check kind: a new kind adds its entry (CONTRIBUTING.md, "Add a check kind").
GROUND_TRUTH = {"state": truth_state, "unitary": truth_unitary, "algorithm": truth_algorithm,
                "distribution": truth_distribution, "variational": truth_variational,
                "channel": truth_channel, "classifier": truth_classifier, "repair": truth_repair,
                "classical_answer": truth_classical_answer, "code_correction": truth_code_correction,
                "idle_noise": truth_idle_noise, "unitary_pattern": truth_unitary_pattern,
                "game": truth_game, "success_probability": truth_success_probability}


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
