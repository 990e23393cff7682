"""Debugging: fix the one injected bug of an OpenQASM 3 program (QBugLM's QBugFix).

The answer is the corrected program, judged by exact equivalence with the reference
program under the reference's own check (same state up to global phase, same
unitary up to global phase, or the same exact output distribution); the
difference in gate count is reported (`gate_count_delta`), not required.
Mutants: `lm_eval_quantum.bugs`.
"""
from ..bugs import DebugTask, gate_count, program_of

EQUIVALENCE = {
    "state": "prepare the same state as the intended program, up to global phase",
    "unitary": "implement the same unitary as the intended program, up to global phase",
    "distribution": "give exactly the same measurement distribution as the intended program",
}


class DebugFix(DebugTask):
    slug = "debug_fix"
    title = "Fix the bug of an OpenQASM 3 program"
    check = "repair"

    def question_for(self, params):
        spec = program_of(params).spec()
        ancillas = spec.get("ancillas")
        clean = (f" and return the ancilla qubits {', '.join(f'q[{a}]' for a in ancillas)} to |0>"
                 if ancillas and spec.get("ancilla_policy", "clean") == "clean" else "")
        return ("Fix the bug. Answer with the corrected complete OpenQASM 3.0 program in a single "
                "```qasm code block. The answer is checked by exact simulation: on the same "
                f"{spec['num_qubits']} qubits it must {EQUIVALENCE[spec['equivalence']]}{clean}"
                f"{', within the gate set above' if spec.get('gate_set') else ''}. "
                "The difference in gate count from the intended program is reported, not required.")

    def prompt(self, framework, params):
        return f"{self.statement(params)}\n\n{self.listing(params)}\n\n{self.question_for(params)}\n\n"

    def check_spec(self, framework, params):
        program = program_of(params)
        return {**program.spec(), "reference_gate_count": gate_count(program.text)}


PROBLEM = DebugFix()
