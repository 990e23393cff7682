"""Exact simulation of dynamic circuits: mid-circuit measurement, reset and classical
control (wire ops "measure", "reset", "if", "while"), without shots.

A program maps each input state to a set of branches, one per sequence of measurement
(and reset) outcomes: branch b applies the Kraus operator K_b of that sequence, and
|K_b x|^2 is the probability of the sequence on input x.  `run` evolves a batch of input
columns x together, so the branches it returns are the program's Kraus operators applied
to every input: enough for the exact channel (its Choi matrix, `choi`), the exact
distribution of the classical bits per input (`distributions`) and the probability of
any classical answer.  A branch splits only where a measurement has two possible
outcomes; `if` selects branches by their bits; `while` repeats its body on the branches
whose bits still satisfy its condition.

Limits (thresholds: BRANCH_PRUNE_EPS, MAX_BRANCHES, MAX_BRANCH_AMPLITUDES,
WHILE_TAIL_EPS, MAX_WHILE_PASSES): a branch of probability below BRANCH_PRUNE_EPS (over
the inputs) is dropped and its mass added to `Branches.dropped`, which every check adds to
its tolerance; a program that needs more branches or amplitudes, or a loop still running
after MAX_WHILE_PASSES, raises `BranchLimit` (a wire.SizeLimitError: verdict
resource_limit) before the memory is allocated.  Gates are applied by judge.simulate (fused,
charged to the sample's budget, norm-checked); measurement, reset and selection are
charged here.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import simulate
from lm_eval_quantum.runtime import wire


class BranchLimit(wire.SizeLimitError):
    """The program branches, loops or grows past the judge's limits (resource_limit)."""


@dataclass
class Branches:
    """`states[:, b * X + x]` is K_b applied to input column x (2^n rows, little-endian);
    `records[b]` the classical bits of branch b (uint8, one column per clbit)."""
    states: np.ndarray
    records: np.ndarray
    inputs: int
    num_qubits: int
    dropped: float = 0.0        # probability mass dropped (pruned branches, loop tails)

    @property
    def count(self) -> int:
        return self.records.shape[0]

    def probabilities(self) -> np.ndarray:
        """(B, X): the probability of each branch on each input."""
        n = self.states.shape[0]
        return (np.abs(self.states) ** 2).reshape(n, self.count, self.inputs).sum(axis=0)


# --- the program as a tree of blocks -------------------------------------------------------
def _tree(ops: list, start: int, end: int, oracle, cache: dict) -> list:
    """Items of ops[start:end]: ("gates", [(kind, qubits, data)]), ("measure", qubits,
    clbits), ("reset", qubits), ("if", clbits, value, then, else), ("while", clbits, value,
    body).  The wire check bounds the nesting (WIRE_MAX_DEPTH)."""
    items, index = [], start
    while index < end:
        op = ops[index]
        kind = wire.op_kind(op)
        index += 1
        if kind == "barrier":
            continue
        if kind in ("gate", "matrix", "oracle"):
            if kind == "oracle":
                width = len(op["qubits"])
                if width not in cache:
                    cache[width] = simulate._check_oracle(oracle, width)
                gate = ("oracle", list(op["qubits"]), cache[width])
            else:
                gate = ("u", list(op["qubits"]), simulate.gate_matrix(op))
            if items and items[-1][0] == "gates":
                items[-1][1].append(gate)
            else:
                items.append(("gates", [gate]))
        elif kind == "measure":
            items.append(("measure", list(op["qubits"]), list(op["clbits"])))
        elif kind == "reset":
            items.append(("reset", list(op["qubits"])))
        elif kind == "if":
            then_end = index + op["then"]
            items.append(("if", list(op["clbits"]), op["value"],
                          _tree(ops, index, then_end, oracle, cache),
                          _tree(ops, then_end, then_end + op["else"], oracle, cache)))
            index = then_end + op["else"]
        elif kind == "while":
            items.append(("while", list(op["clbits"]), op["value"],
                          _tree(ops, index, index + op["body"], oracle, cache)))
            index += op["body"]
    return items


# --- the branch operations -----------------------------------------------------------------
def _charge(br: Branches, factor: float, what: str) -> None:
    budget = simulate.current_budget() or simulate.Budget()
    budget.charge(factor * br.states.size + simulate._OP_WORK, what)


def _check_size(branches: int, br: Branches) -> None:
    if branches > th.MAX_BRANCHES or branches * br.inputs * br.states.shape[0] > th.MAX_BRANCH_AMPLITUDES:
        raise BranchLimit(
            f"resource limit: the program branches into {branches} measurement outcomes "
            f"({branches * br.inputs * br.states.shape[0]:.3g} amplitudes); the judge follows at "
            f"most {th.MAX_BRANCHES} branches and {th.MAX_BRANCH_AMPLITUDES:.3g} amplitudes")


def _select(br: Branches, keep: np.ndarray) -> Branches:
    n, x = br.states.shape[0], br.inputs
    states = br.states.reshape(n, br.count, x)[:, keep, :].reshape(n, -1)
    return Branches(np.ascontiguousarray(states), br.records[keep], x, br.num_qubits, 0.0)


