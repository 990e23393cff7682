"""Score on a Ray cluster: one scorer per node, each with its own local sandbox pool.

``score_on_ray(items, address, score)`` connects to a running cluster (``ray.init(address=...)``:
"auto", "ray://HOST:PORT" or "HOST:PORT"; only "local" starts a Ray instance of its own),
places one actor on every alive node that has CPUs (a ``NodeAffinitySchedulingStrategy``
each) and feeds them chunks of the items, several in flight per node, then reassembles the
verdicts in the items' order.  `score` is the local scorer,
:func:`lm_eval_quantum.scoring.score_samples`, handed in by its caller (this module imports
nothing above ``sandbox/``); the node calls it with its own pool, so a verdict is what a local
run gives, plus ``node``: the Ray node id that scored it.

Why one actor per node and not one per CPU: a node's :class:`~lm_eval_quantum.sandbox.SandboxPool`
already runs one sample per CPU, all forked from one warm zygote (qiskit, cirq and pennylane
loaded once, shared copy-on-write); an actor per CPU would start a zygote per CPU, each
~12 s of start-up and its own copy of the frameworks' memory.

Isolation, per node: each pool runs at the strongest level *its* node reaches ("auto"; the
driver's ``LMQ_ISOLATION`` is not sent), and the run's minimum (`min_isolation`, else the
driver's ``LMQ_MIN_ISOLATION``) is enforced on every node: a node below it stops the run
with ``IsolationUnavailable`` naming the node, before any sample is scored.  Every verdict
keeps the level that ran it (``isolation``).  The driver's other ``LMQ_*`` settings (sample
limits ``LMQ_CPU_SECONDS``...) are the run's and travel to every node.  Every node's judge
runs its BLAS on one thread (thresholds.JUDGE_BLAS_THREADS), as a local run does, so the
last bits of its numbers are the same on any node.

Faults of the cluster are never the candidate's: a chunk whose node or actor fails is
resubmitted to another node (``RAY_CHUNK_ATTEMPTS`` times at most); when no node is left, or
a chunk has failed everywhere it was tried, the call raises :class:`ScaleOutError` and
returns no verdicts.  Docs and responses travel as plain data; a candidate runs only in a
node's sandbox, as it would locally.

Ray is an optional extra (``pip install "lm-eval-quantum[ray]"``), imported only here, inside
the functions that use it.
"""
from __future__ import annotations

import logging
import os
import socket
import threading
from collections import deque
from typing import Callable

from lm_eval_quantum.sandbox.isolation import ENV_LEVEL, ENV_MIN_LEVEL, LEVELS, IsolationUnavailable
from lm_eval_quantum.thresholds import (RAY_CHUNK_ATTEMPTS, RAY_CHUNKS_IN_FLIGHT,
                                        RAY_NODE_START_SECONDS, RAY_SAMPLES_PER_WORKER)

log = logging.getLogger("lm_eval.quantum")
ENV_ADDRESS = "LMQ_RAY_ADDRESS"      # scoring.score_samples scores on this cluster when set
# LMQ_* settings of the driver that are not sent to the nodes: where to score (the nodes
# score locally), the level (each node runs its strongest; the minimum is passed apart),
# the driver's own pool size and its generations directory.
_LOCAL_SETTINGS = (ENV_ADDRESS, ENV_LEVEL, ENV_MIN_LEVEL, "LMQ_WORKERS", "LMQ_GENERATIONS_DIR")

Scorer = Callable[..., "list[dict]"]


class ScaleOutError(RuntimeError):
    """The cluster cannot score the items (no usable node, a node's scorer failed to
    start, a chunk failed on every node it was tried on)."""


def _ray():
    try:
        import ray
    except ImportError:
        raise ScaleOutError('scoring on Ray needs the extra: pip install "lm-eval-quantum[ray]"') from None
    return ray


