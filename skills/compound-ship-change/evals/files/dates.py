"""Dates for the example eval: a small module with one bug."""


def days_in_range(first: int, last: int) -> int:
    """How many days from day `first` to day `last`, both included."""
    return last - first


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
