"""The README's coverage tables, computed from the problems themselves.

    python scripts/coverage_table.py            # print the tables (markdown)
    python scripts/coverage_table.py --write    # replace them in README.md

Three tables: the function tasks by Qiskit HumanEval category and by difficulty level, per
framework; and the Quantum Katas curriculum's katas with the pack's problems that cover each
and their task count (one task per problem and framework).  tests/test_readme.py checks that
README.md holds exactly what this prints.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lm_eval_quantum.problems import all_problems  # noqa: E402
from lm_eval_quantum.problems.base import DIFFICULTIES, HUMANEVAL_CATEGORIES, FunctionTask  # noqa: E402

START, END = "<!-- coverage:start -->", "<!-- coverage:end -->"
PYTHON = ("qiskit", "cirq", "pennylane")

# Qiskit HumanEval's hand-curated release: its task count per category
HUMANEVAL_COUNTS = {
    "circuit generation": 28, "simulation and execution": 19,
    "state preparation and analysis": 7, "algorithm implementation": 14,
    "gate operations and manipulation": 17, "visualization and post-processing": 6,
    "advanced circuit manipulation": 8, "circuit serialization": 2}

# the Quantum Katas (microsoft/QuantumKatas, and its Qiskit port's categories) -> the pack's
# problems that teach and grade the same skill
KATAS = {
    "BasicGates": ("basic_gates",),
    "Superposition": ("structured_superposition", "bell_state", "ghz", "w_state", "dicke_state", "uniform_subset",
                      "uniform_range", "complex_amplitudes"),
    "Measurements": ("state_discrimination",),
    "DistinguishUnitaries": ("distinguish_unitaries",),
    "JointMeasurements": ("parity_measurement",),
    "Teleportation": ("teleportation", "gate_teleportation"),
    "SuperdenseCoding": ("superdense_coding",),
    "DeutschJozsaAlgorithm": ("deutsch_jozsa", "dj_explicit", "bernstein_vazirani", "bv_explicit",
                              "oracle_deutsch_jozsa", "oracle_bernstein_vazirani"),
    "SimonsAlgorithm": ("simon", "generalized_simon", "oracle_simon"),
    "GroversAlgorithm": ("grover", "grover_marked", "oracle_grover", "oracle_diffusion"),
    "SolveSATWithGrover": ("grover_sat", "oracle_sat"),
    "GraphColoring": ("grover_graph_coloring",),
    "BoundedKnapsack": ("grover_knapsack",),
    "QFT": ("qft", "draper_adder"),
    "PhaseEstimation": ("phase_estimation", "qpe_dyadic", "qpe_nondyadic", "iterative_phase_estimation"),
    "CHSHGame": ("chsh", "chsh_game"),
    "GHZGame": ("ghz_game",),
    "MagicSquareGame": ("magic_square_game",),
    "TruthTables": ("weight_oracle", "oracle_deutsch_jozsa"),
    "RippleCarryAdder": ("ripple_carry_adder",),
    "KeyDistribution_BB84": ("bb84",),
    "QEC_BitFlipCode": ("repetition_code",),
    "UnitaryPatterns": ("unitary_patterns",),
    "RandomNumberGeneration (tutorial)": ("random_number_generator",),
    "Oracles (tutorial)": ("weight_oracle", "oracle_bernstein_vazirani", "oracle_deutsch_jozsa"),
    "QuantumClassification (tutorial)": ("qml_classifier", "data_reuploading", "vqc_regression"),
}


def function_tables(problems) -> str:
    tasks = [p for p in problems if isinstance(p, FunctionTask)]
    head = "| {} | " + " | ".join(("Qiskit", "Cirq", "PennyLane")) + " |"

    def row(label, chosen, extra=""):
        counts = [sum(fw in p.frameworks for p in chosen) for fw in PYTHON]
        return f"| {label} |{extra} " + " | ".join(map(str, counts)) + " |"

    lines = ["| Qiskit HumanEval category | its tasks | Qiskit | Cirq | PennyLane |",
             "|---|---|---|---|---|"]
    for cat in HUMANEVAL_CATEGORIES:
        lines.append(row(cat, [p for p in tasks if p.category == cat], f" {HUMANEVAL_COUNTS[cat]} |"))
    lines.append(row("**all**", tasks, f" {sum(HUMANEVAL_COUNTS.values())} |"))
    lines += ["", head.format("difficulty"), "|---|---|---|---|"]
    for level in DIFFICULTIES:
        lines.append(row(level, [p for p in tasks if p.difficulty == level]))
    lines += ["", "| category | problems (frameworks: Q Qiskit, C Cirq, P PennyLane; compare rule) |",
              "|---|---|"]
    letters = {"qiskit": "Q", "cirq": "C", "pennylane": "P"}
    for cat in HUMANEVAL_CATEGORIES:
        chosen = sorted((p for p in tasks if p.category == cat), key=lambda p: p.slug)
        lines.append(f"| {cat} | " + ", ".join(
            f"`{p.slug}` ({''.join(letters[f] for f in PYTHON if f in p.frameworks)}; {p.compare})"
            for p in chosen) + " |")
    return "\n".join(lines)


def katas_table(problems) -> str:
    by_slug = {p.slug: p for p in problems}
    lines = ["| kata | the pack's problems | tasks |", "|---|---|---|"]
    for kata, slugs in KATAS.items():
        present = [s for s in slugs if s in by_slug]
        tasks = sum(len(by_slug[s].frameworks) for s in present)
        lines.append(f"| {kata} | {', '.join(f'`{s}`' for s in present) or '—'} | {tasks} |")
    return "\n".join(lines)


PROBLEM_SLUGS = frozenset(p.slug for p in all_problems())


def tables() -> str:
    problems = all_problems()
    return "\n".join([START, "", function_tables(problems), "", katas_table(problems), "", END])


def main(argv) -> int:
    text = tables()
    if "--write" not in argv:
        print(text)
        return 0
    readme = ROOT / "README.md"
    body = readme.read_text()
    if START not in body or END not in body:
        print(f"README.md has no {START} ... {END} block", file=sys.stderr)
        return 1
    head, rest = body.split(START, 1)
    readme.write_text(head + text + rest.split(END, 1)[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
