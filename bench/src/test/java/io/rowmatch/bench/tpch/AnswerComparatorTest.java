package io.rowmatch.bench.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import org.junit.jupiter.api.Test;

class AnswerComparatorTest {
  private static ResultTable table(List<String> types, List<String> names, List<List<String>> rows) {
    return new ResultTable(types, names, rows, "test");
  }

  private static Optional<String> compare(List<String> orderBy, int limit, List<String> types, List<String> names,
      List<List<String>> expected, List<List<String>> actual) {
    return AnswerComparator.compare(orderBy, limit, table(List.of(), List.of(), expected),
        table(types, names, actual));
  }

  private static Optional<String> sorted(List<String> types, List<List<String>> expected, List<List<String>> actual) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      names.add("c" + i);
    }
    return AnswerComparator.compareSorted(table(types, names, expected), table(types, names, actual), 1e-10);
  }

  /** TPC-DS against vanilla: sorted rows, decimals exact, doubles to ~10 significant digits. */
  @Test
  void sortedComparisonIgnoresRowOrderKeepsDecimalsExactAndDoublesClose() {
    List<String> types = List.of("string", "decimal(17,2)", "double", "int");
    List<List<String>> want = List.of(List.of("b", "1.50", "0.1234567890123", "1"),
        List.of("a", "2.00", "1000000", "null"), List.of("a", "2.00", "999", "null"));
    // the same rows in another order, doubles differing in the 13th digit, 1.5 printed with another scale
    List<List<String>> got = List.of(List.of("a", "2.00", "999.0000000000001", "null"),
        List.of("b", "1.5", "0.1234567890124", "1"), List.of("a", "2", "1000000.0000001", "null"));
    assertEquals(Optional.empty(), sorted(types, want, got));
    // a decimal one cent off, a double off in the 9th digit, an integer, a text, a null: all differences
    assertTrue(sorted(types, want, List.of(want.get(0), want.get(1), List.of("a", "2.01", "999", "null"))).isPresent());
    assertTrue(sorted(types, want, List.of(want.get(0), want.get(1), List.of("a", "2.00", "999.000001", "null")))
        .isPresent());
    assertTrue(sorted(types, want, List.of(List.of("b", "1.50", "0.1234567890123", "2"), want.get(1), want.get(2)))
        .isPresent());
    assertTrue(sorted(types, want, List.of(List.of("c", "1.50", "0.1234567890123", "1"), want.get(1), want.get(2)))
        .isPresent());
    assertTrue(sorted(types, want, List.of(want.get(0), List.of("a", "2.00", "1000000", "0"), want.get(2))).isPresent());
    // multisets: a duplicated row is not the same answer as two distinct rows
    assertTrue(sorted(types, want, List.of(want.get(0), want.get(1), want.get(1))).isPresent());
    assertTrue(sorted(types, want, want.subList(0, 2)).isPresent());
    assertEquals(Optional.empty(), sorted(List.of("double"), List.of(List.of("NaN"), List.of("null")),
        List.of(List.of("null"), List.of("NaN"))));
  }

  @Test
  void decimalsAgreeToThePrintedPrecision() {
    List<String> types = List.of("decimal(19,6)");
    List<String> names = List.of("x");
    // the reference rounds averages to 2 digits
    assertEquals(Optional.empty(), compare(List.of(), -1, types, names, List.of(List.of("25.58")), List.of(List.of("25.575155"))));
    assertTrue(compare(List.of(), -1, types, names, List.of(List.of("25.58")), List.of(List.of("25.574999"))).isPresent());
    assertTrue(compare(List.of(), -1, types, names, List.of(List.of("25.58")), List.of(List.of("25.60"))).isPresent());
    // the reference drops trailing zeros
    assertEquals(Optional.empty(), compare(List.of(), -1, types, names, List.of(List.of("380456")), List.of(List.of("380456.00"))));
    assertTrue(compare(List.of(), -1, types, names, List.of(List.of("380456")), List.of(List.of("380457.00"))).isPresent());
    // Spark's decimal may be the coarser side (Q14: 15.486546 against a double printed to 13 digits)
    assertEquals(Optional.empty(), compare(List.of(), -1, types, names,
        List.of(List.of("15.4865458122841")), List.of(List.of("15.486546"))));
    assertTrue(compare(List.of(), -1, types, names, List.of(List.of("15.4865458122841")), List.of(List.of("15.486547"))).isPresent());
  }

  @Test
  void integersTextAndNullsMustBeExact() {
    List<String> names = List.of("x");
    assertTrue(compare(List.of(), -1, List.of("int"), names, List.of(List.of("13")), List.of(List.of("14"))).isPresent());
    assertEquals(Optional.empty(), compare(List.of(), -1, List.of("bigint"), names, List.of(List.of("13")), List.of(List.of("13"))));
    assertTrue(compare(List.of(), -1, List.of("string"), names, List.of(List.of("13")), List.of(List.of("13.0"))).isPresent());
    assertTrue(compare(List.of(), -1, List.of("date"), names, List.of(List.of("1995-03-11")), List.of(List.of("1995-03-12"))).isPresent());
    assertTrue(compare(List.of(), -1, List.of("decimal(38,6)"), names, List.of(List.of("null")), List.of(List.of("0.000000"))).isPresent());
    assertTrue(compare(List.of(), -1, List.of("decimal(38,6)"), names, List.of(List.of("0")), List.of(List.of("null"))).isPresent());
    assertEquals(Optional.empty(), compare(List.of(), -1, List.of("decimal(38,6)"), names, List.of(List.of("null")), List.of(List.of("null"))));
  }

  @Test
  void orderMattersExceptAmongRowsTiedOnTheOrderByColumns() {
    List<String> types = List.of("string", "bigint");
    List<String> names = List.of("k", "v");
    List<List<String>> expected = List.of(List.of("a", "1"), List.of("b", "2"), List.of("b", "3"), List.of("c", "4"));
    List<List<String>> tiesSwapped = List.of(List.of("a", "1"), List.of("b", "3"), List.of("b", "2"), List.of("c", "4"));
    List<List<String>> orderBroken = List.of(List.of("b", "2"), List.of("a", "1"), List.of("b", "3"), List.of("c", "4"));
    assertEquals(Optional.empty(), compare(List.of("k"), -1, types, names, expected, tiesSwapped));
    assertTrue(compare(List.of("k"), -1, types, names, expected, orderBroken).isPresent());
    assertTrue(compare(List.of("k", "v"), -1, types, names, expected, tiesSwapped).isPresent());
    // without ORDER BY: a multiset, so any order, but the same multiplicities
    assertEquals(Optional.empty(), compare(List.of(), -1, types, names, expected, orderBroken));
    List<List<String>> duplicated = List.of(List.of("a", "1"), List.of("a", "1"), List.of("b", "3"), List.of("c", "4"));
    assertTrue(compare(List.of(), -1, types, names, expected, duplicated).isPresent());
  }

  @Test
  void aLimitCutLastTieGroupMayHoldOtherTiedRows() {
    List<String> types = List.of("bigint", "string");
    List<String> names = List.of("rank", "who");
    List<List<String>> expected = List.of(List.of("9", "x"), List.of("5", "y"));
    List<List<String>> otherTie = List.of(List.of("9", "x"), List.of("5", "z"));
    assertEquals(Optional.empty(), compare(List.of("rank"), 2, types, names, expected, otherTie));
    assertTrue(compare(List.of("rank"), -1, types, names, expected, otherTie).isPresent(), "no LIMIT: must match");
    assertTrue(compare(List.of("rank"), 3, types, names, expected, otherTie).isPresent(), "LIMIT not reached");
    List<List<String>> firstDiffers = List.of(List.of("9", "w"), List.of("5", "y"));
    assertTrue(compare(List.of("rank"), 2, types, names, expected, firstDiffers).isPresent());
    List<List<String>> keyDiffers = List.of(List.of("9", "x"), List.of("4", "y"));
    assertTrue(compare(List.of("rank"), 2, types, names, expected, keyDiffers).isPresent());
  }

  @Test
  void rowAndColumnCountsMustMatch() {
    List<String> names = List.of("x");
    assertTrue(compare(List.of(), -1, List.of("int"), names, List.of(List.of("1")), List.of()).isPresent());
    assertTrue(AnswerComparator.compare(List.of(), -1, table(List.of(), List.of(), List.of(List.of("1", "2"))),
        table(List.of("int"), names, List.of(List.of("1")))).isPresent());
  }

  /** Every reference agrees with itself, and disagrees once any single value is changed. */
  @Test
  void everyReferenceDetectsAnyOneChangedValue() {
    Random random = new Random(7);
    for (TpchQuery query : TpchQuery.all()) {
      ResultTable reference = query.reference();
      List<String> names = new ArrayList<>();
      for (int c = 0; c < reference.columnCount(); c++) {
        names.add("c" + c);
      }
      // name the ORDER BY columns after the query, so ordered comparison is exercised on real answers
      List<String> orderBy = new ArrayList<>();
      for (int k = 0; k < query.orderBy().size() && k < names.size(); k++) {
        orderBy.add(names.get(k));
      }
      ResultTable same = table(reference.types(), names, reference.rows());
      assertEquals(Optional.empty(), AnswerComparator.compare(orderBy, TpchQuery.NO_LIMIT, reference, same), query.name());
      for (int trial = 0; trial < 20; trial++) {
        int row = random.nextInt(reference.rows().size());
        int column = random.nextInt(reference.columnCount());
        List<List<String>> changed = new ArrayList<>();
        for (List<String> r : reference.rows()) {
          changed.add(new ArrayList<>(r));
        }
        boolean floating = !reference.types().isEmpty() && reference.types().get(column).strip().equals("DOUBLE");
        changed.get(row).set(column, changeOf(changed.get(row).get(column), floating));
        ResultTable mutated = table(reference.types(), names, changed);
        assertTrue(AnswerComparator.compare(orderBy, TpchQuery.NO_LIMIT, reference, mutated).isPresent(),
            query.name() + " row " + row + " column " + column);
      }
    }
  }

  /**
   * A different value: two units more in the last printed digit of a number (for a double, also a
   * relative 1e-9, beyond the comparator's 1e-12 slack for summation order), else other text.
   */
  private static String changeOf(String value, boolean floating) {
    try {
      BigDecimal number = new BigDecimal(value);
      BigDecimal changed = number.add(BigDecimal.valueOf(2, Math.max(number.scale(), 0)));
      if (floating) {
        changed = changed.add(number.abs().multiply(new BigDecimal("1e-9")));
      }
      return changed.toPlainString();
    } catch (NumberFormatException e) {
      return value.equals("null") ? "0" : value + "x";
    }
  }
}
