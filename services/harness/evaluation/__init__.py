"""Offline evaluations."""
