package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

import io.rowmatch.core.arrow.ArrowCopy;

/**
 * last(x [, ignoreNulls]) for any type, as Spark's Last: buffer (last, valueSet). A group takes the value
 * of the last row that "sets" it: every row when nulls count, non-null rows with ignoreNulls, and when
 * merging partial buffers the rows whose valueSet is true (a partial that never set keeps the earlier
 * value). valueSet is true once any row set the group.
 *
 * <p>Values are copied, since input batches are reused. Each batch first finds, per group, its last setting
 * row, and appends only that row's value to {@code store} (appends only, so variable-width and nested
 * vectors stay valid); {@code index[g]} points at the group's current value. Superseded values are garbage;
 * when they outnumber the live ones the store is compacted, so it stays within about twice the groups.
 */
final class LastKernel implements AggregateKernel {
  /** Below this many stored values a compaction is not worth its copy. */
  private static final int MIN_COMPACT = 1024;

  private final FunctionSpec spec;
  private final BufferAllocator allocator;
  private final String timeZone;
  private final HeapAccount heap;
  private FieldVector store;
  private final ArrowCopy.Scratch scratch = new ArrowCopy.Scratch();
  private int stored;
  /** index[g]: the row of store holding group g's value, or -1 while no row has set it. */
  private int[] index = new int[0];
  /** lastRow[g]: the batch row that last set g in the current batch (valid when touchedIn[g] == batch). */
  private int[] lastRow = new int[0];
  private int[] touchedIn = new int[0];
  private int[] touched = new int[0];
  private int batch;

  LastKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
    this.spec = spec;
    this.allocator = allocator;
    this.timeZone = timeZone;
    this.heap = new HeapAccount(allocator, spec.description);
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    index = GrowableState.ensure(heap, index, groupCount, -1);
    lastRow = GrowableState.ensure(heap, lastRow, groupCount, 0);
    touchedIn = GrowableState.ensure(heap, touchedIn, groupCount, 0);
    touched = GrowableState.ensure(heap, touched, Math.min(rows, groupCount), 0);
    ValueVector input = columns[spec.inputOrdinals[0]];
    BitVector valueSet = spec.merge ? (BitVector) columns[spec.inputOrdinals[1]] : null;
    boolean everyRowSets = valueSet == null && (!spec.ignoreNulls || input.getNullCount() == 0);
    batch++; // touchedIn starts at 0, so batch numbers start at 1
    int touchedCount = 0;
    for (int i = 0; i < rows; i++) {
      boolean sets;
      if (everyRowSets) {
        sets = true;
      } else if (valueSet != null) {
        sets = !valueSet.isNull(i) && valueSet.get(i) != 0;
      } else {
        sets = !input.isNull(i);
      }
      if (!sets) {
        continue;
      }
      int g = groupIds[i];
      if (touchedIn[g] != batch) {
        touchedIn[g] = batch;
        touched[touchedCount++] = g;
      }
      lastRow[g] = i;
    }
    if (touchedCount == 0) {
      return;
    }
    if (store == null) {
      store = FunctionSpec.newVector(spec.resultField, timeZone, allocator);
    }
    int first = stored;
    for (int t = 0; t < touchedCount; t++) {
      int g = touched[t];
      index[g] = stored++;
      touched[t] = lastRow[g]; // touched now lists the rows to append, in store order
    }
    ArrowCopy.append(input, touched, touchedCount, store, first, scratch);
    if (stored >= MIN_COMPACT && stored > 2 * groupCount) {
      compact(groupCount);
    }
  }

  /** Copies the live values (one per set group, in group order) into a fresh store. */
  private void compact(int groupCount) {
    store.setValueCount(stored);
    FieldVector fresh = FunctionSpec.newVector(spec.resultField, timeZone, allocator);
    try {
      int n = 0;
      for (int g = 0; g < groupCount; g++) {
        if (index[g] >= 0) {
          fresh.copyFromSafe(index[g], n, store);
          index[g] = n++;
        }
      }
      store.close();
      store = fresh;
      stored = n;
    } catch (RuntimeException e) {
      fresh.close();
      throw e;
    }
  }

  /** The per-group values (null for groups never set); handed to the caller, who closes it. */
  private FieldVector values(int groupCount) {
    index = GrowableState.ensure(heap, index, groupCount, -1);
    FieldVector out = FunctionSpec.newVector(spec.resultField, timeZone, allocator);
    FieldVector nullRow = FunctionSpec.newVector(spec.resultField, timeZone, allocator);
    try {
      nullRow.allocateNew();
      nullRow.setValueCount(1);
      if (store != null) {
        store.setValueCount(stored);
      }
      // Every position is written in order (nulls copied from a null row), as variable-width vectors need.
      for (int g = 0; g < groupCount; g++) {
        if (index[g] >= 0) {
          out.copyFromSafe(index[g], g, store);
        } else {
          out.copyFromSafe(0, g, nullRow);
        }
      }
      out.setValueCount(groupCount);
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    } finally {
      nullRow.close();
    }
  }

  @Override
  public void buffers(int groupCount, List<FieldVector> out) {
    FieldVector values = values(groupCount);
    out.add(values);
    BitVector set = (BitVector) FunctionSpec.newVector(spec.bufferFields[1], timeZone, allocator);
    set.allocateNew(groupCount);
    for (int g = 0; g < groupCount; g++) {
      set.set(g, index[g] >= 0 ? 1 : 0);
    }
    set.setValueCount(groupCount);
    out.add(set);
  }

  @Override
  public FieldVector result(int groupCount) {
    return values(groupCount);
  }

  @Override
  public void close() {
    if (store != null) {
      store.close();
      store = null;
    }
    heap.close();
  }
}
