"""Where the package's files are (a leaf: imports nothing of the package)."""
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
DATA_DIR = PACKAGE_DIR / "data"                  # the shipped docs, data/*.jsonl
COST_FILE = DATA_DIR / "canonical_cost.json"     # scripts/calibrate_limits.py
TINY_MODEL_DIR = PACKAGE_DIR / "tiny_model"      # the embedded demo model
