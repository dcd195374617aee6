"""The problem model: the op contract (problem), params.yaml (params), where stages write and what (records), atomic JSON (jsonio)."""
