"""Realistic chat answers and the program a reader would take from each.

Every case is built around the canonical answer of a real test doc: its code is
pulled from ``doc["canonical"]`` and wrapped the way chat assistants write (prose,
headings, several blocks, reasoning drafts, usage examples, expected output, cut-off
answers, odd fence tags).  The expected extraction is assembled from the same pieces,
so it is right by construction.

A case is a dict:

* ``id``        -- unique, ``<framework>-<task>-<style>`` (``neg-...`` for answers with no code);
* ``task``      -- the lm-eval task name; ``index`` the doc's index in its test split
  (one index per task, ``TASKS``);
* ``kind``      -- state, unitary, algorithm, variational, classifier, decomposition;
* ``answer``    -- the full chat answer;
* ``expected``  -- ``{"qasm": str | None, "python": str | None}``, what a reader takes;
* ``runs``      -- the expected code is a complete answer (the canonical, or its pieces
  rearranged) that must score ``passed`` end to end;
* ``xfail``     -- None, or why ``extract.py`` does not give what a reader takes (the
  case documents the gap; the test is ``xfail(strict=True)``).

Templates mark where code goes with ``<<name>>`` (``fill``); nothing else in them is
interpolated, so prose and code keep their braces.
"""
from __future__ import annotations

import functools
import re
import textwrap

from lm_eval_quantum import api

# One doc per task (qasm canonicals differ per doc: the prose below names their sizes).
TASKS = {
    "quantum_qasm_ghz": 2,                          # n = 4
    "quantum_qasm_bell_state": 3,                   # psi+ on (i, j) = (2, 1), n = 3
    "quantum_qasm_qft": 1,                          # n = 3
    "quantum_qasm_toffoli_decomposition": 4,        # controls [3, 2], target 0, n = 4
    "quantum_qasm_bernstein_vazirani": 5,           # n = 7
    "quantum_qasm_simon": 2,                        # n = 4
    "quantum_qiskit_ghz": 1,                        # n = 3
    "quantum_qiskit_bell_state": 2,                 # phi- on (0, 2), n = 3
    "quantum_qiskit_qft": 3,                        # n = 5
    "quantum_qiskit_bernstein_vazirani": 4,         # n = 6
    "quantum_qiskit_simon": 1,                      # n = 3
    "quantum_qiskit_toffoli_decomposition": 2,      # controls [0, 3], target 1, n = 4
    "quantum_qiskit_qml_classifier": 1,
    "quantum_qiskit_vqe": 0,                        # 2-qubit Ising
    "quantum_cirq_ghz": 3,                          # n = 5
    "quantum_cirq_bell_state": 4,                   # psi- on (1, 3), n = 4
    "quantum_cirq_qft": 2,                          # n = 4
    "quantum_cirq_bernstein_vazirani": 0,           # n = 2
    "quantum_cirq_simon": 3,                        # n = 5
    "quantum_cirq_toffoli_decomposition": 5,        # controls [2, 0], target 1, n = 3
    "quantum_cirq_qml_classifier": 2,
    "quantum_pennylane_ghz": 5,                     # n = 7
    "quantum_pennylane_bell_state": 1,              # psi- on (1, 0), n = 2
    "quantum_pennylane_qft": 4,                     # n = 6
    "quantum_pennylane_toffoli_decomposition": 3,   # controls [2, 1], target 3, n = 4
    "quantum_pennylane_qml_classifier": 3,
    "quantum_pennylane_vqe": 2,                     # 4-qubit Ising
    "quantum_pennylane_oracle_bernstein_vazirani": 1,   # n = 3, s = "101"
}

_CANONICAL_BLOCK = re.compile(r"```(qasm|python)\n(.*?)\n```", re.S)


@functools.lru_cache(maxsize=None)
def doc(task: str) -> dict:
    return api.load_docs(task)[TASKS[task]]


@functools.lru_cache(maxsize=None)
def canonical(task: str) -> dict:
    """{"qasm": ..., "python": ...} of the doc's canonical answer (None where absent)."""
    found = {"qasm": None, "python": None}
    for lang, body in _CANONICAL_BLOCK.findall(doc(task)["canonical"]):
        assert found[lang] is None, f"{task}: two canonical {lang} blocks"
        found[lang] = body
    return found


def py(task: str) -> str:
    return canonical(task)["python"]


def qasm(task: str) -> str:
    return canonical(task)["qasm"]


def split(code: str, *markers: str) -> list[str]:
    """The code cut before each marker in turn (blank lines at the cuts dropped)."""
    pieces, rest = [], code
    for marker in markers:
        cut = rest.index(marker)
        pieces.append(rest[:cut].strip("\n"))
        rest = rest[cut:]
    return pieces + [rest.strip("\n")]


def drop(code: str, line: str) -> str:
    """The code without one of its lines (and the blank line after it, if any)."""
    assert line + "\n" in code
    return code.replace(line + "\n\n", "", 1) if line + "\n\n" in code else code.replace(line + "\n", "", 1)


def fill(template: str, **parts: str) -> str:
    for name, text in parts.items():
        assert f"<<{name}>>" in template, name
        template = template.replace(f"<<{name}>>", text)
    left = re.findall(r"<<[a-z_0-9]+>>", template)
    assert not left, left
    return template


def join(*blocks: str) -> str:
    """Blocks joined the way the extractor joins them."""
    return "\n\n".join(blocks)


CASES: list[dict] = []


def add(id: str, task: str, kind: str, answer: str, *, qasm_=None, python=None,
        runs: bool = False, xfail: str | None = None) -> None:
    CASES.append({"id": id, "task": task, "index": TASKS[task], "kind": kind,
                  "framework": task.split("_")[1], "answer": answer,
                  "expected": {"qasm": qasm_, "python": python}, "runs": runs, "xfail": xfail})


