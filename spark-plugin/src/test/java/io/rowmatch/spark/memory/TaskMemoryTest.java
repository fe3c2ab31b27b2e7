package io.rowmatch.spark.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.spark.SparkConf;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;
import org.apache.spark.memory.UnifiedMemoryManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.rowmatch.spark.aggregate.HeapAccount;

/**
 * TaskMemory against Spark's real memory manager (a 16 MB execution pool, one task): what Rowmatch allocates
 * is what the TaskMemoryManager reports for the task; a Spark consumer's request spills a Rowmatch operator
 * waiting between batches, and a Rowmatch request spills a Spark consumer; a refused grant is an overdraft
 * the operators see as pressure, never an exception.
 */
class TaskMemoryTest {
  private static final long MB = 1L << 20;

  private RootAllocator root;
  private TaskMemoryManager tmm;

  @BeforeEach
  void setUp() {
    root = new RootAllocator();
    UnifiedMemoryManager mm = new UnifiedMemoryManager(new SparkConf(false), 16 * MB, 8 * MB, 1);
    tmm = new TaskMemoryManager(mm, 0);
  }

  @AfterEach
  void tearDown() {
    assertEquals(0, tmm.cleanUpAllAllocatedMemory(), "memory left granted in the task");
    root.close();
  }

  private BufferAllocator allocatorOf(TaskMemory memory) {
    return root.newChildAllocator("task", memory, 0, Long.MAX_VALUE);
  }

  @Test
  void theTaskMemoryManagerSeesWhatRowmatchHoldsAndGetsItBack() {
    TaskMemory memory = new TaskMemory(tmm, Long.MAX_VALUE);
    try (BufferAllocator a = allocatorOf(memory); BufferAllocator child = a.newChildAllocator("op", 0, Long.MAX_VALUE)) {
      assertEquals(0, tmm.getMemoryConsumptionForThisTask());
      ArrowBuf b = child.buffer(4 * MB);
      assertTrue(tmm.getMemoryConsumptionForThisTask() >= 4 * MB, "" + tmm.getMemoryConsumptionForThisTask());
      assertEquals(4 * MB, memory.inUse());
      HeapAccount heap = new HeapAccount(child, "heap state");
      heap.charge(2 * MB); // Java heap state counts as well
      assertEquals(6 * MB, memory.inUse());
      assertTrue(tmm.getMemoryConsumptionForThisTask() >= 6 * MB);
      heap.close();
      b.close();
      assertEquals(0, memory.inUse());
      assertTrue(tmm.getMemoryConsumptionForThisTask() <= 2 * TaskMemory.CHUNK, "unused grant kept");
      assertFalse(memory.underPressure());
      assertEquals(6 * MB, memory.peak());
    }
    memory.close();
    assertEquals(0, tmm.getMemoryConsumptionForThisTask());
  }

  /** Stands for an operator whose state can go to disk; spills (frees its buffer) when at a safe point. */
  private static final class HeldBuffer implements TaskMemory.Spillable {
    ArrowBuf buf;
    boolean safe = true;
    int spills;

    @Override
    public boolean atSafePoint() {
      return safe && buf != null;
    }

    @Override
    public long spillNow() {
      long n = buf.capacity();
      buf.close();
      buf = null;
      spills++;
      return n;
    }
  }

  /** Stands for a Spark sorter: holds what it acquired, frees it all when asked to spill if spillable. */
  private static final class Sorter extends MemoryConsumer {
    final boolean spillable;
    int spills;

    Sorter(TaskMemoryManager tmm, boolean spillable) {
      super(tmm, MemoryMode.ON_HEAP);
      this.spillable = spillable;
    }

    @Override
    public long spill(long size, MemoryConsumer trigger) {
      if (!spillable || trigger == this || getUsed() == 0) {
        return 0;
      }
      spills++;
      long n = getUsed();
      freeMemory(n);
      return n;
    }
  }

  @Test
  void aSparkConsumerSpillsARowmatchOperatorBetweenBatches() {
    TaskMemory memory = new TaskMemory(tmm, Long.MAX_VALUE);
    try (BufferAllocator a = allocatorOf(memory)) {
      HeldBuffer op = new HeldBuffer();
      memory.register(op);
      op.buf = a.buffer(8 * MB);
      Sorter sorter = new Sorter(tmm, false);
      long got = sorter.acquireMemory(12 * MB);
      assertEquals(12 * MB, got, "the sorter got its memory from Rowmatch's spill");
      assertEquals(1, op.spills);
      sorter.freeMemory(got);
      // not at a safe point: nothing spills now, the operator is told to spill at its next batch
      op.buf = a.buffer(8 * MB);
      op.safe = false;
      got = sorter.acquireMemory(12 * MB);
      assertTrue(got < 12 * MB);
      assertEquals(1, op.spills);
      assertTrue(memory.underPressure());
      memory.spilled();
      sorter.freeMemory(got);
      op.buf.close();
      memory.unregister(op);
    }
    memory.close();
  }

  @Test
  void aRowmatchRequestSpillsASparkSorter() {
    TaskMemory memory = new TaskMemory(tmm, Long.MAX_VALUE);
    Sorter sorter = new Sorter(tmm, true);
    assertEquals(12 * MB, sorter.acquireMemory(12 * MB));
    try (BufferAllocator a = allocatorOf(memory)) {
      ArrowBuf b = a.buffer(8 * MB);
      assertEquals(1, sorter.spills);
      assertFalse(memory.underPressure(), "granted in full after the sorter spilled");
      assertTrue(memory.granted() >= 8 * MB);
      b.close();
    }
    memory.close();
  }

  @Test
  void aRefusedGrantIsAnOverdraftTheOperatorsSeeNeverAnError() {
    TaskMemory memory = new TaskMemory(tmm, Long.MAX_VALUE);
    Sorter sorter = new Sorter(tmm, false);
    assertEquals(12 * MB, sorter.acquireMemory(12 * MB));
    try (BufferAllocator a = allocatorOf(memory)) {
      ArrowBuf b = a.buffer(8 * MB); // Spark has 4 MB left: allocated all the same
      assertTrue(memory.underPressure());
      assertFalse(memory.tryHeadroom(MB));
      assertTrue(memory.refusals() > 0);
      b.close();
      assertFalse(memory.underPressure());
    }
    sorter.freeMemory(12 * MB);
    memory.close();
  }

  @Test
  void theTestCapLimitsTheGrant() {
    TaskMemory memory = new TaskMemory(tmm, 2 * MB);
    try (BufferAllocator a = allocatorOf(memory)) {
      ArrowBuf b = a.buffer(MB);
      assertFalse(memory.underPressure());
      ArrowBuf c = a.buffer(2 * MB);
      assertTrue(memory.underPressure());
      assertTrue(memory.granted() <= 2 * MB);
      c.close();
      b.close();
    }
    memory.close();
  }
}
