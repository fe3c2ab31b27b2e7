package io.rowmatch.bench.tpch;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Decides whether an answer equals the expected one (the trino-tpch reference, or vanilla Spark's).
 *
 * <ul>
 *   <li>Text, dates and integers must be equal exactly.
 *   <li>Decimals and floats are equal to the printed precision: |expected - actual| is at most half a
 *       unit in the last printed digit of each side (the references round averages to 2 digits and drop
 *       trailing zeros; Spark keeps its decimal type's scale). Floating actual values get a further
 *       relative 1e-12 for summation order.
 *   <li>Row order: with an ORDER BY, rows are compared in order, except that rows tied on every ORDER BY
 *       column may come in any order among themselves. Without an ORDER BY, as multisets. When a LIMIT
 *       cut the answer, the last group of tied rows may be another choice among equally ranked rows, so
 *       only its ORDER BY columns must match.
 * </ul>
 *
 * <p>The column kinds come from the actual answer's types (Spark's), else the expected one's.
 */
public final class AnswerComparator {
  private static final BigDecimal RELATIVE_FLOAT_SLACK = new BigDecimal("1e-12");

  enum Kind { TEXT, INTEGRAL, DECIMAL, FLOATING }

  private AnswerComparator() {}

  /**
   * Against another engine's answer (TPC-DS checks against vanilla): the rows as sorted multisets (queries
   * whose ORDER BY ties could come in any order pass), text, dates, integers and decimals exactly, floating
   * values to a relative {@code relativeFloatTolerance} (summation order differs between engines).
   */
  public static Optional<String> compareSorted(ResultTable expected, ResultTable actual, double relativeFloatTolerance) {
    int columns = actual.columnCount();
    if (expected.columnCount() != columns) {
      return Optional.of("expected " + expected.columnCount() + " columns, got " + columns);
    }
    if (expected.rows().size() != actual.rows().size()) {
      return Optional.of("expected " + expected.rows().size() + " rows, got " + actual.rows().size());
    }
    Kind[] kinds = kinds(expected, actual, columns);
    List<List<String>> want = sortedRows(expected.rows(), kinds);
    List<List<String>> got = sortedRows(actual.rows(), kinds);
    BigDecimal relative = new BigDecimal(Double.toString(relativeFloatTolerance));
    for (int r = 0; r < want.size(); r++) {
      for (int c = 0; c < columns; c++) {
        String w = want.get(r).get(c);
        String g = got.get(r).get(c);
        boolean equal = kinds[c] == Kind.FLOATING ? floatsClose(w, g, relative) : exactlyEqual(kinds[c], w, g);
        if (!equal) {
          return Optional.of(String.format(Locale.ROOT,
              "sorted row %d column %d (%s): expected %s, got %s (expected row %s, got %s)",
              r + 1, c + 1, columnName(actual, expected, c), w, g, want.get(r), got.get(r)));
        }
      }
    }
    return Optional.empty();
  }

  private static String columnName(ResultTable actual, ResultTable expected, int c) {
    List<String> names = !actual.names().isEmpty() ? actual.names() : expected.names();
    return c < names.size() ? names.get(c) : "?";
  }

  /** Sorted by the exact columns first, then by every column, so floating noise rarely reorders rows. */
  private static List<List<String>> sortedRows(List<List<String>> rows, Kind[] kinds) {
    List<List<String>> sorted = new ArrayList<>(rows);
    Comparator<List<String>> exact = (a, b) -> {
      for (int c = 0; c < kinds.length; c++) {
        if (kinds[c] != Kind.FLOATING) {
          int cmp = compareValues(kinds[c], a.get(c), b.get(c));
          if (cmp != 0) {
            return cmp;
          }
        }
      }
      return 0;
    };
    Comparator<List<String>> floats = (a, b) -> {
      for (int c = 0; c < kinds.length; c++) {
        if (kinds[c] == Kind.FLOATING) {
          int cmp = compareValues(kinds[c], a.get(c), b.get(c));
          if (cmp != 0) {
            return cmp;
          }
        }
      }
      return 0;
    };
    sorted.sort(exact.thenComparing(floats));
    return sorted;
  }

  /** Numbers by value (decimals 1.50 and 1.5 alike), null first, otherwise as text. */
  private static int compareValues(Kind kind, String a, String b) {
    boolean aNull = a.equals(ResultTable.NULL);
    boolean bNull = b.equals(ResultTable.NULL);
    if (aNull || bNull) {
      return Boolean.compare(!aNull, !bNull);
    }
    if (kind != Kind.TEXT) {
      BigDecimal x = number(a);
      BigDecimal y = number(b);
      if (x != null && y != null) {
        return x.compareTo(y);
      }
    }
    return a.compareTo(b);
  }

  private static boolean exactlyEqual(Kind kind, String want, String got) {
    if (kind == Kind.TEXT || want.equals(ResultTable.NULL) || got.equals(ResultTable.NULL)) {
      return want.equals(got);
    }
    BigDecimal w = number(want);
    BigDecimal g = number(got);
    return w != null && g != null ? w.compareTo(g) == 0 : want.equals(got);
  }

  private static boolean floatsClose(String want, String got, BigDecimal relative) {
    if (want.equals(got)) {
      return true; // also NaN, Infinity and null
    }
    BigDecimal w = number(want);
    BigDecimal g = number(got);
    if (w == null || g == null) {
      return false;
    }
    return w.subtract(g).abs().compareTo(w.abs().max(g.abs()).multiply(relative)) <= 0;
  }

  /** Empty when the answers agree, else a description of the first difference. */
  public static Optional<String> compare(TpchQuery query, ResultTable expected, ResultTable actual) {
    return compare(query.orderBy(), query.limit(), expected, actual);
  }

  static Optional<String> compare(List<String> orderBy, int limit, ResultTable expected, ResultTable actual) {
    int columns = actual.columnCount();
    if (expected.columnCount() != columns) {
      return Optional.of("expected " + expected.columnCount() + " columns, got " + columns);
    }
    if (expected.rows().size() != actual.rows().size()) {
      return Optional.of("expected " + expected.rows().size() + " rows, got " + actual.rows().size());
    }
    Kind[] kinds = kinds(expected, actual, columns);
    int[] keys = keyColumns(orderBy, actual, expected);
    List<List<String>> want = expected.rows();
    List<List<String>> got = actual.rows();
    boolean ordered = keys != null;
    boolean limited = limit != TpchQuery.NO_LIMIT && want.size() == limit;
    int start = 0;
    while (start < want.size()) {
      int end = ordered ? endOfTies(want, keys, start) : want.size();
      boolean lastCutGroup = limited && end == want.size();
      Optional<String> difference = compareGroup(want, got, start, end, kinds, null);
      if (difference.isPresent() && lastCutGroup) {
        difference = compareGroup(want, got, start, end, kinds, keys);
      }
      if (difference.isPresent()) {
        return difference;
      }
      start = end;
    }
    return Optional.empty();
  }

  /** Rows [start, end) of both sides as multisets; only the {@code onlyColumns} when given. */
  private static Optional<String> compareGroup(
      List<List<String>> want, List<List<String>> got, int start, int end, Kind[] kinds, int[] onlyColumns) {
    boolean positional = true;
    for (int i = start; i < end && positional; i++) {
      positional = rowsEqual(want.get(i), got.get(i), kinds, onlyColumns);
    }
    if (positional) {
      return Optional.empty();
    }
    if (end - start == 1) {
      return Optional.of(describe(want.get(start), got.get(start), start, kinds));
    }
    boolean[] used = new boolean[end - start];
    for (int i = start; i < end; i++) {
      boolean found = false;
      for (int j = start; j < end && !found; j++) {
        if (!used[j - start] && rowsEqual(want.get(i), got.get(j), kinds, onlyColumns)) {
          used[j - start] = true;
          found = true;
        }
      }
      if (!found) {
        return Optional.of(String.format(Locale.ROOT,
            "rows %d..%d (%s) differ: expected row %s is missing; got %s",
            start + 1, end, onlyColumns == null ? "same ORDER BY values or unordered" : "LIMIT-cut ties",
            want.get(i), got.subList(start, end)));
      }
    }
    return Optional.empty();
  }

  private static boolean rowsEqual(List<String> want, List<String> got, Kind[] kinds, int[] onlyColumns) {
    if (onlyColumns != null) {
      for (int c : onlyColumns) {
        if (!valuesEqual(kinds[c], want.get(c), got.get(c))) {
          return false;
        }
      }
      return true;
    }
    for (int c = 0; c < kinds.length; c++) {
      if (!valuesEqual(kinds[c], want.get(c), got.get(c))) {
        return false;
      }
    }
    return true;
  }

  private static String describe(List<String> want, List<String> got, int row, Kind[] kinds) {
    for (int c = 0; c < kinds.length; c++) {
      if (!valuesEqual(kinds[c], want.get(c), got.get(c))) {
        return String.format(Locale.ROOT, "row %d column %d: expected %s, got %s (expected row %s, got %s)",
            row + 1, c + 1, want.get(c), got.get(c), want, got);
      }
    }
    return "row " + (row + 1) + " differs";
  }

  static boolean valuesEqual(Kind kind, String want, String got) {
    if (want.equals(ResultTable.NULL) || got.equals(ResultTable.NULL)) {
      return want.equals(got);
    }
    switch (kind) {
      case TEXT:
        return want.equals(got);
      case INTEGRAL: {
        BigDecimal w = number(want);
        BigDecimal g = number(got);
        return w != null && g != null && w.compareTo(g) == 0;
      }
      default: {
        BigDecimal w = number(want);
        BigDecimal g = number(got);
        if (w == null || g == null) {
          return false;
        }
        BigDecimal tolerance = halfUnit(w).add(halfUnit(g));
        if (kind == Kind.FLOATING) {
          tolerance = tolerance.add(w.abs().multiply(RELATIVE_FLOAT_SLACK));
        }
        return w.subtract(g).abs().compareTo(tolerance) <= 0;
      }
    }
  }

  private static BigDecimal halfUnit(BigDecimal printed) {
    return BigDecimal.ONE.scaleByPowerOfTen(-Math.max(printed.scale(), 0)).multiply(new BigDecimal("0.5"));
  }

  private static BigDecimal number(String text) {
    try {
      return new BigDecimal(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Kind[] kinds(ResultTable expected, ResultTable actual, int columns) {
    List<String> types = !actual.types().isEmpty() ? actual.types() : expected.types();
    Kind[] kinds = new Kind[columns];
    for (int c = 0; c < columns; c++) {
      kinds[c] = types.isEmpty() ? Kind.TEXT : kindOf(types.get(c));
    }
    return kinds;
  }

  static Kind kindOf(String type) {
    String t = type.strip().toLowerCase(Locale.ROOT);
    if (t.startsWith("decimal") || t.equals("numeric")) {
      return Kind.DECIMAL;
    }
    if (t.equals("double") || t.equals("float") || t.equals("real")) {
      return Kind.FLOATING;
    }
    if (t.equals("bigint") || t.equals("int") || t.equals("integer") || t.equals("smallint")
        || t.equals("tinyint") || t.equals("long")) {
      return Kind.INTEGRAL;
    }
    return Kind.TEXT;
  }

  /** Column indexes of the ORDER BY names, or null when the answer is unordered. */
  private static int[] keyColumns(List<String> orderBy, ResultTable actual, ResultTable expected) {
    if (orderBy.isEmpty()) {
      return null;
    }
    List<String> names = !actual.names().isEmpty() ? actual.names() : expected.names();
    if (names.isEmpty()) {
      throw new IllegalArgumentException("An ordered answer needs column names to find its ORDER BY columns "
          + orderBy + "; neither " + actual.source() + " nor " + expected.source() + " has them");
    }
    List<Integer> indexes = new ArrayList<>();
    for (String key : orderBy) {
      int index = -1;
      for (int c = 0; c < names.size(); c++) {
        if (names.get(c).equalsIgnoreCase(key)) {
          index = c;
        }
      }
      if (index < 0) {
        throw new IllegalArgumentException(
            "ORDER BY column " + key + " is not an output column of " + actual.source() + " " + names);
      }
      indexes.add(index);
    }
    return indexes.stream().mapToInt(Integer::intValue).toArray();
  }

  private static int endOfTies(List<List<String>> rows, int[] keys, int start) {
    int end = start + 1;
    while (end < rows.size() && sameKeys(rows.get(start), rows.get(end), keys)) {
      end++;
    }
    return end;
  }

  private static boolean sameKeys(List<String> a, List<String> b, int[] keys) {
    for (int c : keys) {
      if (!a.get(c).equals(b.get(c))) {
        return false;
      }
    }
    return true;
  }
}