def _join(parts: list[Branches], like: Branches) -> Branches:
    parts = [p for p in parts if p.count]
    if not parts:
        return Branches(np.zeros((like.states.shape[0], 0), dtype=complex),
                        np.zeros((0, like.records.shape[1]), dtype=np.uint8),
                        like.inputs, like.num_qubits, 0.0)
    return Branches(np.ascontiguousarray(np.hstack([p.states for p in parts])),
                    np.vstack([p.records for p in parts]), like.inputs, like.num_qubits, 0.0)


def _split(br: Branches, qubit: int, clbit: int | None, reset: bool) -> Branches:
    """Measure `qubit` on every branch: each splits into its two outcomes (the branches
    of an impossible outcome are pruned); the outcome goes to `clbit` (None: not
    recorded) and, for a reset, the qubit is set back to |0>."""
    n = br.num_qubits
    _check_size(2 * br.count, br)
    _charge(br, 4.0, f"measuring qubit {qubit} on {br.count} branches")
    view = br.states.reshape(2 ** (n - 1 - qubit), 2, 2**qubit, br.count, br.inputs)
    zero = np.zeros_like(view)
    one = np.zeros_like(view)
    zero[:, 0] = view[:, 0]
    if reset:
        one[:, 0] = view[:, 1]
    else:
        one[:, 1] = view[:, 1]
    p0 = (np.abs(view[:, 0]) ** 2).sum(axis=(0, 1, 3))
    p1 = (np.abs(view[:, 1]) ** 2).sum(axis=(0, 1, 3))
    keep0, keep1 = p0 > th.BRANCH_PRUNE_EPS, p1 > th.BRANCH_PRUNE_EPS
    records0, records1 = br.records[keep0].copy(), br.records[keep1].copy()
    if clbit is not None:
        records0[:, clbit], records1[:, clbit] = 0, 1
    rows = br.states.shape[0]
    states = np.hstack([zero.reshape(rows, br.count, br.inputs)[:, keep0].reshape(rows, -1),
                        one.reshape(rows, br.count, br.inputs)[:, keep1].reshape(rows, -1)])
    dropped = br.dropped + float(p0[~keep0].sum() + p1[~keep1].sum()) / br.inputs
    return Branches(np.ascontiguousarray(states), np.vstack([records0, records1]),
                    br.inputs, n, dropped)


def _holds(br: Branches, clbits: list[int], value: int) -> np.ndarray:
    want = np.array([(value >> i) & 1 for i in range(len(clbits))], dtype=np.uint8)
    return np.all(br.records[:, clbits] == want, axis=1)


def _run(items: list, br: Branches) -> Branches:
    for item in items:
        if not br.count:
            return br
        kind = item[0]
        if kind == "gates":
            br.states = simulate._apply(br.states, br.num_qubits, item[1])
        elif kind in ("measure", "reset"):
            clbits = item[2] if kind == "measure" else [None] * len(item[1])
            for qubit, clbit in zip(item[1], clbits):
                br = _split(br, qubit, clbit, kind == "reset")
        elif kind == "if":
            mask = _holds(br, item[1], item[2])
            dropped = br.dropped
            then = _run(item[3], _select(br, mask))
            other = _run(item[4], _select(br, ~mask))
            br = _join([then, other], br)
            br.dropped = dropped + then.dropped + other.dropped
        else:   # while
            done, dropped = [], br.dropped
            for _ in range(th.MAX_WHILE_PASSES):
                mask = _holds(br, item[1], item[2])
                done.append(_select(br, ~mask))
                inside = _select(br, mask)
                left = float(inside.probabilities().sum()) / br.inputs
                if left <= th.WHILE_TAIL_EPS:
                    dropped += left
                    break
                br = _run(item[3], inside)
                dropped += br.dropped
                br.dropped = 0.0
            else:
                raise BranchLimit(
                    f"resource limit: a while loop is still running after {th.MAX_WHILE_PASSES} "
                    f"passes with probability {left:.3g}; the judge follows at most "
                    f"{th.MAX_WHILE_PASSES} passes")
            br = _join(done, br)
            br.dropped = dropped
    return br


def run(circuit: dict, columns: np.ndarray, oracle=None) -> Branches:
    """The branches of a (validated or untrusted) circuit on each input column of a
    (2^n, X) array (little-endian rows, like judge.simulate)."""
    circuit = simulate._checked(circuit, th.MAX_STATE_QUBITS)
    if circuit["num_qubits"] > th.MAX_QUBITS_OTHER_KINDS:   # branches are not sized for more
        raise simulate.JudgeBudgetExceeded(
            f"a program with mid-circuit measurement, reset or classical control is simulated "
            f"on at most {th.MAX_QUBITS_OTHER_KINDS} qubits; this one has {circuit['num_qubits']}")
    n, nc = circuit["num_qubits"], circuit.get("num_clbits", 0)
    columns = np.array(columns, dtype=complex, order="C")
    if columns.ndim != 2 or columns.shape[0] != 2**n:
        raise simulate.SimulationError(f"input states must have {2**n} amplitudes")
    br = Branches(columns, np.zeros((1, nc), dtype=np.uint8), columns.shape[1], n)
    _check_size(1, br)
    items = _tree(circuit["ops"], 0, len(circuit["ops"]), oracle, {})
    return _run(items, br)


