"""The trusted judge of one sample: serves the oracle, then grades the artifact.

A `Session` is created per (doc, sample).  It builds the sandbox job (which
never contains hidden data), answers the candidate's simulator requests (for
the submitted circuit, or one equivalent to it whatever the oracle, such as its
transpiled form (`equivalence`): no classical probes of the oracle) by plugging
the hidden oracle of the requested test into the submitted circuit (exact
simulation, counts sampled with a generator seeded from the sample's key, shots
metered; for a deterministic algorithm uniformly from every outcome that can
occur, see thresholds.SUPPORT_FLOOR), and turns what came back into a verdict.
Nothing the candidate sends is trusted: every message is validated
(`wire.check_message`, a strict schema), and the candidate can neither claim
success nor claim an infrastructure fault.  The judge is total on candidate
data: `on_message` and `verdict` never raise; a malformed message or an
exception while judging becomes a runtime verdict ("malformed output: ..."),
logged to "lm_eval.quantum" when it was unexpected.
"""
from __future__ import annotations

import hashlib
import json
import logging

from .. import thresholds as th
from lm_eval_quantum.runtime.wire import (
    CATEGORIES, SizeLimitError, WireError, check_circuit, check_message, op_kind)
from . import equivalence, simulate, structure
from .grading import CheckFailure, key_rng, key_words, served_distribution
from .kinds import CHECKS, KINDS
from .reference import Reference

log = logging.getLogger("lm_eval.quantum")

# Categories a candidate may report about itself; the others are the judge's.
CANDIDATE_CATEGORIES = frozenset(CATEGORIES) - {"ok", "wrong_answer", "infra"}
# The oracle service's refusal of a run request (judge.equivalence says why).
RUN_REFUSAL = ("simulator.run accepts the circuit build_circuit returned, or one equivalent "
               "to it such as transpile(circuit, simulator)")


def empty_verdict(category: str, message: str, **extra) -> dict:
    verdict = {
        "passed": False, "score": 0.0, "category": category, "message": message,
        "syntax_ok": category not in ("no_code", "syntax", "infra"),
        "exec_ok": False, "fidelity": None, "tvd": None, "kl": None, "gate_count": None, "depth": None,
        "two_qubit_gates": None, "mid_circuit_measurements": None, "resets": None,
        "shots_used": 0, "oracle_calls": 0,
        "cpu_seconds": None, "wall_seconds": None, "isolation": None, "retried": False,
    }
    verdict.update(extra)
    return verdict