# =====================================================================================
# OpenQASM: state preparation (GHZ, Bell)
# =====================================================================================
T = "quantum_qasm_ghz"
Q = qasm(T)

add("qasm-ghz-gpt-explanation", T, "state", fill("""\
Here's an OpenQASM 3.0 program that prepares the 4-qubit GHZ state
$(|0000\\rangle + |1111\\rangle)/\\sqrt{2}$:

```qasm
<<q>>
```

### Explanation

- `h q[0];` puts qubit 0 into an equal superposition of $|0\\rangle$ and $|1\\rangle$.
- Each `cx q[k], q[k+1];` copies the value of qubit k onto qubit k+1, so the
  superposition spreads along the whole chain.
- No measurements are needed, since the task only asks for the state.

The final state is therefore $(|0000\\rangle + |1111\\rangle)/\\sqrt{2}$, exactly the GHZ state.
""", q=Q), qasm_=Q)

add("qasm-ghz-openqasm3-tag-then-fragment", T, "state", fill("""\
**GHZ state on 4 qubits**

```openqasm 3.0
<<q>>
```

The interesting part is the entangling chain; in isolation it is just:

```qasm
cx q[0], q[1];
cx q[1], q[2];
cx q[2], q[3];
```

Each CNOT uses the previous qubit as control, so the circuit depth grows linearly
with n. (A log-depth version exists, but it is not needed for 4 qubits.)
""", q=Q), qasm_=Q)

add("qasm-ghz-untagged-llama", T, "state", fill("""\
Here is the OpenQASM code to prepare the GHZ state:

```
<<q>>
```

This code first applies a Hadamard gate to the first qubit, and then applies CNOT gates
between consecutive qubits. This creates the GHZ state (|0000> + |1111>) / sqrt(2).
""", q=Q), qasm_=Q)

VERIFY = fill('''\
from qiskit import qasm3
from qiskit.quantum_info import Statevector

program = """
<<q>>
"""
print(Statevector(qasm3.loads(program)).probabilities_dict())''', q=Q)
add("qasm-ghz-python-verifier-embeds-program", T, "state", fill("""\
```qasm
<<q>>
```

If you want to double-check it, load the program in Qiskit and look at the
probabilities (you should see only `0000` and `1111`, each with probability 0.5):

```python
<<verify>>
```
""", q=Q, verify=VERIFY), qasm_=Q, python=VERIFY)

add("qasm-ghz-mislabeled-python-fence", T, "state", fill("""\
Sure! Below is the circuit.

```python
<<q>>
```

Hadamard on q[0], then a CNOT ladder.
""", q=Q), qasm_=Q)

T = "quantum_qasm_bell_state"
Q = qasm(T)

add("qasm-bell-tilde-fences-claude", T, "state", fill("""\
## Preparing $|\\Psi^+\\rangle$ on qubits 2 and 1

We want $(|01\\rangle + |10\\rangle)/\\sqrt{2}$ on the pair (q[2], q[1]), with q[0] left in $|0\\rangle$.

1. A Hadamard on q[2] followed by a CNOT from q[2] to q[1] gives $|\\Phi^+\\rangle$.
2. An X on q[1] turns $|00\\rangle \\to |01\\rangle$ and $|11\\rangle \\to |10\\rangle$, i.e. $|\\Phi^+\\rangle \\to |\\Psi^+\\rangle$.

~~~qasm
<<q>>
~~~

That's all: three gates, no ancillas.
""", q=Q), qasm_=Q)

add("qasm-bell-think-draft", T, "state", fill("""\
<think>
The user wants psi+ on i=2, j=1 with 3 qubits. First draft:

```qasm
OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
h q[1];
cx q[1], q[2];
```

Wait, i = 2 should be the control, and that is only phi+. psi+ needs an X on the target
after the CNOT. Let me fix both.
</think>

The Bell state $|\\Psi^+\\rangle$ comes from $|\\Phi^+\\rangle$ by flipping the second qubit:

```qasm
<<q>>
```
""", q=Q), qasm_=Q)

add("qasm-bell-two-drafts-actually-simpler", T, "state", fill("""\
One way is to prepare the pair with a controlled rotation:

```qasm
OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
ry(pi/2) q[2];
cx q[2], q[1];
x q[1];
z q[2];
```

Actually, a simpler version:

```qasm
<<q>>
```

This uses only H, CNOT and X.
""", q=Q), qasm_=Q)

add("qasm-bell-untagged-counts-listing", T, "state", fill("""\
```qasm
<<q>>
```

Sampling it 1024 times gives roughly:

```
010: 509
100: 515
```
""", q=Q), qasm_=Q)

# =====================================================================================
# OpenQASM: unitary (QFT) and gate decomposition (Toffoli)
# =====================================================================================
T = "quantum_qasm_qft"
Q = qasm(T)

add("qasm-qft-bare-no-fence", T, "unitary", Q + "\n", qasm_=Q)

add("qasm-qft-QASM-tag-text-output", T, "unitary", fill("""\
```QASM
<<q>>
```

Its unitary (up to rounding) is the 8x8 DFT matrix $F_{jk} = \\omega^{jk}/\\sqrt{8}$:

```text
[[0.354+0.j    0.354+0.j    0.354+0.j   ...]
 [0.354+0.j    0.25 +0.25j  0.   +0.354j ...]
 ...]
```
""", q=Q), qasm_=Q)

Q_COMMENTED = "// 3-qubit quantum Fourier transform (q[0] is the least significant bit)\n" \
              "// controlled phases cp(pi/2^k), then a swap to reverse the qubit order\n" + Q
