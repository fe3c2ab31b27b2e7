package io.rowmatch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.TransferPair;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import io.rowmatch.core.testing.AllocatorTest;
import io.rowmatch.core.testing.RandomVectors;
import io.rowmatch.core.testing.ReferenceRowEquality;
import io.rowmatch.core.testing.SupportedTypes;

/**
 * Random vectors of every type, every row pair, all four flag combinations: {@code equal} and
 * {@code equalMany} must agree with {@link ReferenceRowEquality}.
 */
class MultiColumnComparatorDifferentialTest extends AllocatorTest {
  static Stream<Field> types() {
    return SupportedTypes.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("types")
  void everyTypeAgreesWithTheReference(Field field) {
    Random rnd = new Random(field.getName().hashCode());
    int[][] sizes = {{37, 29}, {0, 5}, {1, 1}, {64, 65}, {65, 63}};
    int equalPairs = 0;
    for (int[] size : sizes) {
      try (FieldVector l = RandomVectors.pools(rnd, 0.2).create(field, size[0], allocator);
          FieldVector r = RandomVectors.pools(rnd, 0.2).create(field, size[1], allocator)) {
        equalPairs += checkAllPairs(List.of(l), List.of(r));
      }
    }
    // The pools are small: a type whose pairs never compare equal would test nothing.
    assertTrue(equalPairs > 0, "no equal pairs were generated for " + field);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("types")
  void nullVectorAgainstEveryTypeInBothDirections(Field field) {
    Random rnd = new Random(7);
    try (FieldVector typed = RandomVectors.pools(rnd, 0.5).create(field, 20, allocator);
        NullVector nulls = new NullVector("n", 11)) {
      checkAllPairs(List.of(typed), List.of(nulls));
      checkAllPairs(List.of(nulls), List.of(typed));
    }
  }

  @Test
  void multiColumnRowsOfMixedTypes() {
    Random rnd = new Random(42);
    for (int round = 0; round < 40; round++) {
      List<Field> keys = SupportedTypes.pick(rnd, 1 + rnd.nextInt(4));
      List<FieldVector> left = new ArrayList<>();
      List<FieldVector> right = new ArrayList<>();
      try {
        for (Field k : keys) {
          left.add(RandomVectors.pools(rnd, 0.1).create(k, 40, allocator));
          right.add(RandomVectors.pools(rnd, 0.1).create(k, 33, allocator));
        }
        checkAllPairs(left, right);
      } finally {
        left.forEach(FieldVector::close);
        right.forEach(FieldVector::close);
      }
    }
  }

  /**
   * {@code equal} checks variable-width and view columns first, then the fixed-width ones, then nested ones
   * and NullVector sides, whatever the key's column order. One key holding every group, in two orders: the
   * left rows are random, each right row copies a left row except in at most one column (taken from the next
   * left row). Every pair must match the reference, and among the pairs are rows equal but for one column of
   * each group, where checking the groups out of order could go wrong.
   */
  @Test
  void keysMixingEveryColumnGroupInAnyOrder() {
    List<Field> all = SupportedTypes.all();
    List<String> names = List.of("bool", "utf8", "int32", "list", "lbin", "double", "utf8view", "struct", "null");
    int m = 12;
    Random rnd = new Random(5);
    List<FieldVector> left = new ArrayList<>();
    List<FieldVector> right = new ArrayList<>();
    try {
      for (String name : names) {
        Field f = all.stream().filter(x -> x.getName().equals(name)).findFirst().orElseThrow();
        left.add(RandomVectors.pools(rnd, 0.15).create(f, m, allocator));
        right.add(f.createVector(allocator));
      }
      int rightRows = m * (names.size() + 1);
      for (int c = 0; c < names.size(); c++) {
        FieldVector r = right.get(c);
        r.allocateNew();
        if (!(r instanceof NullVector)) {
          for (int row = 0; row < rightRows; row++) {
            int base = row % m;
            int changed = row / m - 1; // -1: a plain copy of left row base
            r.copyFromSafe(changed == c ? (base + 1) % m : base, row, left.get(c));
          }
        }
        r.setValueCount(rightRows);
      }
      assertTrue(checkAllPairs(left, right) > 0);
      List<FieldVector> leftReversed = new ArrayList<>(left);
      List<FieldVector> rightReversed = new ArrayList<>(right);
      java.util.Collections.reverse(leftReversed);
      java.util.Collections.reverse(rightReversed);
      assertTrue(checkAllPairs(leftReversed, rightReversed) > 0);
      for (String group : List.of("utf8", "lbin", "utf8view", "bool", "int32", "double", "list", "struct")) {
        int c = names.indexOf(group);
        assertTrue(pairsDifferingOnlyIn(left, right, c) > 0, "no pair differs in " + group + " alone");
      }
    } finally {
      left.forEach(FieldVector::close);
      right.forEach(FieldVector::close);
    }
  }

  /** Pairs equal (nullsEqual and nansEqual on) in every column but {@code c}, and unequal in {@code c}. */
  private static int pairsDifferingOnlyIn(List<FieldVector> left, List<FieldVector> right, int c) {
    int found = 0;
    for (int i = 0; i < left.get(0).getValueCount(); i++) {
      for (int j = 0; j < right.get(0).getValueCount(); j++) {
        boolean onlyC = !ReferenceRowEquality.equal(left.get(c), i, right.get(c), j, true, true);
        for (int o = 0; o < left.size() && onlyC; o++) {
          onlyC = o == c || ReferenceRowEquality.equal(left.get(o), i, right.get(o), j, true, true);
        }
        found += onlyC ? 1 : 0;
      }
    }
    return found;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("types")
  void slicesCompareByTheirOwnRows(Field field) {
    Random rnd = new Random(11);
    try (FieldVector whole = RandomVectors.pools(rnd, 0.2).create(field, 90, allocator);
        FieldVector other = RandomVectors.pools(rnd, 0.2).create(field, 30, allocator)) {
      TransferPair tp = whole.getTransferPair(allocator);
      tp.splitAndTransfer(13, 50);
      try (FieldVector slice = (FieldVector) tp.getTo()) {
        checkAllPairs(List.of(slice), List.of(other));
        checkAllPairs(List.of(other), List.of(slice));
      }
    }
  }

  /** Checks every pair under all four flag combinations; returns how many pairs were equal. */
  static int checkAllPairs(List<? extends FieldVector> left, List<? extends FieldVector> right) {
    int n = left.size();
    int lRows = n == 0 ? 0 : left.get(0).getValueCount();
    int rRows = n == 0 ? 0 : right.get(0).getValueCount();
    int equalCount = 0;
    for (int flags = 0; flags < 4; flags++) {
      boolean[] nullsEqual = new boolean[n];
      boolean[] nansEqual = new boolean[n];
      java.util.Arrays.fill(nullsEqual, (flags & 1) != 0);
      java.util.Arrays.fill(nansEqual, (flags & 2) != 0);
      int pairs = lRows * rRows;
      int[] li = new int[pairs];
      int[] ri = new int[pairs];
      boolean[] expected = new boolean[pairs];
      try (MultiColumnComparator cmp = MultiColumnComparator.build(left, right, nullsEqual, nansEqual)) {
        int k = 0;
        for (int i = 0; i < lRows; i++) {
          for (int j = 0; j < rRows; j++) {
            expected[k] = ReferenceRowEquality.rowsEqual(left, i, right, j, nullsEqual, nansEqual);
            final int fi = i;
            final int fj = j;
            assertEquals(expected[k], cmp.equal(i, j), () -> describe(left, fi, right, fj, nullsEqual, nansEqual));
            li[k] = i;
            ri[k] = j;
            equalCount += expected[k] ? 1 : 0;
            k++;
          }
        }
        boolean[] out = new boolean[pairs + 3];
        java.util.Arrays.fill(out, pairs, pairs + 3, true);
        cmp.equalMany(li, ri, pairs, out);
        for (k = 0; k < pairs; k++) {
          final int fk = k;
          assertEquals(expected[k], out[k],
              () -> "equalMany " + describe(left, li[fk], right, ri[fk], nullsEqual, nansEqual));
        }
      }
    }
    return equalCount;
  }

  private static String describe(List<? extends FieldVector> left, int i, List<? extends FieldVector> right, int j,
      boolean[] nullsEqual, boolean[] nansEqual) {
    StringBuilder sb = new StringBuilder("rows " + i + " vs " + j + " nullsEqual=" + nullsEqual[0] + " nansEqual="
        + nansEqual[0] + ":");
    for (int c = 0; c < left.size(); c++) {
      sb.append(" [").append(left.get(c).getField().getType()).append(' ')
          .append(RandomVectors.show(left.get(c), i)).append(" vs ").append(RandomVectors.show(right.get(c), j))
          .append(']');
    }
    return sb.toString();
  }
}