# --- the scorer on each node ---------------------------------------------------------------
class NodeScorer:
    """A Ray actor (made remote by :func:`_actor_class`): the node's own sandbox pool and
    the scorer; ``score(items)`` runs on the node, its samples in the node's sandbox."""

    def __init__(self, score: Scorer, env: dict, min_isolation: str | None, workers: int):
        import ray

        self.node = ray.get_runtime_context().get_node_id()
        self.score_fn = score
        self.pool = None
        self.error: tuple[str, str] | None = None
        try:
            os.environ.update(env)               # the run's settings (limits...)
            for name in (ENV_LEVEL, ENV_ADDRESS):
                os.environ.pop(name, None)       # strongest level here; score here
            from lm_eval_quantum.sandbox import SandboxPool

            self.pool = SandboxPool(workers=workers, isolation="auto", min_isolation=min_isolation)
        except Exception as exc:  # noqa: BLE001 - reported by ready(), with the node's name
            self.error = (type(exc).__name__, str(exc))

    def warm(self) -> tuple[str, str] | None:
        """Start the node's zygote (every node at once, after all reached the minimum
        level): None, or the error that stopped it."""
        try:
            self.pool.zygote_info
        except Exception as exc:  # noqa: BLE001 - reported with the node's name
            self.error = (type(exc).__name__, str(exc))
        return self.error

    def ready(self) -> dict:
        import lm_eval_quantum

        return {"node": self.node, "host": socket.gethostname(), "pid": os.getpid(), "error": self.error,
                "isolation": self.pool.isolation if self.pool else None,
                "workers": self.pool.workers if self.pool else 0,
                "package": os.path.dirname(os.path.abspath(lm_eval_quantum.__file__))}

    def score(self, items: list) -> list[dict]:
        if self.pool is None:
            raise ScaleOutError(f"the scorer of node {self.node} did not start: {self.error}")
        verdicts = self.score_fn(items, progress=False, pool=self.pool)
        for verdict in verdicts:
            verdict["node"] = self.node
        return verdicts

    def summary(self) -> dict:
        return self.pool.summary() if self.pool else {}

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()


_ACTOR = None


def _actor_class():
    global _ACTOR
    if _ACTOR is None:
        _ACTOR = _ray().remote(NodeScorer)
    return _ACTOR


# --- the driver: connection and the actors, kept across calls -----------------------------
class _Cluster:
    def __init__(self, key: tuple):
        self.key = key
        self.actors: dict[str, object] = {}     # node id -> actor handle
        self.info: dict[str, dict] = {}         # node id -> what ready() said


_STATE: dict = {"address": None, "cluster": None}
_LOCK = threading.Lock()


def _connect(address: str) -> None:
    ray = _ray()
    if ray.is_initialized():
        if _STATE["address"] in (None, address):    # ours, or the caller's own connection
            return
        shutdown()
    ray.init(address="local" if address == "local" else address, ignore_reinit_error=True,
             log_to_driver=False, namespace="lm_eval_quantum")
    _STATE["address"] = address


def _nodes() -> dict[str, dict]:
    """The alive nodes that have CPUs: {node id: Ray's record}."""
    return {n["NodeID"]: n for n in _ray().nodes()
            if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1}


def _name(node_id: str, record: dict | None = None, info: dict | None = None) -> str:
    host = (info or {}).get("host") or (record or {}).get("NodeManagerHostname") or "?"
    ip = (record or {}).get("NodeManagerAddress")
    return f"Ray node {node_id} ({host}{', ' + ip if ip else ''})"


def _kill(actor) -> None:
    try:
        _ray().kill(actor, no_restart=True)
    except Exception:  # noqa: BLE001 - already gone
        pass


def _start(cluster: _Cluster, score: Scorer, min_isolation: str | None,
           workers_per_node: int | None) -> None:
    """An actor on every alive node that has none; wait until each has its pool, or fail
    naming the node."""
    ray = _ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = _nodes()
    for node_id in [n for n in cluster.actors if n not in nodes]:   # nodes gone since
        _kill(cluster.actors.pop(node_id))
        cluster.info.pop(node_id, None)
    env = {k: v for k, v in os.environ.items() if k.startswith("LMQ_") and k not in _LOCAL_SETTINGS}
    new = {}
    for node_id, record in nodes.items():
        if node_id in cluster.actors:
            continue
        workers = workers_per_node or int(record["Resources"]["CPU"])
        actor = _actor_class().options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
            num_cpus=1, max_concurrency=RAY_CHUNKS_IN_FLIGHT, max_restarts=0,
        ).remote(score, env, min_isolation, workers)
        new[actor.ready.remote()] = (node_id, actor)
    if not new:
        if not cluster.actors:
            raise ScaleOutError(f"the Ray cluster at {_STATE['address']} has no alive node with a CPU")
        return
    done, waiting = ray.wait(list(new), num_returns=len(new), timeout=RAY_NODE_START_SECONDS)
    problems, isolation_problems = [], []
    for ref in new:
        node_id, actor = new[ref]
        name = _name(node_id, nodes.get(node_id))
        if ref not in done:
            problems.append(f"{name}: its scorer did not start within {RAY_NODE_START_SECONDS:g} s "
                            "(are its CPUs taken by other Ray work?)")
            _kill(actor)
            continue
        try:
            info = ray.get(ref)
        except ray.exceptions.RayError as exc:
            problems.append(f"{name}: its scorer failed to start: {exc}")
            _kill(actor)
            continue
        if info["error"]:
            kind, message = info["error"]
            (isolation_problems if kind == "IsolationUnavailable" else problems).append(
                f"{_name(node_id, nodes.get(node_id), info)}: {kind}: {message}")
            _kill(actor)
            continue
        cluster.actors[node_id], cluster.info[node_id] = actor, info
    if not (isolation_problems or problems):
        # every new node reached the level: now start their zygotes, all at once
        warming = {cluster.actors[node_id].warm.remote(): node_id for node_id, _actor in new.values()
                   if node_id in cluster.actors}
        done, _ = ray.wait(list(warming), num_returns=len(warming), timeout=RAY_NODE_START_SECONDS)
        for ref, node_id in warming.items():
            name = _name(node_id, nodes.get(node_id), cluster.info[node_id])
            try:
                error = ray.get(ref) if ref in done else ("timeout", "its sandbox did not start "
                                                          f"within {RAY_NODE_START_SECONDS:g} s")
            except ray.exceptions.RayError as exc:
                error = (type(exc).__name__, str(exc))
            if error:
                problems.append(f"{name}: its sandbox failed to start: {error[0]}: {error[1]}")
    if isolation_problems or problems:
        close()
        if isolation_problems:
            raise IsolationUnavailable("scoring on Ray: " + "; ".join(isolation_problems + problems))
        raise ScaleOutError("scoring on Ray: " + "; ".join(problems))


