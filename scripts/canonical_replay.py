#!/usr/bin/env python
"""Write a quantum-replay file answering the first LIMIT test docs of each task with its
canonical answer (a run whose every sample executes: CI checks the sandbox level on it).

    python scripts/canonical_replay.py quantum_qasm_ghz,quantum_qiskit_ghz OUT.jsonl [--limit 1]
"""
import argparse
import json

import lm_eval_quantum as lmq


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tasks", help="comma-separated task names")
    ap.add_argument("out")
    ap.add_argument("--limit", type=int, default=1)
    args = ap.parse_args()
    with open(args.out, "w") as fh:
        for task in args.tasks.split(","):
            for i, doc in enumerate(lmq.load_docs(task)[: args.limit]):
                fh.write(json.dumps({"task": task, "doc_id": i, "responses": [doc["canonical"]]}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