add("qasm-qft-comment-header", T, "unitary", fill("""\
Here is the QFT:

```qasm
<<q>>
```

The final `swap` puts the output in the standard bit order.
""", q=Q_COMMENTED), qasm_=Q_COMMENTED, runs=True)

T = "quantum_qasm_toffoli_decomposition"
Q = qasm(T)
Q2 = Q.replace("OPENQASM 3.0;", "OPENQASM 2.0;").replace(
    'include "stdgates.inc";', 'include "qelib1.inc";').replace("qubit[4] q;", "qreg q[4];")
assert Q2 != Q

add("qasm-toffoli-qasm2-draft-then-qasm3", T, "decomposition", fill("""\
The standard 6-CNOT decomposition of a Toffoli with controls q[3], q[2] and target q[0]
in OpenQASM 2.0 syntax would be:

```qasm
<<q2>>
```

But you asked for OpenQASM 3.0, so here is the same circuit with 3.0 declarations:

```qasm
<<q>>
```
""", q2=Q2, q=Q), qasm_=Q)

add("qasm-toffoli-qasm2-reference-after", T, "decomposition", fill("""\
```qasm
<<q>>
```

For reference, the same decomposition in OpenQASM 2.0 (e.g. for older toolchains):

```qasm
<<q2>>
```
""", q=Q, q2=Q2), qasm_=Q)

Q_CUT = Q[:Q.index("cx q[3], q[2];")] + "cx q[3], q"
add("qasm-toffoli-truncated-mid-program", T, "decomposition", fill("""\
We use the textbook decomposition (Nielsen & Chuang, Fig. 4.9) with a = q[3], b = q[2], t = q[0]:

```qasm
<<q>>""", q=Q_CUT), qasm_=Q_CUT)

# =====================================================================================
# OpenQASM: algorithms with post-processing (Bernstein-Vazirani, Simon)
# =====================================================================================
T = "quantum_qasm_bernstein_vazirani"
Q, P = qasm(T), py(T)

add("qasm-bv-gpt-sections", T, "algorithm", fill("""\
## OpenQASM program

```qasm
<<q>>
```

## Post-processing

```python
<<p>>
```

### Why one shot is enough

After the final Hadamards the input register is exactly in $|s\\rangle$, so a single
measurement returns the secret with certainty. Qiskit's counts put clbit 0 on the
right, which matches the requested bit order, so no reversal is needed.
""", q=Q, p=P), qasm_=Q, python=P)

add("qasm-bv-python-first-OpenQASM-tag", T, "algorithm", fill("""\
The analysis function is trivial, so let me give it first:

```py
<<p>>
```

and the circuit (phase kickback on the |-> ancilla q[7]):

```OpenQASM
<<q>>
```
""", q=Q, p=P), qasm_=Q, python=P)

add("qasm-bv-usage-harness-with-print", T, "algorithm", fill("""\
```qasm
<<q>>
```

```python
<<p>>
```

**Example usage** (with Aer and a file `bv.qasm` holding the program above):

```python
from qiskit import qasm3
from qiskit_aer import AerSimulator

circuit = qasm3.loads(open("bv.qasm").read())
print(run_and_analyze(circuit, AerSimulator()))
```
""", q=Q, p=P), qasm_=Q, python=P)

add("qasm-bv-think-drafts", T, "algorithm", fill("""\
<think>
Bernstein-Vazirani: prepare the ancilla in |->, Hadamards, oracle, Hadamards, measure.
Draft:

```qasm
OPENQASM 3.0;
include "stdgates.inc";
include "oracle.inc";
bit[7] c;
qubit[8] q;
h q;
Oracle q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7];
h q;
c = measure q[0:6];
```

Hmm, the ancilla must start in |1> before the Hadamard, and I should not apply H to it at
the end. For the analysis:

```python
def run_and_analyze(circuit, simulator):
    counts = simulator.run(circuit, shots=1024).result().get_counts()
    return max(counts, key=counts.get)[::-1]
```

No: one shot suffices and Qiskit's order already matches. Final answer below.
</think>

```qasm
<<q>>
```

```python
<<p>>
```
""", q=Q, p=P), qasm_=Q, python=P)

T = "quantum_qasm_simon"
Q, P = qasm(T), py(T)
RUN, HELPERS = split(P, "def add_equation")

add("qasm-simon-helpers-in-earlier-block", T, "algorithm", fill("""\
Simon's algorithm: every shot gives a y with y.s = 0 (mod 2); collect n-1 independent
equations and solve for s.

```qasm
<<q>>
```

First, two small GF(2) helpers (incremental Gaussian elimination):

```python
<<helpers>>
```

Then the analysis, which keeps sampling until the rank is n - 1:

```python
<<run>>
```
""", q=Q, helpers=HELPERS, run=RUN), qasm_=Q, python=join(HELPERS, RUN), runs=True)

add("qasm-simon-truncated-in-explanation", T, "algorithm", fill("""\
```qasm
<<q>>
```

```python
<<p>>
```

### Explanation

Each measured y is orthogonal to s over GF(2). With n = 4 we need 3 independent
equations; for example, if s = 0110 the outcomes could be

```python
# y . s = 0 (mod 2) for every outcome, e.g.
for y in ("0000", "1000", "0110", "1001"):
    print(y, sum(int(a) * int(b) for a, b in zip(y, "01""", q=Q, p=P), qasm_=Q, python=P)

