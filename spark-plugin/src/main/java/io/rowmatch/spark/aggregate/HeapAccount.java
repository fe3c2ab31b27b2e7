package io.rowmatch.spark.aggregate;

import org.apache.arrow.memory.AllocationReservation;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;

import io.rowmatch.spark.memory.TaskArrowMemory;
import io.rowmatch.spark.memory.TaskMemory;

/**
 * Charges per-group state that lives on the Java heap (primitive arrays, byte arenas) to an Arrow
 * allocator's limit, without allocating Arrow memory, so that {@code spark.rowmatch.memory.limit} bounds
 * all of an operator's state and exceeding it is Arrow's OutOfMemoryException (turned into the error that
 * names the setting) rather than a Java OutOfMemoryError.
 *
 * <p>Uses the allocator's public {@link AllocationReservation}: a reservation counts against the limit
 * until it is closed. {@code add} rounds each request up to a power of two (and 1 up to 2), so a charge is
 * added as the binary digits of the new total rounded up to even: the allocator sees the exact total, or
 * one byte more when it is odd. Callers charge before they allocate; everything is released at
 * {@link #close()}.
 */
public final class HeapAccount implements AutoCloseable {
  private final BufferAllocator allocator;
  private final String owner;
  /** The task's consumer in Spark's memory manager (reservations do not reach the allocator's listener). */
  private final TaskMemory memory;
  private AllocationReservation reservation;
  /** Bytes charged; the reservation holds this rounded up to even. */
  private long total;

  public HeapAccount(BufferAllocator allocator, String owner) {
    this.allocator = allocator;
    this.owner = owner;
    this.memory = TaskArrowMemory.memoryOf(allocator);
  }

  /** Counts bytes against the allocator's limit; throws OutOfMemoryException (nothing charged) past it. */
  public void charge(long bytes) {
    if (bytes <= 0) {
      return;
    }
    if (reservation == null) {
      reservation = allocator.newReservation();
    }
    long held = reservation.getSizeLong();
    long rest = even(total + bytes) - held;
    while (rest > 0) { // after a refused charge the reservation may already hold more than needed
      long digit = Long.highestOneBit(rest);
      if (!reservation.add(digit)) {
        // The digits already added stay reserved until close(); the caller does not allocate.
        throw new OutOfMemoryException("Java heap state of " + owner + " needs " + bytes + " more bytes with "
            + total + " held; allocator '" + allocator.getName() + "' has a limit of " + allocator.getLimit()
            + " bytes and " + allocator.getAllocatedMemory() + " allocated");
      }
      rest -= digit;
    }
    total += bytes;
    if (memory != null) {
      memory.reserve(bytes);
    }
  }

  /** Arrow rounds a 1-byte reservation up to 2, so the reservation holds the total rounded up to even. */
  private static long even(long n) {
    return (n + 1) & ~1L;
  }

  /** Gives back bytes the caller no longer holds (a reservation only shrinks by being replaced). */
  public void release(long bytes) {
    if (bytes <= 0 || reservation == null) {
      return;
    }
    long keep = Math.max(0, total - bytes);
    if (memory != null) {
      memory.unreserve(total - keep);
    }
    reservation.close();
    reservation = null;
    total = 0;
    if (keep > 0) {
      recharge(keep); // cannot fail: less than was held a moment ago
    }
  }

  /** Re-reserves bytes already counted by the task's memory consumer. */
  private void recharge(long bytes) {
    reservation = allocator.newReservation();
    long rest = even(bytes);
    while (rest > 0) {
      long digit = Long.highestOneBit(rest);
      reservation.add(digit);
      rest -= digit;
    }
    total = bytes;
  }

  /** Bytes currently charged. */
  public long charged() {
    return total;
  }

  @Override
  public void close() {
    if (memory != null && total > 0) {
      memory.unreserve(total);
    }
    if (reservation != null) {
      reservation.close();
      reservation = null;
    }
    total = 0;
  }
}
