"""Query fields, one group per module; api/schema.py merges the groups into `Query`."""
