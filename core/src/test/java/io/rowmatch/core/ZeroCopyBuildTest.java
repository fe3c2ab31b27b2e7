package io.rowmatch.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;

import io.rowmatch.core.testing.RandomVectors;
import io.rowmatch.core.testing.SupportedTypes;

/**
 * A build costs O(columns): the heap bytes it allocates and the Arrow memory it takes do not grow with
 * the row count, because buffers are retained, not copied.
 */
class ZeroCopyBuildTest {
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  @Test
  void buildAllocatesTheSameFor1kAnd1mRows() {
    List<Field> keys = List.of(SupportedTypes.leaf("a", new ArrowType.Int(64, true)),
        SupportedTypes.leaf("b", new ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)),
        SupportedTypes.leaf("c", new ArrowType.Utf8()), SupportedTypes.leaf("d", new ArrowType.Utf8View()),
        SupportedTypes.named("liststruct"));
    try (BufferAllocator allocator = new RootAllocator()) {
      long small = buildCost(allocator, keys, 1_000);
      long large = buildCost(allocator, keys, 1_000_000);
      assertTrue(small > 0, "the measurement saw no allocation at all");
      // Identical object graphs: allow a few bytes of JIT/TLAB noise, far below anything per row.
      assertTrue(Math.abs(large - small) <= 64, "build allocated " + small + " B for 1K rows and " + large
          + " B for 1M rows");
    }
  }

  private static long buildCost(BufferAllocator allocator, List<Field> keys, int rows) {
    Random rnd = new Random(rows);
    List<FieldVector> left = new ArrayList<>();
    List<FieldVector> right = new ArrayList<>();
    try {
      for (Field k : keys) {
        left.add(RandomVectors.pools(rnd, 0.1).create(k, rows, allocator));
        right.add(RandomVectors.pools(rnd, 0.1).create(k, rows / 2, allocator));
      }
      boolean[] flags = new boolean[keys.size()];
      long arrowBefore = allocator.getAllocatedMemory();
      long best = Long.MAX_VALUE;
      for (int round = 0; round < 200; round++) { // warm up, then take the steady-state minimum
        long before = THREADS.getCurrentThreadAllocatedBytes();
        MultiColumnComparator c = MultiColumnComparator.build(left, right, flags, flags);
        long after = THREADS.getCurrentThreadAllocatedBytes();
        assertEquals(arrowBefore, allocator.getAllocatedMemory(), "build must not allocate Arrow memory");
        c.close();
        best = Math.min(best, after - before);
      }
      return best;
    } finally {
      left.forEach(FieldVector::close);
      right.forEach(FieldVector::close);
    }
  }
}
