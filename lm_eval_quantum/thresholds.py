"""Every threshold and limit of the pack, in one place, each with its reason.

Change a value here and bump the `metadata.version` of the affected tasks
(scripts/build_data.py writes the versions).
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, replace

# --- judge: exact comparisons --------------------------------------------------
# Exact simulation in float64 accumulates ~1e-13 error per gate; 1e-6 leaves six
# orders of magnitude for deep circuits while any genuinely different answer on
# <= 14 qubits differs by far more (one wrong T gate costs ~0.146 fidelity).
STATE_FIDELITY_EPS = 1e-6
# Same reasoning for process fidelity |Tr(U*^† U)/d|^2.
PROCESS_FIDELITY_EPS = 1e-6
# Unitary-pattern tasks (check kind unitary_pattern): an entry of the answer's exact
# unitary of magnitude below this counts as zero, any other as nonzero.  Float64
# simulation leaves ~1e-13 where an exact construction has a zero, while the smallest
# nonzero entry of a pattern's natural constructions on <= 4 qubits is 1/4; 1e-6 sits
# between them with orders of magnitude to spare on either side, like the fidelity EPS.
UNITARY_PATTERN_TOL = 1e-6
# Black-box algorithm tasks: a sample passes when it answers at least
# `algorithm_min_correct(p, trials)` of the hidden tests, where p is the canonical
# algorithm's EXACT per-test success probability (stated in each doc's check spec):
# the most demanding count that still rejects the canonical with probability
# <= CANONICAL_FALSE_REJECT.  For deterministic algorithms (p = 1) that is every test.
CANONICAL_FALSE_REJECT = 1e-4
# Hidden tests per algorithm doc: a wrong circuit that still answers each test
# right with probability <= 1/2 (e.g. one measured bit left random) passes all
# of them with probability <= 2^-10 ~ 1e-3, where three tests would give 1/8.
ALGORITHM_TESTS = 10
# Deterministic algorithms (canonical success probability exactly 1) must answer
# right on EVERY outcome their circuit can produce, so the oracle service draws
# their counts uniformly from the outcomes of probability >= this floor rather
# than from the exact distribution: a circuit that is wrong 1% of the time is
# then caught on almost every test instead of passing by luck.  The floor is the
# fidelity tolerance: rounding error of a correct circuit stays orders below it.
SUPPORT_FLOOR = 1e-6
# The judge also checks the candidate's circuit itself, exactly: on every hidden
# test, the canonical post-processing applied to the circuit's exact measured
# distribution (for deterministic algorithms: uniform over its possible
# outcomes) must be right at least as often as with the canonical circuit, up to
# this float slack (exact simulation errs by ~1e-13).  Post-processing luck can
# then no longer carry a circuit that is right only part of the time.
ALGORITHM_SUCCESS_EPS = 1e-9

# Distribution checks (exact mode): total variation distance between the exact
# output distributions.  Float64 simulation error is ~1e-12; any genuinely
# different circuit on <= 14 qubits moves the distribution by far more than 1e-6.
DISTRIBUTION_TVD_EPS = 1e-6
# A candidate's output distribution with more outcomes of non-zero probability than this
# (2^14, a full distribution of MAX_QUBITS_OTHER_KINDS = 14 qubits, the widest the judge
# simulated before) is compared on arrays instead of a dict per outcome
# (judge.grading.Outcomes, state_distances): a 24-qubit uniform answer would otherwise
# build 2^24 Python strings (~2 GiB, ~30 s), and a dict of 2^16 already costs ~0.4 s.
# TVD and KL need the candidate's probability only on the target's outcomes and its
# total mass; the sampled protocol draws its shots from the array.  Every distribution
# of <= 14 qubits stays a dict, computed exactly as before (the same numbers, bit for bit).
DISTRIBUTION_DICT_OUTCOMES = 1 << 14
# KL(target || candidate) floors the candidate's probabilities here so KL stays
# finite when the candidate misses part of the target's support (the largest
# reported KL is then ln(1e9) ~ 20.7 nats, the cap of the `kl` metric).
KL_FLOOR = 1e-9
# Protocol tasks (judge.locality): a gate across parties counts as classically
# controlled when it is block diagonal in its controls' computational basis up to
# this entry size (the unitarity tolerance of judge.simulate).  Gate matrices
# arrive in float64, so exact gates have off-block entries of 0 or ~1e-16; a
# hidden coupling below 1e-8 moves a fidelity by ~1e-8, far inside the 1e-6
# tolerances above, so it cannot carry a quantum message.
CLASSICAL_CONTROL_ATOL = 1e-8
# Gate-set restrictions (judge.gateset): an operation belongs to a gate class when
# its matrix equals the class's up to global phase to this entry size - the same
# float64 rounding argument as above (exact gates differ by ~1e-16; a hidden
# extra rotation below 1e-8 moves a process fidelity by < 1e-15).
GATE_SET_ATOL = 1e-8
# A candidate's own matrix (UnitaryGate, cirq.MatrixGate, qml.QubitUnitary, any gate
# sent as its matrix) is unitary when every entry of U^dag U - 1 is within this size
# (judge.simulate.gate_matrix): exact gates are ~1e-15 off, a matrix typed to 9-10
# digits ~1e-9.  Within it the matrix is replaced by its nearest unitary (the polar
# factor W V^H of its SVD); beyond it, rejected as not unitary.  Without the
# projection the allowed deviation adds up: 20,000 matrices each 1e-8 off scale a
# state's norm by ~1e-4, lifting a fidelity-0.9999 answer over the 1e-6 tolerance.
MATRIX_UNITARITY_ATOL = 1e-8
# After every simulation each state's norm must equal its input's within this
# relative drift, else the sample fails as a "numerically unstable circuit"
# (runtime).  With every matrix projected to a unitary, float64 rounding moves a
# norm by ~1e-16 per gate (~1e-12 after MAX_OPS gates); a fidelity or TVD gains at
# most ~2x the drift, so any number of operations stays 500x inside the 1e-6
# acceptance tolerances above.
NORM_DRIFT_TOL = 1e-9
# Classifier checks (quantum ML): the sign of <Z> on the readout qubit must match
# every listed label with |<Z>| at least this margin, so that a model sitting on
# the decision boundary (<Z> ~ 0, where float noise would decide) does not pass;
# our trained canonicals keep |<Z>| >= 0.2 on every point.
CLASSIFIER_MARGIN = 0.05
# Regression checks: |<Z> - target| per listed point.  Reachable exactly by a
# small circuit (the targets are drawn from one), while a model that only gets
# the trend right misses by > 0.1 somewhere.
REGRESSION_TOLERANCE = 0.05
# Sampled mode (the papers' protocol: compare N-shot counts with the target):
# the threshold is the (1 - CANONICAL_FALSE_REJECT / SAMPLED_SAFETY) quantile of
# the statistic over SAMPLED_CALIBRATION_DRAWS simulated canonical runs, so the
# tail estimate rests on >= 10 draws and the canonical's false-reject rate stays
# below 1e-4 (verified by an independent Monte Carlo stored with the threshold).
SAMPLED_SAFETY = 10.0
SAMPLED_CALIBRATION_DRAWS = 1_000_000

# Variational checks: the reached objective (energy, or the expected cut of a
# QAOA circuit) must be within this fraction of the reference scale (|E0|, or
# the maximum cut) of the exact optimum.  Off-the-shelf optimizers (COBYLA,
# Nelder-Mead at default tolerances, a 0.05 rad grid) land within ~1e-3;
# structural mistakes (wrong mixer, wrong cost sign, no entangler) cost > 0.05.
VARIATIONAL_TOLERANCE = 0.01

# --- data build: a rebuild agrees with the committed files (scripts/build_data.py --check) ---
# A non-integer number of a rebuilt doc, task config or docs/checks.md (a check
# spec's optimum, an angle in a prompt or canonical) agrees with the committed one
# within this relative OR absolute tolerance; integers must be equal.  Recomputing
# the same float64 value with another NumPy/BLAS/Qiskit moves it by ~1e-15..1e-12
# (a value printed to 12 digits by one unit in its last place), while the tightest
# judge tolerance a doc number feeds is ALGORITHM_SUCCESS_EPS = 1e-9: a change
# this small moves no verdict beyond the judge's own float slack.  Canonicals whose
# numbers differ by more (an angle written +pi instead of -pi, trained weights
# rounded the other way) are compared by their simulated states or unitaries
# instead, within STATE_FIDELITY_EPS / PROCESS_FIDELITY_EPS (lm_eval_quantum.problems.datacheck).
REBUILD_NUMBER_TOL = 1e-9

# --- scoring: one queue per run (scoring.ScoringQueue) ------------------------------
# Threads per sandbox worker that take samples from the run's queue: each prepares a
# sample (extraction, the judge's session), runs it in the pool (at most `workers` at
# once: the pool's slots) and judges what came back.  With one thread per worker a
# worker's slot idles while its thread judges; two keep every slot fed while the judge
# works (measured on 2 cores by scripts/bench_scoring.py: the pool's workers stay busy
# and throughput stops rising beyond 2).
SCORING_THREADS_PER_WORKER = 2
# BLAS threads of the judge (numpy's and scipy's OpenBLAS in the harness process, pinned
# when scoring starts: scoring.pin_judge_blas).  One, for two reasons: a multi-threaded
# BLAS sums in an order that depends on its thread count, so a fidelity's last bit
# differed between machines with 1 and 2 cores (a wrong QFT answer: ...843 vs ...842),
# and one thread makes every verdict bit-identical on any machine and at any worker
# count; and OpenBLAS threads spin while they wait, taking the cores the sandbox's
# workers need (measured on 2 cores, every OpenQASM task's canonicals, 658 samples, runs
# alternated: 40-46 samples/s with 1 BLAS thread against 23-36 unpinned).  The sandbox's
# children are single-threaded already (THREAD_ENV).
JUDGE_BLAS_THREADS = 1

# --- judge: size caps checked before any simulation ----------------------------
# The widest circuit the sandbox may return and the state-vector checks (kinds state,
# distribution; unitary through random states) simulate: one state of 2^24 amplitudes
# is 256 MiB.  The judge evolves it in place (judge.simulate: gates on <= 3 qubits and
# wider matrices in cache-sized slabs, no second state-sized buffer), so a 24-qubit
# check holds ~2-4 states at its peak (the state, the target, |amplitude|^2), ~1 GiB
# of the machine's 24 GiB; never a 2^n x 2^n matrix, never a dict per outcome (the
# distances and distributions of wide circuits are computed on arrays).  Its time is
# metered by JUDGE_WORK_BUDGET like any other (a 24-qubit GHZ costs ~4e8 of the 2e9).
# The fidelity and TVD tolerances (1e-6) are absolute, so at this width an error confined
# to a few of 2^n amplitudes of a target spread over all of them could hide below them
# (one sign flipped in a uniform 24-qubit superposition costs 4/2^24 = 2.4e-7): the
# families built this wide have targets on few amplitudes (GHZ: 2, W: n, Dicke(20, 10):
# 184,756), where one wrong amplitude costs >= 5e-6 (one of Dicke(20, 10)'s missing;
# flipped: 2e-5).  A wide family with a spread target
# needs a tighter tolerance first.  (The unitary check on random states is stricter:
# UNITARY_STATE_TOL bounds the mean squared deviation, not 1 - fidelity.)
MAX_STATE_QUBITS = 24
# Every other check kind (the algorithms' oracle service, channels, dynamic branching,
# function returns, classifiers, variational, noise, ...) keeps 14 qubits: they hold
# several states, a density matrix or a Choi state (4^n), branches (MAX_BRANCH_AMPLITUDES
# = 2^22 already stops a 22-qubit branch) or counts dictionaries per outcome, none of
# which is sized for 2^24; 2^14 amplitudes is 256 KiB, far below any memory risk.
MAX_QUBITS_OTHER_KINDS = 14
# A unitary on 10 qubits is 1024x1024 complex (16 MiB) - the largest we build.  Wider
# unitary checks (up to MAX_UNITARY_STATE_TEST_QUBITS) compare the answer with the
# target on random input states instead (judge.kinds.unitary, UNITARY_RANDOM_STATES).
MAX_UNITARY_QUBITS = 10
# The random-state unitary check evolves (UNITARY_RANDOM_STATES + n + 2) states through
# the answer, 42 at 20 qubits, priced as a whole before the first one runs: a 20-qubit
# QFT there needs ~1e10 amplitude operations, over the judge budget (resource_limit at
# once), a 17-qubit one 8.3e8, a 16-qubit one 3.6e8 (18%), so the unitary families are
# built to 16 qubits and 20 bounds what a cheaper unitary (fewer gates) may ask.
MAX_UNITARY_STATE_TEST_QUBITS = 20
# The judge evolves at most this many amplitudes in one call (states x 2^n): one
# 24-qubit state, or 2^20 columns of a 10-qubit unitary's identity; wider batches are
# evolved in parts of this size (256 MiB each).
MAX_EVOLVED_AMPLITUDES = 1 << 24
# No canonical needs more than a few hundred operations; 20k bounds the judge's
# work on hostile input to ~1-3 s (measured: ~75 us per op at 14 qubits).
MAX_OPS = 20_000
# While a job runs, the Qiskit and Cirq adapters count the operations a program appends
# to its circuits (runtime.adapters.growth) and stop it past this many: a Python loop of
# 10^6 mid-circuit measurements then ends as resource_limit in about a second instead of
# spending the CPU limit inside the framework.  Twice MAX_OPS leaves room for the
# adapter's own copies and a program's intermediate circuits (the largest canonical
# adds ~10k).  A Qiskit if/while op counts ADDED_CONTROL_FLOW_WEIGHT: building its block
# costs about that many appends (a loop of `measure` + `if_test` runs ~180 us a pass).
MAX_ADDED_OPS = 2 * MAX_OPS
ADDED_CONTROL_FLOW_WEIGHT = 4
# OpenQASM 3 programs are evaluated at compile time before conversion (loops unrolled,
# classical variables and `if`s with known conditions folded: frameworks.qasm_fold).
# The evaluator executes at most this many statements and loop iterations in all: 5x
# MAX_OPS leaves room for the classical bookkeeping of a program that emits MAX_OPS
# gates (a counter update and a loop header per gate), while a non-terminating
# `while` or a 10^9-iteration loop ends as resource_limit in ~1 s (measured: ~8 us
# per step on a loaded 2-core machine).
QASM_UNROLL_STEPS = 100_000
# Oracle queries: total shots a post-processing may request per hidden test.
MAX_SHOTS_PER_TEST = 100_000
# The judge's own work per sample (judge.simulate.metered), in amplitude operations
# (one complex multiply-add on one amplitude of one input state; a gate on k qubits
# of an n-qubit circuit costs its matrix's non-zeros x 2^(n-k) x input states, after
# adjacent gates are fused): all simulations of one answer share it, and an answer
# that needs more ends as resource_limit before the work is done.  It scales with
# the task - operations x 2^n x the states the check evolves - so MAX_OPS cheap
# gates fit on a state check of any width, but not on a 9-qubit full-unitary check
# (the unmetered judge spent up to ~140 s on one answer: 20,000 dense two-qubit
# matrices on the 12-qubit channel check of bb84).  Measured 0.6-9 ns per operation
# on a loaded 2-core machine (scripts/bench_judge.py: answers that fill the budget
# cost the judge <= 4 s, <= 20 s at the slowest rate); the costliest canonical
# answer needs 2.2e8 (11%), the costliest test-split one 1.1e8 (5.5%).  Unchanged at
# MAX_STATE_QUBITS = 24 (wide states are evolved in place, memory-bound): answers that
# fill the budget measured 1.0-2.7 ns per operation at 20-24 qubits (1,880 CX on 20
# qubits 2.3 s; 110 CX on 24 qubits 1.8 s; 20 dense two-qubit matrices on 24 qubits
# 2.9 s; 6 dense six-qubit matrices on 24 qubits 5.0 s), and it is charged before any
# work, so 20,000 gates on 24 qubits end as resource_limit at once.  The widest
# canonicals of the full split: a 24-qubit W state 5.8e8 (29%), a 20-qubit Dicke state
# 5.7e8, a 24-qubit GHZ 4.0e8, a 16-qubit QFT on its 38 check states 3.6e8 (18%).
JUDGE_WORK_BUDGET = 2e9
# --- judge: dynamic circuits (judge.dynamic) ------------------------------------
# A program with mid-circuit measurement, reset or classical control is simulated as
# branches, one per sequence of outcomes, each an unnormalised state whose squared norm
# is its probability (exact: no shots).  A branch whose probability falls below
# BRANCH_PRUNE_EPS is dropped (the mass dropped is reported and bounds the error of
# every number the check computes; the canonical programs drop none).
BRANCH_PRUNE_EPS = 1e-14
# A channel check against a target channel (not the identity) passes when the Choi
# states J/d of the program and of the target are within this trace distance; the
# channels are then within d times it in diamond distance (Watrous).  Float error of an
# exact construction is ~1e-12.
CHANNEL_TRACE_EPS = 1e-6
# A classical answer (state discrimination) passes when its exact success probability is
# within this of the task's optimum (the Helstrom bound is computed in floating point).
CLASSICAL_ANSWER_EPS = 1e-9
# A nonlocal game's strategy passes when its exact win probability is at least the quantum
# optimum minus this (the optimum, e.g. cos^2(pi/8), and the simulation are floating point;
# rounding error of an exact strategy is ~1e-15; angles written as decimals, 0.785 for pi/4,
# lose ~1e-7 and pass; a classical strategy loses >= 0.1).
GAME_WIN_EPS = 1e-6
# At most this many branches at once (x the input states a check evolves, x 2^n
# amplitudes, within MAX_BRANCH_AMPLITUDES): 20 independent mid-circuit measurements;
# a program that branches further (a measurement in a long loop, 10^6 measurements)
# ends as resource_limit, before the memory is allocated.
MAX_BRANCHES = 1 << 20
# 2^22 complex amplitudes is 64 MiB (a measurement that splits every branch briefly holds
# about four times that): the largest canonical answer needs 2^18 (teleporting 3 qubits:
# 2^9 amplitudes x 8 inputs x 64 branches); Shor's code at the 14-qubit cap 2^15 (its
# syndromes are certain for each injected error, one branch on 2 inputs).
MAX_BRANCH_AMPLITUDES = 1 << 22
# A `while` loop runs until the probability of still being inside it is at most
# WHILE_TAIL_EPS (that tail is dropped and reported like a pruned branch); after
# MAX_WHILE_PASSES passes with more left, the answer ends as resource_limit (a
# repeat-until-success gadget with success probability 1/2 needs ~40 passes).
WHILE_TAIL_EPS = 1e-12
MAX_WHILE_PASSES = 200
# Idle-noise checks (judge/kinds/idle_noise.py: dynamical decoupling): the judge inserts a
# static diagonal noise exp(-iH), H = sum_q theta_q Z_q + sum J_ab Z_a Z_b, after every
# barrier of the program and compares the unitary with the target (PROCESS_FIDELITY_EPS)
# for IDLE_NOISE_DRAWS seeded draws of the unknown parameters, each uniform in
# [-IDLE_NOISE_ANGLE, IDLE_NOISE_ANGLE] (a phase per window; exp(-i pi Z) = -1, so this
# covers every value).  A program that does not cancel some term exactly has a fidelity
# that is an analytic function of that term's parameter, equal to 1 only at isolated
# points, and reaches 1 - 1e-6 only within ~1e-3 rad of them: one draw misses it with
# probability ~1e-3, five independent draws with ~1e-15.  Each draw costs about one
# full-unitary simulation of the program (charged to JUDGE_WORK_BUDGET): ~1e5 amplitude
# operations for the family's canonicals.
IDLE_NOISE_DRAWS = 5
IDLE_NOISE_ANGLE = 3.141592653589793

# Full-unitary checks evolve this many random states first (seeded per doc): an
# answer that passes agrees on all of them; one that some state rules out gets its
# exact fidelity from the full unitary only if that fits the budget, else a
# wrong_answer verdict with the fidelity estimated from these states (~4/2^n of a
# full check, where it used to be a resource_limit); see judge.grading.grade_unitary.
UNITARY_PRECHECK_STATES = 4
# Unitary checks wider than MAX_UNITARY_QUBITS (judge.kinds.unitary._state_test): the
# answer U and the target T (an action given by the problem, never a 2^n x 2^n matrix)
# are applied to a basis-state sweep (|0..0>, |1..1> and the n one-hot states of the
# data register) and to m = UNITARY_RANDOM_STATES complex Gaussian vectors g_j (each
# amplitude CN(0, 1/d): a Haar-random direction; seeded per doc on the judge's side,
# never sent to the sandbox), all compared up to ONE global phase e^{i phi}, phi the
# phase of <T 0..0|U 0..0> (a function of U alone, not of the draws; a phase per input
# state would accept a diagonal-phase mutant).  Accept iff every swept basis state b
# has |U b - e^{i phi} T b|^2 <= UNITARY_STATE_TOL and sum_j |U g_j - e^{i phi} T g_j|^2
# <= m UNITARY_STATE_TOL.
# False accept: with W = T^dag U (or, with ancillas starting in |0>, its compression:
# a contraction) the sum is sum_j g_j^dag M g_j for M = 2 - e^{-i phi} W - e^{i phi} W^dag,
# PSD with eigenvalues a_i in [0, 4] and mean a = tr M / d >= 2 (1 - sqrt F) for EVERY
# phi (F = |tr W / d|^2, the process fidelity).  An answer with F < 1 - eps
# (eps = PROCESS_FIDELITY_EPS) has a > eps = r tau, r = eps / tau.  In M's eigenbasis
# the sum is sum_ij a_i X_ij with X_ij iid exponential of mean 1/d; Chernoff gives
# P(sum <= m tau) <= exp(s m tau) prod_i (1 + s a_i / d)^-m, and as log(1 + x) is
# concave (subadditive) the product is largest when the a_i are merged into as few as
# possible (one eigenvalue d a if d a <= 4, else d a / 4 eigenvalues of 4); both cases
# give, at the best s, P(accept) <= exp(-m h(r)), h(r) = ln r - 1 + 1/r
# (`unitary_false_accept_bound`).  With tau = eps / 10 (h = 1.403) and m = 20 states the
# bound is 6.6e-13 < UNITARY_FALSE_ACCEPT for every answer over the tolerance, whatever
# its structure (the worst case, one eigenvalue: a phase on one unknown basis direction;
# tests/test_qubit_scale.py measures the acceptance rate against the bound on small n).
# The basis sweep can only reject more.  The test is stricter than the exact check by
# the factor 10 of tau: an answer passes for sure when a <= tau/10-ish rounding (exact
# gates: ~1e-26) and may fail when its mean deviation a lies between tau and eps (an
# angle off by ~3e-4 rad); exact answers are ~1e-13 away from the phase, so never.
UNITARY_FALSE_ACCEPT = 1e-12
UNITARY_STATE_TOL = PROCESS_FIDELITY_EPS / 10
UNITARY_RANDOM_STATES = 20
# The oracle service also runs a circuit equivalent to the artifact for every oracle,
# e.g. transpile(circuit, simulator) (judge.equivalence), and then samples the artifact.
# Segments between oracle calls that are not identical are compared on this many random
# states over all qubits: a random state tells two different unitaries (or final
# measurements) apart with probability one, so 2 only guards against a numerically
# unlucky draw; it costs 2 x 2 simulations of the differing segments, once per distinct
# circuit.  Tolerance (state-vector distance after a common phase, or total variation
# of the final measurement): transpiling every canonical of the oracle tasks at levels
# 0-3 and two seeds deviates by <= 4e-15 (exact resynthesis); a one-amplitude change on
# 14 qubits moves a random state by ~2/sqrt(2^14) ~ 0.016, and transpile's approximate
# synthesis (approximation_degree=0.99) by >= 0.04, refused.  Accepting a circuit within
# the tolerance never shows the candidate more than samples of its own artifact.
EQUIVALENCE_STATES = 2
EQUIVALENCE_TOL = 1e-6
# The wire schema (wire.check_message / check_circuit): everything a sandbox child
# sends is bounded before any use, so that no value can make the judge raise or
# stall.  Nesting of lists and objects inside an answer value: a circuit is 6
# levels deep (message, circuit, ops, op, matrix, entry) and checked field by
# field; 32 leaves an answer's own structure room while any recursion over a
# value (str(), ==, json.dumps) stays ~30x below Python's default limit of 1,000.
WIRE_MAX_DEPTH = 32
# Integers: |n| <= 2^53, exactly representable as a float64, so that float(n) and
# math.isfinite(n) cannot overflow (an int such as 10**400 raised OverflowError
# out of the judge); no qubit index, count, test number or shot number comes close.
WIRE_MAX_INT = 2**53
# Op names are labels (a gate class's name): 256 characters is far beyond any
# framework's names.  Any other string (an error text, an answer): 64 KiB; the
# child cuts its error texts to 1,500 characters and no hidden answer is longer
# than a few hundred.
WIRE_MAX_NAME_CHARS = 256
WIRE_MAX_STRING_CHARS = 65_536
# Items (list entries and object keys, summed over the whole value) of an answer
# value: 65,536, four times a full counts dictionary of a 14-qubit circuit (counts
# exist only for the oracle service, which stays at MAX_QUBITS_OTHER_KINDS = 14; a
# 24-qubit circuit travels as an artifact, whose ops MAX_OPS bounds, not as counts).
WIRE_MAX_ITEMS = 65_536
# Classical bits of a circuit: terminal measurements of <= MAX_STATE_QUBITS (24)
# qubits need at most 24; 256 allows any honest register layout while each outcome
# key of a distribution stays small (one character per clbit; a distribution of
# more than DISTRIBUTION_DICT_OUTCOMES outcomes is never built as a dict).
WIRE_MAX_CLBITS = 256
# A model's whole response (reasoning, prose and code): 1,000,000 characters, over
# ten times a long reasoning model's answer (a 32k-token budget is ~130k characters);
# beyond it the sample is a resource_limit before extraction, so a re-scored
# submission cannot make the judge parse megabytes.
MAX_RESPONSE_CHARS = 1_000_000


# --- sandbox limits ---------------------------------------------------------------
@dataclass(frozen=True)
class SandboxLimits:
    # CPU seconds per sample (CPU, not wall time: a loaded machine does not fail
    # a correct answer).  The default applies to tasks without a measured
    # canonical cost; tasks with one get `sized_limits`.  Canonical answers use
    # < 0.3 s of CPU after the warm fork; 10 s is a >30x margin.
    cpu_seconds: float = 10.0
    # Wall seconds per sample: only a backstop for sleep() and blocking reads,
    # which use no CPU.  Generous so a loaded 2-core machine never fails a
    # correct answer.
    wall_seconds: float = 30.0
    # Extra address space a sample may map on top of the warm server's own size.
    memory_mb: int = 2048
    # Open files, largest file written, processes (where enforceable).
    open_files: int = 256
    file_size_mb: int = 16
    processes: int = 64
    # Largest message the sample may send (artifact with matrices included).
    output_mb: int = 16

    def as_dict(self) -> dict:
        return asdict(self)


# Per-task limits sized from the canonical answer's measured cost
# (data/canonical_cost.json, written by scripts/calibrate_limits.py): the
# slowest canonical of a task times a margin that absorbs a slower or loaded
# machine (CPU time still varies ~2-3x with cache pressure and frequency).
LIMIT_CPU_MARGIN = 25.0
# A correct answer may be slower than ours: importing a module the zygote did
# not preload (matplotlib, qiskit_aer, scipy.optimize) costs ~1-2 s of CPU alone.
LIMIT_CPU_FLOOR = 5.0
# A task whose answer may compute its circuit's parameters (train a classifier, run a
# VQE/QAOA optimisation: problems.Computed) gets at least this: a straightforward
# scipy-optimised VQE written by a chat model took 15-70 s of CPU here, where our exact
# canonical needs well under a second.  The prompt states the limit.
LIMIT_CPU_FLOOR_COMPUTING = 120.0
# Wall = factor x CPU + slack: catches sleep() while a 2-core machine running
# two samples and the judge at once never times out a correct answer.
LIMIT_WALL_FACTOR = 3.0
LIMIT_WALL_SLACK = 5.0
# Infrastructure failures the pool keeps in detail (SandboxPool.infra_events; its
# summary counts every one): a sandbox that fails every sample of a 10^5-sample run
# must not grow the harness by ~300 bytes per sample.  1000 is more detail than any
# diagnosis needs (the first retried event names the cause; the rest repeat it).
INFRA_EVENTS_KEPT = 1000
# Thread pools pinned to 1 in the sandbox: the zygote must stay single-threaded to fork safely.
THREAD_ENV = (
    "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS", "BLIS_NUM_THREADS", "RAYON_NUM_THREADS", "QISKIT_NUM_PROCS",
    "TF_NUM_INTRAOP_THREADS",
)


def sized_limits(canonical_cpu_seconds: float | None, computes: bool = False) -> SandboxLimits:
    """The default limits of a task whose slowest canonical used this much CPU (and whose
    answers may optimise or train: `computes`)."""
    floor = LIMIT_CPU_FLOOR_COMPUTING if computes else LIMIT_CPU_FLOOR
    if canonical_cpu_seconds is None and not computes:
        return SandboxLimits()
    cpu = round(max(floor, LIMIT_CPU_MARGIN * (canonical_cpu_seconds or 0.0)), 1)
    return replace(SandboxLimits(), cpu_seconds=cpu,
                   wall_seconds=round(LIMIT_WALL_FACTOR * cpu + LIMIT_WALL_SLACK, 1))


def limits_from_env(base: SandboxLimits | None = None, **overrides) -> SandboxLimits:
    """`base` (default: SandboxLimits()) with explicit `overrides` (a task's
    ``metadata.limits``), then the run's `LMQ_<FIELD>` environment overrides."""
    limits = base or SandboxLimits()
    known = asdict(limits)
    unknown = set(overrides) - set(known)
    if unknown:
        raise ValueError(f"unknown sandbox limits {sorted(unknown)}; known: {sorted(known)}")
    limits = replace(limits, **{k: type(known[k])(v) for k, v in overrides.items() if v is not None})
    env = {}
    for field, value in asdict(limits).items():
        raw = os.environ.get(f"LMQ_{field.upper()}")
        if raw is not None:
            env[field] = type(value)(raw)
    return replace(limits, **env)


