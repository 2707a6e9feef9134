import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from lockd import Lock  # noqa: E402


class LockTest(unittest.TestCase):
    def test_acquire_then_release(self) -> None:
        lock = Lock(timeout=60)
        self.assertTrue(lock.acquire())
        self.assertFalse(lock.acquire())
        lock.release()
        self.assertTrue(lock.acquire())

    def test_expired_lock_can_be_taken(self) -> None:
        lock = Lock(timeout=0)
        self.assertTrue(lock.acquire())
        self.assertTrue(lock.acquire())
