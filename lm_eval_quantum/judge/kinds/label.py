"""The `label` check kind.

label (accepted): the first line number (locate) or category code C1-C4 (classify)
  of the answer is one of `accepted`; no code runs (the debugging label tasks).
"""
from __future__ import annotations

from lm_eval_quantum.judge.kinds import Kind


KIND = Kind(
    name="label", grade=None, metrics=("accuracy",),
    seed_free=False, by_category=True,
    rule="the first line number (locate) or category code C1-C4 (classify) of the answer is "
         "the recorded bug's (for a repeated gate, either copy's line); no code runs")
