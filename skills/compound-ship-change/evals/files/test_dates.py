"""The tests the eval's check runs: `python3 test_dates.py` exits 0 when they all pass."""

from dates import days_in_range, is_leap

assert days_in_range(1, 1) == 1, "one day is one day"
assert days_in_range(1, 31) == 31, "January has 31 days"
assert is_leap(2000) and not is_leap(1900) and is_leap(2024)
print("3 passed")