# --- scale-out on Ray (lm_eval_quantum.scaleout) ------------------------------------
# Samples per sandbox worker in one chunk (one actor call): a sample takes 0.04-1 s in the
# sandbox and judge while an actor call costs a few ms plus its docs' serialisation; measured
# on one node (1 worker, 284 canonicals, side by side), chunks of 4 and of 32 per worker
# scored equally fast, within noise, and as fast as a local pool, so the smaller one: the
# run's last chunks spread over all nodes instead of leaving one node finishing alone.
RAY_SAMPLES_PER_WORKER = 4
# Chunks in flight per node, run at once by its actor (one pool): while one chunk drains
# its last samples, the next one's fill the freed workers, so no worker waits for the
# driver's round trip; 2 bounds what a lost node takes with it (resubmitted elsewhere).
RAY_CHUNKS_IN_FLIGHT = 2
# Attempts per chunk (each on another node where there is one) before the run fails: a
# node lost is retried elsewhere; a chunk that fails on 3 nodes is a fault of the harness
# (a bug, a broken installation), reported as an error, never as the candidate's verdicts.
RAY_CHUNK_ATTEMPTS = 3
# Seconds for a node's scorer to start: its sandbox probe and warm zygote (qiskit, cirq and
# pennylane preloaded: ~12 s on an idle core, minutes on a loaded one; the pool's own
# zygote start timeout is 300 s), plus Ray's actor placement.
RAY_NODE_START_SECONDS = 420.0


