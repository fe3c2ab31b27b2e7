package io.rowmatch.spark.aggregate;

import java.util.List;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * An aggregate whose buffer is one nullable value per group and whose result is that same value (sum and
 * min/max over primitives): the subclasses update their typed state; writing it out, as the buffer or as
 * the result, is shared here.
 */
abstract class SingleValueKernel implements AggregateKernel {
  protected final FunctionSpec spec;
  private final BufferAllocator allocator;
  private final String timeZone;
  protected final HeapAccount heap;
  /** has[g]: group g has seen a non-null value (otherwise its value is null). */
  protected boolean[] has = new boolean[0];

  SingleValueKernel(FunctionSpec spec, BufferAllocator allocator, String timeZone) {
    this.spec = spec;
    this.allocator = allocator;
    this.timeZone = timeZone;
    this.heap = new HeapAccount(allocator, spec.description);
  }

  /** Writes groupCount values (null where !has) into v; the state must first be grown to groupCount. */
  abstract void writeValues(FieldVector v, int groupCount);

  @Override
  public final void buffers(int groupCount, List<FieldVector> out) {
    out.add(write(groupCount, spec.bufferFields[0]));
  }

  @Override
  public final FieldVector result(int groupCount) {
    return write(groupCount, spec.resultField);
  }

  private FieldVector write(int groupCount, org.apache.spark.sql.types.StructField field) {
    has = GrowableState.ensure(heap, has, groupCount);
    FieldVector v = FunctionSpec.newVector(field, timeZone, allocator);
    writeValues(v, groupCount);
    return v;
  }

  @Override
  public void close() {
    heap.close();
  }
}
