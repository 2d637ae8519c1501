"""The pure core: decisions computed without I/O.

Nothing in this package imports a network client, a database driver or reads the
environment. Adapters (``services.adapters``) apply the decisions.
"""
