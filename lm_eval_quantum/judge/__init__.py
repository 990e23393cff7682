"""The trusted judge: exact simulation, oracle service, comparisons (never runs candidate code)."""