def connect(address: str, score: Scorer, min_isolation: str | None = None,
            workers_per_node: int | None = None) -> list[dict]:
    """Connect to the cluster at `address` and start (or reuse) a scorer on each node:
    what each node reached ({node, host, isolation, workers, package}).  Raises
    ``IsolationUnavailable`` when a node cannot reach the run's minimum level."""
    minimum = (min_isolation or os.environ.get(ENV_MIN_LEVEL, "")).strip().lower() or None
    if minimum not in (None, *LEVELS):
        raise IsolationUnavailable(f"unknown isolation level {minimum!r}; choose one of {', '.join(LEVELS)}")
    env = tuple(sorted((k, v) for k, v in os.environ.items()
                       if k.startswith("LMQ_") and k not in _LOCAL_SETTINGS))
    key = (address, f"{score.__module__}.{score.__qualname__}", minimum, workers_per_node, env)
    with _LOCK:
        _connect(address)
        cluster = _STATE["cluster"]
        if cluster is None or cluster.key != key:
            close()
            cluster = _STATE["cluster"] = _Cluster(key)
        _start(cluster, score, minimum, workers_per_node)
        return [dict(cluster.info[n]) for n in sorted(cluster.info)]


def summary() -> list[dict]:
    """Each node's sandbox facts so far (``SandboxPool.summary``: level, samples, infra
    events) with its ``node`` id; empty when no scorer runs."""
    with _LOCK:
        cluster = _STATE["cluster"]
        actors = dict(cluster.actors) if cluster else {}
    ray = _ray() if actors else None
    out = []
    for node_id, actor in sorted(actors.items()):
        try:
            out.append({"node": node_id, **ray.get(actor.summary.remote(), timeout=30)})
        except Exception as exc:  # noqa: BLE001 - a lost node
            out.append({"node": node_id, "error": f"{type(exc).__name__}: {exc}"})
    return out


def close() -> None:
    """Stop the scorers (and their zygotes) of the cluster; the connection stays."""
    cluster, _STATE["cluster"] = _STATE["cluster"], None
    if cluster is None:
        return
    ray = _ray()
    for actor in cluster.actors.values():
        try:
            ray.get(actor.close.remote(), timeout=30)
        except Exception:  # noqa: BLE001 - a lost node: nothing to close
            pass
        _kill(actor)


def shutdown() -> None:
    """Stop the scorers and disconnect from the cluster."""
    close()
    ray = _ray()
    if ray.is_initialized():
        ray.shutdown()
    _STATE["address"] = None


# --- scoring ---------------------------------------------------------------------------------
def _bar(progress, total: int):
    if hasattr(progress, "update"):
        return progress, False
    from tqdm.auto import tqdm

    desc = progress if isinstance(progress, str) else "sandbox (ray)"
    return tqdm(total=total, desc=desc, unit="sample", disable=not progress), True