class Session:
    """The judging of one sample: the doc's public check spec, the `Reference` the caller
    computed from the doc's problem (scoring.session_for) and what the sandbox sent back."""

    def __init__(self, doc: dict, sample_index: int = 0, *, reference: Reference):
        self.doc = doc
        self.reference = reference
        self.framework = doc["framework"]
        self.spec = json.loads(doc["check"])
        self.params = json.loads(doc["params"])
        self.key = (doc["problem"], self.framework, doc["doc_id"], sample_index)
        self.artifact = None
        self.batch: dict[int, dict] = {}   # batch jobs: entry index -> circuit
        self.error = None
        self.answers: dict[int, object] = {}
        self.shots: dict[int, int] = {}
        self.requests = 0
        self.malformed: str | None = None     # the first malformed message's reason
        self._served: dict[int, dict] = {}    # test -> distribution the oracle service samples
        self._equivalent: dict[bytes, str | None] = {}   # run circuit -> judge.equivalence.differs
        # one judge budget for everything simulated for this sample: the oracle service
        # (on the pool's thread) and the verdict (thresholds.JUDGE_WORK_BUDGET)
        self.budget = simulate.Budget()

    # --- the job sent to the sandbox: no hidden data --------------------------------
    def job(self, sources: dict, limits: th.SandboxLimits) -> dict:
        job = {
            "framework": self.framework,
            "sources": sources,
            "entry": self.spec["entry"],
            "args": self.spec["args"],
            "num_qubits": self.spec["num_qubits"],
            "oracle": self.spec.get("oracle"),
            "post": self.spec.get("post"),
            "batch": self.spec.get("batch"),
            "whole_gates": bool(self.spec.get("gate_set")),
            "limits": limits.as_dict(),
        }
        if self.spec.get("calls") is not None:   # a function task: its hidden inputs (returns)
            job["calls"] = self.spec["calls"]
        return job

    def needed_sources(self) -> tuple[str, ...]:
        if self.framework == "qasm":
            return ("qasm", "python") if self.spec.get("post") else ("qasm",)
        return ("python",)

    # --- messages from the sandbox ---------------------------------------------------
    def on_message(self, msg) -> dict | None:
        """Take one message from the sandbox; the reply for a run request, else None.

        Total: the message is validated here too (`wire.check_message`, as the pool
        does before), and nothing a candidate sends makes this raise.  A malformed
        message fails the sample (`verdict`: runtime, "malformed output: ...");
        an unexpected exception is logged (it may be a judge bug) and charged to the
        sample the same way, never to the infrastructure."""
        kind = msg.get("type") if isinstance(msg, dict) else None
        try:
            msg = check_message(msg)
        except WireError as exc:
            self._malformed(str(exc))
            return {"error": f"malformed run request: {exc}"} if kind == "run" else None
        try:
            return self._take(msg)
        except Exception as exc:  # noqa: BLE001 - candidate data must never crash the judge
            log.warning("judge: a %s message of %s could not be processed; charged to the "
                        "sample as malformed output", kind, self._name(), exc_info=True)
            self._malformed(f"the judge could not process a {kind} message "
                            f"({type(exc).__name__})")
            return {"error": "the judge could not process this request"} if kind == "run" else None

    def _name(self) -> str:
        problem, framework, doc_id, sample = self.key
        return f"{framework}_{problem} doc {doc_id} sample {sample}"

    def _malformed(self, reason: str) -> None:
        if self.malformed is None:
            self.malformed = reason[:2000]

    def _take(self, msg: dict):
        kind = msg["type"]
        if kind == "artifact" and "index" in msg:
            self.batch.setdefault(msg["index"], msg["circuit"])
            if msg["index"] == 0 and self.artifact is None:
                self.artifact = msg["circuit"]
        elif kind == "artifact" and self.artifact is None:
            self.artifact = msg["circuit"]
        elif kind == "error" and self.error is None:
            category = msg["category"] if msg["category"] in CANDIDATE_CATEGORIES else "runtime"
            self.error = (category, msg["message"][:2000])
        elif kind == "answer":
            self.answers.setdefault(msg["test"], msg["value"])
        elif kind == "run":
            return self._serve_run(msg)
        return None

    def _serve_run(self, msg: dict) -> dict:
        """Counts for a validated run request, or {"error": reason}; never raises."""
        try:
            with simulate.metered(self.budget):
                return self._run(msg)
        except (WireError, simulate.SimulationError) as exc:
            return {"error": str(exc)}
        except Exception as exc:  # noqa: BLE001 - a reply, never an exception (nor infra)
            # the text may name hidden data (the oracle): it goes to the log, not the candidate
            log.warning("judge: a run request of %s could not be served (%s); the candidate "
                        "gets an error reply", self._name(), type(exc).__name__, exc_info=True)
            return {"error": "the judge could not run this circuit"}

    def _run(self, msg: dict) -> dict:
        tests = self.spec.get("hidden") or []
        test = msg["test"]
        if not 0 <= test < len(tests):
            return {"error": f"no test {test}"}
        used = self.shots.get(test, 0) + msg["shots"]
        # a task may allow fewer shots (each shot is one more use of the oracle)
        most = min(th.MAX_SHOTS_PER_TEST, int(self.spec.get("max_shots", th.MAX_SHOTS_PER_TEST)))
        if used > most:
            return {"error": f"shot budget exceeded: at most {most} shot{'s' * (most != 1)} per test"}
        if self.artifact is None:
            return {"error": f"{RUN_REFUSAL}; build_circuit has not returned a circuit"}
        if msg["circuit"] != self.artifact:
            # query complexity is the submitted circuit's: no classical probes of the oracle;
            # an equivalent circuit (judge.equivalence, decided without the oracle) is served
            # the artifact's samples
            reason = self._differs(msg["circuit"])
            if reason is not None:
                return {"error": f"{RUN_REFUSAL}; this circuit differs: {reason}"}
        if test not in self._served:   # the artifact is served: one simulation per test
            # the oracle service keeps the small cap (its counts are dicts per outcome)
            circuit = check_circuit(self.artifact, th.MAX_QUBITS_OTHER_KINDS, th.MAX_OPS)
            oracle_ops = [op for op in circuit["ops"] if op_kind(op) == "oracle"]
            oracle = None
            if oracle_ops:
                width = len(oracle_ops[0]["qubits"])
                spec = self.spec.get("oracle") or {}
                if any(len(op["qubits"]) != width for op in oracle_ops) or width != spec.get("num_qubits"):
                    return {"error": f"the Oracle gate acts on {spec.get('num_qubits')} qubits"}
                oracle = self.reference.oracle(tests[test], width)
            dist = simulate.measurement_distribution(circuit, oracle=oracle)
            self._served[test] = served_distribution(dist, self.spec.get("canonical_success", 1.0))
        self.shots[test] = used
        self.requests += 1
        rng = key_rng(*self.key, test, self.requests)
        return {"counts": simulate.sample_counts(self._served[test], msg["shots"], rng)}

    def _differs(self, circuit: dict) -> str | None:
        """Where a run request's circuit differs from the artifact (None: equivalent for
        every oracle, judge.equivalence); decided once per distinct circuit."""
        key = hashlib.sha256(json.dumps(circuit, sort_keys=True).encode()).digest()
        if key not in self._equivalent:
            artifact = check_circuit(self.artifact, th.MAX_QUBITS_OTHER_KINDS, th.MAX_OPS)
            seed = key_words(repr(self.key))[0]    # one word, of the whole key's repr
            self._equivalent[key] = equivalence.differs(artifact, circuit, seed)
        return self._equivalent[key]

    # --- the verdict -------------------------------------------------------------------
    def verdict(self, result) -> dict:
        """The sample's verdict from the sandbox's `result` (a pool.RunResult) and the
        messages taken.  Total: an exception while judging the candidate's data is
        logged and becomes a runtime verdict ("malformed output"), never an exception
        out of scoring and never infra (infra only when the pool says so: a fault of
        the sandbox itself, retried once)."""
        extra = {
            "cpu_seconds": result.cpu_seconds, "wall_seconds": result.wall_seconds,
            "isolation": result.isolation, "retried": result.retried,
            "shots_used": sum(self.shots.values()), "oracle_calls": self.requests,
        }
        if result.status == "infra":
            return empty_verdict("infra", f"sandbox infrastructure failure: {result.detail}", **extra)
        try:
            with simulate.metered(self.budget):
                return self._verdict(result, dict(extra))
        except Exception as exc:  # noqa: BLE001 - the candidate's data, never a crash
            log.warning("judge: the answer of %s could not be judged (%s); charged to the "
                        "sample as malformed output", self._name(), type(exc).__name__,
                        exc_info=True)
            return empty_verdict("runtime", "malformed output: the judge could not evaluate "
                                 f"the circuit ({type(exc).__name__})", **extra)

    def _error_shown(self) -> tuple[str, str]:
        """The candidate's error as the verdict shows it: its message withheld when the
        program failed while building the circuit of a hidden input (a batch entry past
        the `listed` ones: the entries arrive in order), since the message is the
        candidate's own text and could spell the input out."""
        category, message = self.error
        batch, listed = self.spec.get("batch"), self.spec.get("listed")
        if batch and listed is not None and len(self.batch) >= listed:
            return category, (f"the program failed ({category}) while building the circuit of "
                              "an unlisted input; its message is withheld, since it could reveal "
                              "the hidden input")
        return category, message

    def _verdict(self, result, extra: dict) -> dict:
        if self.malformed is not None:
            return empty_verdict("runtime", f"malformed output: {self.malformed}", **extra)
        if self.error is not None:
            return empty_verdict(*self._error_shown(), **extra)
        if result.status in ("timeout", "cpu_limit"):
            what = "CPU" if result.status == "cpu_limit" else "wall-clock"
            return empty_verdict("timeout", f"{what} time limit exceeded", **extra)
        if result.status == "protocol":
            return empty_verdict("runtime", f"malformed output: {result.detail}", **extra)
        if result.status == "signaled":
            return empty_verdict("runtime", f"the program was killed by signal {result.signal}", **extra)
        reads_circuit = KINDS[self.spec["kind"]].reads_circuit   # else a function's values
        if reads_circuit and self.artifact is None:
            return empty_verdict("runtime", "the program ended without producing a circuit", **extra)
        try:
            grade = self._grade(extra) if reads_circuit else CHECKS[self.spec["kind"]](self, None)
            if isinstance(grade, dict):      # a verdict already: the circuit breaks a rule
                return grade
        except CheckFailure as exc:
            return empty_verdict(exc.category, str(exc), **extra)
        except SizeLimitError as exc:
            return empty_verdict("resource_limit", str(exc), **extra)
        except (WireError, simulate.SimulationError) as exc:
            return empty_verdict("runtime", str(exc), **extra)
        return empty_verdict("ok" if grade.passed else "wrong_answer", grade.message,
                             passed=bool(grade.passed), score=float(grade.score), exec_ok=True,
                             **{**extra, **grade.numbers})

    def _grade(self, extra: dict):
        """The check kind's Grade of the returned circuit, or the verdict of the shape or
        structural rule it breaks; adds the circuit's statistics to `extra`."""
        circuit = check_circuit(self.artifact, th.MAX_STATE_QUBITS, th.MAX_OPS)
        extra.update(simulate.circuit_stats(circuit))
        extra.pop("num_qubits", None)
        widest = KINDS[self.spec["kind"]].max_qubits
        if circuit["num_qubits"] > widest:
            return empty_verdict(
                "resource_limit",
                f"the circuit has {circuit['num_qubits']} qubits; a {self.spec['kind']} check "
                f"simulates at most {widest}", **extra)
        if circuit["num_qubits"] != self.spec["num_qubits"]:
            return empty_verdict(
                "shape_mismatch",
                f"the circuit has {circuit['num_qubits']} qubits; the task asks for "
                f"{self.spec['num_qubits']}", **extra)
        broken = structure.violation(circuit, self.spec)
        if broken:
            return empty_verdict("wrong_answer", broken, exec_ok=True, **extra)
        return CHECKS[self.spec["kind"]](self, circuit)
