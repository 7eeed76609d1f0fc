"""The Parquet catalog: table schemas (declared once), layout, atomic partition writes."""
