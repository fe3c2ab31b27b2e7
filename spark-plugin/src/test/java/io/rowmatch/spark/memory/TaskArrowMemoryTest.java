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

  /** Spark's executor exits on a task exception with an OutOfMemoryError among its causes: ours carry none. */
  @Test
  void theTaskErrorCarriesNoJvmErrorAmongItsCauses() {
    OutOfMemoryError netty = new OutOfMemoryError("failed to allocate 8388608 byte(s) of direct memory");
    OutOfMemoryException arrow = new OutOfMemoryException("Failure allocating buffer.", netty);
    RuntimeException e = TaskArrowMemory.outOfMemory("RowmatchHashAggregate", 1024, arrow);
    for (Throwable c = e; c != null; c = c.getCause()) {
      assertTrue(!(c instanceof Error), "a JVM error in the chain: " + c);
    }
    assertTrue(e.getCause().getMessage().contains("Failure allocating buffer."), e.getCause().getMessage());
    assertTrue(e.getCause().getMessage().contains("8388608 byte(s) of direct memory"), e.getCause().getMessage());
    assertEquals(arrow.getStackTrace().length, e.getCause().getStackTrace().length);
    // Without a JVM error, the cause is kept as it is.
    OutOfMemoryException plain = new OutOfMemoryException("limit");
    assertEquals(plain, TaskArrowMemory.outOfMemory("RowmatchHashJoin", 1024, plain).getCause());
  }
}
