package io.rowmatch.spark.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.junit.jupiter.api.Test;

/**
 * The executor-wide ceiling: Rowmatch's allocators together stay under 80% of Netty's direct memory limit, so
 * asking for more is Arrow's catchable OutOfMemoryException (refused before any memory is touched), never
 * Netty's OutOfDirectMemoryError, a JVM Error that would take Spark's executor down.
 */
class TaskArrowMemoryTest {
  @Test
  void rowmatchNeverAsksNettyForMoreThanItsShareOfDirectMemory() {
    long direct = io.netty.util.internal.PlatformDependent.maxDirectMemory();
    BufferAllocator all = TaskArrowMemory.executorWide();
    assertEquals(direct / 100 * TaskArrowMemory.DIRECT_SHARE_PERCENT, all.getLimit());
    try (BufferAllocator task = all.newChildAllocator("task", 0, Long.MAX_VALUE)) {
      OutOfMemoryException e = assertThrows(OutOfMemoryException.class, () -> task.buffer(all.getLimit() + 1));
      assertTrue(e.getMessage().contains("memory limit"), e.getMessage());
      assertEquals(0, task.getAllocatedMemory());
    }
  }
}
