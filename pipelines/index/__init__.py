"""The header pass: one (group, range) and the carried window -> catalog partitions."""
