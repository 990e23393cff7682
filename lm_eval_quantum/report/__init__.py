"""Reports over finished runs: the leaderboard over many models, the end-of-run summary and
the compact results table.  Reads results; runs nothing."""
