"""Evaluate the quantum tasks on an in-memory Hugging Face model, e.g. during training.

* :func:`evaluate_model` runs lm-eval (``simple_evaluate`` on lm-eval's ``HFLM``) on a
  model and tokenizer you hold and returns flat metrics ``{"<task>/<metric>": value}``;
* :class:`QuantumEvalCallback` is a ``transformers.TrainerCallback`` that does so every
  N steps and logs ``quantum/<task>/<metric>`` through the trainer::

      from lm_eval_quantum.lmeval.training import QuantumEvalCallback

      trainer = Trainer(model=model, args=args, train_dataset=ds, processing_class=tok)
      trainer.add_callback(QuantumEvalCallback(["quantum_qasm_*_ppl"], eval_steps=100,
                                               limit=5, trainer=trainer))
      trainer.train()

* ``scripts/compare_checkpoints.py`` evaluates saved checkpoints and plots metric vs step.

Importing this module imports neither torch, transformers nor lm-eval; the callback class
is built on first access.
"""
from __future__ import annotations

import contextlib
import functools
from typing import Any, Iterable

__all__ = ["METRIC_PREFIX", "QuantumEvalCallback",  # noqa: F822 (built by __getattr__)
           "evaluate_model", "flatten_results", "pack_task_manager", "resolve_tasks"]

#: prefix of the callback's metric names in the trainer's logs
METRIC_PREFIX = "quantum/"


@functools.lru_cache(maxsize=4)
def _task_manager(path: str):
    from lm_eval.tasks import TaskManager

    return TaskManager(include_path=path, include_defaults=False)


def pack_task_manager():
    """A TaskManager indexing only the pack's tasks (cached: indexing takes ~1 s)."""
    from lm_eval_quantum.lmeval.registration import tasks_dir

    return _task_manager(tasks_dir())


def resolve_tasks(tasks: str | Iterable[str], manager) -> list[str]:
    """Task specs as the ``lm_eval`` CLI takes them (names, globs, comma-separated, YAML
    paths) -> what ``simple_evaluate`` loads: names expanded, in order, without repeats."""
    specs = [tasks] if isinstance(tasks, str) else list(tasks)
    specs = [t.strip() for spec in specs for t in spec.split(",") if t.strip()]
    names, missing = [], []
    for spec in specs:
        found = [spec] if spec.endswith(".yaml") else manager.match_tasks([spec])
        missing += [] if found else [spec]
        names += [n for n in found if n not in names]
    if missing:
        raise ValueError(f"tasks not found: {', '.join(missing)}")
    return names


def flatten_results(results: dict) -> dict[str, float]:
    """``simple_evaluate`` output -> ``{"<task or group>/<metric>": value}``.

    lm-eval keys metrics ``"<metric>,<filter>"``; the filter is dropped unless a metric
    appears under two filters.  Standard errors, aliases and non-numbers are left out.
    """
    flat: dict[str, float] = {}
    for section in ("results", "groups"):
        for name, metrics in (results.get(section) or {}).items():
            keys = [k for k, v in metrics.items()
                    if "," in k and not k.split(",", 1)[0].endswith("_stderr")
                    and isinstance(v, (int, float)) and not isinstance(v, bool)]
            bare = [k.split(",", 1)[0] for k in keys]
            for key, metric in zip(keys, bare):
                label = metric if bare.count(metric) == 1 else key
                flat.setdefault(f"{name}/{label}", float(metrics[key]))
    return flat


@contextlib.contextmanager
def _kept_rng_state():
    """simple_evaluate seeds python, numpy and torch: keep the training run's streams."""
    import random

    import numpy as np
    import torch

    py, npy = random.getstate(), np.random.get_state()
    cuda = list(range(torch.cuda.device_count())) if torch.cuda.is_available() else []
    try:
        with torch.random.fork_rng(devices=cuda):
            yield
    finally:
        random.setstate(py)
        np.random.set_state(npy)


def _device(model):
    try:
        return next(model.parameters()).device
    except (StopIteration, AttributeError):
        return None


