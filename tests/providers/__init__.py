"""Model adapters against local servers that speak the real wire formats."""
