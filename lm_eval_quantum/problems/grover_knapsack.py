"""A bounded knapsack decision problem solved end to end with Grover search (check kind
`success_probability`; the family's base and rules: grover_sat.py).

Items i = 0..I-1 have a weight w_i, a value v_i and a bound on their copies, 1 or 3: the
count x_i of item i is the integer on its own 1 or 2 answer qubits (bit j on the item's
j-th qubit, the items' registers one after the other from qubit 0).  A solution is a count
vector with total weight sum w_i x_i <= W (the capacity) and total value sum v_i x_i >= V
(the value bound).  The value bound is drawn so that few count vectors reach it (at
most 8).  The canonical oracle is GroverSearch's default, one phase flip per solution
enumerated from the instance (a reversible weight and value comparator would need more
qubits than the judge's 14); the declared ancillas are scratch a candidate may use.
"""
from __future__ import annotations

from .grover_sat import GroverSearch


def item_qubits(copies) -> list[list[int]]:
    """The answer qubits of each item's count, in order (bit j on the j-th)."""
    out, start = [], 0
    for b in copies:
        width = 1 if b == 1 else 2
        out.append(list(range(start, start + width)))
        start += width
    return out


class GroverKnapsack(GroverSearch):
    slug = "grover_knapsack"
    title = "Bounded knapsack with Grover search"
    problem_name = "the bounded knapsack problem"
    solution_noun = "solution"
    arguments = (("n", "int"), ("weights", "list[int]"), ("values", "list[int]"),
                 ("copies", "list[int]"), ("capacity", "int"), ("min_value", "int"),
                 ("ancillas", "int"))
    # (items, answer qubits) per instance
    SIZES = {"test": [(3, 4), (3, 5), (4, 5), (4, 6), (5, 6), (5, 7)], "fewshot": [(4, 5), (4, 6)]}

    def draw(self, rng, size):
        items, n = size
        doubles = sorted(int(i) for i in rng.choice(items, size=n - items, replace=False))
        copies = [3 if i in doubles else 1 for i in range(items)]
        weights = [int(w) for w in rng.integers(1, 6, size=items)]
        values = [int(v) for v in rng.integers(1, 7, size=items)]
        heaviest = sum(w * b for w, b in zip(weights, copies))
        capacity = int(rng.integers(max(2, heaviest // 3), max(3, 2 * heaviest // 3) + 1))
        params = {"n": n, "weights": weights, "values": values, "copies": copies,
                  "capacity": capacity, "min_value": 0, "ancillas": min(6, 14 - n)}
        feasible = sorted((self.totals(params, x)[1] for x in range(2**n)
                           if self.totals(params, x)[0] <= capacity), reverse=True)
        rank = int(rng.integers(0, max(1, 2**n // 8)))
        params["min_value"] = feasible[min(rank, len(feasible) - 1)]
        return params

    def acceptable(self, params):
        """At most 8 solutions: the canonical oracle flips each one's phase."""
        return super().acceptable(params) and len(self.solutions(params)) <= 8

    def totals(self, params, x: int) -> tuple[int, int]:
        """(total weight, total value) of the answer register's value x."""
        counts = [sum(((x >> q) & 1) << j for j, q in enumerate(qs))
                  for qs in item_qubits(params["copies"])]
        return (sum(w * c for w, c in zip(params["weights"], counts)),
                sum(v * c for v, c in zip(params["values"], counts)))

    def is_solution(self, params, bits):
        weight, value = self.totals(params, sum(b << i for i, b in enumerate(bits)))
        return weight <= params["capacity"] and value >= params["min_value"]

    def describe(self, params):
        rows = []
        for i, (w, v, b, qs) in enumerate(zip(params["weights"], params["values"],
                                              params["copies"], item_qubits(params["copies"]))):
            where = (f"answer qubit {qs[0]}" if len(qs) == 1 else
                     f"answer qubits {qs[0]} and {qs[1]} (x_{i} is the value of qubit {qs[0]} plus twice "
                     f"the value of qubit {qs[1]})")
            rows.append(f"- item {i}: weight {w}, value {v}, at most {b} "
                        f"{'copy' if b == 1 else 'copies'}; its count x_{i} (0..{b}) is on {where}")
        items = "\n".join(rows)
        return (f"Choose how many copies x_i of each item to pack so that the total weight "
                f"sum_i w_i x_i is at most the capacity W = {params['capacity']} and the total "
                f"value sum_i v_i x_i is at least V = {params['min_value']}. The items "
                f"(weights {params['weights']}, values {params['values']}, bounds "
                f"{params['copies']}):\n{items}\nA solution is a value of the answer register "
                "whose counts meet both conditions.")

    def scratch_use(self, params):
        return " (for example to hold a running total)"

    def argument_notes(self, framework, params):
        return ("`n` is the number of answer qubits; `weights`, `values` and `copies` list the "
                "items' weights, values and copy bounds (1 or 3) in item order, `capacity` is W, "
                "`min_value` is V and `ancillas` the number of ancilla qubits.")

    is_solution_code = '''\
def is_solution(bits, weights, values, copies, capacity, min_value):
    """bits[i] is the value of answer qubit i: do its counts fit and reach the value?"""
    counts, start = [], 0
    for b in copies:
        width = 1 if b == 1 else 2
        counts.append(sum(bits[start + j] << j for j in range(width)))
        start += width
    weight = sum(w * c for w, c in zip(weights, counts))
    value = sum(v * c for v, c in zip(values, counts))
    return weight <= capacity and value >= min_value'''


PROBLEM = GroverKnapsack()