# --- what a check reads --------------------------------------------------------------------
def distributions(br: Branches, clbits: list[int] | None = None) -> list[dict[str, float]]:
    """Per input column, the exact distribution of the classical bits `clbits` (default:
    all, clbit 0 first), keys as strings of '0'/'1'."""
    clbits = list(range(br.records.shape[1])) if clbits is None else clbits
    probs = br.probabilities()
    keys = ["".join("01"[int(b)] for b in row) for row in br.records[:, clbits]]
    out = []
    for x in range(br.inputs):
        dist: dict[str, float] = {}
        for key, p in zip(keys, probs[:, x]):
            dist[key] = dist.get(key, 0.0) + float(p)
        out.append(dist)
    return out


def choi(br: Branches, outputs: list[int]) -> np.ndarray:
    """The (unnormalised) Choi matrix J = sum_b sum_a |v_ba><v_ba| of the channel from the
    input columns to the qubits `outputs` (every other qubit and the classical record
    traced out): v_ba[o, x] = <o|_outputs <a|_rest K_b |x>, flattened with the output index
    o (bit j = value of outputs[j]) major and the input column x minor."""
    vecs = choi_vectors(br, outputs)
    return vecs.T @ vecs.conj()


def choi_vectors(br: Branches, outputs: list[int]) -> np.ndarray:
    """The vectors v_ba of `choi`, one per row, those of zero norm left out."""
    n, x = br.num_qubits, br.inputs
    rest = [q for q in range(n) if q not in outputs]
    # axes of (2,)*n in C order are qubits n-1 .. 0; bring outputs (bit j -> outputs[j],
    # most significant last) then rest to the front
    order = [n - 1 - q for q in reversed(outputs)] + [n - 1 - q for q in reversed(rest)]
    tensor = br.states.reshape((2,) * n + (br.count, x))
    moved = np.transpose(tensor, order + [n, n + 1])
    k = len(outputs)
    # v[o, a, b, x] -> vectors over (o, x) for each (a, b)
    v = moved.reshape(2**k, 2 ** (n - k), br.count, x)
    vecs = np.transpose(v, (1, 2, 0, 3)).reshape(-1, 2**k * x)
    return vecs[np.any(vecs != 0, axis=1)]


def input_columns(n: int, inputs: list[int], vectors: np.ndarray | None = None) -> np.ndarray:
    """(2^n, X) input columns: the states `vectors[:, x]` over the qubits `inputs` (index
    bit j = value of inputs[j]; default: every basis state, X = 2^len(inputs)), every other
    qubit |0>."""
    k = len(inputs)
    vectors = np.eye(2**k, dtype=complex) if vectors is None else np.asarray(vectors, dtype=complex)
    rows = [sum(((x >> j) & 1) << q for j, q in enumerate(inputs)) for x in range(2**k)]
    columns = np.zeros((2**n, vectors.shape[1]), dtype=complex)
    columns[rows, :] = vectors
    return columns


def identity_fidelity(j: np.ndarray, d: int) -> float:
    """The entanglement fidelity with the identity of a channel of Choi matrix `j` (`choi`,
    d inputs mapped to d outputs): <Phi|J|Phi> / d^2 with Phi = sum_x |x>_out |x>_in."""
    index = [o * d + o for o in range(d)]
    return float(np.real(j[np.ix_(index, index)].sum())) / d**2


def choi_distance(j: np.ndarray, target: np.ndarray, d: int,
                  vectors: np.ndarray | None = None) -> tuple[float, float]:
    """(trace distance, fidelity) of the Choi states J/d and T/d: the trace distance
    bounds the diamond distance of the channels by d times itself (Watrous).  With J's
    `vectors` (`choi_vectors`, J = sum_r v_r v_r^dagger), fewer than J's dimension, the
    fidelity is (Tr sqrt(A^dagger (T/d) A))^2 with A = [v_r] / sqrt(d), on a matrix of that
    rank instead of J's dimension (||sqrt(rho) sqrt(sigma)||_1 = ||A^dagger sqrt(sigma)||_1)."""
    rho, sigma = j / d, np.asarray(target, dtype=complex) / d
    diff = rho - sigma
    trace = 0.5 * float(np.abs(np.linalg.eigvalsh((diff + diff.conj().T) / 2)).sum())
    if vectors is not None and vectors.shape[0] < j.shape[0]:
        inner = vectors.conj() @ sigma @ vectors.T / d
    else:
        w, v = np.linalg.eigh((rho + rho.conj().T) / 2)
        root = (v * np.sqrt(np.clip(w, 0, None))) @ v.conj().T
        inner = root @ sigma @ root
    inner = np.linalg.eigvalsh((inner + inner.conj().T) / 2)
    fidelity = float(np.sqrt(np.clip(inner, 0, None)).sum() ** 2)
    return trace, min(1.0, fidelity)
