package io.rowmatch.spark.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.table.JoinProbe;
import io.rowmatch.core.table.JoinTable;
import io.rowmatch.spark.arrow.DeferredGatherVector;

/**
 * A key that is an earlier join's build column passed on deferred is looked up by build row exactly as its values
 * would be: random build rows with nulls in the source, negative rows (an outer join's missing rows, null keys),
 * unique and repeated build keys, null-safe and not; a batch smaller than the source waits (general path); a build row
 * outside the source is an error naming the column.
 */
class DictionaryProbeTest {

  private static IntVector ints(BufferAllocator a, String name, Integer... values) {
    IntVector v = new IntVector(name, a);
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      if (values[i] != null) {
        v.set(i, values[i]);
      }
    }
    v.setValueCount(values.length);
    return v;
  }

  @Test
  void deferredBuildColumnLookedUpByBuildRowAsByValue() {
    Random rnd = new Random(7);
    for (boolean nullsEqual : new boolean[] {false, true}) {
      for (boolean repeated : new boolean[] {false, true}) {
        try (BufferAllocator a = new RootAllocator()) {
          // The earlier join's build column: 40 rows, values 0..14 with nulls.
          Integer[] src = new Integer[40];
          for (int i = 0; i < src.length; i++) {
            src[i] = rnd.nextInt(6) == 0 ? null : rnd.nextInt(15);
          }
          // This join's build keys: 0..9 (once, or twice), and a null.
          Integer[] keys = new Integer[repeated ? 21 : 11];
          for (int i = 0; i < keys.length - 1; i++) {
            keys[i] = i % 10;
          }
          try (IntVector source = ints(a, "grp", src); IntVector build = ints(a, "k", keys);
              JoinTable table = new JoinTable(a, List.of(build.getField()), new boolean[] {nullsEqual},
                  new boolean[] {false}, "t")) {
            table.addBatch(List.of(build), keys.length);
            table.finish();
            int n = 200;
            int[] rows = new int[n];
            for (int i = 0; i < n; i++) {
              rows[i] = rnd.nextInt(8) == 0 ? -1 : rnd.nextInt(source.getValueCount());
            }
            DictionaryProbe byId = new DictionaryProbe(DataTypes.IntegerType, "UTC");
            JoinProbe idProbe = table.newProbe();
            JoinProbe valueProbe = table.newProbe();
            try (DeferredGatherVector key = new DeferredGatherVector(source, rows, n, source.getField(), a)) {
              assertTrue(byId.lookup(key, n, idProbe, a), "a batch of more rows than the source's");
              ValueVector values = key.getValueVector();
              valueProbe.lookup(List.of(values), n);
              for (int i = 0; i < n; i++) {
                assertEquals(valueProbe.matchCount(i), idProbe.matchCount(i),
                    "row " + i + " (build row " + rows[i] + ") nullsEqual=" + nullsEqual);
                assertEquals(valueProbe.hasMatch(i), idProbe.hasMatch(i));
              }
              int[] pv = new int[n * 2];
              int[] bv = new int[n * 2];
              int[] pi = new int[n * 2];
              int[] bi = new int[n * 2];
              int m = valueProbe.nextPairs(pv, bv);
              assertEquals(m, idProbe.nextPairs(pi, bi));
              for (int k = 0; k < m; k++) {
                assertEquals(pv[k], pi[k]);
                assertEquals(bv[k], bi[k]);
              }
            }
          }
        }
      }
    }
  }

  @Test
  void waitsUntilTheRowsOutnumberTheValuesAndNamesABadBuildRow() {
    try (BufferAllocator a = new RootAllocator(); IntVector source = ints(a, "grp", 1, 2, 3, 4, 5, 6);
        IntVector build = ints(a, "k", 2, 4);
        JoinTable table = new JoinTable(a, List.of(build.getField()), new boolean[] {false}, new boolean[] {false},
            "t")) {
      table.addBatch(List.of(build), 2);
      table.finish();
      DictionaryProbe byId = new DictionaryProbe(DataTypes.IntegerType, "UTC");
      JoinProbe probe = table.newProbe();
      try (DeferredGatherVector few = new DeferredGatherVector(source, new int[] {0, 1, 2}, 3, source.getField(), a)) {
        assertFalse(byId.lookup(few, 3, probe, a), "3 rows under 6 values: the general path");
        assertTrue(byId.lookup(few, 3, probe, a), "6 rows seen: looked up");
        assertTrue(probe.hasMatch(1) && !probe.hasMatch(0) && !probe.hasMatch(2));
      }
      try (DeferredGatherVector bad = new DeferredGatherVector(source, new int[] {0, 1, 2}, 3, source.getField(), a)) {
        int[] rows = bad.rows();
        rows[2] = 6; // outside the source, written after the vector checked its rows
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> byId.lookup(bad, 3, probe, a));
        assertTrue(e.getMessage().contains("build row 6 of row 2") && e.getMessage().contains("'grp'"),
            e.getMessage());
      }
    }
  }
}
