package io.rowmatch.spark.aggregate;

import java.util.Arrays;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

/**
 * min/max over string (binary collation) and binary input: values ordered as unsigned bytes,
 * lexicographically, a proper prefix first. That is Spark's UTF8String.binaryCompare and
 * ByteArray.compareBinary, and for valid UTF-8 it is also code point order.
 *
 * <p>Each batch's value bytes are copied to the heap once (one bulk copy), and every comparison is an
 * {@link Arrays#compareUnsigned} between heap ranges. Within a batch a group's candidate stays a batch row;
 * only at the end of the batch are the winners appended to the byte arena that holds every group's current
 * extreme. Superseded values become garbage in the arena, which is compacted when garbage dominates.
 */
final class MinMaxBytesKernel extends SingleValueKernel {
  /** Arenas smaller than this are not worth compacting. */
  private static final int MIN_COMPACT = 1 << 16;

  private final boolean max;
  private byte[] arena = new byte[0];
  private int arenaUsed;
  private long liveBytes;
  private int[] start = new int[0];
  private int[] length = new int[0];

  private byte[] batchBytes = new byte[0];
  private int[] batchBest = new int[0];
  private int[] bestIn = new int[0];
  private int[] touched = new int[0];
  private int batch;

  MinMaxBytesKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone, boolean max) {
    super(spec, allocator, timeZone);
    this.max = max;
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    has = GrowableState.ensure(heap, has, groupCount);
    start = GrowableState.ensure(heap, start, groupCount, 0);
    length = GrowableState.ensure(heap, length, groupCount, 0);
    batchBest = GrowableState.ensure(heap, batchBest, groupCount, 0);
    bestIn = GrowableState.ensure(heap, bestIn, groupCount, 0);
    touched = GrowableState.ensure(heap, touched, Math.min(rows, groupCount), 0);
    if (rows == 0) {
      return;
    }
    ValueVector column = columns[spec.inputOrdinals[0]];
    if (!(column instanceof BaseVariableWidthVector input)) {
      throw new IllegalStateException(spec.description + " expects a string or binary column, got "
          + column.getClass().getSimpleName());
    }
    ArrowBuf offsets = input.getOffsetBuffer();
    if (offsets.capacity() < (rows + 1L) * 4) {
      throw new IllegalArgumentException(spec.description + ": offset buffer too short for " + rows + " rows");
    }
    int base = offsets.getInt(0);
    int end = offsets.getInt((long) rows * 4);
    if (base < 0 || end < base || end > input.getDataBuffer().capacity()) {
      throw new IllegalArgumentException(spec.description + ": offsets [" + base + ", " + end
          + ") outside the data buffer of " + input.getDataBuffer().capacity() + " bytes");
    }
    int bytes = end - base;
    batchBytes = GrowableState.ensure(heap, batchBytes, bytes);
    input.getDataBuffer().getBytes(base, batchBytes, 0, bytes);
    boolean anyNull = input.getNullCount() > 0;
    batch++; // bestIn starts at 0, so batch numbers start at 1
    int touchedCount = 0;
    for (int i = 0; i < rows; i++) {
      if (anyNull && input.isNull(i)) {
        continue;
      }
      int s = offsets.getInt((long) i * 4) - base;
      int e = offsets.getInt((long) (i + 1) * 4) - base;
      if (s < 0 || e < s || e > bytes) {
        throw new IllegalArgumentException(spec.description + ": row " + i + " has offsets [" + (s + base) + ", "
            + (e + base) + ") outside [" + base + ", " + end + ")");
      }
      int g = groupIds[i];
      boolean take;
      if (bestIn[g] == batch) {
        int r = batchBest[g];
        int rs = offsets.getInt((long) r * 4) - base;
        int re = offsets.getInt((long) (r + 1) * 4) - base;
        int c = Arrays.compareUnsigned(batchBytes, s, e, batchBytes, rs, re);
        take = max ? c > 0 : c < 0;
      } else if (has[g]) {
        int c = Arrays.compareUnsigned(batchBytes, s, e, arena, start[g], start[g] + length[g]);
        take = max ? c > 0 : c < 0;
      } else {
        take = true;
      }
      if (take) {
        batchBest[g] = i;
        if (bestIn[g] != batch) {
          bestIn[g] = batch;
          touched[touchedCount++] = g;
        }
      }
    }
    for (int t = 0; t < touchedCount; t++) {
      int g = touched[t];
      int r = batchBest[g];
      int s = offsets.getInt((long) r * 4) - base;
      int e = offsets.getInt((long) (r + 1) * 4) - base;
      store(g, batchBytes, s, e - s, groupCount);
    }
  }

  /** Makes bytes[from, from + n) group g's value, appending it to the arena. */
  private void store(int g, byte[] bytes, int from, int n, int groupCount) {
    if (has[g]) {
      liveBytes -= length[g];
      has[g] = false; // superseded: a compaction below need not keep it
    }
    if ((long) arenaUsed + n > Integer.MAX_VALUE - 8) {
      compact(groupCount, n);
    }
    if ((long) arenaUsed + n > Integer.MAX_VALUE - 8) {
      throw new OutOfMemoryException(spec.description + ": the per-group values exceed 2 GiB in one task");
    }
    arena = GrowableState.ensure(heap, arena, arenaUsed + n);
    System.arraycopy(bytes, from, arena, arenaUsed, n);
    start[g] = arenaUsed;
    length[g] = n;
    has[g] = true;
    arenaUsed += n;
    liveBytes += n;
    if (arenaUsed >= MIN_COMPACT && arenaUsed > 2 * liveBytes) {
      compact(groupCount, 0);
    }
  }

  /** Copies the live values into a fresh arena with room for `extra` more bytes. */
  private void compact(int groupCount, int extra) {
    int capacity = GrowableState.newCapacity(0, (int) Math.min(Integer.MAX_VALUE - 8, liveBytes + extra));
    heap.charge(capacity);
    byte[] fresh = new byte[capacity];
    int used = 0;
    for (int g = 0; g < groupCount; g++) {
      if (has[g]) {
        System.arraycopy(arena, start[g], fresh, used, length[g]);
        start[g] = used;
        used += length[g];
      }
    }
    heap.release(arena.length);
    arena = fresh;
    arenaUsed = used;
  }

  @Override
  void writeValues(FieldVector v, int groupCount) {
    start = GrowableState.ensure(heap, start, groupCount, 0);
    length = GrowableState.ensure(heap, length, groupCount, 0);
    BaseVariableWidthVector out = (BaseVariableWidthVector) v;
    out.allocateNew(Math.max(1, liveBytes), groupCount);
    for (int g = 0; g < groupCount; g++) {
      if (has[g]) {
        out.setSafe(g, arena, start[g], length[g]);
      }
    }
    out.setValueCount(groupCount); // positions never set are null
  }
}