add("qasm-simon-thinking-tag", T, "algorithm", fill("""\
<thinking>
n = 4 input qubits, 4 output qubits. The oracle is given; I only need H on the inputs
before and after, and measurements of the inputs. Post-processing: Gaussian elimination
over GF(2); draw n shots at a time until the rank reaches n - 1.
</thinking>

**Circuit**

```qasm
<<q>>
```

**Post-processing**

```python
<<p>>
```
""", q=Q, p=P), qasm_=Q, python=P)

# =====================================================================================
# Qiskit
# =====================================================================================
T = "quantum_qiskit_ghz"
P = py(T)

add("qiskit-ghz-gpt-usage-print", T, "state", fill("""\
Sure! Here's a function that builds an n-qubit GHZ state with Qiskit:

```python
<<p>>
```

### Explanation
- **Hadamard on qubit 0** creates $(|0\\rangle + |1\\rangle)/\\sqrt{2}$.
- **CNOT chain**: `qc.cx(i, i + 1)` propagates the superposition, giving $(|000\\rangle + |111\\rangle)/\\sqrt{2}$.

### Usage

```python
qc = build_circuit(3)
print(qc.draw())
```

Output:

```
     ┌───┐
q_0: ┤ H ├──■───────
     └───┘┌─┴─┐
q_1: ─────┤ X ├──■──
          └───┘┌─┴─┐
q_2: ──────────┤ X ├
               └───┘
```
""", p=P), python=P)

add("qiskit-ghz-Qiskit-tag-terse", T, "state", fill("""\
```Qiskit
<<p>>
```
""", p=P), python=P)

P_MAIN = P + '\n\n\nif __name__ == "__main__":\n    print(build_circuit(3).draw())'
add("qiskit-ghz-main-guard-in-block", T, "state", fill("""\
Below is a complete script; run it directly to see the circuit diagram.

```python
<<p>>
```
""", p=P_MAIN), python=P_MAIN, runs=True)

add("qiskit-ghz-usage-assignment-only", T, "state", fill("""\
```python
<<p>>
```

You would call it like this:

```python
qc = build_circuit(3)
```
""", p=P), python=P)

add("qiskit-ghz-fenceless-lead-in", T, "state", "Here you go:\n\n" + P + "\n", python=P)

T = "quantum_qiskit_bell_state"
P = py(T)

add("qiskit-bell-claude-table", T, "state", fill("""\
I'll build the Bell state $|\\Phi^-\\rangle = (|00\\rangle - |11\\rangle)/\\sqrt{2}$ on qubits 0 and 2.

The four Bell states differ only by Pauli corrections after the H + CNOT core:

| Bell state | Extra gates |
|------------|-------------|
| Φ+         | none        |
| Φ-         | Z on i      |
| Ψ+         | X on j      |
| Ψ-         | Z on i, X on j |

```python
<<p>>
```

A few notes:
- `bell` is one of `"phi+"`, `"phi-"`, `"psi+"`, `"psi-"`.
- Qubit 1 is untouched and stays in $|0\\rangle$.
""", p=P), python=P)

BELL_DRAFT = """\
from qiskit import QuantumCircuit

def build_circuit(n: int, i: int, j: int, bell: str) -> QuantumCircuit:
    qc = QuantumCircuit(n)
    qc.h(i)
    qc.cx(i, j)
    fixes = {"phi+": [], "phi-": ["z"], "psi+": ["x"], "psi-": ["z", "x"]}
    for gate in fixes[bell]:
        getattr(qc, gate)(i if gate == "z" else j)
    return qc"""
add("qiskit-bell-two-drafts-full", T, "state", fill("""\
```python
<<draft>>
```

Actually, a simpler version:

```python
<<p>>
```
""", draft=BELL_DRAFT, p=P), python=P)

P_NO_IMPORT = drop(P, "from qiskit import QuantumCircuit")
add("qiskit-bell-redraft-without-import", T, "state", fill("""\
```python
<<draft>>
```

Actually, a simpler version without the lookup table:

```python
<<p>>
```
""", draft=BELL_DRAFT, p=P_NO_IMPORT), python=join(BELL_DRAFT, P_NO_IMPORT))

T = "quantum_qiskit_qft"
P = py(T)
IMPORTS, BODY = split(P, "def build_circuit")
assert join(IMPORTS, BODY) == P

add("qiskit-qft-imports-in-own-block", T, "unitary", fill("""\
First the imports:

```python
<<imports>>
```

Now the QFT itself. We process qubits from the most significant down, applying a
Hadamard followed by controlled phase rotations, then reverse the order with swaps:

```python
<<body>>
```
""", imports=IMPORTS, body=BODY), python=P)

add("qiskit-qft-truncated-usage", T, "unitary", fill("""\
```python
<<p>>
```

## Usage

```python
from qiskit.quantum_info import Operator
qc = build_circuit(5)
print(Operator(qc).data.round(3)[""", p=P), python=P)

add("qiskit-qft-py-tag-with-title", T, "unitary", fill("""\
```py title="qft.py"
<<p>>
```

`cp(pi / 2 ** (j - k), k, j)` is the controlled-$R_{j-k}$ rotation.
""", p=P), python=P)

P_CUT = P[:P.index("qc.swap")] + "qc.sw"
add("qiskit-qft-truncated-mid-function", T, "unitary", fill("""\
Here's the Quantum Fourier Transform implemented in Qiskit. I'll walk through each step
in detail after the code.

```python
<<p>>""", p=P_CUT), python=P_CUT)

T = "quantum_qiskit_bernstein_vazirani"
P = py(T)
BUILD, RUN = split(P, "def run_and_analyze")
assert join(BUILD, RUN) == P

