"""The only place with SQL. Functions take an AsyncConnection and never commit it."""
