package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;

import io.rowmatch.core.arrow.ArrowCopy;

/**
 * first(x [, ignoreNulls]) for any type, as Spark's First: buffer (first, valueSet). A group takes the
 * value of the first row that "sets" it: any row when nulls count, the first non-null row with
 * ignoreNulls, and when merging partial buffers the first row whose valueSet is true.
 *
 * <p>Values are copied, not referenced, since input batches are reused. Groups are numbered in order of
 * first appearance, so every group's first row is appended in group order to {@code values}; when that
 * row does not set the group (a null under ignoreNulls, or valueSet false), the value that later sets it
 * goes to {@code late} (appends only, so variable-width vectors stay valid), and the two are merged once
 * at the end. Each batch's first rows are appended together (ArrowCopy.append), not value by value.
 */
final class FirstKernel implements AggregateKernel {
  private final FunctionSpec spec;
  private final BufferAllocator allocator;
  private final String timeZone;
  private final HeapAccount heap;
  private FieldVector values;
  private final ArrowCopy.Scratch scratch = new ArrowCopy.Scratch();
  private FieldVector late;
  private int appended;
  private int lateCount;
  private boolean[] settled = new boolean[0];
  private int[] lateIndex = new int[0];
  /** The batch rows that are their group's first row, in group order. */
  private int[] newGroupRows = new int[0];

  FirstKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
    this.spec = spec;
    this.allocator = allocator;
    this.timeZone = timeZone;
    this.heap = new HeapAccount(allocator, spec.description);
  }

  @Override
  public void update(ValueVector[] columns, int rows, int[] groupIds, int groupCount) {
    settled = GrowableState.ensure(heap, settled, groupCount);
    lateIndex = GrowableState.ensure(heap, lateIndex, groupCount, -1);
    ValueVector input = columns[spec.inputOrdinals[0]];
    BitVector valueSet = spec.merge ? (BitVector) columns[spec.inputOrdinals[1]] : null;
    if (values == null) {
      values = FunctionSpec.newVector(spec.resultField, timeZone, allocator);
    }
    newGroupRows = GrowableState.ensure(heap, newGroupRows, Math.min(rows, groupCount - appended), 0);
    // Merging Rowmatch's or Spark's partial buffers of rows that all set (the common case): no per-row reads.
    boolean everyRowSets = valueSet != null && valueSet.getNullCount() == 0
        && BitVectorHelper.checkAllBitsEqualTo(valueSet.getDataBuffer(), rows, true);
    int first = appended;
    int newGroups = 0;
    for (int i = 0; i < rows; i++) {
      int g = groupIds[i];
      if (g < first + newGroups && settled[g]) {
        continue;
      }
      boolean sets;
      if (everyRowSets) {
        sets = true;
      } else if (valueSet != null) {
        sets = !valueSet.isNull(i) && valueSet.get(i) != 0;
      } else {
        sets = !spec.ignoreNulls || !input.isNull(i);
      }
      if (g == first + newGroups) {
        newGroupRows[newGroups++] = i; // copied below, all new groups of the batch at once
        settled[g] = sets;
      } else if (sets) {
        if (late == null) {
          late = FunctionSpec.newVector(spec.resultField, timeZone, allocator);
        }
        late.copyFromSafe(i, lateCount, input);
        lateIndex[g] = lateCount++;
        settled[g] = true;
      }
    }
    ArrowCopy.append(input, newGroupRows, newGroups, values, first, scratch);
    appended = first + newGroups;
  }

  /** The per-group values; handed to the caller, who closes it. */
  private FieldVector takeValues(int groupCount) {
    if (values == null) {
      values = FunctionSpec.newVector(spec.resultField, timeZone, allocator);
    }
    settled = GrowableState.ensure(heap, settled, groupCount);
    lateIndex = GrowableState.ensure(heap, lateIndex, groupCount, -1);
    FieldVector out;
    if (lateCount == 0) {
      out = values;
      values = null;
    } else {
      late.setValueCount(lateCount);
      values.setValueCount(appended);
      out = FunctionSpec.newVector(spec.resultField, timeZone, allocator);
      for (int g = 0; g < Math.min(appended, groupCount); g++) {
        if (lateIndex[g] >= 0) {
          out.copyFromSafe(lateIndex[g], g, late);
        } else {
          out.copyFromSafe(g, g, values);
        }
      }
    }
    // Groups with no rows (only the one group of a global aggregate over empty input) stay null.
    out.setValueCount(groupCount);
    return out;
  }

  @Override
  public void buffers(int groupCount, List<FieldVector> out) {
    out.add(takeValues(groupCount));
    BitVector set = (BitVector) FunctionSpec.newVector(spec.bufferFields[1], timeZone, allocator);
    NumericColumns.writeBooleans(set, settled, groupCount);
    out.add(set);
  }

  @Override
  public FieldVector result(int groupCount) {
    return takeValues(groupCount);
  }

  @Override
  public void close() {
    heap.close();
    if (values != null) {
      values.close();
      values = null;
    }
    if (late != null) {
      late.close();
      late = null;
    }
  }
}
