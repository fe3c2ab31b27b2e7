package io.rowmatch.spark.memory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.arrow.memory.AllocationListener;
import org.apache.spark.memory.MemoryConsumer;
import org.apache.spark.memory.MemoryMode;
import org.apache.spark.memory.TaskMemoryManager;

/**
 * A task's Rowmatch memory as Spark's memory manager sees it: one {@link MemoryConsumer} per task, the
 * allocation listener of the task's Arrow allocator (and charged directly for state kept on the Java heap,
 * see HeapAccount). Every byte Rowmatch holds is first reserved from the task's TaskMemoryManager, in chunks of
 * {@link #CHUNK} bytes so that one small buffer does not cost a call into Spark, and unused grant beyond two
 * chunks is handed back as buffers are released.
 *
 * <p>Pool: the off-heap execution pool when Spark's Tungsten memory is off-heap ({@code
 * spark.memory.offHeap.enabled} with a size), the on-heap pool otherwise. Arrow memory is direct memory in
 * both cases; in the on-heap case Spark's execution pool stands for it, so the pool arbitrates Rowmatch,
 * Spark's sorters and the other tasks, and the JVM must allow that much direct memory (see the README).
 *
 * <p>A refused grant never fails an allocation here: the bytes are allocated all the same (as an overdraft,
 * bounded by {@code spark.rowmatch.memory.limit} and the executor-wide ceiling of TaskArrowMemory, which are
 * Arrow limits and fail with a catchable exception), and {@link #underPressure()} tells the operators that
 * can spill to do so at their next batch boundary. An operator that cannot be interrupted in the middle of a
 * batch thus never sees a half-applied batch. Spilling when asked: Spark calls {@link #spill} when another
 * consumer of the task needs memory; the registered operators that are between batches spill right away,
 * the others are asked to at their next boundary.
 *
 * <p>Not thread-safe beyond what Spark needs: a task's operators run on its thread; Spark calls spill on
 * the task's thread (from another consumer's request) with its TaskMemoryManager locked.
 */
public final class TaskMemory extends MemoryConsumer implements AllocationListener {
  /** Grant granularity: requests to Spark are rounded up to this. */
  static final long CHUNK = 1L << 20;

  /** An operator whose state can go to disk. */
  public interface Spillable {
    /**
     * Whether the operator is between batches, its state consistent, so {@link #spillNow} may run from
     * inside another operator's (or Spark's) memory request.
     */
    boolean atSafePoint();

    /** Writes its state to disk and releases its memory; returns the bytes it released (estimate). */
    long spillNow();
  }

  private final long testGrantCap;
  private final List<Spillable> spillables = new ArrayList<>();
  /** Bytes Rowmatch holds in this task: Arrow buffers and charged heap state. */
  private long inUse;
  /** Bytes held beyond the grant (Spark refused them). */
  private long overdraft;
  private long peak;
  /** Spark asked for memory while no operator could spill at once. */
  private boolean spillRequested;
  /** Inside a spill: no requests to Spark (Spark forbids acquiring inside spill()), no nested spills. */
  private boolean spilling;
  private long refusals;
  private boolean closed;

  /**
   * testGrantCap: test-only ceiling on the grant (Long.MAX_VALUE in production), to force spilling with
   * little data.
   */
  TaskMemory(TaskMemoryManager tmm, long testGrantCap) {
    super(tmm, tmm.pageSizeBytes(), tmm.getTungstenMemoryMode() == MemoryMode.OFF_HEAP
        ? MemoryMode.OFF_HEAP : MemoryMode.ON_HEAP);
    this.testGrantCap = testGrantCap;
  }

  // --- AllocationListener: every Arrow buffer of the task's allocator and its children ---

  @Override
  public void onPreAllocation(long size) {
    reserve(size);
  }

  @Override
  public void onRelease(long size) {
    unreserve(size);
  }

  // --- Charges for memory Arrow does not see (heap state) ---

  /** Counts bytes about to be allocated; asks Spark for grant when needed (never refuses, see class doc). */
  public void reserve(long bytes) {
    if (bytes <= 0) {
      return;
    }
    inUse += bytes;
    peak = Math.max(peak, inUse);
    long granted = getUsed();
    if (inUse <= granted || closed) {
      return;
    }
    if (!spilling) {
      grow(inUse - granted);
      granted = getUsed();
    }
    overdraft = Math.max(0, inUse - granted);
  }

  public void unreserve(long bytes) {
    if (bytes <= 0) {
      return;
    }
    inUse = Math.max(0, inUse - bytes);
    long granted = getUsed();
    overdraft = Math.max(0, inUse - granted);
    if (!closed && granted - inUse > 2 * CHUNK) {
      freeMemory(granted - inUse - CHUNK);
    }
  }

  /**
   * Reserves {@code bytes} of heap state only if Spark grants them (after spilling the other operators that can); false,
   * with nothing reserved, otherwise: for state that has somewhere else to go (see the window operators' HeldBytes).
   */
  public boolean tryReserve(long bytes) {
    if (!tryHeadroom(bytes)) {
      return false;
    }
    reserve(bytes);
    return true;
  }

