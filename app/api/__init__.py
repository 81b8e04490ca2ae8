"""The HTTP API: thin routes over the store, one problem map, the OpenAPI contract."""
