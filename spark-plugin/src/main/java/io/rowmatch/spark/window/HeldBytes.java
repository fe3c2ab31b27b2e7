package io.rowmatch.spark.window;

/**
 * The bytes of rows a window operator holds on the Java heap, bounded by its buffer size and reserved from the task's
 * memory (Spark's execution memory, through {@link Memory}) in steps of {@link #STEP}, so that the rows held count
 * against the memory Spark's own operators share. When the buffer is full or Spark refuses the next step, {@link
 * #fits} says so and the operator lets its rows go (emits or hands them to Spark's sorter), then calls {@link #clear}.
 */
public final class HeldBytes {
  /** Where the bytes are reserved. */
  public interface Memory {
    /** Nothing reserved: only the buffer size bounds the rows held (tests, and tasks without Rowmatch memory). */
    Memory NONE = new Memory() {
      @Override
      public boolean tryReserve(long bytes) {
        return true;
      }

      @Override
      public void release(long bytes) {}
    };

    /** Reserves {@code bytes} more; false, with nothing reserved, when refused. */
    boolean tryReserve(long bytes);

    void release(long bytes);
  }

  /** Reservation granularity: one request to Spark per MiB of rows. */
  static final long STEP = 1L << 20;

  private final long cap;
  private final Memory memory;
  private final long step;
  private long held;
  private long reserved;
  private long refusals;

  public HeldBytes(long cap, Memory memory) {
    this(cap, memory, STEP);
  }

  /** With another reservation step (tests: a few rows per step). */
  HeldBytes(long cap, Memory memory, long step) {
    this.cap = cap;
    this.memory = memory;
    this.step = step;
  }

  /** Counts {@code bytes} more held. */
  public void add(long bytes) {
    held += bytes;
  }

  /** Counts {@code bytes} no longer held (a row dropped); their reservation stays for the rows to come. */
  public void remove(long bytes) {
    held -= bytes;
  }

  /**
   * Whether the bytes held are within the buffer size and reserved, asking the memory for the steps missing; false
   * when they pass the buffer size or the memory refused: the operator should let its rows go.
   */
  public boolean fits() {
    if (held > cap) {
      return false;
    }
    while (held > reserved) {
      if (!memory.tryReserve(step)) {
        refusals++;
        return false;
      }
      reserved += step;
    }
    return true;
  }

  /** The rows were let go: their reservation goes back. Safe to call again (e.g. when the task ends). */
  public void clear() {
    held = 0;
    if (reserved > 0) {
      long r = reserved;
      reserved = 0;
      memory.release(r);
    }
  }

  /** Times the memory refused a step. */
  public long refusals() {
    return refusals;
  }

  /** Bytes reserved now (at least those held, up to a step more). */
  public long reserved() {
    return reserved;
  }
}
