"""The debugging corpus: mutation operators over canonical answers (``mutation``) and the
recorded bugs of the debug_fix / debug_locate / debug_classify tasks (``bugs``)."""
