"""Seeded draws: every instance, hidden test and random circuit comes from `seeded_rng`
with a stable key, and, while a private split is drawn (lm_eval_quantum.splits), from its
secret too."""
from __future__ import annotations

# The secret of a private split (lm_eval_quantum.splits): 32-bit words of its SHA-256,
# mixed into every seeded draw while `secret_draws` is active.
_SECRET_WORDS: tuple = ()


def seeded_rng(*key):
    """A numpy Generator seeded from a stable key (strings and ints), and from the
    private split's secret while one is being drawn."""
    import numpy as np

    from lm_eval_quantum.judge.grading import key_words

    words = [*_SECRET_WORDS, *key_words(*key)]
    return np.random.default_rng(words)


class secret_draws:
    """``with secret_draws(secret):`` every `seeded_rng` draw (instances, hidden tests,
    random circuits) also depends on all 256 bits of sha256(secret); same key, other
    numbers.  Not re-entrant across threads: the split builder is one thread."""

    def __init__(self, secret: bytes):
        import hashlib

        digest = hashlib.sha256(b"lm-eval-quantum private split\0" + secret).digest()
        self.words = tuple(int.from_bytes(digest[i:i + 4], "big") for i in range(0, 32, 4))

    def __enter__(self):
        global _SECRET_WORDS
        self.saved, _SECRET_WORDS = _SECRET_WORDS, self.words
        return self

    def __exit__(self, *exc):
        global _SECRET_WORDS
        _SECRET_WORDS = self.saved
        return False


def private_rows(problem, draw) -> list[dict]:
    """Problem.private_instances for a fixed test table: per public test row, draw(rng,
    params) with rng = seeded_rng(slug, "private", row index), an instance like that row,
    drawn again while it repeats an earlier one (the tables' rows are distinct)."""
    rows = []
    for row, params in enumerate(problem.instances("test")):
        rng = seeded_rng(problem.slug, "private", row)
        drawn = draw(rng, params)
        while drawn in rows:
            drawn = draw(rng, params)
        rows.append(drawn)
    return rows


def json_key(params) -> str:
    """An instance's content (its seed aside), to keep the splits disjoint."""
    import json

    return json.dumps({k: v for k, v in params.items() if k != "seed"}, sort_keys=True)


def slot_instances(problem, split: str, draw, restart: bool = True) -> list[dict]:
    """Problem.instances for the slots `TEST_SLOTS` (test) or `FEWSHOT_SLOTS`: per slot,
    the first draw(slot index, slot, seed) for seed = 0, 1, ... (or, unless `restart`,
    from the seed after the previous slot's) that is an instance (not None) whose content
    (`json_key`) is new to the split and, in the few-shot split, to the test split."""
    slots = problem.TEST_SLOTS if split == "test" else problem.FEWSHOT_SLOTS
    seen = set() if split == "test" else {json_key(p) for p in problem.instances("test")}
    out, seed = [], 0
    for index, slot in enumerate(slots):
        seed = 0 if restart else seed
        while True:
            params = draw(index, slot, seed)
            seed += 1
            if params is not None and json_key(params) not in seen:
                seen.add(json_key(params))
                out.append(params)
                break
    return out


class public_draws(secret_draws):
    """``with public_draws():`` the public draws again, inside a private split's drawing
    (a problem whose private rows must match its public rows' shape)."""

    def __init__(self):
        self.words = ()
