package io.rowmatch.spark.aggregate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/** Heap state is charged exactly against the allocator's limit and released on close. */
class HeapAccountTest {

  @Test
  void chargesAreExactAndReleasedOnClose() {
    try (RootAllocator root = new RootAllocator();
        BufferAllocator limited = root.newChildAllocator("task", 0, 1000)) {
      HeapAccount heap = new HeapAccount(limited, "test");
      heap.charge(300);
      heap.charge(212); // not a power of two: still charged exactly
      assertEquals(512, heap.charged());
      assertEquals(512, limited.getAllocatedMemory());
      heap.charge(1); // an odd total is held as the next even number (Arrow reserves 1 byte as 2)
      assertEquals(513, heap.charged());
      assertEquals(514, limited.getAllocatedMemory());
      OutOfMemoryException e = assertThrows(OutOfMemoryException.class, () -> heap.charge(600));
      assertTrue(e.getMessage().contains("test") && e.getMessage().contains("1000"), e.getMessage());
      assertEquals(514, limited.getAllocatedMemory(), "a refused charge holds nothing more");
      heap.release(101);
      assertEquals(412, limited.getAllocatedMemory());
      heap.charge(588);
      assertEquals(1000, limited.getAllocatedMemory());
      assertThrows(OutOfMemoryException.class, () -> heap.charge(1));
      heap.close();
      assertEquals(0, limited.getAllocatedMemory());
      assertEquals(0, root.getAllocatedMemory());
    }
  }

  @Test
  void kernelStateBeyondTheLimitIsArrowsOutOfMemoryAndReleasesEverything() {
    try (RootAllocator root = new RootAllocator();
        BufferAllocator limited = root.newChildAllocator("task", 0, 64 * 1024)) {
      FunctionSpec sum = KernelHarness.spec(SumFunction.SUM_LONG, false, false, DataTypes.LongType,
          DataTypes.LongType);
      FunctionSpec min = KernelHarness.spec(MinMaxFunction.MIN_BYTES, false, false, DataTypes.StringType,
          DataTypes.StringType);
      for (FunctionSpec spec : List.of(sum, min)) {
        AggregateKernel kernel = spec.newKernel(limited, "UTC");
        int rows = 1000;
        int[] ids = new int[rows];
        List<String> values = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
          values.add("v" + i);
        }
        try (VarCharVector strings = TestVectors.strings(root, values);
            org.apache.arrow.vector.BigIntVector longs = TestVectors.longs(root,
                java.util.Collections.nCopies(rows, 5L))) {
          ValueVector input = spec == sum ? longs : strings;
          assertThrows(OutOfMemoryException.class, () -> {
            int g = 0;
            while (true) { // new groups every batch until the per-group state passes 64 KiB
              for (int i = 0; i < rows; i++) {
                ids[i] = g + i;
              }
              g += rows;
              kernel.update(new ValueVector[] {input}, rows, ids, g);
            }
          });
          assertTrue(limited.getAllocatedMemory() <= 64 * 1024);
        } finally {
          kernel.close();
        }
        assertEquals(0, limited.getAllocatedMemory(), "close() releases every charge");
      }
    }
  }

  @Test
  void chargedStateTracksGrowth() {
    try (RootAllocator root = new RootAllocator()) {
      FunctionSpec count = KernelHarness.spec(CountFunction.COUNT, false, false, DataTypes.LongType,
          DataTypes.LongType);
      FunctionSpec c2 = new FunctionSpec(CountFunction.COUNT, new int[0], false, false, false,
          count.bufferFields, count.resultField, "count(*)");
      try (AggregateKernel k = c2.newKernel(root, "UTC")) {
        k.update(new ValueVector[0], 3, new int[] {0, 1, 2}, 3);
        assertEquals(16 * Long.BYTES, root.getAllocatedMemory(), "16 counts: the first growth");
        int[] ids = new int[100];
        for (int i = 0; i < ids.length; i++) {
          ids[i] = i;
        }
        k.update(new ValueVector[0], 100, ids, 100);
        assertEquals(100 * Long.BYTES, root.getAllocatedMemory());
        try (FieldVector r = k.result(100)) {
          assertEquals(100, r.getValueCount());
        }
      }
      assertEquals(0, root.getAllocatedMemory());
    }
  }
}