add("qiskit-bv-separate-blocks", T, "algorithm", fill("""\
### Circuit

The ancilla (qubit n) is prepared in $|-\\rangle$ so the oracle writes $(-1)^{s\\cdot x}$
into the phase:

```python
<<build>>
```

### Post-processing

A single shot returns s deterministically:

```python
<<run>>
```
""", build=BUILD, run=RUN), python=P)

add("qiskit-bv-harness-assignments", T, "algorithm", fill("""\
```python
<<p>>
```

To try it locally:

```python
from qiskit_aer import AerSimulator

secret_oracle = make_oracle("101101")   # any BV oracle gate on 7 qubits
circuit = build_circuit(6, secret_oracle)
secret = run_and_analyze(circuit, AerSimulator())
```
""", p=P), python=P)

add("qiskit-bv-think-draft", T, "algorithm", fill("""\
<think>
Standard BV. Let me write it:
```python
def build_circuit(n, oracle):
    qc = QuantumCircuit(n + 1, n)
    qc.h(range(n + 1))
    qc.append(oracle, range(n + 1))
    qc.h(range(n))
    qc.measure(range(n), range(n))
    return qc
```
The ancilla needs an X first, otherwise the oracle only acts on |+> and nothing is kicked back.
</think>
Here is the Bernstein-Vazirani implementation:

```python
<<p>>
```
""", p=P), python=P)

T = "quantum_qiskit_simon"
P = py(T)
MAIN, HELPERS = split(P, "def add_equation")

add("qiskit-simon-helpers-in-later-block", T, "algorithm", fill("""\
```python
<<main>>
```

`run_and_analyze` relies on two helpers for linear algebra over GF(2):

```python
<<helpers>>
```

With n = 3 the loop usually finishes after one or two batches of 3 shots.
""", main=MAIN, helpers=HELPERS), python=join(MAIN, HELPERS), runs=True)

add("qiskit-simon-r1-orphan-close-think", T, "algorithm", fill("""\
Okay, so I need Simon's algorithm. The oracle maps |x>|0> to |x>|f(x)> with f(x) = f(x ^ s).
Let me sketch the post-processing:

```python
def run_and_analyze(circuit, simulator):
    counts = simulator.run(circuit, shots=1024).result().get_counts()
    ys = list(counts)
    ...
```

But that wastes shots; better to draw n at a time and stop at rank n - 1.
</think>

Here's the full solution.

```python
<<p>>
```
""", p=P), python=P)

T = "quantum_qiskit_toffoli_decomposition"
P = py(T)

add("qiskit-toffoli-python3-tag-verification", T, "decomposition", fill("""\
```python3
<<p>>
```

**Verification** (compares with Qiskit's built-in `ccx`):

```python
from qiskit.quantum_info import Operator

ref = QuantumCircuit(4)
ref.ccx(0, 3, 1)
assert Operator(build_circuit(4, [0, 3], 1)).equiv(Operator(ref))
print("decomposition OK")
```
""", p=P), python=P)

add("qiskit-toffoli-indented-list-fence", T, "decomposition", """\
Sure! Here's how to do it step by step:

1. **Conjugate by H on the target**: CCX = (I ⊗ I ⊗ H) · CCZ · (I ⊗ I ⊗ H).
2. **Build CCZ from CNOTs and T gates** (6 CNOTs, 7 T/T† gates):

   ```python
""" + textwrap.indent(P, "   ") + """
   ```

3. That's it: no ancillas, only `h`, `t`, `tdg` and `cx`.
""", python=P)

T = "quantum_qiskit_qml_classifier"
P = py(T)
BUILD, THETA, STEPS = split(P, "# trained parameters", "def pair_steps")

add("qiskit-qml-classifier-llama-terse", T, "classifier", fill("""\
Here is the code:

```python
<<p>>
```

This code defines a variational classifier with trained parameters THETA.
""", p=P), python=P)

add("qiskit-qml-classifier-three-blocks", T, "classifier", fill("""\
The model has two parts: an angle encoding of the two features and a small trained ansatz.

**Circuit**

```python
<<build>>
```

**Trained angles** (fitted offline by least squares):

```python
<<theta>>
```

**Gate sequence**

```python
<<steps>>
```
""", build=BUILD, theta=THETA, steps=STEPS), python=join(BUILD, THETA, STEPS), runs=True)

T = "quantum_qiskit_vqe"
P = py(T)
IMPORTS, BUILD, HELPERS = split(P, "def build_circuit", "PAULI = ")
NUMERIC = "import numpy as np\nfrom scipy.optimize import minimize"
assert IMPORTS == NUMERIC + "\nfrom qiskit import QuantumCircuit"
HELPER_BLOCK = join(NUMERIC, HELPERS)
BUILD_BLOCK = join("from qiskit import QuantumCircuit", BUILD)

add("qiskit-vqe-helpers-first", T, "variational", fill("""\
# VQE for the 2-qubit transverse-field Ising model

The ansatz is layers of RY rotations separated by CNOT ladders. Because the Hamiltonian
is real, a real ansatz suffices. I optimize the angles classically (exact statevector,
analytic gradient) and then emit the circuit with the optimal angles baked in.

## Classical optimizer

```python
<<helpers>>
```

## Circuit

```python
<<build>>
```

## Notes

- `starts=2` random restarts avoid the occasional local minimum.
- The energy should match the exact ground-state energy to about 1e-6.
""", helpers=HELPER_BLOCK, build=BUILD_BLOCK), python=join(HELPER_BLOCK, BUILD_BLOCK), runs=True)

# =====================================================================================
# Cirq
# =====================================================================================
T = "quantum_cirq_ghz"
P = py(T)

