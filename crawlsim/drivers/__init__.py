"""Drivers: the only places that read a clock or do I/O around the core."""
