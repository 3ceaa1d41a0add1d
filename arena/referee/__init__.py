"""The referee: plays matches between players, enforcing rules and time."""
