"""The glue to lm-evaluation-harness, and the only code that imports ``lm_eval``: the task
table and YAML generation (``tasks``), the dataset loader, filter and results functions
(``metrics``), the start-up hook and registration, the model patches (``sampling``,
``models``), saved generations, the quiet console, and the commands that run lm-eval
(``cli``, ``repair``, ``verify``, ``training``)."""
