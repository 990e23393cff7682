"""The debugging corpus: mutation operators over canonical answers (``operators``), their
native ground truth (``truth``), the judge's mutation self-test built on both (``mutation``),
and the recorded bugs of the debug_fix / debug_locate / debug_classify tasks (``bugs``)."""
