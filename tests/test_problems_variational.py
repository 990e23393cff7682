"""VQE, the quantum autoencoder's encoder and the swap test: docs of every split and
framework scored through the real pipeline in one batch (canonicals pass for sample
indices 0..4, wrong answers fail as wrong_answer); prompts state the instance exactly;
the VQE instances are meaningful (gapped, no product state within tolerance) and its
canonical optimizes an ansatz; the swap test's ancilla statistics are checked natively."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from support import canonical_code, native_unitary

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge.conventions import unitary_to_internal
from lm_eval_quantum.problems import autoencoder, make_doc, swap_test, vqe

pytest.importorskip("qiskit_qasm3_import")
pytest.importorskip("cirq")
pytest.importorskip("pennylane")

MODULES = (vqe, autoencoder, swap_test)
SLUGS = tuple(m.PROBLEM.slug for m in MODULES)
SAMPLES = range(5)


def _docs():
    docs = []
    for module in MODULES:
        problem = module.PROBLEM
        for split in ("test", "fewshot"):
            for i, params in enumerate(problem.instances(split)):
                for fw in problem.frameworks:
                    docs.append(make_doc(problem, fw, params, i, split))
    return docs


# --- wrong answers ----------------------------------------------------------------------------
def _edit(doc, old: str, new: str, count: int = 1) -> str:
    assert doc["canonical"].count(old) >= count, (doc["problem"], doc["framework"], old)
    return doc["canonical"].replace(old, new, count)


def _append(doc, line: str) -> str:
    """The canonical with `line` (framework syntax) applied at the end of the circuit."""
    fw = doc["framework"]
    if fw == "qasm":
        return doc["canonical"].rstrip().removesuffix("```").rstrip() + f"\n{line}\n```"
    if fw == "qiskit":
        return _edit(doc, "    return qc", f"    {line}\n    return qc")
    if fw == "cirq":
        return _edit(doc, "    return circuit", f"    circuit.append({line})\n    return circuit")
    head, helpers = doc["canonical"].split("\n\n\ndef ", 1)   # end of build_circuit
    return head + f"\n    {line}\n\n\ndef " + helpers


def _wrong_answers(docs) -> list[tuple[str, dict, str]]:
    def pick(slug, fw, index, split="test"):
        return next(d for d in docs if (d["problem"], d["framework"], d["doc_id"], d["split"])
                    == (slug, fw, index, split))

    out = []
    for fw in vqe.PROBLEM.frameworks:
        out.append(("vqe_wrong_sign", pick("vqe", fw, 2), _edit(
            pick("vqe", fw, 2), "h = hamiltonian(n, terms).real", "h = -hamiltonian(n, terms).real")))
        for index in (2, 5):   # an Ising and a Heisenberg chain: product states fall short
            doc = pick("vqe", fw, index)
            out.append(("vqe_no_entangler", doc, _edit(
                doc, "return [(k, k + 1) for k in range(n - 1)]", "return []")))
    for fw in autoencoder.PROBLEM.frameworks:
        doc = pick("autoencoder", fw, 3)
        params = json.loads(doc["params"])
        trash = next(q for q in range(params["n"]) if q not in params["latent"])
        latent = params["latent"][0]
        if fw == "qasm":    # an X left on a trash qubit
            out.append(("autoencoder_trash_not_reset", doc, _append(doc, f"x q[{trash}];")))
            out.append(("autoencoder_phases_lost", doc, _append(doc, f"z q[{latent}];")))
            continue
        # the trash keeps the codeword's bits instead of being reset
        out.append(("autoencoder_trash_not_reset", doc, _edit(
            doc, "target = [0] * n", "target = list(image[j])")))
        z = {"qiskit": "qc.z(latent[0])", "cirq": "cirq.Z(q[latent[0]])",
             "pennylane": "qml.PauliZ(wires=latent[0])"}[fw]
        out.append(("autoencoder_phases_lost", doc, _append(doc, z)))   # (-1)^(bit 0 of j)
    no_final_h = {"qiskit": ("    qc.h(0)\n    return qc", "    return qc"),
                  "cirq": ("    circuit.append(cirq.H(q[0]))\n", "")}
    for fw in swap_test.PROBLEM.frameworks:
        doc = pick("swap_test", fw, 1)   # m = 3
        m = json.loads(doc["params"])["m"]
        if fw == "qasm":
            text = doc["canonical"]
            cut = text.rindex("h q[0];")
            out.append(("swap_test_no_final_h", doc, text[:cut] + text[cut + len("h q[0];\n"):]))
            reversed_b = re.sub(r"cswap q\[0\], q\[(\d+)\], q\[(\d+)\];",
                                lambda g, m=m: f"cswap q[0], q[{g[1]}], q[{3 * m + 1 - int(g[2])}];", text)
            out.append(("swap_test_wrong_pairing", doc, reversed_b))   # A_i with B_(m-1-i)
            continue
        if fw == "pennylane":
            text = doc["canonical"]
            cut = text.rindex("\n    qml.Hadamard(wires=0)")
            out.append(("swap_test_no_final_h", doc,
                        text[:cut] + text[cut + len("\n    qml.Hadamard(wires=0)"):]))
        else:
            out.append(("swap_test_no_final_h", doc, _edit(doc, *no_final_h[fw])))
        out.append(("swap_test_wrong_pairing", doc, _edit(doc, "m + 1 + i", "2 * m - i")))
    for label, doc, text in out:
        assert text != doc["canonical"], label
    return out


# --- instance properties ------------------------------------------------------------------------
def _parse_hamiltonian(prompt: str) -> list[tuple[float, str, list[int]]]:
    line = re.search(r"^H = (.*)$", prompt, re.MULTILINE).group(1)
    terms = []
    for sign, coefficient, ops in re.findall(r"(^-|[+-] |^)(\d+\.\d\d) ((?:[XYZ]\d+ ?)+)", line):
        value = float(coefficient) * (-1 if sign.strip() == "-" else 1)
        pairs = re.findall(r"([XYZ])(\d+)", ops)
        terms.append((value, "".join(p for p, _ in pairs), [int(q) for _, q in pairs]))
    return terms


def _check_vqe_instance(doc):
    params = json.loads(doc["params"])
    n, terms = params["n"], params["terms"]
    assert [(c, p, q) for c, p, q in terms] == _parse_hamiltonian(doc["prompt"])
    h = vqe.hamiltonian_matrix(n, terms)
    assert np.allclose(h, h.conj().T)
    energies = np.linalg.eigvalsh(h)
    spec = json.loads(doc["check"])
    assert spec["sense"] == "min" and spec["optimum"] == pytest.approx(energies[0], abs=1e-8)
    assert energies[1] - energies[0] >= vqe.MIN_GAP * abs(energies[0])   # non-degenerate
    # every product state, real or complex, is > 3x the tolerance away from E0
    product = vqe.best_product_energy(n, h, np.random.default_rng(1))
    assert product - energies[0] >= 3 * th.VARIATIONAL_TOLERANCE * abs(energies[0])
    # the canonical is a variational loop, not a diagonalization
    code = canonical_code(doc["canonical"])
    assert "minimize(" in code and "eig" not in code and "initialize" not in code


def _check_autoencoder(doc):
    params = json.loads(doc["params"])
    n, k, latent, words = params["n"], params["k"], params["latent"], params["codewords"]
    assert 3 <= n <= 7 and 1 <= k <= 3 and len(latent) == k
    assert len({tuple(w) for w in words}) == len(words) == 2**k
    for j, w in enumerate(words):
        assert f"c_{j} = {w}" in doc["prompt"]
    assert f"latent register is qubits {latent}" in doc["prompt"]
    # natively: a random superposition of codewords is compressed, phases kept, trash reset
    u = unitary_to_internal(native_unitary(doc), doc["framework"])   # bit q of index = qubit q
    amplitudes = np.random.default_rng(n).normal(size=2**k) * np.exp(1j * np.arange(2**k))
    psi = np.zeros(2**n, dtype=complex)
    want = np.zeros(2**n, dtype=complex)
    for j, w in enumerate(words):
        psi[sum(b << q for q, b in enumerate(w))] += amplitudes[j]
        want[sum(((j >> i) & 1) << q for i, q in enumerate(latent))] += amplitudes[j]
    out = u @ psi
    assert abs(np.vdot(want, out)) ** 2 / np.vdot(want, want).real ** 2 > 1 - 1e-9


def _check_swap_test(doc):
    """Ancilla P(0) = (1 + |<a|b>|^2) / 2 for random |a>, |b>, by the framework's simulator."""
    m = json.loads(doc["params"])["m"]
    u = unitary_to_internal(native_unitary(doc), doc["framework"])   # bit q of index = qubit q
    rng = np.random.default_rng(m)
    for _ in range(3):
        a, b = (rng.normal(size=2**m) + 1j * rng.normal(size=2**m) for _ in range(2))
        a, b = a / np.linalg.norm(a), b / np.linalg.norm(b)
        # register A (qubits 1..m) above the ancilla, B (qubits m+1..2m) above A
        psi = np.kron(b, np.kron(a, [1.0, 0.0]))
        out = u @ psi
        p0 = float(np.sum(np.abs(out[0::2]) ** 2))
        assert p0 == pytest.approx((1 + abs(np.vdot(a, b)) ** 2) / 2, abs=1e-9)


