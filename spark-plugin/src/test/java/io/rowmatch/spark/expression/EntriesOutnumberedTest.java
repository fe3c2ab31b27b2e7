package io.rowmatch.spark.expression;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The rule the dictionary and per-source-row paths share: a set's rows are counted until they reach its entries. */
class EntriesOutnumberedTest {

  @Test
  void countsRowsUnderOneSetUntilTheyReachItsEntries() {
    EntriesOutnumbered rule = new EntriesOutnumbered();
    Object set = new Object();
    assertFalse(rule.count(set, 63, 100));
    assertFalse(rule.count(set, 36, 100)); // 99 rows
    assertTrue(rule.count(set, 1, 100)); // 100: as many rows as entries
    assertTrue(rule.count(set, 0, 100));
  }

  @Test
  void anotherSetStartsTheCountAgainAndSetsAreNamedByEquals() {
    EntriesOutnumbered rule = new EntriesOutnumbered();
    assertFalse(rule.count("a", 60, 64));
    assertFalse(rule.count("b", 60, 64)); // a new set: 60, not 120
    assertTrue(rule.count(new String("b"), 4, 64)); // equal to "b": the same set
    assertFalse(rule.count("a", 10, 64)); // back to "a": counted from 0 again
  }

  @Test
  void emptySetsAndBatchesOfZeroRows() {
    EntriesOutnumbered rule = new EntriesOutnumbered();
    assertTrue(rule.count("none", 0, 0));
    assertFalse(rule.count("one", 0, 1));
  }
}
