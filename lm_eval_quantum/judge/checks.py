"""The trusted judge of one sample: serves the oracle, then grades the artifact.

A `Session` is created per (doc, sample).  It builds the sandbox job (which
never contains hidden data), answers the candidate's simulator requests (for
the submitted circuit only: no classical probes of the oracle) by
plugging in the hidden oracle of the requested test (exact simulation, counts
sampled with a generator seeded from the sample's key, shots metered; for a
deterministic algorithm uniformly from every outcome that can occur, see
thresholds.SUPPORT_FLOOR), and
turns what came back into a verdict.  Nothing the candidate sends is trusted:
every message is validated, and the candidate can neither claim success nor
claim an infrastructure fault.
"""
from __future__ import annotations

import json
import zlib

import numpy as np

from .. import thresholds as th
from ..problems import get_problem
from ..wire import SizeLimitError, WireError, check_circuit
from . import gateset, simulate
from .grading import CHECKS, CheckFailure, served_distribution

# Categories a candidate may report about itself; "ok" and "infra" are the judge's.
CANDIDATE_CATEGORIES = {"no_code", "syntax", "missing_api", "runtime", "timeout",
                        "resource_limit", "shape_mismatch"}


def empty_verdict(category: str, message: str, **extra) -> dict:
    verdict = {
        "passed": False, "score": 0.0, "category": category, "message": message,
        "syntax_ok": category not in ("no_code", "syntax", "infra"),
        "exec_ok": False, "fidelity": None, "tvd": None, "kl": None, "gate_count": None, "depth": None,
        "two_qubit_gates": None, "shots_used": 0, "oracle_calls": 0,
        "cpu_seconds": None, "wall_seconds": None, "isolation": None, "retried": False,
    }
    verdict.update(extra)
    return verdict


class Session:
    def __init__(self, doc: dict, sample_index: int = 0):
        self.doc = doc
        self.framework = doc["framework"]
        self.spec = json.loads(doc["check"])
        self.params = json.loads(doc["params"])
        self.problem = get_problem(doc["problem"])
        self.key = (doc["problem"], self.framework, doc["doc_id"], sample_index)
        self.artifact = None
        self.batch: dict[int, dict] = {}   # batch jobs: entry index -> circuit
        self.error = None
        self.answers: dict[int, object] = {}
        self.shots: dict[int, int] = {}
        self.requests = 0

    # --- the job sent to the sandbox: no hidden data --------------------------------
    def job(self, sources: dict, limits: th.SandboxLimits) -> dict:
        return {
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

    def needed_sources(self) -> tuple[str, ...]:
        if self.framework == "qasm":
            return ("qasm", "python") if self.spec.get("post") else ("qasm",)
        return ("python",)

    # --- messages from the sandbox ---------------------------------------------------
    def on_message(self, msg: dict):
        kind = msg["type"]
        if kind == "artifact" and "index" in msg:
            self.batch.setdefault(msg["index"], msg.get("circuit"))
            if msg["index"] == 0 and self.artifact is None:
                self.artifact = msg.get("circuit")
        elif kind == "artifact" and self.artifact is None:
            self.artifact = msg.get("circuit")
        elif kind == "error" and self.error is None:
            category = msg["category"] if msg["category"] in CANDIDATE_CATEGORIES else "runtime"
            self.error = (category, msg["message"][:2000])
        elif kind == "answer":
            self.answers.setdefault(msg["test"], msg.get("value"))
        elif kind == "run":
            return self._serve_run(msg)
        return None

    def _serve_run(self, msg: dict) -> dict:
        tests = self.spec.get("hidden") or []
        test = msg["test"]
        if not 0 <= test < len(tests):
            return {"error": f"no test {test}"}
        used = self.shots.get(test, 0) + msg["shots"]
        if used > th.MAX_SHOTS_PER_TEST:
            return {"error": f"shot budget exceeded: at most {th.MAX_SHOTS_PER_TEST} shots per test"}
        if msg.get("circuit") != self.artifact:
            # query complexity is the submitted circuit's: no classical probes of the oracle
            return {"error": "simulator.run accepts only the circuit that build_circuit returned "
                             "(unchanged, not transpiled)"}
        try:
            circuit = check_circuit(msg.get("circuit"), th.MAX_STATE_QUBITS, th.MAX_OPS)
            oracle_ops = [op for op in circuit["ops"] if op["name"] == "oracle"]
            oracle = None
            if oracle_ops:
                width = len(oracle_ops[0]["qubits"])
                if any(len(op["qubits"]) != width for op in oracle_ops) or width != self.spec["oracle"]["num_qubits"]:
                    return {"error": f"the Oracle gate acts on {self.spec['oracle']['num_qubits']} qubits"}
                oracle = self.problem.oracle(tests[test], self.framework, width)
            dist = simulate.measurement_distribution(circuit, oracle=oracle)
        except (WireError, simulate.SimulationError) as exc:
            return {"error": str(exc)}
        dist = served_distribution(dist, self.spec.get("canonical_success", 1.0))
        self.shots[test] = used
        self.requests += 1
        rng = np.random.default_rng([zlib.crc32(str(k).encode()) for k in (*self.key, test, self.requests)])
        return {"counts": simulate.sample_counts(dist, msg["shots"], rng)}

    # --- the verdict -------------------------------------------------------------------
    def verdict(self, result) -> dict:
        extra = {
            "cpu_seconds": result.cpu_seconds, "wall_seconds": result.wall_seconds,
            "isolation": result.isolation, "retried": result.retried,
            "shots_used": sum(self.shots.values()), "oracle_calls": self.requests,
        }
        if result.status == "infra":
            return empty_verdict("infra", f"sandbox infrastructure failure: {result.detail}", **extra)
        if self.error is not None:
            return empty_verdict(*self.error, **extra)
        if result.status in ("timeout", "cpu_limit"):
            what = "CPU" if result.status == "cpu_limit" else "wall-clock"
            return empty_verdict("timeout", f"{what} time limit exceeded", **extra)
        if result.status == "protocol":
            return empty_verdict("runtime", f"invalid output: {result.detail}", **extra)
        if result.status == "signaled":
            return empty_verdict("runtime", f"the program was killed by signal {result.signal}", **extra)
        if self.artifact is None:
            return empty_verdict("runtime", "the program ended without producing a circuit", **extra)
        try:
            circuit = check_circuit(self.artifact, th.MAX_STATE_QUBITS, th.MAX_OPS)
            extra.update(simulate.circuit_stats(circuit))
            extra.pop("num_qubits", None)
            if circuit["num_qubits"] != self.spec["num_qubits"]:
                return empty_verdict(
                    "shape_mismatch",
                    f"the circuit has {circuit['num_qubits']} qubits; the task asks for "
                    f"{self.spec['num_qubits']}", **extra)
            if self.spec.get("gate_set"):
                broken = gateset.violation(circuit, self.spec["gate_set"])
                if broken:
                    return empty_verdict("wrong_answer", broken, exec_ok=True, **extra)
            grade = CHECKS[self.spec["kind"]](self, circuit)
        except CheckFailure as exc:
            return empty_verdict(exc.category, str(exc), **extra)
        except SizeLimitError as exc:
            return empty_verdict("resource_limit", str(exc), **extra)
        except (WireError, simulate.SimulationError) as exc:
            return empty_verdict("runtime", str(exc), **extra)
        return empty_verdict("ok" if grade.passed else "wrong_answer", grade.message,
                             passed=bool(grade.passed), score=float(grade.score), exec_ok=True,
                             **{**extra, **grade.numbers})