add("cirq-ghz-Cirq-tag-diagram-output", T, "state", fill("""\
```Cirq
<<p>>
```

`print(build_circuit(5))` shows:

```
0: ───H───@───────────────
          │
1: ───────X───@───────────
              │
2: ───────────X───@───────
                  │
3: ───────────────X───@───
                      │
4: ───────────────────X───
```
""", p=P), python=P)

add("cirq-ghz-main-guard-separate-block", T, "state", fill("""\
```python
<<p>>
```

And a quick demo:

```python
if __name__ == "__main__":
    circuit = build_circuit(5)
    print(circuit)
    print(cirq.Simulator().simulate(circuit).final_state_vector.round(3))
```
""", p=P), python=P)

add("cirq-ghz-usage-simulate-assignments", T, "state", fill("""\
```python
<<p>>
```

### Usage

```python
circuit = build_circuit(5)
simulator = cirq.Simulator()
result = simulator.simulate(circuit)
```

`result.final_state_vector` has amplitude 1/√2 on |00000⟩ and |11111⟩.
""", p=P), python=P)

T = "quantum_cirq_bell_state"
P = py(T)

add("cirq-bell-tilde-python", T, "state", fill("""\
Bell state $|\\Psi^-\\rangle = (|01\\rangle - |10\\rangle)/\\sqrt{2}$ on qubits 1 and 3:

~~~python
<<p>>
~~~

Qubits 0 and 2 are not touched. Note that `cirq.Circuit` only includes qubits that are
acted on, which is fine here since the grader passes n.
""", p=P), python=P)

add("cirq-bell-untagged-llama", T, "state", fill("""\
Here is the code:

```
<<p>>
```

This code defines a function `build_circuit` that takes the number of qubits n, the
indices i and j, and the name of the Bell state. It applies a Hadamard gate and a CNOT
gate, followed by Z and X corrections depending on the Bell state.
""", p=P), python=P)

T = "quantum_cirq_qft"
P = py(T)

add("cirq-qft-think-draft", T, "unitary", fill("""\
<think>
QFT in cirq. Draft:
```python
import cirq
def build_circuit(n):
    q = cirq.LineQubit.range(n)
    c = cirq.Circuit()
    for i in range(n):
        c.append(cirq.H(q[i]))
        for j in range(i + 1, n):
            c.append(cirq.CZ(q[j], q[i]) ** (-1 / 2 ** (j - i)))
    return c
```
Sign: the QFT uses +2πi/2^k phases, so the exponent is positive. And the swaps at the end
are needed to reverse the output order.
</think>

```python
<<p>>
```

The swaps at the end reverse the qubit order so that the output matches the usual
definition of the QFT.
""", p=P), python=P)

add("cirq-qft-pycon-session", T, "unitary", fill("""\
```python
<<p>>
```

Example session:

```pycon
>>> c = build_circuit(4)
>>> len(list(c.all_operations()))
12
>>> cirq.unitary(c).shape
(16, 16)
```
""", p=P), python=P)

add("neg-cirq-qft-usage-only", T, "unitary", """\
Cirq already ships a QFT gate, so you don't need to write it by hand. Assuming
`build_circuit` wraps it, you'd use:

```python
qubits = cirq.LineQubit.range(4)
circuit = build_circuit(4)
print(cirq.unitary(circuit).round(3))
```
""")

T = "quantum_cirq_bernstein_vazirani"
P = py(T)

add("cirq-bv-test-harness-print", T, "algorithm", fill("""\
```python
<<p>>
```

#### Testing

```python
class BVOracle(cirq.Gate):
    def __init__(self, s):
        self.s = s
    def _num_qubits_(self):
        return len(self.s) + 1
    def _decompose_(self, qubits):
        for k, bit in enumerate(self.s):
            if bit == "1":
                yield cirq.CNOT(qubits[k], qubits[-1])

circuit = build_circuit(2, BVOracle("10"))
print(run_and_analyze(circuit, cirq.Simulator()))  # -> 10
```
""", p=P), python=P)

P_SCRIPT = P + '''


if __name__ == "__main__":
    from my_oracles import bv_oracle   # any gate on n + 1 qubits
    circuit = build_circuit(2, bv_oracle("10"))
    print(circuit)
    print(run_and_analyze(circuit, cirq.Simulator()))'''
add("cirq-bv-complete-script-last", T, "algorithm", fill("""\
The two functions:

```python
<<p>>
```

Putting it all together in one runnable script:

```python
<<script>>
```
""", p=P, script=P_SCRIPT), python=P_SCRIPT, runs=True)

T = "quantum_cirq_simon"
P = py(T)
BUILD, RUN, HELPERS = split(P, "def run_and_analyze", "def add_equation")

add("cirq-simon-helpers-in-earlier-block", T, "algorithm", fill("""\
Let's start with the classical part: Gaussian elimination over GF(2).

```python
<<helpers>>
```

Now the quantum part and the sampling loop:

```python
<<main>>
```
""", helpers=HELPERS, main=join(BUILD, RUN)), python=join(HELPERS, BUILD, RUN), runs=True)

add("cirq-simon-three-blocks", T, "algorithm", fill("""\
**1. Circuit.** Hadamards on the input register, the oracle, Hadamards again, measure:

```python
<<build>>
```

**2. Sampling.** Each repetition gives a y with y·s = 0; sample until the rank is n − 1:

```python
<<run>>
```

**3. Linear algebra over GF(2):**

```python
<<helpers>>
```
""", build=BUILD, run=RUN, helpers=HELPERS), python=join(BUILD, RUN, HELPERS), runs=True)

P_CUT = P[:P.index("add_equation(basis, int(")] + "add_equation(basis, in"
add("cirq-simon-truncated-mid-function", T, "algorithm", fill("""\
## Simon's algorithm in Cirq

```python
<<p>>""", p=P_CUT), python=P_CUT)