# --- metrics ----------------------------------------------------------------------
PASS_AT_K = (1, 5, 10)            # emitted only for k <= n samples per doc
SAMPLED_REPEATS = 10              # QuanBench: n = 10 samples per task
SAMPLED_TEMPERATURE = 0.8         # QuanBench's best-performing temperature
# Leaderboard (lm_eval_quantum.report.leaderboard): the confidence level of the intervals it
# shows (Wilson score intervals on each task-weighted mean, with Kish's effective
# number of docs); 95% is what labs publish.
LEADERBOARD_CONFIDENCE = 0.95

# --- generation: the answer budget -----------------------------------------------
# A chat model explains before it codes, comments its code and sums up after it; a
# reasoning model drafts first.  Each task's `max_gen_toks` is sized so that its
# longest canonical answer, wrapped that way, fits with room to spare:
#   ANSWER_TOKENS_PER_CHAR * (chars + ANSWER_COMMENT_CHARS_PER_LINE * lines + ANSWER_PROSE_CHARS)
# rounded up to ANSWER_TOKENS_STEP and never below ANSWER_TOKENS_MIN.  0.6 tokens per
# character bounds both the embedded model's tokenizer (<= 0.53 on wrapped canonicals)
# and a 32k Llama-style one (<= 0.46; digits split, as in OpenQASM indices); a comment
# of ~70 characters every third line is 25 per line; 1,600 characters are two
# paragraphs of prose.  tests/test_answer_budget.py checks every canonical against it.
# Stop sequences never cut a program: answers end at the model's end of turn / EOS
# (the `_prefill` variants, which open the code block for the model, also at the
# closing fence).  Raise the budget for reasoning models with
# `--gen_kwargs max_gen_toks=16384`.  A budget the model's context cannot hold is
# reduced to what it can (hf, vllm; see sampling.fit_answer_budget) with a warning.
ANSWER_TOKENS_MIN = 2048
ANSWER_TOKENS_PER_CHAR = 0.6
ANSWER_COMMENT_CHARS_PER_LINE = 25
ANSWER_PROSE_CHARS = 1600
ANSWER_TOKENS_STEP = 256
# a context that leaves less than this for the answer is left-truncated by lm-eval
# instead (the budget then takes half the context)
ANSWER_TOKENS_FLOOR = 256
PREFILL_STOP = "```"

