"""The junk judge: which releases to hide from search, and why (docs/JUDGE.md).

`rules` holds the rules in their order and the rule set's version, `facts` gathers what
the catalog knows of each release (the header pass, the article pass, health, merges),
`store` writes and reads `release_verdicts` and the judge's place, `run` judges what
changed since the last run.
"""