def score_on_ray(items, address: str, score: Scorer, progress=False, min_isolation: str | None = None,
                 workers_per_node: int | None = None) -> list[dict]:
    """Score `items` ((doc, response_text, sample_index) tuples, as `score` takes them) on
    the Ray cluster at `address`: the verdicts in the items' order, each with the ``node``
    that scored it.  `min_isolation` (else the driver's ``LMQ_MIN_ISOLATION``) must be
    reached by every node; `workers_per_node` sizes each node's pool (default: the node's
    CPUs as Ray counts them).  `progress` as for ``score_samples``.

    A chunk whose call fails (node or actor lost) is resubmitted whole to another node; a
    sample whose verdict is ``infra`` (its node's sandbox failed twice, e.g. a node going
    down) is scored again on another node while one is left, since infrastructure is never
    the candidate's: only where every node tried gave ``infra`` does that verdict stand."""
    items = list(items)
    if not items:
        return []
    connect(address, score, min_isolation, workers_per_node)
    ray = _ray()
    with _LOCK:
        cluster: _Cluster = _STATE["cluster"]
        actors = dict(cluster.actors)
        workers = {n: cluster.info[n]["workers"] for n in actors}
    size = max(1, RAY_SAMPLES_PER_WORKER * min(workers.values()))
    # a chunk: the positions of its items, and the nodes it was tried on (with why)
    queue: deque[tuple[list[int], list[str], list[str]]] = deque(
        (list(range(i, min(i + size, len(items)))), [], []) for i in range(0, len(items), size))
    verdicts: list[dict | None] = [None] * len(items)
    inflight: dict = {}                 # object ref -> (chunk, node id)
    load = {n: 0 for n in actors}
    bar, own_bar = _bar(progress, len(items))
    try:
        while queue or inflight:
            for node_id in sorted(actors, key=lambda n: load[n]):
                # fill every node to RAY_CHUNKS_IN_FLIGHT, each chunk on a node it has not
                # been tried on
                while load.get(node_id, RAY_CHUNKS_IN_FLIGHT) < RAY_CHUNKS_IN_FLIGHT:
                    chunk = next((c for c in queue if node_id not in c[1]), None)
                    if chunk is None:
                        break
                    queue.remove(chunk)
                    call = actors[node_id].score.remote([items[i] for i in chunk[0]])
                    inflight[call] = (chunk, node_id)
                    load[node_id] += 1
            if not inflight:
                left = sum(len(c[0]) for c in queue)
                raise ScaleOutError(
                    f"scoring on Ray: {left} sample(s) could not be scored: no node left to try "
                    "them on (" + "; ".join("; ".join(c[2]) for c in queue) + ")")
            done, _ = ray.wait(list(inflight), num_returns=1)
            for ref in done:
                chunk, node_id = inflight.pop(ref)
                positions, nodes_tried, why = chunk
                if node_id in load:
                    load[node_id] -= 1
                name = _name(node_id, None, cluster.info.get(node_id))
                try:
                    out = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    # the node's fault, never the candidate's: retire the node, try elsewhere
                    text = str(exc).strip()
                    _again(queue, positions, nodes_tried + [node_id],
                           why + [f"{name}: {text.splitlines()[0] if text else type(exc).__name__}"])
                    if node_id in actors:
                        _retire(node_id, actors, load)
                    continue
                if len(out) != len(positions):
                    raise ScaleOutError(f"scoring on Ray: {name} returned {len(out)} verdicts for "
                                        f"{len(positions)} samples")
                infra = [i for i, v in zip(positions, out) if v.get("category") == "infra"]
                for i, verdict in zip(positions, out):
                    verdicts[i] = verdict
                if infra and len(nodes_tried) + 1 < RAY_CHUNK_ATTEMPTS and \
                        any(n not in nodes_tried + [node_id] for n in actors):
                    _again(queue, infra, nodes_tried + [node_id],
                           why + [f"{name}: {len(infra)} sample(s) with an infrastructure failure"])
                    bar.update(len(positions) - len(infra))
                else:
                    bar.update(len(positions))
    except BaseException:
        for ref in inflight:
            try:
                ray.cancel(ref)
            except Exception:  # noqa: BLE001
                pass
        raise
    finally:
        if own_bar:
            bar.close()
    return verdicts   # type: ignore[return-value]


def _again(queue: deque, positions: list[int], nodes_tried: list[str], why: list[str]) -> None:
    """Queue samples again, first, for a node they have not been tried on; after
    RAY_CHUNK_ATTEMPTS tries the run fails (a fault of the cluster or the harness)."""
    if len(nodes_tried) >= RAY_CHUNK_ATTEMPTS:
        raise ScaleOutError(f"scoring on Ray: {len(positions)} sample(s) failed on "
                            f"{len(nodes_tried)} nodes: " + "; ".join(why))
    log.warning("scoring on Ray: %d sample(s) resubmitted to another node: %s", len(positions), why[-1])
    queue.appendleft((positions, nodes_tried, why))


def _retire(node_id: str, actors: dict, load: dict) -> None:
    """Stop sending work to a node whose chunk failed (its actor is killed; a later call
    starts a fresh one if the node is still alive)."""
    actor = actors.pop(node_id)
    load.pop(node_id, None)
    with _LOCK:
        cluster = _STATE["cluster"]
        if cluster is not None and cluster.actors.get(node_id) is actor:
            cluster.actors.pop(node_id)
            cluster.info.pop(node_id, None)
    _kill(actor)
