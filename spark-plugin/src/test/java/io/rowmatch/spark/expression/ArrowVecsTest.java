package io.rowmatch.spark.expression;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;

import org.apache.arrow.vector.IntVector;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.AllocatorTest;

/**
 * Reading selected rows of an Arrow column (a join condition over its matched pairs): values and validity against
 * the vector's own accessors, row by row, for selections that do and do not touch the column's nulls.
 */
class ArrowVecsTest extends AllocatorTest {
  private IntVector column(int rows, double nullShare, Random random) {
    IntVector v = new IntVector("c", allocator);
    v.allocateNew(Math.max(rows, 1));
    for (int i = 0; i < rows; i++) {
      if (random.nextDouble() < nullShare) {
        v.setNull(i);
      } else {
        v.set(i, random.nextInt());
      }
    }
    v.setValueCount(rows);
    return v;
  }

  private static void assertSelected(IntVector v, int[] sel, int n) {
    Vec read = ArrowVecs.readSelected(v, DataTypes.IntegerType, sel, n);
    long[] validity = ArrowVecs.readValidity(v, sel, n);
    boolean anyNull = false;
    for (int i = 0; i < n; i++) {
      boolean isNull = v.isNull(sel[i]);
      anyNull |= isNull;
      assertEquals(isNull, read.valid != null && (read.valid[i >>> 6] & (1L << i)) == 0, "row " + i);
      assertEquals(isNull, validity != null && (validity[i >>> 6] & (1L << i)) == 0, "row " + i);
      if (!isNull) {
        assertEquals(v.get(sel[i]), read.longs[i], "row " + i);
      }
    }
    if (anyNull) {
      assertNotNull(read.valid);
      assertNotNull(validity);
    }
    if (v.getValueCount() >>> 6 > n) {
      // a column far larger than the selection: no validity words exactly when no selected row is null
      assertEquals(anyNull, read.valid != null);
      assertEquals(anyNull, validity != null);
    }
  }

  @Test
  void selectedRowsKeepTheirValuesAndNulls() {
    Random random = new Random(17);
    for (int rows : new int[] {1, 63, 64, 65, 700, 20_000}) {
      for (double nullShare : new double[] {0, 0.01, 0.5, 1}) {
        try (IntVector v = column(rows, nullShare, random)) {
          for (int n : new int[] {0, 1, 63, 64, 65, 1000}) {
            int[] sel = new int[n];
            for (int i = 0; i < n; i++) {
              sel[i] = random.nextInt(rows); // any order, repeats allowed
            }
            assertSelected(v, sel, n);
          }
        }
      }
    }
  }

  @Test
  void aSelectionAvoidingTheColumnsNullsHasNoValidity() {
    try (IntVector v = column(10_000, 0, new Random(3))) {
      v.setNull(64);
      int[] around = {0, 63, 65, 9_999, 1, 2};
      assertNull(ArrowVecs.readSelected(v, DataTypes.IntegerType, around, around.length).valid);
      assertNull(ArrowVecs.readValidity(v, around, around.length));
      int[] onIt = {0, 64, 65};
      assertNotNull(ArrowVecs.readSelected(v, DataTypes.IntegerType, onIt, onIt.length).valid);
      assertSelected(v, onIt, onIt.length);
    }
  }

  @Test
  void aRowOutsideTheColumnIsRefused() {
    try (IntVector v = column(10, 0.5, new Random(5))) {
      assertEquals("row 10 outside [0, 10) of column 'selected'", assertThrows(IndexOutOfBoundsException.class,
          () -> ArrowVecs.readSelected(v, DataTypes.IntegerType, new int[] {0, 10}, 2)).getMessage());
      assertEquals("row -1 outside [0, 10) of column 'selected'", assertThrows(IndexOutOfBoundsException.class,
          () -> ArrowVecs.readValidity(v, new int[] {-1}, 1)).getMessage());
    }
  }
}