  /**
   * Makes sure {@code bytes} more can be allocated within the grant (an operator's look-ahead before a
   * batch); false when Spark refused, after spilling the other operators that could.
   */
  public boolean tryHeadroom(long bytes) {
    long needed = inUse + Math.max(0, bytes) - getUsed();
    if (needed <= 0) {
      return true;
    }
    if (spilling || closed) {
      return false;
    }
    grow(needed);
    return inUse + bytes <= getUsed();
  }

  /**
   * Before a batch: whether an operator's state of {@code stateBytes} must go to disk first, because Spark
   * refused the memory the batch may need ({@link #batchNeed}), asked for memory back, or because the batch
   * and a spill of the state would not fit under the allocator's hard ceiling ({@code limited}: the task's
   * allocator). A spill copies the state into Arrow columns, then a batch of them at a time into its
   * partitions: up to twice the state.
   */
  public boolean mustSpill(org.apache.arrow.memory.BufferAllocator limited, long need, long stateBytes) {
    return underPressure() || limited.getHeadroom() < need + 2 * stateBytes || !tryHeadroom(need);
  }

  /**
   * Memory a batch of {@code batchBytes} may need in a state of {@code stateBytes} holding {@code countBefore}
   * entries (groups, rows) that may become {@code countAfter}: twice the batch (copied in, keys hashed), and
   * when the count crosses a power of two, the state once more (its arrays, vectors and table double,
   * copying).
   */
  public static long batchNeed(long batchBytes, long stateBytes, long countBefore, long countAfter) {
    long need = 2 * batchBytes;
    if (Long.highestOneBit(countAfter) > Long.highestOneBit(countBefore)) {
      need += stateBytes;
    }
    return need;
  }

  /** Acquires at least {@code needed} more bytes if Spark (and the test cap) allow, spilling safe operators. */
  private void grow(long needed) {
    long request = roundUp(needed);
    request = Math.min(request, Math.max(0, testGrantCap - getUsed()));
    long got = request <= 0 ? 0 : acquireMemory(request);
    if (got < needed) {
      // Spark refused (after spilling its own consumers): spill ours that are between batches, then retry.
      long freed = spillSafeOperators(null);
      long stillNeeded = inUse - getUsed();
      if (freed > 0 && stillNeeded > 0) {
        long retry = Math.min(roundUp(stillNeeded), Math.max(0, testGrantCap - getUsed()));
        if (retry > 0) {
          acquireMemory(retry);
        }
      }
      if (inUse > getUsed()) {
        refusals++;
      }
    }
  }

  private static long roundUp(long n) {
    return (n + CHUNK - 1) / CHUNK * CHUNK;
  }

  // --- MemoryConsumer ---

  /**
   * Spark needs memory for another consumer of this task (or for this one: then nothing, since the request
   * comes from inside an operator that cannot be interrupted; grow() spills the others itself).
   */
  @Override
  public long spill(long size, MemoryConsumer trigger) throws IOException {
    if (trigger == this || spilling || closed) {
      return 0;
    }
    long before = getUsed();
    if (spillSafeOperators(null) == 0 && !spillables.isEmpty()) {
      spillRequested = true; // nobody could spill now: they will at their next batch
    }
    long slack = getUsed() - inUse;
    if (slack > 0) {
      freeMemory(slack);
    }
    return before - getUsed();
  }

  /** Spills every registered operator at a safe point except {@code except}; returns the bytes released. */
  private long spillSafeOperators(Spillable except) {
    if (spilling) {
      return 0;
    }
    long freed = 0;
    spilling = true;
    try {
      for (Spillable s : new ArrayList<>(spillables)) {
        if (s != except && s.atSafePoint()) {
          freed += s.spillNow();
        }
      }
    } finally {
      spilling = false;
    }
    return freed;
  }

  // --- What operators ask ---

  public void register(Spillable s) {
    spillables.add(s);
  }

  public void unregister(Spillable s) {
    spillables.remove(s);
  }

  /** Whether an operator that can spill should do so now: over its grant, or asked by Spark. */
  public boolean underPressure() {
    return overdraft > 0 || spillRequested;
  }

  /** An operator spilled at its boundary: the request it answered is done. */
  public void spilled() {
    spillRequested = false;
  }

  /** Runs a spill of the caller's own state: its allocations (write buffers) do not ask Spark. */
  public <T> T whileSpilling(java.util.function.Supplier<T> spill) {
    boolean was = spilling;
    spilling = true;
    try {
      return spill.get();
    } finally {
      spilling = was;
    }
  }

  public long inUse() {
    return inUse;
  }

  public long granted() {
    return getUsed();
  }

  public long peak() {
    return peak;
  }

  /** Grants Spark refused (counted once per refused request). */
  public long refusals() {
    return refusals;
  }

  /** Gives back the whole grant (the task ends; its allocator is closed right after). */
  void close() {
    if (!closed) {
      closed = true;
      spillables.clear();
      if (getUsed() > 0) {
        freeMemory(getUsed());
      }
    }
  }

  @Override
  public String toString() {
    return "RowmatchTaskMemory(inUse=" + inUse + ", granted=" + getUsed() + ", mode=" + getMode() + ")";
  }
}