T = "quantum_cirq_toffoli_decomposition"
P = py(T)

add("cirq-toffoli-explanation-fragment", T, "decomposition", fill("""\
```python
<<p>>
```

### Explanation

The core is the CCZ: the T phases accumulate $e^{i\\pi/4}$ per parity term, so that only
$|111\\rangle$ picks up a $-1$. For instance the first half is

```python
circuit.append(cirq.CNOT(q[b], q[t]))
circuit.append(cirq.T(q[t]) ** -1)
circuit.append(cirq.CNOT(q[a], q[t]))
```

and the Hadamards on the target turn CCZ into CCX.
""", p=P), python=P)

add("cirq-toffoli-verification-allclose", T, "decomposition", fill("""\
```cirq
<<p>>
```

Check against `cirq.TOFFOLI`:

```python
import numpy as np

q = cirq.LineQubit.range(3)
mine = cirq.unitary(build_circuit(3, [2, 0], 1))
ref = cirq.unitary(cirq.Circuit(cirq.TOFFOLI(q[2], q[0], q[1])))
assert np.allclose(mine, ref)
```
""", p=P), python=P)

T = "quantum_cirq_qml_classifier"
P = py(T)
BUILD, THETA, STEPS = split(P, "# trained parameters", "def pair_steps")

add("cirq-qml-classifier-gpt", T, "classifier", fill("""\
Here's a compact variational classifier in Cirq:

```python
<<p>>
```

### How it works
1. **Encoding**: each feature is loaded with an RY rotation.
2. **Trainable layer**: RY/RZ rotations, an entangling CNOT, and final RZ/RY on qubit 0.
3. **Readout**: the sign of ⟨Z⟩ on qubit 0 gives the label.

### Usage

```python
sim = cirq.Simulator()
state = sim.simulate(build_circuit([2.2, 1.94])).final_state_vector
print(abs(state[0]) ** 2 + abs(state[2]) ** 2 - abs(state[1]) ** 2 - abs(state[3]) ** 2)
```
""", p=P), python=P)

add("cirq-qml-classifier-split-three", T, "classifier", fill("""\
```python
<<theta>>
```

```python
<<steps>>
```

```python
<<build>>
```
""", theta=THETA, steps=STEPS, build=BUILD), python=join(THETA, STEPS, BUILD), runs=True)

# =====================================================================================
# PennyLane
# =====================================================================================
T = "quantum_pennylane_ghz"
P = py(T)

add("pennylane-ghz-PennyLane-tag-qnode-usage", T, "state", fill("""\
In PennyLane the circuit is just a quantum function that applies operations:

```PennyLane
<<p>>
```

To inspect the state, wrap it in a QNode:

```python
dev = qml.device("default.qubit", wires=7)

@qml.qnode(dev)
def ghz():
    build_circuit(7)
    return qml.state()

print(ghz())
```
""", p=P), python=P)

DEVICE = 'import pennylane as qml\n\ndev = qml.device("default.qubit", wires=7)'
P_NO_IMPORT = drop(P, "import pennylane as qml")
add("pennylane-ghz-device-block-first", T, "state", fill("""\
Set up the device:

```python
<<device>>
```

The quantum function:

```python
<<p>>
```

And run it:

```python
@qml.qnode(dev)
def ghz():
    build_circuit(7)
    return qml.probs(wires=range(7))

print(ghz()[[0, -1]])   # [0.5 0.5]
```
""", device=DEVICE, p=P_NO_IMPORT), python=join(DEVICE, P_NO_IMPORT), runs=True)

T = "quantum_pennylane_bell_state"
P = py(T)

add("pennylane-bell-claude-headings", T, "state", fill("""\
## Approach

To prepare $|\\Psi^-\\rangle = (|01\\rangle - |10\\rangle)/\\sqrt{2}$ on wires (1, 0):

1. Create $|\\Phi^+\\rangle$ with a Hadamard and a CNOT.
2. Apply $Z$ on the control for the minus sign.
3. Apply $X$ on the target to swap $|00\\rangle \\leftrightarrow |01\\rangle$ and $|11\\rangle \\leftrightarrow |10\\rangle$.

## Code

```python
<<p>>
```

## Why this works

Starting from $|00\\rangle$: $H \\to (|0\\rangle+|1\\rangle)|0\\rangle/\\sqrt2$; CNOT $\\to (|00\\rangle+|11\\rangle)/\\sqrt2$;
$Z \\to (|00\\rangle-|11\\rangle)/\\sqrt2$; $X \\to (|01\\rangle-|10\\rangle)/\\sqrt2$. ✓
""", p=P), python=P)

add("pennylane-bell-reasoning-tag", T, "state", fill("""\
<reasoning>
psi- on (i, j) = (1, 0). The function must work for all four Bell states anyway:
phi+ needs nothing, phi- a Z, psi+ an X, psi- both.
</reasoning>

```python
<<p>>
```
""", p=P), python=P)

T = "quantum_pennylane_qft"
P = py(T)

add("pennylane-qft-py-tag-text-output", T, "unitary", fill("""\
```py
<<p>>
```

Comparing with `qml.QFT` for n = 6:

```text
max |U_mine - U_qft| = 2.2e-16
```
""", p=P), python=P)

QFT_DRAFT = """\
import pennylane as qml

def build_circuit(n: int):
    qml.QFT(wires=range(n))"""
add("pennylane-qft-two-drafts", T, "unitary", fill("""\
The shortest answer uses the built-in template:

```python
<<draft>>
```

On second thought, the task asks for the circuit itself, so here is the explicit version
with Hadamards, controlled phase shifts and swaps:

```python
<<p>>
```
""", draft=QFT_DRAFT, p=P), python=P)