# The console of an `lm_eval` run of the pack (lm_eval_quantum/lmeval/console.py, summary.py).
# The end-of-run summary gives pass@1 with a Wilson score interval at
# LEADERBOARD_CONFIDENCE, counting samples as independent trials, and names the
# SUMMARY_SLOWEST tasks by scoring wall time.  A warning repeated per task is shown once,
# then one line names up to CONSOLE_TASKS_NAMED of the other tasks it came for.  A log
# line of the pack longer than CONSOLE_LINE_CHARS (e.g. a re-scoring command over
# hundreds of tasks) goes to a file that the line names.
SUMMARY_SLOWEST = 5
CONSOLE_TASKS_NAMED = 8
CONSOLE_LINE_CHARS = 600


def unitary_false_accept_bound(states: int = None, ratio: float = None) -> float:
    """exp(-m h(r)), h(r) = ln r - 1 + 1/r: the largest probability that the random-state
    unitary check (UNITARY_RANDOM_STATES = m Gaussian states, tolerance tau) accepts an
    answer whose mean deviation tr M / d is r tau (r > 1; see UNITARY_STATE_TOL)."""
    import math

    m = UNITARY_RANDOM_STATES if states is None else states
    r = PROCESS_FIDELITY_EPS / UNITARY_STATE_TOL if ratio is None else ratio
    if r <= 1:
        return 1.0
    return math.exp(-m * (math.log(r) - 1 + 1 / r))


def algorithm_min_correct(p: float, trials: int, rate: float = CANONICAL_FALSE_REJECT) -> int:
    """The largest number c of correct answers out of `trials` such that an algorithm
    that is right with exact probability `p` per test falls short of c with
    probability <= `rate` (a binomial lower tail)."""
    import math

    if not 0.0 <= p <= 1.0 or trials < 1:
        raise ValueError(f"need 0 <= p <= 1 and trials >= 1, got p={p}, trials={trials}")
    below = 0.0  # P(X < c)
    for c in range(trials + 1):
        pmf = math.comb(trials, c) * p**c * (1 - p) ** (trials - c)
        if below + pmf > rate:
            return c
        below += pmf
    return trials
