#!/usr/bin/env python3
"""tools/fidelity_table_test.py: the room fidelity_table.py --margins gives a program on its
target, for each kind of verdict (docs/measured.md's margins tables come from it)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fidelity_table as ft  # noqa: E402


class Room(unittest.TestCase):
    def test_a_pass_has_its_lowest_fraction_less_the_target(self):
        r, why = ft.room({0}, [0.97, 0.953, 0.99], 0.92)
        self.assertAlmostEqual(r, 0.033)
        self.assertEqual(why, "passed")

    def test_a_program_below_target_has_the_target_less_its_highest(self):
        r, why = ft.room({1}, [0.80, 0.839, 0.82], 0.92)
        self.assertAlmostEqual(r, 0.081)
        self.assertEqual(why, "below target")

    def test_below_target_at_or_above_it_was_not_decided_by_the_bound(self):
        # lab 02's events_host_timed: as fast as the bound, its measurement wrong
        r, why = ft.room({1}, [1.01, 1.02], 0.92)
        self.assertIsNone(r)
        self.assertEqual(why, "below target for another reason")

    def test_verdicts_that_differ_between_seeds_have_no_room(self):
        r, why = ft.room({0, 1}, [0.93, 0.91], 0.92)
        self.assertIsNone(r)
        self.assertEqual(why, "verdicts differ between seeds")

    def test_a_wrong_program_has_no_room(self):
        self.assertEqual(ft.room({2}, [1.0], 0.92), (None, "wrong or stopped"))

    def test_a_run_without_figures_has_no_room(self):
        self.assertEqual(ft.room({"no result"}, [None], 0.92), (None, "no figures"))
        self.assertEqual(ft.room({0}, [0.9], None), (None, "no figures"))

    def test_the_range_shows_lowest_and_highest(self):
        self.assertEqual(ft.fractions_range([0.9, None, 0.8]), "0.800-0.900")
        self.assertEqual(ft.fractions_range([None]), "-")


if __name__ == "__main__":
    unittest.main()
