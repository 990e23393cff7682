"""What the sandboxed process may import: the wire format between sandbox and judge
(``wire``), the zygote that runs candidates (``zygote``) and the framework adapters that turn
a candidate's circuit into wire ops (``adapters``).  Nothing here imports the judge, the
problems or lm-eval (tests/test_architecture.py)."""