T = "quantum_pennylane_toffoli_decomposition"
P = py(T)

add("pennylane-toffoli-verbose-headings", T, "decomposition", fill("""\
# Toffoli decomposition into Clifford + T

## Background

A Toffoli (CCX) gate flips the target iff both controls are 1. It is not in the
Clifford group, but it can be built from H, CNOT, T and T† with 6 CNOTs and 7 T-type gates.

## Implementation

```python
<<p>>
```

## Key points

- `qml.adjoint(qml.T(...))` is T†.
- Controls are wires 2 and 1, the target is wire 3; wire 0 is idle.
- The T-count of 7 is optimal without ancillas.
""", p=P), python=P)

add("pennylane-toffoli-truncated-check-block", T, "decomposition", fill("""\
```python
<<p>>
```

### Checking the matrix

```python
import numpy as np
mat = qml.matrix(build_circuit, wire_order=range(4))(4, [2, 1], 3)
print(np.round(mat""", p=P), python=P)

T = "quantum_pennylane_qml_classifier"
P = py(T)
BUILD, THETA, STEPS = split(P, "# trained parameters", "def pair_steps")

add("pennylane-qml-classifier-usage-qnode", T, "classifier", fill("""\
```python
<<p>>
```

### Usage

```python
dev = qml.device("default.qubit", wires=2)

@qml.qnode(dev)
def classify(x):
    build_circuit(x)
    return qml.expval(qml.PauliZ(0))

print(classify([1.34, -3.07]))
```
""", p=P), python=P)

PARAMS_BLOCK = join(THETA, STEPS)
add("pennylane-qml-classifier-helpers-first", T, "classifier", fill("""\
First, the trained parameters and the gate sequence of the model:

```python
<<params>>
```

Then the quantum function that applies them:

```python
<<build>>
```
""", params=PARAMS_BLOCK, build=BUILD), python=join(PARAMS_BLOCK, BUILD), runs=True)

T = "quantum_pennylane_vqe"
P = py(T)
IMPORTS, BUILD, HELPERS = split(P, "def build_circuit", "PAULI = ")
assert IMPORTS == NUMERIC + "\nimport pennylane as qml"

add("pennylane-vqe-gpt", T, "variational", fill("""\
Here's a VQE-style solution: the RY + CNOT-ladder ansatz angles are optimized
classically, and `build_circuit` applies the optimal circuit.

```python
<<p>>
```

### Explanation
- `hamiltonian` builds the dense matrix of the Ising Hamiltonian.
- `optimal_angles` minimizes the energy with BFGS using an analytic gradient.
- `build_circuit` applies the resulting circuit on the device's wires.
""", p=P), python=P)

BUILD_BLOCK = join("import pennylane as qml", BUILD)
add("pennylane-vqe-imports-in-own-block", T, "variational", fill("""\
### 1. Imports for the classical optimizer

```python
<<numeric>>
```

### 2. Hamiltonian and optimizer

```python
<<helpers>>
```

### 3. The circuit

```python
<<build>>
```
""", numeric=NUMERIC, helpers=HELPERS, build=BUILD_BLOCK),
    python=join(NUMERIC, HELPERS, BUILD_BLOCK))

T = "quantum_pennylane_oracle_bernstein_vazirani"
P = py(T)

add("pennylane-oracle-bv-terse", T, "unitary", fill("""\
```python
<<p>>
```
One CNOT from each wire k with s[k] = 1 onto the output wire n.
""", p=P), python=P)

add("pennylane-oracle-bv-fenceless-code-only", T, "unitary", P + "\n", python=P)

# =====================================================================================
# Answers with no code to take
# =====================================================================================
add("neg-qiskit-ghz-prose-only", "quantum_qiskit_ghz", "state", """\
To prepare a GHZ state, apply a Hadamard gate to qubit 0 and then a chain of CNOT gates:
`qc.h(0)`, then `qc.cx(0, 1)` and `qc.cx(1, 2)`. This produces (|000> + |111>)/sqrt(2).

I can't run code, but this is the standard construction found in any textbook.
""")

add("neg-qiskit-qft-shell-only", "quantum_qiskit_qft", "unitary", """\
You'll need Qiskit installed first:

```bash
pip install qiskit
```

Then use `QFT` from `qiskit.circuit.library`; it builds the whole transform for you.
""")

add("neg-pennylane-ghz-think-only", "quantum_pennylane_ghz", "state", """\
<think>
The GHZ state needs a Hadamard and a CNOT chain:

```python
import pennylane as qml

def build_circuit(n: int):
    qml.Hadamard(wires=0)
    for i in range(n - 1):
        qml.CNOT(wires=[i, i + 1])
```

That should be it.
</think>
""")

add("neg-qasm-bell-think-unterminated", "quantum_qasm_bell_state", "state", """\
<think>
psi+ on qubits 2 and 1. Let me write the program:

```qasm
OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
h q[2];
cx q[2], q[1];
x q[1];
```

Now double-check the sign: H|0> = |+>, CNOT gives |00> + |11> on (2, 1), then X on q[1]
gives |01> + |10>... but wait, the bit order in the bitstring is""")

add("neg-qasm-ghz-inline-code-only", "quantum_qasm_ghz", "state", """\
The program is short: declare `qubit[4] q;`, apply `h q[0];`, then `cx q[0], q[1];`,
`cx q[1], q[2];` and `cx q[2], q[3];`. Don't forget the `OPENQASM 3.0;` header and
`include "stdgates.inc";`.
""")
