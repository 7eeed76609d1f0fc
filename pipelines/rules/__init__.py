"""The operator's rule set: built-in junk rules and the operator's own, as data in the
catalog (docs/RULES.md). `store` edits it, `validate` checks a pattern, `matcher` runs
the whole set as one automaton, `counters` reads what the rules did."""