def evaluate_model(model, tokenizer, tasks: str | Iterable[str], limit: int | float | None = None,
                   batch_size: int | str = 1, gen_kwargs: dict | str | None = None,
                   log_samples: bool = False, return_results: bool = False,
                   task_manager=None, max_length: int | None = None, **evaluate_kwargs):
    """Run lm-eval tasks on an in-memory ``transformers`` model; return flat metrics.

    ``tasks``: task, group or tag names, globs and YAML paths as the ``lm_eval`` CLI takes
    them (a list, or one comma-separated string).  ``limit``: the first ``limit`` docs of
    each task (or a fraction), the same docs on every call.  No bootstrap (``bootstrap_iters=0``); the
    executing tasks run their answers in the pack's sandbox (``confirm_run_unsafe_code``).
    ``task_manager`` defaults to one indexing only the pack's tasks (pass your own to mix
    in lm-eval's).  Other keyword arguments go to ``lm_eval.simple_evaluate``.

    Returns ``{"<task>/<metric>": value}``, or ``(metrics, results)`` with the raw
    ``simple_evaluate`` output when ``return_results``.  The model's train/eval mode, its
    device, torch's grad mode and the python/numpy/torch random streams are as before.
    """
    import lm_eval
    import torch
    from lm_eval.models.huggingface import HFLM

    task_manager = task_manager or pack_task_manager()
    tasks = resolve_tasks(tasks, task_manager)
    was_training, device = model.training, _device(model)
    try:
        with _kept_rng_state(), torch.no_grad():
            lm = HFLM(pretrained=model, tokenizer=tokenizer, batch_size=batch_size,
                      max_length=max_length)
            results = lm_eval.simple_evaluate(
                model=lm, tasks=tasks, limit=limit, bootstrap_iters=0, gen_kwargs=gen_kwargs,
                log_samples=log_samples, task_manager=task_manager,
                confirm_run_unsafe_code=True, **evaluate_kwargs)
    finally:
        model.train(was_training)
        if device is not None and _device(model) != device:
            model.to(device)
    metrics = flatten_results(results or {})
    return (metrics, results) if return_results else metrics


def _callback_class():
    from transformers import TrainerCallback

    class QuantumEvalCallback(TrainerCallback):
        """Evaluate quantum tasks every ``eval_steps`` optimizer steps (and at train end).

        ``tasks``, ``limit``, ``batch_size``, ``gen_kwargs`` and further keyword arguments
        are :func:`evaluate_model`'s.  ``eval_steps=None`` takes the trainer's
        ``args.eval_steps`` (no periodic evaluation if that is unset too); ``at_start``
        evaluates before the first step, ``at_end`` after the last one (unless that step
        was just evaluated).

        Logging: with ``trainer=`` the metrics go through ``trainer.log`` (the trainer's
        ``state.log_history`` and every reporting integration: TensorBoard, W&B, ...);
        without it they are appended to ``state.log_history`` only.  Names are
        ``quantum/<task>/<metric>``; ``self.history`` keeps ``{"step": ..., **metrics}``.
        The model is the trainer's; the tokenizer is ``tokenizer=`` or the trainer's
        ``processing_class``.  Only the main process evaluates.
        """

        def __init__(self, tasks, eval_steps: int | None = None, limit: int | float | None = None,
                     batch_size: int | str = 1, gen_kwargs: dict | None = None,
                     at_start: bool = False, at_end: bool = True, trainer=None, tokenizer=None,
                     prefix: str = METRIC_PREFIX, **evaluate_kwargs):
            self.tasks, self.eval_steps, self.limit = tasks, eval_steps, limit
            self.at_start, self.at_end = at_start, at_end
            self.trainer, self.tokenizer, self.prefix = trainer, tokenizer, prefix
            self.evaluate_kwargs = dict(batch_size=batch_size, gen_kwargs=gen_kwargs,
                                        **evaluate_kwargs)
            self.history: list[dict[str, Any]] = []

        def on_train_begin(self, args, state, control, **kwargs):
            if self.at_start:
                self._evaluate(state, control, kwargs)

        def on_step_end(self, args, state, control, **kwargs):
            every = self.eval_steps if self.eval_steps is not None else args.eval_steps
            if every and state.global_step % int(every) == 0:
                self._evaluate(state, control, kwargs)

        def on_train_end(self, args, state, control, **kwargs):
            if self.at_end and not (self.history and self.history[-1]["step"] == state.global_step):
                self._evaluate(state, control, kwargs)

        def _evaluate(self, state, control, kwargs) -> None:
            if not state.is_world_process_zero:
                return
            tokenizer = self.tokenizer or kwargs.get("processing_class") or kwargs.get("tokenizer")
            tokenizer = getattr(tokenizer, "tokenizer", tokenizer)  # a multimodal processor's
            if tokenizer is None:
                raise ValueError("QuantumEvalCallback needs a tokenizer: pass tokenizer= or give "
                                 "the Trainer a processing_class")
            metrics = evaluate_model(kwargs["model"], tokenizer, self.tasks, limit=self.limit,
                                     **self.evaluate_kwargs)
            metrics = {self.prefix + k: v for k, v in metrics.items()}
            self.history.append({"step": state.global_step, **metrics})
            if self.trainer is not None:
                # Trainer.log -> on_log clears control.should_log: keep this step's own log
                should_log = control.should_log
                self.trainer.log(dict(metrics))
                control.should_log = should_log
            else:
                entry = dict(metrics)
                if state.epoch is not None:
                    entry["epoch"] = state.epoch
                state.log_history.append({**entry, "step": state.global_step})

    return QuantumEvalCallback


def __getattr__(name):
    if name == "QuantumEvalCallback":
        cls = _callback_class()
        cls.__module__ = __name__
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
