"""Debugging: fix the one injected bug of an OpenQASM 3 program (QBugLM's QBugFix).

The answer is the corrected program, judged by exact equivalence with the reference
program under the reference's own check (same state up to global phase, same
unitary up to global phase, or the same exact output distribution); the
difference in gate count is reported (`gate_count_delta`), not required.
Mutants: `lm_eval_quantum.problems.debugging.bugs`.
"""
from lm_eval_quantum.problems.debugging.bugs import DebugTask, gate_count, program_of
from .prompts import plural

EQUIVALENCE = {
    "state": "prepare the same state as the intended program, up to global phase",
    "unitary": "implement the same unitary as the intended program, up to global phase",
    "distribution": "give exactly the same measurement distribution as the intended program",
    "channel": "act as the same quantum channel as the intended program on the task's input and "
               "output qubits, over every measurement branch",
    "classical_answer": "give the right answer with the same exact probability as the intended "
                        "program (the task's optimum), over every measurement branch",
    "code_correction": "correct every error of the task's error set as the intended program does "
                       "(each logical channel the identity)",
}


class DebugFix(DebugTask):
    slug = "debug_fix"
    title = "Fix the bug of an OpenQASM 3 program"
    check = "repair"
    version = 3   # v3: dynamic-circuit programs and their bugs join the corpus

    def question_for(self, params):
        program = program_of(params)
        spec = program.spec()
        w = spec["num_qubits"]
        ancillas = spec.get("ancillas")
        clean = (f" and return the ancilla qubits {', '.join(f'q[{a}]' for a in ancillas)} to |0>"
                 if ancillas and spec.get("ancilla_policy", "clean") == "clean" else "")
        measure = ("Keep the final measurements: the program's output is the distribution of c."
                   if program.measured else
                   "Keep the mid-circuit measurements, resets and feed-forward the task needs."
                   if program.dynamic else "Do not add measurements.")
        return ("Fix the bug. Answer with the corrected complete OpenQASM 3.0 program in a single "
                f"```qasm code block, with the register `qubit[{w}] q;` (exactly "
                f"{plural(w, 'qubit')}); it may include only \"stdgates.inc\" and "
                f"\"customgates.inc\". {measure} The answer is checked by exact simulation: on the "
                f"same {plural(w, 'qubit')} it must {EQUIVALENCE[spec['equivalence']]}{clean}"
                f"{', within the gate set above' if spec.get('gate_set') else ''}. "
                "The difference in gate count from the intended program is reported, not required.")

    def prompt(self, framework, params):
        return f"{self.statement(params)}\n\n{self.listing(params)}\n\n{self.question_for(params)}\n\n"

    def check_spec(self, framework, params):
        program = program_of(params)
        return {**program.spec(), "reference_gate_count": gate_count(program.text)}


PROBLEM = DebugFix()