# --- the test ------------------------------------------------------------------------------------
def test_variational_problems_end_to_end():
    from lm_eval_quantum.scoring import score_samples

    docs = _docs()
    for module in MODULES:
        problem = module.PROBLEM
        test, few = problem.instances("test"), problem.instances("fewshot")
        keys = {json.dumps(p, sort_keys=True) for p in test}
        assert len(test) >= 3 and few and not keys & {json.dumps(p, sort_keys=True) for p in few}
        sizes = {problem.width(p) for p in test}
        assert len(sizes) >= 3 and max(sizes) >= 4
    checks = {"vqe": _check_vqe_instance, "autoencoder": _check_autoencoder,
              "swap_test": _check_swap_test}
    for doc in docs:
        if doc["problem"] != "vqe" or doc["framework"] == "qiskit":
            checks[doc["problem"]](doc)

    wrong = _wrong_answers(docs)
    items = [(d, d["canonical"], s) for d in docs for s in SAMPLES]
    items += [(doc, text, 0) for _, doc, text in wrong]
    verdicts = score_samples(items, progress=False)

    canon = verdicts[:len(docs) * len(SAMPLES)]
    bad = [(d["problem"], d["framework"], d["split"], d["doc_id"], s, v["category"], v["message"])
           for (d, _, s), v in zip(items, canon) if not v["passed"]]
    assert not bad, bad
    for (d, _, _), v in zip(items, canon):   # VQE: E / E0 within the tolerance of 1
        slack = th.VARIATIONAL_TOLERANCE if d["problem"] == "vqe" else 1e-6
        assert v["score"] == pytest.approx(1.0, abs=slack), (d["problem"], v["message"])
    for (label, doc, _), v in zip(wrong, verdicts[len(canon):]):
        assert not v["passed"] and v["category"] == "wrong_answer", (
            label, doc["framework"], doc["doc_id"], v["category"], v["message"])
