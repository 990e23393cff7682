"""The `game` check kind: a nonlocal game played by one program whose qubits belong to
players (CHSH, GHZ, magic square).

game (inputs, outputs, protocol, min_win): the referee's questions are computational-basis
  values of the qubits `inputs` (each player owns the input qubits of its own question,
  `protocol`), every other qubit starts in |0>; the players' answers are the
  computational-basis values of the qubits `outputs` at the end (a qubit just measured
  holds its outcome).  The Reference's target is the game's table {question key: [winning
  answer keys]} (key character j = value of inputs[j], resp. outputs[j]; the same in every
  framework), its questions asked uniformly.  The judge runs the program exactly on every
  question (mid-circuit measurement, reset and classical control included: judge.dynamic)
  and computes the exact win probability, which must reach `min_win` (the task's stated
  bound: the quantum optimum minus GAME_WIN_EPS); and the players' locality holds
  (judge.locality: no player's gate touches another player's qubits or question, and the
  shared state's source acts before the players do).
"""
from __future__ import annotations

import numpy as np

from lm_eval_quantum import thresholds as th
from lm_eval_quantum.judge import dynamic
from lm_eval_quantum.judge.grading import Grade, with_locality
from lm_eval_quantum.judge.kinds import Kind
from lm_eval_quantum.judge.kinds.classical_answer import answer_probabilities


def win_probabilities(circuit: dict, inputs: list[int], outputs: list[int], table: dict):
    """{question key: the exact probability that the answers win on that question}, and the
    probability mass the exact simulation dropped (pruned branches, loop tails)."""
    keys = sorted(table)
    xs = [sum(int(c) << j for j, c in enumerate(key)) for key in keys]
    vectors = np.eye(2 ** len(inputs), dtype=complex)[:, xs]
    branches = dynamic.run(circuit, dynamic.input_columns(circuit["num_qubits"], inputs, vectors))
    probs = answer_probabilities(branches, outputs)      # (2^|outputs|, questions)
    wins = {}
    for i, key in enumerate(keys):
        rows = [sum(int(c) << j for j, c in enumerate(out)) for out in table[key]]
        wins[key] = float(probs[rows, i].sum())
    return wins, branches.dropped


def grade_game(session, circuit) -> Grade:
    spec, table = session.spec, session.reference.target()
    inputs, outputs = list(spec["inputs"]), list(spec["outputs"])
    wins, dropped = win_probabilities(circuit, inputs, outputs, table)
    win = float(np.mean(list(wins.values())))
    bound = float(spec["min_win"])
    numbers = {"success_probability": win}
    if dropped:
        numbers["dropped_probability"] = dropped
    worst = min(wins, key=wins.get)
    names = (spec.get("protocol") or {}).get("names") or [f"q[{q}]" for q in inputs]
    question = ", ".join(f"{names[q]}={c}" for q, c in zip(inputs, worst))
    message = (f"exact win probability over the {len(wins)} questions: {win:.6f} (required "
               f">= {bound:.6f}); the worst question ({question}) is won with probability "
               f"{wins[worst]:.6f}")
    return with_locality(spec, circuit, Grade(win >= bound, win, message, numbers))


KIND = Kind(
    name="game", grade=grade_game, metrics=("success_probability", "measurement_ratio", "reset_ratio"),
    seed_free=True, by_category=False,
    rule="the players' locality (judge/locality.py: each player acts only on its own question "
         "and its share of the entangled state, after the source prepared it; no gate couples "
         "players) and the exact win probability over the game's questions, asked uniformly "
         "(measurements, resets and classical control included), reaches the task's stated "
         f"bound (the quantum optimum minus {th.GAME_WIN_EPS:g})")
